//! Runs with many jobs: memory per job, every time-based job getting its
//! runtime, fio's limit on the number of jobs, and `time_based` without a
//! runtime (which fio runs once through its size instead of forever).

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::{fio, run_in, stderr, stdout, TempDir, RFIO};

/// How a child run ended: exit status, its peak resident memory, and its
/// stdout and stderr.
pub(crate) struct Finished {
    pub(crate) status: i32,
    pub(crate) max_rss_kib: u64,
    pub(crate) out: String,
    pub(crate) err: String,
}

/// Run `bin` with `args` in `dir` and measure the peak RSS of that child
/// alone (`wait4`: the other tests' children do not count). A run still
/// going after `limit` is killed and the test fails.
pub(crate) fn run_measured(bin: &str, dir: &Path, args: &[&str], limit: Duration) -> Finished {
    run_measured_into(bin, dir, args, limit, &dir.join("stdout"))
}

/// [`run_measured`] with stdout written to `out_path` (`/dev/null`: none
/// kept).
pub(crate) fn run_measured_into(
    bin: &str,
    dir: &Path,
    args: &[&str],
    limit: Duration,
    out_path: &Path,
) -> Finished {
    let err_path = dir.join("stderr");
    let child = Command::new(bin)
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(File::create(out_path).unwrap())
        .stderr(File::create(&err_path).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("{bin} runs: {e}"));
    let pid = child.id() as libc::pid_t;
    let end = Instant::now() + limit;
    let (status, rusage) = loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value to be overwritten.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our child, not yet waited for (std's `Child`
        // is never waited on here); both pointers are valid for the call.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        assert!(r >= 0, "wait4: {}", std::io::Error::last_os_error());
        if r == pid {
            break (status, ru);
        }
        if Instant::now() > end {
            // SAFETY: `pid` is our child and has not been reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            // SAFETY: as above; reaps the killed child.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            panic!("{bin} {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(child);
    assert!(libc::WIFEXITED(status), "{bin} died: status {status:#x}");
    Finished {
        status: libc::WEXITSTATUS(status),
        // Linux reports ru_maxrss in KiB.
        max_rss_kib: rusage.ru_maxrss as u64,
        out: std::fs::read_to_string(out_path).unwrap(),
        err: std::fs::read_to_string(err_path).unwrap(),
    }
}

/// A 1 MiB null read job, `n` times.
fn null_jobs(n: u32) -> Vec<String> {
    vec![
        "--name=m".into(),
        "--ioengine=null".into(),
        "--size=1m".into(),
        format!("--numjobs={n}"),
        "--output-format=terse".into(),
    ]
}

fn rfio_rss_kib(dir: &TempDir, n: u32) -> u64 {
    let args = null_jobs(n);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let f = run_measured(RFIO, &dir.0, &args, Duration::from_secs(300));
    assert_eq!(f.status, 0, "{}", f.err);
    // Every job read its 1 MiB (terse field 6: read KiB).
    let kib: Vec<&str> = f
        .out
        .lines()
        .map(|l| l.split(';').nth(5).unwrap_or(""))
        .collect();
    assert_eq!(kib.len(), n as usize);
    assert!(kib.iter().all(|k| *k == "1024"), "{kib:?}");
    f.max_rss_kib
}

/// 1,000 jobs fit in 256 MiB, and each job past the first few hundred
/// costs under 200 KiB (fio 3.33 `--thread`: about 400 KiB a job; rfio
/// used to hold three 256 KiB latency histograms per job, 0.78 MiB).
#[test]
fn a_thousand_jobs_fit_in_256_mib() {
    let dir = TempDir::new("scale-rss");
    let small = rfio_rss_kib(&dir, 200);
    let big = rfio_rss_kib(&dir, 1000);
    let per_job = big.saturating_sub(small) / 800;
    eprintln!("max RSS: 200 jobs {small} KiB, 1000 jobs {big} KiB, {per_job} KiB a job");
    assert!(big < 256 * 1024, "1000 jobs: {big} KiB");
    assert!(per_job < 200, "{per_job} KiB a job");
}

/// A random job's map (a bit per block: 512 KiB for 16 GiB of 4 KiB
/// blocks) is held once, by the running job: not also by the plan entry
/// it was prepared from, and not by jobs of a later group that has not
/// started (rfio held every job's map up front and a copy per running
/// job: about 330 MiB here).
#[test]
fn random_maps_are_held_only_by_running_jobs() {
    let dir = TempDir::new("scale-maps");
    let job = dir.write(
        "maps.fio",
        "[global]\nioengine=null\nrw=randread\nsize=16g\nnumber_ios=64\n\
         [a]\nnumjobs=200\n[b]\nstonewall\nnumjobs=200\n",
    );
    let job = job.display().to_string();
    let f = run_measured(
        RFIO,
        &dir.0,
        &[&job, "--output-format=terse"],
        Duration::from_secs(300),
    );
    assert_eq!(f.status, 0, "{}", f.err);
    let kib: Vec<&str> = f
        .out
        .lines()
        .map(|l| l.split(';').nth(5).unwrap())
        .collect();
    assert_eq!(kib, ["256"; 400]);
    eprintln!("max RSS: {} KiB", f.max_rss_kib);
    // 200 running jobs at under 800 KiB each.
    assert!(f.max_rss_kib < 200 * 800, "{} KiB", f.max_rss_kib);
}

fn json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "JSON output: {e}\nstdout: {}\nstderr: {}",
            stdout(o),
            stderr(o)
        )
    })
}

