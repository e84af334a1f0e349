//! A JSON report's charts: per job, direction and latency (clat, lat,
//! slat) the percentile curve and, from JSON+ bins, the histogram; with
//! `overlay`, one chart per direction and latency holding every report's
//! (and job's) curve, so that runs compare on one chart.

use super::axis::{nines, Axis};
use super::chart::{Chart, Series, Style};
use super::json::{Job, Latency, Report};
use super::units::Units;

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
    units: &Units,
    axis: LatAxis,
    overlay: bool,
) -> Vec<Chart> {
    if overlay {
        return overlays(reports, units, axis);
    }
    let mut out = Vec::new();
    for &(label, report) in reports {
        let from = (reports.len() > 1).then_some(label);
        for job in &report.jobs {
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
                        out.push(percentiles(format!("{stem}-pct"), title, &one, units, axis));
                    }
                }
            }
        }
    }
    out
}

/// One chart per direction, latency and kind of chart, a series per
/// report and job, in input order.
fn overlays(reports: &[(&str, &Report)], units: &Units, axis: LatAxis) -> Vec<Chart> {
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
        for &(label, r) in reports {
            for job in &r.jobs {
                let Some(lat) = find(job, ddir, kind) else {
                    continue;
                };
                let name = match r.jobs.len() {
                    1 => label.to_string(),
                    _ => format!("{label} {}", job.name),
                };
                lats.push((name, lat));
            }
        }
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
        let pct: Vec<(String, &Latency)> = lats
            .iter()
            .filter(|l| l.1.percentiles.iter().any(|p| p.0 < 100.0))
            .cloned()
            .collect();
        if !pct.is_empty() {
            let title = format!("{ddir} {kind} latency percentiles: {n}");
            out.push(percentiles(format!("{stem}-pct"), title, &pct, units, axis));
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
    }
}

/// The percentile curve of each `(label, latency)`, to the last below 100.
fn percentiles(
    name: String,
    title: String,
    lats: &[(String, &Latency)],
    units: &Units,
    axis: LatAxis,
) -> Chart {
    let kind = lats[0].1.kind;
    let pcts = || {
        lats.iter()
            .flat_map(|l| l.1.percentiles.iter().filter(|p| p.0 < 100.0))
    };
    let last = pcts().map(|p| nines(p.0)).fold(1.0, f64::max);
    let (y, size) = lat_axis(kind, pcts().map(|p| p.1), units, axis);
    // On a log axis, nothing under its floor (a 0 ns percentile).
    let floor = if axis.log { y.min } else { 0.0 };
    let series = lats
        .iter()
        .map(|(label, lat)| Series {
            label: label.clone(),
            points: lat
                .percentiles
                .iter()
                .filter(|p| p.0 < 100.0)
                .map(|&(p, ns)| (nines(p), (ns / size).max(floor)))
                .collect(),
        })
        .collect();
    Chart {
        name,
        title,
        x: Axis::nines("percentile", last),
        y,
        style: Style::LineDots,
        series,
    }
}
