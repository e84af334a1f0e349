//! Reading a job file costs time and memory in proportion to its size:
//! 100,000 `[global]` sections, job sections, options in one section or
//! `include` lines each parse with `--parse-only` in about a second (fio
//! 3.33 takes 0.2 to 0.7 s and 30 to 45 MB on these files). The bounds
//! here hold for a debug build on a loaded machine and still catch a
//! quadratic cost (the old code needed 20 GB for the globals, and tens of
//! seconds for the others). Also: include chains deeper than the old limit
//! of 32, and real cycles.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::{rfio, stderr, stdout, TempDir, RFIO};

const N: usize = 100_000;
/// Generous for a debug build on two busy cores: these take 1 to 3 s there
/// alone, up to 7 s with the others at once (the old code took 18 to 23 s
/// for options and includes in a release build).
const TIME_LIMIT: Duration = Duration::from_secs(30);
/// Peak resident memory allowed. Measured alone (`/usr/bin/time -f %M`), a
/// debug build needs 53 MiB for 100,000 job sections, a release build 49;
/// the old code needed gigabytes for the globals and refused the jobs. What
/// `wait4` reports here also holds the high-water mark `sh` inherits from
/// this test process (see main.rs), which reads about 84 MiB since this
/// binary grew: the bound leaves room above that floor and still catches a
/// cost that is not linear.
const RSS_LIMIT_KB: i64 = 112 * 1024;

/// What one run of rfio cost.
struct Cost {
    code: i32,
    wall: Duration,
    max_rss_kb: i64,
    stderr: String,
}

