//! Which entries the reports hold, against fio 3.33's own output: the empty
//! entries fio prints for `stats=0` jobs, a job that fails its setup (no
//! size) reported with error 22 while the others run, file sizes drawn
//! from `filesize=lo-hi`, and patterns refused when the job file is read.
//! Every expected string and number here was printed by fio 3.33 on the
//! same job file.

use crate::common;

use std::process::Output;

use common::{rfio, stderr, TempDir};

/// Run rfio with `args` in `dir`; its output.
fn corpus(name: &str) -> String {
    format!("{}/jobfiles/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

/// fio's line for the entry it counts for a `stats=0` job and never fills.
const EMPTY_V3: &str = "3;fio-3.33;;-1;0;0;0;0;0;0;0;0.000000;0.000000;0;0;0.000000;0.000000;\
0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;\
0%=0;0%=0;0;0;0.000000;0.000000;0;0;0.000000%;0.000000;0.000000;0;0;0;0;0;0;0.000000;0.000000;\
0;0;0.000000;0.000000;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;\
0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0;0;0.000000;0.000000;0;0;0.000000%;0.000000;0.000000;\
0.000000%;0.000000%;0;0;0;0.0%;0.0%;0.0%;0.0%;0.0%;0.0%;0.0%;-nan%;0.00%;0.00%;0.00%;0.00%;\
0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;\
0.00%;0.00%";

/// The keys of that entry in fio's JSON, in order: no `jobname` (empty),
/// no `job options`, no `latency_depth`.
const EMPTY_JSON_KEYS: [&str; 20] = [
    "groupid",
    "error",
    "eta",
    "elapsed",
    "read",
    "write",
    "trim",
    "sync",
    "job_runtime",
    "usr_cpu",
    "sys_cpu",
    "ctx",
    "majf",
    "minf",
    "iodepth_level",
    "iodepth_submit",
    "iodepth_complete",
    "latency_ns",
    "latency_us",
    "latency_ms",
];

/// The keys of one job object, in order (top level only).
fn job_keys(json: &str, job: usize) -> Vec<String> {
    let start = json
        .match_indices("\n    {\n")
        .nth(job)
        .unwrap_or_else(|| panic!("job {job} in {json}"))
        .0;
    json[start..]
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with("    }"))
        .filter(|l| l.starts_with("      \"") && !l.starts_with("       "))
        .map(|l| l.trim().split('"').nth(1).unwrap().to_string())
        .collect()
}

#[test]
fn stats_off_job_leaves_an_empty_entry_in_terse_and_json() {
    let dir = TempDir::new("stats-off");
    let job = corpus("jobs/stats-off.fio");
    let o = rfio(&dir.0, &["--minimal", &job]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with("3;fio-3.33;counted;0;0;1024;"),
        "{out}"
    );
    assert_eq!(lines[1], EMPTY_V3);

    let o = rfio(&dir.0, &["--output-format=json", &job]);
    let json = stdout(&o);
    assert_eq!(json.matches("\"jobname\"").count(), 1, "{json}");
    assert!(json.contains("\"groupid\" : 4294967295,"), "{json}");
    assert_eq!(job_keys(&json, 1), EMPTY_JSON_KEYS);
    assert!(job_keys(&json, 0).contains(&"job options".to_string()));

    // The normal output: one block (`counted`), one group line.
    let o = rfio(&dir.0, &[&job]);
    let out = stdout(&o);
    assert_eq!(out.matches("(groupid=").count(), 1, "{out}");
    assert!(out.contains("counted: (groupid=0, jobs=1)"), "{out}");
    assert_eq!(out.matches("Run status group").count(), 1, "{out}");
}

#[test]
fn group_reporting_join_and_stats_off_leave_empty_entries_last() {
    let dir = TempDir::new("stats-off-entries");
    let job = corpus("jobs/stats-off-entries.fio");
    for v in ["2", "3", "4", "5"] {
        let o = rfio(
            &dir.0,
            &[
                "--output-format=terse",
                &format!("--terse-version={v}"),
                &job,
            ],
        );
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "v{v}: {out}");
        let n = if v == "2" { 4 } else { 5 };
        let header = |l: &str| l.split(';').take(n).collect::<Vec<_>>().join(";");
        let prefix = if v == "2" {
            "2".to_string()
        } else {
            format!("{v};fio-3.33")
        };
        let (name, empty) = (format!("{prefix};counted;0;0"), format!("{prefix};;-1;0"));
        assert_eq!(header(lines[0]), name);
        assert_eq!(header(lines[1]), empty);
        assert_eq!(header(lines[2]), empty);
        assert_eq!(header(lines[3]), empty);
        if v == "3" {
            assert_eq!(lines[1], EMPTY_V3);
            // read KiB of `counted` with `joined` merged in: 256 + 256.
            assert_eq!(lines[0].split(';').nth(5), Some("512"));
        }
    }
    let o = rfio(&dir.0, &[&job]);
    let out = stdout(&o);
    assert!(out.contains("counted: (groupid=0, jobs=2)"), "{out}");
    assert!(
        out.contains("Run status group 0 (all jobs):\n   READ:"),
        "{out}"
    );
    assert!(out.contains("Run status group 1 (all jobs):\n"), "{out}");
    assert!(!out.contains("WRITE:"), "{out}");
}

