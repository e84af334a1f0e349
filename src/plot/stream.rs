//! rfio's NDJSON status stream (`--output-format=ndjson`,
//! `--status-format=ndjson`) read for charts: per job and direction the
//! interval IOPS, bandwidth and completion latency (mean, p99) of every
//! `"type":"status"` line, over the time since the jobs started, and the
//! `"type":"final"` line's report ([`super::json`]).

use serde_json::Value;

use super::axis::Axis;
use super::chart::{thin, Chart, Series, Style};
use super::json::{self, Report};
use super::units::Units;
use super::Error;

const DDIRS: [&str; 3] = ["read", "write", "trim"];

/// A status stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Stream {
    /// Per job (by name, in first-seen order), its directions' points.
    pub jobs: Vec<JobSeries>,
    /// The final line's report, if the stream has one.
    pub report: Option<Report>,
}

/// One job's points, per direction (read, write, trim).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct JobSeries {
    pub name: String,
    pub dirs: [Vec<Point>; 3],
}

/// One status line's numbers for one direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Seconds since the jobs started (`elapsed_ms`).
    pub secs: f64,
    pub iops: f64,
    pub bw_kib: f64,
    pub clat_mean_ns: Option<f64>,
    pub clat_p99_ns: Option<f64>,
}

/// Whether `bytes` starts as a status stream: its first line is one JSON
/// object whose `"type"` is `"status"` or `"final"`.
pub fn looks_like_stream(bytes: &[u8]) -> bool {
    let Some(first) = bytes
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
    else {
        return false;
    };
    serde_json::from_slice::<Value>(first)
        .ok()
        .and_then(|v| Some(matches!(v.get("type")?.as_str()?, "status" | "final")))
        .unwrap_or(false)
}

/// The stream in `bytes`, a JSON object a line (blank lines skipped); an
/// error names the line.
pub fn parse(bytes: &[u8]) -> Result<Stream, Error> {
    let mut s = Stream {
        jobs: Vec::new(),
        report: None,
    };
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let at = |why: Error| Error::StreamLine {
            line: i + 1,
            why: Box::new(why),
        };
        let v: Value =
            serde_json::from_slice(line).map_err(|source| at(Error::LineJson { source }))?;
        match v.get("type").and_then(Value::as_str) {
            Some("status") => status(&mut s, &v).map_err(at)?,
            Some("final") => {
                let doc = v.get("report").ok_or_else(|| at(Error::NoReport))?;
                s.report = Some(json::from_value(doc).map_err(at)?);
            }
            _ => return Err(at(Error::NotStreamLine)),
        }
    }
    Ok(s)
}

fn status(s: &mut Stream, v: &Value) -> Result<(), Error> {
    let secs = v
        .get("elapsed_ms")
        .and_then(Value::as_f64)
        .ok_or(Error::NoElapsed)?
        / 1000.0;
    let jobs = v
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or(Error::NoJobs)?;
    for (n, j) in jobs.iter().enumerate() {
        let name = j
            .get("jobname")
            .and_then(Value::as_str)
            .ok_or(Error::NoJobName { job: n + 1 })?;
        // Jobs of the same name are told apart by their place.
        let series = match s.jobs.get_mut(n) {
            Some(series) => series,
            None => {
                s.jobs.push(JobSeries {
                    name: name.to_string(),
                    ..JobSeries::default()
                });
                &mut s.jobs[n]
            }
        };
        for (d, ddir) in DDIRS.iter().enumerate() {
            let Some(dv) = j.get(*ddir) else { continue };
            let num = |k: &str| dv.get(k).and_then(Value::as_f64);
            series.dirs[d].push(Point {
                secs,
                iops: num("iops").unwrap_or(0.0),
                bw_kib: num("bw_bytes").unwrap_or(0.0) / 1024.0,
                clat_mean_ns: num("clat_mean_ns"),
                clat_p99_ns: num("clat_p99_ns"),
            });
        }
    }
    Ok(())
}

impl Stream {
    /// Whether any direction of any job did I/O in some interval.
    pub fn has_points(&self) -> bool {
        self.active().next().is_some()
    }

    /// (job, direction, points) of the directions that did I/O.
    fn active(&self) -> impl Iterator<Item = (&str, &'static str, &[Point])> {
        self.jobs.iter().flat_map(|j| {
            j.dirs
                .iter()
                .enumerate()
                .filter(|(_, p)| p.iter().any(|p| p.iops > 0.0 || p.bw_kib > 0.0))
                .map(move |(d, p)| (j.name.as_str(), DDIRS[d], p.as_slice()))
        })
    }

    /// The largest bandwidth and completion latency, for the page's units.
    pub fn see(&self, units: &mut Units) {
        for (_, _, points) in self.active() {
            for p in points {
                units.see_bw(p.bw_kib);
                for ns in p.clat_mean_ns.into_iter().chain(p.clat_p99_ns) {
                    units.see_lat("clat", ns);
                }
            }
        }
    }
}

