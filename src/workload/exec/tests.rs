//! The real loop, run on the null engine (wrapped in [`TestEngine`], which
//! makes each I/O take fake time and fails the I/Os a test picks) and a
//! [`FakeClock`]: nothing sleeps, every run is exact.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use super::testing::{fake_clock, Lines};
use super::{Env, Exec};
use crate::ioengine::{
    Caps, Completion as EngineCompletion, EngineError, FileId, FileTarget, Io, IoEngine, IoMem,
    Queued,
};
use crate::stats::{JobReport, ThreadStats};
use crate::workload::clock::FakeTime;
use crate::workload::job::Prepared;
use crate::workload::progress::JobProgress;
use crate::workload::stop::Stop;

const MS: u64 = 1_000_000;

/// What the test engine does besides the null engine's work.
#[derive(Default)]
struct Script {
    /// Fake ns each I/O takes (added when it is queued).
    cost_ns: u64,
    /// The errno the `n`th I/O (from 0, in queue order) fails with.
    fail: Option<fn(u64) -> Option<i32>>,
    /// Ask the job to stop once this many I/Os were queued.
    stop_after: Option<u64>,
    /// Called with `n` as the `n`th I/O is queued (`tests/flow.rs`).
    on_queue: Option<Box<dyn Fn(u64) + Send>>,
    /// The job's links with the run's other jobs (`tests/flow.rs`).
    links: crate::workload::links::Links,
}

/// The null engine, with the [`Script`] on top.
struct TestEngine {
    inner: Box<dyn IoEngine>,
    script: Script,
    time: Arc<FakeTime>,
    stop: Arc<Stop>,
    /// I/Os queued so far (not counting `Busy` answers).
    queued: Arc<AtomicU64>,
    /// The errno each queued (not yet completed) token fails with.
    failing: Vec<Option<i32>>,
}

impl IoEngine for TestEngine {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn caps(&self) -> Caps {
        self.inner.caps()
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        self.inner.open(target)
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        // SAFETY: the caller's guarantees are passed on unchanged.
        let q = unsafe { self.inner.queue(io) };
        if q == Queued::Busy {
            return q;
        }
        let n = self.queued.fetch_add(1, Relaxed);
        if let Some(f) = &self.script.on_queue {
            f(n);
        }
        self.time.advance(self.script.cost_ns);
        if self.script.stop_after == Some(n + 1) {
            self.stop.request();
        }
        match (self.script.fail.and_then(|f| f(n)), q) {
            (Some(e), Queued::Completed(_)) => Queued::Completed(Err(e)),
            (Some(e), Queued::Queued) => {
                self.failing[io.token as usize] = Some(e);
                q
            }
            _ => q,
        }
    }

    fn commit(&mut self) -> Result<(), i32> {
        self.inner.commit()
    }

    fn getevents(&mut self, min: usize, max: usize, t: Option<Duration>) -> Result<usize, i32> {
        self.inner.getevents(min, max, t)
    }

    fn event(&mut self, i: usize) -> EngineCompletion {
        let mut c = self.inner.event(i);
        if let Some(e) = self.failing[c.token as usize].take() {
            c.result = Err(e);
        }
        c
    }

    fn new_loop(&mut self) {
        self.inner.new_loop();
    }

    fn close_all(&mut self) {
        self.inner.close_all();
    }
}

/// What a run left.
struct Outcome {
    report: JobReport,
    /// I/Os the engine took.
    queued: u64,
    time: Arc<FakeTime>,
    lines: Vec<String>,
}

impl Outcome {
    /// Reads issued (those that failed too, as fio counts them).
    fn reads(&self) -> u64 {
        self.report.dirs[0].ios
    }

    /// 4 KiB reads done.
    fn reads_done(&self) -> u64 {
        self.report.dirs[0].bytes / 4096
    }
}

