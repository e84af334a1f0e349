//! Signals never lose the report: GNU `timeout` sends its signal twice (to
//! the child, then to the process group it made), and a second SIGINT or
//! SIGTERM must not end rfio before the results so far are out. fio 3.33
//! run the same way (`timeout -s INT 1 fio --time_based --runtime=5 ...`)
//! printed `fio: terminating on signal 2` and a complete report every
//! time, exit status 124 from `timeout`.
//!
//! Where the message goes: fio 3.33 writes it where the results go, before
//! them (stdout, or the `--output` file: `fio --output=x.json
//! --output-format=json` then SIGINT leaves `\nfio: terminating on signal
//! 2\n{...` in x.json, nothing on stderr), and rfio read as fio does the
//! same. Called as `rfio` it goes to stderr, and every output stays valid.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use crate::common;

const RFIO: &str = env!("CARGO_BIN_EXE_rfio");

/// Fields of a terse version 3 line for a job without disk statistics.
const TERSE_FIELDS: usize = 121;

fn job(format: &str) -> Vec<String> {
    [
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--runtime=5",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--output-format={format}")])
    .collect()
}

/// Whether coreutils `timeout` is here (else the test fails, unless
/// `RFIO_TEST_NO_TIMEOUT=1`).
fn have_timeout() -> bool {
    let missing = match Command::new("timeout").arg("--version").output() {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!("timeout --version: {}", o.status)),
        Err(e) => Some(format!("timeout --version: {e}")),
    };
    common::require("timeout", missing)
}

/// As `rfio`: stdout holds the report alone, stderr the message once.
fn check_report(format: &str, stdout: &str, stderr: &str) {
    assert_eq!(
        stderr.matches("\nfio: terminating on signal 2\n").count(),
        1,
        "the message on stderr: {stderr:?}"
    );
    let rest = stdout;
    match format {
        "terse" => {
            let line = rest.strip_suffix('\n').expect("one terse line");
            assert!(!line.contains('\n'), "{rest:?}");
            assert_eq!(line.split(';').count(), TERSE_FIELDS, "{line:?}");
            assert!(line.starts_with("3;fio-3.33;t;0;0;"), "{line:?}");
        }
        _ => {
            let v: serde_json::Value =
                serde_json::from_str(rest).unwrap_or_else(|e| panic!("{e}: {rest:?}"));
            assert_eq!(v["jobs"][0]["jobname"], "t");
            assert!(v["jobs"][0]["read"]["io_bytes"].as_u64().unwrap() > 0);
        }
    }
}

/// `timeout -s INT 2 rfio <5 s job>`, ten runs at once: each prints the
/// message and a complete report (it used to die of the second signal,
/// with nothing on stdout, in about one run in four). Two seconds rather
/// than one leave a loaded machine time to start rfio.
#[test]
fn timeout_twice_signalled_keeps_the_report() {
    if !have_timeout() {
        return;
    }
    let runs: Vec<_> = (0..10)
        .map(|i| {
            let format = if i % 2 == 0 { "terse" } else { "json" };
            // As the fio 3.33 whose runs the checks describe (its terse
            // line names that release).
            let child = Command::new("timeout")
                .args(["-s", "INT", "2", RFIO])
                .args(job(format))
                .env("RFIO_FIO_VERSION", "3.33")
                .current_dir(std::env::temp_dir())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("timeout starts");
            (format, child)
        })
        .collect();
    for (format, child) in runs {
        let out = child.wait_with_output().expect("timeout ends");
        assert_eq!(
            out.status.code(),
            Some(124),
            "timeout's status for a timed-out command: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        check_report(
            format,
            &String::from_utf8_lossy(&out.stdout),
            &String::from_utf8_lossy(&out.stderr),
        );
    }
}

/// SIGINT and SIGTERM back to back once the job has started (its first
/// `--status-interval` report is out): both are delivered (two of one
/// kind may merge while pending), one of them is reported (once), the full
/// normal report follows, status 128. The second used to end rfio at once
/// with nothing after the message. Read as fio, so the message is among
/// the results, where fio puts it.
#[test]
fn two_signals_back_to_back_keep_the_report() {
    let mut child = Command::new(RFIO)
        .args(job("normal"))
        .arg("--compat=fio")
        .arg("--status-interval=1")
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rfio starts");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    while !first.contains("Run status group 0 (all jobs):\n   READ: bw=") {
        let n = stdout.read_line(&mut first).expect("read stdout");
        assert!(n > 0, "rfio ended early: {first:?}");
    }
    let mut text = String::new();
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: kill has no memory preconditions; the pid is our child's.
        let rc = unsafe { libc::kill(child.id() as libc::pid_t, sig) };
        assert_eq!(rc, 0);
    }
    stdout.read_to_string(&mut text).expect("read stdout");
    let status = child.wait().expect("rfio ends");
    let run_ms: u64 = text
        .split("run=")
        .nth(1)
        .and_then(|r| r.split("-").next())
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("a run= field: {text}"));
    assert!(run_ms < 5000, "the signal stopped the 5 s job: {text}");
    assert_eq!(status.code(), Some(128), "{text}");
    assert_eq!(
        text.matches("fio: terminating on signal").count(),
        1,
        "{text}"
    );
    let after = ["2", "15"]
        .iter()
        .find_map(|n| text.strip_prefix(&format!("\nfio: terminating on signal {n}\n")))
        .unwrap_or_else(|| panic!("the message first: {text}"));
    assert!(after.starts_with("\nt: (groupid=0, jobs=1)"), "{text}");
    assert!(
        text.contains("Run status group 0 (all jobs):\n   READ: bw="),
        "{text}"
    );
}

