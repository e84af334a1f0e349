//! rfio's latency statistics against the latencies it logged, I/O by I/O.
//!
//! The golden files and the report tests check rfio against rfio or against
//! numbers fio printed; here the reference is computed from scratch: a job
//! runs with per-I/O latency logs (`write_lat_log`, `log_avg_msec=0`: one
//! line per I/O, the latency in ns, fio 3.33's layout), and the minimum,
//! maximum, mean, standard deviation and percentiles of each log must be
//! what the same run reports, in every output format:
//!
//! - JSON and JSON+ (`*_ns`): N, min and max exact, mean and stddev to the
//!   printed decimals, percentiles by fio's rank rule (the smallest value
//!   whose cumulative count reaches p% of N) within half a bucket of
//!   rfio's 3-significant-digit histogram (1/2048 of the value; fio's own
//!   buckets are up to 1/128 off), and the JSON+ `bins` exactly the counts
//!   of each of fio's buckets;
//! - terse (usec, truncated): min and max exact, mean and stddev to the
//!   six printed decimals, the percentile slots as the JSON ones truncated;
//! - normal: the unit fio's rule picks, min and max exact (as num2str
//!   prints them), avg and stdev to two decimals, percentiles rounded up
//!   to the unit.
//!
//! The job reads and writes a file in a temp dir through libaio at depth 4,
//! so slat, clat and lat all have a spread (a few µs to ms), with slat and
//! lat percentiles on; a psync job checks that a sync engine has no slat.

use crate::common;

use std::collections::BTreeMap;
use std::process::Output;

use common::{rfio, stderr, stdout, TempDir};
use serde_json::Value;

/// The latencies of one log, sorted, with their statistics computed
/// exactly.
#[derive(Debug)]
struct Exact {
    sorted: Vec<u64>,
    mean: f64,
    stddev: f64,
}

