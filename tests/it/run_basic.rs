//! The first slice of the engine, end to end through the library:
//! front end → plan → workload → report → normal output.

use std::time::Instant;

use rfio::api::{Plan, RunReport};

use crate::common;
use common::{plan, TempDir};

fn run(args: &[&str]) -> (Plan, RunReport) {
    let p = plan(args);
    let r = rfio::api::run(&p).expect("run starts");
    (p, r)
}

const READ_4M: [&str; 5] = [
    "--name=x",
    "--ioengine=null",
    "--size=4m",
    "--bs=4k",
    "--rw=read",
];

#[test]
fn null_sequential_read_moves_exactly_size() {
    let (_, r) = run(&READ_4M);
    assert_eq!(r.jobs.len(), 1);
    let j = &r.jobs[0];
    assert_eq!(j.error, 0);
    assert_eq!(j.dirs[0].ios, 1024);
    assert_eq!(j.dirs[0].bytes, 4 << 20);
    assert_eq!(j.dirs[1].bytes, 0);
    assert!(j.layout.is_none(), "the null engine lays out no file");
    assert!(
        !std::path::Path::new("x.0.0").exists(),
        "the null engine creates no file"
    );
    let g = r.groups[0].dirs[0].expect("group has reads");
    assert_eq!(g.bytes, 4 << 20);
}

#[test]
fn psync_write_creates_the_file() {
    let dir = TempDir::new("psync");
    let d = format!("--directory={}", dir.0.display());
    let (_, r) = run(&[
        "--name=w",
        "--ioengine=psync",
        "--size=2m",
        "--bs=4k",
        "--rw=write",
        &d,
    ]);
    let j = &r.jobs[0];
    assert_eq!(j.error, 0, "{:?}", j.error_msg);
    assert_eq!(j.dirs[1].ios, 512);
    assert_eq!(j.dirs[1].bytes, 2 << 20);
    let len = std::fs::metadata(dir.0.join("w.0.0")).unwrap().len();
    assert_eq!(len, 2 << 20);
}

#[test]
fn sync_read_lays_out_and_reads() {
    let dir = TempDir::new("sync");
    let d = format!("--directory={}", dir.0.display());
    let (_p, r) = run(&[
        "--name=s",
        "--ioengine=sync",
        "--size=1m",
        "--bs=4k",
        "--rw=randread",
        &d,
    ]);
    let j = &r.jobs[0];
    assert_eq!(j.error, 0, "{:?}", j.error_msg);
    assert_eq!(j.dirs[0].ios, 256);
    assert_eq!(j.layout.map(|l| (l.files, l.bytes)), Some((1, 1 << 20)));
    let text = rfio::api::render_normal(&r);
    assert!(
        text.contains("s: Laying out IO file (1 file / 1MiB)\n"),
        "{text}"
    );
}

#[test]
fn null_randrw_splits_the_size() {
    let (_, r) = run(&[
        "--name=m",
        "--ioengine=null",
        "--size=8m",
        "--bs=4k",
        "--rw=randrw",
        "--rwmixread=50",
    ]);
    let j = &r.jobs[0];
    assert_eq!(j.dirs[0].bytes + j.dirs[1].bytes, 8 << 20);
    assert_eq!(j.dirs[0].ios + j.dirs[1].ios, 2048);
    // 50/50 over 2048 I/Os: both directions well represented.
    assert!(j.dirs[0].ios > 800 && j.dirs[1].ios > 800, "{:?}", j.dirs);
}

#[test]
fn time_based_runs_for_the_runtime() {
    let t0 = Instant::now();
    let (_, r) = run(&[
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--bs=4k",
        "--rw=read",
        "--time_based",
        "--runtime=200ms",
    ]);
    let wall = t0.elapsed().as_secs_f64();
    assert!(wall >= 0.19, "ran {wall} s");
    let j = &r.jobs[0];
    // The runtime, and not much more: a job that missed its end would wrap
    // over the file until killed (the bound leaves a loaded machine room).
    assert!(
        (195..=10_000).contains(&j.dirs[0].runtime_ms),
        "runtime {} ms",
        j.dirs[0].runtime_ms
    );
    // Offsets re-wrapped: far more than one pass over the 1 MiB file.
    assert!(j.dirs[0].bytes > 1 << 20);
}

#[test]
fn number_ios_caps_the_job() {
    let (_, r) = run(&[
        "--name=n",
        "--ioengine=null",
        "--size=4m",
        "--bs=4k",
        "--rw=read",
        "--number_ios=10",
    ]);
    assert_eq!(r.jobs[0].dirs[0].ios, 10);
}

#[test]
fn stonewall_groups_run_in_order() {
    let (_, r) = run(&[
        "--name=a",
        "--ioengine=null",
        "--size=1m",
        "--rw=read",
        "--name=b",
        "--ioengine=null",
        "--size=2m",
        "--rw=write",
        "--stonewall",
    ]);
    assert_eq!(r.groups.len(), 2);
    assert_eq!(r.jobs[1].group_id(), 1);
    assert_eq!(r.groups[1].dirs[1].map(|g| g.bytes), Some(2 << 20));
    assert!(r.groups[1].dirs[0].is_none());
}

#[test]
fn normal_output_has_fio_wording() {
    let (_p, r) = run(&READ_4M);
    let text = rfio::api::render_normal(&r);
    assert!(
        text.starts_with(
            "x: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=null, iodepth=1\n\
             fio-3.33\nStarting 1 process\n\nx: (groupid=0, jobs=1): err= 0: pid="
        ),
        "{text}"
    );
    assert!(text.contains("\n  read: IOPS="), "{text}");
    assert!(text.contains("(4096KiB/"), "{text}");
    assert!(text.contains("\n    clat (nsec): min="), "{text}");
    assert!(
        text.contains("\n\nRun status group 0 (all jobs):\n   READ: bw="),
        "{text}"
    );
    assert!(text.contains(", io=4096KiB (4194kB), run="), "{text}");
}
