//! `--html`: one self-contained page, every chart's SVG inline (no
//! scripts, no external files) after the runs' summary tables: per
//! report its jobs, its `--repeat` runs (median, least, greatest, cv of
//! each metric) and its `--baseline-compare` verdicts as the run decided
//! them (`better`, `within band`, `regression` for a gated metric worse
//! or no longer measured, `worse (not gated)`); a chart with bands is
//! followed by a table of its values.

use std::fmt::Write;

use super::axis::{bw_unit, lat_unit, Scale};
use super::chart::Chart;
use super::json::Report;
use super::runs::{Runs, Spread, Verdict, Verdicts};

/// The page: a summary table per report (file name, report), then the
/// charts with their SVG text.
pub fn page(reports: &[(&str, &Report)], charts: &[(&Chart, &str)]) -> String {
    let mut h = String::new();
    h.push_str(concat!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<title>rfio plots</title>\n<style>\n",
        "body { font-family: sans-serif; margin: 1em 2em; color: #222; }\n",
        "table { border-collapse: collapse; margin-bottom: 1.5em; }\n",
        "th, td { border: 1px solid #bbb; padding: 3px 10px; text-align: right; }\n",
        "th:nth-child(-n+2), td:nth-child(-n+2) { text-align: left; }\n",
        "figure { margin: 1.5em 0; }\n",
        ".better { background: #dff0d8; }\n",
        ".regression { background: #f2dede; }\n",
        ".fail { color: #a94442; } .pass { color: #3c763d; }\n",
        // The charts fill the page's width (their viewBox keeps the
        // proportions).
        "figure svg { display: block; width: 100%; height: auto; }\n",
        "</style>\n</head>\n<body>\n<h1>rfio plots</h1>\n"
    ));
    for (name, report) in reports {
        let _ = writeln!(h, "<h2>Summary: {}</h2>", esc(name));
        h.push_str(
            "<table>\n<tr><th>job</th><th>dir</th><th>IOPS</th><th>bandwidth</th>\
             <th>mean lat</th><th>p99 clat</th><th>runtime</th></tr>\n",
        );
        for job in &report.jobs {
            for d in &job.dirs {
                let (bu, bs) = bw_unit(d.bw_kib);
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2} {bu}</td><td>{}</td><td>{}</td><td>{} ms</td></tr>",
                    esc(&job.name),
                    d.ddir,
                    iops(d.iops),
                    d.bw_kib / bs,
                    d.lat_mean_ns.map_or("-".into(), lat),
                    d.clat_p99_ns.map_or("-".into(), lat),
                    d.runtime_ms,
                );
            }
        }
        h.push_str("</table>\n");
        if let Some(r) = &report.repeat {
            repeat(&mut h, name, r);
        }
        if let Some(v) = &report.verdicts {
            verdicts(&mut h, name, v);
        }
    }
    if !charts.is_empty() {
        h.push_str("<h2>Charts</h2>\n");
    }
    for (chart, svg) in charts {
        // The chart draws its title; the figure carries it for readers.
        let _ = writeln!(
            h,
            "<figure id=\"{}\" aria-label=\"{}\">",
            esc(&chart.name),
            esc(&chart.title)
        );
        // The SVG document without an XML declaration, if any.
        let body = match svg.find("<svg") {
            Some(at) => &svg[at..],
            None => svg,
        };
        h.push_str(body.trim_end());
        h.push_str("\n</figure>\n");
        if !chart.bands.is_empty() {
            values(&mut h, chart);
        }
    }
    h.push_str("</body>\n</html>\n");
    h
}

/// The `--repeat` table: per job, direction and metric the median,
/// least, greatest and cv of the runs.
fn repeat(h: &mut String, name: &str, r: &Runs) {
    let _ = writeln!(
        h,
        "<h3>Repeat: {}</h3>\n<p>{} run{}; the summary above is the median run's (run {})</p>",
        esc(name),
        r.runs,
        if r.runs == 1 { "" } else { "s" },
        r.median_run
    );
    let _ = writeln!(
        h,
        "<table class=\"repeat\" data-report=\"{}\">\n<tr><th>job</th><th>dir</th><th>metric</th>\
         <th>median</th><th>min</th><th>max</th><th>cv</th></tr>",
        esc(name)
    );
    for j in &r.jobs {
        for d in &j.dirs {
            let mut row = |metric: &str, s: &Spread, show: &dyn Fn(f64) -> String| {
                let cv = s.cv_pct.map_or("n/a".to_string(), |c| format!("{c:.2}%"));
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{cv}</td></tr>",
                    esc(&j.name),
                    esc(&d.ddir),
                    esc(metric),
                    show(s.median),
                    show(s.min),
                    show(s.max),
                );
            };
            row("IOPS", &d.iops, &iops);
            let bw_of = |s: &Spread| bw_bytes(s.max);
            row("bandwidth", &d.bw_bytes, &bw_of(&d.bw_bytes));
            let lat_of = |s: &Spread| lat_in(s.max);
            row("clat mean", &d.clat_mean_ns, &lat_of(&d.clat_mean_ns));
            for (p, s) in &d.clat_percentiles {
                row(&format!("clat p{p}"), s, &lat_of(s));
            }
        }
    }
    h.push_str("</table>\n");
}

