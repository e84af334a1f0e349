//! The status line fio prints while jobs run (fio 3.33 `eta.c`):
//!
//! ```text
//! Jobs: 1 (f=1): [r(1)][50.0%][r=22.1GiB/s][r=5791k IOPS][eta 00m:03s]\r
//! ```
//!
//! - `Jobs: <running> (f=<open files>)`, then `, <min>-<max>` when running
//!   jobs have `rate`/`rate_min` (bytes/s) or `, <min>-<max> IOPS` for
//!   `rate_iops`/`rate_iops_min`.
//! - From the third second on: `: [<states>][<done>%]`, the read, write and
//!   trim bandwidth and IOPS since the last line (directions that moved
//!   something), and `[eta <left>]`. States are one letter per job, runs
//!   condensed (`r(1),_(2),P(1)`): `P` not started, `I` setting up, `/`
//!   ramping, `R`/`r` (sequential/random) read, `W`/`w` write, `M`/`m`
//!   mixed, `D`/`d` trim, `f` finishing, `E` exited, `_` done, `X` failed.
//! - Each line ends with `\r` (no newline); a shorter line is padded with
//!   spaces over the previous one. `--eta-newline=t` starts a new line at
//!   the first update after each `t`.
//! - Printed once per `--eta-interval` (1 s) from the start of the jobs
//!   (every 250 ms, fio's helper-thread tick, while no byte was counted
//!   yet), on stdout, only when the normal format is asked for or the
//!   results go to an `--output` file, and then only on a terminal unless
//!   `--eta=always`; never with `--eta=never`. The line is left as it is
//!   at the end: the results start with a newline.
//! - The same thread prints the full reports of `--status-interval` and
//!   SIGUSR1 (`status`), and with `--bandwidth-log` takes the aggregate
//!   bandwidth samples (`logs::agg`) each time it computes the line, as
//!   fio does: where the line is not shown, the agg logs stay empty.
//!
//! The ETA and percent follow fio's arithmetic exactly, quirks included
//! (a pending `stonewall` job adds its estimate, which before the third
//! second is fio's "unknown" and shows as `eta 49710d:06h:28m:14s`).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::args::{Args, Eta};
use super::signals;
use super::status::StatusReports;
use crate::logs::agg::{AggLog, AggSample};
use crate::options::Value;
use crate::output::num2str::{num2str, Unit};
use crate::plan::spec::{JobSpec, Plan};
use crate::stats::Unified;
use crate::workload::progress::{request_stop, stop_requested, JobState, Progress};
use crate::workload::{Log, StdLog};

/// fio's "not known yet" estimate (`INT_MAX`).
const UNKNOWN: u64 = i32::MAX as u64;

/// How often the monitor looks for a signal between status lines.
const POLL: Duration = Duration::from_millis(20);

/// fio's helper thread also wakes on its disk-utilisation timer, every
/// 250 ms (`DISK_UTIL_MSEC`), and tries a line each time it wakes.
const HELPER_TICK_MS: u64 = 250;

/// When and how the status line is printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Print the status line at all.
    pub show: bool,
    /// `--eta-interval` (default 1 s).
    pub interval: Duration,
    /// `--eta-newline`: start a new line every this long.
    pub newline: Option<Duration>,
    /// The results go to stdout, so the signal message goes there as soon
    /// as a signal comes (with `--output` it goes to the file, after the
    /// run).
    pub signal_to_stdout: bool,
    /// `--bandwidth-log`: take the aggregate samples with the line.
    pub bandwidth_log: bool,
}

impl Settings {
    /// fio's `skip_eta`: no line when the results go to stdout without the
    /// normal format, with `--eta=never`, or when stdout is not a terminal
    /// unless `--eta=always`.
    pub fn new(args: &Args, normal: bool, stdout_is_tty: bool) -> Settings {
        let to_stdout = args.output.is_none();
        let show = match args.eta {
            _ if !normal && to_stdout => false,
            Eta::Never => false,
            Eta::Always => true,
            Eta::Auto => stdout_is_tty,
        };
        Settings {
            show,
            interval: Duration::from_millis(args.eta_interval_ms.unwrap_or(1000)),
            newline: args.eta_newline_ms.map(Duration::from_millis),
            signal_to_stdout: to_stdout,
            bandwidth_log: args.bandwidth_log,
        }
    }
}

/// Whether stdout is a pipe whose reader has gone (`poll` reports
/// `POLLERR` on a pipe's write end once no reader is left). The next write
/// there raises SIGPIPE, as fio's would; the monitor stops the jobs as soon
/// as it sees this instead of running them to the end first.
pub fn stdout_reader_gone() -> bool {
    let mut fd = libc::pollfd {
        fd: 1,
        events: 0,
        revents: 0,
    };
    // SAFETY: `fd` is one valid pollfd for the duration of the call; a
    // zero timeout never blocks.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n == 1 && fd.revents & libc::POLLERR != 0
}

/// Whether stdout is a terminal.
pub fn stdout_is_tty() -> bool {
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(1) == 1 }
}

/// What the monitor leaves when the run is over.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The signal message was printed.
    pub told: bool,
    /// `--bandwidth-log`: the aggregate samples (none where the status
    /// line was not shown, as fio).
    pub agg: Option<AggLog>,
}

