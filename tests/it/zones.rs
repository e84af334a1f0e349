//! Strided zones (`zonemode=strided`, `zonesize`, `zonerange`,
//! `zoneskip`) as fio 3.33 runs them: the exact offsets of every I/O (from
//! per-I/O latency logs with `log_offset=1`), fio's refusals, and the
//! corpus jobs under jobfiles/zones compared with real fio I/O by I/O.
//!
//! The comparisons need real fio 3.33 and fail, never skip, without it.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{real_fio, run_in as run, TempDir, RFIO};

/// (direction, length, offset) of every I/O in a per-I/O latency log.
fn log_ios(path: &Path) -> Vec<(u64, u64, u64)> {
    let text = std::fs::read_to_string(path).expect("latency log");
    text.lines()
        .map(|l| {
            let f: Vec<u64> = l.split(',').map(|v| v.trim().parse().unwrap()).collect();
            (f[2], f[3], f[4])
        })
        .collect()
}

/// A 1 MiB sequential read of `zfile` in `dir` with a latency log, plus
/// `extra`.
fn strided_read(dir: &TempDir, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "--name=z",
        "--ioengine=psync",
        "--bs=4k",
        "--size=1m",
        "--rw=read",
        "--write_lat_log=z",
        "--log_offset=1",
        "--minimal",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(dir.arg("zfile"));
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn run_rfio(dir: &TempDir, extra: &[&str]) -> Output {
    let args = strided_read(dir, extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(RFIO, &dir.0, &args)
}

#[test]
fn sequential_zones_wrap_to_the_start() {
    let dir = TempDir::new("zones-seq");
    let out = run_rfio(
        &dir,
        &["--zonemode=strided", "--zonesize=16k", "--zonerange=256k"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ios = log_ios(&dir.file("z_lat.1.log"));
    assert_eq!(ios.len(), 256);
    for (i, (ddir, len, off)) in ios.iter().enumerate() {
        let zone = (i / 4) as u64 % 4;
        assert_eq!((*ddir, *len), (0, 4096));
        assert_eq!(*off, zone * 256 * 1024 + (i as u64 % 4) * 4096, "I/O {i}");
    }
}

#[test]
fn zoneskip_in_zones_is_zonesize_bytes() {
    let dir = TempDir::new("zones-skip");
    let out = run_rfio(
        &dir,
        &["--zonemode=strided", "--zonesize=16k", "--zoneskip=1z"],
    );
    assert!(out.status.success());
    let offsets: Vec<u64> = log_ios(&dir.file("z_lat.1.log"))
        .iter()
        .map(|i| i.2)
        .take(8)
        .collect();
    assert_eq!(offsets, [0, 4096, 8192, 12288, 32768, 36864, 40960, 45056]);
}

#[test]
fn zonerange_alone_does_nothing() {
    let dir = TempDir::new("zones-none");
    assert!(run_rfio(&dir, &["--zonerange=16k", "--zoneskip=64k"])
        .status
        .success());
    let offsets: Vec<u64> = log_ios(&dir.file("z_lat.1.log"))
        .iter()
        .map(|i| i.2)
        .collect();
    assert_eq!(offsets, (0..256).map(|i| i * 4096).collect::<Vec<_>>());
}

#[test]
fn refusals_name_the_option() {
    for (extra, msg) in [
        (
            &["--zonesize=16k"][..],
            "--zonemode=none and --zonesize are not compatible.",
        ),
        (
            &["--zonemode=strided"][..],
            "--zonesize must be specified when using --zonemode=strided.",
        ),
    ] {
        let dir = TempDir::new("zones-err");
        let out = run_rfio(&dir, extra);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(err.contains(msg), "{extra:?}: {err}");
        assert!(out.stdout.is_empty(), "no report: {extra:?}");
        assert!(!dir.file("zfile").exists(), "no I/O, no file: {extra:?}");
    }
}

/// Run `job` with both binaries in fresh directories; every latency log
/// must list the same I/Os in the same order.
fn same_ios_as_fio(job: &str) {
    let fio = real_fio();
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join(job);
    let job = job.to_str().unwrap();
    let (a, b) = (TempDir::new("zones-fio"), TempDir::new("zones-rfio"));
    let fo = run(fio, &a.0, &["--minimal", job]);
    let ro = run(RFIO, &b.0, &["--minimal", job]);
    assert_eq!(fo.status.code(), ro.status.code(), "{job}");
    let mut logs = 0;
    for entry in std::fs::read_dir(&a.0).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.contains("_lat.") {
            assert_eq!(
                log_ios(&a.file(&name)),
                log_ios(&b.file(&name)),
                "{job}: {name}"
            );
            logs += 1;
        }
    }
    assert!(logs > 0, "{job}: no latency log");
}

#[test]
fn corpus_jobs_issue_fios_ios() {
    for job in [
        "jobfiles/zones/strided-read.fio",
        "jobfiles/zones/strided-write-skip.fio",
        "jobfiles/zones/strided-randread.fio",
        "jobfiles/zones/strided-size-gt-range.fio",
        "jobfiles/zones/strided-numjobs.fio",
        "jobfiles/zones/strided-randrw.fio",
    ] {
        same_ios_as_fio(job);
    }
}

/// fio runs a strided job in one pass up to `io_size` times `loops` (the
/// zones never end the file); rfio's pass ends at `size` until
/// src/workload/job.rs sets the pass length to the job's total for strided
/// jobs.
#[test]
fn io_size_and_loops_run_one_pass_like_fio() {
    same_ios_as_fio("jobfiles/zones/strided-io_size.fio");
    same_ios_as_fio("jobfiles/zones/strided-loops.fio");
}
