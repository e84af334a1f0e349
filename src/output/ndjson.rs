//! Streaming status, one compact JSON object a line (NDJSON): rfio's own
//! format (`--output-format=ndjson`, `--status-format=ndjson`; fio 3.33
//! has no such value). Pure functions of the run reports.
//!
//! - [`status_line`]: one line per `--status-interval` report,
//!   `{"type":"status","time":MS,"elapsed_ms":MS,"eta_sec":S,"jobs":[...]}`
//!   (`eta_sec` null while not known, fio's INT_MAX),
//!   each job `{"jobname","groupid","read":{..},"write":{..},"trim":{..}}`
//!   and each direction `{"iops","bw_bytes","clat_mean_ns","clat_p99_ns",
//!   "io_bytes","total_ios"}`.
//! - [`final_line`]: `{"type":"final","report":DOC}`, DOC the document
//!   `--output-format=json` (or `json+`) prints, on one line.
//!
//! The interval numbers are the difference between this report and the
//! previous one (the first: since the job's start): I/Os and bytes over
//! the job's own runtime between the two (both taken by the job thread,
//! so they agree), the mean completion latency of the interval's I/Os
//! (from the cumulative means and counts), and the interval's p99 from
//! the difference of the two completion-latency histograms at fio's
//! bucket resolution (`null` without a histogram, e.g. `percentile_list`
//! off, or without I/O in the interval). `io_bytes` and `total_ios` are
//! cumulative since the job's start.

use serde_json::{json, Map, Value};

use crate::stats::{DirReport, JobReport, RunReport};

const DIRS: [&str; 3] = ["read", "write", "trim"];

/// The NDJSON line (with its newline) of the interim report `cur`, the
/// interval since `prev` (the previous interim report of the same run).
pub fn status_line(prev: Option<&RunReport>, cur: &RunReport) -> String {
    let jobs: Vec<Value> = cur
        .jobs
        .iter()
        .enumerate()
        .map(|(i, job)| {
            let before = prev.and_then(|p| p.jobs.get(i));
            job_obj(before, job)
        })
        .collect();
    let line = json!({
        "type": "status",
        "time": cur.finished_ms,
        "elapsed_ms": cur.elapsed_ms,
        // fio's INT_MAX "not known yet" (no job started): null.
        "eta_sec": cur.eta_sec.filter(|&s| s < i32::MAX as u64),
        "jobs": jobs,
    });
    format!("{line}\n")
}

/// The last NDJSON line (with its newline): the final report as the JSON
/// document `--output-format=json` (`plus`: `json+`) prints, compacted.
pub fn final_line(report: &RunReport, plus: bool) -> String {
    let doc = super::json::render(report, plus);
    let doc: Value = serde_json::from_str(&doc).unwrap_or(Value::Null);
    format!("{}\n", json!({"type": "final", "report": doc}))
}

fn job_obj(prev: Option<&JobReport>, cur: &JobReport) -> Value {
    let mut obj = Map::new();
    obj.insert("jobname".into(), cur.name().into());
    obj.insert("groupid".into(), cur.group_id().into());
    for (d, name) in DIRS.iter().enumerate() {
        let before = prev.map(|p| &p.dirs[d]);
        obj.insert((*name).into(), dir_obj(before, &cur.dirs[d]));
    }
    Value::Object(obj)
}

