//! Replays of real fio 3.33 runs: each case under `tests/golden/fio/` is a
//! command line (`<case>.cmd`, one argument per line) and what fio printed
//! for it with `--output-format=terse,json+,normal` (`<case>.out`), all
//! three formats from the same run. The test rebuilds a run report from
//! fio's JSON+ numbers, renders it with rfio and compares byte for byte
//! with fio's text, except for what cannot be the same:
//!
//! - percentile values (rfio computes them from a 0.1% histogram, fio from
//!   its ~0.8% buckets): percentile table rows of the normal output, the
//!   `p%=value` terse slots and the `"p" : value` JSON entries are masked;
//! - the pid and date of the normal job header (not in the JSON).
//!
//! How the cases were made: `scripts` in `tests/golden/fio/README.md`.

use std::path::{Path, PathBuf};

use rfio::api::{
    render_results, CpuUsage, DepthMaps, DirReport, DiskCounters, DiskUtil, Formats, JobReport,
    JobSpec, LatAccum, LatBuckets, LatHist, Plan, RunReport, SyncReport,
};
use serde_json::Value;

use crate::common;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/fio")
}

fn plan_of(argv: &[String]) -> (Plan, Formats) {
    let args = common::args(argv);
    (common::plan(argv), rfio::api::formats(&args))
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .or_else(|| v.as_f64().map(|f| f as u64))
        .unwrap_or(0)
}

fn fl(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn lat(v: &Value) -> (LatAccum, Option<Box<LatHist>>) {
    let acc = LatAccum::from_parts(
        u(&v["N"]),
        u(&v["min"]),
        u(&v["max"]),
        fl(&v["mean"]),
        fl(&v["stddev"]),
    );
    let hist = v["bins"].as_object().map(|bins| {
        let mut h = LatHist::new();
        for (k, c) in bins {
            h.record_n(k.parse().unwrap(), u(c));
        }
        Box::new(h)
    });
    (acc, hist)
}

fn dir(v: &Value) -> DirReport {
    let (slat, slat_hist) = lat(&v["slat_ns"]);
    let (clat, clat_hist) = lat(&v["clat_ns"]);
    let (lat_acc, lat_hist) = lat(&v["lat_ns"]);
    DirReport {
        bytes: u(&v["io_bytes"]),
        ios: u(&v["total_ios"]),
        short_ios: u(&v["short_ios"]),
        drop_ios: u(&v["drop_ios"]),
        runtime_ms: u(&v["runtime"]),
        bw: u(&v["bw_bytes"]),
        iops: fl(&v["iops"]) as u64,
        slat,
        clat,
        lat: lat_acc,
        slat_hist,
        clat_hist,
        lat_hist,
        bw_samples: LatAccum::from_parts(
            u(&v["bw_samples"]),
            u(&v["bw_min"]),
            u(&v["bw_max"]),
            fl(&v["bw_mean"]),
            fl(&v["bw_dev"]),
        ),
        iops_samples: LatAccum::from_parts(
            u(&v["iops_samples"]),
            u(&v["iops_min"]),
            u(&v["iops_max"]),
            fl(&v["iops_mean"]),
            fl(&v["iops_stddev"]),
        ),
    }
}

/// Counts that reproduce fio's printed percentages of `total`.
fn counts<const N: usize>(v: &Value, keys: &[&str], total: u64) -> [u64; N] {
    std::array::from_fn(|i| (fl(&v[keys[i]]) * total as f64 / 100.0).round() as u64)
}

/// The job report of one JSON job object.
fn job_report(j: &Value, spec: &JobSpec, pid: u32) -> JobReport {
    assert_eq!(j["jobname"].as_str(), Some(spec.name.as_str()));
    assert_eq!(u(&j["groupid"]), u64::from(spec.group_id));
    let mut r = JobReport::empty(spec.report.clone(), pid);
    r.error = u(&j["error"]) as i32;
    if j.get("mixed").is_some() && j.get("read").is_none() {
        r.dirs[0] = dir(&j["mixed"]);
    } else {
        for (d, name) in ["read", "write", "trim"].iter().enumerate() {
            r.dirs[d] = dir(&j[*name]);
        }
        let (sl, sh) = lat(&j["sync"]["lat_ns"]);
        r.sync = SyncReport {
            ios: u(&j["sync"]["total_ios"]),
            lat: sl,
            hist: sh,
        };
    }
    r.run_ms = u(&j["job_runtime"]);
    r.cpu = CpuUsage {
        usr_ms: (fl(&j["usr_cpu"]) * r.run_ms as f64 / 100.0).round() as u64,
        sys_ms: (fl(&j["sys_cpu"]) * r.run_ms as f64 / 100.0).round() as u64,
        ctx: u(&j["ctx"]),
        majf: u(&j["majf"]),
        minf: u(&j["minf"]),
    };
    let total: u64 = r.dirs.iter().map(|d| d.ios).sum();
    let big = 100_000_000;
    let dk = ["1", "2", "4", "8", "16", "32", ">=64"];
    let bk = ["0", "4", "8", "16", "32", "64", ">=64"];
    r.depth = DepthMaps {
        depth: counts(&j["iodepth_level"], &dk, total),
        submit: counts(&j["iodepth_submit"], &bk, big),
        total_submit: big,
        complete: counts(&j["iodepth_complete"], &bk, big),
        total_complete: big,
    };
    let lk = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    r.lat_buckets = LatBuckets {
        n: counts(&j["latency_ns"], &lk, total),
        u: counts(&j["latency_us"], &lk, total),
        m: counts(&j["latency_ms"], &lk, total),
    };
    r.latency_depth = j.get("latency_depth").map(|d| u(d) as u32);
    r.total_err = j.get("total_err").map_or(0, u);
    r.first_error = j.get("first_error").map_or(0, |v| u(v) as i32);
    r
}

/// The run report behind fio's JSON: one job report per JSON job for its
/// first member, empty reports for the other members of a group.
fn run_report(json: &Value, plan: &Plan, pids: &[u32]) -> RunReport {
    let entries = json["jobs"].as_array().unwrap();
    let mut jobs = Vec::new();
    let mut k = 0usize;
    let mut last_group: Option<u32> = None;
    for spec in &plan.jobs {
        let join = !jobs.is_empty() && spec.group_reporting && last_group == Some(spec.group_id);
        last_group = Some(spec.group_id);
        if join {
            jobs.push(JobReport::empty(spec.report.clone(), 0));
        } else {
            jobs.push(job_report(
                &entries[k],
                spec,
                pids.get(k).copied().unwrap_or(0),
            ));
            k += 1;
        }
    }
    let disks = json["disk_util"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| DiskUtil {
                    name: d["name"].as_str().unwrap().to_string(),
                    stats: DiskCounters {
                        ios: [u(&d["read_ios"]), u(&d["write_ios"])],
                        merges: [u(&d["read_merges"]), u(&d["write_merges"])],
                        sectors: [0, 0],
                        ticks: [u(&d["read_ticks"]), u(&d["write_ticks"])],
                        io_ticks: (fl(&d["util"]) * 1e7).round() as u64,
                        time_in_queue: u(&d["in_queue"]),
                    },
                    msec: 1_000_000_000,
                    slaves: Vec::new(),
                })
                .collect()
        })
        .unwrap_or_default();
    let finished_ms = u(&json["timestamp_ms"]);
    let elapsed_ms = u(&entries[0]["elapsed"]) * 1000;
    let globals = rfio::api::global_options(plan);
    let mut r = RunReport::new(jobs, globals, finished_ms - elapsed_ms, finished_ms, disks)
        .of_release(plan.release);
    r.finished_at = u(&json["timestamp"]) as i64;
    // fio ran in UTC.
    r.utc_offset = 0;
    r
}

