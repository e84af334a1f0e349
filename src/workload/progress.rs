//! What the running jobs tell the outside while they run (the numbers
//! behind fio's status line, `eta.c`).
//!
//! Each job owns one [`JobProgress`] on its own cache line. Only the job's
//! thread writes it, with relaxed atomic stores of plain values (no
//! read-modify-write, no lock, no allocation); a reader (the status line,
//! once a second) may see the counters a few I/Os behind, never torn.
//!
//! The runner hands each job its entry; the job's I/O loop takes it as a
//! parameter.
//!
//! Full reports while the jobs run (`--status-interval`, SIGUSR1) are
//! asked for, never taken: the collector raises a job's request counter
//! ([`JobProgress::ask_snapshot`]); the job's I/O loop sees it at its next
//! I/O (two relaxed loads per I/O), builds its report from its own
//! statistics ([`JobProgress::serve_snapshot`], cold, allocating) and
//! leaves it in a locked slot. A job asleep (rate limit, thinktime) or
//! waiting on I/O serves late, so [`Progress::collect`] waits a bounded
//! time and then takes the last report the job served. A job that is over
//! leaves its final report there ([`JobProgress::publish_final`]) once
//! someone asked for reports ([`Progress::keep_reports`]).

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::stats::snapshot::running_report;
use crate::stats::{JobReport, ThreadStats};

/// A job's state, as fio's `td->runstate` (the subset rfio goes through,
/// in fio's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum JobState {
    /// Not started yet (fio's `TD_NOT_CREATED`, shown as `P`).
    NotCreated = 0,
    /// Its thread runs and sets up the engine (`TD_INITIALIZED`, `I`).
    Initialized,
    /// Doing I/O inside `ramp_time` (`TD_RAMP`, `/`).
    Ramp,
    /// Doing I/O (`TD_RUNNING`, a letter for the pattern).
    Running,
    /// I/O over, closing up (`TD_FINISHING`, `f`).
    Finishing,
    /// The thread has returned its report (`TD_EXITED`, `E`).
    Exited,
    /// Done (`TD_REAPED`, `_`).
    Reaped,
    /// Done with an error (`TD_REAPED` with `td->error`, `X`).
    Failed,
}

impl JobState {
    fn from_u8(v: u8) -> JobState {
        match v {
            0 => JobState::NotCreated,
            1 => JobState::Initialized,
            2 => JobState::Ramp,
            3 => JobState::Running,
            4 => JobState::Finishing,
            5 => JobState::Exited,
            6 => JobState::Reaped,
            _ => JobState::Failed,
        }
    }
}

/// fio's `--debug=process` line of a state change, made by the job's
/// thread (its id stands for fio's pid).
#[cold]
fn trace_state(from: JobState, to: JobState) {
    let name = |s: JobState| match s {
        JobState::NotCreated => "NOT_CREATED",
        JobState::Initialized => "INITIALIZED",
        JobState::Ramp => "RAMP",
        JobState::Running => "RUNNING",
        JobState::Finishing => "FINISHING",
        JobState::Exited => "EXITED",
        JobState::Reaped | JobState::Failed => "REAPED",
    };
    // SAFETY: gettid has no preconditions and cannot fail.
    let tid = unsafe { libc::gettid() };
    crate::debug::emit(
        crate::debug::Cat::Process,
        format_args!("pid={tid}: runstate {} -> {}\n", name(from), name(to)),
    );
}

/// One job's live numbers.
#[derive(Debug)]
#[repr(align(64))]
pub(crate) struct JobProgress {
    origin: Instant,
    state: AtomicU8,
    files_open: AtomicU32,
    /// When the job's I/O started (again, after its ramp), in ns after
    /// `origin` plus one; 0 while it has not started (fio's `td->epoch`).
    epoch: AtomicU64,
    /// Bytes and I/Os completed per direction (read, write, trim) since
    /// the epoch (fio's `td->io_bytes`, `td->io_blocks`).
    bytes: [AtomicU64; 3],
    ios: [AtomicU64; 3],
    /// The completion latencies recorded, summed (ns) and counted.
    clat: [AtomicU64; 2],
    /// What the job will move in all (fio's `td->total_io_size`).
    total_bytes: AtomicU64,
    /// Full-report requests (`--status-interval`): asked and served
    /// generations; the job serves one when they differ.
    snap_asked: AtomicU64,
    snap_served: AtomicU64,
    /// The report served last, or the final one once the job is over.
    report: Mutex<Option<JobReport>>,
    /// Whether the final report is wanted in `report`.
    keep_final: AtomicBool,
    /// The job does I/O (its engine is not a `no_io` one) and is not over
    /// yet: it counts in `io_jobs`.
    does_io: AtomicBool,
    /// The jobs of the run that do I/O, shared by every entry.
    io_jobs: Arc<IoJobs>,
    /// `ramp_size` with `group_reporting` (fio 3.42): the bytes the jobs
    /// of the job's group moved while ramping, shared by them (the sum
    /// fio's ramp_period_check makes of their `io_bytes`).
    ramp_group: OnceLock<Arc<AtomicU64>>,
}

