//! Per-job logs (`write_bw_log`, `write_iops_log`, `write_lat_log`,
//! `write_hist_log`) written through `ThreadStats` from synthetic I/O:
//! names, columns and windows as fio 3.33 writes them (logs.md).

use std::path::{Path, PathBuf};

use rfio::api::{Completion, Plan, ThreadStats, NO_SLAT};

use crate::common;
use common::plan;

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("rfio-logs-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn prefix(&self) -> String {
        self.0.join("lg").display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn args(list: &[&str], extra: &[String]) -> Vec<String> {
    list.iter()
        .map(|s| s.to_string())
        .chain(extra.iter().cloned())
        .collect()
}

/// Run job `i` of `plan`: `n` reads of 4 KiB, one every `step_ms`, clat
/// 1000 + k ns; returns the finished stats.
fn run(plan: &Plan, i: usize, n: u64, step_ms: u64, slat: bool) -> ThreadStats {
    let mut ts = common::thread_stats(&plan.jobs[i]);
    ts.job_started();
    for k in 1..=n {
        let s = if slat { 500 } else { NO_SLAT };
        ts.complete(&Completion {
            bytes: 4096,
            slat_ns: s,
            clat_ns: 1000 + k,
            at_ns: k * step_ms * 1_000_000,
            offset: k * 4096,
            ..Completion::default()
        });
    }
    ts.elapsed_us = n * step_ms * 1000 + 500;
    ts.job_finished();
    assert_eq!(ts.log_error, None);
    ts
}

fn lines(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split(", ").map(String::from).collect())
        .collect()
}

#[test]
fn per_io_logs_have_one_line_per_io() {
    let dir = TempDir::new("perio");
    let p = dir.prefix();
    let plan = plan(&args(
        &["--name=x", "--ioengine=null", "--size=1m"],
        &[
            format!("--write_bw_log={p}"),
            format!("--write_iops_log={p}"),
            format!("--write_lat_log={p}"),
        ],
    ));
    let ts = run(&plan, 0, 16, 1, false);
    let clat = lines(&dir.read("lg_clat.1.log"));
    assert_eq!(clat.len(), 16);
    assert_eq!(clat[0], ["1", "1001", "0", "4096", "0"]);
    let bw = lines(&dir.read("lg_bw.1.log"));
    // bytes * 1e6 / clat_ns
    assert_eq!(
        bw[0],
        [
            "1",
            (4096u64 * 1_000_000 / 1001).to_string().as_str(),
            "0",
            "4096",
            "0"
        ]
    );
    let iops = lines(&dir.read("lg_iops.1.log"));
    assert!(iops.iter().all(|l| l[1] == "1"));
    assert_eq!(lines(&dir.read("lg_lat.1.log")).len(), 16);
    // A sync engine records no slat: the file exists and is empty.
    assert_eq!(dir.read("lg_slat.1.log"), "");
    // fio's quirk: per-I/O logs turn the summary samples per-I/O too.
    assert_eq!(ts.bw[0].summary().unwrap().samples, 16);
    assert_eq!(ts.iops[0].summary().unwrap().samples, 16);
}

#[test]
fn windowed_logs_average_and_write_the_last_window_once() {
    let dir = TempDir::new("avg");
    let p = dir.prefix();
    let plan = plan(&args(
        &[
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--log_avg_msec=100",
            "--log_offset=1",
            "--log_prio=1",
        ],
        &[
            format!("--write_bw_log={p}"),
            format!("--write_lat_log={p}"),
        ],
    ));
    // 1050 I/Os, one per ms: windows end at 100, 200, ... 1000, then a
    // partial one to 1050 (latency logs only).
    let ts = run(&plan, 0, 1050, 1, true);
    let clat = lines(&dir.read("lg_clat.1.log"));
    assert_eq!(clat.len(), 11, "{clat:?}");
    assert_eq!(clat[0][0], "100");
    assert_eq!(clat[10][0], "1050");
    // time, value, ddir, bs=0, offset=0, prio as 0x%04x
    assert_eq!(&clat[0][2..], ["0", "0", "0", "0x0000"]);
    // The bandwidth log has no partial window at the end: fio's helper
    // thread samples bandwidth only while the job runs.
    let bw = lines(&dir.read("lg_bw.1.log"));
    assert_eq!(bw.len(), 10, "{bw:?}");
    // 99 I/Os of 4 KiB completed before 100 ms: 3960 KiB/s.
    assert_eq!(bw[0][..2], ["100", "3960"]);
    assert_eq!(bw[9][0], "1000");
    let slat = lines(&dir.read("lg_slat.1.log"));
    assert!(slat.iter().all(|l| l[1] == "500"));
    // Summary bw samples at min(bwavgtime, log_avg_msec), no final partial.
    assert_eq!(ts.bw[0].summary().unwrap().samples, 10);
}