/// fio's output split into: what precedes the results (banners, version,
/// Starting), terse lines, the JSON document, the normal results.
struct Captured {
    head: String,
    terse: String,
    json: String,
    normal: String,
}

fn split(out: &str) -> Captured {
    let lines: Vec<&str> = out.split_inclusive('\n').collect();
    let is_terse = |l: &str| {
        let mut it = l.splitn(2, ';');
        let first = it.next().unwrap_or("");
        it.next().is_some() && first.chars().all(|c| c.is_ascii_digit()) && !first.is_empty()
    };
    let first_result = lines
        .iter()
        .position(|l| is_terse(l) || *l == "{\n")
        .unwrap_or(lines.len());
    let json_start = lines.iter().position(|l| *l == "{\n");
    let json_end = lines.iter().position(|l| *l == "}\n");
    // fio prints notices such as "fio: unit_base differs for jobs in
    // group" on stdout; rfio sends them to stderr.
    let mut c = Captured {
        head: lines[..first_result]
            .iter()
            .filter(|l| !l.starts_with("fio: "))
            .copied()
            .collect(),
        terse: String::new(),
        json: String::new(),
        normal: String::new(),
    };
    let mut i = first_result;
    while i < lines.len() {
        if Some(i) == json_start {
            let end = json_end.unwrap();
            c.json = lines[i..=end].concat();
            i = end + 1;
            continue;
        }
        if c.normal.is_empty() && (is_terse(lines[i]) || lines[i].starts_with(';')) {
            c.terse.push_str(lines[i]);
        } else {
            c.normal.push_str(lines[i]);
        }
        i += 1;
    }
    c
}