const TIMED_100: [&str; 7] = [
    "--name=t",
    "--ioengine=null",
    "--size=1m",
    "--time_based",
    "--runtime=1",
    "--numjobs=100",
    "--group_reporting=0",
];

/// Many time-based jobs per CPU: each one does I/O and reports at least
/// its runtime, however late the scheduler let it start.
#[test]
fn every_time_based_job_runs_its_runtime() {
    let dir = TempDir::new("scale-timed");
    let mut args = TIMED_100.to_vec();
    args.push("--output-format=json");
    let o = common::rfio(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    let jobs = j["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 100);
    for job in jobs {
        let ios = job["read"]["total_ios"].as_u64().unwrap();
        let run = job["job_runtime"].as_u64().unwrap();
        let read_run = job["read"]["runtime"].as_u64().unwrap();
        assert!(ios > 0, "a job did no I/O: {job}");
        assert_eq!(job["error"].as_u64(), Some(0));
        assert!(run >= 1000, "job_runtime {run} ms < runtime 1000 ms");
        assert!(read_run >= 1000, "read runtime {read_run} ms < 1000 ms");
        // Generous: the jobs share two CPUs with everything else.
        assert!(run < 60_000, "job_runtime {run} ms");
    }
}

/// The normal output's `run=min-max` of a group is never short of the
/// runtime either, for jobs that open and invalidate files before their
/// first I/O (rfio's clock started before that and the time went missing:
/// `run=996-1002msec`).
#[test]
fn the_groups_shortest_run_is_the_runtime() {
    let dir = TempDir::new("scale-run");
    let o = common::rfio(
        &dir,
        &[
            "--name=p",
            "--ioengine=psync",
            "--rw=randread",
            "--size=1m",
            &dir.dir_arg(),
            "--time_based",
            "--runtime=1",
            "--numjobs=16",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("READ:"))
        .unwrap_or_else(|| panic!("no READ: line in\n{text}"));
    let run = line.split("run=").nth(1).expect("run=");
    let min: u64 = run.split('-').next().unwrap().parse().unwrap();
    assert!(min >= 1000, "run={run} in {line}");
}

/// fio 3.33 holds at most 4,088 jobs over the whole run and refuses more
/// with these two lines and status 1 (`--max-jobs` changes nothing).
const TOO_MANY: &str =
    "error: maximum number of jobs reached.\nerror: failed to setup shm segment\n";

#[test]
fn more_than_4088_jobs_are_refused_as_fio_refuses_them() {
    let dir = TempDir::new("scale-max");
    let one = [
        "--name=m",
        "--ioengine=null",
        "--size=4k",
        "--numjobs=4089",
        "--max-jobs=5000",
    ];
    // Counted over all jobs: 2,044 + 2,045 is one too many.
    let two = [
        "--name=m",
        "--ioengine=null",
        "--size=4k",
        "--numjobs=2044",
        "--name=n",
        "--ioengine=null",
        "--size=4k",
        "--numjobs=2045",
        "--output-format=json",
    ];
    for args in [&one[..], &two[..]] {
        let o = common::rfio(&dir, args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&o), TOO_MANY, "{args:?}");
        assert!(
            !stdout(&o).contains("groupid"),
            "no job ran: {}",
            stdout(&o)
        );
        if let Some(fio) = fio() {
            let f = run_in(fio, &dir, args);
            assert_eq!(f.status.code(), Some(1), "fio {args:?}");
            assert_eq!(stderr(&f), TOO_MANY, "fio {args:?}");
        }
    }
    // Normal output: the description lines of the jobs fio added before
    // the limit, no `fio-3.33` / `Starting` banner. (No section after the
    // one that reaches the limit: fio 3.33 then leaves ~2,000 processes of
    // its own session behind, holding the test's pipes.) (fio decides whether to
    // print a description when it adds the job, so with
    // `--output-format=json` after a `--name` whose job is added before the
    // format is read, it prints some; rfio prints none with JSON.) A section whose clones
    // all fit gets its `...`, the one that reaches the limit does not.
    let normal = [
        "--name=m",
        "--ioengine=null",
        "--size=4k",
        "--numjobs=2000",
        "--name=n",
        "--ioengine=null",
        "--size=4k",
        "--numjobs=2089",
    ];
    let o = common::rfio(&dir, &normal);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), TOO_MANY);
    let out = stdout(&o);
    assert!(out.starts_with("m: (g=0): rw=read"), "{out}");
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.lines().nth(2).unwrap().starts_with("n: (g=0)"), "{out}");
    assert_eq!(out.lines().nth(1), Some("..."), "{out}");
    assert!(!out.contains("Starting"), "{out}");
    let f = run_in(common::real_fio(), &dir, &normal);
    assert_eq!(stdout(&f), out, "fio's stdout");
    // --parse-only reads the jobs without making them (fio too).
    let mut parse = one.to_vec();
    parse.push("--parse-only");
    let o = common::rfio(&dir, &parse);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// The read I/Os of each job of a JSON report.