/// Run the job of the command line `argv` (its `--ioengine=null`
/// added) through the loop, as a job thread does, on `script`.
fn run(argv: &[&str], script: Script) -> Outcome {
    let argv: Vec<&str> = ["--ioengine=null"].iter().chain(argv).copied().collect();
    let spec = crate::plan::testing::job(&argv);
    let mut job = Prepared::new(&spec).expect("the job is valid");
    job.links = script.links.clone();
    let depth = if job.caps.is_sync {
        1
    } else {
        job.set.iodepth as usize
    };
    let unit = job.max_bs as usize;
    let mut pool = vec![0u8; unit * depth];
    let mem = IoMem {
        base: pool.as_mut_ptr(),
        unit,
        units: depth,
    };
    let (time, clock) = fake_clock();
    let stop = Arc::new(Stop::new());
    let queued = Arc::new(AtomicU64::new(0));
    let engine = TestEngine {
        inner: (job.engine.new)(&spec.engine, mem, None).expect("the null engine starts"),
        script,
        time: time.clone(),
        stop: stop.clone(),
        queued: queued.clone(),
        failing: vec![None; depth],
    };
    let mut ts = ThreadStats::new(&spec.report.stats);
    let progress = JobProgress::detached();
    let log = Lines::default();
    let env = Env {
        clock,
        stop: &stop,
        progress: &progress,
        log: &log,
        offload: None,
    };
    let mut exec = Exec::new(
        &job,
        Box::new(engine),
        mem,
        depth,
        job.filler.clone(),
        &mut ts,
        env,
    );
    exec.run_passes();
    drop(exec);
    drop(pool);
    Outcome {
        report: JobReport::new(spec.report.clone(), 0, None, &ts),
        queued: queued.load(Relaxed),
        time,
        lines: log.into_vec(),
    }
}

fn costing(ns: u64) -> Script {
    Script {
        cost_ns: ns,
        ..Script::default()
    }
}

const READ_1G: [&str; 4] = ["--name=t", "--rw=read", "--bs=4k", "--size=1g"];

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more).copied().collect()
}

#[test]
fn a_time_based_job_stops_at_its_runtime() {
    // 1 ms per I/O, 2 s: the I/O issued at 1999 ms is the last.
    let o = run(
        &with(&READ_1G, &["--time_based", "--runtime=2s"]),
        costing(MS),
    );
    assert_eq!((o.reads(), o.queued), (2000, 2000));
    assert_eq!(o.report.run_ms, 2000);
    assert_eq!(o.time.now(), 2000 * MS);
    // The same runtime ends a job with more to do than it allows.
    let o = run(&with(&READ_1G, &["--runtime=2s"]), costing(MS));
    assert_eq!((o.reads(), o.report.run_ms), (2000, 2000));
    // And a deeper queue (the null engine queues, commits and reaps).
    let o = run(
        &with(&READ_1G, &["--time_based", "--runtime=2s", "--iodepth=4"]),
        costing(MS),
    );
    assert!((2000..=2003).contains(&o.reads()), "{}", o.reads());
    assert_eq!(o.report.run_ms, 2000);
}

#[test]
fn the_ramp_is_not_reported() {
    let o = run(
        &with(
            &READ_1G,
            &["--time_based", "--runtime=2s", "--ramp_time=1s"],
        ),
        costing(MS),
    );
    // 3 s of I/O in all; the statistics start with the completion at
    // 1000 ms and cover 2 s. The I/O that ends the ramp is not counted
    // (fio's should_account() resets the statistics after its bytes were
    // added, and the job is still ramping then).
    assert_eq!(o.queued, 3000);
    assert_eq!(o.reads(), 2000);
    assert_eq!(o.report.run_ms, 2000);
    assert_eq!(o.report.dirs[0].bytes, 2000 * 4096);
}

#[test]
fn a_job_ending_inside_its_ramp_reports_its_io() {
    // 256 reads of 1 ms end inside the 1 s ramp: fio counts their bytes
    // and time (its statistics are never reset), but no latencies.
    let o = run(
        &[
            "--name=t",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--ramp_time=1s",
        ],
        costing(MS),
    );
    assert_eq!((o.reads(), o.report.dirs[0].bytes), (256, 1 << 20));
    assert_eq!((o.report.run_ms, o.report.dirs[0].runtime_ms), (256, 256));
    assert_eq!(o.report.dirs[0].clat.samples(), 0);
}

