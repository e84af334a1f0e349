//! The options fio 3.41 and 3.42 added at the ends of a job, as rfio runs
//! them under each release: `ramp_size` and the ramp's once-a-second end
//! (3.42), `end_syncfs` (3.42), `filetype` (3.41). Figures from the real
//! fio 3.33 and 3.42 on the same jobs.

use crate::common::json::json_as;
use crate::common::{rfio_as, stderr, TempDir};

fn ios(doc: &serde_json::Value, dir: &str) -> u64 {
    doc["jobs"][0][dir]["total_ios"]
        .as_u64()
        .expect("total_ios")
}

/// 1536 reads at 1000 a second (about 1.5 s).
const PACED: [&str; 6] = [
    "--name=r",
    "--ioengine=null",
    "--rw=read",
    "--bs=4k",
    "--size=6m",
    "--rate_iops=1000",
];

fn paced(extra: &str) -> Vec<&str> {
    let mut v = PACED.to_vec();
    v.push(extra);
    v
}

#[test]
fn ramp_size_ends_at_the_once_a_second_check_from_3_42() {
    let dir = TempDir::new("later-ramp-size");
    // fio 3.42 here: the 64 KiB are moved in 16 ms, yet the ramp ends
    // only at the helper thread's first check, a second after the run
    // began (0.9 s into the job): 639 of the 1536 reads are counted.
    // Were the ramp over after 64 KiB, 1520 would be.
    let doc = json_as(&dir, "3.42", &paced("--ramp_size=64k"));
    let n = ios(&doc, "read");
    assert!((400..=1100).contains(&n), "{n} reads counted");
    // fio 3.33 does not know it.
    let out = rfio_as(&dir, "3.33", &paced("--ramp_size=64k"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown option 'ramp_size' (fio 3.42 added it"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ramp_time_ends_at_the_next_check_from_3_42() {
    let dir = TempDir::new("later-ramp-check");
    // ramp_time=100ms: fio 3.33 counts from 100 ms on (1435 of 1536
    // reads), fio 3.42 from its first check after them (638).
    let doc = json_as(&dir, "3.33", &paced("--ramp_time=100ms"));
    let n = ios(&doc, "read");
    assert!((1300..=1450).contains(&n), "3.33: {n} reads counted");
    let doc = json_as(&dir, "3.42", &paced("--ramp_time=100ms"));
    let n = ios(&doc, "read");
    assert!((400..=1100).contains(&n), "3.42: {n} reads counted");
}

#[test]
fn a_job_ending_inside_its_ramp_size_reports_its_io() {
    let dir = TempDir::new("later-ramp-inside");
    // 256 reads end before the first check: all are reported, as fio
    // 3.42 does (256).
    let doc = json_as(
        &dir,
        "3.42",
        &[
            "--name=r",
            "--ioengine=null",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--ramp_size=64k",
        ],
    );
    assert_eq!(ios(&doc, "read"), 256);
}

#[test]
fn ramp_size_and_ramp_time_are_refused_together() {
    let dir = TempDir::new("later-ramp-both");
    let args = [
        "--name=r",
        "--ioengine=null",
        "--size=1m",
        "--ramp_time=1",
        "--ramp_size=64k",
    ];
    let out = rfio_as(&dir, "3.42", &args);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("job rejected: cannot specify both ramp_time and ramp_size"),
        "{}",
        stderr(&out)
    );
    // Jobs of one group ramp by the same size: fio 3.42 refuses a ramping
    // job whose ramp_size differs from an earlier job's of its group (one
    // without a ramp before it counts, one after it does not).
    let job = |first: &str, second: &str| {
        format!("[a]\nioengine=null\nsize=1m\n{first}\n[b]\nioengine=null\nsize=1m\n{second}\n")
    };
    for (text, code) in [
        (job("", "ramp_size=64k"), 1),
        (job("ramp_size=64k", ""), 0),
        (job("ramp_size=64k", "ramp_size=64k"), 0),
        (job("ramp_time=1", "ramp_size=64k"), 1),
        (job("", "stonewall\nramp_size=64k"), 0),
    ] {
        std::fs::write(dir.0.join("g.fio"), &text).expect("job file");
        let out = rfio_as(&dir, "3.42", &["g.fio", "--output-format=terse"]);
        assert_eq!(out.status.code(), Some(code), "{text}{}", stderr(&out));
        if code == 1 {
            assert!(
                stderr(&out).contains("inconsistent ramp_size within reporting group"),
                "{}",
                stderr(&out)
            );
        }
    }
    // fio's minimum is 1.
    let out = rfio_as(&dir, "3.42", &["--name=r", "--size=1m", "--ramp_size=0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("ramp_size"), "{}", stderr(&out));
}

#[test]
fn end_syncfs_syncs_the_file_system_once_and_counts_nothing_from_3_42() {
    let dir = TempDir::new("later-syncfs");
    let args = [
        "--name=s",
        "--ioengine=psync",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--filename=a.dat:b.dat",
        "--end_syncfs=1",
        "--debug=io",
        "--output-format=json",
    ];
    // fio 3.42 here: one syncfs(2) of "." (strace), 16 writes, no sync
    // I/O counted; its --debug=io line is "sync FS .".
    let out = rfio_as(&dir, "3.42", &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("sync FS")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].ends_with("sync FS ."), "{}", lines[0]);
    let start = text.find("\n{").expect("JSON") + 1;
    let doc: serde_json::Value = serde_json::from_str(&text[start..]).expect("JSON");
    assert_eq!(ios(&doc, "write"), 16);
    assert_eq!(ios(&doc, "sync"), 0);
    // A reading job syncs nothing (fio's should_fsync).
    let mut read = args;
    read[2] = "--rw=read";
    let out = rfio_as(&dir, "3.42", &read);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("sync FS"));
    // fio 3.33 does not know it.
    let out = rfio_as(&dir, "3.33", &args);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown option 'end_syncfs' (fio 3.42 added it"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn filetype_takes_the_files_as_named_from_3_41() {
    let dir = TempDir::new("later-filetype");
    let mut args = vec![
        "--name=t",
        "--ioengine=psync",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--filename=t.dat",
        "--end_syncfs=1",
        "--debug=io",
        "--output-format=json",
    ];
    // filetype=char: fio 3.42's end_syncfs passes over a file that is
    // not a regular one (no "sync FS" line); filetype=file syncs. (fio
    // takes filetype only for the files named after it: it comes first.)
    for (t, syncs) in [("--filetype=char", false), ("--filetype=file", true)] {
        args.insert(1, t);
        let out = rfio_as(&dir, "3.42", &args);
        args.remove(1);
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.contains("sync FS ."), syncs, "{t}: {text}");
    }
    let out = rfio_as(&dir, "3.42", &["--name=t", "--size=4k", "--filetype=bogus"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("filetype"), "{}", stderr(&out));
    let out = rfio_as(
        &dir,
        "3.41",
        &[
            "--name=t",
            "--ioengine=null",
            "--size=4k",
            "--filetype=file",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = rfio_as(
        &dir,
        "3.33",
        &[
            "--name=t",
            "--ioengine=null",
            "--size=4k",
            "--filetype=file",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown option 'filetype' (fio 3.41 added it"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn with_group_reporting_ramp_size_counts_the_groups_bytes() {
    let dir = TempDir::new("later-ramp-group");
    let args = |group: bool| {
        let mut v = vec![
            "--name=g",
            "--ioengine=null",
            "--rw=read",
            "--bs=4k",
            "--size=12m",
            "--rate_iops=2000",
            "--ramp_size=10m",
            "--numjobs=2",
            "--output-format=json",
        ];
        if group {
            v.push("--group_reporting");
        }
        v
    };
    // Each job reads 8 MB a second for 1.5 s: alone, neither has its
    // 10 MiB at the first check (0.9 s in) and both end inside their
    // ramp, reporting all 3072 reads (fio 3.42 here: 3072 and 3072).
    let doc = json_as(&dir, "3.42", &args(false));
    let n: Vec<u64> = (0..2)
        .map(|i| doc["jobs"][i]["read"]["total_ios"].as_u64().expect("ios"))
        .collect();
    assert_eq!(n, [3072, 3072]);
    // Together they have it at that check, and both ramps end there
    // (fio 3.42: 2774 reads of the 6144 counted for the group).
    let doc = json_as(&dir, "3.42", &args(true));
    let n = ios(&doc, "read");
    assert!((1500..=4500).contains(&n), "{n} reads counted");
}
