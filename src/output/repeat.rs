//! `--repeat=N` (rfio's own): the runs summed up, printed after fio's
//! report of the median run, which stays as a single run prints it.
//!
//! - JSON/JSON+: a top-level `"repeat"` object after fio's keys ([`json`]);
//! - normal: a block after fio's report ([`normal`]): per metric the
//!   median, min, max, cv (`n/a` for fewer than two runs) and each run's
//!   value, latencies in the unit fio's percentile table would pick for
//!   them ([`lat_unit`]);
//! - terse (`--minimal`): the median run's terse lines, exactly as a single
//!   run prints them (a terse line has no room for more; JSON has the
//!   runs).

use std::fmt::Write as _;

use super::jsonw::{Json, Obj};
use super::num2str::{num2str, Unit};
use crate::stats::repeat::{RepeatSummary, Spread};

/// The `"repeat"` object:
///
/// ```text
/// {"requested": N, "runs": R, "median_run": K, ["stopped": "signal"|"job error",]
///  "jobs": [{"jobname", "groupid",
///            "read"|"write"|"trim"|"mixed": {"runs",
///               "iops": SPREAD, "bw_bytes": SPREAD,
///               "clat_ns": {"mean": SPREAD, "percentile": {"99.000000": SPREAD, ...}}}}]}
/// SPREAD = {"median", "min", "max", "cv_pct" (null for fewer than two runs),
///           "runs": [each run's value, in run order]}
/// ```
pub(crate) fn json(r: &RepeatSummary) -> Obj<'_> {
    let mut o = Obj::new();
    o.int("requested", r.requested)
        .int("runs", r.runs)
        .int("median_run", r.median_run);
    if let Some(s) = r.stopped {
        o.str("stopped", s.as_str());
    }
    let jobs = r
        .jobs
        .iter()
        .map(|j| {
            let mut jo = Obj::new();
            jo.str("jobname", j.jobname.as_str())
                .int("groupid", j.groupid);
            for d in &j.dirs {
                let mut pct = Obj::new();
                for (p, s) in &d.clat_percentiles {
                    pct.obj(format!("{p:.6}"), spread(s));
                }
                let mut clat = Obj::new();
                clat.obj("mean", spread(&d.clat_mean_ns));
                if !d.clat_percentiles.is_empty() {
                    clat.obj("percentile", pct);
                }
                let mut dobj = Obj::new();
                dobj.int("runs", d.runs)
                    .obj("iops", spread(&d.iops))
                    .obj("bw_bytes", spread(&d.bw_bytes))
                    .obj("clat_ns", clat);
                jo.obj(d.ddir.as_str(), dobj);
            }
            Json::Obj(jo)
        })
        .collect();
    o.arr("jobs", jobs);
    o
}

fn spread(s: &Spread) -> Obj<'static> {
    let mut o = Obj::new();
    o.float("median", s.median)
        .float("min", s.min)
        .float("max", s.max)
        .opt_float("cv_pct", s.cv_pct)
        .arr("runs", s.runs.iter().map(|&v| Json::Float(v)).collect());
    o
}

/// The unit fio's normal output shows latencies of `min` to `max` ns in
/// (`show_clat_percentiles`' rule): msec when the least is over 2 ms and
/// the most over 100 ms, usec when over 2 us and 100 us, else nsec; with
/// the divisor.
pub(super) fn lat_unit(min: f64, max: f64) -> (&'static str, f64) {
    if min > 2_000_000.0 && max > 99_999_999.0 {
        ("msec", 1e6)
    } else if min > 2000.0 && max > 99_999.0 {
        ("usec", 1e3)
    } else {
        ("nsec", 1.0)
    }
}

/// At most this many runs' values are listed on a line of the normal
/// block (JSON lists them all).
const LISTED_RUNS: usize = 32;

/// The normal-output block: a header naming the median run, then per
/// entry its name and group and one line per direction and metric,
/// `  read: IOPS median=25.6k, min=25.0k, max=26.0k, cv=1.23%, runs=[25.0k 25.6k 26.0k]`.
pub(crate) fn normal(r: &RepeatSummary) -> String {
    let mut out = String::new();
    let stopped = match r.stopped {
        Some(s) => format!(" of {} asked for, stopped by a {}", r.requested, s.as_str()),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "\nRepeat: {} run{}{stopped} (median run: {}, the report above)",
        r.runs,
        if r.runs == 1 { "" } else { "s" },
        r.median_run
    );
    for j in &r.jobs {
        let _ = writeln!(out, "{}: (groupid={})", j.jobname, j.groupid);
        for d in &j.dirs {
            let name = &d.ddir;
            let iops = |v: f64| num2str(v.round() as u64, 4, false, Unit::None);
            let bw = |v: f64| num2str(v.round() as u64, 4, true, Unit::BytePerSec);
            line(&mut out, name, "IOPS", &d.iops, &iops);
            line(&mut out, name, "BW", &d.bw_bytes, &bw);
            let (unit, div) = lat_unit(d.clat_mean_ns.min, d.clat_mean_ns.max);
            let mean = |v: f64| format!("{:.2}", v / div);
            let what = format!("clat mean ({unit})");
            line(&mut out, name, &what, &d.clat_mean_ns, &mean);
            for (p, s) in &d.clat_percentiles {
                // As fio's table: whole units, rounded up.
                let (unit, div) = lat_unit(s.min, s.max);
                let int = |v: f64| format!("{}", (v / div).ceil() as u64);
                line(&mut out, name, &format!("clat p{p:.2} ({unit})"), s, &int);
            }
        }
    }
    out
}