impl Exact {
    fn new(mut values: Vec<u64>) -> Exact {
        values.sort_unstable();
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
        // fio's stddev is the sample standard deviation (n - 1).
        let var = values
            .iter()
            .map(|&v| (v as f64 - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0).max(1.0);
        Exact {
            sorted: values,
            mean,
            stddev: var.sqrt(),
        }
    }

    fn n(&self) -> u64 {
        self.sorted.len() as u64
    }

    fn min(&self) -> u64 {
        self.sorted[0]
    }

    fn max(&self) -> u64 {
        *self.sorted.last().unwrap()
    }

    /// fio's rank rule: the smallest value whose cumulative count is at
    /// least `p/100 * N`.
    fn percentile(&self, p: f64) -> u64 {
        let want = p / 100.0 * self.sorted.len() as f64;
        let rank = (1..=self.sorted.len())
            .find(|&i| i as f64 >= want)
            .unwrap_or(self.sorted.len());
        self.sorted[rank - 1]
    }
}

/// Whether a reported percentile `got` (ns) is within half a bucket of
/// rfio's histogram (3 significant digits: 1/2048 of the value) of the
/// exact `want`, give or take `slack` ns of the format's rounding.
fn pct_close(got: u64, want: u64, slack: u64) -> bool {
    got.abs_diff(want) <= want / 2048 + 1 + slack
}

const KINDS: [&str; 3] = ["slat", "clat", "lat"];
const DIRS: [(&str, u64); 2] = [("read", 0), ("write", 1)];

/// The job: 8 MiB of 4 KiB random reads and writes, with every per-I/O
/// latency log.
fn job(engine: &[&str], dir: &TempDir) -> Vec<String> {
    let mut v: Vec<String> = [
        "--name=x",
        "--size=8m",
        "--bs=4k",
        "--rw=randrw",
        "--write_lat_log=x",
        "--log_avg_msec=0",
        "--log_offset=1",
        "--slat_percentiles=1",
        "--lat_percentiles=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(engine.iter().map(|s| s.to_string()));
    v.push(dir.arg("f"));
    v
}

const AIO: [&str; 2] = ["--ioengine=libaio", "--iodepth=4"];

/// One run of the job with `format` args; the run's dir (its logs) and its
/// output.
fn run(engine: &[&str], format: &[&str]) -> (TempDir, Output) {
    let dir = TempDir::new("latstats");
    let mut args = job(engine, &dir);
    args.extend(format.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = rfio(&dir, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    (dir, out)
}

/// The latencies of `kind`'s log for direction `ddir`, checking each line's
/// layout: `time, ns, ddir, 4096, offset, prio`.
fn logged(dir: &TempDir, kind: &str, ddir: u64) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.file(&format!("x_{kind}.1.log")))
        .unwrap_or_else(|e| panic!("x_{kind}.1.log: {e}"));
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<u64> = line
            .split(", ")
            .map(|v| parse_field(v).unwrap_or_else(|| panic!("{kind}: {line:?}")))
            .collect();
        assert_eq!(f.len(), 6, "{kind}: {line:?}");
        assert_eq!(f[3], 4096, "{kind}: {line:?}");
        assert!(f[4] % 4096 == 0 && f[4] < 8 << 20, "{kind}: {line:?}");
        if f[2] == ddir {
            out.push(f[1]);
        }
    }
    out
}

/// Every (direction, kind) with its exact statistics, from the logs in
/// `dir`; each of the job's 2048 I/Os is in each log once.
fn exact_stats(dir: &TempDir) -> Vec<(&'static str, &'static str, Exact)> {
    let mut out = Vec::new();
    let mut per_kind = [0u64; 3];
    for (name, ddir) in DIRS {
        for (k, kind) in KINDS.iter().enumerate() {
            let v = logged(dir, kind, ddir);
            per_kind[k] += v.len() as u64;
            assert!(v.len() > 500, "{name} {kind}: {} I/Os", v.len());
            out.push((name, *kind, Exact::new(v)));
        }
    }
    assert_eq!(per_kind, [2048; 3], "I/Os in the slat, clat and lat logs");
    out
}

/// A log field: decimal, or the `0x%04x` priority of `log_prio=1`.
fn parse_field(v: &str) -> Option<u64> {
    match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

fn f64_of(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

/// fio's `plat_val_to_idx` (stat.h: 64 buckets in each power of two past
/// 128 ns) and `plat_idx_to_val` (the bucket's midpoint): the key under
/// which JSON+ counts a latency.
fn fio_bin(ns: u64) -> u64 {
    let msb = 63 - ns.max(1).leading_zeros();
    if msb <= 6 {
        return ns;
    }
    let error_bits = msb - 6;
    let idx = ((u64::from(error_bits) + 1) << 6) + ((ns >> error_bits) & 63);
    let idx = idx.min(29 * 64 - 1);
    if idx < 128 {
        return idx;
    }
    // fio computes `base + (k + 0.5) * 2^error_bits` in floating point.
    let error_bits = (idx >> 6) - 1;
    let base = 1u64 << (error_bits + 6);
    base + (((idx % 64) as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

fn check_json(doc: &Value, stats: &[(&str, &str, Exact)], plus: bool) {
    let job = &doc["jobs"][0];
    for (dir, kind, e) in stats {
        check_json_stat(
            &job[*dir][format!("{kind}_ns")],
            e,
            &format!("{dir} {kind}_ns"),
            plus,
        );
    }
}

/// One JSON latency object (`clat_ns`, a priority's `clat_ns`) against the
/// exact statistics `e`; its `bins` too with `plus`.
fn check_json_stat(s: &Value, e: &Exact, what: &str, plus: bool) {
    assert_eq!(s["N"], e.n(), "{what}");
    assert_eq!(s["min"], e.min(), "{what}");
    assert_eq!(s["max"], e.max(), "{what}");
    let mean = f64_of(&s["mean"]);
    assert!(
        (mean - e.mean).abs() <= 1e-6 + e.mean * 1e-12,
        "{what}: mean {mean}, exact {}",
        e.mean
    );
    let sd = f64_of(&s["stddev"]);
    assert!(
        (sd - e.stddev).abs() <= 1e-6 + e.stddev * 1e-9,
        "{what}: stddev {sd}, exact {}",
        e.stddev
    );
    let pct = s["percentile"]
        .as_object()
        .unwrap_or_else(|| panic!("{what}: percentiles"));
    assert_eq!(pct.len(), 17, "{what}: fio's default list");
    for (p, v) in pct {
        let want = e.percentile(p.parse().unwrap());
        let got = v.as_u64().unwrap();
        assert!(pct_close(got, want, 0), "{what}: {p}th {got}, exact {want}");
    }
    if plus {
        let mut want: BTreeMap<u64, u64> = BTreeMap::new();
        for &v in &e.sorted {
            *want.entry(fio_bin(v)).or_default() += 1;
        }
        let got: BTreeMap<u64, u64> = s["bins"]
            .as_object()
            .unwrap_or_else(|| panic!("{what}: bins"))
            .iter()
            .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
            .collect();
        assert_eq!(got, want, "{what}: bins");
    } else {
        assert!(s.get("bins").is_none(), "{what}: bins only in JSON+");
    }
}

#[test]
fn json_statistics_are_those_of_the_logged_latencies() {
    for (format, plus) in [
        ("--output-format=json", false),
        ("--output-format=json+", true),
    ] {
        let (dir, out) = run(&AIO, &[format]);
        let doc: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        check_json(&doc, &exact_stats(&dir), plus);
    }
}

/// A sync engine has no submission latency: an empty slat log, N=0 and no
/// slat line, and the other statistics as their logs.
#[test]
fn a_sync_engine_logs_and_reports_no_slat() {
    let (dir, out) = run(&["--ioengine=psync"], &["--output-format=json+"]);
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    for (name, ddir) in DIRS {
        assert!(logged(&dir, "slat", ddir).is_empty(), "{name}: slat log");
        let s = &doc["jobs"][0][name]["slat_ns"];
        assert_eq!(
            (s["N"].as_u64(), s["min"].as_u64()),
            (Some(0), Some(0)),
            "{name}"
        );
        let stats: Vec<_> = ["clat", "lat"]
            .into_iter()
            .map(|kind| (name, kind, Exact::new(logged(&dir, kind, ddir))))
            .collect();
        check_json(&doc, &stats, true);
    }
    let (_, normal) = run(&["--ioengine=psync"], &[]);
    assert!(!stdout(&normal).contains("slat"), "{}", stdout(&normal));
}

#[test]
fn terse_statistics_are_those_of_the_logged_latencies() {
    let (dir, out) = run(&AIO, &["--minimal"]);
    let text = stdout(&out);
    let f: Vec<&str> = text.trim_end().split(';').collect();
    assert_eq!(f[2], "x", "{text}");
    let stats = exact_stats(&dir);
    let get = |dir: &str, kind: &str| &stats.iter().find(|s| s.0 == dir && s.1 == kind).unwrap().2;
    for (d, (name, _)) in DIRS.iter().enumerate() {
        // terse v3, 1-based: read slat at 10, clat at 14, percentiles at
        // 18, lat at 38; the write block 41 fields on.
        let at = |field: usize| f[field - 1 + d * 41];
        for (kind, first) in [("slat", 10), ("clat", 14), ("lat", 38)] {
            let e = get(name, kind);
            let what = format!("{name} {kind}");
            assert_eq!(at(first), (e.min() / 1000).to_string(), "{what} min");
            assert_eq!(at(first + 1), (e.max() / 1000).to_string(), "{what} max");
            let mean: f64 = at(first + 2).parse().unwrap();
            assert!(
                (mean - e.mean / 1000.0).abs() <= 1.5e-6,
                "{what} mean {mean}, exact {}",
                e.mean
            );
            let sd: f64 = at(first + 3).parse().unwrap();
            assert!(
                (sd - e.stddev / 1000.0).abs() <= 1.5e-6,
                "{what} stddev {sd}, exact {}",
                e.stddev
            );
        }
        // With lat_percentiles=1 the slots hold lat's percentiles (fio).
        let e = get(name, "lat");
        for slot in 0..17 {
            let (p, v) = at(18 + slot).split_once("%=").unwrap();
            let want = e.percentile(p.parse().unwrap());
            let got: u64 = v.parse().unwrap();
            assert!(
                pct_close(got * 1000, want, 999),
                "{name} lat {p}%: {got} us, exact {want} ns"
            );
        }
        assert_eq!(
            &[at(35), at(36), at(37)],
            &["0%=0"; 3],
            "{name}: unused slots"
        );
    }
}

/// The value num2str printed (`5988.5k`, `6077`), and how far off the
/// printed digits may be.
fn num2str_value(s: &str) -> (f64, f64) {
    let (digits, mult) = match s.strip_suffix('k') {
        Some(d) => (d, 1e3),
        None => match s.strip_suffix('M') {
            Some(d) => (d, 1e6),
            None => (s, 1.0),
        },
    };
    let decimals = digits.split_once('.').map_or(0, |(_, b)| b.len());
    let v: f64 = digits
        .parse()
        .unwrap_or_else(|_| panic!("num2str value {s:?}"));
    (v * mult, mult * 10f64.powi(-(decimals as i32)))
}

/// fio's unit for a latency line (`display_lat`).
fn line_unit(e: &Exact) -> &'static str {
    let (min, max) = (e.min(), e.max());
    if min > 2_000_000 && max > 99_999_999 && e.stddev > 1e6 {
        "msec"
    } else if min > 2000 && max > 99_999 && e.stddev > 1000.0 {
        "usec"
    } else {
        "nsec"
    }
}

/// fio's unit for a percentile block, from its smallest and largest value.
fn pct_unit(min: u64, max: u64) -> &'static str {
    if min > 2_000_000 && max > 99_999_999 {
        "msec"
    } else if min > 2000 && max > 99_999 {
        "usec"
    } else {
        "nsec"
    }
}

fn divisor(unit: &str) -> u64 {
    match unit {
        "nsec" => 1,
        "usec" => 1000,
        "msec" => 1_000_000,
        other => panic!("unit {other}"),
    }
}

/// The lines of direction `name`'s block in a normal report.
fn block<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let head = format!("  {name}: IOPS=");
    let mut lines = text.lines().skip_while(|l| !l.starts_with(&head));
    assert!(lines.next().is_some(), "no {name} block: {text}");
    lines.take_while(|l| l.starts_with("   ")).collect()
}

/// Check one statistic of a normal report's direction block `lines`: its
/// line (`{label} (usec): min=…`) and its percentile block (`{pct_label}
/// percentiles (usec):`) against the exact `e`.
fn check_normal(lines: &[&str], what: &str, label: &str, pct_label: &str, e: &Exact) {
    // `    slat (usec): min=37, max=5894, avg=92.26, stdev=394.17`
    let head = format!("{label} (");
    let line = lines
        .iter()
        .find(|l| l.trim_start().starts_with(&head))
        .unwrap_or_else(|| panic!("{what}: no line {head:?} in {lines:?}"));
    let (unit, rest) = line.trim_start()[head.len()..].split_once("): ").unwrap();
    assert_eq!(unit, line_unit(e), "{what}: {line}");
    let div = divisor(unit);
    let fields: BTreeMap<&str, &str> = rest
        .split(", ")
        .map(|kv| kv.split_once('=').unwrap())
        .collect();
    for (key, exact) in [("min", e.min()), ("max", e.max())] {
        let (v, ulp) = num2str_value(fields[key].trim());
        let want = (exact / div) as f64;
        assert!(
            (v - want).abs() <= ulp,
            "{what} {key}: {line} (exact {exact} ns)"
        );
    }
    for (key, exact) in [("avg", e.mean), ("stdev", e.stddev)] {
        let v: f64 = fields[key].trim().parse().unwrap();
        let want = exact / div as f64;
        assert!(
            (v - want).abs() <= 0.005 + 1e-9,
            "{what} {key}: {line} (exact {exact} ns)"
        );
    }
    // `    clat percentiles (usec):` then rows of `50.00th=[   65]`.
    let head = format!("{pct_label} percentiles (");
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&head))
        .unwrap_or_else(|| panic!("{what}: no {head:?} in {lines:?}"));
    let unit = lines[at].trim_start()[head.len()..].trim_end_matches("):");
    let entries: Vec<(f64, u64)> = lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("     |"))
        .flat_map(|l| l.trim_start_matches("     |").split(','))
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let (p, v) = s.trim().split_once("th=[").unwrap();
            (
                p.parse().unwrap(),
                v.trim_end_matches(']').trim().parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(entries.len(), 17, "{what}: {entries:?}");
    let exact: Vec<u64> = entries.iter().map(|&(p, _)| e.percentile(p)).collect();
    // The unit follows the printed values, which may lie either side of a
    // threshold by the histogram's precision.
    let (lo, hi) = (*exact.iter().min().unwrap(), *exact.iter().max().unwrap());
    let units = [
        pct_unit(
            lo.saturating_sub(lo / 2048 + 1),
            hi.saturating_sub(hi / 2048 + 1),
        ),
        pct_unit(lo + lo / 2048 + 1, hi + hi / 2048 + 1),
    ];
    assert!(
        units.contains(&unit),
        "{what}: percentiles in {unit}, exact {lo}-{hi} ns"
    );
    let div = divisor(unit);
    for (&(p, v), want) in entries.iter().zip(exact) {
        // Scaled rounding up: v * div is the ns value plus under div.
        assert!(
            pct_close(v * div, want, div),
            "{what}: {p}th=[{v}] {unit}, exact {want} ns"
        );
    }
}

#[test]
fn normal_statistics_are_those_of_the_logged_latencies() {
    let (dir, out) = run(&AIO, &[]);
    let text = stdout(&out);
    for (name, kind, e) in &exact_stats(&dir) {
        let what = format!("{name} {kind}");
        check_normal(&block(&text, name), &what, kind, kind, e);
    }
}

/// With `log_prio=1` the logs' last column is each I/O's priority
/// (`0x%04x`, class << 13 | level): with `cmdprio_percentage`, the
/// per-priority statistics (of total latencies, as the job has
/// `lat_percentiles=1`: fio's `lat_ns` and `lat prio` lines) are those of
/// each priority's logged ones. (Best effort level 3: no privilege needed.)
#[test]
fn per_priority_statistics_are_those_of_the_logged_latencies() {
    let prio = [
        "--cmdprio_percentage=50",
        "--cmdprio_class=2",
        "--cmdprio=3",
        "--log_prio=1",
    ];
    let per_prio = |dir: &TempDir, ddir: u64, ioprio: u64| -> Exact {
        let text = std::fs::read_to_string(dir.file("x_lat.1.log")).unwrap();
        Exact::new(
            text.lines()
                .map(|l| {
                    l.split(", ")
                        .map(|v| parse_field(v).unwrap())
                        .collect::<Vec<u64>>()
                })
                .filter(|f| f[2] == ddir && f[5] == ioprio)
                .map(|f| f[1])
                .collect(),
        )
    };
    let (dir, out) = run(&AIO, &[&prio[..], &["--output-format=json+"]].concat());
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    for (name, ddir) in DIRS {
        let prios = doc["jobs"][0][name]["prios"].as_array().expect("prios");
        let ids: Vec<(u64, u64)> = prios
            .iter()
            .map(|p| {
                (
                    p["prioclass"].as_u64().unwrap(),
                    p["prio"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(ids, [(0, 0), (2, 3)], "{name}");
        for (p, (class, level)) in prios.iter().zip(ids) {
            let e = per_prio(&dir, ddir, class << 13 | level);
            let what = format!("{name} prio {class}/{level}");
            assert!(e.n() > 300, "{what}: {} I/Os", e.n());
            check_json_stat(&p["lat_ns"], &e, &what, true);
        }
    }
    let (dir, out) = run(&AIO, &prio);
    let text = stdout(&out);
    for (name, ddir) in DIRS {
        let lines = block(&text, name);
        let all = logged(&dir, "lat", ddir).len() as f64;
        for (class, level) in [(0u64, 0u64), (2, 3)] {
            let e = per_prio(&dir, ddir, class << 13 | level);
            let share = format!("{:.2}% of IOs", e.n() as f64 * 100.0 / all);
            check_normal(
                &lines,
                &format!("{name} prio {class}/{level}"),
                &format!("lat prio {class}/{level}"),
                &format!("lat prio {class}/{level} ({share})"),
                &e,
            );
        }
    }
}
