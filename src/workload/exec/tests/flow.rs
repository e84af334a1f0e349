//! Flows and `rate_ignore_thinktime` on the fake clock.

use super::{costing, run, with, Script, MS, READ_1G};
use crate::workload::flow::Flows;
use crate::workload::links::Links;

/// The flows of a run of two jobs, `a` and `b`, with these options each.
fn flows(a: &[&str], b: &[&str]) -> Flows {
    let mut argv = vec!["--ioengine=null", "--size=1m", "--name=a"];
    argv.extend_from_slice(a);
    argv.push("--name=b");
    argv.extend_from_slice(b);
    Flows::join(&crate::plan::testing::plan(&argv).jobs)
}

/// Job `a` (weight 1) beside a job of weight 3 that never issues: fio's
/// counter starts at 1, so `a` issues one I/O (0/1 <= 1/4), is then held
/// back (1/2 > 1/4) and sleeps its `flow_sleep` over and over until its
/// runtime is over.
#[test]
fn a_job_ahead_of_its_flow_sleeps_until_its_runtime_ends() {
    let f = flows(&["--flow=1", "--flow_sleep=1000"], &["--flow=3"]);
    let script = Script {
        links: Links {
            flow: f.seat(0),
            overlap: None,
        },
        ..costing(MS)
    };
    let o = run(&with(&READ_1G, &["--runtime=1s"]), script);
    assert_eq!((o.queued, o.reads()), (1, 1));
    // The I/O took 1 ms; 999 sleeps of 1 ms fill the second.
    assert_eq!(o.time.slept(), (999 * MS, 999));
    assert_eq!(o.report.run_ms, 1000);
    let a = f.seat(0).unwrap();
    assert_eq!(a.counted(), 1);
    assert_eq!(a.flow().counter(), 2);
}

/// Job `a` (weight 3, 400 I/Os) while the other job (weight 1) tries one
/// I/O each time `a` issues one: `a` is never held back (its share stays
/// near 1/2, below 3/4), the other is held back to a quarter of the flow.
#[test]
fn shares_follow_the_weights_in_the_loop() {
    let f = flows(&["--flow=3", "--flow_sleep=10"], &["--flow=1"]);
    let b = f.seat(1).unwrap();
    let script = Script {
        links: Links {
            flow: f.seat(0),
            overlap: None,
        },
        on_queue: Some(Box::new(move |_| {
            b.held_back();
        })),
        ..costing(MS)
    };
    let o = run(
        &["--name=t", "--rw=read", "--bs=4k", "--size=1600k"],
        script,
    );
    assert_eq!((o.queued, o.reads()), (400, 400));
    assert_eq!(o.time.slept(), (0, 0), "never held back");
    let (a, b) = (f.seat(0).unwrap(), f.seat(1).unwrap());
    // The last turn counts one more before it finds the job done (fio's
    // check comes before its byte budget's).
    assert_eq!(a.counted(), 401);
    assert!(b.counted().abs_diff(401 / 3) <= 1, "{}", b.counted());
    assert_eq!(a.flow().counter(), 1 + a.counted() + b.counted());
}

/// A job without a flow is never held back.
#[test]
fn no_flow_no_wait() {
    let o = run(&with(&READ_1G, &["--runtime=1s"]), costing(MS));
    assert_eq!((o.queued, o.time.slept()), (1000, (0, 0)));
}

/// `rate_iops=100` with 30 ms of think time every 10 blocks, 2 s: fio
/// catches up with the rate after each think time (200 I/Os); with
/// `rate_ignore_thinktime` the rate counts the blocks it would have moved
/// meanwhile, less one (fio's `handle_thinktime`), and 168 I/Os go, as
/// fio 3.33 issues (the wait due at 2 s ends the job).
#[test]
fn rate_ignore_thinktime_does_not_catch_up() {
    let base = with(
        &READ_1G,
        &[
            "--time_based",
            "--runtime=2s",
            "--rate_iops=100",
            "--thinktime=30ms",
            "--thinktime_blocks=10",
        ],
    );
    let caught_up = run(&base, Script::default());
    assert_eq!(caught_up.reads(), 200);
    let ignored = run(
        &with(&base, &["--rate_ignore_thinktime=1"]),
        Script::default(),
    );
    assert_eq!(ignored.reads(), 168);
}