/// The IOPS, bandwidth and clat charts over time of `stream`, labelled
/// `label`, file stems starting `stem`.
pub fn charts(label: &str, stem: &str, stream: &Stream, units: &Units) -> Vec<Chart> {
    if !stream.has_points() {
        return Vec::new();
    }
    let many_jobs = stream.jobs.len() > 1;
    let who = |job: &str, ddir: &str| match many_jobs {
        true => format!("{job} {ddir}"),
        false => ddir.to_string(),
    };
    let (bu, bs) = units.bw();
    let (lu, ls) = units.lat("clat");
    let metrics: [(&str, &str, String, f64); 3] = [
        ("iops", "IOPS", "IOPS".into(), 1.0),
        ("bw", "bandwidth", format!("bandwidth ({bu})"), bs),
        ("clat", "completion latency", format!("clat ({lu})"), ls),
    ];
    let mut out = Vec::new();
    for (key, what, y_label, size) in metrics {
        let mut series = Vec::new();
        for (job, ddir, points) in stream.active() {
            let mut add = |label: String, f: &dyn Fn(&Point) -> Option<f64>| {
                let pts: Vec<(f64, f64)> = points
                    .iter()
                    .filter_map(|p| Some((p.secs, f(p)? / size)))
                    .collect();
                if !pts.is_empty() {
                    series.push(Series {
                        label,
                        points: thin(pts),
                    });
                }
            };
            match key {
                "iops" => add(who(job, ddir), &|p| Some(p.iops)),
                "bw" => add(who(job, ddir), &|p| Some(p.bw_kib)),
                _ => {
                    add(format!("{} mean", who(job, ddir)), &|p| p.clat_mean_ns);
                    add(format!("{} p99", who(job, ddir)), &|p| p.clat_p99_ns);
                }
            }
        }
        if series.is_empty() {
            continue;
        }
        let pts = || series.iter().flat_map(|s| s.points.iter());
        let max_x = pts().map(|p| p.0).fold(0.0, f64::max);
        let max_y = pts().map(|p| p.1).fold(0.0, f64::max);
        out.push(Chart {
            name: format!("{stem}-{key}"),
            title: format!("{what} over time: {label}"),
            x: Axis::linear("time (s)", 0.0, max_x),
            y: Axis::linear(y_label, 0.0, max_y * 1.05),
            style: Style::LineDots,
            series,
            bands: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &str = concat!(
        r#"{"type":"status","time":1,"elapsed_ms":500,"eta_sec":1,"jobs":[{"jobname":"j","groupid":0,"#,
        r#""read":{"iops":2000.0,"bw_bytes":8192000,"clat_mean_ns":150.0,"clat_p99_ns":2000,"io_bytes":1,"total_ios":1},"#,
        r#""write":{"iops":0.0,"bw_bytes":0,"clat_mean_ns":null,"clat_p99_ns":null,"io_bytes":0,"total_ios":0}}]}"#,
        "\n",
        r#"{"type":"status","time":2,"elapsed_ms":1000,"eta_sec":0,"jobs":[{"jobname":"j","groupid":0,"#,
        r#""read":{"iops":1000.0,"bw_bytes":4096000,"clat_mean_ns":null,"clat_p99_ns":null,"io_bytes":2,"total_ios":2}}]}"#,
        "\n\n",
        r#"{"type":"final","report":{"jobs":[{"jobname":"j","read":{"total_ios":2,"clat_ns":{"percentile":{"50.000000":100}}}}]}}"#,
        "\n"
    );

    #[test]
    fn a_stream_reads_and_draws_over_time() {
        assert!(looks_like_stream(LINES.as_bytes()));
        assert!(!looks_like_stream(b"{\n  \"jobs\": []\n}\n"));
        let s = parse(LINES.as_bytes()).unwrap();
        assert_eq!(s.jobs.len(), 1);
        assert_eq!(s.jobs[0].dirs[0].len(), 2);
        assert_eq!(s.jobs[0].dirs[0][1].secs, 1.0);
        assert_eq!(s.report.as_ref().unwrap().jobs[0].name, "j");
        let mut u = Units::default();
        s.see(&mut u);
        let c = charts("s.ndjson", "s", &s, &u);
        let names: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["s-iops", "s-bw", "s-clat"]);
        // Only the direction that did I/O.
        assert_eq!(c[0].series.len(), 1);
        assert_eq!(c[0].series[0].points, vec![(0.5, 2000.0), (1.0, 1000.0)]);
        assert_eq!(c[1].y.label, "bandwidth (KiB/s)");
        assert_eq!(c[1].series[0].points[0], (0.5, 8000.0));
        assert_eq!(c[2].title, "completion latency over time: s.ndjson");
        let labels: Vec<&str> = c[2].series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["read mean", "read p99"]);
        assert_eq!(c[2].series[1].points, vec![(0.5, 2000.0)]);
    }

    #[test]
    fn bad_lines_are_named() {
        let err = |t: &str| parse(t.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            err("{\"type\":\"status\",\"elapsed_ms\":1,\"jobs\":[]}\n{\"type\":"),
            "line 2: not valid JSON: EOF while parsing a value"
        );
        assert_eq!(
            err("{\"type\":\"status\",\"jobs\":[]}"),
            "line 1: no \"elapsed_ms\""
        );
        assert_eq!(
            err("{\"a\":1}"),
            "line 1: not a status or final line (no \"type\")"
        );
        // Typed: the line, and why as a variant of its own.
        let e = parse(b"{\"type\":\"status\",\"elapsed_ms\":1,\"jobs\":[{}]}").unwrap_err();
        assert_eq!(e.to_string(), "line 1: job 1: no \"jobname\"");
        assert!(
            matches!(&e, Error::StreamLine { line: 1, why } if matches!(**why, Error::NoJobName { job: 1 })),
            "{e:?}"
        );
        let e = parse(b"\n{\"type\":\"final\"}").unwrap_err();
        assert_eq!(e.to_string(), "line 2: no \"report\"");
        assert!(std::error::Error::source(&e).is_some_and(|w| w.to_string() == "no \"report\""));
        let empty = parse(b"{\"type\":\"status\",\"elapsed_ms\":1,\"jobs\":[]}").unwrap();
        assert!(!empty.has_points());
    }
}