/// Watch the run until `done`: print the status line when `settings` say
/// so, the full reports of `reports` when due (`--status-interval`) or
/// asked for (SIGUSR1), and, when the results go to stdout, fio's message
/// for a signal as soon as one comes.
pub fn monitor(
    plan: &Plan,
    progress: &Progress,
    settings: &Settings,
    done: &AtomicBool,
    mut reports: Option<StatusReports<'_>>,
) -> Outcome {
    let interval_ms = settings.interval.as_millis() as u64;
    let mut status = Status::new(plan, interval_ms, settings.newline);
    if settings.bandwidth_log {
        let bw_avg = plan
            .jobs
            .iter()
            .map(|j| j.report.stats.bw_avg_ms)
            .min()
            .unwrap_or(500);
        status.log_bandwidth(bw_avg);
    }
    let mut told = false;
    let origin = progress.origin();
    let mut next_ms = next_wake(0, interval_ms);
    let watch_stdout = settings.signal_to_stdout || settings.show;
    loop {
        if watch_stdout && !stop_requested() && stdout_reader_gone() {
            request_stop();
        }
        let signaled = signals::received();
        if let (Some(sig), true, false) = (signaled, settings.signal_to_stdout, told) {
            StdLog.info(&signals::message(sig));
            told = true;
        }
        if done.load(Ordering::Acquire) {
            return Outcome {
                told,
                agg: status.agg_log().cloned(),
            };
        }
        let mut wait = POLL;
        if let Some(r) = reports.as_mut() {
            let tick_ms = origin.elapsed().as_millis() as u64;
            let asked = signals::take_status_request();
            if (r.due(tick_ms) || asked) && signaled.is_none() {
                r.print(progress);
            }
            if let Some(at) = r.next_ms() {
                let tick_ms = origin.elapsed().as_millis() as u64;
                wait = wait.min(Duration::from_millis(at.saturating_sub(tick_ms)));
            }
        }
        if settings.show && signaled.is_none() {
            // The wake-ups count from before the files were laid out, as
            // fio's helper thread; the numbers from the start of the jobs.
            let now = Instant::now();
            let tick_ms = now.saturating_duration_since(origin).as_millis() as u64;
            if tick_ms >= next_ms {
                if let Some(genesis) = progress.genesis() {
                    if let Some(line) = status.update(progress, genesis, now) {
                        StdLog.info(&line);
                    }
                }
                next_ms = next_wake(tick_ms, interval_ms);
            }
            let tick_ms = origin.elapsed().as_millis() as u64;
            wait = wait.min(Duration::from_millis(next_ms.saturating_sub(tick_ms)));
        }
        std::thread::park_timeout(wait);
    }
}

/// When fio's helper thread wakes next after `at_ms` (from its start): on
/// its 250 ms timer or its `eta_interval` timer.
fn next_wake(at_ms: u64, interval_ms: u64) -> u64 {
    let after = |step: u64| (at_ms / step + 1) * step;
    after(HELPER_TICK_MS).min(after(interval_ms.max(1)))
}

/// Ends a [`monitor`] when dropped (a panic of the run included): sets its
/// `done` flag and wakes its thread.
pub struct StopOnDrop<'a> {
    done: &'a AtomicBool,
    thread: std::thread::Thread,
}

impl<'a> StopOnDrop<'a> {
    pub fn new(done: &'a AtomicBool, thread: std::thread::Thread) -> StopOnDrop<'a> {
        StopOnDrop { done, thread }
    }
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// What the line needs to know of a job, from its options.
#[derive(Debug, Clone, PartialEq)]
pub struct JobInfo {
    /// The state letter while it runs.
    pub letter: char,
    /// Directions it does: read, write, trim.
    pub dirs: [bool; 3],
    pub time_based: bool,
    pub runtime_us: u64,
    pub ramp_us: u64,
    pub start_delay_us: u64,
    /// `rate`, `rate_min` (bytes/s), `rate_iops`, `rate_iops_min`, per
    /// direction.
    pub rate: [u64; 3],
    pub rate_min: [u64; 3],
    pub rate_iops: [u64; 3],
    pub rate_iops_min: [u64; 3],
    pub stonewall: bool,
}

impl JobInfo {
    pub fn from_spec(spec: &JobSpec) -> JobInfo {
        let p = spec.pattern;
        let mixed = |seq: char, rnd: char| if p.random { rnd } else { seq };
        let letter = if p.read && p.write {
            match spec.rwmixread {
                100 => mixed('R', 'r'),
                0 => mixed('W', 'w'),
                _ => mixed('M', 'm'),
            }
        } else if p.read {
            mixed('R', 'r')
        } else if p.write {
            mixed('W', 'w')
        } else {
            mixed('D', 'd')
        };
        JobInfo {
            letter,
            dirs: [p.read, p.write, p.trim],
            time_based: spec.time_based,
            runtime_us: spec.runtime_us,
            ramp_us: spec.ramp_time_us,
            start_delay_us: spec.startdelay_us.0,
            rate: per_dir(spec, "rate"),
            rate_min: per_dir(spec, "rate_min"),
            rate_iops: per_dir(spec, "rate_iops"),
            rate_iops_min: per_dir(spec, "rate_iops_min"),
            stonewall: spec.stonewall,
        }
    }
}

/// A per-direction option (`rate=1m,2m`) as three numbers.
fn per_dir(spec: &JobSpec, name: &str) -> [u64; 3] {
    let mut out = [0u64; 3];
    if let Some(Value::PerDir(v)) = spec.opt(name) {
        for (d, val) in v.iter().enumerate().take(3) {
            out[d] = match val {
                Some(Value::Bytes(b)) => *b,
                Some(Value::Int(n)) => (*n).max(0) as u64,
                _ => 0,
            };
        }
    }
    out
}

/// One job's published numbers at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobSnap {
    pub state: JobState,
    pub files_open: u32,
    /// Milliseconds since the job's epoch, once its I/O started.
    pub epoch_ms: Option<u64>,
    pub bytes: [u64; 3],
    pub ios: [u64; 3],
    pub total_bytes: u64,
}

/// Settings over all jobs that shape the numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Units {
    /// Some job has a power-of-2 `kb_base`.
    pub pow2: bool,
    /// The last job's `unit_base=1` (bits).
    pub bits: bool,
    /// The last job's `significant_figures`.
    pub sig_figs: usize,
    /// Some job has `unified_rw_reporting`.
    pub unified: bool,
    /// Some job has `exitall`: the first to finish ends the others.
    pub exitall: bool,
}

