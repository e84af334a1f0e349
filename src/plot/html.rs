//! `--html`: one self-contained page, every chart's SVG inline (no
//! scripts, no external files) after the runs' summary tables.

use std::fmt::Write;

use super::axis::{bw_unit, lat_unit};
use super::chart::Chart;
use super::json::Report;

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
    }
    h.push_str("</body>\n</html>\n");
    h
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
        };
        let chart = Chart {
            name: "c".into(),
            title: "t & u".into(),
            x: super::super::axis::Axis::linear("x", 0.0, 1.0),
            y: super::super::axis::Axis::linear("y", 0.0, 1.0),
            style: super::super::chart::Style::Line,
            series: vec![],
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
}