fn dir_obj(prev: Option<&DirReport>, cur: &DirReport) -> Value {
    let zero = DirReport::default();
    let prev = prev.unwrap_or(&zero);
    let ios = cur.ios.saturating_sub(prev.ios);
    let bytes = cur.bytes.saturating_sub(prev.bytes);
    let ms = cur.runtime_ms.saturating_sub(prev.runtime_ms);
    let (iops, bw) = match ms {
        0 => (0.0, 0),
        ms => (
            round3(ios as f64 * 1000.0 / ms as f64),
            bytes.saturating_mul(1000) / ms,
        ),
    };
    json!({
        "iops": iops,
        "bw_bytes": bw,
        "clat_mean_ns": interval_mean(prev, cur),
        "clat_p99_ns": interval_p99(prev, cur),
        "io_bytes": cur.bytes,
        "total_ios": cur.ios,
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The mean completion latency of the I/Os completed between the two
/// reports; `None` when none were.
fn interval_mean(prev: &DirReport, cur: &DirReport) -> Option<f64> {
    let (n1, m1) = prev
        .clat
        .summary()
        .map_or((0, 0.0), |s| (s.samples, s.mean));
    let s2 = cur.clat.summary()?;
    let n = s2.samples.checked_sub(n1).filter(|&n| n > 0)?;
    let sum = s2.mean * s2.samples as f64 - m1 * n1 as f64;
    Some(round3((sum / n as f64).max(0.0)))
}

/// The 99th percentile of the completion latencies recorded between the
/// two reports, at fio's bucket resolution; `None` without a histogram or
/// without I/O in the interval.
fn interval_p99(prev: &DirReport, cur: &DirReport) -> Option<u64> {
    let now = cur.clat_hist.as_ref()?.fio_bins();
    let before = prev
        .clat_hist
        .as_ref()
        .map(|h| h.fio_bins())
        .unwrap_or_default();
    // Both are sorted by bucket value: subtract the earlier counts.
    let mut old = before.iter().peekable();
    let mut diff: Vec<(u64, u64)> = Vec::with_capacity(now.len());
    for &(value, count) in &now {
        let mut sub = 0;
        while let Some(&&(v, c)) = old.peek() {
            if v > value {
                break;
            }
            if v == value {
                sub = c;
            }
            old.next();
        }
        diff.push((value, count.saturating_sub(sub)));
    }
    let total: u64 = diff.iter().map(|&(_, c)| c).sum();
    if total == 0 {
        return None;
    }
    let rank = 0.99 * total as f64;
    let mut cum = 0u64;
    for &(value, count) in &diff {
        cum += count;
        if cum as f64 >= rank {
            return Some(value);
        }
    }
    diff.last().map(|&(v, _)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::stats::{LatAccum, LatHist};

    fn dir(ios: u64, runtime_ms: u64, lats: &[u64]) -> DirReport {
        let mut d = DirReport {
            ios,
            bytes: ios * 4096,
            runtime_ms,
            ..Default::default()
        };
        let mut acc = LatAccum::default();
        let mut hist = LatHist::new();
        for &ns in lats {
            acc.add(ns);
            hist.record(ns);
        }
        d.clat = acc;
        d.clat_hist = Some(Box::new(hist));
        d
    }

    #[test]
    fn interval_numbers_are_differences() {
        let a = dir(100, 1000, &[1000; 100]);
        let mut lats = vec![1000u64; 100];
        lats.extend(std::iter::repeat_n(3000, 200));
        let b = dir(300, 2000, &lats);
        let v = dir_obj(Some(&a), &b);
        assert_eq!(v["iops"], json!(200.0));
        assert_eq!(v["bw_bytes"], json!(200 * 4096));
        assert_eq!(v["clat_mean_ns"], json!(3000.0));
        // The value of fio's bucket for 3000 ns (32 ns wide there).
        let p99 = v["clat_p99_ns"].as_u64().unwrap();
        assert!((2990..=3040).contains(&p99), "{p99}");
        assert_eq!(v["io_bytes"], json!(300 * 4096));
        assert_eq!(v["total_ios"], json!(300));
        // The first report: since the job's start.
        let first = dir_obj(None, &a);
        assert_eq!(first["iops"], json!(100.0));
        assert_eq!(first["clat_mean_ns"], json!(1000.0));
        let p99 = first["clat_p99_ns"].as_u64().unwrap();
        assert!((990..=1010).contains(&p99), "{p99}");
    }

    #[test]
    fn no_io_in_the_interval_gives_zeros_and_nulls() {
        let a = dir(100, 1000, &[1000; 100]);
        let v = dir_obj(Some(&a), &a);
        assert_eq!(v["iops"], json!(0.0));
        assert_eq!(v["bw_bytes"], json!(0));
        assert_eq!(v["clat_mean_ns"], Value::Null);
        assert_eq!(v["clat_p99_ns"], Value::Null);
        assert_eq!(v["total_ios"], json!(100));
        let idle = dir_obj(None, &DirReport::default());
        assert_eq!(idle["clat_p99_ns"], Value::Null);
        assert_eq!(idle["iops"], json!(0.0));
    }

    #[test]
    fn lines_are_one_compact_object_each() {
        let mut job = JobReport::empty(crate::stats::JobInfo::named("a", 2), 1);
        job.dirs[1] = dir(10, 100, &[500; 10]);
        let mut r = RunReport::new(vec![job], Default::default(), 1_000, 3_500, Vec::new());
        r.eta_sec = Some(7);
        let line = status_line(None, &r);
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["type"], "status");
        assert_eq!(v["time"], json!(3_500));
        assert_eq!(v["elapsed_ms"], json!(2_500));
        assert_eq!(v["eta_sec"], json!(7));
        r.eta_sec = Some(i32::MAX as u64);
        let unknown: Value = serde_json::from_str(&status_line(None, &r)).unwrap();
        assert_eq!(unknown["eta_sec"], Value::Null);
        assert_eq!(v["jobs"][0]["jobname"], "a");
        assert_eq!(v["jobs"][0]["groupid"], json!(2));
        assert_eq!(v["jobs"][0]["write"]["iops"], json!(100.0));
        assert_eq!(v["jobs"][0]["read"]["total_ios"], json!(0));
        let fin = final_line(&r, false);
        assert!(fin.ends_with('\n') && fin.matches('\n').count() == 1);
        let v: Value = serde_json::from_str(&fin).unwrap();
        assert_eq!(v["type"], "final");
        let doc: Value = serde_json::from_str(&super::super::json::render(&r, false)).unwrap();
        assert_eq!(v["report"], doc);
    }
}
