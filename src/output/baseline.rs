//! `--baseline-compare=FILE` (rfio's own): the verdicts of the report's
//! [`Comparison`], printed after fio's report (and the `--repeat` block).
//!
//! - normal: a summary line first, then one line per metric in the units
//!   fio's normal output uses ([`text`]):
//!   `  n read: IOPS 41.2k → 38.9k (−5.6%, within ±9.8%)`;
//! - JSON/JSON+: a top-level `"baseline"` object after fio's keys and
//!   `"repeat"` ([`json`]);
//! - terse: nothing (the command line prints [`text`] on stderr).

use std::fmt::Write as _;

use super::jsonw::{Json, Obj};
use super::num2str::{num2str, Unit};
use super::repeat::lat_unit;
use crate::stats::verdict::{Comparison, Metric, MetricVerdict, Verdict};

/// `−5.6%`, `+18.0%` (a true minus sign).
fn pct(c: f64) -> String {
    let s = format!("{c:+.1}%");
    s.replacen('-', "\u{2212}", 1)
}

/// The metric's name as the line shows it.
fn name(m: Metric) -> String {
    match m {
        Metric::Iops => "IOPS".into(),
        Metric::Bw => "BW".into(),
        Metric::ClatMean => "clat mean".into(),
        Metric::ClatPercentile(p) => format!("clat p{p}"),
    }
}

/// The two values of a line, in one unit.
fn values(v: &MetricVerdict) -> (String, String) {
    let now = v.now.unwrap_or(v.saved);
    let show: Box<dyn Fn(f64) -> String> = match v.metric {
        Metric::Iops => Box::new(|x: f64| num2str(x.round() as u64, 4, false, Unit::None)),
        Metric::Bw => Box::new(|x: f64| num2str(x.round() as u64, 4, true, Unit::BytePerSec)),
        Metric::ClatMean | Metric::ClatPercentile(_) => {
            let (unit, div) = lat_unit(v.saved.min(now), v.saved.max(now));
            Box::new(move |x: f64| match div == 1.0 {
                true => format!("{}{unit}", x.round() as u64),
                false => format!("{:.2}{unit}", x / div),
            })
        }
    };
    let new = v.now.map_or("not measured".to_string(), &show);
    (show(v.saved), new)
}

fn line(out: &mut String, v: &MetricVerdict) {
    let (saved, now) = values(v);
    let band = format!("±{:.1}%", v.band_pct);
    let change = v.change_pct.map(pct);
    let judged = match (v.verdict, change) {
        (Verdict::Within, Some(c)) => format!("{c}, within {band}"),
        (Verdict::Within, None) => "unchanged".to_string(),
        (Verdict::Missing, _) => "not measured now".to_string(),
        (verdict, Some(c)) => format!("{c}, {}, beyond {band}", verdict.as_str()),
        (verdict, None) => format!("from 0, {}", verdict.as_str()),
    };
    let gated = if v.gated { "" } else { "; not gated" };
    let _ = writeln!(
        out,
        "  {} {}: {} {saved} → {now} ({judged}{gated})",
        v.job,
        v.ddir,
        name(v.metric)
    );
}

/// The summary line: `baseline FILE: PASS|FAIL: ...`.
fn summary(c: &Comparison) -> String {
    let gated = c.metrics.iter().filter(|m| m.gated).count();
    let others = c.metrics.len() - gated;
    let failing: Vec<String> = c
        .metrics
        .iter()
        .filter(|m| m.fails())
        .map(|m| {
            let what = m
                .change_pct
                .map_or(String::new(), |x| format!(" {}", pct(x)));
            let what = match m.verdict {
                Verdict::Missing => " not measured now".to_string(),
                _ => what,
            };
            format!("{} {} {}{what}", m.job, m.ddir, name(m.metric))
        })
        .collect();
    let verdict = match c.failed() {
        true => format!(
            "FAIL: {} of {gated} gated metrics worse ({})",
            failing.len(),
            failing.join(", ")
        ),
        false => format!(
            "PASS: {gated} gated metrics: {} better, {} within their bands",
            c.gated_count(Verdict::Better),
            c.gated_count(Verdict::Within)
        ),
    };
    format!(
        "baseline {}: {verdict}; gated: {}, {} saved run{} against {} now, threshold {}%; \
         {others} more reported, not gated",
        c.file,
        c.gated.join(","),
        c.saved_runs,
        if c.saved_runs == 1 { "" } else { "s" },
        c.runs,
        c.threshold_pct
    )
}

/// The verdicts as text: the summary line, the warnings, a line per
/// metric.
pub(crate) fn text(c: &Comparison) -> String {
    let mut out = summary(c);
    out.push('\n');
    for w in &c.warnings {
        let _ = writeln!(out, "  warning: {w}");
    }
    for v in &c.metrics {
        line(&mut out, v);
    }
    out
}