/// The metric of a verdict as the text output names it.
fn metric_name(v: &Verdict) -> String {
    match v.metric.as_str() {
        "iops" => "IOPS".into(),
        "bw" => "BW".into(),
        "mean" => "clat mean".into(),
        m => format!("clat {m}"),
    }
}

/// A verdict's cell: its class and text. A gated metric worse, or no
/// longer measured, is what fails the comparison: a regression.
fn verdict_cell(v: &Verdict) -> (&'static str, String) {
    match (v.verdict.as_str(), v.regressed()) {
        ("better", _) => ("better", "better".into()),
        ("within", _) => ("within", "within band".into()),
        ("worse", true) => ("regression", "regression".into()),
        ("worse", false) => ("worse", "worse (not gated)".into()),
        (_, true) => ("regression", "regression (not measured)".into()),
        (other, false) => ("missing", other.to_string()),
    }
}

/// `−5.6%`, `+18.0%` (a true minus sign, as the text output).
fn change(c: f64) -> String {
    format!("{c:+.1}%").replacen('-', "\u{2212}", 1)
}

/// The `--baseline-compare` table: the summary, the warnings, a row per
/// metric with its verdict.
fn verdicts(h: &mut String, name: &str, v: &Verdicts) {
    let gated = v.metrics.iter().filter(|m| m.gated).count();
    let count = |what: &str| {
        v.metrics
            .iter()
            .filter(|m| m.gated && m.verdict == what)
            .count()
    };
    let failing: Vec<String> = v
        .metrics
        .iter()
        .filter(|m| m.regressed())
        .map(|m| format!("{} {} {}", m.job, m.ddir, metric_name(m)))
        .collect();
    let result = match v.result.as_str() {
        "fail" => format!(
            "FAIL: {} of {gated} gated metrics regressed ({})",
            failing.len(),
            failing.join(", ")
        ),
        _ => format!(
            "PASS: {gated} gated metrics: {} better, {} within their bands",
            count("better"),
            count("within")
        ),
    };
    let _ = writeln!(
        h,
        "<h3>Baseline: {} against {}</h3>\n<p class=\"baseline-result {}\">{}</p>\n\
         <p>gated: {}; {} saved run{} against {} now; threshold {}%</p>",
        esc(name),
        esc(&v.file),
        if v.result == "fail" { "fail" } else { "pass" },
        esc(&result),
        esc(&v.gated.join(",")),
        v.saved_runs,
        if v.saved_runs == 1 { "" } else { "s" },
        v.runs,
        v.threshold_pct
    );
    if !v.warnings.is_empty() {
        h.push_str("<ul>\n");
        for w in &v.warnings {
            let _ = writeln!(h, "<li>warning: {}</li>", esc(w));
        }
        h.push_str("</ul>\n");
    }
    let _ = writeln!(
        h,
        "<table class=\"verdicts\" data-report=\"{}\">\n<tr><th>job</th><th>dir</th><th>metric</th>\
         <th>gated</th><th>baseline</th><th>now</th><th>change</th><th>band</th><th>verdict</th></tr>",
        esc(name)
    );
    for m in &v.metrics {
        let top = m.saved.max(m.now.unwrap_or(0.0));
        let show: Box<dyn Fn(f64) -> String> = match m.metric.as_str() {
            "iops" => Box::new(iops),
            "bw" => Box::new(bw_bytes(top)),
            _ => Box::new(lat_in(top)),
        };
        let (class, text) = verdict_cell(m);
        let _ = writeln!(
            h,
            "<tr data-metric=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>\u{b1}{:.1}%</td><td class=\"verdict {class}\" data-verdict=\"{}\">{text}</td></tr>",
            esc(&m.metric),
            esc(&m.job),
            esc(&m.ddir),
            esc(&metric_name(m)),
            if m.gated { "gated" } else { "reported" },
            show(m.saved),
            m.now.map_or("not measured".into(), &show),
            m.change_pct.map_or("-".into(), change),
            m.band_pct,
            esc(&m.verdict),
        );
    }
    h.push_str("</table>\n");
}

