//! `--repeat=N` (rfio's own): the runs summed up, printed after fio's
//! report of the median run, which stays as a single run prints it.
//!
//! - JSON/JSON+: a top-level `"repeat"` object after fio's keys ([`json`]);
//! - normal: a block after fio's report ([`normal`]);
//! - terse: nothing (the median run's lines only).

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
/// SPREAD = {"median", "min", "max", "cv_pct"}
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
        .float("cv_pct", s.cv_pct);
    o
}

/// The normal-output block: a header, then per entry its name and group
/// and one line per direction and metric,
/// `  read: IOPS median=25.6k, min=25.0k, max=26.0k, cv=1.23%`.
pub(crate) fn normal(r: &RepeatSummary) -> String {
    let mut out = String::new();
    let stopped = match r.stopped {
        Some(s) => format!(" of {} asked for, stopped by a {}", r.requested, s.as_str()),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "\nRepeat: {} run{}{stopped} (median run: {})",
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
            let int = |v: f64| format!("{}", v.round() as u64);
            let mean = |v: f64| format!("{v:.2}");
            line(&mut out, name, "IOPS", &d.iops, &iops);
            line(&mut out, name, "BW", &d.bw_bytes, &bw);
            line(&mut out, name, "clat mean (nsec)", &d.clat_mean_ns, &mean);
            for (p, s) in &d.clat_percentiles {
                line(&mut out, name, &format!("clat p{p:.2} (nsec)"), s, &int);
            }
        }
    }
    out
}

fn line(out: &mut String, dir: &str, what: &str, s: &Spread, f: &dyn Fn(f64) -> String) {
    let _ = writeln!(
        out,
        "  {dir}: {what} median={}, min={}, max={}, cv={:.2}%",
        f(s.median),
        f(s.min),
        f(s.max),
        s.cv_pct
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
            cv_pct,
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
                    clat_percentiles: vec![(99.9, s(7136.0, 7000.0, 7200.0, 1.0))],
                }],
            }],
        }
    }

    #[test]
    fn normal_block_lines() {
        let text = normal(&summary());
        let want = "\nRepeat: 3 runs of 5 asked for, stopped by a signal (median run: 2)\n\
                    j: (groupid=0)\n  \
                    write: IOPS median=25.6k, min=25.0k, max=26.0k, cv=1.23%\n  \
                    write: BW median=100MiB/s, min=1024KiB/s, max=200MiB/s, cv=50.00%\n  \
                    write: clat mean (nsec) median=53.12, min=50.00, max=60.00, cv=8.00%\n  \
                    write: clat p99.90 (nsec) median=7136, min=7000, max=7200, cv=1.00%\n";
        assert_eq!(text, want);
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
    }
}
