//! The engines that run no I/O of their own, cpuio (burns CPU) and exec
//! (runs a program), against what fio 3.33 does with the same job (the
//! numbers were taken from real fio runs; see the comment at each test).

use crate::common;
use common::json::{json_run, read_of};
use common::{assert_job_ok, rfio, run_captured, stderr, TempDir};

/// fio 3.33, `--ioengine=cpuio --cpuload=50 --runtime=1 --time_based`:
/// 10 reads of nothing (50 ms of spinning, 50 ms of think time each),
/// io_bytes 0, bw 0, runtime 0, clat about 50 ms; the normal output has no
/// description line for the job, but the engine's start line
/// `burn (noop): ioengine=cpuio, cpuload=50, cpucycle=50000`.
#[test]
fn cpuio_burns_and_counts_reads_of_nothing() {
    let dir = TempDir::new("cpuio");
    let (doc, _) = json_run(
        &dir,
        &[
            "--name=burn",
            "--ioengine=cpuio",
            "--cpuload=50",
            "--cpuchunks=20000",
            "--runtime=400ms",
            "--time_based",
        ],
    );
    let r = read_of(&doc, 0);
    assert_eq!(doc["jobs"][0]["error"], 0);
    assert_eq!(r["io_bytes"], 0);
    assert_eq!(r["bw"], 0);
    assert_eq!(r["runtime"], 0);
    // 20 ms of work and 20 ms of think: 10 in 400 ms, fewer when a loaded
    // machine stretches the pauses, never more.
    let ios = r["total_ios"].as_u64().unwrap();
    assert!((3..=11).contains(&ios), "{ios}");
    let clat = r["clat_ns"]["mean"].as_f64().unwrap();
    assert!((20e6..100e6).contains(&clat), "{clat}");
    let out = rfio(
        &dir,
        &[
            "--name=burn",
            "--ioengine=cpuio",
            "--cpuload=50",
            "--cpumode=qsort",
            "--runtime=200ms",
            "--time_based",
            "--numjobs=2",
        ],
    );
    let text = common::stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.starts_with("...\nfio-3.33\nStarting 2 processes\n"),
        "{text}"
    );
    assert_eq!(
        text.matches("burn (qsort): ioengine=cpuio, cpuload=50, cpucycle=50000\n")
            .count(),
        2,
        "{text}"
    );
    assert!(!text.contains("(g=0)"), "{text}");
}

