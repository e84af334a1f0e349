//! Full reports while the jobs run, as fio 3.33 prints them
//! (`__show_running_run_stats` in `stat.c`): every `--status-interval=T`
//! and once per SIGUSR1.
//!
//! What fio does, seen from fio 3.33 itself:
//!
//! - The report is the final report's, in every selected format and
//!   order (terse lines, then the JSON document, then the normal text),
//!   printed where the results go: stdout, or the `--output` file. Nothing
//!   separates two reports but what each format has: the normal report
//!   starts with its blank line and ends with its `Run status group` lines
//!   (and `Disk stats`); each JSON report is one complete document
//!   (`{` ... `}` and a newline), the next starting on the next line; the
//!   terse format prints a line per job each time.
//! - The numbers are cumulative since each job's start: bytes, I/Os,
//!   latencies, bandwidth samples; a running job's runtime is the time it
//!   has run so far. A job that is over shows its final numbers; a job not
//!   started yet shows zeros (no block in the normal report, but its
//!   group's `Run status group N (all jobs):` line; a terse line and a
//!   JSON entry of zeros). The date, `timestamp` and `elapsed` are those of
//!   the moment of the report.
//! - The reports come every T from fio's start (its helper thread starts
//!   before the files are laid out), whether or not a job runs yet, until
//!   the run is over; T is at least 1 ms (`500ms` works; `0` and `999us`
//!   fail with `fio: status interval too small`). Then the final report
//!   follows as always. A 3 s job with T=1s gives three reports and the
//!   final one.
//! - SIGUSR1 prints one such report at once (the run goes on).
//!
//! rfio asks each running job for its report (the job builds it on its
//! own thread at its next I/O, see `workload::progress`), waits for them a
//! bounded time ([`SNAPSHOT_WAIT`]) and takes the last report of a job
//! that did not answer in time (asleep in a rate limit or thinktime, or
//! waiting on I/O).

use std::io::Write;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::eta::estimate::jobs_eta_sec;
use crate::output::{self, Formats};
use crate::plan::spec::Plan;
use crate::stats::{DiskWatch, JobReport, RunReport};
use crate::workload::{Log, Progress, StdLog};

/// The longest a report waits for the running jobs' own reports.
pub(crate) const SNAPSHOT_WAIT: Duration = Duration::from_millis(200);

/// Where the reports go.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Dest<'a> {
    /// Descriptor 1 (the main thread may hold Rust's stdout lock; it has
    /// flushed what it wrote).
    Stdout,
    /// The `--output` file, or `--status-output`'s.
    File(&'a std::fs::File),
    /// Descriptor 2 (`--status-format=ndjson` without
    /// `--status-output`: never among the results).
    Stderr,
}

impl Dest<'_> {
    pub(crate) fn write(&self, text: &str) {
        match self {
            Dest::Stdout => StdLog.info(text),
            // (Descriptor 2: the main thread holds Rust's stderr lock.)
            Dest::Stderr => StdLog.err(text),
            Dest::File(f) => {
                let mut f: &std::fs::File = f;
                let _ = f.write_all(text.as_bytes());
            }
        }
    }
}

/// The reports of one run: when they are due and how they are made.
pub(crate) struct StatusReports<'a> {
    plan: &'a Plan,
    formats: Formats,
    dest: Dest<'a>,
    /// `--status-interval`, ms.
    interval_ms: Option<u64>,
    /// Earlier runs' time (`--repeat`), ms: the schedule counts from the
    /// first run's origin, `offset_ms` before this run's.
    offset_ms: u64,
    /// The next report is due this many ms after the first run's origin.
    next_ms: u64,
    /// When rfio started the run, ms since the epoch (JSON `elapsed`
    /// counts from the start of the jobs once they started, as fio's
    /// `mtime_since_genesis`).
    started_ms: u64,
    disks: DiskWatch,
    /// `--output-format=ndjson` / `--status-format=ndjson`: each report is
    /// one NDJSON status line instead ([`output::ndjson`]).
    ndjson: bool,
    /// The last report printed as NDJSON (its interval starts there).
    prev: Option<RunReport>,
}

