//! A report or log that cannot be written (`/dev/full`): rfio names the
//! output and exits 1; called as fio it does as fio 3.33, which ignores
//! the error (exit 0, nothing said).

use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, stderr, TempDir};

/// A small job writing `data` in `dir`, with `extra` options.
fn job(dir: &TempDir, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = ["--name=x", "--size=64k", "--bs=4k", "--rw=write"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    a.push(format!("--filename={}", dir.0.join("data").display()));
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// rfio (or, `as_fio`, rfio called as fio) with `args` in `dir`, its
/// stdout going to `stdout` (`None`: captured); killed after 30 s.
fn run(dir: &TempDir, args: &[String], as_fio: bool, stdout: Option<Stdio>) -> Output {
    let mut cmd = Command::new(common::RFIO);
    cmd.current_dir(&dir.0).args(args);
    if as_fio {
        cmd.arg0("fio");
    }
    let Some(stdout) = stdout else {
        let (out, timed_out) = common::output_within(&mut cmd, Duration::from_secs(30));
        assert!(!timed_out, "{}", stderr(&out));
        return out;
    };
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > end {
            let _ = child.kill();
            panic!("rfio {args:?} was still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn full() -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap(),
    )
}

const ENOSPC: &str = "No space left on device (os error 28)";

#[test]
fn a_report_to_a_full_output_file_is_an_error_naming_it() {
    let dir = TempDir::new("out-full");
    let args = job(&dir, &["--output=/dev/full"]);
    let out = run(&dir, &args, false, None);
    assert_eq!(
        stderr(&out),
        format!("rfio: cannot write the report to /dev/full: {ENOSPC}\n")
    );
    assert_eq!(out.status.code(), Some(1));
    // As fio: exit 0, nothing said.
    let out = run(&dir, &args, true, None);
    assert_eq!(stderr(&out), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_report_to_a_full_stdout_is_an_error_naming_it() {
    let dir = TempDir::new("stdout-full");
    let args = job(&dir, &[]);
    let out = run(&dir, &args, false, Some(full()));
    assert_eq!(
        stderr(&out),
        format!("rfio: cannot write the report to standard output: {ENOSPC}\n")
    );
    assert_eq!(out.status.code(), Some(1));
    let mut fio_args = args.clone();
    fio_args.push("--compat=fio".into());
    let out = run(&dir, &fio_args, false, Some(full()));
    assert_eq!(stderr(&out), "");
    assert_eq!(out.status.code(), Some(0));
}

/// A bw log that cannot be written (fio 3.33 with `x_bw.1.log` a link to
/// `/dev/full`: exit 0, nothing said).
#[test]
fn a_log_that_cannot_be_written_is_an_error_naming_it() {
    let dir = TempDir::new("log-full");
    std::os::unix::fs::symlink("/dev/full", dir.0.join("x_bw.1.log")).unwrap();
    let args = job(&dir, &["--write_bw_log=x"]);
    let out = run(&dir, &args, false, None);
    assert_eq!(
        stderr(&out),
        format!("rfio: cannot write the log x_bw.1.log: {ENOSPC}\n")
    );
    assert_eq!(out.status.code(), Some(1));
    let out = run(&dir, &args, true, None);
    assert_eq!(stderr(&out), "");
    assert_eq!(out.status.code(), Some(0));
}
