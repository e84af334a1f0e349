//! A job's log, made ready before the job starts ([`Replay::load`], fio's
//! `init_iolog`), and drawn from while it runs ([`Cursor`], fio's
//! `read_iolog_get` and `iolog_delay`).
//!
//! The whole log is read into memory, except with `read_iolog_chunked`:
//! then it is read once through to learn its files and sizes, and read
//! again while it is replayed, an entry at a time (a log on stdin or a
//! socket, which cannot be read twice, is held in memory).

use crate::release::places::Site;
use crate::release::Release;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::blktrace::{self, BlktraceReader};
use super::error::{Error, Nothing};
use super::merge;
use super::text::{ReadSettings, TextReader};
use super::{Act, Entry, Files, Summary};
use crate::ioengine::EngineSpec;
use crate::plan::spec::JobSpec;
use crate::stats::JobReport;
use crate::workload::log::Log;

/// fio's message when a log cannot be used (its `td_verror`).
/// (`init_iolog`, at `release`'s place).
pub(crate) fn init_verror(release: Release) -> String {
    let place = release.place(Site::IologInit);
    format!("file:{place}, func=failed initializing iolog, error=Invalid argument")
}

/// The report of job `spec`, whose log could not be used (`msg` says
/// why): fio fails the job with `EINVAL`. The messages go to `log` now.
pub(crate) fn failed(spec: &JobSpec, msg: &str, log: &dyn Log) -> JobReport {
    log.err(&format!(
        "{msg}\nfio: pid=0, err={}/{}\n",
        libc::EINVAL,
        init_verror(spec.release)
    ));
    let mut report = JobReport::empty(spec.report.clone(), 0);
    report.error = libc::EINVAL;
    report.error_msg = Some(init_verror(spec.release));
    // The job never got to its I/O loop: no latency_* keys.
    report.latency_depth = Some(0);
    report
}

/// The kind of log, as its first bytes say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text(u8),
    /// A blktrace trace; whether its byte order is swapped.
    Blktrace(bool),
}

/// Where the entries come from while the job runs.
#[derive(Debug)]
enum Source {
    List(Vec<Entry>),
    /// Read again from the start of the file as the job runs.
    Stream(PathBuf, Kind),
}

/// A job's log, read.
#[derive(Debug)]
pub(crate) struct Replay {
    set: ReadSettings,
    /// The files the log names, in the order it adds them.
    pub(crate) files: Vec<PathBuf>,
    /// Per file, where its last I/O ends.
    pub(crate) ends: Vec<u64>,
    /// What the job does (fio's `td_ddir`, from the log).
    pub(crate) reads: bool,
    pub(crate) writes: bool,
    pub(crate) trims: bool,
    /// The largest I/O of any direction.
    pub(crate) max_bs: u64,
    /// Bytes of I/O in the log (fio's `total_io_size`).
    pub(crate) bytes: u64,
    /// The bytes after which fio's loop stops asking the log for more
    /// when it has nothing left (its `io_issue_bytes_exceeded`).
    pub(crate) limit: u64,
    /// A blktrace trace's queue depth, for a job that sets no `iodepth`.
    pub(crate) depth: Option<u32>,
    /// The job's engine settings with that depth.
    pub(crate) engine: Option<EngineSpec>,
    /// What fio says while it reads the log, a line each: printed as
    /// the job starts.
    pub(crate) notes: Vec<String>,
    source: Source,
}

/// A reader of either kind of log.
enum Reader {
    Text(TextReader<Box<dyn BufRead + Send>>),
    Blktrace(BlktraceReader<Box<dyn Read + Send>>),
}

impl Reader {
    fn next(
        &mut self,
        files: &mut Files,
        say: &mut dyn FnMut(String),
    ) -> Result<Option<Entry>, Error> {
        match self {
            Reader::Text(r) => r.next(files, say),
            Reader::Blktrace(r) => r.next(files, say),
        }
    }
}