impl<'a> StatusReports<'a> {
    /// Reports of the run of `plan` that `progress` follows, in `formats`,
    /// to `dest`, every `interval_ms` if given (else only on SIGUSR1).
    pub(crate) fn new(
        plan: &'a Plan,
        progress: &Progress,
        formats: Formats,
        dest: Dest<'a>,
        interval_ms: Option<u64>,
    ) -> StatusReports<'a> {
        progress.keep_reports();
        let since_origin = progress.origin().elapsed();
        let started_ms = unix_ms().saturating_sub(since_origin.as_millis() as u64);
        StatusReports {
            plan,
            formats,
            dest,
            interval_ms,
            offset_ms: 0,
            next_ms: interval_ms.unwrap_or(u64::MAX),
            started_ms,
            disks: DiskWatch::start(watched_files(plan).iter().map(|p| p.as_path())),
            ndjson: false,
            prev: None,
        }
    }

    /// The reports as NDJSON status lines (`on`) instead of `formats`.
    pub(crate) fn ndjson(mut self, on: bool) -> StatusReports<'a> {
        self.ndjson = on;
        self
    }

    /// This run follows others (`--repeat`) that took `ran_ms`: the
    /// schedule goes on from theirs, so that runs shorter than the
    /// interval still get their reports.
    pub(crate) fn after(mut self, ran_ms: u64) -> StatusReports<'a> {
        self.offset_ms = ran_ms;
        if let Some(every) = self.interval_ms {
            self.next_ms = (ran_ms / every + 1) * every;
        }
        self
    }

    /// Whether a periodic report is due `tick_ms` after the progress
    /// origin; the schedule moves on to the next multiple of the interval
    /// (reports missed while one was printed are skipped, not queued).
    pub(crate) fn due(&mut self, tick_ms: u64) -> bool {
        let Some(every) = self.interval_ms else {
            return false;
        };
        let at = tick_ms + self.offset_ms;
        if at < self.next_ms {
            return false;
        }
        self.next_ms = (at / every + 1) * every;
        true
    }

    /// When the next periodic report is due, ms after the progress origin.
    pub(crate) fn next_ms(&self) -> Option<u64> {
        self.interval_ms
            .map(|_| self.next_ms.saturating_sub(self.offset_ms))
    }

    /// Collect the jobs' reports and print them.
    pub(crate) fn print(&mut self, progress: &Progress) {
        let report = self.report(progress);
        if self.ndjson {
            let line = output::ndjson::status_line(self.prev.as_ref(), &report);
            self.dest.write(&line);
            self.prev = Some(report);
            return;
        }
        self.dest
            .write(&output::render_results(&report, &self.formats));
    }

    /// Collect the jobs' reports: the run's report of the moment.
    pub(crate) fn report(&self, progress: &Progress) -> RunReport {
        let jobs = progress.collect(SNAPSHOT_WAIT);
        let now_ms = unix_ms();
        let started_ms = progress.genesis().map_or(self.started_ms, |g| {
            now_ms.saturating_sub(g.elapsed().as_millis() as u64)
        });
        let mut report = interim_report(self.plan, jobs, started_ms, now_ms, self.disks.finish());
        // fio's JSON: not known before a job starts and for 3 s; NDJSON:
        // from the first line (before the jobs start, their own estimates:
        // runtime, size over rate).
        let now = Instant::now();
        report.eta_sec = Some(match (progress.genesis(), self.ndjson) {
            (Some(g), at_once) => jobs_eta_sec(self.plan, progress, g, now, at_once),
            (None, true) => jobs_eta_sec(self.plan, progress, now, now, true),
            (None, false) => i32::MAX as u64,
        });
        report
    }
}

/// The run report of the moment: the jobs' reports as collected (`None`,
/// a job not started: zeros), named and grouped as in `plan`.
pub(crate) fn interim_report(
    plan: &Plan,
    jobs: Vec<Option<JobReport>>,
    started_ms: u64,
    now_ms: u64,
    disks: Vec<crate::stats::DiskUtil>,
) -> RunReport {
    let jobs = plan
        .jobs
        .iter()
        .zip(jobs)
        .map(|(spec, r)| {
            let mut r = r.unwrap_or_else(|| JobReport::empty(spec.report.clone(), 0));
            r.info.clone_from(&spec.report);
            r
        })
        .collect();
    let globals = crate::plan::report::global_options(plan);
    // Headed by the plan's release, as the final report is.
    RunReport::new(jobs, globals, started_ms, now_ms, disks).of_release(plan.release)
}