/// How an x of `chart` reads in its table: a percentile, or the value.
fn x_text(chart: &Chart, x: f64) -> String {
    let v = match chart.x.scale {
        Scale::Nines => 100.0 * (1.0 - 10f64.powf(-x)),
        _ => x,
    };
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A chart's values as a table (the chart's units): a row per x, a
/// column per series and two per band (its least and greatest).
fn values(h: &mut String, chart: &Chart) {
    let mut xs: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .chain(
            chart
                .bands
                .iter()
                .flat_map(|b| b.points.iter().map(|p| p.0)),
        )
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    let _ = write!(
        h,
        "<table class=\"chart-data\" data-chart=\"{}\">\n<caption>{}</caption>\n<tr><th>{}</th>",
        esc(&chart.name),
        esc(&chart.y.label),
        esc(&chart.x.label)
    );
    for s in &chart.series {
        let _ = write!(h, "<th>{}</th>", esc(&s.label));
    }
    for b in &chart.bands {
        let _ = write!(
            h,
            "<th>{} (least)</th><th>{} (greatest)</th>",
            esc(&b.label),
            esc(&b.label)
        );
    }
    h.push_str("</tr>\n");
    let cell = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    for &x in &xs {
        let near = |px: f64| (px - x).abs() < 1e-9;
        let _ = write!(h, "<tr><td>{}</td>", x_text(chart, x));
        for s in &chart.series {
            let y = s.points.iter().find(|p| near(p.0)).map(|p| p.1);
            let _ = write!(h, "<td>{}</td>", cell(y));
        }
        for b in &chart.bands {
            let p = b.points.iter().find(|p| near(p.0));
            let _ = write!(
                h,
                "<td>{}</td><td>{}</td>",
                cell(p.map(|p| p.1)),
                cell(p.map(|p| p.2))
            );
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

/// Bandwidths (bytes/s) in the unit of `top`'s.
fn bw_bytes(top: f64) -> impl Fn(f64) -> String {
    let (u, s) = bw_unit(top / 1024.0);
    move |b: f64| format!("{:.2} {u}", b / 1024.0 / s)
}

/// Latencies (ns) in the unit of `top`'s.
fn lat_in(top: f64) -> impl Fn(f64) -> String {
    let (u, s) = lat_unit(top);
    move |ns: f64| format!("{:.2} {u}", ns / s)
}

fn iops(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn lat(ns: f64) -> String {
    let (u, s) = lat_unit(ns);
    format!("{:.2} {u}", ns / s)
}

/// `text` safe in HTML text and attribute values.
pub fn esc(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::json::{Dir, Job};
    use super::*;

    #[test]
    fn the_page_holds_the_summary_and_every_chart() {
        let report = Report {
            jobs: vec![Job {
                name: "<j>".into(),
                dirs: vec![Dir {
                    ddir: "read",
                    iops: 25600.4,
                    bw_kib: 102401.6,
                    runtime_ms: 1000,
                    lat_mean_ns: Some(38_000.0),
                    clat_p99_ns: None,
                    lats: vec![],
                }],
            }],
            repeat: None,
            verdicts: None,
        };
        let chart = Chart {
            name: "c".into(),
            title: "t & u".into(),
            x: super::super::axis::Axis::linear("x", 0.0, 1.0),
            y: super::super::axis::Axis::linear("y", 0.0, 1.0),
            style: super::super::chart::Style::Line,
            series: vec![],
            bands: vec![],
        };
        let p = page(
            &[("r.json", &report)],
            &[(&chart, "<?xml version=\"1.0\"?>\n<svg></svg>\n")],
        );
        assert!(p.contains(
            "<tr><td>&lt;j&gt;</td><td>read</td><td>25600</td><td>100.00 MiB/s</td><td>38.00 usec</td><td>-</td><td>1000 ms</td></tr>"
        ));
        assert!(p.contains("<figure id=\"c\" aria-label=\"t &amp; u\">\n<svg></svg>\n</figure>"));
        assert!(!p.contains("<?xml") && !p.contains("<script"));
    }

    #[test]
    fn verdicts_read_as_the_run_decided_them() {
        let v = |verdict: &str, gated: bool| Verdict {
            job: "j".into(),
            ddir: "read".into(),
            metric: "p99".into(),
            gated,
            saved: 2000.0,
            now: Some(30_000.0),
            change_pct: Some(1400.0),
            band_pct: 10.0,
            verdict: verdict.into(),
        };
        let cell = |verdict: &str, gated: bool| verdict_cell(&v(verdict, gated)).1;
        assert_eq!(cell("better", true), "better");
        assert_eq!(cell("within", true), "within band");
        assert_eq!(cell("worse", true), "regression");
        assert_eq!(cell("worse", false), "worse (not gated)");
        assert_eq!(cell("not measured", true), "regression (not measured)");
        assert_eq!(cell("not measured", false), "not measured");
        let mut h = String::new();
        let all = Verdicts {
            file: "b.json".into(),
            result: "fail".into(),
            gated: vec!["p99".into()],
            threshold_pct: 10.0,
            saved_runs: 1,
            runs: 3,
            warnings: vec!["host <differs>".into()],
            metrics: vec![v("worse", true)],
        };
        verdicts(&mut h, "r.json", &all);
        assert!(h.contains(
            "<p class=\"baseline-result fail\">FAIL: 1 of 1 gated metrics regressed (j read clat p99)</p>"
        ));
        assert!(h.contains("<li>warning: host &lt;differs&gt;</li>"));
        assert!(h.contains(
            "<td>clat p99</td><td>gated</td><td>2.00 usec</td><td>30.00 usec</td><td>+1400.0%</td>\
             <td>\u{b1}10.0%</td><td class=\"verdict regression\" data-verdict=\"worse\">regression</td>"
        ), "{h}");
    }
}