impl Default for Units {
    fn default() -> Units {
        Units {
            pow2: true,
            bits: false,
            sig_figs: 4,
            unified: false,
            exitall: false,
        }
    }
}

/// The numbers of one line (fio's `struct jobs_eta`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JobsEta {
    pub nr_running: u32,
    pub nr_ramp: u32,
    pub nr_pending: u32,
    pub files_open: u32,
    pub m_rate: [u64; 3],
    pub t_rate: [u64; 3],
    pub m_iops: [u64; 3],
    pub t_iops: [u64; 3],
    /// Bandwidth (KiB/s) and IOPS since the last line.
    pub rate: [u64; 3],
    pub iops: [u64; 3],
    pub elapsed_sec: u64,
    pub eta_sec: u64,
    pub run_str: String,
}

/// The line's state between updates (fio's statics in `eta.c`).
#[derive(Debug, Clone)]
pub struct Status {
    jobs: Vec<JobInfo>,
    units: Units,
    /// `--eta-interval` and `--eta-newline`, in ms.
    interval_ms: u64,
    newline_ms: Option<u64>,
    /// Bytes and I/Os at the last line, and when it was (ms after the
    /// start of the jobs).
    disp_bytes: [u64; 3],
    disp_ios: [u64; 3],
    disp_at_ms: u64,
    eta_good: bool,
    linelen_last: usize,
    newline_from_ms: Option<u64>,
    newline_pending: bool,
    /// `--bandwidth-log`: the aggregate samples taken with the line.
    agg: Option<AggState>,
}

/// How late a wake-up may come and still count as on time.
const AGG_SLACK_MS: u64 = 5;

/// The aggregate bandwidth log's sampling (fio's `rate_io_bytes`,
/// `rate_prev_time` and `bw_avg_time` in `calc_thread_status`).
#[derive(Debug, Clone)]
struct AggState {
    log: AggLog,
    /// The smallest `bwavgtime` of the jobs.
    bw_avg_ms: u64,
    /// Bytes at the last sample, and when it was (ms after the start of
    /// the jobs).
    bytes: [u64; 3],
    at_ms: u64,
    /// The gap before the last sample.
    last_gap_ms: u64,
}

impl AggState {
    /// At a wake-up `at_ms` after the start, with `io_bytes` done so far:
    /// a sample when more than `bwavgtime` passed since the last one (the
    /// start while nothing was counted) and no job ramps.
    ///
    /// fio compares whole milliseconds measured between wake-ups that
    /// drift by a few ms, so its samples come 500 to 750 ms apart with the
    /// default 500 ms (about 640 ms on average); on rfio's exact 250 ms
    /// wake-ups a strict `>` would always wait 750 ms and `>=` always
    /// 500 ms. A sample exactly `bwavgtime` after the last is taken when
    /// the gap before that one was longer: 500 and 750 ms alternate.
    fn wake(&mut self, at_ms: u64, io_bytes: [u64; 3], ramping: bool) {
        if self.bytes.iter().sum::<u64>() == 0 {
            self.at_ms = 0;
        }
        let gap = at_ms.saturating_sub(self.at_ms);
        // Wake-ups come a little late: a gap within a few ms of
        // `bwavgtime` counts as exactly that.
        let (bw, slack) = (self.bw_avg_ms, AGG_SLACK_MS);
        let longer = |g: u64| g > bw + slack;
        let due = longer(gap) || (gap + slack >= bw && longer(self.last_gap_ms));
        if !due || ramping || gap == 0 {
            return;
        }
        let kib_s =
            std::array::from_fn(|d| io_bytes[d].saturating_sub(self.bytes[d]) * 1000 / gap / 1024);
        self.log.push(AggSample { t_ms: at_ms, kib_s });
        self.bytes = io_bytes;
        self.at_ms = at_ms;
        self.last_gap_ms = gap;
    }
}