/// fio 3.33's terse line for a job that failed its setup: error 22, the
/// percentile list, zeros everywhere.
const NO_SIZE_V3: &str = "3;fio-3.33;j;0;22;0;0;0;0;0;0;0.000000;0.000000;0;0;0.000000;0.000000;\
1.000000%=0;5.000000%=0;10.000000%=0;20.000000%=0;30.000000%=0;40.000000%=0;50.000000%=0;\
60.000000%=0;70.000000%=0;80.000000%=0;90.000000%=0;95.000000%=0;99.000000%=0;99.500000%=0;\
99.900000%=0;99.950000%=0;99.990000%=0;0%=0;0%=0;0%=0;0;0;0.000000;0.000000;0;0;0.000000%;\
0.000000;0.000000;0;0;0;0;0;0;0.000000;0.000000;0;0;0.000000;0.000000;1.000000%=0;5.000000%=0;\
10.000000%=0;20.000000%=0;30.000000%=0;40.000000%=0;50.000000%=0;60.000000%=0;70.000000%=0;\
80.000000%=0;90.000000%=0;95.000000%=0;99.000000%=0;99.500000%=0;99.900000%=0;99.950000%=0;\
99.990000%=0;0%=0;0%=0;0%=0;0;0;0.000000;0.000000;0;0;0.000000%;0.000000;0.000000;0.000000%;\
0.000000%;0;0;0;0.0%;0.0%;0.0%;0.0%;0.0%;0.0%;0.0%;-nan%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;\
0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%";

#[test]
fn a_job_without_size_is_reported_failed_and_the_others_run() {
    let dir = TempDir::new("no-size");
    let o = rfio(&dir.0, &["--minimal", &corpus("errors/no-size.fio")]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), format!("{NO_SIZE_V3}\n"));
    let err = stderr(&o);
    assert!(
        err.contains("no-size.fio:12:1: job 'j': no size given and no file size to use"),
        "{err}"
    );
    assert!(
        err.contains(
            "fio: pid=0, err=22/file:filesetup.c:1155, func=total_file_size, \
             error=Invalid argument\n"
        ),
        "{err}"
    );

    let job = corpus("errors/no-size-others.fio");
    let o = rfio(&dir.0, &["--minimal", &job]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    // name;group;error;read KiB, and write KiB ($47).
    let fields: Vec<String> = out
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(';').collect();
            format!("{};{};{};{};{}", f[2], f[3], f[4], f[5], f[46])
        })
        .collect();
    assert_eq!(
        fields,
        ["a;0;0;64;0", "j;0;22;0;0", "c;0;0;0;64", "d;1;0;64;0"]
    );
    let o = rfio(&dir.0, &["--output-format=json", &job]);
    let json = stdout(&o);
    assert_eq!(json.matches("\"error\" : 22,").count(), 1, "{json}");
    // Like fio: the failed job never set up its latency target.
    assert_eq!(json.matches("\"latency_depth\"").count(), 3, "{json}");
    assert_eq!(job_keys(&json, 1)[5], "job options");
    let o = rfio(&dir.0, &[&job]);
    let out = stdout(&o);
    assert_eq!(out.matches("(groupid=").count(), 3, "{out}");
    assert!(!out.contains("j: (groupid"), "{out}");
}