#[test]
fn loops_repeat_the_pass() {
    let one = run(&["--name=t", "--rw=randread", "--size=1m"], costing(MS));
    let three = run(
        &["--name=t", "--rw=randread", "--size=1m", "--loops=3"],
        costing(MS),
    );
    assert_eq!(one.reads(), 256);
    assert_eq!(three.reads(), 3 * one.reads());
    assert_eq!(three.report.dirs[0].bytes, 3 << 20);
    // The I/O time of every pass counts.
    assert_eq!((one.report.run_ms, three.report.run_ms), (256, 3 * 256));
    assert_eq!(three.time.now(), 3 * 256 * MS);
}

#[test]
fn a_rate_is_kept_by_sleeping() {
    // 100 IOPS for 2 s: an I/O every 10 ms, the last one issued at
    // 1990 ms; the wait after it ends the job at 2 s (fio 3.33: 200).
    let o = run(
        &with(
            &READ_1G,
            &["--time_based", "--runtime=2s", "--rate_iops=100"],
        ),
        costing(0),
    );
    assert_eq!(o.reads(), 200);
    let (slept, sleeps) = o.time.slept();
    assert_eq!(slept, o.time.now(), "all the time went in sleeps");
    assert_eq!((slept, sleeps), (2000 * MS, 200));
    // With 1 ms per I/O the sleeps make up the rest of each 10 ms.
    let o = run(
        &with(
            &READ_1G,
            &["--time_based", "--runtime=2s", "--rate_iops=100"],
        ),
        costing(MS),
    );
    assert_eq!(o.reads(), 200);
    let (slept, sleeps) = o.time.slept();
    assert_eq!(slept + o.queued * MS, o.time.now());
    assert_eq!((slept, sleeps), (200 * 9 * MS, 200));
}

/// Every tenth I/O fails with EIO.
fn every_tenth(n: u64) -> Option<i32> {
    (n % 10 == 0).then_some(libc::EIO)
}

/// The eleventh I/O fails with EIO.
fn the_eleventh(n: u64) -> Option<i32> {
    (n == 10).then_some(libc::EIO)
}

/// Every tenth I/O fails with EINVAL.
fn every_tenth_einval(n: u64) -> Option<i32> {
    (n % 10 == 0).then_some(libc::EINVAL)
}

fn failing(f: fn(u64) -> Option<i32>) -> Script {
    Script {
        cost_ns: 1000,
        fail: Some(f),
        ..Script::default()
    }
}

#[test]
fn an_io_error_ends_the_job() {
    let job = ["--name=t", "--rw=read", "--size=1m"];
    let o = run(&job, failing(the_eleventh));
    assert_eq!((o.queued, o.reads(), o.reads_done()), (11, 11, 10));
    assert_eq!(o.report.error, libc::EIO);
    assert_eq!(
        o.report.error_msg.as_deref(),
        Some("file:io_u.c:1876, func=io_u error, error=Input/output error")
    );
    assert_eq!((o.report.total_err, o.report.first_error), (0, 0));
    assert_eq!(
        o.lines,
        ["fio: io_u error on file t.0.0: Input/output error: read offset=40960, buflen=4096\n"]
    );
}

#[test]
fn continue_on_error_counts_the_errors_and_goes_on() {
    let job = ["--name=t", "--rw=read", "--size=1m"];
    for depth in ["--iodepth=1", "--iodepth=4"] {
        let o = run(
            &with(&job, &["--continue_on_error=read", depth]),
            failing(every_tenth),
        );
        // 256 I/Os, 26 of them failed; the job is not failed.
        assert_eq!(
            (o.queued, o.reads(), o.reads_done()),
            (256, 256, 230),
            "{depth}"
        );
        assert_eq!(o.report.error, 0, "{depth}");
        assert_eq!(
            (o.report.total_err, o.report.first_error),
            (26, libc::EIO),
            "{depth}"
        );
        assert!(o.lines.is_empty(), "{depth}: {:?}", o.lines);
        // Only the errors of the kinds named go on.
        let o = run(
            &with(&job, &["--continue_on_error=write", depth]),
            failing(every_tenth),
        );
        assert_eq!(
            (o.queued, o.reads_done(), o.report.error),
            (1, 0, libc::EIO),
            "{depth}"
        );
    }
}