/// Open `path` (`-`: stdin; a Unix socket: what it sends) for reading.
fn open(path: &Path) -> std::io::Result<Box<dyn Read + Send>> {
    use std::os::unix::fs::FileTypeExt;
    if path == Path::new("-") {
        return Ok(Box::new(std::io::stdin()));
    }
    if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_socket()) {
        return Ok(Box::new(std::os::unix::net::UnixStream::connect(path)?));
    }
    Ok(Box::new(std::fs::File::open(path)?))
}

/// Whether `path` can be read a second time from its start.
fn rereadable(path: &Path) -> bool {
    path != Path::new("-") && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// A reader of `path`: of a blktrace trace when `blk` says so (with
/// its byte order), else of a text log, whose first line it reads.
fn reader(
    path: &Path,
    blk: Option<bool>,
    set: &ReadSettings,
    chunked: bool,
) -> Result<(Reader, Kind), Error> {
    let src = open(path).map_err(|source| Error::Open {
        name: set.name.clone(),
        source,
    })?;
    if let Some(swap) = blk {
        let r = BlktraceReader::new(src, swap, set.clone(), chunked);
        return Ok((Reader::Blktrace(r), Kind::Blktrace(swap)));
    }
    let src: Box<dyn BufRead + Send> = Box::new(BufReader::new(src));
    let r = TextReader::start(src, set.clone())?;
    let version = r.version();
    Ok((Reader::Text(r), Kind::Text(version)))
}

impl Replay {
    /// The log job `spec` replays, read (`None`: it replays none). An
    /// error says why the log cannot be replayed, in fio's words where it
    /// has some, with the log's name; the job then fails as fio's does.
    pub(crate) fn load(spec: &JobSpec) -> Result<Option<Replay>, Error> {
        let o = &spec.iolog;
        if o.read.is_empty() {
            return Ok(None);
        }
        let mut notes = Vec::new();
        let set = read_settings(spec)?;
        let name = set.name.clone();
        let path = PathBuf::from(&name);
        let blk = if rereadable(&path) {
            blktrace::probe(&path, &mut |s| notes.push(s))
        } else {
            None
        };
        let chunked = o.replay.chunked;
        let stream = chunked && rereadable(&path);
        let (mut r, kind) = reader(&path, blk, &set, chunked).map_err(|e| with(&notes, e))?;
        let read = read_through(&mut r, stream, &mut notes).map_err(|e| with(&notes, e))?;
        let LogRead {
            files,
            sum,
            ends,
            list,
        } = read;
        let blk = matches!(kind, Kind::Blktrace(_));
        let t_ios = sum.ios[2];
        let (reads, writes, trims) = directions(&sum, chunked, blk).map_err(|why| {
            with(
                &notes,
                Error::Nothing {
                    name: name.clone(),
                    why,
                },
            )
        })?;
        if blk && files.paths.is_empty() {
            return Err(with(&notes, Error::NoDevices { name }));
        }
        let depth = match (&r, chunked || o.replay.iodepth_set) {
            (Reader::Blktrace(b), false) => Some(blktrace_depth(b, &sum)),
            _ => None,
        };
        let loops = u64::from(spec.loops.max(1));
        // fio adds the log's bytes to the job's size (a blktrace starts
        // the size from 0).
        let size = if blk {
            sum.bytes
        } else {
            spec.size.unwrap_or(0).saturating_add(sum.bytes)
        };
        let limit = spec.io_size.unwrap_or(size).saturating_mul(loops);
        Ok(Some(Replay {
            set,
            files: files.paths,
            ends,
            reads,
            writes,
            trims: trims || (chunked && t_ios > 0),
            max_bs: sum.max_bs.into_iter().max().unwrap_or(0),
            bytes: sum.bytes,
            limit,
            depth: depth.filter(|d| *d > 0),
            engine: None,
            notes,
            source: if stream {
                Source::Stream(path, kind)
            } else {
                Source::List(list)
            },
        }))
    }
}

/// How job `spec` reads its log (subjob `n` reads the `n`th of the logs
/// and of the directories named); `merge_blktrace_file`: the logs merged
/// first, the merged one read.
fn read_settings(spec: &JobSpec) -> Result<ReadSettings, Error> {
    let o = &spec.iolog;
    let subjob = spec.subjob as usize;
    let mut name = o.read[subjob % o.read.len()].clone();
    if let Some(m) = &o.merge {
        merge::merge(&o.read, m)?;
        name = m.file.clone();
    }
    Ok(ReadSettings {
        replay: o.replay.clone(),
        readonly: spec.readonly,
        dir: (!spec.directories.is_empty())
            .then(|| PathBuf::from(&spec.directories[subjob % spec.directories.len()])),
        name,
    })
}

/// A log read once through.
struct LogRead {
    files: Files,
    sum: Summary,
    /// Per file, where its last I/O ends.
    ends: Vec<u64>,
    /// The entries, unless the log is to be read again as it is
    /// replayed.
    list: Vec<Entry>,
}

/// Read the log of `r` through, keeping its entries unless it is to be
/// `stream`ed (its messages then come as it is replayed; else they go to
/// `notes`).
fn read_through(r: &mut Reader, stream: bool, notes: &mut Vec<String>) -> Result<LogRead, Error> {
    let mut files = Files::default();
    let mut sum = Summary::default();
    let mut ends = Vec::new();
    let mut list = Vec::new();
    loop {
        // A chunked log's messages come as it is replayed.
        let mut quiet = |_| {};
        let mut keep = |s| notes.push(s);
        let say: &mut dyn FnMut(String) = if stream { &mut quiet } else { &mut keep };
        let e = match r.next(&mut files, say)? {
            Some(e) => e,
            None => break,
        };
        sum.count(&e);
        if let Act::Io(_) = e.act {
            let f = e.file as usize;
            if ends.len() <= f {
                ends.resize(f + 1, 0);
            }
            ends[f] = ends[f].max(e.offset.saturating_add(e.len));
        }
        if !stream {
            list.push(e);
        }
    }
    ends.resize(files.paths.len(), 0);
    Ok(LogRead {
        files,
        sum,
        ends,
        list,
    })
}

/// What a job replaying a log with `sum` does (reads, writes, trims: fio's
/// `td_ddir`, from the log), or why the log has nothing to replay (its
/// name to come first).
fn directions(sum: &Summary, chunked: bool, blk: bool) -> Result<(bool, bool, bool), Nothing> {
    let [r_ios, w_ios, t_ios] = sum.ios;
    if chunked {
        if sum.entries == 0 {
            return Err(Nothing::Entries);
        }
        Ok((true, true, false))
    } else if blk {
        if r_ios + w_ios + t_ios + sum.syncs == 0 {
            return Err(Nothing::BlktraceIos);
        }
        Ok((r_ios > 0, w_ios > 0, t_ios > 0))
    } else {
        if r_ios + w_ios + sum.waits == 0 {
            return Err(Nothing::Ios);
        }
        Ok(match (r_ios > 0, w_ios > 0) {
            (true, false) => (true, false, false),
            (false, true) => (false, true, false),
            _ => (true, true, false),
        })
    }
}

/// A blktrace trace's queue depth: the deepest of its directions (at most
/// 1024; a direction with I/O has at least 1).
fn blktrace_depth(b: &BlktraceReader<Box<dyn Read + Send>>, sum: &Summary) -> u32 {
    (0..3)
        .map(|i| {
            let d = b.depth(i).min(1024);
            if d <= 0 && sum.ios[i] > 0 {
                1
            } else {
                d.max(0)
            }
        })
        .max()
        .unwrap_or(0) as u32
}

/// The messages said before `err`, then `err`.
fn with(notes: &[String], err: Error) -> Error {
    if notes.is_empty() {
        return err;
    }
    Error::Noted {
        notes: notes.to_vec(),
        source: Box::new(err),
    }
}

/// Where a replay is while its job runs.
pub(crate) struct Cursor<'r> {
    replay: &'r Replay,
    pos: usize,
    /// A chunked log being read, with the files it has added so far.
    stream: Option<(Reader, Files)>,
    /// Why the chunked log could not be read again, said once.
    failed: Option<String>,
    /// When the last I/O was issued (fio's `last_issue`); `None` before
    /// the first.
    last_issue_ns: Option<u64>,
    /// How far the last delay overslept, in µs (fio's `time_offset`).
    time_offset_us: u64,
    /// The log ran out while the loop still asked for I/O: fio never
    /// reaps what is still in flight then (its `td->done`), and counts
    /// those I/Os as issued only.
    pub(crate) lost: bool,
}