fn read_ios(text: &str) -> Vec<u64> {
    let j: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("JSON output: {e}\n{text}"));
    j["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|job| job["read"]["total_ios"].as_u64().unwrap())
        .collect()
}

const NO_RUNTIME: &str = "fio: time_based requires a runtime/timeout setting\n";

/// `time_based` without a runtime: fio warns on stderr and runs the job
/// once through its size, as if `time_based` were not set; exit status 0.
#[test]
fn time_based_without_runtime_runs_through_its_size_once() {
    let dir = TempDir::new("scale-tb");
    let args = [
        "--name=m",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--output-format=json",
    ];
    let f = run_measured(RFIO, &dir.0, &args, Duration::from_secs(60));
    assert_eq!(f.status, 0, "{}", f.err);
    assert_eq!(f.err, NO_RUNTIME);
    assert_eq!(read_ios(&f.out), [256]);
    if let Some(fio) = fio() {
        let o = run_in(fio, &dir, &args);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(stderr(&o), NO_RUNTIME);
        assert_eq!(read_ios(&stdout(&o)), [256]);
    }
    // One warning per job section, not per clone; `runtime=0` is none.
    let job = dir.write(
        "tb.fio",
        "[m]\nioengine=null\nsize=64k\ntime_based\nnumjobs=3\n\
         [n]\nioengine=null\nsize=64k\ntime_based\nruntime=0\n",
    );
    let job = job.display().to_string();
    let args = [job.as_str(), "--output-format=json"];
    let f = run_measured(RFIO, &dir.0, &args, Duration::from_secs(60));
    assert_eq!(f.status, 0, "{}", f.err);
    assert_eq!(f.err, NO_RUNTIME.repeat(2));
    assert_eq!(read_ios(&f.out), [16; 4]);
    if let Some(fio) = fio() {
        let o = run_in(fio, &dir, &args);
        assert_eq!(stderr(&o), NO_RUNTIME.repeat(2));
        assert_eq!(read_ios(&stdout(&o)), [16; 4]);
    }
}
