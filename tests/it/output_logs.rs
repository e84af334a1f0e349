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