#[test]
fn names_use_the_thread_number_or_append_without_it() {
    let dir = TempDir::new("names");
    let p = dir.prefix();
    let plan = plan(&args(
        &["--name=a", "--ioengine=null", "--size=1m", "--numjobs=2"],
        &[
            format!("--write_iops_log={p}"),
            "--name=b".into(),
            "--ioengine=null".into(),
            "--size=1m".into(),
            format!("--write_iops_log={p}"),
            "--per_job_logs=0".into(),
        ],
    ));
    for i in 0..3 {
        run(&plan, i, 4, 1, false);
    }
    run(&plan, 2, 4, 1, false);
    assert_eq!(lines(&dir.read("lg_iops.1.log")).len(), 4);
    assert_eq!(lines(&dir.read("lg_iops.2.log")).len(), 4);
    // per_job_logs=0: no number, appended across runs.
    assert_eq!(lines(&dir.read("lg_iops.log")).len(), 8);
    assert!(!Path::new(&dir.0.join("lg_iops.3.log")).exists());
}

#[test]
fn histogram_rows_have_fio_columns() {
    let dir = TempDir::new("hist");
    let p = dir.prefix();
    let plan = plan(&args(
        &[
            "--name=h",
            "--ioengine=null",
            "--size=1m",
            "--log_hist_msec=100",
            "--log_hist_coarseness=4",
        ],
        &[format!("--write_hist_log={p}")],
    ));
    run(&plan, 0, 350, 1, false);
    let rows = lines(&dir.read("lg_clat_hist.1.log"));
    // Rows at 101 (the window starts at the first sample, 1 ms), 201, 301,
    // and the partial window at the end.
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert_eq!(rows[0][..3], ["101", "0", "4096"]);
    assert!(rows.iter().all(|r| r.len() == 3 + 1856 / 16));
    let counted: u64 = rows
        .iter()
        .flat_map(|r| r[3..].iter())
        .map(|c| c.parse::<u64>().unwrap())
        .sum();
    assert_eq!(counted, 350, "every completion in exactly one row");
}

/// Run rfio (the binary: `--compat` picks the release) on a null job of
/// `extra` in a fresh directory; the lines of log `name` (prefix `l`).
fn logged(tag: &str, extra: &[&str], name: &str) -> Vec<Vec<String>> {
    let dir = TempDir::new(tag);
    let mut argv = vec![
        "--name=x",
        "--ioengine=null",
        "--size=256k",
        "--time_based",
        "--runtime=300ms",
        "--output=/dev/null",
    ];
    argv.extend_from_slice(extra);
    let o = common::rfio(&dir.0, &argv);
    assert!(o.status.success(), "{extra:?}: {}", common::stderr(&o));
    let rows = lines(&dir.read(name));
    assert!(!rows.is_empty(), "{name} is empty");
    rows
}

/// A number of a log line.
fn num(field: &str) -> u64 {
    field
        .parse()
        .unwrap_or_else(|_| panic!("{field:?} is not a number"))
}

#[test]
fn window_value_both_logs_the_average_then_the_max_from_fio_3_37() {
    let windowed = |release: &str, value: &str| {
        let opt = format!("--{value}");
        let compat = format!("--compat=fio-{release}");
        let extra = [
            compat.as_str(),
            "--write_lat_log=l",
            "--log_avg_msec=100",
            opt.as_str(),
        ];
        logged(&format!("both-{release}-{value}"), &extra, "l_clat.1.log")
    };
    // fio 3.42's t0033: time, avg, max, ddir, bs 0, prio.
    for rows in [
        windowed("3.42", "log_window_value=both"),
        windowed("3.42", "log_max_value=both"),
    ] {
        for r in &rows {
            assert_eq!(r.len(), 6, "{r:?}");
            assert_eq!(&r[3..], ["0", "0", "0"], "{r:?}");
            assert!(num(&r[2]) >= num(&r[1]), "max below the mean: {r:?}");
        }
    }
    for (release, value) in [
        ("3.42", "log_window_value=max"),
        ("3.36", "log_max_value=1"),
    ] {
        for r in &windowed(release, value) {
            assert_eq!(r.len(), 5, "{release} {value}: {r:?}");
        }
    }
    // Without a window every line has the second value, 0.
    let per_io = logged(
        "both-per-io",
        &[
            "--compat=fio-3.42",
            "--write_iops_log=l",
            "--log_window_value=both",
        ],
        "l_iops.1.log",
    );
    for r in &per_io {
        assert_eq!(&r[1..5], ["1", "0", "0", "4096"], "{r:?}");
        assert_eq!(r.len(), 6, "{r:?}");
    }
}

