//! Writing one job's logs while it runs: [`LogSink`] is the job's
//! [`IoLog`], which its statistics feed; [`JobLogs`] the open files.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::sync::Mutex;

use super::chunks::{Compressor, PackedLog};
use super::config::{LogConfig, LogKind, WindowValue};
use super::error::Error;
use super::sample::{Layout, Sample};
use crate::stats::hist::{LatHist, PLAT_NR};
use crate::stats::{IoLog, LogError, LoggedIo, Rate};

/// Bytes buffered per log file before a write.
const BUF_BYTES: usize = 256 << 10;
/// fio's `LOG_MSEC_SLACK`: sampled logs close a window up to 1 ms early.
const MSEC_SLACK: u64 = 1;

/// One line of a log (bs and offset 0 for an averaged window).
#[derive(Debug, Clone, Copy)]
struct Line {
    t_ms: u64,
    value: u64,
    /// The window's max with `log_window_value=both` (0 on a per-I/O line).
    value1: u64,
    dir: usize,
    bs: u64,
    offset: u64,
    prio: u16,
    /// Issue time, ns since the job's start (`log_issue_time`; clat and
    /// slat lines only).
    issue_ns: u64,
}

/// Samples of one direction inside the current window.
#[derive(Debug, Clone, Copy, Default)]
struct Window {
    samples: u64,
    mean: f64,
    max: u64,
}

impl Window {
    fn add(&mut self, v: u64) {
        self.samples += 1;
        self.max = self.max.max(v);
        let delta = v as f64 - self.mean;
        self.mean += delta / self.samples as f64;
    }
}

/// Where a log's lines go: text written as the job runs, or fio's sample
/// records kept in memory and written when it ends.
enum Out {
    Text(BufWriter<File>),
    Packed(File, PackedLog),
}

/// Held while a log shared by jobs (`per_job_logs=0`) gets a job's whole
/// log at its end, as fio locks the file for it.
static APPENDING: Mutex<()> = Mutex::new(());

/// One open log file and its averaging state.
struct LogFile {
    out: Out,
    windows: [Window; 3],
    /// Start of the current window per direction, ms.
    avg_last: [u64; 3],
}

/// Histogram-log state of one direction.
struct HistDir {
    /// fio's `hist_last`: 0 until the first sample.
    last_ms: u64,
    samples: u64,
    bs: u64,
    /// Bucket counts at the previous row.
    before: Box<[u64; PLAT_NR]>,
}

/// The open logs of one running job.
pub(crate) struct JobLogs {
    cfg: LogConfig,
    /// Added to every time (`log_unix_epoch`, `log_alternate_epoch`).
    time_base: u64,
    files: [Option<LogFile>; 6],
    /// The compression thread (`log_compression`).
    gz: Option<Compressor>,
    hist: Option<[HistDir; 3]>,
    scratch: Box<[u64; PLAT_NR]>,
    /// First write error, reported when the job finishes.
    error: Option<Error>,
}

impl std::fmt::Debug for JobLogs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobLogs").field("cfg", &self.cfg).finish()
    }
}

impl JobLogs {
    /// Create (or, with `per_job_logs=0`, open for appending) the job's
    /// log files. `start_unix_ms` is when the job's I/O started.
    pub(crate) fn open(cfg: &LogConfig, start_unix_ms: u64) -> io::Result<JobLogs> {
        let mut files: [Option<LogFile>; 6] = Default::default();
        for (kind, prefix) in &cfg.logs {
            let path = cfg.path(*kind, prefix);
            let file = if cfg.per_job {
                File::create(&path)
            } else {
                OpenOptions::new().create(true).append(true).open(&path)
            }
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            let out = if cfg.packed(*kind) {
                let layout = Layout {
                    offset: cfg.offset,
                    prio: cfg.prio,
                };
                Out::Packed(file, PackedLog::new(layout, cfg.entries))
            } else {
                Out::Text(BufWriter::with_capacity(BUF_BYTES, file))
            };
            files[*kind as usize] = Some(LogFile {
                out,
                windows: [Window::default(); 3],
                avg_last: [0; 3],
            });
        }
        let hist = cfg.has(LogKind::ClatHist).then(|| {
            std::array::from_fn(|_| HistDir {
                last_ms: 0,
                samples: 0,
                bs: 0,
                before: Box::new([0; PLAT_NR]),
            })
        });
        let any_packed = cfg.logs.iter().any(|(k, _)| cfg.packed(*k));
        let gz = if cfg.compress && any_packed {
            Some(Compressor::spawn(cfg.compress_cpus.clone())?)
        } else {
            None
        };
        let time_base = match cfg.epoch_clock {
            None => 0,
            Some(0) => start_unix_ms,
            Some(clock) => super::clock::now_ms(clock)?,
        };
        Ok(JobLogs {
            cfg: cfg.clone(),
            time_base,
            files,
            gz,
            hist,
            scratch: Box::new([0; PLAT_NR]),
            error: None,
        })
    }

