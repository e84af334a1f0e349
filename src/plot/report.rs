//! A JSON report's charts: per job, direction and latency (clat, lat,
//! slat) the percentile curve and, from JSON+ bins, the histogram; with
//! `overlay`, one chart per direction and latency holding every report's
//! (and job's) curve, so that runs compare on one chart.
//!
//! Beside a clat percentile curve: with `--repeat` (the report's
//! `"repeat"`), the band from the least to the greatest of the runs at
//! each percentile around the median run's curve; and the baseline's
//! curve (the median of its runs at each percentile, with its own band),
//! from the baseline files given, else from the saved medians of the
//! report's `"baseline"` verdicts.

use super::axis::{nines, Axis};
use super::chart::{Band, Chart, Series, Style};
use super::json::{Job, Latency, Report};
use super::runs::{Runs, RunsDir};
use super::units::Units;

/// The baseline files given, each under its label.
pub type Baselines<'a> = [(&'a str, &'a Runs)];

/// A band's (percentile, least ns, greatest ns).
type Spreads = Vec<(f64, f64, f64)>;

/// A percentile curve to draw: its label, its (percentile, ns) points and
/// the band around it (its label and spreads).
struct Curve {
    label: String,
    points: Vec<(f64, f64)>,
    band: Option<(String, Spreads)>,
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The least and greatest of the runs at each percentile below 100.
fn band_points(d: &RunsDir) -> Spreads {
    d.clat_percentiles
        .iter()
        .filter(|p| p.0 < 100.0)
        .map(|(p, s)| (*p, s.min, s.max))
        .collect()
}

/// The curve of job number `ji` of `report` (direction `ddir`, latency
/// `lat`) under `label`: with the runs' band where the report is a
/// `--repeat` of two runs or more.
fn run_curve(
    label: &str,
    report: &Report,
    ji: usize,
    job: &Job,
    ddir: &str,
    lat: &Latency,
) -> Curve {
    let points = lat
        .percentiles
        .iter()
        .filter(|p| p.0 < 100.0)
        .copied()
        .collect();
    let runs = report
        .repeat
        .as_ref()
        .filter(|r| r.runs >= 2 && lat.kind == "clat");
    let Some((r, d)) = runs.and_then(|r| Some((r, r.dir(ji, &job.name, ddir)?))) else {
        return Curve {
            label: label.to_string(),
            points,
            band: None,
        };
    };
    let median = format!("median run {} of {}", r.median_run, r.runs);
    let spread = format!("min\u{2013}max of {} runs", r.runs);
    let (label, band) = (format!("{label} ({median})"), format!("{label}: {spread}"));
    Curve {
        label,
        points,
        band: Some((band, band_points(d))),
    }
}

/// The baseline's curves beside job number `ji` of `report`: one per
/// baseline file given that has the job and direction, else the saved
/// medians of the report's verdicts (no band: the verdicts keep none).
fn baseline_curves(
    report: &Report,
    ji: usize,
    job: &Job,
    ddir: &str,
    kind: &str,
    baselines: &Baselines<'_>,
) -> Vec<Curve> {
    if kind != "clat" {
        return Vec::new();
    }
    if !baselines.is_empty() {
        return baselines
            .iter()
            .filter_map(|&(label, runs)| {
                let d = runs.dir(ji, &job.name, ddir)?;
                let points: Vec<(f64, f64)> = d
                    .clat_percentiles
                    .iter()
                    .filter(|p| p.0 < 100.0)
                    .map(|(p, s)| (*p, s.median))
                    .collect();
                let n = runs.runs;
                let band = (n >= 2).then(|| {
                    let what = format!("baseline {label}: min\u{2013}max of {n} runs");
                    (what, band_points(d))
                });
                (!points.is_empty()).then(|| Curve {
                    label: format!("baseline {label} (median of {n} run{})", plural(n)),
                    points,
                    band,
                })
            })
            .collect();
    }
    let Some(v) = &report.verdicts else {
        return Vec::new();
    };
    let mut points: Vec<(f64, f64)> = v
        .metrics
        .iter()
        .filter(|m| m.job == job.name && m.ddir == ddir)
        .filter_map(|m| Some((m.percentile()?, m.saved)))
        .filter(|p| p.0 < 100.0)
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    if points.is_empty() {
        return Vec::new();
    }
    let n = v.saved_runs;
    vec![Curve {
        label: format!("baseline {} (median of {n} run{})", v.file, plural(n)),
        points,
        band: None,
    }]
}

/// How latencies are placed: on a log axis (the default) or evenly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatAxis {
    pub log: bool,
}

