//! Parsed inputs → charts: one per log file (or per kind of log with
//! `overlay`), and per job, direction and latency of a JSON report a
//! histogram (JSON+ bins) and a percentile curve ([`super::report`]).
//! Each input is labelled by the shortest end of its path that no other
//! input's path ends with ([`labels`]); each metric has one unit across
//! all charts ([`Units`]).

use std::collections::HashSet;

use super::axis::Axis;
use super::chart::{file_stem, thin, Chart, Series, Style};
use super::json::Report;
use super::log::{Log, LogKind};
use super::report::{self, LatAxis};
use super::runs::Runs;
use super::stream::{self, Stream};
use super::units::Units;

/// One parsed input file, under its path as given.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    Log {
        name: String,
        log: Log,
    },
    Report {
        name: String,
        report: Report,
    },
    /// An NDJSON status stream.
    Stream {
        name: String,
        stream: Stream,
    },
    /// A baseline file (`--baseline-save`): its runs are drawn beside
    /// the reports' curves.
    Baseline {
        name: String,
        runs: Runs,
    },
}

impl Input {
    /// The path it was read from.
    pub fn name(&self) -> &str {
        match self {
            Input::Log { name, .. }
            | Input::Report { name, .. }
            | Input::Stream { name, .. }
            | Input::Baseline { name, .. } => name,
        }
    }

    /// Its report: a JSON report's, or a stream's final line's.
    pub fn report(&self) -> Option<&Report> {
        match self {
            Input::Report { report, .. } => Some(report),
            Input::Stream { stream, .. } => stream.report.as_ref(),
            Input::Log { .. } | Input::Baseline { .. } => None,
        }
    }

    /// Why it gives no chart, if it gives none (a log read has samples).
    pub fn nothing_to_plot(&self) -> Option<&'static str> {
        match self {
            Input::Log { .. } => None,
            Input::Baseline { runs, .. } => (!runs
                .jobs
                .iter()
                .flat_map(|j| &j.dirs)
                .any(|d| !d.clat_percentiles.is_empty()))
            .then_some("a baseline without completion-latency percentiles"),
            Input::Report { report, .. } => {
                (!report.drawable()).then_some("no job did I/O with latency percentiles or bins")
            }
            Input::Stream { stream, .. } => (!stream.has_points()
                && !stream.report.as_ref().is_some_and(Report::drawable))
            .then_some("no status line with I/O, no final report with latencies"),
        }
    }
}

/// How the charts are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// One chart per kind of log, and per direction and latency of the
    /// reports, a series per input.
    pub overlay: bool,
    /// Latencies of percentile curves and histograms on a log axis.
    pub log_latency: bool,
}

const DDIRS: [&str; 3] = ["read", "write", "trim"];

/// Each path's label: its last components, as few as tell it from every
/// other path (`a/j.json` and `b/j.json`, not `j.json` twice).
pub fn labels(paths: &[&str]) -> Vec<String> {
    let parts: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| {
            p.split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .collect()
        })
        .collect();
    let tail = |p: &[&str], k: usize| p[p.len().saturating_sub(k)..].join("/");
    parts
        .iter()
        .enumerate()
        .map(|(i, mine)| {
            let others: Vec<&Vec<&str>> = parts
                .iter()
                .enumerate()
                .filter(|&(j, p)| j != i && p != mine)
                .map(|(_, p)| p)
                .collect();
            let k = (1..=mine.len())
                .find(|&k| others.iter().all(|o| tail(o, k) != tail(mine, k)))
                .unwrap_or(mine.len());
            match tail(mine, k) {
                t if t.is_empty() => paths[i].to_string(),
                t => t,
            }
        })
        .collect()
}

