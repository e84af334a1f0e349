//! Engines and engine options that reach the kernel by other ways than
//! read and write: splice's pipes, the `RWF_*` flags of pvsync2, io_uring
//! and libaio, and mmap's `thp`, each against what fio 3.33 does with the
//! same job (the numbers were taken from real fio runs; see the comment at
//! each test).

use crate::common;
use common::{assert_job_ok, run_captured, TempDir};

/// fio 3.33, `--ioengine=splice --rw=randrw --bs=4k --size=1m`: 132 reads
/// and 124 writes, as every other engine; with blocks larger than the
/// pipe (192 KiB) and crc32c verify, 10 writes and 10 verified reads.
#[test]
fn splice_moves_what_fio_moves() {
    let dir = TempDir::new("splice");
    let file = dir.arg("f");
    let (r, log) = run_captured(&[
        "--name=s",
        "--ioengine=splice",
        "--rw=randrw",
        "--bs=4k",
        "--size=1m",
        &file,
    ]);
    let j = &r.jobs[0];
    assert_job_ok(j);
    assert_eq!(log.err.lock().unwrap().as_str(), "");
    assert_eq!([j.dirs[0].ios, j.dirs[1].ios], [132, 124]);
    assert_eq!([j.dirs[0].bytes, j.dirs[1].bytes], [132 * 4096, 124 * 4096]);
    let (r, _) = run_captured(&[
        "--name=v",
        "--ioengine=splice",
        "--rw=write",
        "--bs=192k",
        "--size=2m",
        "--verify=crc32c",
        // The state file would go to the working directory, the checkout.
        "--verify_state_save=0",
        &dir.arg("v"),
    ]);
    let j = &r.jobs[0];
    assert_job_ok(j);
    assert_eq!([j.dirs[0].ios, j.dirs[1].ios], [10, 10]);
}

/// pvsync2's, io_uring's and libaio's flags reach the kernel as fio's do:
/// the same job gets the same error (or none) and the same I/O counts from
/// both. (fio 3.33 on this machine's kernel fails the first read of a file
/// just laid out and dropped from the cache with `RWF_NOWAIT`, EAGAIN, and
/// the first transfer with fio's `RWF_UNCACHED`, 0x40, EOPNOTSUPP.)
#[test]
fn rwf_flags_reach_the_kernel_as_fios() {
    let fio = common::real_fio();
    let mut cases = vec![
        ("pvsync2", "--nowait=1", "read"),
        ("pvsync2", "--uncached=1", "write"),
    ];
    for engine in ["io_uring", "libaio"] {
        if common::require_engine(engine, 1) {
            cases.push((engine, "--nowait=1", "read"));
        }
    }
    for (engine, opt, rw) in cases {
        let summary = |bin: &str| {
            let dir = TempDir::new("rwf");
            let out = common::run_in(
                bin,
                &dir,
                &[
                    "--name=f",
                    &format!("--ioengine={engine}"),
                    "--size=64k",
                    &format!("--rw={rw}"),
                    opt,
                    "--output-format=json",
                    &dir.arg("f"),
                ],
            );
            let text = common::stdout(&out);
            let start = text.find("{\n").unwrap_or(0);
            let end = text.rfind('}').map_or(text.len(), |e| e + 1);
            let doc: serde_json::Value = serde_json::from_str(&text[start..end])
                .unwrap_or_else(|e| panic!("{bin}: {e}: {text}"));
            let j = &doc["jobs"][0];
            (
                j["error"].as_i64(),
                j["read"]["total_ios"].as_u64(),
                j["write"]["total_ios"].as_u64(),
            )
        };
        let (ours, theirs) = (summary(common::RFIO), summary(fio));
        if opt == "--nowait=1" {
            // Whether a RWF_NOWAIT read finds its pages cached depends on
            // the page cache at that moment (CI saw fio fail with EAGAIN
            // while rfio, just after, read all 16 blocks): either outcome
            // is the kernel's answer, for both tools.
            let kernels = |s: (Option<i64>, Option<u64>, Option<u64>)| {
                s == (Some(0), Some(16), Some(0)) || s.0 == Some(11)
            };
            assert!(
                kernels(ours) && kernels(theirs),
                "{engine} {opt} {rw}: {ours:?} {theirs:?}"
            );
        } else {
            assert_eq!(ours, theirs, "{engine} {opt} {rw}");
        }
    }
}

/// mmap's `thp` (fio 3.33: a private mapping with `MADV_HUGEPAGE`): the
/// job runs as without it (256 writes of 4 KiB), but its writes stay in
/// its copy: the file keeps what its layout put there.
#[test]
fn mmap_thp_writes_to_a_private_copy() {
    let dir = TempDir::new("thp");
    let file = dir.arg("f");
    let (r, _) = run_captured(&[
        "--name=l",
        "--ioengine=mmap",
        "--rw=read",
        "--size=1m",
        &file,
    ]);
    assert_job_ok(&r.jobs[0]);
    let laid_out = std::fs::read(dir.file("f")).unwrap();
    let (r, _) = run_captured(&[
        "--name=t",
        "--ioengine=mmap",
        "--thp=1",
        "--rw=write",
        "--size=1m",
        "--overwrite=1",
        &file,
    ]);
    assert_job_ok(&r.jobs[0]);
    assert_eq!(r.jobs[0].dirs[1].ios, 256);
    assert!(
        std::fs::read(dir.file("f")).unwrap() == laid_out,
        "no write reached the file"
    );
    let (r, _) = run_captured(&[
        "--name=w",
        "--ioengine=mmap",
        "--rw=write",
        "--size=1m",
        &file,
    ]);
    assert_job_ok(&r.jobs[0]);
    assert!(
        std::fs::read(dir.file("f")).unwrap() != laid_out,
        "without thp they do"
    );
}