    /// One completed I/O: a value in each of the per-I/O logs it feeds
    /// (lat, clat, slat; bw and iops when not windowed), and the clat
    /// histogram row when one is due.
    #[inline]
    pub(crate) fn record(&mut self, e: &LoggedIo<'_>) {
        let line = |value: u64| Line {
            t_ms: e.t_ms,
            value,
            value1: 0,
            dir: e.dir,
            bs: e.bytes,
            offset: e.offset,
            prio: e.ioprio,
            issue_ns: 0,
        };
        if let Some(rate) = e.bw {
            self.io(LogKind::Bw, &line(rate));
        }
        if e.iops {
            self.io(LogKind::Iops, &line(1));
        }
        if let Some(v) = e.lat_ns {
            self.io(LogKind::Lat, &line(v));
        }
        if let Some((issued_ms, v)) = e.slat {
            let l = Line {
                t_ms: issued_ms,
                issue_ns: e.issued_ns,
                ..line(v)
            };
            self.io(LogKind::Slat, &l);
        }
        if let Some(v) = e.clat_ns {
            let l = Line {
                issue_ns: e.issued_ns,
                ..line(v)
            };
            self.io(LogKind::Clat, &l);
            if e.hist && self.hist_tick(e.t_ms, e.dir, e.bytes) {
                self.hist_row(e.t_ms, e.dir, e.clat_hist);
            }
        }
    }

    /// One value of a per-I/O log: a line per I/O, or into the averaging
    /// window. `prio` is the I/O priority the I/O carried (fio's
    /// `io_u->ioprio`).
    #[inline]
    fn io(&mut self, kind: LogKind, l: &Line) {
        if self.files[kind as usize].is_none() {
            return;
        }
        if self.cfg.window_msec(kind) == 0 {
            self.line(kind, l);
        } else {
            self.windowed_sample(kind, l.t_ms, l.value, l.dir);
        }
    }

    /// One value from the periodic bandwidth/IOPS sampler (windowed logs).
    #[inline]
    pub(crate) fn sampled(&mut self, kind: LogKind, t_ms: u64, value: u64, dir: usize) {
        if self.files[kind as usize].is_some() {
            self.windowed_sample(kind, t_ms, value, dir);
        }
    }

    /// fio's `add_log_sample` with `log_avg_msec`: add, and close the
    /// direction's window once it spans `log_avg_msec`.
    fn windowed_sample(&mut self, kind: LogKind, t_ms: u64, value: u64, dir: usize) {
        let avg = self.cfg.window_msec(kind);
        let Some(f) = self.files[kind as usize].as_mut() else {
            return;
        };
        f.windows[dir].add(value);
        let last = f.avg_last[dir];
        if t_ms < last {
            return;
        }
        let this_window = t_ms - last;
        if this_window < avg {
            let diff = avg - this_window;
            if !kind.sampled() || diff > MSEC_SLACK {
                return;
            }
        }
        self.flush_window(kind, dir, t_ms);
        if let Some(f) = self.files[kind as usize].as_mut() {
            f.avg_last[dir] = t_ms - t_ms % avg;
        }
    }

    /// Write the window of `dir` (if it holds samples) as one line at `t_ms`.
    fn flush_window(&mut self, kind: LogKind, dir: usize, t_ms: u64) {
        let window = self.cfg.window;
        let Some(f) = self.files[kind as usize].as_mut() else {
            return;
        };
        let w = std::mem::take(&mut f.windows[dir]);
        if w.samples == 0 {
            return;
        }
        let mean = (w.mean + 0.5) as u64;
        let (value, value1) = match window {
            WindowValue::Avg => (mean, 0),
            WindowValue::Max => (w.max, 0),
            WindowValue::Both => (mean, w.max),
        };
        let l = Line {
            t_ms,
            value,
            value1,
            dir,
            bs: 0,
            offset: 0,
            prio: 0,
            issue_ns: 0,
        };
        self.line(kind, &l);
    }