/// fio 3.33 without `cpuload`: the job fails with error 22,
/// `file:engines/cpu.c:251, func=cpuio, error=cpu thread needs rate
/// (cpuload=)`, exit 1.
#[test]
fn cpuio_without_a_load_fails_as_fio() {
    let dir = TempDir::new("cpuio-noload");
    let out = rfio(
        &dir,
        &[
            "--name=b",
            "--ioengine=cpuio",
            "--runtime=1",
            "--output-format=json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    assert_eq!(doc["jobs"][0]["error"], 22);
    assert!(
        stderr(&out).contains(
            "err=22/file:engines/cpu.c:251, func=cpuio, error=cpu thread needs rate (cpuload=)"
        ),
        "{}",
        stderr(&out)
    );
}

/// `exit_on_io_done`: the cpuio job ends when the job that does I/O does
/// (fio 3.33: 17 burns beside a 4 MiB read at 4 MiB/s, both about 1 s);
/// without it the cpuio job runs its whole runtime.
#[test]
fn cpuio_exits_when_the_io_is_done() {
    let dir = TempDir::new("cpuio-exit");
    let file = dir.arg("f");
    let args = |exit: &str| {
        vec![
            "--name=burn".to_string(),
            "--ioengine=cpuio".into(),
            "--cpuload=20".into(),
            "--cpuchunks=5000".into(),
            format!("--exit_on_io_done={exit}"),
            "--runtime=3".into(),
            "--time_based".into(),
            "--name=io".into(),
            "--ioengine=psync".into(),
            "--size=512k".into(),
            "--rate=1m".into(),
            file.clone(),
        ]
    };
    let a = args("1");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (r, _) = run_captured(&a);
    assert_job_ok(&r.jobs[0]);
    assert_job_ok(&r.jobs[1]);
    assert_eq!(r.jobs[1].dirs[0].ios, 128);
    // 500 ms of reading: 5 ms + 20 ms per burn, about 20 of them (fewer
    // on a busy machine); the burner's 3 s runtime is cut short.
    let burns = r.jobs[0].dirs[0].ios;
    assert!((3..=30).contains(&burns), "{burns}");
    assert!(r.jobs[0].run_ms < 2000, "{}", r.jobs[0].run_ms);
}

/// fio 3.33, `--ioengine=exec --program=/bin/echo --arguments='hello %n %r'
/// --runtime=1 --time_based`: `ex.stdout` holds `hello ex 1`, `ex.stderr`
/// nothing; 11 reads of nothing; stdout says `ex : program=/bin/echo,
/// arguments=hello %n %r` and `ex : Saving output of /bin/echo hello ex 1
/// : stdout=ex.stdout stderr=ex.stderr`.
#[test]
fn exec_runs_the_program_with_fios_substitutions() {
    let dir = TempDir::new("exec");
    let out = rfio(
        &dir,
        &[
            "--name=ex",
            "--ioengine=exec",
            "--program=/bin/echo",
            "--arguments=hello %n %r",
            "--runtime=1",
            "--time_based",
            "--grace_time=0",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = common::stdout(&out);
    assert!(
        text.contains("ex : program=/bin/echo, arguments=hello %n %r\nex : Saving output of /bin/echo hello ex 1 : stdout=ex.stdout stderr=ex.stderr\n"),
        "{text}"
    );
    assert!(!text.contains("(g=0)"), "{text}");
    // 11 in fio 3.33 (0 ms, then 100 ms each, the last past the runtime);
    // fewer on a busy machine.
    let total: u64 = text
        .split("issued rwts: total=")
        .nth(1)
        .and_then(|t| t.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!((5..=12).contains(&total), "{text}");
    assert_eq!(
        std::fs::read_to_string(dir.file("ex.stdout")).unwrap(),
        "hello ex 1\n"
    );
    assert_eq!(std::fs::read_to_string(dir.file("ex.stderr")).unwrap(), "");
    // std_redirect=0: the program writes where rfio does; no files.
    let dir = TempDir::new("exec-noredirect");
    let (doc, _) = json_run(
        &dir,
        &[
            "--name=quiet",
            "--ioengine=exec",
            "--program=/bin/true",
            "--std_redirect=0",
            "--runtime=300ms",
            "--time_based",
            "--grace_time=0",
        ],
    );
    assert_eq!(doc["jobs"][0]["error"], 0);
    // 0 ms, then 100 ms per I/O: about 4.
    let ios = read_of(&doc, 0)["total_ios"].as_u64().unwrap();
    assert!((3..=5).contains(&ios), "{ios}");
    assert!(!dir.file("quiet.stdout").exists());
}

/// The program is stopped when the runtime is over: SIGTERM at the first
/// check past it (fio: `kill(pid, SIGTERM)`, then `grace_time`), and
/// SIGKILL when the job ends; the job does not wait for it.
#[test]
fn exec_stops_the_program_at_the_runtime() {
    let dir = TempDir::new("exec-stop");
    let t0 = std::time::Instant::now();
    let (doc, _) = json_run(
        &dir,
        &[
            "--name=sleeper",
            "--ioengine=exec",
            "--program=/bin/sleep",
            "--arguments=30",
            "--runtime=300ms",
            "--time_based",
            "--grace_time=0",
        ],
    );
    assert!(t0.elapsed().as_secs() < 10, "{:?}", t0.elapsed());
    assert_eq!(doc["jobs"][0]["error"], 0);
    assert_eq!(
        std::fs::read_to_string(dir.file("sleeper.stdout")).unwrap(),
        ""
    );
}

/// A program that cannot be started (fio's forked child goes on as a second
/// fio and crashes) fails the job: error 2, the program named; no program
/// at all is fio's `no program is defined, it is mandatory to define one`,
/// error 22.
#[test]
fn exec_errors_name_the_program() {
    let dir = TempDir::new("exec-bad");
    let out = rfio(
        &dir,
        &[
            "--name=bad",
            "--ioengine=exec",
            "--program=/nonexistent/prog",
            "--runtime=1",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("err=2/func=execvp(/nonexistent/prog), error=No such file or directory"),
        "{err}"
    );
    assert!(common::stdout(&out).contains("bad : Saving output of /nonexistent/prog (null)"));
    let out = rfio(&dir, &["--name=none", "--ioengine=exec", "--runtime=1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "err=22/file:engines/exec.c:324, func=exec, error=no program is defined, it is mandatory to define one"
        ),
        "{}",
        stderr(&out)
    );
}