/// Run `rfio ARGS` in `dir` with its address space capped (so that a
/// regression fails instead of exhausting the machine's memory), killed at
/// twice the time limit; its exit status, wall time and peak RSS.
#[allow(clippy::zombie_processes)] // reaped by wait4, for its rusage
fn cost(dir: &TempDir, args: &[&str]) -> Cost {
    let err_path = dir.file("stderr.txt");
    let mut child = Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg("ulimit -v 4194304; exec \"$0\" \"$@\"")
        .arg(RFIO)
        .args(args)
        .stdout(Stdio::null())
        .stderr(File::create(&err_path).unwrap())
        .spawn()
        .expect("rfio starts");
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our child, not yet reaped (std never waits for it
        // here); `status` and `usage` are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4: {}", std::io::Error::last_os_error());
        if r == pid {
            break;
        }
        if start.elapsed() > 2 * TIME_LIMIT {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let wall = start.elapsed();
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    Cost {
        code,
        wall,
        max_rss_kb: usage.ru_maxrss,
        stderr: std::fs::read_to_string(&err_path).unwrap(),
    }
}

/// `--parse-only` of `text` succeeds within the time and memory bounds.
fn parses_in_bounds(tag: &str, text: &str, extra: &[(&str, &str)]) {
    let dir = TempDir::new(tag);
    dir.write("job.fio", text);
    for (name, body) in extra {
        dir.write(name, body);
    }
    let c = cost(&dir, &["--parse-only", "job.fio"]);
    eprintln!(
        "{tag}: exit {} in {:?}, peak RSS {} KiB",
        c.code, c.wall, c.max_rss_kb
    );
    assert_eq!(c.code, 0, "{tag}: {}", c.stderr);
    assert_eq!(c.stderr, "", "{tag}");
    assert!(c.wall < TIME_LIMIT, "{tag}: took {:?}", c.wall);
    assert!(
        c.max_rss_kb < RSS_LIMIT_KB,
        "{tag}: peak RSS {} KiB",
        c.max_rss_kb
    );
}

#[test]
fn many_global_sections() {
    let mut text = "[global]\nbs=4k\n".repeat(N);
    text.push_str("[job]\nioengine=null\nsize=1m\n");
    parses_in_bounds("scale-globals", &text, &[]);
}

/// A real run of the same file, reported in JSON: its `global options`
/// list is built once per setting (it was a linear search per setting:
/// 18 s for 100,000 globals, fio 0.8 s).
#[test]
fn many_global_sections_run_and_report() {
    let mut text = "[global]\nbs=4k\n".repeat(N);
    text.push_str("[job]\nioengine=null\nsize=1m\n");
    let dir = TempDir::new("scale-globals-json");
    dir.write("job.fio", &text);
    let c = cost(&dir, &["--output-format=json", "job.fio"]);
    eprintln!(
        "exit {} in {:?}, peak RSS {} KiB",
        c.code, c.wall, c.max_rss_kb
    );
    assert_eq!(c.code, 0, "{}", c.stderr);
    assert!(c.wall < TIME_LIMIT, "took {:?}", c.wall);
    assert!(c.max_rss_kb < RSS_LIMIT_KB, "peak RSS {} KiB", c.max_rss_kb);
}

#[test]
fn many_job_sections() {
    let mut text = String::from("[global]\nioengine=null\nsize=1m\n");
    for i in 0..N {
        text.push_str(&format!("[j{i}]\nbs=4k\n"));
    }
    parses_in_bounds("scale-jobs", &text, &[]);
}

#[test]
fn many_options_in_one_section() {
    let mut text = String::from("[job]\nioengine=null\nsize=1m\n");
    text.push_str(&"bs=4k\n".repeat(N));
    parses_in_bounds("scale-options", &text, &[]);
}

#[test]
fn many_include_lines() {
    let mut text = String::from("[job]\nioengine=null\nsize=1m\n");
    text.push_str(&"include one.inc\n".repeat(N));
    parses_in_bounds("scale-includes", &text, &[("one.inc", "bs=4k\n")]);
}

/// The jobs after many globals still get the last value of each option,
/// and `--showcmd` still prints every global option in force again for
/// each global section (as fio: checked against fio 3.33's output).
#[test]
fn globals_keep_their_meaning() {
    let dir = TempDir::new("scale-meaning");
    dir.write(
        "job.fio",
        "[global]\nbs=4k\n[global]\niodepth=2\n[job]\nsize=1m\n[global]\nrw=write\n[job2]\nsize=2m\n",
    );
    let o = rfio(&dir, &["--showcmd", "job.fio"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "fio --bs=4k --bs=4k --iodepth=2 --name=job --size=1m --bs=4k --iodepth=2 --rw=write --name=job2 --size=2m \n"
    );
    let mut text = String::new();
    for i in 1..=1000 {
        text.push_str(&format!("[global]\niodepth={i}\n"));
    }
    text.push_str("[job]\nioengine=null\nsize=64k\nbs=4k\n");
    let plan = {
        let file =
            rfio::api::parse_bytes(Path::new("job.fio").into(), text.as_bytes()).expect("parses");
        let fe = rfio::api::build_plan(
            &common::args(&["job.fio"]),
            &[file],
            &rfio::api::Keywords::from_system(),
        );
        assert!(fe.diags.is_empty(), "{}", fe.diags);
        fe.plan
    };
    assert_eq!(plan.jobs.len(), 1);
    assert_eq!(plan.jobs[0].iodepth, 1000);
    assert_eq!(plan.jobs[0].options.settings.len(), 1003);
}

/// Write a chain of `depth` include files, `c0.inc` → `c1.inc` → …, the
/// last one setting `bs=8k`, and `job.fio` including the first.
fn include_chain(tag: &str, depth: usize) -> TempDir {
    let dir = TempDir::new(tag);
    for i in 0..depth {
        let body = if i + 1 < depth {
            format!("include c{}.inc\n", i + 1)
        } else {
            "bs=8k\n".to_string()
        };
        dir.write(&format!("c{i}.inc"), &body);
    }
    dir.write(
        "job.fio",
        "[job]\nioengine=null\nsize=64k\ninclude c0.inc\n",
    );
    dir
}

/// fio 3.33 reads a 100-deep chain (and a 2000-deep one); rfio used to call
/// anything past 32 a cycle.
#[test]
fn a_deep_include_chain_is_no_cycle() {
    let dir = include_chain("scale-chain", 100);
    let o = rfio(&dir, &["--showcmd", "job.fio"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "fio --name=job --ioengine=null --size=64k --bs=8k \n"
    );
}

/// Past 1000 files deep rfio stops, and says so (not "cycle").
#[test]
fn include_nesting_has_a_limit() {
    let dir = include_chain("scale-chain-limit", 1002);
    let o = rfio(&dir, &["--parse-only", "job.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: c999.inc:1:1: cannot include 'c1000.inc': includes nest more than 1000 files deep\n"
    );
}

/// A real cycle, however long, is still refused as a cycle (fio recurses
/// until it runs out of file descriptors, then carries on with exit 0).
#[test]
fn a_long_cycle_is_refused() {
    let dir = include_chain("scale-cycle", 50);
    dir.write("c49.inc", "bs=8k\ninclude c0.inc\n");
    let o = rfio(&dir, &["--parse-only", "job.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: c49.inc:2:1: include cycle: 'c0.inc' is already being read (it includes itself, \
         directly or through other files); fio follows it until it runs out of file descriptors, \
         then fails the job; remove the include, or run with --compat=fio to read it as fio does\n"
    );
}

/// Under `--parse-only` 100,000 jobs are no error (fio accepts them there);
/// a run of more than 65,536 still is.
#[test]
fn the_job_limit_is_for_runs_only() {
    let dir = TempDir::new("scale-limit");
    dir.write("job.fio", "[job]\nioengine=null\nsize=4k\nnumjobs=70000\n");
    let o = rfio(&dir, &["--parse-only", "job.fio"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = rfio(&dir, &["job.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: job.fio:1:1: job 'job': numjobs=70000 makes more than 65536 jobs, one thread each\n"
    );
}

/// A file included many times is read once, but a pipe is read each time
/// (what it gave the first time is gone: fio 3.33 crashes on this file).
#[test]
fn a_pipe_included_twice_is_read_twice() {
    use std::io::Write;
    let dir = TempDir::new("scale-pipe");
    dir.write(
        "job.fio",
        "[job]\nioengine=null\nsize=64k\ninclude /dev/stdin\ninclude /dev/stdin\ninclude one.inc\ninclude one.inc\n",
    );
    dir.write("one.inc", "iodepth=2\n");
    let mut child = Command::new(RFIO)
        .current_dir(&dir)
        .args(["--showcmd", "job.fio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rfio starts");
    child.stdin.take().unwrap().write_all(b"bs=8k\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "fio --name=job --ioengine=null --size=64k --bs=8k --iodepth=2 --iodepth=2 \n"
    );
}
