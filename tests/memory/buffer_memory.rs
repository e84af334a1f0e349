//! A job's I/O buffers cost memory only where they are used, as fio's
//! `malloc`ed buffers: a read job on the null engine never touches its
//! pool, so however large the pool, the job stays small. The peak resident
//! size of the rfio process is read from `wait4`'s resource usage.

use crate::common;

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Run rfio with `args` in `dir`; its exit status and peak resident set
/// size in KiB.
// The child is reaped by `wait4` (for its resource usage), which clippy
// does not see.
#[allow(clippy::zombie_processes)]
fn rfio_max_rss_kib(dir: &common::TempDir, args: &[&str]) -> (std::process::ExitStatus, i64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rfio"))
        .current_dir(&dir.0)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("rfio starts");
    let pid = libc::pid_t::try_from(child.id()).expect("a pid fits pid_t");
    let deadline = Instant::now() + common::RUN_LIMIT;
    loop {
        let mut status = 0;
        // SAFETY: all-zero bytes are a valid `rusage` (integers only).
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `status` and `usage` are valid for writes; `pid` is this
        // test's own child, not yet reaped.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4: {}", std::io::Error::last_os_error());
        if r == pid {
            // Linux reports ru_maxrss in KiB.
            return (std::process::ExitStatus::from_raw(status), usage.ru_maxrss);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rfio {args:?} still running after {:?}", common::RUN_LIMIT);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// 256 MiB of buffers (iodepth 4 of 64 MiB blocks) that a null-engine read
/// job never touches. With every buffer byte cleared up front the process
/// held more than 256 MiB; untouched, it stays near its size without the
/// pool (about 10 MiB in a debug build).
#[test]
fn an_untouched_pool_is_not_resident() {
    let dir = common::TempDir::new("bufmem");
    for mem in ["--mem=malloc", "--mem=mmap"] {
        let (status, kib) = rfio_max_rss_kib(
            &dir,
            &[
                "--name=a",
                "--ioengine=null",
                "--rw=read",
                "--bs=64m",
                "--iodepth=4",
                "--size=256m",
                mem,
            ],
        );
        assert!(status.success(), "{mem}: {status}");
        assert!(
            kib < 96 * 1024,
            "{mem}: peak RSS {kib} KiB for a pool of 256 MiB that is never touched"
        );
    }
}

/// Many small jobs, each with an untouched pool of 4 MiB (the case that
/// showed it: 200 jobs took several hundred MiB, fio --thread about 100).
#[test]
fn many_read_jobs_stay_small() {
    let dir = common::TempDir::new("bufmem-many");
    let (status, kib) = rfio_max_rss_kib(
        &dir,
        &[
            "--name=a",
            "--ioengine=null",
            "--rw=read",
            "--bs=1m",
            "--iodepth=4",
            "--size=64m",
            "--numjobs=64",
            "--group_reporting",
        ],
    );
    assert!(status.success(), "{status}");
    // 64 pools of 4 MiB are 256 MiB if cleared up front (measured before
    // the fix: 115-180 MiB, as jobs overlap); untouched, about 10 MiB.
    assert!(kib < 64 * 1024, "peak RSS {kib} KiB");
}