    /// Write one line: `time, value[, value1], ddir, bs[, offset], prio[,
    /// issue time]` (fio 3.42's `flush_samples`; value1 with
    /// `log_window_value=both`, the issue time with `log_issue_time=1`).
    /// The priority column is fio's: with `log_prio=1` the I/O priority
    /// value (`0x%04x`: class << 13 | level), else 1 for the real-time
    /// class and 0 for any other (`ioprio_value_is_class_rt`).
    fn line(&mut self, kind: LogKind, l: &Line) {
        let (log_offset, log_prio, base) = (self.cfg.offset, self.cfg.prio, self.time_base);
        let (both, log_issue) = (self.cfg.window == WindowValue::Both, self.cfg.issue_time);
        let Line {
            t_ms,
            value,
            value1,
            dir,
            bs,
            offset,
            prio,
            issue_ns,
        } = *l;
        let Some(f) = self.files[kind as usize].as_mut() else {
            return;
        };
        let w = match &mut f.out {
            Out::Text(w) => w,
            Out::Packed(_, log) => {
                let s = Sample {
                    time: t_ms + base,
                    value,
                    dir: dir as u32,
                    prio,
                    bs,
                    offset,
                };
                log.push(&s, self.gz.as_ref(), kind);
                return;
            }
        };
        let r = (|| {
            write!(w, "{}, {value}, ", t_ms + base)?;
            if both {
                write!(w, "{value1}, ")?;
            }
            write!(w, "{dir}, {bs}, ")?;
            if log_offset {
                write!(w, "{offset}, ")?;
            }
            if log_prio {
                write!(w, "0x{prio:04x}")?;
            } else {
                w.write_all(if prio >> 13 == 1 { b"1" } else { b"0" })?;
            }
            if log_issue {
                writeln!(w, ", {issue_ns}")
            } else {
                w.write_all(b"\n")
            }
        })();
        if let Err(e) = r {
            self.note(kind, e);
        }
    }

    /// Whether the clat histogram of `dir` is due for a row at `t_ms`
    /// (fio's `add_clat_sample` histogram part); counts the sample.
    #[inline]
    fn hist_tick(&mut self, t_ms: u64, dir: usize, bs: u64) -> bool {
        let msec = self.cfg.hist_msec;
        let Some(h) = self.hist.as_mut() else {
            return false;
        };
        if msec == 0 {
            return false;
        }
        let h = &mut h[dir];
        h.samples += 1;
        h.bs = bs;
        if h.last_ms == 0 {
            h.last_ms = t_ms;
        }
        t_ms.saturating_sub(h.last_ms) >= msec
    }

    /// Write the histogram row of `dir` at `t_ms` from the clat histogram
    /// `clat` (cumulative), after [`JobLogs::hist_tick`] said it is due.
    fn hist_row(&mut self, t_ms: u64, dir: usize, clat: Option<&LatHist>) {
        let msec = self.cfg.hist_msec;
        self.write_hist_row(t_ms, dir, clat);
        if let Some(h) = self.hist.as_mut() {
            let h = &mut h[dir];
            let this_window = t_ms.saturating_sub(h.last_ms);
            h.last_ms = t_ms - this_window.saturating_sub(msec);
            h.samples = 0;
        }
    }

    fn write_hist_row(&mut self, t_ms: u64, dir: usize, clat: Option<&LatHist>) {
        let stride = 1usize << self.cfg.hist_coarseness;
        let base = self.time_base;
        let (Some(hists), Some(f)) = (
            self.hist.as_mut(),
            self.files[LogKind::ClatHist as usize].as_mut(),
        ) else {
            return;
        };
        let Out::Text(w) = &mut f.out else {
            return;
        };
        let h = &mut hists[dir];
        match clat {
            Some(c) => c.fio_buckets(&mut self.scratch),
            None => self.scratch.fill(0),
        }
        let r = (|| {
            write!(w, "{}, {dir}, {}, ", t_ms + base, h.bs)?;
            // fio's flush_hist_samples: a column every `stride` buckets
            // while a whole stride is left after it, then the last
            // `stride` buckets (overlapping the one before when the
            // stride does not divide 1856: coarseness 7 to 10).
            let sum = |from: usize| -> u64 {
                (from..from + stride)
                    .map(|i| self.scratch[i].saturating_sub(h.before[i]))
                    .sum()
            };
            let last = PLAT_NR - stride;
            for from in (0..last).step_by(stride) {
                write!(w, "{}, ", sum(from))?;
            }
            writeln!(w, "{}", sum(last))?;
            Ok::<(), io::Error>(())
        })();
        h.before.copy_from_slice(&self.scratch[..]);
        if let Err(e) = r {
            self.note(LogKind::ClatHist, e);
        }
    }

