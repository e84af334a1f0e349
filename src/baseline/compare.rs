//! `--baseline-compare`: pure comparisons. What a saved baseline and this
//! run measured, metric by metric ([`compare`], into the report's
//! [`verdict`](crate::stats::verdict) types, which the outputs print); and
//! whether the two ran on the same target ([`target_differences`]).
//!
//! A metric's change is `(now - saved) / saved` of the medians (of the
//! runs; a single run's values otherwise), in percent. It is **within**
//! its band when its size is at most the band; beyond it, **better** or
//! **worse** (higher is better for IOPS and bandwidth, lower for
//! latencies). The band ([`band`]) is `--baseline-threshold` (10 by
//! default) or, when larger, `2·√(cv_saved² + cv_now²)`, the runs'
//! variance: a side of a single run, which has no variance of its own, is
//! taken to vary as the other side (so a single run against a repeated
//! baseline gets `2·√2·cv_saved`); with a single run on both sides the
//! band is the threshold alone.
//!
//! Only the metrics of `--baseline-metrics` (`iops,bw,p99` by default) are
//! **gated**: a worse one (or one no longer measured) fails the comparison.
//! The others are reported, never gating.

use super::probe::FileTarget;
use super::JobTarget;
use crate::stats::repeat::{RepeatSummary, Spread};
use crate::stats::verdict::{BandFrom, Metric, MetricVerdict, Verdict};

/// A string from the baseline (or this run) as a message quotes it.
fn q(text: &str) -> String {
    crate::diag::quote(text, super::error::ECHO)
}

/// The band of a metric whose two sides vary by `saved` and `now` (the
/// cv in percent; `None`: a single run), and where it came from.
pub(crate) fn band(threshold_pct: f64, saved: Option<f64>, now: Option<f64>) -> (f64, BandFrom) {
    let (a, b) = match (saved, now) {
        (Some(a), Some(b)) => (a, b),
        (Some(a), None) => (a, a),
        (None, Some(b)) => (b, b),
        (None, None) => return (threshold_pct, BandFrom::Threshold),
    };
    let variance = 2.0 * (a * a + b * b).sqrt();
    match variance > threshold_pct {
        true => (variance, BandFrom::Variance),
        false => (threshold_pct, BandFrom::Threshold),
    }
}

/// Compare every metric of `saved` with this run's `now`; those of
/// `gated` decide.
pub(crate) fn compare(
    saved: &RepeatSummary,
    now: &RepeatSummary,
    threshold_pct: f64,
    gated: &[Metric],
) -> Vec<MetricVerdict> {
    let mut out = Vec::new();
    for (i, sj) in saved.jobs.iter().enumerate() {
        let nj = now.jobs.get(i).filter(|j| j.jobname == sj.jobname);
        for sd in &sj.dirs {
            let nd = nj.and_then(|j| j.dirs.iter().find(|d| d.ddir == sd.ddir));
            let mut metric = |metric: Metric, s: &Spread, n: Option<&Spread>| {
                let (band_pct, band_from) = band(threshold_pct, s.cv_pct, n.and_then(|n| n.cv_pct));
                let value = n.map(|n| n.median);
                let change_pct = value
                    .filter(|_| s.median != 0.0)
                    .map(|v| 100.0 * (v - s.median) / s.median);
                let higher = metric.higher_is_better();
                let verdict = match (value, change_pct) {
                    (None, _) => Verdict::Missing,
                    (Some(v), None) => match v == s.median {
                        true => Verdict::Within,
                        // From zero: more of a rate is better, of a
                        // latency worse.
                        false => match higher {
                            true => Verdict::Better,
                            false => Verdict::Worse,
                        },
                    },
                    (Some(_), Some(c)) if c.abs() <= band_pct => Verdict::Within,
                    (Some(_), Some(c)) => match (c > 0.0) == higher {
                        true => Verdict::Better,
                        false => Verdict::Worse,
                    },
                };
                out.push(MetricVerdict {
                    job: q(&sj.jobname),
                    ddir: sd.ddir.clone(),
                    metric,
                    gated: gated.iter().any(|g| g.same(metric)),
                    saved: s.median,
                    now: value,
                    change_pct,
                    band_pct,
                    band_from,
                    verdict,
                });
            };
            metric(Metric::Iops, &sd.iops, nd.map(|d| &d.iops));
            metric(Metric::Bw, &sd.bw_bytes, nd.map(|d| &d.bw_bytes));
            metric(
                Metric::ClatMean,
                &sd.clat_mean_ns,
                nd.map(|d| &d.clat_mean_ns),
            );
            for (p, s) in &sd.clat_percentiles {
                let n = nd.and_then(|d| {
                    d.clat_percentiles
                        .iter()
                        .find(|(q, _)| (q - p).abs() < 1e-9)
                        .map(|(_, s)| s)
                });
                metric(Metric::ClatPercentile(*p), s, n);
            }
        }
    }
    out
}

