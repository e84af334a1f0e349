//! `rfio plot --html` with rfio's own results: a `--repeat=3` run compared
//! with a `--repeat=3` baseline at half its rate. The page, loaded in
//! headless Chromium, draws the run's clat percentiles in the band of its
//! runs' least to greatest and the baseline's curve (with its band) beside
//! it, and its tables hold the runs' figures and each metric's verdict as
//! the run's JSON `"baseline"` object has it; every value is checked
//! against the JSON it came from, and the median run's line against its
//! band in the SVG's own pixels.

use serde_json::Value;

use super::plot::{browse, chromium, plot, read};
use crate::common::{self, TempDir};

/// A 1 s job at `iops` reads per second on the null engine, three runs.
fn job(iops: u32, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=n",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=16m",
        "--time_based",
        "--runtime=1",
        "--repeat=3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!("--rate_iops={iops}"));
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn rfio(dir: &TempDir, args: &[String]) -> std::process::Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::rfio(dir, &args)
}

/// The cells of every row of the `<table>` whose opening tag holds `tag`,
/// header row included (a cell's text without its markup).
fn table(dom: &str, tag: &str) -> Vec<Vec<String>> {
    let at = dom
        .find(tag)
        .unwrap_or_else(|| panic!("no table {tag} in the DOM"));
    let body = &dom[at..];
    let body = &body[..body.find("</table>").expect("table closed")];
    body.split("<tr")
        .skip(1)
        .map(|row| {
            row.split("<t")
                .skip(1)
                .filter(|c| c.starts_with('d') || c.starts_with('h'))
                .map(|c| {
                    let text = &c[c.find('>').unwrap() + 1..];
                    let text = &text[..text.find("</t").unwrap()];
                    text.replace("&amp;", "&")
                })
                .collect()
        })
        .collect()
}