#[test]
fn issue_time_is_the_last_column_of_every_log_from_fio_3_38() {
    let extra = [
        "--compat=fio-3.38",
        "--ioengine=libaio",
        "--filename=f",
        "--write_lat_log=l",
        "--write_bw_log=l",
        "--log_offset=1",
        "--log_issue_time=1",
    ];
    // libaio: the slat and clat lines of one I/O are in the same order.
    let dir = TempDir::new("issue");
    let mut argv = vec!["--name=x", "--size=64k", "--rw=read", "--output=/dev/null"];
    argv.extend_from_slice(&extra);
    let o = common::rfio(&dir.0, &argv);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let clat = lines(&dir.read("l_clat.1.log"));
    let slat = lines(&dir.read("l_slat.1.log"));
    let lat = lines(&dir.read("l_lat.1.log"));
    let bw = lines(&dir.read("l_bw.1.log"));
    assert_eq!(clat.len(), 16);
    for (i, c) in clat.iter().enumerate() {
        // time, clat, ddir, bs, offset, prio, issue time (ns).
        assert_eq!(c.len(), 7, "{c:?}");
        assert_eq!(&c[2..6], ["0", "4096", &(i as u64 * 4096).to_string(), "0"]);
        assert_eq!(slat[i][6], c[6], "one issue time for the I/O");
        // Issued before it completed: its ms at or before the clat line's.
        assert!(num(&c[6]) / 1_000_000 <= num(&c[0]), "{c:?}");
        assert_eq!(lat[i][6], "0");
        assert_eq!(bw[i][6], "0");
    }
    // Windowed: 0, after both values (fio 3.42's t0034 job2).
    let w = logged(
        "issue-window",
        &[
            "--compat=fio-3.42",
            "--write_lat_log=l",
            "--log_offset=1",
            "--log_issue_time=1",
            "--log_avg_msec=100",
            "--log_window_value=both",
        ],
        "l_clat.1.log",
    );
    for r in &w {
        assert_eq!(&r[3..], ["0", "0", "0", "0", "0"], "{r:?}");
    }
}

#[test]
fn issue_time_needs_the_latency_log_and_offsets() {
    let dir = TempDir::new("issue-refused");
    let run = |extra: &[&str]| {
        let mut argv = vec![
            "--name=x",
            "--ioengine=null",
            "--size=64k",
            "--output=/dev/null",
            "--compat=fio-3.42",
        ];
        argv.extend_from_slice(extra);
        common::rfio(&dir.0, &argv)
    };
    // fio 3.42's add_job: exit 1 before any job runs.
    for extra in [
        &["--log_issue_time=1"][..],
        &["--log_issue_time=1", "--write_lat_log=l"],
        &["--log_issue_time=1", "--log_offset=1", "--write_bw_log=l"],
    ] {
        let o = run(extra);
        assert_eq!(o.status.code(), Some(1), "{extra:?}");
        assert!(
            common::stderr(&o)
                .contains("log_issue_time option requires write_lat_log and log_offset options"),
            "{extra:?}: {}",
            common::stderr(&o)
        );
    }
    let o = run(&["--log_issue_time=1", "--log_offset=1", "--write_lat_log=l"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    // Before 3.38 the option is unknown.
    let o = common::rfio(
        &dir.0,
        &[
            "--name=x",
            "--ioengine=null",
            "--size=64k",
            "--compat=fio-3.37",
            "--log_issue_time=1",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn hist_coarseness_is_0_to_6_from_fio_3_42_and_any_stride_before() {
    let dir = TempDir::new("coarse");
    let o = common::rfio(
        &dir.0,
        &[
            "--name=x",
            "--ioengine=null",
            "--size=64k",
            "--compat=fio-3.42",
            "--write_hist_log=h",
            "--log_hist_coarseness=7",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    // fio 3.42: "log_hist_coarseness: max value out of range: 7 (6 max)".
    assert!(
        common::stderr(&o).contains("max value out of range: 7 (6 max)"),
        "{}",
        common::stderr(&o)
    );
    // fio 3.33 takes 7: columns every 128 buckets while 128 are left,
    // then the last 128 (overlapping): 15 columns after time, ddir, bs.
    let row = |c: &str| {
        let opt = format!("--log_hist_coarseness={c}");
        let extra = ["--write_hist_log=h", "--log_hist_msec=50", opt.as_str()];
        logged(&format!("coarse-{c}"), &extra, "h_clat_hist.1.log")[0].len()
    };
    assert_eq!(row("7"), 3 + 15);
    assert_eq!(row("6"), 3 + 29);
    assert_eq!(row("10"), 3 + 2);
}