/// How the targets of a baseline and of this run differ, one sentence
/// each (empty: the same). Free space is not compared.
pub(crate) fn target_differences(saved: &[JobTarget], now: &[JobTarget]) -> Vec<String> {
    let mut out = Vec::new();
    if saved.len() != now.len() {
        out.push(format!("jobs: {} → {}", saved.len(), now.len()));
        return out;
    }
    for (s, n) in saved.iter().zip(now) {
        let job = &q(&n.job);
        if s.engine != n.engine {
            out.push(format!(
                "job {job}: engine {} → {}",
                q(&s.engine),
                q(&n.engine)
            ));
        }
        if s.files.len() != n.files.len() {
            out.push(format!(
                "job {job}: files {} → {}",
                s.files.len(),
                n.files.len()
            ));
            continue;
        }
        for (sf, nf) in s.files.iter().zip(&n.files) {
            file_differences(job, sf, nf, &mut out);
        }
    }
    out
}

fn file_differences(job: &str, s: &FileTarget, n: &FileTarget, out: &mut Vec<String>) {
    let show = |v: &Option<String>| v.as_deref().map_or_else(|| "unknown".into(), q);
    let rot = |v: Option<bool>| match v {
        Some(true) => "rotational".to_string(),
        Some(false) => "non-rotational".to_string(),
        None => "unknown".to_string(),
    };
    let mut diff = |what: &str, a: String, b: String| {
        if a != b {
            out.push(format!("job {job}: {}: {what} {a} → {b}", q(&n.path)));
        }
    };
    diff("file", q(&s.path), q(&n.path));
    diff("filesystem", show(&s.fs_type), show(&n.fs_type));
    diff("mount point", show(&s.mount_point), show(&n.mount_point));
    diff(
        "mount options",
        show(&s.mount_options),
        show(&n.mount_options),
    );
    diff("device", show(&s.device), show(&n.device));
    diff("device model", show(&s.model), show(&n.model));
    diff("device", rot(s.rotational), rot(n.rotational));
    diff("scheduler", show(&s.scheduler), show(&n.scheduler));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::repeat::{DirRepeat, JobRepeat};

    fn sp(median: f64, cv_pct: Option<f64>) -> Spread {
        Spread {
            median,
            min: median,
            max: median,
            cv_pct,
            runs: vec![median],
        }
    }

    fn summary(runs: u32, iops: f64, cv: Option<f64>, p99: f64) -> RepeatSummary {
        RepeatSummary {
            requested: runs,
            runs,
            median_run: 1,
            stopped: None,
            jobs: vec![JobRepeat {
                jobname: "j".into(),
                groupid: 0,
                dirs: vec![DirRepeat {
                    ddir: "read".into(),
                    runs,
                    iops: sp(iops, cv),
                    bw_bytes: sp(iops * 4096.0, cv),
                    clat_mean_ns: sp(1000.0, cv),
                    clat_percentiles: vec![(99.0, sp(p99, cv)), (99.5, sp(p99, cv))],
                }],
            }],
        }
    }

    const GATED: [Metric; 3] = [Metric::Iops, Metric::Bw, Metric::ClatPercentile(99.0)];

    fn verdicts(lines: &[MetricVerdict]) -> Vec<(String, Verdict, bool)> {
        lines
            .iter()
            .map(|l| (l.metric.key(), l.verdict, l.gated))
            .collect()
    }

    #[test]
    fn single_runs_use_the_threshold() {
        let saved = summary(1, 1000.0, None, 2000.0);
        let now = summary(1, 850.0, None, 1500.0);
        let lines = compare(&saved, &now, 10.0, &GATED);
        let want = [
            ("iops", Verdict::Worse, true),
            ("bw", Verdict::Worse, true),
            ("mean", Verdict::Within, false),
            ("p99", Verdict::Better, true),
            ("p99.5", Verdict::Better, false),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(k, v, g)| (k.to_string(), *v, *g))
            .collect();
        assert_eq!(verdicts(&lines), want);
        assert!((lines[0].change_pct.unwrap() + 15.0).abs() < 1e-9);
        assert_eq!(lines[0].band_pct, 10.0);
        assert_eq!(lines[0].band_from, BandFrom::Threshold);
        let lax = compare(&saved, &now, 30.0, &GATED);
        assert!(lax.iter().all(|l| l.verdict == Verdict::Within));
    }

    #[test]
    fn only_gated_metrics_fail() {
        // p99.5 far worse, IOPS better: not gated, so nothing fails.
        let saved = summary(3, 1000.0, Some(1.0), 2000.0);
        let mut now = summary(3, 1180.0, Some(1.0), 2000.0);
        now.jobs[0].dirs[0].clat_percentiles[1].1.median = 9000.0;
        let lines = compare(&saved, &now, 10.0, &GATED);
        assert_eq!(lines[4].verdict, Verdict::Worse);
        assert!(!lines[4].fails(), "p99.5 is not gated");
        assert_eq!(lines[0].verdict, Verdict::Better);
        assert!(!lines.iter().any(MetricVerdict::fails));
        // Gate on p99.5 and it fails.
        let lines = compare(&saved, &now, 10.0, &[Metric::ClatPercentile(99.5)]);
        assert!(lines[4].fails());
    }

    #[test]
    fn the_saved_variance_widens_the_band() {
        // cv 10% on both sides: band 2·√200 = 28.28%.
        let saved = summary(3, 1000.0, Some(10.0), 2000.0);
        let now = summary(3, 750.0, Some(10.0), 2000.0);
        let lines = compare(&saved, &now, 10.0, &GATED);
        assert!((lines[0].band_pct - 28.284).abs() < 1e-3);
        assert_eq!(lines[0].band_from, BandFrom::Variance);
        assert_eq!(lines[0].verdict, Verdict::Within, "-25% is noise");
        let worse = summary(3, 600.0, Some(10.0), 2000.0);
        assert_eq!(
            compare(&saved, &worse, 10.0, &GATED)[0].verdict,
            Verdict::Worse
        );
        // A single run against the repeated baseline: the saved cv for
        // both sides, the same band.
        let single = summary(1, 750.0, None, 2000.0);
        let lines = compare(&saved, &single, 10.0, &GATED);
        assert!((lines[0].band_pct - 28.284).abs() < 1e-3);
        assert_eq!(lines[0].verdict, Verdict::Within);
        // A variance under the threshold: the threshold.
        assert_eq!(
            band(10.0, Some(1.0), Some(2.0)),
            (10.0, BandFrom::Threshold)
        );
        assert_eq!(band(10.0, None, None), (10.0, BandFrom::Threshold));
        assert_eq!(band(1.0, None, Some(3.0)).1, BandFrom::Variance);
    }

    #[test]
    fn missing_jobs_count_as_regressions() {
        let saved = summary(1, 1000.0, None, 2000.0);
        let mut now = summary(1, 1000.0, None, 2000.0);
        now.jobs[0].jobname = "other".into();
        let lines = compare(&saved, &now, 10.0, &GATED);
        assert!(lines.iter().all(|l| l.verdict == Verdict::Missing));
        assert!(lines[0].fails());
        assert!(!lines[2].fails(), "the mean is not gated");
    }

    fn target(fs: &str, rot: Option<bool>) -> JobTarget {
        JobTarget {
            job: "j".into(),
            engine: "psync".into(),
            files: vec![FileTarget {
                path: "/d/f".into(),
                mount_point: Some("/d".into()),
                fs_type: Some(fs.into()),
                mount_options: Some("rw".into()),
                free_bytes: Some(1),
                device: None,
                model: None,
                rotational: rot,
                scheduler: None,
            }],
        }
    }

    #[test]
    fn target_differences_name_what_changed() {
        let a = [target("ext4", Some(false))];
        let mut same = target("ext4", Some(false));
        same.files[0].free_bytes = Some(99);
        assert!(
            target_differences(&a, &[same]).is_empty(),
            "free space moves"
        );
        let d = target_differences(&a, &[target("tmpfs", None)]);
        assert_eq!(
            d,
            [
                "job j: /d/f: filesystem ext4 → tmpfs",
                "job j: /d/f: device non-rotational → unknown",
            ]
        );
        let mut null = target("ext4", Some(false));
        null.engine = "null".into();
        assert_eq!(
            target_differences(&a, &[null]),
            ["job j: engine psync → null"]
        );
    }
}
