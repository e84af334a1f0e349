//! The engines of issue 11 §3 (splice, cpuio, exec, net, netsplice), the
//! engine options added with them, and the plan's refusal of the engines
//! rfio cannot run here, each against what fio 3.33 does with the same job
//! (the numbers were taken from real fio runs; see the comment at each
//! test).

use std::sync::Mutex;

use rfio::api::{JobReport, Log, RunError, RunReport};

use crate::common;
use common::{plan, rfio, stderr, TempDir};

/// The live messages of a run, kept for the test to read.
#[derive(Default)]
struct Captured {
    info: Mutex<String>,
    err: Mutex<String>,
}

impl Log for Captured {
    fn info(&self, text: &str) {
        self.info.lock().unwrap().push_str(text);
    }
    fn err(&self, text: &str) {
        self.err.lock().unwrap().push_str(text);
    }
}

fn try_run(a: &[&str]) -> (Result<RunReport, RunError>, Captured) {
    let p = plan(a);
    let log = Captured::default();
    let r = rfio::api::run_with_log(&p, &log);
    (r, log)
}

fn run(a: &[&str]) -> (RunReport, Captured) {
    let (r, log) = try_run(a);
    (r.expect("run starts"), log)
}

fn ok(j: &JobReport) {
    assert_eq!(j.error, 0, "job {}: {:?}", j.name(), j.error_msg);
}

/// fio 3.33, `--ioengine=splice --rw=randrw --bs=4k --size=1m`: 132 reads
/// and 124 writes, as every other engine; with blocks larger than the
/// pipe (192 KiB) and crc32c verify, 10 writes and 10 verified reads.
#[test]
fn splice_moves_what_fio_moves() {
    let dir = TempDir::new("splice");
    let file = dir.arg("f");
    let (r, log) = run(&[
        "--name=s",
        "--ioengine=splice",
        "--rw=randrw",
        "--bs=4k",
        "--size=1m",
        &file,
    ]);
    let j = &r.jobs[0];
    ok(j);
    assert_eq!(log.err.lock().unwrap().as_str(), "");
    assert_eq!([j.dirs[0].ios, j.dirs[1].ios], [132, 124]);
    assert_eq!([j.dirs[0].bytes, j.dirs[1].bytes], [132 * 4096, 124 * 4096]);
    let (r, _) = run(&[
        "--name=v",
        "--ioengine=splice",
        "--rw=write",
        "--bs=192k",
        "--size=2m",
        "--verify=crc32c",
        &dir.arg("v"),
    ]);
    let j = &r.jobs[0];
    ok(j);
    assert_eq!([j.dirs[0].ios, j.dirs[1].ios], [10, 10]);
}

/// pvsync2's, io_uring's and libaio's flags reach the kernel as fio's do:
/// fio 3.33 on this kernel fails the first read of a file just laid out
/// (and dropped from the cache) with `RWF_NOWAIT` (EAGAIN, error 11), and
/// the first transfer with fio's `RWF_UNCACHED` (0x40, which the kernel
/// refuses for buffered I/O: EOPNOTSUPP, error 95).
#[test]
fn rwf_flags_reach_the_kernel() {
    let dir = TempDir::new("rwf");
    let file = dir.arg("f");
    let mut cases = vec![
        ("pvsync2", "--nowait=1", libc::EAGAIN),
        ("pvsync2", "--uncached=1", libc::EOPNOTSUPP),
        ("pvsync2", "--hipri_percentage=50", 0),
    ];
    for engine in ["io_uring", "libaio"] {
        let probe = rfio(
            &dir,
            &[
                "--name=p",
                &format!("--ioengine={engine}"),
                "--size=64k",
                &file,
            ],
        );
        if !probe.status.success() {
            println!("skipping {engine}: {}", stderr(&probe));
            continue;
        }
        cases.push((engine, "--nowait=1", libc::EAGAIN));
    }
    for (engine, opt, errno) in cases {
        let (r, _) = run(&[
            "--name=f",
            &format!("--ioengine={engine}"),
            "--size=256k",
            opt,
            &file,
        ]);
        let j = &r.jobs[0];
        assert_eq!(j.error, errno, "{engine} {opt}: {:?}", j.error_msg);
        if errno == 0 {
            assert_eq!(j.dirs[0].ios, 64, "{engine} {opt}");
        }
    }
}

/// fio parses any engine name (`--parse-only` exits 0) and fails the run
/// (`ioengine=sg` on a file: "only works on block or character devices",
/// exit 1). rfio refuses the run before it starts: no banner, the engine
/// and what it needs named at the `ioengine=` line, exit 1, the options of
/// the engine covered by that one line.
#[test]
fn engines_rfio_lacks_are_refused_before_the_run() {
    let dir = TempDir::new("refused");
    let job = dir.write(
        "j.fio",
        "[global]\nsize=1m\nfilename=f\n[sg]\nioengine=sg\nreadfua=1\n[ok]\nioengine=null\n[bad]\nioengine=nosuch\n",
    );
    let job = job.to_str().unwrap();
    let parsed = rfio(&dir, &["--parse-only", job]);
    assert!(parsed.status.success(), "{}", stderr(&parsed));
    let out = rfio(&dir, &[job]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(common::stdout(&out), "", "nothing starts: no banner");
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{job}:5:1: job 'sg': ioengine=sg needs SCSI generic devices (/dev/sg*, the SG_IO ioctl); rfio does not run it"
        )),
        "{err}"
    );
    assert!(
        err.contains(
            "job 'bad': ioengine=nosuch: no such I/O engine (fio: engine nosuch not loadable)"
        ),
        "{err}"
    );
    assert!(!err.contains("readfua"), "the engine's options: {err}");
    assert!(!dir.file("f").exists(), "nothing laid out");
}

/// `--enghelp` lists the engines rfio runs (fio lists all 33 of its
/// build); `--enghelp=ENGINE` still shows fio's options of any engine.
#[test]
fn enghelp_lists_what_rfio_runs() {
    let dir = TempDir::new("enghelp");
    let out = rfio(&dir, &["--enghelp"]);
    assert!(out.status.success());
    let list = common::stdout(&out);
    assert!(list.starts_with("Available IO engines:\n\t"), "{list}");
    let names: Vec<&str> = list.lines().skip(1).map(str::trim).collect();
    for e in ["psync", "splice", "io_uring"] {
        assert!(names.contains(&e), "{e}: {list}");
    }
    for e in ["sg", "rbd", "mtd"] {
        assert!(!names.contains(&e), "{e}: {list}");
    }
    assert_eq!(common::stdout(&rfio(&dir, &["--enghelp="])), list);
    let sg = rfio(&dir, &["--enghelp=sg"]);
    assert!(common::stdout(&sg).contains("readfua"));
}