/// The largest latency and bandwidth of every input.
fn units(inputs: &[Input]) -> Units {
    let mut u = Units::default();
    for input in inputs {
        match input {
            Input::Log { log, .. } => {
                let top = log.samples.iter().map(|s| s.value).max().unwrap_or(0) as f64;
                match log.kind {
                    LogKind::Iops => {}
                    LogKind::Bw if log.windowed() => u.see_bw(top),
                    LogKind::Bw => u.see_bw(top * 1000.0 / 1024.0),
                    k => u.see_lat(k.name(), top),
                }
            }
            Input::Stream { stream, .. } => stream.see(&mut u),
            Input::Report { .. } => {}
            Input::Baseline { runs, .. } => {
                for d in runs.jobs.iter().flat_map(|j| &j.dirs) {
                    for (_, s) in d.clat_percentiles.iter().filter(|p| p.0 < 100.0) {
                        u.see_lat("clat", s.max);
                    }
                }
            }
        }
        if let Some(report) = input.report() {
            for lat in report
                .jobs
                .iter()
                .flat_map(|j| &j.dirs)
                .flat_map(|d| &d.lats)
            {
                let pct = lat.percentiles.iter().filter(|p| p.0 < 100.0);
                for ns in pct.map(|p| p.1).chain(lat.bins.iter().map(|b| b.0)) {
                    u.see_lat(lat.kind, ns);
                }
            }
            // The runs' greatest and the baseline's saved medians.
            let runs = report.repeat.iter().flat_map(|r| &r.jobs);
            for d in runs.flat_map(|j| &j.dirs) {
                for (_, s) in d.clat_percentiles.iter().filter(|p| p.0 < 100.0) {
                    u.see_lat("clat", s.max);
                }
            }
            for v in report.verdicts.iter().flat_map(|v| &v.metrics) {
                if v.percentile().is_some_and(|p| p < 100.0) {
                    u.see_lat("clat", v.saved);
                }
            }
        }
    }
    u
}

/// Every chart of `inputs`, in input order, with distinct file stems.
pub fn charts(inputs: &[Input], opts: &Options) -> Vec<Chart> {
    let overlay = opts.overlay;
    let units = units(inputs);
    let names: Vec<&str> = inputs.iter().map(Input::name).collect();
    let labels = labels(&names);
    let mut out = Vec::new();
    let logs: Vec<(&str, &Log)> = inputs
        .iter()
        .zip(&labels)
        .filter_map(|(i, label)| match i {
            Input::Log { log, .. } => Some((label.as_str(), log)),
            _ => None,
        })
        .collect();
    if overlay {
        let mut kinds: Vec<LogKind> = logs.iter().map(|l| l.1.kind).collect();
        kinds.sort();
        kinds.dedup();
        for kind in kinds {
            let group: Vec<(&str, &Log)> =
                logs.iter().copied().filter(|l| l.1.kind == kind).collect();
            let name = format!("overlay-{}", kind.name());
            out.push(log_chart(&name, &group, true, &units));
        }
    } else {
        for &(name, log) in &logs {
            out.push(log_chart(&log_stem(name), &[(name, log)], false, &units));
        }
    }
    for (input, label) in inputs.iter().zip(&labels) {
        if let Input::Stream { stream, .. } = input {
            let stem = label.strip_suffix(".ndjson").unwrap_or(label);
            out.extend(stream::charts(label, stem, stream, &units));
        }
    }
    let reports: Vec<(&str, &Report)> = inputs
        .iter()
        .zip(&labels)
        .filter_map(|(i, label)| Some((label.as_str(), i.report()?)))
        .collect();
    let baselines: Vec<(&str, &Runs)> = inputs
        .iter()
        .zip(&labels)
        .filter_map(|(i, label)| match i {
            Input::Baseline { runs, .. } => Some((label.as_str(), runs)),
            _ => None,
        })
        .collect();
    let axis = LatAxis {
        log: opts.log_latency,
    };
    out.extend(report::charts(&reports, &baselines, &units, axis, overlay));
    let mut used = HashSet::new();
    for c in &mut out {
        let base = file_stem(&c.name);
        let mut stem = base.clone();
        let mut n = 1;
        while !used.insert(stem.clone()) {
            n += 1;
            stem = format!("{base}-{n}");
        }
        c.name = stem;
    }
    out
}

/// `dir/job_iops.1.log[.fz]` → `dir/job_iops.1` (made a file stem later).
fn log_stem(name: &str) -> String {
    let s = name.strip_suffix(".fz").unwrap_or(name);
    s.strip_suffix(".log").unwrap_or(s).to_string()
}