/// The jobs of a run that do I/O and are not over (fio's
/// `fio_running_or_pending_io_threads`, for cpuio's `exit_on_io_done`).
#[derive(Debug, Default)]
struct IoJobs {
    /// Not over yet (running or still to start).
    left: AtomicUsize,
    /// The run has any at all.
    any: AtomicBool,
}

impl JobProgress {
    fn sharing(origin: Instant, io_jobs: Arc<IoJobs>) -> JobProgress {
        JobProgress {
            origin,
            state: AtomicU8::new(JobState::NotCreated as u8),
            files_open: AtomicU32::new(0),
            epoch: AtomicU64::new(0),
            bytes: Default::default(),
            ios: Default::default(),
            clat: Default::default(),
            total_bytes: AtomicU64::new(0),
            snap_asked: AtomicU64::new(0),
            snap_served: AtomicU64::new(0),
            report: Mutex::new(None),
            keep_final: AtomicBool::new(false),
            does_io: AtomicBool::new(false),
            io_jobs,
            ramp_group: OnceLock::new(),
        }
    }

    /// The bytes the job's group moved while ramping, if it ramps by
    /// the group's bytes.
    #[inline]
    pub(crate) fn ramp_group(&self) -> Option<&AtomicU64> {
        self.ramp_group.get().map(|a| &**a)
    }

    /// Whether some job of the run that does I/O runs or is still to
    /// start; true too when the run has none at all (fio's -1).
    pub(crate) fn io_jobs_running(&self) -> bool {
        !self.io_jobs.any.load(Ordering::SeqCst) || self.io_jobs.left.load(Ordering::SeqCst) > 0
    }

    /// An entry nobody reads (a job run without a [`Progress`]).
    #[cfg(test)]
    pub(crate) fn detached() -> JobProgress {
        JobProgress::sharing(Instant::now(), Arc::default())
    }

    pub(crate) fn state(&self) -> JobState {
        JobState::from_u8(self.state.load(Ordering::Relaxed))
    }

    pub(crate) fn set_state(&self, s: JobState) {
        if crate::debug::on(crate::debug::Cat::Process) {
            trace_state(self.state(), s);
        }
        self.state.store(s as u8, Ordering::Relaxed);
    }

    pub(crate) fn files_open(&self) -> u32 {
        self.files_open.load(Ordering::Relaxed)
    }

    pub(crate) fn set_files_open(&self, n: u32) {
        self.files_open.store(n, Ordering::Relaxed);
    }

    /// The I/O (re)starts now: the epoch moves here and the counters
    /// restart from zero (fio's `reset_all_stats` at the end of a ramp).
    pub(crate) fn mark_epoch(&self) {
        for d in 0..3 {
            self.bytes[d].store(0, Ordering::Relaxed);
            self.ios[d].store(0, Ordering::Relaxed);
        }
        let ns = self.origin.elapsed().as_nanos() as u64;
        self.epoch.store(ns + 1, Ordering::Relaxed);
    }

    /// ns since the run's start (before the jobs were prepared: fio's
    /// helper thread starts its timers then).
    pub(crate) fn since_origin_ns(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }

    /// When the job's I/O started, if it has.
    pub(crate) fn epoch(&self) -> Option<Instant> {
        match self.epoch.load(Ordering::Relaxed) {
            0 => None,
            ns => Some(self.origin + Duration::from_nanos(ns - 1)),
        }
    }