impl Status {
    pub fn new(plan: &Plan, interval_ms: u64, newline: Option<Duration>) -> Status {
        let mut units = Units {
            pow2: false,
            ..Units::default()
        };
        for spec in &plan.jobs {
            let c = &spec.report.stats;
            units.pow2 |= c.kb_base == 1024;
            units.bits = c.unit_base == 1;
            units.sig_figs = c.sig_figs;
            units.unified |= c.unified != Unified::None;
            units.exitall |= matches!(spec.opt("exitall"), Some(Value::Bool(true)));
        }
        let jobs = plan.jobs.iter().map(JobInfo::from_spec).collect();
        Status::with_jobs(jobs, units, interval_ms, newline)
    }

    pub fn with_jobs(
        jobs: Vec<JobInfo>,
        units: Units,
        interval_ms: u64,
        newline: Option<Duration>,
    ) -> Status {
        Status {
            jobs,
            units,
            interval_ms,
            newline_ms: newline.map(|d| d.as_millis() as u64),
            disp_bytes: [0; 3],
            disp_ios: [0; 3],
            disp_at_ms: 0,
            eta_good: false,
            linelen_last: 0,
            newline_from_ms: None,
            newline_pending: false,
            agg: None,
        }
    }

    /// Take the aggregate bandwidth samples of `--bandwidth-log` with the
    /// line, every `bw_avg_ms` (the smallest `bwavgtime` of the jobs).
    pub fn log_bandwidth(&mut self, bw_avg_ms: u64) {
        self.agg = Some(AggState {
            log: AggLog::new(),
            bw_avg_ms,
            bytes: [0; 3],
            at_ms: 0,
            last_gap_ms: 0,
        });
    }

    /// The aggregate bandwidth samples taken so far.
    pub fn agg_log(&self) -> Option<&AggLog> {
        self.agg.as_ref().map(|a| &a.log)
    }

    /// The line for `now`, if one is due (some job runs or waits).
    fn update(&mut self, progress: &Progress, genesis: Instant, now: Instant) -> Option<String> {
        let snaps = snapshots(progress, now);
        let at_ms = now.saturating_duration_since(genesis).as_millis() as u64;
        let je = self.calc(&snaps, at_ms, progress.done_secs())?;
        Some(self.display(&je, at_ms))
    }

    /// The jobs' ETA in seconds (fio's `je->eta_sec`): INT_MAX while
    /// `elapsed_sec` (since the start of the jobs, rounded up) is under 3;
    /// then each job's own, the longest (or, with `exitall`, the shortest),
    /// plus those of the stonewalled jobs not yet started.
    fn eta_sec(&self, snaps: &[JobSnap], elapsed_sec: u64, done_secs: u64) -> u64 {
        let eta_secs: Vec<u64> = self
            .jobs
            .iter()
            .zip(snaps)
            .map(|(info, s)| {
                if elapsed_sec >= 3 {
                    thread_eta(info, s, done_secs)
                } else {
                    UNKNOWN
                }
            })
            .collect();
        if self.units.exitall {
            eta_secs.iter().copied().fold(UNKNOWN, u64::min)
        } else {
            let mut eta = 0u64;
            let mut stone = 0u64;
            for ((info, s), &e) in self.jobs.iter().zip(snaps).zip(&eta_secs) {
                if s.state == JobState::NotCreated && info.stonewall {
                    stone = stone.wrapping_add(e);
                } else {
                    eta = eta.max(e);
                }
            }
            eta.wrapping_add(stone)
        }
    }

    /// fio's `calc_thread_status` at `at_ms` after the start of the jobs;
    /// `None` when no line is due: less than 95% of the interval since the
    /// last line (since the start while nothing was counted yet, so fio
    /// prints at each 250 ms wake-up then), or no job runs or waits.
    ///
    /// With `--bandwidth-log` the aggregate sample is taken first, at every
    /// call.
    pub fn calc(&mut self, snaps: &[JobSnap], at_ms: u64, done_secs: u64) -> Option<JobsEta> {
        if self.disp_bytes.iter().sum::<u64>() == 0 {
            self.disp_at_ms = 0;
        }
        let line_due = at_ms.saturating_sub(self.disp_at_ms) > self.interval_ms * 95 / 100;
        if !line_due && self.agg.is_none() {
            return None;
        }
        let mut je = JobsEta {
            elapsed_sec: at_ms.div_ceil(1000),
            ..JobsEta::default()
        };
        let mut io_bytes = [0u64; 3];
        let mut io_ios = [0u64; 3];
        let mut letters = String::with_capacity(snaps.len());
        for (info, s) in self.jobs.iter().zip(snaps) {
            match s.state {
                JobState::Running | JobState::Finishing => {
                    je.nr_running += 1;
                    for d in (0..3).filter(|&d| info.dirs[d]) {
                        je.t_rate[d] += info.rate[d];
                        je.t_iops[d] += info.rate_iops[d];
                        je.m_rate[d] += info.rate_min[d];
                        je.m_iops[d] += info.rate_iops_min[d];
                    }
                    je.files_open += s.files_open;
                }
                JobState::Ramp => {
                    je.nr_running += 1;
                    je.nr_ramp += 1;
                }
                JobState::NotCreated | JobState::Initialized => je.nr_pending += 1,
                _ => {}
            }
            letters.push(state_letter(info, s.state));
            if s.state >= JobState::Running {
                for d in 0..3 {
                    let to = if self.units.unified { 0 } else { d };
                    io_bytes[to] += s.bytes[d];
                    io_ios[to] += s.ios[d];
                }
            }
        }
        je.eta_sec = self.eta_sec(snaps, je.elapsed_sec, done_secs);
        if let Some(agg) = self.agg.as_mut() {
            let ramping = snaps.iter().any(|s| s.state == JobState::Ramp);
            agg.wake(at_ms, io_bytes, ramping);
        }
        if !line_due {
            return None;
        }
        let disp_ms = at_ms.saturating_sub(self.disp_at_ms);
        for d in 0..3 {
            let diff = io_bytes[d].saturating_sub(self.disp_bytes[d]);
            let ios = io_ios[d].saturating_sub(self.disp_ios[d]);
            (je.rate[d], je.iops[d]) = match disp_ms {
                0 => (0, 0),
                ms => ((1000 * diff / ms) / 1024, ios * 1000 / ms),
            };
        }
        self.disp_bytes = io_bytes;
        self.disp_ios = io_ios;
        self.disp_at_ms = at_ms;
        if je.nr_running == 0 && je.nr_pending == 0 {
            return None;
        }
        je.run_str = condense(&letters);
        Some(je)
    }

