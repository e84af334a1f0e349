//! The live status line and signals, through the `rfio` binary, against
//! what fio 3.33 does (each expectation below was seen from real fio run
//! the same way):
//!
//! - on a terminal (a pseudo-terminal from util-linux `script`), a line
//!   `Jobs: 1 (f=1), 0B/s-10.0MiB/s: [R(1)][37.5%][r=10.0MiB/s][r=2560
//!   IOPS][eta 00m:05s]` redrawn with `\r`, the percent and ETA moving on;
//! - nothing of it when stdout is not a terminal, with `--eta=never`, or
//!   with JSON on stdout; with `--output` it stays on the terminal and
//!   out of the file;
//! - SIGINT/SIGTERM stop the jobs, `fio: terminating on signal N` is
//!   printed where the results go when read as fio (on stderr as rfio:
//!   tests/it/signals.rs), the results follow, exit status 128;
//!   a second signal changes nothing: the report still comes out whole.

use crate::common;

use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{output_within, Running, TempDir, RFIO, RUN_LIMIT};

/// util-linux `script`, to give rfio a terminal: the terminal tests fail
/// (never skip) without it.
fn need_script() {
    let ok = Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "`script` is needed to run rfio on a terminal: apt-get install -y bsdutils"
    );
}

/// Run rfio with `args` on a pseudo-terminal; what the terminal showed.
fn on_terminal(args: &[&str]) -> String {
    let mut cmd = format!("'{RFIO}'");
    for a in args {
        cmd.push_str(&format!(" '{a}'"));
    }
    let (out, timed_out) = output_within(
        Command::new("script").args(["-qc", &cmd, "/dev/null"]),
        RUN_LIMIT,
    );
    assert!(!timed_out && out.status.success(), "{cmd}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The status lines among `screen` (each drawn over the last with `\r`).
fn status_lines(screen: &str) -> Vec<&str> {
    screen
        .split(['\r', '\n'])
        .filter(|l| l.starts_with("Jobs: "))
        .collect()
}

/// A file name under the temp dir, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str) -> TempFile {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        TempFile(
            std::env::temp_dir().join(format!("rfio-eta-{tag}-{}-{nanos}", std::process::id())),
        )
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temp dir")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A status line with the bracketed part, read: (percent, eta seconds).
/// The rates part is left out when nothing moved since the last line.
fn parse_full_line(line: &str, prefix: &str) -> Option<(String, u64)> {
    let rest = line.trim_end().strip_prefix(prefix)?;
    let (perc, rest) = rest.split_once("%]")?;
    let eta = match rest.strip_prefix("[r=") {
        Some(rates) => {
            let (bw, rest) = rates.split_once("][r=")?;
            let (iops, eta) = rest.split_once(" IOPS]")?;
            let bw_ok = bw.ends_with("iB/s") && bw.starts_with(|c: char| c.is_ascii_digit());
            let iops_ok = iops
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == 'k');
            if !(bw_ok && iops_ok) {
                return None;
            }
            eta
        }
        None => rest,
    };
    let eta = eta.strip_prefix("[eta ")?.strip_suffix("s]")?;
    let (m, s) = eta.split_once("m:")?;
    let perc_ok = perc == "-.-"
        || perc.split_once('.').is_some_and(|(a, b)| {
            a.trim_start().chars().all(|c| c.is_ascii_digit()) && b.len() == 1
        });
    if !(perc_ok && m.len() == 2 && s.len() == 2) {
        return None;
    }
    Some((
        perc.to_string(),
        m.parse::<u64>().ok()? * 60 + s.parse::<u64>().ok()?,
    ))
}

