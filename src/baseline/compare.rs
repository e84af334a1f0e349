//! `--baseline-compare`: pure comparisons. What a saved baseline and this
//! run measured, metric by metric ([`compare`]); and whether the two ran
//! the same work on the same target ([`text_differences`],
//! [`target_differences`]), which decides whether they may be compared.
//!
//! A metric's change is `(new - saved) / saved` of the medians (of the
//! runs; a single run's values otherwise), in percent. It is **within
//! variance** when its size is at most the band: the threshold
//! (`--baseline-threshold`, 10 by default) or, when both sides repeated
//! (`--repeat` ≥ 2), `2 × √(cv_saved² + cv_new²)` if that is larger.
//! Beyond the band it is **better** or **worse**: higher is better for
//! IOPS and bandwidth, lower for latencies.

use std::fmt::Write as _;

use super::probe::FileTarget;
use super::{JobTarget, SavedText};
use crate::stats::repeat::{RepeatSummary, Spread};

/// A string from the baseline (or this run) as a message quotes it.
fn q(text: &str) -> String {
    crate::diag::quote(text, super::error::ECHO)
}

/// What a metric did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Better,
    Worse,
    Within,
    /// Saved, but this run has no such job or direction.
    Missing,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Within => "within variance",
            Verdict::Missing => "not measured now",
        }
    }

    /// Counts as a regression (exit status 3).
    pub(crate) fn regressed(self) -> bool {
        matches!(self, Verdict::Worse | Verdict::Missing)
    }
}

/// One metric of one job and direction.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    pub(crate) job: String,
    pub(crate) ddir: String,
    /// `iops`, `bw_bytes`, `clat_mean_ns`, `clat_p99.000000_ns`, ...
    pub(crate) metric: String,
    pub(crate) saved: f64,
    pub(crate) new: Option<f64>,
    /// In percent; `None` without a new value or a zero saved one.
    pub(crate) change_pct: Option<f64>,
    /// The band within which a change is noise, percent.
    pub(crate) band_pct: f64,
    pub(crate) verdict: Verdict,
}

/// Compare every metric of `saved` with this run's `new`.
pub(crate) fn compare(saved: &RepeatSummary, new: &RepeatSummary, threshold_pct: f64) -> Vec<Line> {
    let repeated = saved.runs >= 2 && new.runs >= 2;
    let mut out = Vec::new();
    for (i, sj) in saved.jobs.iter().enumerate() {
        let nj = new.jobs.get(i).filter(|j| j.jobname == sj.jobname);
        for sd in &sj.dirs {
            let nd = nj.and_then(|j| j.dirs.iter().find(|d| d.ddir == sd.ddir));
            let mut metric = |name: String, s: &Spread, n: Option<&Spread>, higher: bool| {
                let band_pct = match (repeated, n) {
                    (true, Some(n)) => {
                        threshold_pct.max(2.0 * (s.cv_pct.powi(2) + n.cv_pct.powi(2)).sqrt())
                    }
                    _ => threshold_pct,
                };
                let new_value = n.map(|n| n.median);
                let change_pct = new_value
                    .filter(|_| s.median != 0.0)
                    .map(|v| 100.0 * (v - s.median) / s.median);
                let verdict = match (new_value, change_pct) {
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
                out.push(Line {
                    job: q(&sj.jobname),
                    ddir: sd.ddir.clone(),
                    metric: name,
                    saved: s.median,
                    new: new_value,
                    change_pct,
                    band_pct,
                    verdict,
                });
            };
            metric("iops".into(), &sd.iops, nd.map(|d| &d.iops), true);
            metric(
                "bw_bytes".into(),
                &sd.bw_bytes,
                nd.map(|d| &d.bw_bytes),
                true,
            );
            metric(
                "clat_mean_ns".into(),
                &sd.clat_mean_ns,
                nd.map(|d| &d.clat_mean_ns),
                false,
            );
            for (p, s) in &sd.clat_percentiles {
                let n = nd.and_then(|d| {
                    d.clat_percentiles
                        .iter()
                        .find(|(q, _)| q == p)
                        .map(|(_, s)| s)
                });
                metric(format!("clat_p{p:.2}_ns"), s, n, false);
            }
        }
    }
    out
}

/// The comparison as text: a line per metric, then the count of each
/// verdict.
pub(crate) fn render(lines: &[Line], file: &str, threshold_pct: f64) -> String {
    let mut out = String::new();
    let num = |v: f64| {
        if v.fract() == 0.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        }
    };
    for l in lines {
        let new = l.new.map_or("-".to_string(), num);
        let change = l
            .change_pct
            .map_or(String::new(), |c| format!(", {c:+.2}%"));
        let _ = writeln!(
            out,
            "{} {} {}: {} ({} → {}{change}; band {:.2}%)",
            l.job,
            l.ddir,
            l.metric,
            l.verdict.as_str(),
            num(l.saved),
            new,
            l.band_pct
        );
    }
    let count = |v: Verdict| lines.iter().filter(|l| l.verdict == v).count();
    let _ = writeln!(
        out,
        "baseline {file}: {} better, {} worse, {} within variance, {} not measured now \
         (threshold {threshold_pct}%)",
        count(Verdict::Better),
        count(Verdict::Worse),
        count(Verdict::Within),
        count(Verdict::Missing)
    );
    out
}