    /// The job finished at `t_ms`: write every partial window once, flush
    /// and close the files. Returns the first error, if any.
    pub(crate) fn finish(&mut self, t_ms: u64, clat: [Option<&LatHist>; 3]) -> Result<(), Error> {
        for kind in LogKind::ALL {
            if kind == LogKind::ClatHist {
                continue;
            }
            for dir in 0..3 {
                self.flush_window(kind, dir, t_ms);
            }
        }
        if self.cfg.hist_msec > 0 {
            for (dir, c) in clat.iter().enumerate() {
                let pending = self.hist.as_ref().is_some_and(|h| h[dir].samples > 0);
                if pending {
                    self.write_hist_row(t_ms, dir, *c);
                }
            }
        }
        let (mut compressed, problem) = match self.gz.take() {
            Some(gz) => gz.finish(),
            None => Default::default(),
        };
        if let Some(p) = problem {
            self.error.get_or_insert(p);
        }
        for kind in LogKind::ALL {
            let Some(f) = self.files[kind as usize].take() else {
                continue;
            };
            let z = std::mem::take(&mut compressed[kind as usize]);
            let r = match f.out {
                Out::Text(mut w) => w.flush(),
                Out::Packed(file, log) => self.write_packed(file, log, z),
            };
            if let Err(e) = r {
                self.note(kind, e);
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Write a log kept in memory at the job's end: its zlib streams
    /// (`log_store_compressed`) or its text; `compressed` is what the
    /// compression thread made of it.
    fn write_packed(&self, file: File, log: PackedLog, compressed: Vec<Vec<u8>>) -> io::Result<()> {
        let _shared =
            (!self.cfg.per_job).then(|| APPENDING.lock().unwrap_or_else(|p| p.into_inner()));
        let mut w = BufWriter::with_capacity(BUF_BYTES, file);
        if self.cfg.store_compressed {
            for z in log.streams(compressed) {
                w.write_all(&z)?;
            }
        } else {
            log.write_text(&compressed, &mut w)?;
        }
        w.flush()
    }

    /// Keep the first write error, naming the log's file.
    fn note(&mut self, kind: LogKind, source: io::Error) {
        if self.error.is_some() {
            return;
        }
        let path = self
            .cfg
            .logs
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(k, prefix)| crate::diag::show_path(&self.cfg.path(*k, prefix)));
        self.error = Some(match path {
            Some(path) => Error::Write { path, source },
            None => Error::WriteKind {
                kind: kind.name(),
                source,
            },
        });
    }
}

/// A job's logs as its statistics see them: opened when the job's I/O
/// starts, fed each completed I/O, closed when the job ends.
#[derive(Debug)]
pub(crate) struct LogSink {
    cfg: LogConfig,
    open: Option<JobLogs>,
}

impl LogSink {
    pub(crate) fn new(cfg: &LogConfig) -> LogSink {
        LogSink {
            cfg: cfg.clone(),
            open: None,
        }
    }
}

/// The [`IoLog`] of a job with logs `cfg`, for its `ThreadStats`.
pub fn sink(cfg: &LogConfig) -> Box<dyn IoLog> {
    Box::new(LogSink::new(cfg))
}

impl IoLog for LogSink {
    fn start(&mut self, start_unix_ms: u64) -> io::Result<()> {
        self.open = Some(JobLogs::open(&self.cfg, start_unix_ms)?);
        Ok(())
    }

    #[inline]
    fn io(&mut self, io: &LoggedIo<'_>) {
        if let Some(l) = self.open.as_mut() {
            l.record(io);
        }
    }

    fn sampled(&mut self, rate: Rate, t_ms: u64, value: u64, dir: usize) {
        let kind = match rate {
            Rate::Bw => LogKind::Bw,
            Rate::Iops => LogKind::Iops,
        };
        if let Some(l) = self.open.as_mut() {
            l.sampled(kind, t_ms, value, dir);
        }
    }

    fn finish(&mut self, end_ms: u64, clat: [Option<&LatHist>; 3]) -> Result<(), LogError> {
        match self.open.take() {
            Some(mut l) => l.finish(end_ms, clat).map_err(LogError::from),
            None => Ok(()),
        }
    }
}