fn line(out: &mut String, dir: &str, what: &str, s: &Spread, f: &dyn Fn(f64) -> String) {
    let cv = s.cv_pct.map_or("n/a".to_string(), |c| format!("{c:.2}%"));
    let mut runs: Vec<String> = s.runs.iter().take(LISTED_RUNS).map(|&v| f(v)).collect();
    if s.runs.len() > LISTED_RUNS {
        runs.push(format!("... {} more", s.runs.len() - LISTED_RUNS));
    }
    let _ = writeln!(
        out,
        "  {dir}: {what} median={}, min={}, max={}, cv={cv}, runs=[{}]",
        f(s.median),
        f(s.min),
        f(s.max),
        runs.join(" ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::repeat::{DirRepeat, JobRepeat, Stopped};

    fn s(median: f64, min: f64, max: f64, cv_pct: f64) -> Spread {
        Spread {
            median,
            min,
            max,
            cv_pct: Some(cv_pct),
            runs: vec![min, median, max],
        }
    }

    fn summary() -> RepeatSummary {
        RepeatSummary {
            requested: 5,
            runs: 3,
            median_run: 2,
            stopped: Some(Stopped::Signal),
            jobs: vec![JobRepeat {
                jobname: "j".into(),
                groupid: 0,
                dirs: vec![DirRepeat {
                    ddir: "write".into(),
                    runs: 3,
                    iops: s(25_600.0, 25_000.0, 26_000.0, 1.234),
                    bw_bytes: s(104_857_600.0, 1_048_576.0, 209_715_200.0, 50.0),
                    clat_mean_ns: s(53.125, 50.0, 60.0, 8.0),
                    clat_percentiles: vec![
                        (99.9, s(7136.0, 7000.0, 7200.0, 1.0)),
                        (99.99, s(150_000.0, 120_400.0, 3_000_000.0, 1.0)),
                    ],
                }],
            }],
        }
    }

    #[test]
    fn normal_block_lines() {
        let text = normal(&summary());
        let want = "\nRepeat: 3 runs of 5 asked for, stopped by a signal (median run: 2, the report above)\n\
                    j: (groupid=0)\n  \
                    write: IOPS median=25.6k, min=25.0k, max=26.0k, cv=1.23%, runs=[25.0k 25.6k 26.0k]\n  \
                    write: BW median=100MiB/s, min=1024KiB/s, max=200MiB/s, cv=50.00%, \
                    runs=[1024KiB/s 100MiB/s 200MiB/s]\n  \
                    write: clat mean (nsec) median=53.12, min=50.00, max=60.00, cv=8.00%, \
                    runs=[50.00 53.12 60.00]\n  \
                    write: clat p99.90 (nsec) median=7136, min=7000, max=7200, cv=1.00%, \
                    runs=[7000 7136 7200]\n  \
                    write: clat p99.99 (usec) median=150, min=121, max=3000, cv=1.00%, \
                    runs=[121 150 3000]\n";
        assert_eq!(text, want);
    }

    #[test]
    fn one_run_has_no_cv_and_latencies_take_fios_units() {
        let mut r = summary();
        r.runs = 1;
        let d = &mut r.jobs[0].dirs[0];
        d.iops = Spread::of(&[1000.0]);
        d.clat_mean_ns = Spread::of(&[2_500_000.0, 3_000_000.0, 150_000_000.0]);
        let text = normal(&r);
        assert!(
            text.contains("  write: IOPS median=1000, min=1000, max=1000, cv=n/a, runs=[1000]\n"),
            "{text}"
        );
        assert!(
            text.contains("  write: clat mean (msec) median=3.00, min=2.50, max=150.00, cv="),
            "{text}"
        );
        let v: serde_json::Value = serde_json::from_str(&json(&r).to_document()).unwrap();
        let w = &v["jobs"][0]["write"];
        assert_eq!(w["iops"]["cv_pct"], serde_json::Value::Null);
        assert_eq!(w["iops"]["runs"], serde_json::json!([1000.0]));
    }

    #[test]
    fn json_object_keys() {
        let doc = json(&summary()).to_document();
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(v["runs"], 3);
        assert_eq!(v["requested"], 5);
        assert_eq!(v["median_run"], 2);
        assert_eq!(v["stopped"], "signal");
        let w = &v["jobs"][0]["write"];
        assert_eq!(v["jobs"][0]["jobname"], "j");
        assert_eq!(w["runs"], 3);
        assert_eq!(w["iops"]["median"], 25_600.0);
        assert_eq!(w["bw_bytes"]["cv_pct"], 50.0);
        assert_eq!(w["clat_ns"]["mean"]["max"], 60.0);
        assert_eq!(w["clat_ns"]["percentile"]["99.900000"]["min"], 7000.0);
        assert_eq!(
            w["iops"]["runs"],
            serde_json::json!([25_000.0, 25_600.0, 26_000.0])
        );
    }
}