fn mask_normal(s: &str) -> String {
    s.lines()
        .map(|l| match l.find(": pid=") {
            Some(p) if l.contains("(groupid=") => format!("{}: pid=P: DATE", &l[..p]),
            // Percentile rows: the labels and the layout, not the values.
            _ if l.starts_with("     |") => l
                .split('[')
                .enumerate()
                .map(|(i, part)| match part.find(']') {
                    Some(e) if i > 0 => format!("[V{}", &part[e..]),
                    _ => part.to_string(),
                })
                .collect(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn mask_terse(s: &str) -> String {
    s.lines()
        .map(|l| {
            l.split(';')
                .map(|f| match f.split_once("%=") {
                    Some((p, _)) if p.parse::<f64>().is_ok() => format!("{p}%=V"),
                    _ => f.to_string(),
                })
                .collect::<Vec<_>>()
                .join(";")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn mask_json(s: &str) -> String {
    let mut in_pct = false;
    s.lines()
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with("\"percentile\" : {") {
                in_pct = true;
                return l.to_string();
            }
            if in_pct && t.starts_with('}') {
                in_pct = false;
            }
            if in_pct {
                if let Some((k, _)) = l.split_once(" : ") {
                    return format!("{k} : V");
                }
            }
            l.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Split a line into text and decimal numbers (`12.345`).
fn tokens(l: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let b = l.as_bytes();
    let (mut i, mut start) = (0, 0);
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                out.push((false, &l[start..s]));
                out.push((true, &l[s..i]));
                start = i;
            }
        } else {
            i += 1;
        }
    }
    out.push((false, &l[start..]));
    out
}

/// Whether two lines are the same, a decimal number allowed to differ by
/// one unit in its last place: the numbers rebuilt from fio's JSON carry 6
/// decimals, so a value that fio rounded from more digits can come out
/// one last digit apart (`25.13` from 25.1250004 vs `25.12` from 25.125).
fn same_line(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (ta, tb) = (tokens(a), tokens(b));
    ta.len() == tb.len()
        && ta.iter().zip(&tb).all(|((na, x), (nb, y))| {
            if !na || !nb {
                return x == y;
            }
            let decimals = x.len() - x.find('.').unwrap() - 1;
            let ulp = 10f64.powi(-(decimals as i32));
            x.len() == y.len()
                && (x.parse::<f64>().unwrap() - y.parse::<f64>().unwrap()).abs() <= ulp * 1.01
        })
}

fn same(ours: &str, fio: &str, case: &str, what: &str) {
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), fio.lines().collect());
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(
            same_line(x, y),
            "{case}: {what}: line {} differs\nrfio: {x}\n fio: {y}",
            i + 1
        );
    }
    assert_eq!(a.len(), b.len(), "{case}: {what}: line count");
}

fn pids(normal: &str) -> Vec<u32> {
    normal
        .lines()
        .filter(|l| l.contains("(groupid="))
        .filter_map(|l| {
            let p = l.split(": pid=").nth(1)?;
            p.split(':').next()?.parse().ok()
        })
        .collect()
}

fn replay(case: &str) {
    let dir = golden_dir();
    let argv: Vec<String> = std::fs::read_to_string(dir.join(format!("{case}.cmd")))
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    let out = std::fs::read_to_string(dir.join(format!("{case}.out"))).unwrap();
    let (plan, formats) = plan_of(&argv);
    let fio = split(&out);
    let json: Value = serde_json::from_str(&fio.json).expect("fio's JSON parses");
    let report = run_report(&json, &plan, &pids(&fio.normal));
    let ours = split(&format!(
        "{}fio-3.33\n{}{}",
        rfio::api::normal_banners(plan.jobs.iter().map(|j| &j.report)),
        rfio::api::normal_starting(plan.jobs.iter().map(|j| &j.report)),
        render_results(&report, &formats)
    ));
    if let Some(d) = std::env::var_os("RFIO_REPLAY_DUMP") {
        let d = PathBuf::from(d);
        for (n, a, b) in [
            ("terse", mask_terse(&ours.terse), mask_terse(&fio.terse)),
            ("json", mask_json(&ours.json), mask_json(&fio.json)),
            (
                "normal",
                mask_normal(&ours.normal),
                mask_normal(&fio.normal),
            ),
        ] {
            std::fs::write(d.join(format!("{case}.{n}.rfio")), a).unwrap();
            std::fs::write(d.join(format!("{case}.{n}.fio")), b).unwrap();
        }
    }
    assert_eq!(ours.head, fio.head, "{case}: banners");
    same(
        &mask_terse(&ours.terse),
        &mask_terse(&fio.terse),
        case,
        "terse",
    );
    same(&mask_json(&ours.json), &mask_json(&fio.json), case, "json+");
    same(
        &mask_normal(&ours.normal),
        &mask_normal(&fio.normal),
        case,
        "normal",
    );
}

#[test]
fn libaio_randrw_with_samples_and_disk() {
    replay("aio_randrw");
}

#[test]
fn group_reporting_lat_percentiles_kb_base_description() {
    replay("null_groups");
}

#[test]
fn unified_both_with_fsync_terse_v5() {
    replay("both_sync");
}

#[test]
fn unified_mixed_terse_v4() {
    replay("mixed_v4");
}

#[test]
fn gtod_reduce_terse_v2() {
    replay("gtod_v2");
}

#[test]
fn bits_significant_figures_continue_on_error_two_jobs_one_group() {
    replay("units_coe");
}