/// A rate-limited sequential read of 80 MiB at 10 MiB/s for 2.8 s, lines
/// every 250 ms: before the third second `Jobs: 1 (f=1), 0B/s-10.0MiB/s`
/// alone; then with `[R(1)][<pct>%][r=…][r=… IOPS][eta …]`, the ETA
/// counting down (about 7, 6, 5 s) and the percent, elapsed / (elapsed +
/// eta), going up, exactly as fio 3.33 prints for the same job.
#[test]
fn the_status_line_counts_down_on_a_terminal() {
    need_script();
    let screen = on_terminal(&[
        "--name=x",
        "--ioengine=null",
        "--size=80m",
        "--rate=10m",
        "--runtime=2800ms",
        "--eta-interval=250ms",
    ]);
    let lines = status_lines(&screen);
    let short = "Jobs: 1 (f=1), 0B/s-10.0MiB/s";
    assert!(
        lines.iter().filter(|l| l.trim_end() == short).count() >= 4,
        "{screen:?}"
    );
    let prefix = "Jobs: 1 (f=1), 0B/s-10.0MiB/s: [R(1)][";
    let full: Vec<(String, u64)> = lines
        .iter()
        .filter(|l| l.starts_with(prefix))
        .map(|l| parse_full_line(l, prefix).unwrap_or_else(|| panic!("fio's shape: {l:?}")))
        .collect();
    assert!(full.len() >= 2, "{screen:?}");
    for (perc, eta) in &full {
        if perc == "-.-" {
            // fio's line once the ETA ran out (seen on a loaded machine,
            // where a line comes after the runtime).
            assert_eq!(*eta, 0, "{screen:?}");
            continue;
        }
        // Elapsed is 3 s: more on a loaded machine, where the lines come late.
        let fits = (3u64..=10).any(|el| {
            let p = format!("{:.1}", el as f64 * 100.0 / (el + eta) as f64);
            p == perc.trim_start()
        });
        assert!(fits, "percent {perc} against eta {eta}: {screen:?}");
    }
    for pair in full.windows(2) {
        assert!(pair[1].1 <= pair[0].1, "eta goes down: {full:?}");
    }
    assert!(full.last().unwrap().1 < full[0].1, "eta moves: {full:?}");
    // Lines are redrawn, never ended, and the results start on a new line.
    assert!(!screen.contains("Jobs: 1 (f=1)\r\n"), "{screen:?}");
    assert!(
        screen.contains("\r\r\nx: (groupid=0, jobs=1)"),
        "{screen:?}"
    );
}

/// 1.1 s of reads at 2000 IOPS (rate-limited: the tests running beside it
/// keep their CPU), a status line every 250 ms.
const SHORT_RUN: [&str; 7] = [
    "--name=x",
    "--ioengine=null",
    "--size=1g",
    "--time_based",
    "--runtime=1100ms",
    "--rate_iops=2000",
    "--eta-interval=250ms",
];

#[test]
fn nothing_of_it_reaches_a_redirected_stdout() {
    let out = common::run_in(RFIO, std::env::temp_dir(), &SHORT_RUN);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("Jobs:") && !text.contains('\r'), "{text:?}");
    assert!(text.contains("Run status group 0 (all jobs):"), "{text:?}");
}

#[test]
fn eta_always_prints_to_a_redirected_stdout() {
    let mut args = SHORT_RUN.to_vec();
    args.push("--eta=always");
    let out = common::run_in(RFIO, std::env::temp_dir(), &args);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = "Jobs: 1 (f=1), 0-2000 IOPS\r";
    assert!(
        text.contains(&format!("Starting 1 process\n{line}")),
        "{text:?}"
    );
    assert!(text.contains(&format!("{line}\nx: (groupid=0")), "{text:?}");
}

#[test]
fn with_output_the_line_stays_on_the_terminal() {
    need_script();
    let file = TempFile::new("output");
    let output = format!("--output={}", file.path());
    let mut args = SHORT_RUN.to_vec();
    args.push(&output);
    let screen = on_terminal(&args);
    assert!(!status_lines(&screen).is_empty(), "{screen:?}");
    assert!(!screen.contains("Run status"), "{screen:?}");
    let text = std::fs::read_to_string(&file.0).expect("the output file");
    assert!(!text.contains("Jobs:") && !text.contains('\r'), "{text:?}");
    assert!(text.contains("Run status group 0 (all jobs):"), "{text:?}");
}

#[test]
fn eta_never_and_json_on_stdout_print_no_line() {
    need_script();
    let runs: Vec<_> = ["--eta=never", "--output-format=json"]
        .into_iter()
        .map(|flag| {
            std::thread::spawn(move || {
                let mut args = SHORT_RUN.to_vec();
                args.push(flag);
                (flag, on_terminal(&args))
            })
        })
        .collect();
    for r in runs {
        let (flag, screen) = r.join().unwrap();
        assert!(status_lines(&screen).is_empty(), "{flag}: {screen:?}");
    }
}

/// The runtime of [`start_long`]'s job: a signal must stop it long before.
const LONG_RUNTIME: Duration = Duration::from_secs(30);

