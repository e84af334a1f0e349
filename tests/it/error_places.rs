//! Where a failed job's error comes from in fio's source (`file:LINE` of
//! its `td_verror`) is the chosen release's: fio 3.33 and 3.42 name other
//! lines for the same failure, on stderr and in the normal output's job
//! line. The expected lines are real fio 3.33's and 3.42's for the same
//! jobs.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{require_engine, rfio_as, stderr, stdout, TempDir};

/// stderr's `fio: pid=N, err=...` line and the normal output's job line
/// without its pid and date, and the output's `issued rwts` line.
fn error_lines(out: &Output) -> (String, String, String) {
    let err = stderr(out);
    let pid_line = err
        .lines()
        .find(|l| l.starts_with("fio: pid="))
        .unwrap_or_else(|| panic!("no pid line: {err}"));
    let pid_line = pid_line[pid_line.find(", err=").expect("err=")..].to_string();
    let text = stdout(out);
    let job = text
        .lines()
        .find(|l| l.contains("(groupid=0, jobs=1): err="))
        .unwrap_or_else(|| panic!("no job line: {text}"));
    let job = job[..job.rfind("): pid=").expect("pid") + 1].to_string();
    let issued = text
        .lines()
        .find(|l| l.contains("issued rwts:"))
        .unwrap_or_else(|| panic!("no issued line: {text}"))
        .trim()
        .to_string();
    (pid_line, job, issued)
}

/// A write to /dev/full fails with ENOSPC: fio's `io_u error`, at
/// `io_u.c:1876` in 3.33 and `io_u.c:2018` in 3.42.
#[test]
fn an_io_error_names_the_releases_place() {
    assert!(
        Path::new("/dev/full").exists(),
        "Linux's /dev/full is needed"
    );
    let dir = TempDir::new("places-io-u");
    let args = [
        "--name=x",
        "--filename=/dev/full",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--ioengine=psync",
    ];
    for (release, place) in [("3.33", "io_u.c:1876"), ("3.42", "io_u.c:2018")] {
        let out = rfio_as(&dir, release, &args);
        assert_eq!(out.status.code(), Some(1), "{release}");
        let what = format!("file:{place}, func=io_u error, error=No space left on device");
        assert!(
            stderr(&out).contains(
                "fio: io_u error on file /dev/full: No space left on device: \
                 write offset=0, buflen=4096\n"
            ),
            "{release}: {}",
            stderr(&out)
        );
        assert_eq!(
            error_lines(&out),
            (
                format!(", err=28/{what}"),
                format!("x: (groupid=0, jobs=1): err=28 ({what})"),
                "issued rwts: total=0,1,0,0 short=0,0,0,0 dropped=0,0,0,0".to_string()
            ),
            "{release}"
        );
    }
}

/// libaio cannot submit to /dev/full (io_submit: EINVAL): fio's
/// `td_io_commit` fails the job with `io commit`, at `ioengines.c:496` in
/// 3.33 and `ioengines.c:516` in 3.42, and prints nothing else; the write
/// was issued (queued) but never submitted.
#[test]
fn a_failed_commit_names_the_releases_place() {
    assert!(
        Path::new("/dev/full").exists(),
        "Linux's /dev/full is needed"
    );
    if !require_engine("libaio", 1) {
        return;
    }
    let dir = TempDir::new("places-commit");
    let args = [
        "--name=x",
        "--filename=/dev/full",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--ioengine=libaio",
    ];
    for (release, place) in [("3.33", "ioengines.c:496"), ("3.42", "ioengines.c:516")] {
        let out = rfio_as(&dir, release, &args);
        assert_eq!(out.status.code(), Some(1), "{release}");
        let what = format!("file:{place}, func=io commit, error=Invalid argument");
        assert!(!stderr(&out).contains("io_submit"), "{}", stderr(&out));
        assert_eq!(
            error_lines(&out),
            (
                format!(", err=22/{what}"),
                format!("x: (groupid=0, jobs=1): err=22 ({what})"),
                "issued rwts: total=0,1,0,0 short=0,0,0,0 dropped=0,0,0,0".to_string()
            ),
            "{release}"
        );
        let text = stdout(&out);
        for line in [
            "  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%\n",
            "     submit    : 0=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n",
        ] {
            assert!(text.contains(line), "{release}: {text}");
        }
    }
}

/// The committed table is what `scripts/fio-places.py` makes of fio's
/// tags, where fio's history is at hand (`FIO_GIT`, else the mirror).
#[test]
fn the_place_table_is_the_scripts() {
    let git = std::env::var("FIO_GIT").unwrap_or_else(|_| "/work/.mirror/axboe+fio/repo".into());
    if !Path::new(&git).exists() {
        eprintln!("fio's history is not at {git}: the table is not checked");
        return;
    }
    let out = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/fio-places.py"
        ))
        .arg("--check")
        .env("FIO_GIT", &git)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