/// The files whose devices the final report's disk stats cover (fio's
/// `disk_util`, on by default, for engines that do I/O on files).
fn watched_files(plan: &Plan) -> Vec<std::path::PathBuf> {
    plan.jobs
        .iter()
        .filter(|spec| spec.io.disk_util)
        .filter(|spec| {
            crate::ioengine::lookup(&spec.ioengine)
                .is_some_and(|e| (e.caps)(&spec.engine).needs_files)
        })
        .flat_map(|spec| spec.files.iter().map(|f| f.path.clone()))
        .collect()
}

/// Milliseconds since the Unix epoch.
fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::plan::testing::plan;

    #[test]
    fn reports_come_every_interval_from_the_start() {
        let p = plan(&["--name=a", "--ioengine=null", "--size=1m"]);
        let progress = Progress::new(1);
        let mut s = StatusReports::new(&p, &progress, Formats::default(), Dest::Stdout, Some(1000));
        assert!(!s.due(999));
        assert!(s.due(1003));
        assert!(!s.due(1500));
        assert_eq!(s.next_ms(), Some(2000));
        // Late by more than an interval: the missed one is skipped.
        assert!(s.due(3100));
        assert_eq!(s.next_ms(), Some(4000));
        let mut usr1_only =
            StatusReports::new(&p, &progress, Formats::default(), Dest::Stdout, None);
        assert!(!usr1_only.due(u64::MAX - 1));
        assert_eq!(usr1_only.next_ms(), None);
    }

    /// `--repeat`: a run after others that took 2.7 s goes on with their
    /// schedule (due 300 ms in, then every second), so runs shorter than
    /// the interval are not left without reports.
    #[test]
    fn a_repeated_run_goes_on_with_the_schedule() {
        let p = plan(&["--name=a", "--ioengine=null", "--size=1m"]);
        let progress = Progress::new(1);
        let mut s = StatusReports::new(&p, &progress, Formats::default(), Dest::Stdout, Some(1000))
            .after(2700);
        assert_eq!(s.next_ms(), Some(300));
        assert!(!s.due(299));
        assert!(s.due(301));
        assert_eq!(s.next_ms(), Some(1300));
        let s = StatusReports::new(&p, &progress, Formats::default(), Dest::Stdout, None).after(5);
        assert_eq!(s.next_ms(), None);
    }

    #[test]
    fn jobs_not_started_report_zeros_under_their_name() {
        let p = plan(&[
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--name=b",
            "--stonewall",
        ]);
        let mut done = JobReport::empty(Default::default(), 7);
        done.dirs[0].bytes = 4096;
        done.dirs[0].ios = 1;
        done.dirs[0].runtime_ms = 1;
        let r = interim_report(&p, vec![Some(done), None], 1_000, 3_500, Vec::new());
        assert_eq!(r.jobs.len(), 2);
        assert_eq!((r.jobs[0].name(), r.jobs[0].group_id()), ("a", 0));
        assert_eq!((r.jobs[1].name(), r.jobs[1].group_id()), ("b", 1));
        assert!(!r.jobs[1].did_io());
        assert_eq!(r.groups.len(), 2);
        assert_eq!(r.elapsed_ms, 2_500);
        let normal = output::render_results(&r, &Formats::default());
        assert!(normal.starts_with("\na: (groupid=0, jobs=1): err= 0: pid=7: "));
        assert!(normal.contains("\nRun status group 1 (all jobs):\n"));
        assert!(!normal.contains("b: (groupid=1"));
    }

    #[test]
    fn null_engine_jobs_watch_no_disk() {
        let p = plan(&["--name=a", "--ioengine=null", "--size=1m"]);
        assert!(watched_files(&p).is_empty());
        let p = plan(&["--name=a", "--ioengine=psync", "--size=1m", "--filename=x"]);
        assert_eq!(watched_files(&p), vec![std::path::PathBuf::from("x")]);
    }
}