/// How the job texts of a baseline and of this run differ, one sentence
/// each (empty: the same).
pub(crate) fn text_differences(saved: &[SavedText], now: &[SavedText]) -> Vec<String> {
    let mut out = Vec::new();
    if saved.len() != now.len() {
        let names = |t: &[SavedText]| t.iter().map(|f| q(&f.name)).collect::<Vec<_>>().join(", ");
        out.push(format!(
            "job files differ: [{}] → [{}]",
            names(saved),
            names(now)
        ));
        return out;
    }
    for (s, n) in saved.iter().zip(now) {
        if s.sha256 == n.sha256 {
            continue;
        }
        let (old, new) = (
            s.text.lines().collect::<Vec<_>>(),
            n.text.lines().collect::<Vec<_>>(),
        );
        let at = (0..old.len().max(new.len())).find(|&i| old.get(i) != new.get(i));
        let detail = match at {
            Some(i) => format!(
                ": line {}: {} → {}",
                i + 1,
                old.get(i).map_or("(none)".to_string(), |l| q(l)),
                new.get(i).map_or("(none)".to_string(), |l| q(l))
            ),
            // Only line endings differ.
            None => ": line endings".to_string(),
        };
        out.push(format!(
            "{} text differs (sha256 {} → {}){detail}",
            q(&n.name),
            &s.sha256[..12.min(s.sha256.len())],
            &n.sha256[..12.min(n.sha256.len())]
        ));
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

    fn sp(median: f64, cv_pct: f64) -> Spread {
        Spread {
            median,
            min: median,
            max: median,
            cv_pct,
        }
    }

    fn summary(runs: u32, iops: f64, cv: f64, p99: f64) -> RepeatSummary {
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
                    clat_percentiles: vec![(99.0, sp(p99, cv))],
                }],
            }],
        }
    }

    fn verdicts(lines: &[Line]) -> Vec<(&str, Verdict)> {
        lines
            .iter()
            .map(|l| (l.metric.as_str(), l.verdict))
            .collect()
    }

    #[test]
    fn single_runs_use_the_threshold() {
        let saved = summary(1, 1000.0, 0.0, 2000.0);
        let new = summary(1, 850.0, 0.0, 1500.0);
        let lines = compare(&saved, &new, 10.0);
        assert_eq!(
            verdicts(&lines),
            [
                ("iops", Verdict::Worse),
                ("bw_bytes", Verdict::Worse),
                ("clat_mean_ns", Verdict::Within),
                ("clat_p99.00_ns", Verdict::Better),
            ]
        );
        assert!((lines[0].change_pct.unwrap() + 15.0).abs() < 1e-9);
        assert_eq!(lines[0].band_pct, 10.0);
        let lax = compare(&saved, &new, 30.0);
        assert!(lax.iter().all(|l| l.verdict == Verdict::Within));
        let text = render(&lines, "b.json", 10.0);
        assert!(
            text.starts_with("j read iops: worse (1000 → 850, -15.00%; band 10.00%)\n"),
            "{text}"
        );
        assert!(text.ends_with(
            "baseline b.json: 1 better, 2 worse, 1 within variance, 0 not measured now \
             (threshold 10%)\n"
        ));
    }

    #[test]
    fn repeats_widen_the_band_by_their_cv() {
        // cv 10% on both sides: band 2 * sqrt(200) = 28.28%.
        let saved = summary(3, 1000.0, 10.0, 2000.0);
        let new = summary(3, 750.0, 10.0, 2000.0);
        let lines = compare(&saved, &new, 10.0);
        assert!((lines[0].band_pct - 28.284).abs() < 1e-3);
        assert_eq!(lines[0].verdict, Verdict::Within, "-25% is noise");
        let worse = summary(3, 600.0, 10.0, 2000.0);
        assert_eq!(compare(&saved, &worse, 10.0)[0].verdict, Verdict::Worse);
        // One side single: the threshold alone.
        let single = summary(1, 750.0, 0.0, 2000.0);
        assert_eq!(compare(&saved, &single, 10.0)[0].verdict, Verdict::Worse);
    }

    #[test]
    fn missing_jobs_count_as_regressions() {
        let saved = summary(1, 1000.0, 0.0, 2000.0);
        let mut new = summary(1, 1000.0, 0.0, 2000.0);
        new.jobs[0].jobname = "other".into();
        let lines = compare(&saved, &new, 10.0);
        assert!(lines.iter().all(|l| l.verdict == Verdict::Missing));
        assert!(lines[0].verdict.regressed());
    }

    fn text(name: &str, t: &str) -> SavedText {
        SavedText {
            name: name.into(),
            sha256: super::super::sha256_hex(t.as_bytes()),
            text: t.into(),
        }
    }

    #[test]
    fn job_text_differences_name_the_line() {
        let a = [text("x.fio", "[j]\nrw=read\nbs=4k\n")];
        let b = [text("x.fio", "[j]\nrw=read\nbs=8k\n")];
        assert!(text_differences(&a, &a).is_empty());
        let d = text_differences(&a, &b);
        assert_eq!(d.len(), 1);
        assert!(d[0].starts_with("x.fio text differs (sha256 "), "{}", d[0]);
        assert!(d[0].ends_with("): line 3: bs=4k → bs=8k"), "{}", d[0]);
        let c = [text("x.fio", "[j]\nrw=read\n")];
        assert!(text_differences(&a, &c)[0].ends_with("line 3: bs=4k → (none)"));
        let two = [text("x.fio", "[j]\n"), text("y.fio", "[k]\n")];
        assert_eq!(
            text_differences(&a, &two),
            ["job files differ: [x.fio] → [x.fio, y.fio]"]
        );
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