/// The sizes of the files a job file leaves in a fresh directory.
fn sizes_left(job: &str) -> Vec<(String, u64)> {
    let dir = TempDir::new("filesize");
    let o = rfio(&dir.0, &["--minimal", &corpus(job)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut v: Vec<(String, u64)> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().unwrap().len(),
            )
        })
        .collect();
    v.sort();
    v
}

fn named(v: &[(&str, u64)]) -> Vec<(String, u64)> {
    v.iter().map(|(n, s)| (n.to_string(), *s)).collect()
}

#[test]
fn filesize_ranges_give_each_file_the_size_fio_draws() {
    assert_eq!(
        sizes_left("files/filesize-range.fio"),
        named(&[
            ("ranged-files.0.0", 20480),
            ("ranged-files.0.1", 28672),
            ("ranged-files.0.2", 28672),
            ("ranged-files.0.3", 57344),
        ])
    );
    assert_eq!(
        sizes_left("files/filesize-range-numjobs.fio"),
        named(&[
            ("sized.0.0", 12288),
            ("sized.0.1", 32768),
            ("sized.0.2", 32768),
            ("sized.1.0", 24576),
            ("sized.1.1", 20480),
            ("sized.1.2", 8192),
            ("sized.2.0", 28672),
            ("sized.2.1", 36864),
            ("sized.2.2", 36864),
        ])
    );
    assert_eq!(
        sizes_left("files/filesize-range-taus64.fio"),
        named(&[
            ("taus64.0.0", 47104),
            ("taus64.0.1", 73728),
            ("taus64.0.2", 53248),
            ("taus64.0.3", 24576),
        ])
    );
}

#[test]
fn bad_patterns_fail_when_the_job_file_is_read() {
    let dir = TempDir::new("patterns");
    for (file, message) in [
        (
            "errors/buffer-pattern-bad-hex.fio",
            "buffer-pattern-bad-hex.fio:13:1: job 'bad-pattern': bad value for option \
             'buffer_pattern' ('buffer_pattern=0xZZ'): '0xZZ': 0x without hex digits",
        ),
        (
            "errors/buffer-pattern-format.fio",
            "'0x12%o': formats such as %o are for verify_pattern only, not at %o",
        ),
        (
            "errors/verify-pattern-bad.fio",
            "'0x12 0x34': unexpected blank at ' 0x34' (a blank may only come before a \
             decimal number)",
        ),
    ] {
        for mode in ["--parse-only", "--showcmd"] {
            let o = rfio(&dir.0, &[mode, &corpus(file)]);
            assert_eq!(o.status.code(), Some(1), "{file} {mode}");
            assert!(
                stderr(&o).contains(message),
                "{file} {mode}: {}",
                stderr(&o)
            );
        }
    }
    // What fio accepts, rfio accepts: decimal and hex pieces, strings, files,
    // %o in verify_pattern.
    std::fs::write(dir.file("pfile"), "hello\n").unwrap();
    for arg in [
        "--buffer_pattern=-100xab\"1\"\"2\"",
        "--buffer_pattern=0xff0x14",
        "--buffer_pattern='pfile'-1",
        "--buffer_pattern=12 34",
        "--verify_pattern=%o0xdeadbeef%o",
    ] {
        let o = rfio(
            &dir.0,
            &[
                "--parse-only",
                "--name=j",
                "--ioengine=null",
                "--size=4k",
                arg,
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{arg}: {}", stderr(&o));
    }
}