impl<'r> Cursor<'r> {
    /// A cursor at the start of `replay`.
    pub(crate) fn new(replay: &'r Replay) -> Cursor<'r> {
        let (stream, failed) = match &replay.source {
            Source::List(_) => (None, None),
            Source::Stream(path, kind) => {
                let blk = match kind {
                    Kind::Blktrace(swap) => Some(*swap),
                    Kind::Text(_) => None,
                };
                match reader(path, blk, &replay.set, true) {
                    Ok((r, _)) => (Some((r, Files::default())), None),
                    Err(e) => (None, Some(format!("{}: {e}", path.display()))),
                }
            }
        };
        Cursor {
            replay,
            pos: 0,
            stream,
            failed,
            last_issue_ns: None,
            time_offset_us: 0,
            lost: false,
        }
    }

    /// The next entry, `None` at the end of the log; what fio says on
    /// the way goes to `say`.
    pub(crate) fn next(&mut self, say: &mut dyn FnMut(String)) -> Option<Entry> {
        if let Some(e) = self.failed.take() {
            say(e);
            return None;
        }
        match &self.replay.source {
            Source::List(l) => {
                let e = l.get(self.pos).copied();
                self.pos += 1;
                e
            }
            Source::Stream(..) => {
                let (r, files) = self.stream.as_mut()?;
                match r.next(files, say) {
                    Ok(e) => e,
                    Err(e) => {
                        say(e.to_string());
                        self.stream = None;
                        None
                    }
                }
            }
        }
    }

    /// An I/O was issued at `now_ns`.
    pub(crate) fn issued(&mut self, now_ns: u64) {
        self.last_issue_ns = Some(now_ns);
    }

    /// fio's `iolog_delay`: how long to sleep at `now_ns` so that the
    /// entry comes `delay_us` after the last issue, less what the last
    /// sleep overslept.
    pub(crate) fn sleep_ns(&mut self, delay_us: u64, now_ns: u64) -> u64 {
        let since_us = self
            .last_issue_ns
            .map_or(u64::MAX, |t| now_ns.saturating_sub(t) / 1000);
        if delay_us < self.time_offset_us {
            self.time_offset_us = 0;
            return 0;
        }
        let delay = delay_us - self.time_offset_us;
        if delay < since_us {
            return 0;
        }
        (delay - since_us).saturating_mul(1000)
    }

    /// A sleep for an entry `delay_us` after the last issue took
    /// `slept_ns`.
    pub(crate) fn slept(&mut self, delay_us: u64, slept_ns: u64) {
        self.time_offset_us = (slept_ns / 1000).saturating_sub(delay_us);
    }

    /// The log ran out with `issued` bytes issued. `drained`: the entries
    /// after the last I/O were used up just now (fio then asks once more
    /// and finds none); otherwise fio asks only while the job has issued
    /// less than its size.
    pub(crate) fn ran_out(&mut self, drained: bool, issued: u64) {
        self.lost = drained || issued < self.replay.limit;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::testing::job;

    fn load(dir: &Path, log: &str, extra: &[&str]) -> Result<Option<Replay>, String> {
        let p = dir.join("l.log");
        std::fs::write(&p, log).unwrap();
        let arg = format!("--read_iolog={}", p.display());
        let mut argv = vec!["--name=x", arg.as_str()];
        argv.extend_from_slice(extra);
        Replay::load(&job(&argv)).map_err(|e| e.to_string())
    }

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rfio-replay-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_text_log_gives_the_jobs_files_and_sizes() {
        let d = tmp("text");
        let r = load(
            &d,
            "fio version 2 iolog\na add\nb add\na write 0 4096\nb read 8192 65536\nb close\n",
            &[],
        )
        .unwrap()
        .unwrap();
        assert_eq!(r.files, [PathBuf::from("a"), PathBuf::from("b")]);
        assert_eq!(r.ends, [4096, 73728]);
        assert_eq!((r.reads, r.writes, r.trims), (true, true, false));
        assert_eq!((r.max_bs, r.bytes, r.limit), (65536, 69632, 69632));
        let mut c = Cursor::new(&r);
        let mut n = 0;
        while c.next(&mut |_| {}).is_some() {
            n += 1;
        }
        assert_eq!(n, 5);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn bad_logs_fail_with_their_name() {
        let d = tmp("bad");
        let e = load(&d, "fio version 1 iolog\n", &[]).unwrap_err();
        assert!(e.contains("fio: short read on blktrace file"), "{e}");
        assert!(
            e.contains("l.log: fio: iolog version 1 is no longer supported"),
            "{e}"
        );
        let e = load(&d, "fio version 2 iolog\na add\n", &[]).unwrap_err();
        assert!(e.ends_with("no reads, writes or waits to replay"), "{e}");
        let e = Replay::load(&job(&["--name=x", "--read_iolog=/nonexistent/l"])).unwrap_err();
        // The log's name and the open's errno are kept.
        assert!(
            matches!(&e, Error::Open { name, source }
                if name == "/nonexistent/l" && source.raw_os_error() == Some(libc::ENOENT)),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "/nonexistent/l: fopen read iolog: No such file or directory"
        );
        let e = Replay::load(&job(&[
            "--name=x",
            &format!("--read_iolog={}", d.join("l.log").display()),
        ]))
        .unwrap_err();
        // After the lines fio printed on the way (the probe's).
        let Error::Noted { notes, source } = &e else {
            panic!("no notes: {e:?}");
        };
        assert_eq!(notes, &["fio: short read on blktrace file"]);
        assert!(
            matches!(
                **source,
                Error::Nothing {
                    why: Nothing::Ios,
                    ..
                }
            ),
            "{e:?}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_chunked_log_is_read_again_as_it_is_replayed() {
        let d = tmp("chunked");
        let log = "fio version 2 iolog\na add\na read 0 4096\na bogus 0 0\na read 4096 4096\n";
        let r = load(&d, log, &["--read_iolog_chunked=1"]).unwrap().unwrap();
        assert!(r.notes.is_empty(), "its messages come as it is replayed");
        assert_eq!((r.reads, r.writes), (true, true), "fio: rw");
        let mut c = Cursor::new(&r);
        let mut said = Vec::new();
        let mut got = Vec::new();
        while let Some(e) = c.next(&mut |s| said.push(s)) {
            got.push((e.act, e.offset));
        }
        assert_eq!(got.len(), 3);
        assert_eq!(said.len(), 1);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn delays_count_from_the_last_issue_and_make_up_for_oversleeping() {
        let r = Replay {
            set: ReadSettings {
                replay: Default::default(),
                readonly: false,
                dir: None,
                name: String::new(),
            },
            files: Vec::new(),
            ends: Vec::new(),
            reads: true,
            writes: false,
            trims: false,
            max_bs: 0,
            bytes: 0,
            limit: 0,
            depth: None,
            engine: None,
            notes: Vec::new(),
            source: Source::List(Vec::new()),
        };
        let mut c = Cursor::new(&r);
        assert_eq!(c.sleep_ns(1000, 5_000_000), 0, "nothing issued yet");
        c.issued(5_000_000);
        assert_eq!(c.sleep_ns(1000, 5_400_000), 600_000);
        c.slept(1000, 1_300_000);
        assert_eq!(c.time_offset_us, 300);
        c.issued(6_500_000);
        assert_eq!(c.sleep_ns(1000, 6_500_000), 700_000, "300 µs made up");
        assert_eq!(c.sleep_ns(100, 6_500_000), 0);
        assert_eq!(c.time_offset_us, 0, "a delay under the offset clears it");
    }
}