/// A chart of one or more logs of the same kind: a series per file and
/// direction.
fn log_chart(name: &str, logs: &[(&str, &Log)], overlay: bool, units: &Units) -> Chart {
    let kind = logs[0].1.kind;
    // Times since the Unix epoch (`log_unix_epoch=1`) start at the first.
    let t0 = logs
        .iter()
        .flat_map(|l| l.1.samples.iter().map(|s| s.time_ms))
        .min()
        .filter(|&t| t > 100_000_000_000)
        .unwrap_or(0);
    let mut series = Vec::new();
    let mut notes = Vec::new();
    for &(file, log) in logs {
        let (raw, note) = values(log, t0);
        for (d, points) in raw.into_iter().enumerate() {
            if points.is_empty() {
                continue;
            }
            // An overlay's series say which are per-I/O logs; a single
            // log's title does.
            let label = match (overlay, &note) {
                (true, Some(_)) => format!("{file} {} (per I/O)", DDIRS[d]),
                (true, None) => format!("{file} {}", DDIRS[d]),
                (false, _) => DDIRS[d].to_string(),
            };
            series.push(Series { label, points });
        }
        if !overlay {
            notes.extend(note);
        }
    }
    let max_y = max(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
    let max_x = max(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
    let (what, unit, size) = match kind {
        LogKind::Iops => ("IOPS", "IOPS".to_string(), 1.0),
        LogKind::Bw => {
            let (u, s) = units.bw();
            ("bandwidth", format!("bandwidth ({u})"), s)
        }
        k => {
            let (u, s) = units.lat(k.name());
            let what = match k {
                LogKind::Slat => "submission latency",
                LogKind::Clat => "completion latency",
                _ => "total latency",
            };
            (what, format!("{} ({u})", k.name()), s)
        }
    };
    for s in &mut series {
        let points = std::mem::take(&mut s.points);
        s.points = thin(points.into_iter().map(|(x, y)| (x, y / size)).collect());
    }
    let subject = match overlay {
        true if logs.len() == 1 => format!("1 log ({})", logs[0].0),
        true => format!("{} logs", logs.len()),
        false => logs[0].0.to_string(),
    };
    let mut title = format!("{what} over time: {subject}");
    if let Some(n) = notes.first() {
        title.push_str(&format!(" ({n})"));
    }
    Chart {
        name: name.to_string(),
        title,
        x: Axis::linear("time (s)", 0.0, max_x),
        // Room above the highest point.
        y: Axis::linear(unit, 0.0, max_y / size * 1.05),
        style: Style::Line,
        series,
        bands: Vec::new(),
    }
}

fn max(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, f64::max)
}

/// A log's points per direction, (seconds, value in the kind's base unit:
/// IOPS, KiB/s, ns), and a note on how they were derived.
fn values(log: &Log, t0: u64) -> ([Vec<(f64, f64)>; 3], Option<String>) {
    let mut out: [Vec<(f64, f64)>; 3] = Default::default();
    let secs = |t: u64| t.saturating_sub(t0) as f64 / 1000.0;
    let windowed = log.windowed();
    match log.kind {
        // A line per I/O, each `1`: I/Os counted per window.
        LogKind::Iops if !windowed => {
            let first = log.samples.iter().map(|s| s.time_ms).min().unwrap_or(0);
            let last = log.samples.iter().map(|s| s.time_ms).max().unwrap_or(0);
            let win = window_ms(last.saturating_sub(first));
            let mut counts: [Vec<u64>; 3] = Default::default();
            for s in &log.samples {
                let slot = (s.time_ms.saturating_sub(first) / win) as usize;
                let c = &mut counts[usize::from(s.ddir)];
                if c.len() <= slot {
                    c.resize(slot + 1, 0);
                }
                c[slot] = c[slot].saturating_add(s.value);
            }
            for (d, c) in counts.iter().enumerate() {
                out[d] = c
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| {
                        let end = first.saturating_add((i as u64 + 1).saturating_mul(win));
                        (secs(end), n as f64 * 1000.0 / win as f64)
                    })
                    .collect();
            }
            return (out, Some(format!("per-I/O log, I/Os counted per {win} ms")));
        }
        _ => {
            // Per-I/O bandwidth is bytes per ms of the one I/O.
            let scale = match log.kind == LogKind::Bw && !windowed {
                true => 1000.0 / 1024.0,
                false => 1.0,
            };
            for s in &log.samples {
                out[usize::from(s.ddir)].push((secs(s.time_ms), s.value as f64 * scale));
            }
        }
    }
    let note = (!windowed).then(|| "per-I/O log".to_string());
    (out, note)
}