/// rfio with its stdout on a pipe whose read end is already closed.
fn run_into_closed_pipe(args: &[&str]) -> (std::process::ExitStatus, std::time::Duration) {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just made by pipe(2) and are owned here.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    let start = std::time::Instant::now();
    let status = Command::new(RFIO)
        .args(args)
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::from(write))
        .stderr(Stdio::null())
        .status()
        .expect("rfio runs");
    (status, start.elapsed())
}

/// fio dies of SIGPIPE on its first write to a pipe nobody reads (status
/// 141 in a shell); rfio too, and it notices the reader is gone while the
/// jobs run (JSON writes nothing before the end) and stops them at once
/// instead of running the 30 s job to its end (it used to, then exit 0).
#[test]
fn closed_stdout_stops_the_jobs_and_dies_of_sigpipe() {
    use std::os::unix::process::ExitStatusExt;
    for format in ["json", "terse", "normal"] {
        let (status, took) = run_into_closed_pipe(&[
            "--name=t",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=30",
            &format!("--output-format={format}"),
        ]);
        assert_eq!(status.signal(), Some(libc::SIGPIPE), "{format}: {status:?}");
        assert!(
            took < std::time::Duration::from_secs(20),
            "{format}: stopped long before the 30 s runtime, took {took:?}"
        );
    }
}

/// A time_based null job (30 s, only the signal ends it) with its NDJSON
/// status lines in `status.ndjson`, started in `dir`: the first line there
/// says the handlers are in place and the job runs.
fn start_json_run(dir: &common::TempDir, extra: &[&str]) -> common::Running {
    let mut cmd = Command::new(RFIO);
    cmd.current_dir(&dir.0)
        .args([
            "--name=x",
            "--ioengine=null",
            "--size=1g",
            "--time_based",
            "--runtime=30",
            "--output-format=json",
            "--status-interval=1",
            "--status-format=ndjson",
            "--status-output=status.ndjson",
        ])
        .args(extra);
    let run = common::Running::start(&mut cmd);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !std::fs::read_to_string(dir.file("status.ndjson"))
        .is_ok_and(|t| t.contains("\"type\":\"status\""))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no status line within 30 s: stdout {:?}",
            run.stdout_so_far()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    run
}

/// SIGINT to `run`; its output once it has stopped (status 128).
fn interrupt(run: common::Running) -> std::process::Output {
    run.signal(libc::SIGINT);
    let out = run.finish(std::time::Duration::from_secs(20), "SIGINT");
    assert_eq!(out.status.code(), Some(128), "{}", common::stderr(&out));
    out
}

fn check_json(text: &str) {
    let v: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text:?}"));
    assert_eq!(v["jobs"][0]["jobname"], "x", "{text}");
    assert!(v["jobs"][0]["read"]["io_bytes"].as_u64().unwrap() > 0);
}

/// Called as `rfio`, `--output=x.json --output-format=json` and a SIGINT:
/// x.json is one JSON document (fio's would start with the message), the
/// message is on stderr, stdout is empty.
#[test]
fn as_rfio_a_signal_leaves_the_output_file_valid_json() {
    let dir = common::TempDir::new("sig-json-file");
    let out = interrupt(start_json_run(&dir, &["--output=x.json"]));
    let text = std::fs::read_to_string(dir.file("x.json")).expect("x.json");
    check_json(&text);
    assert_eq!(common::stderr(&out), "\nfio: terminating on signal 2\n");
    assert_eq!(common::stdout(&out), "");
}

/// Called as `rfio`, JSON on stdout and a SIGINT: stdout is one JSON
/// document (`| jq .` reads it), the message on stderr.
#[test]
fn as_rfio_a_signal_leaves_stdout_valid_json() {
    let dir = common::TempDir::new("sig-json-stdout");
    let out = interrupt(start_json_run(&dir, &[]));
    check_json(&common::stdout(&out));
    assert_eq!(common::stderr(&out), "\nfio: terminating on signal 2\n");
}

/// Read as fio (`--compat=fio`), the message goes where fio 3.33 puts it:
/// on stdout before the JSON document, nothing on stderr; with `--output`,
/// into the file before the document, nothing on stdout or stderr.
#[test]
fn as_fio_the_message_goes_with_the_results() {
    let dir = common::TempDir::new("sig-json-fio");
    let out = interrupt(start_json_run(&dir, &["--compat=fio"]));
    let text = common::stdout(&out);
    let doc = text
        .strip_prefix("\nfio: terminating on signal 2\n")
        .unwrap_or_else(|| panic!("the message first: {text:?}"));
    check_json(doc);
    assert_eq!(common::stderr(&out), "");

    let dir = common::TempDir::new("sig-json-fio-file");
    let out = interrupt(start_json_run(&dir, &["--compat=fio", "--output=x.json"]));
    let text = std::fs::read_to_string(dir.file("x.json")).expect("x.json");
    let doc = text
        .strip_prefix("\nfio: terminating on signal 2\n")
        .unwrap_or_else(|| panic!("the message first: {text:?}"));
    check_json(doc);
    assert_eq!(common::stdout(&out), "");
    assert_eq!(common::stderr(&out), "");
}