/// The histogram and percentile charts of every report, `(label,
/// report)`; `many`: there are several (each chart's title names its
/// report's label).
pub fn charts(
    reports: &[(&str, &Report)],
    baselines: &Baselines<'_>,
    units: &Units,
    axis: LatAxis,
    overlay: bool,
) -> Vec<Chart> {
    if overlay {
        return overlays(reports, baselines, units, axis);
    }
    let mut out = Vec::new();
    for &(label, report) in reports {
        let from = (reports.len() > 1).then_some(label);
        for (ji, job) in report.jobs.iter().enumerate() {
            for dir in &job.dirs {
                for lat in &dir.lats {
                    let who = match from {
                        Some(f) => format!("{} {} ({f})", job.name, dir.ddir),
                        None => format!("{} {}", job.name, dir.ddir),
                    };
                    let stem = format!("{}-{}-{}", job.name, dir.ddir, lat.kind);
                    let one = [(String::new(), lat)];
                    if !lat.bins.is_empty() {
                        let title = format!("{who}: {} latency histogram", lat.kind);
                        out.push(histogram(format!("{stem}-hist"), title, &one, units, axis));
                    }
                    if lat.percentiles.iter().any(|p| p.0 < 100.0) {
                        let title = format!("{who}: {} latency percentiles", lat.kind);
                        let beside =
                            baseline_curves(report, ji, job, dir.ddir, lat.kind, baselines);
                        let mut run = run_curve(label, report, ji, job, dir.ddir, lat);
                        // A curve alone needs no legend.
                        if run.band.is_none() && beside.is_empty() {
                            run.label = String::new();
                        }
                        let mut curves = vec![run];
                        curves.extend(beside);
                        let name = format!("{stem}-pct");
                        out.push(percentiles(name, title, lat.kind, curves, units, axis));
                    }
                }
            }
        }
    }
    out
}

/// One chart per direction, latency and kind of chart, a series per
/// report and job, in input order.
fn overlays(
    reports: &[(&str, &Report)],
    baselines: &Baselines<'_>,
    units: &Units,
    axis: LatAxis,
) -> Vec<Chart> {
    // (ddir, latency) in the order first met.
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for (_, r) in reports {
        for job in &r.jobs {
            for d in &job.dirs {
                for l in &d.lats {
                    if !keys.contains(&(d.ddir, l.kind)) {
                        keys.push((d.ddir, l.kind));
                    }
                }
            }
        }
    }
    let n = match reports.len() {
        1 => "1 report".to_string(),
        n => format!("{n} reports"),
    };
    let mut out = Vec::new();
    for (ddir, kind) in keys {
        let mut lats: Vec<(String, &Latency)> = Vec::new();
        let mut curves: Vec<Curve> = Vec::new();
        let mut beside: Vec<Curve> = Vec::new();
        for &(label, r) in reports {
            for (ji, job) in r.jobs.iter().enumerate() {
                let Some(lat) = find(job, ddir, kind) else {
                    continue;
                };
                let name = match r.jobs.len() {
                    1 => label.to_string(),
                    _ => format!("{label} {}", job.name),
                };
                if lat.percentiles.iter().any(|p| p.0 < 100.0) {
                    curves.push(run_curve(&name, r, ji, job, ddir, lat));
                    for b in baseline_curves(r, ji, job, ddir, kind, baselines) {
                        // A baseline once, however many runs compare
                        // with it.
                        if !beside.iter().any(|c| c.label == b.label) {
                            beside.push(b);
                        }
                    }
                }
                lats.push((name, lat));
            }
        }
        curves.extend(beside);
        let stem = format!("overlay-{ddir}-{kind}");
        let hist: Vec<(String, &Latency)> = lats
            .iter()
            .filter(|l| !l.1.bins.is_empty())
            .cloned()
            .collect();
        if !hist.is_empty() {
            let title = format!("{ddir} {kind} latency histogram: {n}");
            out.push(histogram(format!("{stem}-hist"), title, &hist, units, axis));
        }
        if !curves.is_empty() {
            let title = format!("{ddir} {kind} latency percentiles: {n}");
            out.push(percentiles(
                format!("{stem}-pct"),
                title,
                kind,
                curves,
                units,
                axis,
            ));
        }
    }
    out
}