/// A round window (1, 2, 5 × 10^k ms) giving at most 200 windows over
/// `span_ms`.
fn window_ms(span_ms: u64) -> u64 {
    let mut p = 1;
    loop {
        for m in [1, 2, 5] {
            if span_ms / (m * p) < 200 {
                return m * p;
            }
        }
        p *= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{json, log};
    use super::*;

    const APART: Options = Options {
        overlay: false,
        log_latency: true,
    };
    const OVERLAY: Options = Options {
        overlay: true,
        log_latency: true,
    };

    fn input(name: &str, text: &str) -> Input {
        let kind = LogKind::from_file_name(name).unwrap();
        Input::Log {
            name: name.into(),
            log: log::parse(kind, text.as_bytes()).unwrap(),
        }
    }

    #[test]
    fn a_chart_per_log_a_series_per_direction() {
        let ins = [
            input(
                "j_bw.1.log",
                "100, 20480, 0, 0, 0\n100, 10240, 1, 0, 0\n200, 30720, 0, 0, 0\n",
            ),
            input("j_clat.1.log", "100, 250000, 0, 0, 0\n"),
        ];
        let c = charts(&ins, &APART);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].name, "j_bw.1");
        assert_eq!(c[0].y.label, "bandwidth (MiB/s)");
        assert_eq!(c[0].x.label, "time (s)");
        assert_eq!(c[0].series.len(), 2);
        assert_eq!(c[0].series[0].points, vec![(0.1, 20.0), (0.2, 30.0)]);
        assert_eq!(c[1].y.label, "clat (usec)");
        assert_eq!(c[1].series[0].points, vec![(0.1, 250.0)]);
        let o = charts(&ins, &OVERLAY);
        assert_eq!(
            o.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["overlay-bw", "overlay-clat"]
        );
        assert_eq!(o[0].series[1].label, "j_bw.1.log write");
    }

    #[test]
    fn unix_epoch_times_start_at_the_first_sample() {
        let c = charts(
            &[input(
                "j_lat.1.log",
                "1795990127452, 900, 0, 0, 0\n1795990127552, 1100, 0, 0, 0\n",
            )],
            &APART,
        );
        assert_eq!(c[0].series[0].points, vec![(0.0, 900.0), (0.1, 1100.0)]);
        assert_eq!(c[0].y.label, "lat (nsec)");
        assert_eq!(c[0].title, "total latency over time: j_lat.1.log");
    }

    #[test]
    fn per_io_iops_logs_are_counted_per_window() {
        let text: String = (0..100)
            .map(|i| format!("{}, 1, 0, 4096, 0\n", i * 10))
            .collect();
        let c = charts(&[input("j_iops.1.log", &text)], &APART);
        // 990 ms of I/O: 5 ms windows, 2 I/Os each = 400 IOPS.
        assert!(c[0].title.contains("counted per 5 ms"), "{}", c[0].title);
        assert!(c[0].series[0]
            .points
            .iter()
            .all(|p| p.1 == 200.0 || p.1 == 0.0 || p.1 == 400.0));
        let total: f64 = c[0].series[0]
            .points
            .iter()
            .map(|p| p.1 * 5.0 / 1000.0)
            .sum();
        assert_eq!(total, 100.0);
    }

    #[test]
    fn reports_give_histograms_and_percentiles_with_distinct_names() {
        let text = r#"{"jobs": [
          {"jobname": "a/b", "read": {"total_ios": 3, "clat_ns": {
            "percentile": {"50.000000": 2000, "99.000000": 20000}, "bins": {"1000": 1, "20000": 2}}}},
          {"jobname": "a/b", "read": {"total_ios": 3, "clat_ns": {"percentile": {"50.000000": 2000}}}}
        ]}"#;
        let r = json::parse(text.as_bytes()).unwrap();
        let c = charts(
            &[Input::Report {
                name: "r.json".into(),
                report: r,
            }],
            &APART,
        );
        let names: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "a_b-read-clat-hist",
                "a_b-read-clat-pct",
                "a_b-read-clat-pct-2"
            ]
        );
        assert_eq!(c[0].x.label, "clat (usec, log scale)");
        assert_eq!(c[0].series[0].points, vec![(1.0, 1.0), (20.0, 2.0)]);
        assert_eq!(c[1].y.label, "clat (usec, log scale)");
        assert_eq!((c[1].y.min, c[1].y.max), (1.0, 100.0));
        assert_eq!(c[1].series[0].points.len(), 2);
    }

    #[test]
    fn labels_are_the_shortest_distinct_ends_of_the_paths() {
        assert_eq!(
            labels(&["a/x/j.json", "b/x/j.json", "k.json", "./c/k2.json"]),
            ["a/x/j.json", "b/x/j.json", "k.json", "k2.json"]
        );
        assert_eq!(
            labels(&["old/j.json", "new/j.json"]),
            ["old/j.json", "new/j.json"]
        );
        // The same path twice cannot be told apart; "/" keeps its name.
        assert_eq!(
            labels(&["j.json", "./j.json", "/"]),
            ["j.json", "j.json", "/"]
        );
    }

    fn report(job: &str, read_p99_ns: u64, write_p99_ns: u64) -> Report {
        let text = format!(
            r#"{{"jobs": [{{"jobname": "{job}",
              "read": {{"total_ios": 3, "clat_ns": {{
                "percentile": {{"50.000000": 1000, "99.000000": {read_p99_ns}}},
                "bins": {{"1000": 1, "{read_p99_ns}": 3}}}}}},
              "write": {{"total_ios": 3, "clat_ns": {{
                "percentile": {{"50.000000": 2000, "99.000000": {write_p99_ns}}}}}}}}}]}}"#
        );
        json::parse(text.as_bytes()).unwrap()
    }

    /// Two runs of the same job, in two folders: one chart per direction
    /// and kind, a series per run labelled by its folder, one unit (the
    /// largest value's: 30 ms) for every clat chart.
    #[test]
    fn reports_overlay_with_one_unit_and_told_apart() {
        let ins = [
            Input::Report {
                name: "old/j.json".into(),
                report: report("j", 20_000, 30_000_000),
            },
            Input::Report {
                name: "new/j.json".into(),
                report: report("j", 40_000, 50_000),
            },
        ];
        let c = charts(&ins, &OVERLAY);
        let names: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "overlay-read-clat-hist",
                "overlay-read-clat-pct",
                "overlay-write-clat-pct"
            ]
        );
        for chart in &c {
            let labels: Vec<&str> = chart.series.iter().map(|s| s.label.as_str()).collect();
            assert_eq!(labels, ["old/j.json", "new/j.json"], "{}", chart.name);
        }
        assert_eq!(c[0].title, "read clat latency histogram: 2 reports");
        assert_eq!(c[0].x.label, "clat (msec, log scale)");
        assert_eq!(c[0].y.label, "% of I/Os");
        assert_eq!(c[0].style, Style::Dots);
        assert_eq!(c[0].series[0].points, vec![(0.001, 25.0), (0.02, 75.0)]);
        assert_eq!(c[1].y.label, "clat (msec, log scale)");
        assert_eq!(c[1].y.scale, super::super::axis::Scale::Log);
        let ys: Vec<f64> = c[1].series[1].points.iter().map(|p| p.1).collect();
        assert_eq!(ys, [0.001, 0.04]);
        assert_eq!(c[2].y.label, "clat (msec, log scale)");
        // Apart, the same unit; the titles tell the runs apart.
        let c = charts(&ins, &APART);
        assert!(c
            .iter()
            .all(|c| c.y.label.contains("msec") || c.x.label.contains("msec")));
        assert_eq!(c[1].title, "j read (old/j.json): clat latency percentiles");
        assert_eq!(c[4].title, "j read (new/j.json): clat latency percentiles");
        // A linear latency axis when asked.
        let lin = Options {
            overlay: true,
            log_latency: false,
        };
        let c = charts(&ins, &lin);
        assert_eq!(c[1].y.label, "clat (msec)");
        assert_eq!(c[1].y.scale, super::super::axis::Scale::Linear);
    }
}
