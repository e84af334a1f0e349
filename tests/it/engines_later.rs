//! What fio 3.36-3.42 changed in the engines, as rfio runs it under each
//! release: atomic writes (3.38), `uncached` dropped (3.38) and back as
//! `RWF_DONTCACHE` (3.40), libaio's vectored I/O (3.39) and its queued
//! syncs (3.41). Figures from the real fio 3.33 and 3.42.
//!
//! The flags are proved where a kernel answers them the same everywhere:
//! on tmpfs, which has neither atomic writes nor `RWF_DONTCACHE`, a write
//! with `RWF_ATOMIC` and a read with `RWF_DONTCACHE` (or fio 3.33's
//! `RWF_UNCACHED`, the same bit as `RWF_ATOMIC`) fail with `EOPNOTSUPP`,
//! as they do under real fio; without the flag they succeed.

use crate::common::json::json_env;
use crate::common::{output_within, stderr, TempDir, RFIO, RUN_LIMIT};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory on tmpfs (`/dev/shm`), removed on drop.
fn shm(tag: &str) -> TempDir {
    assert!(
        Path::new("/dev/shm").is_dir(),
        "Linux's /dev/shm (tmpfs) is needed"
    );
    let p = PathBuf::from(format!("/dev/shm/rfio-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&p).unwrap();
    TempDir(p)
}

/// The first job's error of `args` run as fio `release` in `dir` (its
/// JSON report), with stderr.
fn error_as(dir: &TempDir, release: &str, args: &[&str]) -> (i64, String) {
    let (doc, err, _) = json_env(RFIO, dir, args, &[("RFIO_FIO_VERSION", release)]);
    (doc["jobs"][0]["error"].as_i64().expect("error"), err)
}

const EOPNOTSUPP: i64 = 95;

#[test]
fn atomic_asks_rwf_atomic_of_each_write_from_3_38() {
    let shm = shm("atomic");
    for engine in ["pvsync2", "libaio", "io_uring"] {
        let e = format!("--ioengine={engine}");
        let args = [
            "--name=a",
            "--filename=a.dat",
            "--size=64k",
            "--bs=4k",
            "--rw=write",
            "--atomic=1",
            &e,
        ];
        // fio 3.42: RWF_ATOMIC on the first write, which tmpfs refuses.
        let (error, err) = error_as(&shm, "3.42", &args);
        assert_eq!(error, EOPNOTSUPP, "{engine} as 3.42: {err}");
        // fio 3.33: plain writes through an O_DIRECT open (tmpfs takes
        // O_DIRECT); fio 3.37 the same.
        for release in ["3.33", "3.37"] {
            let (error, err) = error_as(&shm, release, &args);
            assert_eq!(error, 0, "{engine} as {release}: {err}");
        }
    }
}

#[test]
fn atomic_on_an_engine_without_atomic_writes_is_refused_from_3_38() {
    let dir = TempDir::new("atomic-psync");
    let args = [
        "--name=a",
        "--filename=a.dat",
        "--size=64k",
        "--ioengine=psync",
        "--atomic=1",
    ];
    // rfio called as fio: the drop-in symlink.
    let fio = dir.file("fio");
    std::os::unix::fs::symlink(RFIO, &fio).unwrap();
    let run = |name: &str, release: &str| {
        let program = if name == "fio" {
            fio.as_path()
        } else {
            Path::new(RFIO)
        };
        let mut cmd = Command::new(program);
        cmd.current_dir(&dir.0)
            .args(args)
            .env("RFIO_FIO_VERSION", release);
        let (out, timed_out) = output_within(&mut cmd, RUN_LIMIT);
        assert!(!timed_out);
        (out.status.code(), stderr(&out), out.stdout)
    };
    // fio 3.42 says only this, writes no report and exits 1.
    let (code, err, out) = run("fio", "3.42");
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err, "fio: engine does not support atomic writes\n");
    assert!(out.is_empty());
    let (code, err, _) = run("rfio", "3.42");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("atomic=1 asks RWF_ATOMIC of each write, which ioengine=psync cannot do"),
        "{err}"
    );
    // fio 3.33 runs it (atomic meant O_DIRECT).
    let (code, err, _) = run("fio", "3.33");
    assert_eq!(code, Some(0), "{err}");
    // --parse-only does not add the job: fio 3.42 exits 0 too.
    let mut cmd = Command::new(&fio);
    cmd.current_dir(&dir.0)
        .args(args)
        .arg("--parse-only")
        .env("RFIO_FIO_VERSION", "3.42");
    let (out, _) = output_within(&mut cmd, RUN_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn uncached_is_each_releases_flag() {
    let shm = shm("uncached");
    for engine in ["pvsync2", "io_uring"] {
        let e = format!("--ioengine={engine}");
        let args = [
            "--name=u",
            "--filename=u.dat",
            "--size=64k",
            "--bs=4k",
            "--rw=read",
            "--uncached=1",
            &e,
        ];
        // 3.33's RWF_UNCACHED (RWF_ATOMIC's bit) and 3.40's RWF_DONTCACHE
        // fail a tmpfs read; 3.38 and 3.39 set no flag.
        for (release, want) in [
            ("3.33", EOPNOTSUPP),
            ("3.37", EOPNOTSUPP),
            ("3.38", 0),
            ("3.39", 0),
            ("3.40", EOPNOTSUPP),
            ("3.42", EOPNOTSUPP),
        ] {
            let (error, err) = error_as(&shm, release, &args);
            assert_eq!(error, want, "{engine} as {release}: {err}");
        }
        // Direct I/O never carries it.
        let mut direct = args.to_vec();
        direct.push("--direct=1");
        let (error, err) = error_as(&shm, "3.42", &direct);
        assert_eq!(error, 0, "{engine} direct: {err}");
    }
}

#[test]
fn libaio_vectored_moves_the_same_bytes_from_3_39() {
    let dir = TempDir::new("libaio-vectored");
    let args = [
        "--name=v",
        "--filename=v.dat",
        "--size=256k",
        "--bs=4k",
        "--rw=randwrite",
        "--iodepth=8",
        "--ioengine=libaio",
        "--libaio_vectored=1",
        "--verify=crc32c",
        "--randseed=7",
    ];
    let (doc, err, code) = json_env(RFIO, &dir, &args, &[("RFIO_FIO_VERSION", "3.42")]);
    assert_eq!(code, 0, "{err}");
    let j = &doc["jobs"][0];
    // fio 3.42: 64 writes, and 64 reads that verify them.
    assert_eq!(j["error"], 0, "{err}");
    assert_eq!(j["write"]["total_ios"], 64);
    assert_eq!(j["read"]["total_ios"], 64);
    // fio 3.38 has no such option.
    let mut cmd = Command::new(RFIO);
    cmd.current_dir(&dir.0)
        .args(args)
        .arg("--compat=fio")
        .env("RFIO_FIO_VERSION", "3.38");
    let (out, _) = output_within(&mut cmd, RUN_LIMIT);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unrecognized option '--libaio_vectored=1'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn libaio_syncs_are_counted_as_fio_counts_them() {
    let dir = TempDir::new("libaio-fsync");
    for release in ["3.33", "3.42"] {
        let args = [
            "--name=s",
            "--filename=s.dat",
            "--size=256k",
            "--bs=4k",
            "--rw=randwrite",
            "--iodepth=8",
            "--ioengine=libaio",
            "--fsync=4",
            "--randseed=3",
        ];
        let (doc, err, code) = json_env(RFIO, &dir, &args, &[("RFIO_FIO_VERSION", release)]);
        assert_eq!(code, 0, "{release}: {err}");
        let j = &doc["jobs"][0];
        // fio 3.33 and 3.42 alike: 64 writes and 15 syncs (one after every
        // fourth write but the last), queued or not.
        assert_eq!(j["write"]["total_ios"], 64, "{release}");
        assert_eq!(j["sync"]["total_ios"], 15, "{release}");
    }
}
