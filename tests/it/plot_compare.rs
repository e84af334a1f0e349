//! `rfio plot` comparing runs: percentile curves and histograms of
//! several JSON+ reports on one chart, each named by its path (the same
//! file name in two folders told apart), latencies on a log axis in one
//! unit across the page; NDJSON status streams drawn over time; inputs
//! that give nothing refused by name.

use serde_json::Value;

use super::plot::{assert_well_formed, has_text, lat_unit, plot, polylines, read, texts};
use crate::common::{self, TempDir};

/// A small JSON+ run of job `j` into `DIR/j.json`.
fn json_run(dir: &TempDir, folder: &str, bs: &str) {
    std::fs::create_dir_all(dir.file(folder)).unwrap();
    let out = format!("--output={folder}/j.json");
    let bs = format!("--bs={bs}");
    let o = common::rfio(
        dir,
        &[
            "--name=j",
            "--ioengine=null",
            "--rw=randrw",
            &bs,
            "--size=8m",
            "--output-format=json+",
            &out,
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
}

/// Runs `old` (4 KiB blocks) and `new` (64 KiB) into `dir`, and plots
/// the two reports overlaid, SVG charts and their HTML page, into
/// `dir/out`; the plot must succeed.
fn overlay_old_new(dir: &TempDir, out: &str) {
    json_run(dir, "old", "4k");
    json_run(dir, "new", "64k");
    let o = plot(
        dir,
        &[
            "old/j.json",
            "new/j.json",
            "--overlay",
            "--html",
            "--format=svg",
            "-o",
            out,
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
}

/// The largest clat (ns) of a report: its percentiles below 100 and its
/// bins, over both directions.
fn clat_top(doc: &Value) -> f64 {
    let mut top: f64 = 0.0;
    for ddir in ["read", "write"] {
        let clat = &doc["jobs"][0][ddir]["clat_ns"];
        for (p, ns) in clat["percentile"].as_object().unwrap() {
            if p.parse::<f64>().unwrap() < 100.0 {
                top = top.max(ns.as_f64().unwrap());
            }
        }
        for ns in clat["bins"].as_object().unwrap().keys() {
            top = top.max(ns.parse().unwrap());
        }
    }
    top
}

#[test]
fn reports_overlay_told_apart_by_path_on_a_log_axis_in_one_unit() {
    let dir = TempDir::new("plot-compare");
    overlay_old_new(&dir, "o");
    let docs: Vec<Value> = ["old", "new"]
        .iter()
        .map(|f| serde_json::from_str(&read(dir.file(&format!("{f}/j.json")))).unwrap())
        .collect();
    let unit = lat_unit(clat_top(&docs[0]).max(clat_top(&docs[1])));
    let axis = format!("clat ({unit}, log scale)");
    let mut names: Vec<String> = std::fs::read_dir(dir.file("o"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "index.html",
            "overlay-read-clat-hist.svg",
            "overlay-read-clat-pct.svg",
            "overlay-write-clat-hist.svg",
            "overlay-write-clat-pct.svg",
        ]
    );
    for ddir in ["read", "write"] {
        let pct = read(dir.file(&format!("o/overlay-{ddir}-clat-pct.svg")));
        assert_well_formed(&pct, ddir);
        // A curve per report, a point per percentile.
        let want: Vec<usize> = docs
            .iter()
            .map(|d| {
                d["jobs"][0][ddir]["clat_ns"]["percentile"]
                    .as_object()
                    .unwrap()
                    .len()
            })
            .collect();
        assert_eq!(polylines(&pct, 2), want, "{ddir}-pct");
        assert!(
            has_text(&pct, "old/j.json") && has_text(&pct, "new/j.json"),
            "{ddir}: legend"
        );
        assert!(
            has_text(&pct, &axis),
            "{ddir}-pct: {axis}: {:?}",
            texts(&pct)
        );
        // Log ticks: powers of ten.
        let ticks: Vec<String> = texts(&pct)
            .into_iter()
            .filter(|t| {
                t.parse::<f64>()
                    .is_ok_and(|v| v > 0.0 && v.log10().fract() == 0.0)
            })
            .collect();
        assert!(ticks.len() >= 2, "{ddir}-pct: log ticks {ticks:?}");
        let hist = read(dir.file(&format!("o/overlay-{ddir}-clat-hist.svg")));
        let bins: Vec<usize> = docs
            .iter()
            .map(|d| {
                let b = d["jobs"][0][ddir]["clat_ns"]["bins"].as_object().unwrap();
                b.values().filter(|n| n.as_u64() != Some(0)).count()
            })
            .collect();
        // A dot per bin of each report, as a share of its I/Os (in the
        // series' colours: the legend's keys are rectangles).
        assert_eq!(polylines(&hist, 2), Vec::<usize>::new(), "{ddir}-hist");
        for (colour, n) in ["#1F77B4", "#FF7F0E"].iter().zip(&bins) {
            let dots = hist
                .split("<circle")
                .skip(1)
                .filter(|t| t[..t.find("/>").unwrap()].contains(&format!("fill=\"{colour}\"")))
                .count();
            assert_eq!(dots, *n, "{ddir}-hist {colour}");
        }
        assert!(
            has_text(&hist, "% of I/Os") && has_text(&hist, &axis),
            "{ddir}-hist"
        );
    }
    // The page's summaries are told apart too.
    let html = read(dir.file("o/index.html"));
    assert!(html.contains("<h2>Summary: old/j.json</h2>"), "{html}");
    assert!(html.contains("<h2>Summary: new/j.json</h2>"));
}

#[test]
fn apart_the_same_file_names_get_distinct_titles() {
    let dir = TempDir::new("plot-same-name");
    json_run(&dir, "a", "4k");
    json_run(&dir, "b", "4k");
    let o = plot(&dir, &["a/j.json", "b/j.json", "--format=svg", "-o", "o"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let one = read(dir.file("o/j-read-clat-pct.svg"));
    let two = read(dir.file("o/j-read-clat-pct-2.svg"));
    assert!(has_text(
        &one,
        "j read (a/j.json): clat latency percentiles"
    ));
    assert!(has_text(
        &two,
        "j read (b/j.json): clat latency percentiles"
    ));
}

/// A status stream (`--output-format=ndjson`) draws IOPS, bandwidth and
/// clat over time, a point per status line and direction, and its final
/// report's percentile curves.
#[test]
fn ndjson_status_streams_are_drawn_over_time() {
    let dir = TempDir::new("plot-ndjson");
    let o = common::rfio(
        &dir,
        &[
            "--name=j",
            "--ioengine=null",
            "--rw=randrw",
            "--bs=4k",
            "--size=1g",
            "--time_based",
            "--runtime=1500ms",
            "--rate_iops=2000",
            "--status-interval=500ms",
            "--output-format=ndjson",
            "--output=s.ndjson",
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = read(dir.file("s.ndjson"));
    let status = text
        .lines()
        .filter(|l| l.contains(r#""type":"status""#))
        .count();
    assert!(status >= 2, "{text}");
    let o = plot(&dir, &["s.ndjson", "--format=svg", "-o", "o"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    for (key, label) in [("iops", "IOPS"), ("bw", "bandwidth (KiB/s)")] {
        let svg = read(dir.file(&format!("o/s-{key}.svg")));
        assert_well_formed(&svg, key);
        assert_eq!(polylines(&svg, 2), [status, status], "{key}");
        assert!(has_text(&svg, label) && has_text(&svg, "time (s)"), "{key}");
        assert!(has_text(&svg, "read") && has_text(&svg, "write"), "{key}");
    }
    let clat = read(dir.file("o/s-clat.svg"));
    assert!(has_text(&clat, "read mean") && has_text(&clat, "write p99"));
    assert!(
        dir.file("o/j-read-clat-pct.svg").exists(),
        "the final report"
    );
}

/// An input that reads but gives nothing to draw, or does not read, is
/// an error naming it; nothing is written.
#[test]
fn inputs_with_nothing_to_draw_are_refused_by_name() {
    let dir = TempDir::new("plot-nothing");
    dir.write("empty.json", "{\"jobs\": []}\n");
    dir.write(
        "idle.ndjson",
        "{\"type\":\"status\",\"time\":1,\"elapsed_ms\":5,\"eta_sec\":1,\"jobs\":[]}\n",
    );
    dir.write(
        "torn.ndjson",
        "{\"type\":\"status\",\"time\":1,\"elapsed_ms\":5,\"eta_sec\":1,\"jobs\":[]}\n{\"type\":\"sta\n",
    );
    for (file, want) in [
        (
            "empty.json",
            "rfio plot: empty.json: nothing to plot (no job did I/O with latency percentiles or bins)\n",
        ),
        (
            "idle.ndjson",
            "rfio plot: idle.ndjson: nothing to plot (no status line with I/O, no final report with latencies)\n",
        ),
        (
            "torn.ndjson",
            "rfio plot: torn.ndjson: line 2: not valid JSON: EOF while parsing a string\n",
        ),
    ] {
        let o = plot(&dir, &[file, "-o", "o"]);
        assert_eq!(o.status.code(), Some(1), "{file}");
        assert_eq!(common::stderr(&o), want, "{file}");
        assert!(!dir.file("o").exists(), "{file} wrote something");
    }
}

/// The overlay page in headless Chromium: every chart in the DOM, and
/// each as wide as the page's content (not its 800 px, 60 % of a wide
/// window). The width is read by a copy of the page with a script that
/// writes it into the title (the page itself has none).
#[test]
fn the_overlay_page_fills_the_width_in_a_browser() {
    use super::plot::{browse, chromium};
    chromium();
    let dir = TempDir::new("plot-compare-browser");
    overlay_old_new(&dir, "web");
    let page = read(dir.file("web/index.html"));
    let (dom, log) = browse(&dir, &dir.file("web/index.html"), &["--dump-dom"]);
    assert_eq!(dom.matches("<svg ").count(), 4, "every chart in the DOM");
    assert!(!log.contains(":CONSOLE"), "{log}");
    let probe = page.replace(
        "</body>",
        "<script>\nconst b = document.body.getBoundingClientRect().width;\n\
         const w = [...document.querySelectorAll('figure svg')].map(s => s.getBoundingClientRect().width);\n\
         document.title = 'widths ' + Math.round(b) + ' ' + w.map(Math.round).join(' ');\n</script>\n</body>",
    );
    std::fs::write(dir.file("web/probe.html"), probe).unwrap();
    let (dom, _) = browse(
        &dir,
        &dir.file("web/probe.html"),
        &["--dump-dom", "--window-size=1600,1200"],
    );
    let title = dom
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .unwrap_or_default();
    let nums: Vec<f64> = title
        .strip_prefix("widths ")
        .unwrap_or_else(|| panic!("no widths in {title:?}"))
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    let (body, charts) = (nums[0], &nums[1..]);
    assert!(body > 1400.0, "the window is 1600 wide: body {body}");
    assert_eq!(charts.len(), 4);
    for w in charts {
        assert!(
            (w - body).abs() <= 1.0,
            "chart {w} px wide in a body of {body}"
        );
    }
}