    /// fio's `display_thread_status`: the text to print, `\r` included,
    /// at `at_ms` after the start of the jobs.
    pub fn display(&mut self, je: &JobsEta, at_ms: u64) -> String {
        let mut out = String::new();
        let known = je.eta_sec != UNKNOWN;
        let perc = if known && je.elapsed_sec > 0 {
            je.elapsed_sec as f64 / je.elapsed_sec.wrapping_add(je.eta_sec) as f64
        } else {
            0.0
        };
        if self.newline_pending {
            self.newline_pending = false;
            self.linelen_last = 0;
            out.push('\n');
        }
        let _ = write!(out, "Jobs: {} (f={})", je.nr_running, je.files_open);
        let sum = |a: &[u64; 3]| a.iter().sum::<u64>();
        if sum(&je.m_rate) > 0 || sum(&je.t_rate) > 0 {
            let fmt = |n| num2str(n, self.units.sig_figs, self.units.pow2, Unit::BytePerSec);
            let _ = write!(out, ", {}-{}", fmt(sum(&je.m_rate)), fmt(sum(&je.t_rate)));
        } else if sum(&je.m_iops) > 0 || sum(&je.t_iops) > 0 {
            let _ = write!(out, ", {}-{} IOPS", sum(&je.m_iops), sum(&je.t_iops));
        }
        if known && je.nr_running > 0 {
            let perc_str = if (je.eta_sec == 0 && !self.eta_good) || je.nr_ramp == je.nr_running {
                "-.-%".to_string()
            } else {
                self.eta_good = true;
                format!("{:3.1}%", perc * 100.0)
            };
            let _ = write!(out, ": [{}][{perc_str}]", je.run_str);
            out.push_str(&self.rates(je));
            let _ = write!(out, "[eta {}]", eta_to_str(je.eta_sec));
            let linelen = out.len();
            if linelen < self.linelen_last {
                out.push_str(&" ".repeat(self.linelen_last - linelen));
            }
            self.linelen_last = linelen;
        }
        out.push('\r');
        match (self.newline_from_ms, self.newline_ms) {
            (None, _) => self.newline_from_ms = Some(at_ms),
            (Some(from), Some(every)) if every > 0 && at_ms.saturating_sub(from) > every => {
                self.newline_from_ms = Some(at_ms);
                self.newline_pending = true;
            }
            _ => {}
        }
        out
    }

    /// fio's `gen_eta_str`: `[r=…,w=…][r=…,w=… IOPS]` for the directions
    /// that moved something.
    fn rates(&self, je: &JobsEta) -> String {
        const NAMES: [char; 3] = ['r', 'w', 't'];
        let has: Vec<usize> = (0..3)
            .filter(|&d| je.rate[d] > 0 || je.iops[d] > 0)
            .collect();
        if has.is_empty() {
            return String::new();
        }
        let list = |f: &dyn Fn(usize) -> String| {
            has.iter()
                .map(|&d| format!("{}={}", NAMES[d], f(d)))
                .collect::<Vec<_>>()
                .join(",")
        };
        let bw = list(&|d| kib_per_sec(je.rate[d], self.units.pow2, self.units.bits));
        let iops = list(&|d| num2str(je.iops[d], 4, false, Unit::None));
        format!("[{bw}][{iops} IOPS]")
    }
}

/// fio's `check_str_update`: the letter of a job in `state`.
fn state_letter(info: &JobInfo, state: JobState) -> char {
    match state {
        JobState::NotCreated => 'P',
        JobState::Initialized => 'I',
        JobState::Ramp => '/',
        JobState::Running => info.letter,
        JobState::Finishing => 'f',
        JobState::Exited => 'E',
        JobState::Reaped => '_',
        JobState::Failed => 'X',
    }
}