#[test]
fn ignore_error_says_which_errors_go_on() {
    let job = [
        "--name=t",
        "--rw=read",
        "--size=1m",
        "--continue_on_error=all",
    ];
    // By default only EIO and EILSEQ go on (fio's __NON_FATAL_ERR).
    let o = run(&job, failing(every_tenth_einval));
    assert_eq!((o.reads(), o.report.error), (1, libc::EINVAL));
    assert_eq!(o.report.total_err, 0);
    let o = run(
        &with(&job, &["--ignore_error=EINVAL"]),
        failing(every_tenth_einval),
    );
    assert_eq!((o.reads(), o.reads_done(), o.report.error), (256, 230, 0));
    assert_eq!(
        (o.report.total_err, o.report.first_error),
        (26, libc::EINVAL)
    );
    // The list replaces the default: EIO is fatal now.
    let o = run(
        &with(&job, &["--ignore_error=EINVAL"]),
        failing(every_tenth),
    );
    assert_eq!((o.reads(), o.report.error), (1, libc::EIO));
}

#[test]
fn a_rate_wait_ends_at_the_runtime() {
    // rate=1 (a byte a second): after the first 4 KiB read the next one
    // is due in 4096 s; the wait ends at 2 s and that read never goes (fio
    // 3.33: one read, 2.0 s).
    for rw in ["--rw=read", "--rw=randread"] {
        let o = run(
            &[
                "--name=t",
                rw,
                "--bs=4k",
                "--size=1g",
                "--rate=1",
                "--time_based",
                "--runtime=2s",
            ],
            costing(0),
        );
        assert_eq!((o.reads(), o.queued), (1, 1), "{rw}");
        assert_eq!(o.time.slept(), (2000 * MS, 1), "{rw}");
        assert_eq!(o.report.run_ms, 2000, "{rw}");
    }
    // Without time_based too: the runtime ends a job its size would not.
    let o = run(&with(&READ_1G, &["--rate=1", "--runtime=2s"]), costing(0));
    assert_eq!((o.reads(), o.time.now()), (1, 2000 * MS));
}

#[test]
fn a_stop_request_ends_the_job_at_the_next_io() {
    let o = run(
        &with(&READ_1G, &["--time_based", "--runtime=1h"]),
        Script {
            cost_ns: MS,
            stop_after: Some(100),
            ..Script::default()
        },
    );
    assert_eq!((o.queued, o.reads(), o.report.error), (100, 100, 0));
    assert_eq!(o.report.run_ms, 100);
}

#[test]
fn think_time_pauses_on_the_clock() {
    // thinktime=5ms after every 2 I/Os, 1 ms of which spun.
    let o = run(
        &[
            "--name=t",
            "--rw=read",
            "--size=40k",
            "--thinktime=5ms",
            "--thinktime_spin=1ms",
            "--thinktime_blocks=2",
        ],
        costing(MS),
    );
    assert_eq!(o.reads(), 10);
    assert_eq!(o.time.thought(), (5 * 4000, 5 * 1000));
    assert_eq!(o.time.now(), 10 * MS + 5 * 5 * MS);
}

#[test]
fn what_a_pass_wrote_is_read_back() {
    let job = [
        "--name=t",
        "--rw=randwrite",
        "--size=1m",
        "--verify=crc32c",
        "--verify_state_save=0",
    ];
    // After the pass, in a verify phase of its own.
    let o = run(&job, costing(MS));
    assert_eq!((o.report.dirs[1].ios, o.reads()), (256, 256));
    // Among the writes, 16 at a time (verify_backlog): the pass ends with
    // what is left.
    let o = run(&with(&job, &["--verify_backlog=16"]), costing(MS));
    assert_eq!((o.report.dirs[1].ios, o.reads()), (256, 256));
}

mod flow;
mod iolog;