fn find<'a>(job: &'a Job, ddir: &str, kind: &str) -> Option<&'a Latency> {
    let dir = job.dirs.iter().find(|d| d.ddir == ddir)?;
    dir.lats.iter().find(|l| l.kind == kind)
}

/// A latency axis for `kind` in the page's unit for it, over the
/// latencies drawn (`ns`, from the least to the greatest), and the size
/// of that unit in ns: the histograms' and the percentile curves' one
/// set-up.
fn lat_axis(
    kind: &str,
    ns: impl Iterator<Item = f64> + Clone,
    units: &Units,
    axis: LatAxis,
) -> (Axis, f64) {
    let lo_ns = ns.clone().fold(f64::INFINITY, f64::min);
    let hi_ns = ns.fold(0.0, f64::max);
    let (unit, size) = units.lat(kind);
    let axis = match axis.log {
        true => Axis::log(
            format!("{kind} ({unit}, log scale)"),
            lo_ns / size,
            hi_ns / size,
            1.0 / size,
        ),
        // Room above the highest point.
        false => Axis::linear(format!("{kind} ({unit})"), 0.0, hi_ns / size * 1.05),
    };
    (axis, size)
}

/// The histogram of each `(label, latency)`: bars for one, dots for
/// several (the share of each one's I/Os, so that runs of
/// different lengths compare).
fn histogram(
    name: String,
    title: String,
    lats: &[(String, &Latency)],
    units: &Units,
    axis: LatAxis,
) -> Chart {
    let kind = lats[0].1.kind;
    // Each bin is drawn at 1 ns at the least.
    let bins = lats
        .iter()
        .flat_map(|l| l.1.bins.iter().map(|b| b.0.max(1.0)));
    let (x, size) = lat_axis(kind, bins, units, axis);
    let share = lats.len() > 1;
    let series: Vec<Series> = lats
        .iter()
        .map(|(label, lat)| {
            // (Counts in hostile input may sum past u64.)
            let total: f64 = lat.bins.iter().map(|b| b.1 as f64).sum();
            let points = lat
                .bins
                .iter()
                .map(|&(ns, n)| {
                    let y = match share {
                        true => 100.0 * n as f64 / total.max(1.0),
                        false => n as f64,
                    };
                    (ns.max(1.0) / size, y)
                })
                .collect();
            Series {
                label: label.clone(),
                points,
            }
        })
        .collect();
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    Chart {
        name,
        title,
        x,
        // Room above the highest bar.
        y: Axis::linear(if share { "% of I/Os" } else { "I/Os" }, 0.0, top * 1.05),
        style: if share { Style::Dots } else { Style::Bars },
        series,
        bands: Vec::new(),
    }
}

/// The chart of `curves` (percentiles below 100) of latency `kind`, each
/// curve's band under it in its colour.
fn percentiles(
    name: String,
    title: String,
    kind: &str,
    curves: Vec<Curve>,
    units: &Units,
    axis: LatAxis,
) -> Chart {
    let ps = || curves.iter().flat_map(|c| c.points.iter());
    let bands = || curves.iter().flat_map(|c| c.band.iter().flat_map(|b| &b.1));
    let values = || ps().map(|p| p.1).chain(bands().flat_map(|b| [b.1, b.2]));
    let last = ps().map(|p| nines(p.0)).fold(1.0, f64::max);
    let (y, size) = lat_axis(kind, values(), units, axis);
    // On a log axis, nothing under its floor (a 0 ns percentile).
    let floor = if axis.log { y.min } else { 0.0 };
    let at = |ns: f64| (ns / size).max(floor);
    let mut series = Vec::new();
    let mut out_bands = Vec::new();
    for (i, c) in curves.into_iter().enumerate() {
        if let Some((label, points)) = c.band {
            out_bands.push(Band {
                label,
                series: i,
                points: points
                    .iter()
                    .map(|&(p, lo, hi)| (nines(p), at(lo), at(hi)))
                    .collect(),
            });
        }
        series.push(Series {
            label: c.label,
            points: c.points.iter().map(|&(p, ns)| (nines(p), at(ns))).collect(),
        });
    }
    Chart {
        name,
        title,
        x: Axis::nines("percentile", last),
        y,
        style: Style::LineDots,
        series,
        bands: out_bands,
    }
}