/// The `"baseline"` object:
///
/// ```text
/// {"file", "result": "pass"|"fail", "threshold_pct", "gated": ["iops", ...],
///  "saved_runs", "runs", "warnings": [...],
///  "summary": {"gated", "worse", "better", "within", "not_measured", "not_gated"},
///  "metrics": [{"job", "ddir", "metric": "iops"|"bw"|"mean"|"p99"..., "gated",
///               "saved", "now" (null: not measured), "change_pct" (null),
///               "band_pct", "band_from": "threshold"|"variance",
///               "verdict": "better"|"worse"|"within"|"not measured"}]}
/// ```
pub(crate) fn json(c: &Comparison) -> Obj<'_> {
    let mut o = Obj::new();
    o.str("file", c.file.as_str())
        .str("result", if c.failed() { "fail" } else { "pass" })
        .float("threshold_pct", c.threshold_pct)
        .arr(
            "gated",
            c.gated
                .iter()
                .map(|g| Json::Str(g.as_str().into()))
                .collect(),
        )
        .int("saved_runs", c.saved_runs)
        .int("runs", c.runs)
        .arr(
            "warnings",
            c.warnings
                .iter()
                .map(|w| Json::Str(w.as_str().into()))
                .collect(),
        );
    let gated = c.metrics.iter().filter(|m| m.gated).count();
    let mut s = Obj::new();
    s.int("gated", gated as u64)
        .int("worse", c.gated_count(Verdict::Worse) as u64)
        .int("better", c.gated_count(Verdict::Better) as u64)
        .int("within", c.gated_count(Verdict::Within) as u64)
        .int("not_measured", c.gated_count(Verdict::Missing) as u64)
        .int("not_gated", (c.metrics.len() - gated) as u64);
    o.obj("summary", s);
    let metrics = c
        .metrics
        .iter()
        .map(|m| {
            let mut mo = Obj::new();
            mo.str("job", m.job.as_str())
                .str("ddir", m.ddir.as_str())
                .str("metric", m.metric.key())
                .bool("gated", m.gated)
                .float("saved", m.saved)
                .opt_float("now", m.now)
                .opt_float("change_pct", m.change_pct)
                .float("band_pct", m.band_pct)
                .str("band_from", m.band_from.as_str())
                .str("verdict", m.verdict.as_str());
            Json::Obj(mo)
        })
        .collect();
    o.arr("metrics", metrics);
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::verdict::BandFrom;

    fn v(metric: Metric, saved: f64, now: f64, band: f64, verdict: Verdict) -> MetricVerdict {
        MetricVerdict {
            job: "n".into(),
            ddir: "read".into(),
            metric,
            gated: !matches!(metric, Metric::ClatMean),
            saved,
            now: Some(now),
            change_pct: Some(100.0 * (now - saved) / saved),
            band_pct: band,
            band_from: BandFrom::Variance,
            verdict,
        }
    }

    fn comparison(metrics: Vec<MetricVerdict>) -> Comparison {
        Comparison {
            file: "b.json".into(),
            threshold_pct: 5.0,
            gated: vec!["iops".into(), "bw".into(), "p99".into()],
            saved_runs: 3,
            runs: 1,
            warnings: vec!["pacing differs: job n: rate 4m → 2m".into()],
            metrics,
        }
    }

    #[test]
    fn lines_are_in_human_units_after_a_summary() {
        let c = comparison(vec![
            v(Metric::Iops, 41_234.0, 38_925.0, 9.8, Verdict::Within),
            v(
                Metric::Bw,
                168_894_464.0,
                159_436_800.0,
                9.8,
                Verdict::Within,
            ),
            v(Metric::ClatMean, 1000.0, 3000.0, 5.0, Verdict::Worse),
            v(
                Metric::ClatPercentile(99.0),
                120_000.0,
                118_000.0,
                5.0,
                Verdict::Within,
            ),
        ]);
        let t = text(&c);
        let want = "baseline b.json: PASS: 3 gated metrics: 0 better, 3 within their bands; \
                    gated: iops,bw,p99, 3 saved runs against 1 now, threshold 5%; \
                    1 more reported, not gated\n  \
                    warning: pacing differs: job n: rate 4m → 2m\n  \
                    n read: IOPS 41.2k → 38.9k (\u{2212}5.6%, within ±9.8%)\n  \
                    n read: BW 161MiB/s → 152MiB/s (\u{2212}5.6%, within ±9.8%)\n  \
                    n read: clat mean 1000nsec → 3000nsec (+200.0%, worse, beyond ±5.0%; not gated)\n  \
                    n read: clat p99 120.00usec → 118.00usec (\u{2212}1.7%, within ±5.0%)\n";
        assert_eq!(t, want);
        assert!(!c.failed(), "a worse metric that is not gated passes");
    }

    #[test]
    fn a_gated_regression_fails_and_names_the_metric() {
        let c = comparison(vec![
            v(Metric::Iops, 4000.0, 2000.0, 10.0, Verdict::Worse),
            v(Metric::Bw, 4096e3, 2048e3, 10.0, Verdict::Worse),
        ]);
        assert!(c.failed());
        let t = text(&c);
        assert!(
            t.starts_with(
                "baseline b.json: FAIL: 2 of 2 gated metrics worse (n read IOPS \u{2212}50.0%, \
                 n read BW \u{2212}50.0%); "
            ),
            "{t}"
        );
        assert!(t.contains("  n read: IOPS 4000 → 2000 (\u{2212}50.0%, worse, beyond ±10.0%)\n"));
        let doc: serde_json::Value = serde_json::from_str(&json(&c).to_document()).unwrap();
        assert_eq!(doc["result"], "fail");
        assert_eq!(doc["summary"]["worse"], 2);
        assert_eq!(doc["gated"], serde_json::json!(["iops", "bw", "p99"]));
        let m = &doc["metrics"][0];
        assert_eq!(m["metric"], "iops");
        assert_eq!(m["gated"], true);
        assert_eq!(m["saved"], 4000.0);
        assert_eq!(m["now"], 2000.0);
        assert_eq!(m["verdict"], "worse");
        assert_eq!(m["band_from"], "variance");
    }
}