/// Each `<tag ... points="...">` of `svg`: its points, in pixels.
fn shapes(svg: &str, tag: &str, with: &str) -> Vec<Vec<(f64, f64)>> {
    svg.split(&format!("<{tag} "))
        .skip(1)
        .map(|t| &t[..t.find('>').unwrap()])
        .filter(|t| t.contains(with))
        .map(|t| {
            let pts = t.split("points=\"").nth(1).expect("points");
            pts[..pts.find('"').unwrap()]
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

/// The size in ns of the unit a chart's axis names (`clat (usec, log
/// scale)`).
fn unit_of(label: &str) -> f64 {
    for (u, s) in [("nsec", 1.0), ("usec", 1e3), ("msec", 1e6)] {
        if label.contains(u) {
            return s;
        }
    }
    panic!("no unit in {label:?}")
}

/// The text of the page's first table caption (a chart's y axis).
fn caption(page: &str) -> String {
    let at = &page[page.find("<caption>").expect("a caption") + 9..];
    at[..at.find("</caption>").unwrap()].to_string()
}

/// `percentile → value` of a JSON object keyed `"99.000000"`.
fn by_percentile(obj: &Value) -> Vec<(f64, &Value)> {
    let mut v: Vec<(f64, &Value)> = obj
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.parse().unwrap(), v))
        .filter(|(p, _)| *p < 100.0)
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// The verdict cell's text for a JSON verdict (the page's wording).
fn verdict_text(m: &Value) -> &'static str {
    let gated = m["gated"].as_bool().unwrap();
    match (m["verdict"].as_str().unwrap(), gated) {
        ("better", _) => "better",
        ("within", _) => "within band",
        ("worse", true) => "regression",
        ("worse", false) => "worse (not gated)",
        ("not measured", true) => "regression (not measured)",
        (other, _) => panic!("verdict {other}"),
    }
}

#[test]
fn the_html_page_draws_the_baseline_and_the_repeat_band_and_the_verdicts() {
    chromium();
    let dir = TempDir::new("plot-baseline");
    let o = rfio(&dir, &job(2000, &["--baseline-save=b.json"]));
    assert!(o.status.success(), "{}", common::stderr(&o));
    // Half the rate: IOPS and bandwidth regress (exit 3).
    let run = job(
        1000,
        &[
            "--baseline-compare=b.json",
            "--output-format=json",
            "--output=run.json",
        ],
    );
    let o = rfio(&dir, &run);
    assert_eq!(o.status.code(), Some(3), "{}", common::stderr(&o));
    let doc: Value = serde_json::from_str(&read(dir.file("run.json"))).unwrap();
    let saved: Value = serde_json::from_str(&read(dir.file("b.json"))).unwrap();
    let o = plot(
        &dir,
        &["run.json", "b.json", "--html", "--format=svg", "-o", "web"],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(
        common::stdout(&o),
        "web/n-read-clat-pct.svg\nweb/index.html\n"
    );
    let (dom, log) = browse(&dir, &dir.file("web/index.html"), &["--dump-dom"]);
    assert!(!log.contains(":CONSOLE"), "{log}");

    // The verdicts, one row per metric of the JSON, as it decided them.
    let metrics = doc["baseline"]["metrics"].as_array().unwrap();
    let rows = table(&dom, "class=\"verdicts\"");
    assert_eq!(
        rows[0],
        ["job", "dir", "metric", "gated", "baseline", "now", "change", "band", "verdict"]
    );
    assert_eq!(rows.len(), 1 + metrics.len());
    for (row, m) in rows[1..].iter().zip(metrics) {
        let key = m["metric"].as_str().unwrap();
        assert_eq!(row[0], "n");
        assert_eq!(row[1], "read");
        let gated = if m["gated"] == true {
            "gated"
        } else {
            "reported"
        };
        assert_eq!(row[3], gated, "{key}");
        assert_eq!(
            row[7],
            format!("\u{b1}{:.1}%", m["band_pct"].as_f64().unwrap())
        );
        assert_eq!(row[8], verdict_text(m), "{key}");
    }
    let iops = &rows[1];
    assert_eq!(iops[2], "IOPS");
    assert_eq!(iops[8], "regression");
    let (was, now) = (
        metrics[0]["saved"].as_f64().unwrap(),
        metrics[0]["now"].as_f64().unwrap(),
    );
    assert_eq!(
        (iops[4].clone(), iops[5].clone()),
        (format!("{was:.0}"), format!("{now:.0}"))
    );
    assert!(iops[6].starts_with('\u{2212}'), "IOPS fell: {}", iops[6]);
    assert!(dom.contains("class=\"verdict regression\" data-verdict=\"worse\""));
    assert!(
        dom.contains("<p class=\"baseline-result fail\">FAIL: "),
        "the summary line"
    );

    // The runs: IOPS median, min and max as the JSON's "repeat".
    let spread = &doc["repeat"]["jobs"][0]["read"];
    let rows = table(&dom, "class=\"repeat\"");
    let s = &spread["iops"];
    let f = |k: &str| format!("{:.0}", s[k].as_f64().unwrap());
    assert_eq!(
        rows[1][2..6],
        ["IOPS".to_string(), f("median"), f("min"), f("max")]
    );

    // The chart's values: the median run's curve, the baseline's medians,
    // each band's least and greatest, in the chart's unit.
    let rows = table(&dom, "data-chart=\"n-read-clat-pct\"");
    let div = unit_of(&caption(&dom));
    let median = format!("run.json (median run {} of 3)", doc["repeat"]["median_run"]);
    assert_eq!(
        rows[0],
        [
            "percentile",
            median.as_str(),
            "baseline b.json (median of 3 runs)",
            "run.json: min\u{2013}max of 3 runs (least)",
            "run.json: min\u{2013}max of 3 runs (greatest)",
            "baseline b.json: min\u{2013}max of 3 runs (least)",
            "baseline b.json: min\u{2013}max of 3 runs (greatest)",
        ]
    );
    let curve = by_percentile(&doc["jobs"][0]["read"]["clat_ns"]["percentile"]);
    let band = by_percentile(&spread["clat_ns"]["percentile"]);
    let base = &saved["results"]["jobs"][0]["dirs"][0]["clat_percentiles"];
    let cell = |v: &Value, div: f64| format!("{:.3}", v.as_f64().unwrap() / div);
    assert_eq!(rows.len(), 1 + curve.len());
    for (i, row) in rows[1..].iter().enumerate() {
        let (p, ns) = curve[i];
        assert_eq!(band[i].0, p);
        assert_eq!(base[i][0].as_f64().unwrap(), p);
        let b = &base[i][1];
        let want = [
            cell(ns, div),
            cell(&b["median"], div),
            cell(&band[i].1["min"], div),
            cell(&band[i].1["max"], div),
            cell(&b["min"], div),
            cell(&b["max"], div),
        ];
        assert_eq!(row[1..], want, "p{p}");
    }

    // In the SVG: a band per curve, the median run's line inside its
    // band at every percentile (y grows downwards), the baseline's line
    // in the baseline's colour.
    let at = dom.find("<figure id=\"n-read-clat-pct\"").unwrap();
    let svg = &dom[at..at + dom[at..].find("</figure>").unwrap()];
    let bands = shapes(svg, "polygon", "opacity=\"0.22\"");
    let lines = shapes(svg, "polyline", "stroke-width=\"2\"");
    assert_eq!((bands.len(), lines.len()), (2, 2));
    let n = curve.len();
    assert!(
        svg.contains("stroke=\"#FF7F0E\" stroke-width=\"2\""),
        "the baseline's line"
    );
    for (line, area) in lines.iter().zip(&bands) {
        assert_eq!((line.len(), area.len()), (n, 2 * n));
    }
    for (i, &(x, y)) in lines[0].iter().enumerate() {
        let (lo, hi) = (bands[0][i], bands[0][2 * n - 1 - i]);
        assert!((lo.0 - x).abs() <= 1.0 && (hi.0 - x).abs() <= 1.0);
        assert!(
            hi.1 - 1.0 <= y && y <= lo.1 + 1.0,
            "point {i}: {y} outside {hi:?}..{lo:?}"
        );
    }

    // The run's report alone: the baseline's curve from its verdicts'
    // saved medians (no band: the verdicts keep none).
    let o = plot(&dir, &["run.json", "--html", "--format=svg", "-o", "alone"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let page = read(dir.file("alone/index.html"));
    let rows = table(&page, "data-chart=\"n-read-clat-pct\"");
    assert_eq!(rows[0][2], "baseline b.json (median of 3 runs)");
    let saved_pct: Vec<&Value> = metrics
        .iter()
        .filter(|m| m["metric"].as_str().unwrap().starts_with('p'))
        .map(|m| &m["saved"])
        .collect();
    let col: Vec<&str> = rows[1..].iter().map(|r| r[2].as_str()).collect();
    let div = unit_of(&caption(&page));
    let want: Vec<String> = saved_pct.iter().map(|v| cell(v, div)).collect();
    assert_eq!(col, want);
    // A baseline alone draws nothing and says so.
    let o = plot(&dir, &["b.json", "-o", "none"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        common::stderr(&o),
        "rfio plot: b.json: a baseline is drawn beside a JSON report of a run: give one too\n"
    );
    // A baseline of another format, or one that does not parse, is
    // refused by name.
    let old = read(dir.file("b.json")).replacen("rfio-baseline/2", "rfio-baseline/1", 1);
    dir.write("old.json", &old);
    dir.write(
        "cut.json",
        "{\"format\": \"rfio-baseline/2\", \"results\": ",
    );
    for (file, want) in [
        (
            "old.json",
            "rfio plot: old.json: a baseline of format \"rfio-baseline/1\": rfio plot reads rfio-baseline/2\n",
        ),
        (
            "cut.json",
            "rfio plot: cut.json: line 1, column 41: not valid JSON: EOF while parsing a value\n",
        ),
    ] {
        let o = plot(&dir, &["run.json", file, "-o", "refused"]);
        assert_eq!((o.status.code(), common::stderr(&o).as_str()), (Some(1), want));
        assert!(!dir.file("refused").exists());
    }
}
