//! `latency_target` (fio's queue-depth search), `max_latency` and
//! `serialize_overlap`, run through the binary as a user runs them.

use crate::common;

use std::process::Output;
use std::time::Instant;

use common::{rfio, TempDir};

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// With every I/O far under the target, the depth doubles each window up
/// to iodepth, one final window runs at that depth with fresh statistics,
/// and the job ends: five windows of 100 ms, whatever the size.
#[test]
fn latency_target_settles_at_iodepth_and_reports_the_final_window() {
    let dir = TempDir::new("lat-target");
    let t0 = Instant::now();
    let o = rfio(
        &dir,
        &[
            "--name=t",
            "--ioengine=null",
            "--size=100g",
            "--rw=randread",
            "--iodepth=8",
            "--rate_iops=1000",
            "--latency_target=10ms",
            "--latency_window=100ms",
            "--output-format=json",
        ],
    );
    let wall = t0.elapsed().as_millis();
    assert!(o.status.success());
    let j = &json(&o)["jobs"][0];
    assert_eq!(j["latency_depth"], 8);
    assert_eq!(j["latency_target"], 10_000_000);
    assert_eq!(j["latency_window"], 100_000);
    // The report covers the final window only: the four windows before it
    // took 400 ms of the wall-clock time, which it leaves out (half of it
    // here, for the clocks' rounding).
    let ios = j["read"]["total_ios"].as_u64().unwrap();
    let runtime = j["read"]["runtime"].as_u64().unwrap();
    assert!(runtime >= 95, "{runtime} ms reported");
    assert!(
        u128::from(runtime) + 200 <= wall,
        "{runtime} ms reported of {wall} ms: more than the final window"
    );
    // At 1000 IOPS: one I/O a millisecond of it. A loaded machine may lag,
    // and the rate limiter then catches up on what it owes (as fio's does),
    // so the bounds leave room both ways.
    assert!(
        ios * 2 >= runtime && ios <= runtime * 3 / 2 + 10,
        "{ios} I/Os in {runtime} ms"
    );
    // Five windows of 100 ms; the job has 100 GiB to read, so only the
    // search ends it (a hang bound only above).
    assert!((450..=60_000).contains(&wall), "ran {wall} ms");
}

/// An I/O slower than `max_latency` fails the job with ETIMEDOUT and fio's
/// messages; the limit is per direction.
#[test]
fn max_latency_fails_the_job_with_fios_error() {
    let dir = TempDir::new("max-lat");
    let o = rfio(
        &dir,
        &[
            "--name=m",
            "--filename=m.dat",
            "--rw=write",
            "--size=64k",
            "--max_latency=1",
            "--minimal",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(" nsec exceeds specified max (1000 nsec): m.dat write 0 4096\n"),
        "{err}"
    );
    assert!(
        err.contains(
            ", err=110/file:io_u.c:1432, func=max latency exceeded, error=Connection timed out\n"
        ),
        "{err}"
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let f: Vec<&str> = out.trim_end().split(';').collect();
    // err=110, and the one write (4 KiB) that took too long is counted.
    assert_eq!((f[4], f[46]), ("110", "4"), "{out}");

    // A write limit does not touch reads.
    let o = rfio(
        &dir,
        &[
            "--name=r",
            "--ioengine=null",
            "--rw=randread",
            "--size=64k",
            "--max_latency=0,1",
            "--minimal",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Overlapping random writes at depth 16 with serialize_overlap: every
/// block still goes out once per byte of io_size, nothing is lost or
/// doubled, and the job ends.
#[test]
fn serialize_overlap_issues_every_io() {
    let dir = TempDir::new("serialize");
    let o = rfio(
        &dir,
        &[
            "--name=s",
            "--filename=s.dat",
            "--ioengine=libaio",
            "--iodepth=16",
            "--rw=randwrite",
            "--bs=4k",
            "--norandommap",
            "--size=64k",
            "--io_size=2m",
            "--serialize_overlap=1",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = &json(&o)["jobs"][0];
    assert_eq!(j["write"]["total_ios"], 512);
    assert_eq!(j["write"]["io_bytes"], 2 << 20);
}