    /// One I/O of `len` bytes in direction `dir` (0 read, 1 write, 2
    /// trim) completed. Only the job's own thread calls this, so a load
    /// and a store (no atomic read-modify-write) keep the count exact.
    #[inline]
    pub(crate) fn io_done(&self, dir: usize, len: u64) {
        let (b, n) = (&self.bytes[dir], &self.ios[dir]);
        b.store(
            b.load(Ordering::Relaxed).wrapping_add(len),
            Ordering::Relaxed,
        );
        n.store(n.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
    }

    /// One recorded completion's latency (ns). Only the job's own thread
    /// calls this.
    #[inline]
    pub(crate) fn clat_done(&self, ns: u64) {
        let (s, n) = (&self.clat[0], &self.clat[1]);
        s.store(
            s.load(Ordering::Relaxed).wrapping_add(ns),
            Ordering::Relaxed,
        );
        n.store(n.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
    }

    /// The recorded completion latencies: their sum (ns) and count.
    pub(crate) fn clat(&self) -> (u64, u64) {
        (
            self.clat[0].load(Ordering::Relaxed),
            self.clat[1].load(Ordering::Relaxed),
        )
    }

    pub(crate) fn bytes(&self) -> [u64; 3] {
        std::array::from_fn(|d| self.bytes[d].load(Ordering::Relaxed))
    }

    pub(crate) fn ios(&self) -> [u64; 3] {
        std::array::from_fn(|d| self.ios[d].load(Ordering::Relaxed))
    }

    pub(crate) fn total_bytes(&self) -> u64 {
        self.total_bytes.load(Ordering::Relaxed)
    }

    pub(crate) fn set_total_bytes(&self, n: u64) {
        self.total_bytes.store(n, Ordering::Relaxed);
    }

    /// Whether a full report of this job was asked for and not served yet.
    /// The I/O loop checks this once per I/O: two relaxed loads.
    #[inline]
    pub(crate) fn snapshot_due(&self) -> bool {
        self.snap_asked.load(Ordering::Relaxed) != self.snap_served.load(Ordering::Relaxed)
    }

    /// Ask the job for a full report of what it has done so far; the
    /// request's generation (served once [`JobProgress::served`] reaches
    /// it).
    pub(crate) fn ask_snapshot(&self) -> u64 {
        self.snap_asked.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The generation of the last request served.
    pub(crate) fn served(&self) -> u64 {
        self.snap_served.load(Ordering::Acquire)
    }

    /// Serve the pending request with the job's statistics so far;
    /// `elapsed_us` is its I/O time with stats on (what
    /// [`ThreadStats::elapsed_us`] will be at the end). Called by the job's
    /// own thread, rarely (once per `--status-interval`).
    #[cold]
    pub(crate) fn serve_snapshot(&self, ts: &ThreadStats, elapsed_us: u64) {
        let asked = self.snap_asked.load(Ordering::Relaxed);
        let report = running_report(ts, elapsed_us);
        *self.report.lock().unwrap_or_else(|e| e.into_inner()) = Some(report);
        self.snap_served.store(asked, Ordering::Release);
    }

    /// The job is over with `report`: keep a copy when reports are
    /// collected ([`Progress::keep_reports`]), so that the reports taken
    /// while other jobs still run show its final numbers. The job's thread
    /// calls this once, right after the job.
    pub(crate) fn publish_final(&self, report: &JobReport) {
        if self.keep_final.load(Ordering::Relaxed) {
            *self.report.lock().unwrap_or_else(|e| e.into_inner()) = Some(report.clone());
        }
    }

    /// The report served last (or the final one), if any.
    pub(crate) fn last_report(&self) -> Option<JobReport> {
        self.report
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// The live numbers of every job of a plan, in plan order.
#[derive(Debug)]
pub(crate) struct Progress {
    origin: Instant,
    /// When the first group started, ns after `origin` plus one; 0 before
    /// (fio's genesis time).
    genesis: AtomicU64,
    /// Seconds the finished jobs ran, summed (fio's `done_secs`).
    done_secs: AtomicU64,
    jobs: Box<[Arc<JobProgress>]>,
}

impl Progress {
    /// Entries for `jobs` jobs, all not started.
    pub(crate) fn new(jobs: usize) -> Progress {
        let origin = Instant::now();
        let io_jobs = Arc::new(IoJobs::default());
        Progress {
            origin,
            genesis: AtomicU64::new(0),
            done_secs: AtomicU64::new(0),
            jobs: (0..jobs)
                .map(|_| Arc::new(JobProgress::sharing(origin, Arc::clone(&io_jobs))))
                .collect(),
        }
    }

    /// Which jobs do I/O (`does_io[i]` for job `i`; before any starts):
    /// what [`JobProgress::io_jobs_running`] counts.
    pub(crate) fn count_io_jobs(&self, does_io: impl IntoIterator<Item = bool>) {
        let mut n = 0;
        for (job, io) in self.jobs.iter().zip(does_io) {
            job.does_io.store(io, Ordering::SeqCst);
            n += usize::from(io);
        }
        if let Some(job) = self.jobs.first() {
            job.io_jobs.left.store(n, Ordering::SeqCst);
            job.io_jobs.any.store(n > 0, Ordering::SeqCst);
        }
    }

    /// The jobs that ramp by their group's bytes (`groups[i]`: job `i`'s
    /// reporting group, `None` for one that does not) share one count
    /// per group (before any starts).
    pub(crate) fn share_ramp_groups(&self, groups: impl IntoIterator<Item = Option<u32>>) {
        let mut shared: Vec<(u32, Arc<AtomicU64>)> = Vec::new();
        for (job, group) in self.jobs.iter().zip(groups) {
            let Some(g) = group else { continue };
            let count = match shared.iter().find(|(id, _)| *id == g) {
                Some((_, c)) => Arc::clone(c),
                None => {
                    let c = Arc::new(AtomicU64::new(0));
                    shared.push((g, Arc::clone(&c)));
                    c
                }
            };
            let _ = job.ramp_group.set(count);
        }
    }

    pub(crate) fn jobs(&self) -> &[Arc<JobProgress>] {
        &self.jobs
    }

    /// When this was made: before the jobs were prepared and their files
    /// laid out (fio's helper thread starts then).
    pub(crate) fn origin(&self) -> Instant {
        self.origin
    }

    /// The jobs start now (the first call counts).
    pub(crate) fn mark_genesis(&self) {
        let ns = self.origin.elapsed().as_nanos() as u64 + 1;
        let _ = self
            .genesis
            .compare_exchange(0, ns, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// When the jobs started, once they have.
    pub(crate) fn genesis(&self) -> Option<Instant> {
        match self.genesis.load(Ordering::Relaxed) {
            0 => None,
            ns => Some(self.origin + Duration::from_nanos(ns - 1)),
        }
    }

    /// Job `i` is over: its state becomes reaped (or failed) and the whole
    /// seconds since its epoch join `done_secs`.
    pub(crate) fn reap(&self, i: usize, failed: bool) {
        let job = &self.jobs[i];
        if job.does_io.swap(false, Ordering::SeqCst) {
            job.io_jobs.left.fetch_sub(1, Ordering::SeqCst);
        }
        if let Some(epoch) = job.epoch() {
            self.done_secs
                .fetch_add(epoch.elapsed().as_secs(), Ordering::Relaxed);
        }
        job.set_files_open(0);
        job.set_state(if failed {
            JobState::Failed
        } else {
            JobState::Reaped
        });
    }

    pub(crate) fn done_secs(&self) -> u64 {
        self.done_secs.load(Ordering::Relaxed)
    }

    /// Reports will be collected: jobs keep their final report.
    pub(crate) fn keep_reports(&self) {
        for j in self.jobs.iter() {
            j.keep_final.store(true, Ordering::Relaxed);
        }
    }

    /// Every job's report as of now, in plan order (fio's
    /// `__show_running_run_stats`): running jobs are asked for a fresh one
    /// and given up to `wait` to serve it (a job asleep or waiting on I/O
    /// serves late: its last report is taken then); a job that is over
    /// gives its final report (or its last one); a job not started yet
    /// gives `None`.
    pub(crate) fn collect(&self, wait: Duration) -> Vec<Option<JobReport>> {
        let asked: Vec<Option<u64>> = self
            .jobs
            .iter()
            .map(|j| {
                matches!(j.state(), JobState::Ramp | JobState::Running).then(|| j.ask_snapshot())
            })
            .collect();
        let deadline = Instant::now() + wait;
        let pending = || {
            self.jobs.iter().zip(&asked).any(|(j, gen)| {
                gen.is_some_and(|g| j.served() < g && j.state() <= JobState::Running)
            })
        };
        while pending() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(500));
        }
        self.jobs
            .iter()
            .map(|j| match j.state() {
                JobState::NotCreated | JobState::Initialized => None,
                _ => j.last_report(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_restart_at_the_epoch() {
        let p = Progress::new(1);
        let j = &p.jobs()[0];
        assert_eq!(j.state(), JobState::NotCreated);
        assert!(j.epoch().is_none());
        j.mark_epoch();
        j.io_done(0, 4096);
        j.io_done(1, 512);
        j.io_done(1, 512);
        assert_eq!(j.bytes(), [4096, 1024, 0]);
        assert_eq!(j.ios(), [1, 2, 0]);
        j.mark_epoch();
        assert_eq!(j.bytes(), [0, 0, 0]);
        assert!(j.epoch().is_some());
    }

    #[test]
    fn io_jobs_run_until_each_is_reaped() {
        let p = Progress::new(3);
        let job = &p.jobs()[2];
        assert!(job.io_jobs_running(), "nothing counted yet");
        p.count_io_jobs([true, true, false]);
        assert!(job.io_jobs_running());
        p.reap(0, false);
        p.reap(0, false);
        assert!(job.io_jobs_running(), "one left");
        p.reap(2, false);
        assert!(job.io_jobs_running(), "job 2 does no I/O");
        p.reap(1, true);
        assert!(!job.io_jobs_running());
        // A run without I/O jobs: fio's -1, as if some ran.
        let p = Progress::new(1);
        p.count_io_jobs([false]);
        assert!(p.jobs()[0].io_jobs_running());
    }

    #[test]
    fn reap_sets_the_final_state() {
        let p = Progress::new(2);
        p.reap(0, false);
        p.reap(1, true);
        assert_eq!(p.jobs()[0].state(), JobState::Reaped);
        assert_eq!(p.jobs()[1].state(), JobState::Failed);
        assert_eq!(p.done_secs(), 0);
    }

    #[test]
    fn genesis_is_set_once() {
        let p = Progress::new(0);
        assert!(p.genesis().is_none());
        p.mark_genesis();
        let g = p.genesis().unwrap();
        // Time has moved on: a second mark would be another instant.
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() <= g + Duration::from_nanos(1) {
            assert!(Instant::now() < deadline, "the clock stands still");
            std::hint::spin_loop();
        }
        p.mark_genesis();
        assert_eq!(p.genesis(), Some(g));
    }

    #[test]
    fn a_running_job_serves_its_report_on_its_own_thread() {
        let p = Arc::new(Progress::new(2));
        p.keep_reports();
        let job = p.jobs()[0].clone();
        job.set_state(JobState::Running);
        let stop = Arc::new(AtomicBool::new(false));
        let (job2, stop2) = (job.clone(), stop.clone());
        // The I/O loop: one I/O per ms, serving requests between them.
        let t = std::thread::spawn(move || {
            let mut ts = ThreadStats::default();
            ts.job_started();
            let mut n = 0u64;
            while !stop2.load(Ordering::Relaxed) {
                n += 1;
                ts.complete(&crate::stats::Completion {
                    bytes: 4096,
                    clat_ns: 1000,
                    at_ns: n * 1_000_000,
                    ..Default::default()
                });
                if job2.snapshot_due() {
                    job2.serve_snapshot(&ts, n * 1000);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let got = p.collect(Duration::from_secs(5));
        stop.store(true, Ordering::Relaxed);
        t.join().unwrap();
        let r = got[0].as_ref().expect("served");
        assert!(r.dirs[0].ios > 0 && r.dirs[0].runtime_ms > 0, "{r:?}");
        assert!(got[1].is_none(), "not started");
        assert!(!job.snapshot_due());
    }

    #[test]
    fn a_job_that_does_not_answer_gives_its_last_report() {
        let p = Progress::new(1);
        let job = &p.jobs()[0];
        job.set_state(JobState::Running);
        let t0 = Instant::now();
        assert!(p.collect(Duration::from_millis(20))[0].is_none());
        assert!(t0.elapsed() < Duration::from_secs(2));
        // It serves late: the next collection finds that report.
        job.serve_snapshot(&ThreadStats::default(), 5000);
        job.set_state(JobState::Finishing);
        let got = p.collect(Duration::from_secs(5));
        assert_eq!(got[0].as_ref().unwrap().run_ms, 5);
    }

    #[test]
    fn a_finished_job_gives_its_final_report_once_reports_are_kept() {
        let p = Progress::new(1);
        let job = &p.jobs()[0];
        let mut fin = JobReport::empty(crate::stats::JobInfo::named("a", 0), 1);
        fin.run_ms = 1234;
        job.publish_final(&fin);
        assert!(job.last_report().is_none(), "not kept unless asked");
        p.keep_reports();
        job.publish_final(&fin);
        p.reap(0, false);
        assert_eq!(p.collect(Duration::ZERO)[0].as_ref().unwrap().run_ms, 1234);
    }
}
