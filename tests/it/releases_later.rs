//! What fio 3.34-3.42 changed in a job's run, and the options they added,
//! as rfio runs them under each release (figures from the real fio 3.33
//! and 3.42; each test pins the release it runs as).

use crate::common::json::json_as;
use crate::common::{rfio_as, stderr, TempDir, RFIO};
use std::process::Command;

/// `(read, write, sync)` I/Os of the first job.
fn ios(doc: &serde_json::Value) -> (u64, u64, u64) {
    let j = &doc["jobs"][0];
    let n = |d: &str| j[d]["total_ios"].as_u64().expect("total_ios");
    (n("read"), n("write"), n("sync"))
}

/// The reads and writes of a v3 iolog, `r0 w3 ...` (offset in blocks of
/// `bs`).
fn logged(log: &str, bs: u64) -> String {
    log.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let dir = match f.get(1..3)? {
                [_, "read"] => 'r',
                [_, "write"] => 'w',
                _ => return None,
            };
            Some(format!("{dir}{}", f.get(3)?.parse::<u64>().ok()? / bs))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn think_time_ends_with_the_runtime_from_3_34() {
    let dir = TempDir::new("later-think");
    let args = [
        "--name=t",
        "--filename=t.dat",
        "--size=64k",
        "--rw=read",
        "--thinktime=1500ms",
        "--runtime=1",
        "--time_based",
    ];
    // fio 3.33: one read, then the pause in full (job_runtime 1504 ms);
    // fio 3.42: the pause ends with the second (1000 ms).
    let runtime = |release| {
        let doc = json_as(&dir, release, &args);
        assert_eq!(ios(&doc).0, 1, "{release}");
        doc["jobs"][0]["job_runtime"].as_u64().expect("job_runtime")
    };
    let old = runtime("3.33");
    assert!(old >= 1500, "3.33: {old} ms");
    let new = runtime("3.42");
    assert!((1000..1400).contains(&new), "3.42: {new} ms");
}

#[test]
fn fsync_follows_writes_only_from_3_38() {
    let dir = TempDir::new("later-fsync");
    let args = [
        "--name=s",
        "--filename=s.dat",
        "--size=256k",
        "--rw=rw",
        "--fsync=2",
    ];
    // fio 3.33 syncs after reads too while the writes are at a multiple
    // of 2: 33 syncs; fio 3.38 on only right after a write: 17.
    assert_eq!(ios(&json_as(&dir, "3.33", &args)), (29, 35, 33));
    assert_eq!(ios(&json_as(&dir, "3.37", &args)), (29, 35, 33));
    assert_eq!(ios(&json_as(&dir, "3.38", &args)), (29, 35, 17));
    assert_eq!(ios(&json_as(&dir, "3.42", &args)), (29, 35, 17));
}

#[test]
fn a_mixed_job_wraps_each_direction_past_size_from_3_38() {
    let dir = TempDir::new("later-iosize");
    let run = |release: &str| {
        let log = format!("io-{release}.log");
        let out = rfio_as(
            &dir,
            release,
            &[
                "--name=w",
                "--filename=w.dat",
                "--size=640k",
                "--bs=128k",
                "--rw=rw",
                "--io_size=1920k",
                &format!("--write_iolog={log}"),
                "--output=/dev/null",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        logged(
            &std::fs::read_to_string(dir.0.join(&log)).unwrap(),
            128 << 10,
        )
    };
    // fio 3.33: passes of 640 KiB, both directions starting over; 3.42:
    // one pass, the writes going on to block 4 after the reads wrapped.
    assert_eq!(run("3.33"), "r0 r1 r2 w0 r3 r4 w1 w2 w3 r0 r1 r2 w0 r3 r4");
    assert_eq!(run("3.42"), "r0 r1 r2 w0 r3 r4 w1 w2 w3 r0 w4 r1 w0 r2 r3");
}

#[test]
fn the_normal_output_names_the_release_before_starting() {
    let dir = TempDir::new("later-banner");
    for release in ["3.33", "3.42"] {
        let out = rfio_as(
            &dir,
            release,
            &["--name=b", "--ioengine=null", "--size=16k"],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = crate::common::stdout(&out);
        let lines: Vec<&str> = text.lines().take(3).collect();
        assert_eq!(
            lines[1..],
            [format!("fio-{release}").as_str(), "Starting 1 process"],
            "{text}"
        );
    }
}

#[test]
fn thinkcycles_spins_after_each_io_from_3_37() {
    let dir = TempDir::new("later-thinkcycles");
    let args = [
        "--name=c",
        "--ioengine=null",
        "--size=16k",
        "--rw=read",
        "--thinkcycles=2000000",
    ];
    // fio 3.42 here: 4 reads in 1180 ms (x86's pause, 2 million times
    // after each); a pause takes 10 cycles or more on any x86, so 8
    // million of them take 10 ms or more.
    let doc = json_as(&dir, "3.42", &args);
    assert_eq!(ios(&doc).0, 4);
    let ms = doc["jobs"][0]["job_runtime"].as_u64().expect("job_runtime");
    assert!(ms >= 10, "{ms} ms");
    // fio 3.33 does not know it.
    let out = rfio_as(&dir, "3.33", &args);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown option 'thinkcycles' (fio 3.37 added it"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn comm_names_the_job_thread_from_3_42() {
    let dir = TempDir::new("later-comm");
    let args = [
        "--name=n",
        "--ioengine=null",
        "--size=1m",
        "--runtime=3",
        "--time_based",
        "--comm=mycomm-0123456789",
        "--output=/dev/null",
    ];
    // fio 3.42 (--thread): one of its threads is `mycomm-01234567`, the
    // kernel's first 15 bytes of the name.
    let mut child = Command::new(RFIO)
        .current_dir(&dir.0)
        .args(args)
        .env("RFIO_FIO_VERSION", "3.42")
        .spawn()
        .expect("spawn rfio");
    let task = format!("/proc/{}/task", child.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut names = Vec::new();
    while !names.iter().any(|n: &String| n == "mycomm-01234567")
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
        names = std::fs::read_dir(&task)
            .map(|d| {
                d.flatten()
                    .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
                    .map(|c| c.trim_end().to_string())
                    .collect()
            })
            .unwrap_or_default();
    }
    let status = child.wait().expect("wait rfio");
    assert!(status.success());
    assert!(names.iter().any(|n| n == "mycomm-01234567"), "{names:?}");
    // fio 3.33 does not know it.
    let out = rfio_as(&dir, "3.33", &args);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown option 'comm' (fio 3.42 added it"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn num_range_over_1_is_refused_as_fio_3_42_does() {
    let dir = TempDir::new("later-num-range");
    let job = |rw: &'static str, n: &'static str| {
        [
            "--name=r",
            "--ioengine=null",
            "--size=64k",
            rw,
            n,
            "--output=/dev/null",
        ]
    };
    // One range per trim is what every release does.
    let out = rfio_as(&dir, "3.42", &job("--rw=trim", "--num_range=1"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // More needs io_uring_cmd's multi-range trims (fio 3.42: "fio: can't
    // use multiple ranges with IO engine null", exit 1); reads ignore it.
    let out = rfio_as(&dir, "3.42", &job("--rw=trim", "--num_range=2"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("fio can't use multiple ranges with IO engine null"),
        "{}",
        stderr(&out)
    );
    let out = rfio_as(&dir, "3.42", &job("--rw=read", "--num_range=2"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = rfio_as(&dir, "3.33", &job("--rw=trim", "--num_range=1"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown option 'num_range' (fio 3.37 added it"),
        "{}",
        stderr(&out)
    );
}

/// fio 3.42 gives the latency target and window a unit in the normal
/// output (stat.c, 4db5740d: `target=5.00ms, window=3.00s`, `0.00ns`
/// unset); 3.33 prints the raw ns and µs. Checked against fio 3.42's line
/// for the same job.
#[test]
fn latency_target_line_has_units_from_3_42() {
    let dir = TempDir::new("lat-target-units");
    let line = |release: &str, extra: &[&str]| {
        let mut args = vec!["--name=x", "--ioengine=null", "--size=1m"];
        args.extend_from_slice(extra);
        let out = rfio_as(&dir, release, &args);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let found = text.lines().find(|l| l.contains("latency   :"));
        found.map(str::to_string).unwrap_or_default()
    };
    let target = [
        "--latency_target=5ms",
        "--latency_window=3s",
        "--latency_percentile=99",
    ];
    assert_eq!(
        line("3.42", &target),
        "     latency   : target=5.00ms, window=3.00s, percentile=99.00%, depth=1"
    );
    assert_eq!(
        line("3.42", &[]),
        "     latency   : target=0.00ns, window=0.00ns, percentile=100.00%, depth=1"
    );
    assert_eq!(
        line("3.33", &[]),
        "     latency   : target=0, window=0, percentile=100.00%, depth=1"
    );
}
