//! ioengine=libpmem and dev-dax, against real fio 3.33 where fio has the
//! engine: the mapping's refusal without persistent memory, the jobs run
//! with PMDK's `PMEM_IS_PMEM_FORCE=1`, and dev-dax's need of a DAX device.

use crate::common;
use common::json::{json_env, json_of, summary};
use common::{rfio, stderr, stdout, TempDir};

/// fio 3.33 and rfio, libpmem on a regular file: not persistent memory,
/// the job fails when it opens its file (`err=95/file:engines/libpmem.c:114,
/// func=file_name does not point to persistent memory, error=Operation not
/// supported`: MAP_SYNC's refusal), the file sized to the job's region;
/// with PMDK's `PMEM_IS_PMEM_FORCE=1` the same jobs run through the
/// mapping: the same counts, verify passing, a trim failing with EINVAL
/// (`td_io_queue`), blocks below a page with `fsync=N` refused when the
/// engine starts; no disk statistics (fio's `FIO_NODISKUTIL`).
#[test]
fn libpmem_maps_as_fio() {
    let fio = common::real_fio();
    let dir = TempDir::new("libpmem");
    let file = dir.arg("pm");
    let cases: &[&[&str]] = &[
        &["--rw=randrw", "--bs=4k", "--size=1m"],
        &[
            "--rw=write",
            "--bs=4k",
            "--size=256k",
            "--verify=crc32c",
            "--fsync=8",
        ],
        &["--rw=randwrite", "--bs=512", "--size=64k", "--fsync=4"],
        &["--rw=trim", "--bs=4k", "--size=64k"],
        &["--rw=read", "--bs=8k", "--size=128k", "--sync=1"],
    ];
    // rfio as the fio 3.33 it is compared with.
    let pin = ("RFIO_FIO_VERSION", "3.33");
    for env in [&[pin][..], &[pin, ("PMEM_IS_PMEM_FORCE", "1")]] {
        for case in cases {
            let mut args = vec!["--name=p", "--ioengine=libpmem", file.as_str()];
            args.extend_from_slice(case);
            let _ = std::fs::remove_file(dir.file("pm"));
            let (f, fio_err, fio_rc) = json_env(fio, &dir, &args, env);
            let fio_len = std::fs::metadata(dir.file("pm")).map(|m| m.len()).ok();
            let _ = std::fs::remove_file(dir.file("pm"));
            let (r, err, rc) = json_env(common::RFIO, &dir, &args, env);
            let len = std::fs::metadata(dir.file("pm")).map(|m| m.len()).ok();
            assert_eq!(
                (rc, summary(&r, 0), len),
                (fio_rc, summary(&f, 0), fio_len),
                "{env:?} {case:?}: {err}"
            );
            assert_eq!(r.get("disk_util"), f.get("disk_util"), "{case:?}");
            if fio_err.contains("minimum block size") {
                assert!(
                    err.contains(
                        "libpmem: mmap options dictate a minimum block size of 4096 bytes\n"
                    ),
                    "{err}"
                );
            }
        }
    }
    let (r, err, _) = json_of(
        common::RFIO,
        &dir,
        &["--name=p", "--ioengine=libpmem", &file, "--size=64k"],
    );
    assert_eq!(r["jobs"][0]["error"], 95);
    assert!(
        err.contains(
            "err=95/file:engines/libpmem.c:114, func=file_name does not point to persistent memory, error=Operation not supported"
        ),
        "{err}"
    );
}

/// dev-dax maps a device DAX character device (/dev/daxX.Y), which this
/// machine has not: rfio refuses any other target before the run, naming
/// what it needs (fio reaps such a job without a word, exit 1).
#[test]
fn dev_dax_needs_a_dax_device() {
    let dir = TempDir::new("devdax");
    for (target, why) in [
        (
            dir.file("f").display().to_string(),
            "is not a character device",
        ),
        (
            "/dev/null".to_string(),
            "/dev/null is not a device DAX device",
        ),
    ] {
        let file = format!("--filename={target}");
        let args = ["--name=x", "--ioengine=dev-dax", file.as_str(), "--size=1m"];
        let out = rfio(&dir, &args);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(stdout(&out), "", "refused before the run");
        assert!(
            stderr(&out).contains(
                "job 'x': ioengine=dev-dax needs a device DAX character device (/dev/daxX.Y); "
            ) && stderr(&out).contains(why),
            "{}",
            stderr(&out)
        );
        let mut parse = args.to_vec();
        parse.push("--parse-only");
        assert!(
            rfio(&dir, &parse).status.success(),
            "parsed as fio parses it"
        );
    }
}