/// Start rfio on a 30 s time-based job (writes at 2000 IOPS over a
/// zeroed 1 MiB file in `dir`, so nothing is laid out) with stdout and
/// stderr piped, and wait until the job does I/O: its first block holds
/// written data (signalled before that, rfio ends the run before the job
/// has anything to report).
fn start_long(dir: &TempDir, extra: &[&str]) -> Running {
    std::fs::write(dir.file("f"), vec![0u8; 1 << 20]).unwrap();
    let child = Running::start(
        Command::new(RFIO)
            .args([
                "--name=x",
                "--ioengine=psync",
                "--rw=write",
                "--size=1m",
                "--time_based",
                "--runtime=30",
                "--rate_iops=2000",
                &dir.arg("f"),
            ])
            .args(extra),
    );
    let deadline = Instant::now() + RUN_LIMIT;
    let written = || std::fs::read(dir.file("f")).is_ok_and(|b| b[..4096].iter().any(|&x| x != 0));
    while !written() {
        assert!(Instant::now() < deadline, "the job never wrote");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

/// The `run=` milliseconds of a normal report's group line.
fn run_ms(text: &str) -> u64 {
    text.split("run=")
        .nth(1)
        .and_then(|r| r.split('-').next())
        .and_then(|ms| ms.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("a run= field: {text:?}"))
}

#[test]
fn sigint_stops_the_jobs_and_prints_the_results_so_far() {
    let dir = TempDir::new("eta-sigint");
    // Read as fio: the message on stdout, where fio 3.33 puts it.
    let mut child = start_long(&dir, &["--compat=fio"]);
    // rfio's handlers are in place before it prints `Starting`.
    child.wait_for_stdout("Starting", RUN_LIMIT, |s| {
        s.contains("Starting 1 process\n")
    });
    child.signal(libc::SIGINT);
    let out = child.finish(LONG_RUNTIME, "SIGINT, before the job's 30 s runtime");
    assert_eq!(out.status.code(), Some(128), "fio exits 128 on a signal");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "Starting 1 process\n\nfio: terminating on signal 2\n\nx: (groupid=0, jobs=1)"
        ),
        "{text:?}"
    );
    assert!(text.contains("Run status group 0 (all jobs):"), "{text:?}");
    let run = run_ms(&text);
    assert!(
        u128::from(run) < LONG_RUNTIME.as_millis() / 2,
        "stopped early: run={run}ms"
    );
    assert!(
        out.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn sigterm_with_output_puts_the_message_in_the_file() {
    let file = TempFile::new("sigterm");
    let output = format!("--output={}", file.path());
    let dir = TempDir::new("eta-sigterm");
    // Read as fio: the message in the file, as fio 3.33 writes it.
    let child = start_long(&dir, &[&output, "--compat=fio"]);
    // `Starting` goes to the file; the handlers are in place before it.
    let deadline = Instant::now() + RUN_LIMIT;
    while !std::fs::read_to_string(&file.0).is_ok_and(|t| t.contains("Starting 1 process\n")) {
        assert!(
            Instant::now() < deadline,
            "no `Starting` in the output file"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.signal(libc::SIGTERM);
    let out = child.finish(LONG_RUNTIME, "SIGTERM, before the job's 30 s runtime");
    assert_eq!(out.status.code(), Some(128));
    assert!(
        out.stdout.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = std::fs::read_to_string(&file.0).expect("the output file");
    assert!(
        text.contains("\n\nfio: terminating on signal 15\n\nx: (groupid=0"),
        "{text:?}"
    );
    assert!(text.contains("Run status group 0 (all jobs):"), "{text:?}");
    let run = run_ms(&text);
    assert!(
        u128::from(run) < LONG_RUNTIME.as_millis() / 2,
        "stopped early: run={run}ms"
    );
}

/// Bytes waiting in the pipe `fd` reads from.
fn pipe_fill(fd: &impl AsRawFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int through the pointer, which points at `n`; the fd is
    // the open read end of the child's stdout pipe.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) };
    assert_eq!(rc, 0, "FIONREAD");
    usize::try_from(n).unwrap_or(0)
}

/// rfio blocked writing results nobody reads: neither the first SIGINT nor
/// a second one ends it; once the reader drains the pipe, the whole report
/// is there and the status is 128 (fio's handler sets it too).
#[test]
fn a_second_sigint_does_not_lose_the_report() {
    let mut child = Command::new(RFIO)
        .args(["--name=x", "--ioengine=null", "--size=4k", "--numjobs=100"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("rfio starts");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let signal = |sig| {
        // SAFETY: kill(2) takes no pointers; the pid is our child's, not yet reaped.
        assert_eq!(unsafe { libc::kill(pid, sig) }, 0);
    };
    // 100 job blocks are well over a pipe's 64 KiB: once the pipe is full
    // (its pages never quite are: 63952 bytes seen), rfio, its handlers long
    // in place, waits in write(2).
    let mut stdout = child.stdout.take().unwrap();
    let deadline = Instant::now() + RUN_LIMIT;
    while pipe_fill(&stdout) < 60_000 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "exited with results unread"
        );
        assert!(Instant::now() < deadline, "the pipe never filled");
        std::thread::sleep(Duration::from_millis(5));
    }
    signal(libc::SIGINT);
    std::thread::sleep(Duration::from_millis(200));
    signal(libc::SIGINT);
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        child.try_wait().unwrap().is_none(),
        "still blocked on the full pipe"
    );
    let mut drained = String::new();
    stdout.read_to_string(&mut drained).expect("read stdout");
    let status = child.wait().expect("rfio ends");
    assert_eq!(status.code(), Some(128));
    assert_eq!(drained.matches("x: (groupid=0, jobs=1)").count(), 100);
    assert!(
        drained.contains("Run status group 0 (all jobs):\n   READ: bw="),
        "{drained}"
    );
}