/// fio's `update_condensed_str`: `rr_` → `r(2),_(1)`.
fn condense(letters: &str) -> String {
    let mut out = String::new();
    let mut chars = letters.chars().peekable();
    while let Some(c) = chars.next() {
        let mut n = 1;
        while chars.peek() == Some(&c) {
            chars.next();
            n += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        let _ = write!(out, "{c}({n})");
    }
    out
}

/// The jobs' state at `now`, as the ETA reads it.
fn snapshots(progress: &Progress, now: Instant) -> Vec<JobSnap> {
    progress
        .jobs()
        .iter()
        .map(|j| JobSnap {
            state: j.state(),
            files_open: j.files_open(),
            epoch_ms: j
                .epoch()
                .map(|e| now.saturating_duration_since(e).as_millis() as u64),
            bytes: j.bytes(),
            ios: j.ios(),
            total_bytes: j.total_bytes(),
        })
        .collect()
}

/// The ETA in seconds of the jobs of `plan` at `now` (what fio's JSON
/// status reports show as `eta`), computed as for the status line.
pub fn jobs_eta_sec(plan: &Plan, progress: &Progress, genesis: Instant, now: Instant) -> u64 {
    let status = Status::new(plan, 1000, None);
    let elapsed_sec = (now.saturating_duration_since(genesis).as_millis() as u64).div_ceil(1000);
    status.eta_sec(&snapshots(progress, now), elapsed_sec, progress.done_secs())
}

/// fio's `thread_eta`: seconds job `info` has left, by its state, its
/// bytes done against its total, its runtime and its rate.
fn thread_eta(info: &JobInfo, s: &JobSnap, done_secs: u64) -> u64 {
    let elapsed = s.epoch_ms.unwrap_or(0).div_ceil(1000);
    let timeout = info.runtime_us / 1_000_000;
    let bytes_total = s.total_bytes;
    match s.state {
        JobState::Running => {
            let done = s.bytes[0] + s.bytes[1];
            let mut perc = if bytes_total > 0 {
                (done as f64 / bytes_total as f64).min(1.0)
            } else {
                0.0
            };
            if info.time_based {
                if timeout > 0 {
                    perc = perc.min(elapsed as f64 / timeout as f64);
                } else {
                    perc = 0.0;
                }
            }
            let mut eta = if perc == 0.0 {
                timeout
            } else {
                ((elapsed as f64 * (1.0 / perc)) as u64).wrapping_sub(elapsed)
            };
            let cap = timeout.wrapping_add(done_secs).wrapping_sub(elapsed);
            if info.runtime_us > 0 && eta > cap {
                eta = cap;
            }
            eta
        }
        JobState::NotCreated | JobState::Initialized | JobState::Ramp => {
            let in_ramp = info.ramp_us > 0;
            let mut t_eta = 0u64;
            if info.runtime_us > 0 {
                let mut t = info.runtime_us + info.start_delay_us;
                if in_ramp {
                    t += info.ramp_us;
                }
                t /= 1_000_000;
                if s.state == JobState::Ramp && in_ramp {
                    let ramp_left = s.epoch_ms.unwrap_or(0).div_ceil(1000);
                    if ramp_left <= t {
                        t -= ramp_left;
                    }
                }
                t_eta = t;
            }
            let rate_bytes: u64 = (0..3).filter(|&d| info.dirs[d]).map(|d| info.rate[d]).sum();
            let r_eta = bytes_total
                .checked_div(rate_bytes)
                .map_or(0, |r| r + info.start_delay_us / 1_000_000);
            match (r_eta, t_eta) {
                (0, t) => t,
                (r, 0) => r,
                (r, t) => r.min(t),
            }
        }
        _ => 0,
    }
}

/// fio's `eta_to_str`: `00m:03s`, `01h:00m:00s`, `02d:00h:00m:00s`.
pub fn eta_to_str(eta_sec: u64) -> String {
    let s = eta_sec % 60;
    let m = (eta_sec / 60) % 60;
    let h = (eta_sec / 3600) % 24;
    let d = (eta_sec / 86400) as u32;
    let mut out = String::new();
    if d > 0 {
        let _ = write!(out, "{d:02}d:");
    }
    if h > 0 || d > 0 {
        let _ = write!(out, "{h:02}h:");
    }
    let _ = write!(out, "{m:02}m:{s:02}s");
    out
}

/// fio's `num2str(kib, 4, 1024, pow2, unit)`: a rate in KiB/s, printed
/// from the `Ki` (or `k`) prefix up.
fn kib_per_sec(kib: u64, pow2: bool, bits: bool) -> String {
    let (unit, suffix, n) = if bits {
        (Unit::BitPerSec, "bit/s", kib.wrapping_mul(8))
    } else {
        (Unit::BytePerSec, "B/s", kib)
    };
    if n < 10_000 {
        let prefix = if pow2 { "Ki" } else { "k" };
        return format!("{n}{prefix}{suffix}");
    }
    let thousand = if pow2 { 1024 } else { 1000 };
    num2str(kib.wrapping_mul(thousand), 4, pow2, unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(letter: char) -> JobInfo {
        JobInfo {
            letter,
            dirs: [true, false, false],
            time_based: true,
            runtime_us: 6_000_000,
            ramp_us: 0,
            start_delay_us: 0,
            rate: [0; 3],
            rate_min: [0; 3],
            rate_iops: [0; 3],
            rate_iops_min: [0; 3],
            stonewall: false,
        }
    }

    fn running(epoch_ms: u64, bytes: u64, ios: u64) -> JobSnap {
        JobSnap {
            state: JobState::Running,
            files_open: 1,
            epoch_ms: Some(epoch_ms),
            bytes: [bytes, 0, 0],
            ios: [ios, 0, 0],
            total_bytes: 1 << 30,
        }
    }

    #[test]
    fn eta_strings_are_fios() {
        assert_eq!(eta_to_str(0), "00m:00s");
        assert_eq!(eta_to_str(3), "00m:03s");
        assert_eq!(eta_to_str(27), "00m:27s");
        assert_eq!(eta_to_str(3600), "01h:00m:00s");
        assert_eq!(eta_to_str(86400 * 2 + 5), "02d:00h:00m:05s");
        // Two of fio's INT_MAX "unknown" added up (a pending stonewall job).
        assert_eq!(eta_to_str(2 * UNKNOWN), "49710d:06h:28m:14s");
    }

    #[test]
    fn rates_print_from_kib() {
        assert_eq!(kib_per_sec(0, true, false), "0KiB/s");
        assert_eq!(kib_per_sec(4000, true, false), "4000KiB/s");
        assert_eq!(kib_per_sec(507_904, true, false), "496MiB/s");
        assert_eq!(kib_per_sec(23_173_530, true, false), "22.1GiB/s");
        assert_eq!(kib_per_sec(43_725, true, false), "42.7MiB/s");
        assert_eq!(kib_per_sec(500, false, false), "500kB/s");
    }

    #[test]
    fn states_condense_in_runs() {
        assert_eq!(condense("r"), "r(1)");
        assert_eq!(condense("rWm"), "r(1),W(1),m(1)");
        assert_eq!(condense("__m"), "_(2),m(1)");
        assert_eq!(condense(""), "");
    }

    #[test]
    fn letters_follow_the_pattern() {
        let mut j = job('r');
        assert_eq!(state_letter(&j, JobState::Running), 'r');
        j.letter = 'W';
        assert_eq!(state_letter(&j, JobState::Running), 'W');
        assert_eq!(state_letter(&j, JobState::NotCreated), 'P');
        assert_eq!(state_letter(&j, JobState::Ramp), '/');
        assert_eq!(state_letter(&j, JobState::Reaped), '_');
        assert_eq!(state_letter(&j, JobState::Failed), 'X');
    }

    /// `fio --name=x --ioengine=null --size=64g --rw=randread --runtime=6
    /// --time_based` on a terminal (fio 3.33): two short lines, then
    /// `[r(1)][50.0%]…[eta 00m:03s]` at the third second.
    #[test]
    fn a_time_based_job_counts_down() {
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        let mut line = |at_ms: u64, epoch_ms: u64, bytes: u64, ios: u64| {
            let je = st
                .calc(&[running(epoch_ms, bytes, ios)], at_ms, 0)
                .expect("a job runs");
            st.display(&je, at_ms)
        };
        assert_eq!(line(1000, 990, 1 << 30, 1 << 18), "Jobs: 1 (f=1)\r");
        assert_eq!(line(2000, 1990, 2 << 30, 2 << 18), "Jobs: 1 (f=1)\r");
        // 22.1 GiB/s and 5791k IOPS over the last second.
        let (b, n) = ((2 << 30) + 23_173_530 * 1024, (2 << 18) + 5_791_000);
        assert_eq!(
            line(3000, 2990, b, n),
            "Jobs: 1 (f=1): [r(1)][50.0%][r=22.1GiB/s][r=5791k IOPS][eta 00m:03s]\r"
        );
        let l = line(4000, 3990, b + (1 << 30), n + (1 << 18));
        // Shorter than the line before: padded over it.
        assert!(
            l.contains("[66.7%]") && l.ends_with("[eta 00m:02s] \r"),
            "{l:?}"
        );
    }

    #[test]
    fn the_first_known_zero_eta_shows_no_percent() {
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        let mut j = job('r');
        j.runtime_us = 3_000_000;
        st.jobs = vec![j];
        let je = st.calc(&[running(2990, 1 << 30, 1000)], 3000, 0).unwrap();
        let l = st.display(&je, 3000);
        assert!(l.starts_with("Jobs: 1 (f=1): [r(1)][-.-%]"), "{l}");
        assert!(l.ends_with("[eta 00m:00s]\r"), "{l}");
    }

    #[test]
    fn rate_limits_and_pending_jobs_show_before_the_third_second() {
        let mut a = job('r');
        a.runtime_us = 5_000_000;
        let mut b = job('W');
        b.dirs = [false, true, false];
        b.time_based = false;
        b.runtime_us = 0;
        b.rate = [524_288_000; 3];
        let mut c = job('m');
        c.dirs = [true, true, false];
        c.ramp_us = 2_000_000;
        c.rate_iops = [1000; 3];
        let mut st = Status::with_jobs(vec![a, b, c], Units::default(), 1000, None);
        let mut ramp = running(900, 0, 0);
        ramp.state = JobState::Ramp;
        let snaps = [
            running(990, 1 << 30, 1000),
            running(990, 1 << 29, 100),
            ramp,
        ];
        let je = st.calc(&snaps, 1000, 0).unwrap();
        assert_eq!(st.display(&je, 1000), "Jobs: 3 (f=2), 0B/s-500MiB/s\r");
        assert_eq!(je.run_str, "r(1),W(1),/(1)");
    }

    #[test]
    fn a_shorter_line_is_padded_and_newlines_come_every_period() {
        let mut st = Status::with_jobs(
            vec![job('r')],
            Units::default(),
            1000,
            Some(Duration::from_millis(2000)),
        );
        let je = |eta: u64, run_str: &str| JobsEta {
            nr_running: 1,
            files_open: 1,
            elapsed_sec: 3,
            eta_sec: eta,
            rate: [1024, 0, 0],
            iops: [1000, 0, 0],
            run_str: run_str.to_string(),
            ..JobsEta::default()
        };
        let first = st.display(&je(3, "r(1),_(2)"), 1000);
        let second = st.display(&je(3, "r(1)"), 2000);
        assert_eq!(first.len(), second.len());
        assert!(second.ends_with("]     \r"), "{second:?}");
        assert!(!st.display(&je(3, "r(1)"), 3000).starts_with('\n'));
        // More than 2 s since the first line: the next one starts anew.
        let _ = st.display(&je(2, "r(1)"), 3001);
        assert!(st.display(&je(1, "r(1)"), 4000).starts_with("\nJobs: 1"));
    }

    /// fio's cadence: a line once per interval, but at every 250 ms wake-up
    /// while nothing was counted yet (a ramp, a job not started).
    #[test]
    fn lines_come_once_per_interval() {
        assert_eq!(next_wake(0, 1000), 250);
        assert_eq!(next_wake(1010, 1000), 1250);
        assert_eq!(next_wake(0, 300), 250);
        assert_eq!(next_wake(250, 300), 300);
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        let mut ramp = running(100, 0, 0);
        ramp.state = JobState::Ramp;
        assert!(st.calc(&[ramp], 750, 0).is_none());
        assert!(st.calc(&[ramp], 1000, 0).is_some());
        assert!(st.calc(&[ramp], 1250, 0).is_some(), "nothing counted yet");
        let run = running(1400, 1 << 20, 256);
        assert!(st.calc(&[run], 1500, 0).is_some());
        assert!(st.calc(&[run], 1750, 0).is_none());
        assert!(st.calc(&[run], 2250, 0).is_none());
        assert!(st.calc(&[run], 2500, 0).is_some());
    }

    #[test]
    fn no_line_once_nothing_runs_or_waits() {
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        let mut done = running(5000, 1 << 30, 1000);
        done.state = JobState::Reaped;
        assert!(st.calc(&[done], 5000, 5).is_none());
    }

    #[test]
    fn a_pending_stonewall_job_adds_its_estimate() {
        let mut a = job('r');
        a.runtime_us = 4_000_000;
        let mut b = job('W');
        b.runtime_us = 2_000_000;
        b.stonewall = true;
        let mut st = Status::with_jobs(vec![a, b], Units::default(), 1000, None);
        let pending = JobSnap {
            state: JobState::NotCreated,
            files_open: 0,
            epoch_ms: None,
            bytes: [0; 3],
            ios: [0; 3],
            total_bytes: 1 << 30,
        };
        let je = st
            .calc(&[running(990, 1 << 30, 1), pending], 1000, 0)
            .unwrap();
        let l = st.display(&je, 1000);
        assert!(l.contains("[r(1),P(1)][0.0%]"), "{l}");
        assert!(l.contains("[eta 49710d:06h:28m:14s]"), "{l}");
        // At 3 s: 1 s left of `a`, then `b`'s 2 s.
        let je = st
            .calc(&[running(2990, 2 << 30, 2), pending], 3000, 0)
            .unwrap();
        assert_eq!(je.eta_sec, 3);
    }

    /// `--bandwidth-log`: a sample at the first wake-up more than 500 ms
    /// after the start, then 500 and 750 ms apart in turn (fio: 603,
    /// 1108, 1749, 2252, 3002 for a 3 s job), none while a job ramps.
    #[test]
    fn agg_samples_come_with_the_line() {
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        st.log_bandwidth(500);
        let mut at = |ms: u64, bytes: u64| {
            let _ = st.calc(&[running(ms, bytes, bytes / 4096)], ms, 0);
        };
        for ms in (250..=3000).step_by(250) {
            at(ms + 1, ms * 1024 * 1024);
        }
        let times: Vec<u64> = st
            .agg_log()
            .unwrap()
            .samples()
            .iter()
            .map(|s| s.t_ms)
            .collect();
        assert_eq!(times, [751, 1251, 2001, 2501]);
        let s = st.agg_log().unwrap().samples()[0];
        // 750 MiB in 751 ms, in KiB/s.
        assert_eq!(s.kib_s, [(750 << 20) * 1000 / 751 / 1024, 0, 0]);

        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        st.log_bandwidth(500);
        let mut ramp = running(800, 0, 0);
        ramp.state = JobState::Ramp;
        let _ = st.calc(&[ramp], 800, 0);
        assert!(st.agg_log().unwrap().samples().is_empty());
    }

    #[test]
    fn settings_follow_fios_skip_eta() {
        let mut args = Args::default();
        assert!(Settings::new(&args, true, true).show);
        assert!(!Settings::new(&args, true, false).show);
        assert!(!Settings::new(&args, false, true).show, "json on stdout");
        args.eta = Eta::Always;
        assert!(Settings::new(&args, true, false).show);
        assert!(!Settings::new(&args, false, false).show);
        args.output = Some("out.txt".into());
        assert!(Settings::new(&args, false, false).show, "json to a file");
        assert!(!Settings::new(&args, false, false).signal_to_stdout);
        args.eta = Eta::Never;
        assert!(!Settings::new(&args, true, true).show);
    }
}
