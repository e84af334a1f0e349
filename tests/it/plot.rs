//! `rfio plot`: charts of logs and JSON+ written by rfio and by real fio
//! 3.33 (the same job), checked for what they draw: one point per log
//! line, one bar per histogram bin, the units on the axes, PNG size, the
//! HTML page holding every chart, and the pages loaded in a real headless
//! browser (Chromium).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{self, TempDir};

/// A 1 s job on the null engine, both directions rate-limited, writing
/// every log windowed by 100 ms and its JSON+ report to `NAME.json`.
fn job(name: &str) -> Vec<String> {
    [
        "--ioengine=null",
        "--rw=randrw",
        "--bs=4k",
        "--size=64m",
        "--time_based",
        "--runtime=1",
        "--rate_iops=2000,1000",
        "--log_avg_msec=100",
        "--output-format=json+",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("--name={name}"),
        format!("--write_iops_log={name}"),
        format!("--write_bw_log={name}"),
        format!("--write_lat_log={name}"),
        format!("--output={name}.json"),
    ])
    .collect()
}

/// Runs the job with rfio (as `r`) and with real fio (as `f`) in `dir`.
fn run_both(dir: &TempDir) {
    for (bin, name) in [(common::RFIO, "r"), (common::real_fio(), "f")] {
        let args = job(name);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = common::run_in(bin, dir, &args);
        assert!(o.status.success(), "{bin}: {}", common::stderr(&o));
    }
}

pub(crate) fn plot(dir: &TempDir, args: &[&str]) -> std::process::Output {
    let mut all = vec!["plot"];
    all.extend_from_slice(args);
    common::rfio(dir, &all)
}

pub(crate) fn read(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `points` of every `<polyline>` drawn `stroke-width` wide: the
/// series' lines (plotters' `LineSeries`) are 2 px; the mesh is `<line>`s
/// and the legend's keys are rectangles.
pub(crate) fn polylines(svg: &str, width: u32) -> Vec<usize> {
    let want = format!("stroke-width=\"{width}\"");
    svg.split("<polyline")
        .skip(1)
        .map(|tag| &tag[..tag.find("/>").expect("polyline closed")])
        .filter(|tag| tag.contains(&want))
        .map(|tag| {
            let pts = tag.split("points=\"").nth(1).expect("points");
            pts[..pts.find('"').unwrap()].split_whitespace().count()
        })
        .collect()
}

/// The filled `<rect>`s of the first series colour: a histogram's bars
/// (histograms have no legend, whose keys are rectangles too).
fn bars(svg: &str) -> usize {
    svg.split("<rect")
        .skip(1)
        .filter(|tag| tag[..tag.find("/>").expect("rect closed")].contains("fill=\"#1F77B4\""))
        .count()
}

/// The text of every `<text>` element, trimmed (plotters puts it on a
/// line of its own).
pub(crate) fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map(|t| {
            let body = &t[t.find('>').expect("text tag closed") + 1..];
            body[..body.find("</text>").expect("</text>")]
                .trim()
                .to_string()
        })
        .collect()
}

/// Whether the SVG has a `<text>` reading `want`.
pub(crate) fn has_text(svg: &str, want: &str) -> bool {
    texts(svg).iter().any(|t| t == want)
}

/// A light well-formedness check of XML: tags nest and close, attribute
/// values are quoted, text holds no raw `<` and `&` only as an entity.
pub(crate) fn assert_well_formed(xml: &str, what: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = xml.trim();
    while let Some(at) = rest.find('<') {
        let text = &rest[..at];
        for (i, _) in text.match_indices('&') {
            let ent = &text[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                    .iter()
                    .any(|e| ent.starts_with(e)),
                "{what}: raw & in text {text:?}"
            );
        }
        rest = &rest[at..];
        let end = rest
            .find('>')
            .unwrap_or_else(|| panic!("{what}: unclosed tag"));
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "{what}: unbalanced quotes in <{tag}>"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop(),
                Some(name.trim()),
                "{what}: </{name}> closes the wrong tag"
            );
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap_or(""));
        }
    }
    assert!(stack.is_empty(), "{what}: unclosed {stack:?}");
}

/// PNG's signature, and the width and height of its IHDR chunk.
pub(crate) fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
    assert_eq!(&b[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (be(16), be(20))
}

/// Log lines per direction.
fn lines_per_dir(log: &str) -> [usize; 3] {
    let mut n = [0; 3];
    for l in log.lines() {
        let ddir: usize = l.split(", ").nth(2).unwrap().parse().unwrap();
        n[ddir] += 1;
    }
    n
}

fn max_value(log: &str) -> f64 {
    log.lines()
        .map(|l| l.split(", ").nth(1).unwrap().parse::<f64>().unwrap())
        .fold(0.0, f64::max)
}

/// The unit fio prints latencies up to `ns` in.
pub(crate) fn lat_unit(ns: f64) -> &'static str {
    match ns {
        n if n >= 1e7 => "msec",
        n if n >= 1e4 => "usec",
        _ => "nsec",
    }
}

#[test]
fn logs_and_json_plus_from_rfio_and_fio_are_drawn() {
    let dir = TempDir::new("plot-both");
    run_both(&dir);
    for name in ["r", "f"] {
        let out = format!("out-{name}");
        let logs = ["iops", "bw", "clat", "lat"].map(|k| format!("{name}_{k}.1.log"));
        let json = format!("{name}.json");
        let mut args: Vec<&str> = logs.iter().map(String::as_str).collect();
        args.extend([json.as_str(), "--html", "-o", out.as_str()]);
        let o = plot(&dir, &args);
        assert!(o.status.success(), "{name}: {}", common::stderr(&o));
        assert_eq!(common::stderr(&o), "");
        let out = dir.file(&out);
        let mut charts = Vec::new();
        let report: Value = serde_json::from_str(&read(dir.file(&json))).unwrap();
        let job = &report["jobs"][0];
        // One unit per metric on the page: the largest clat of the clat
        // log, the percentiles (to 99.99) and the bins, both directions.
        let mut clat_top = max_value(&read(dir.file(&logs[2])));
        for ddir in ["read", "write"] {
            let clat = &job[ddir]["clat_ns"];
            for (p, ns) in clat["percentile"].as_object().unwrap() {
                if p.parse::<f64>().unwrap() < 100.0 {
                    clat_top = clat_top.max(ns.as_f64().unwrap());
                }
            }
            for ns in clat["bins"].as_object().unwrap().keys() {
                clat_top = clat_top.max(ns.parse().unwrap());
            }
        }
        let clat_unit = lat_unit(clat_top);

        for (kind, log) in ["iops", "bw", "clat", "lat"].iter().zip(&logs) {
            let text = read(dir.file(log));
            let stem = format!("{name}_{kind}.1");
            let svg = read(out.join(format!("{stem}.svg")));
            assert_well_formed(&svg, &stem);
            // A series per direction, a point per log line.
            let n = lines_per_dir(&text);
            let want: Vec<usize> = n.into_iter().filter(|&c| c > 0).collect();
            assert_eq!(want.len(), 2, "{stem}: reads and writes");
            assert_eq!(polylines(&svg, 2), want, "{stem}");
            let label = match *kind {
                "iops" => "IOPS".to_string(),
                // 2000 and 1000 IOPS of 4 KiB: under 10 MiB/s.
                "bw" => "bandwidth (KiB/s)".to_string(),
                "clat" => format!("clat ({clat_unit})"),
                k => format!("{k} ({})", lat_unit(max_value(&text))),
            };
            assert!(has_text(&svg, &label), "{stem}: no axis label {label}");
            assert!(has_text(&svg, "time (s)"), "{stem}");
            assert!(
                has_text(&svg, "read") && has_text(&svg, "write"),
                "{stem}: legend"
            );
            assert_eq!(png_size(&out.join(format!("{stem}.png"))), (800, 480));
            charts.push(stem);
        }

        for ddir in ["read", "write"] {
            let clat = &job[ddir]["clat_ns"];
            let bins = clat["bins"].as_object().unwrap();
            let pct = clat["percentile"].as_object().unwrap();
            let stem = format!("{name}-{ddir}-clat");
            let hist = read(out.join(format!("{stem}-hist.svg")));
            assert_well_formed(&hist, &stem);
            let nonzero = bins.values().filter(|v| v.as_u64() != Some(0)).count();
            assert!(nonzero > 0);
            // A bar per bin, and no line.
            assert_eq!(bars(&hist), nonzero, "{stem}-hist");
            assert_eq!(polylines(&hist, 2), Vec::<usize>::new(), "{stem}-hist");
            let axis = format!("clat ({clat_unit}, log scale)");
            assert!(has_text(&hist, "I/Os") && has_text(&hist, &axis), "{stem}");
            let curve = read(out.join(format!("{stem}-pct.svg")));
            assert_eq!(polylines(&curve, 2), vec![pct.len()], "{stem}-pct");
            // A dot per percentile.
            assert_eq!(curve.matches("<circle").count(), pct.len(), "{stem}-pct");
            assert!(has_text(&curve, "percentile"), "{stem}-pct");
            assert!(has_text(&curve, &axis), "{stem}-pct: {axis}");
            assert!(has_text(&curve, "99.9"), "{stem}-pct: percentile ticks");
            assert_eq!(png_size(&out.join(format!("{stem}-hist.png"))), (800, 480));
            charts.push(format!("{stem}-hist"));
            charts.push(format!("{stem}-pct"));
        }

        // Every chart is on the page, inline, after the summary.
        let html = read(out.join("index.html"));
        assert_well_formed(
            &html
                .replace("<!DOCTYPE html>", "")
                .replace("<meta charset=\"utf-8\">", ""),
            "index.html",
        );
        assert_eq!(html.matches("<svg ").count(), charts.len());
        for c in &charts {
            let svg = read(out.join(format!("{c}.svg")));
            assert!(html.contains(svg.trim_end()), "{c} not inline");
            assert!(html.contains(&format!("<figure id=\"{c}\" ")), "{c}");
        }
        assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href="));
        let runtime = job["read"]["runtime"].as_u64().unwrap();
        let iops = job["read"]["iops"].as_f64().unwrap();
        assert!((1900.0..2100.0).contains(&iops), "rate_iops=2000: {iops}");
        assert!(
            html.contains(&format!(
                "<tr><td>{name}</td><td>read</td><td>{iops:.0}</td>"
            )),
            "{name}: summary row"
        );
        assert!(html.contains(&format!("<td>{runtime} ms</td>")));
        let files = std::fs::read_dir(&out).unwrap().count();
        assert_eq!(
            files,
            charts.len() * 2 + 1,
            "an SVG and a PNG per chart and the page"
        );
    }
}

#[test]
fn overlay_puts_every_log_of_a_kind_on_one_chart() {
    let dir = TempDir::new("plot-overlay");
    run_both(&dir);
    let o = plot(
        &dir,
        &[
            "--overlay",
            "--format=svg",
            "r_bw.1.log",
            "f_bw.1.log",
            "r_clat.1.log",
            "f_clat.1.log",
            "-o",
            "o",
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let mut names: Vec<String> = std::fs::read_dir(dir.file("o"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["overlay-bw.svg", "overlay-clat.svg"]);
    for kind in ["bw", "clat"] {
        let svg = read(dir.file(&format!("o/overlay-{kind}.svg")));
        let mut want = Vec::new();
        for name in ["r", "f"] {
            let n = lines_per_dir(&read(dir.file(&format!("{name}_{kind}.1.log"))));
            want.extend(n.into_iter().filter(|&c| c > 0));
            for ddir in ["read", "write"] {
                assert!(
                    has_text(&svg, &format!("{name}_{kind}.1.log {ddir}")),
                    "{kind}: legend"
                );
            }
        }
        assert_eq!(polylines(&svg, 2), want, "{kind}");
    }
}

#[test]
fn png_size_and_format_are_as_asked() {
    let dir = TempDir::new("plot-png");
    dir.write(
        "a_iops.1.log",
        "100, 50, 0, 0, 0\n200, 70, 0, 0, 0\n300, 60, 0, 0, 0\n",
    );
    let o = plot(
        &dir,
        &[
            "a_iops.1.log",
            "--format=png",
            "--size=640x400",
            "-o",
            "deep/er",
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let png = dir.file("deep/er/a_iops.1.png");
    assert_eq!(
        common::stdout(&o),
        format!("{}\n", Path::new("deep/er/a_iops.1.png").display())
    );
    assert_eq!(png_size(&png), (640, 400));
    assert!(!dir.file("deep/er/a_iops.1.svg").exists());
}

#[test]
fn compressed_logs_and_plain_json_are_drawn() {
    let dir = TempDir::new("plot-fz");
    let o = common::rfio(
        &dir,
        &[
            "--name=z",
            "--ioengine=null",
            "--rw=read",
            "--bs=4k",
            "--size=16m",
            "--time_based",
            "--runtime=1",
            "--rate_iops=1000",
            "--log_avg_msec=100",
            "--write_iops_log=z",
            "--log_compression=1m",
            "--log_store_compressed=1",
            "--output-format=json",
            "--output=z.json",
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = common::stdout(&common::rfio(&dir, &["--inflate-log=z_iops.1.log.fz"]));
    let o = plot(
        &dir,
        &["z_iops.1.log.fz", "z.json", "--format=svg", "-o", "o"],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    // Plain JSON has no bins: the percentile curve only.
    assert_eq!(
        common::stdout(&o),
        "o/z_iops.1.svg\no/z-read-clat-pct.svg\n"
    );
    let svg = read(dir.file("o/z_iops.1.svg"));
    assert_eq!(polylines(&svg, 2), vec![text.lines().count()]);
    assert!(has_text(&svg, "IOPS"));
}

#[test]
fn bad_inputs_are_named_and_nothing_is_written() {
    let dir = TempDir::new("plot-errors");
    dir.write("x_bw.1.log", "100, 20, 0, 0, 0\ngarbage\n");
    dir.write("e_clat.1.log", "");
    dir.write("notes.txt", "hello\n");
    dir.write("other.json", "{\"a\": 1}\n");
    dir.write("ok_bw.1.log", "100, 20, 0, 0, 0\n");
    dir.write("junk_bw.1.log.fz", "junk");
    dir.write("notafont.ttf", "junk");
    let cases: &[(&[&str], &str)] = &[
        (&["junk_bw.1.log.fz", "-o", "o"], "rfio plot: junk_bw.1.log.fz: fio: failed inflating log: -3\n"),
        (
            &["--font=notafont.ttf", "ok_bw.1.log", "-o", "o"],
            "rfio plot: notafont.ttf: not a TrueType or OpenType font\n",
        ),
        // plotters measures the text of SVG charts too.
        (
            &["--font=notafont.ttf", "--format=svg", "ok_bw.1.log", "-o", "o"],
            "rfio plot: notafont.ttf: not a TrueType or OpenType font\n",
        ),
        (&["nope.log", "-o", "o"], "rfio plot: nope.log: No such file or directory\n"),
        (
            &["ok_bw.1.log", "x_bw.1.log", "-o", "o"],
            "rfio plot: x_bw.1.log: line 2: not a fio log line (time, value, ddir, bs, [offset,] prio): \"garbage\"\n",
        ),
        (&["e_clat.1.log", "-o", "o"], "rfio plot: e_clat.1.log: empty log (no samples)\n"),
        (
            &["e_clat.1.log", "e_clat.1.log", "-o", "o"],
            "rfio plot: nothing to plot: every log is empty (e_clat.1.log, e_clat.1.log)\n",
        ),
        (
            &["notes.txt", "-o", "o"],
            "rfio plot: notes.txt: neither a fio log (NAME_iops|bw|lat|clat|slat[.N].log) nor fio JSON output\n",
        ),
        (&["other.json", "-o", "o"], "rfio plot: other.json: not fio JSON output (no \"jobs\" array)\n"),
        (&["ok_bw.1.log"], "rfio plot: no output directory given (-o DIR)\nTry 'rfio plot --help'.\n"),
        (&["-o", "o"], "rfio plot: no log or JSON file given\nTry 'rfio plot --help'.\n"),
        (&["--svg", "ok_bw.1.log", "-o", "o"], "rfio plot: unknown option --svg\nTry 'rfio plot --help'.\n"),
        (
            &["--format=gif", "ok_bw.1.log", "-o", "o"],
            "rfio plot: --format=gif: want svg, png or both\nTry 'rfio plot --help'.\n",
        ),
        (
            &["--size=10x10", "ok_bw.1.log", "-o", "o"],
            "rfio plot: --size=10x10: want WIDTHxHEIGHT, each 200 to 8000 pixels\nTry 'rfio plot --help'.\n",
        ),
        (
            &["--font=nofont.ttf", "ok_bw.1.log", "-o", "o"],
            "rfio plot: --font=nofont.ttf: No such file or directory\n",
        ),
    ];
    for (args, want) in cases {
        let o = plot(&dir, args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(common::stderr(&o), *want, "{args:?}");
        assert_eq!(common::stdout(&o), "", "{args:?}");
        assert!(!dir.file("o").exists(), "{args:?} wrote something");
    }
    // Beside a log with samples, an empty one (fio writes an empty `_slat`
    // log for every sync engine) is skipped with a note: `*.log` works.
    let o = plot(
        &dir,
        &["e_clat.1.log", "ok_bw.1.log", "--format=svg", "-o", "o"],
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        common::stderr(&o),
        "rfio plot: e_clat.1.log: empty log (no samples), skipped\n"
    );
    assert_eq!(common::stdout(&o), "o/ok_bw.1.svg\n");
    assert!(dir.file("o/ok_bw.1.svg").is_file() && !dir.file("o/e_clat.1.svg").exists());
}

#[test]
fn help_and_fio_s_reading_of_plot() {
    let dir = TempDir::new("plot-help");
    let o = plot(&dir, &["--help"]);
    assert!(o.status.success());
    let help = common::stdout(&o);
    assert!(
        help.starts_with("Usage: rfio plot [OPTIONS] FILE... -o DIR\n"),
        "{help}"
    );
    for opt in [
        "--overlay",
        "--format=FMT",
        "--html",
        "--size=WxH",
        "--font=FILE",
    ] {
        assert!(help.contains(opt), "{opt}");
    }
    // Called as fio, `plot` is a job file, as fio reads it.
    let fio = dir.file("fio");
    std::os::unix::fs::symlink(common::RFIO, &fio).unwrap();
    let o = common::run_in(fio.to_str().unwrap(), &dir, &["plot", "--help"]);
    assert!(!common::stdout(&o).contains("rfio plot"));
    let o = common::run_in(fio.to_str().unwrap(), &dir, &["plot"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        common::stderr(&o).contains("unable to open 'plot' job file"),
        "{}",
        common::stderr(&o)
    );
}

/// A JSON+ report of one job `j` reading, with clat percentiles and bins.
const JSON_PLUS: &str = r#"{"jobs": [{"jobname": "j", "read": {"io_bytes": 4096, "total_ios": 1,
  "clat_ns": {"percentile": {"50.000000": 2000, "99.000000": 5000},
  "bins": {"1000": 1, "2000": 3}}}}]}
"#;

#[test]
fn symlinks_planted_in_the_output_directory_are_replaced_not_followed() {
    let dir = TempDir::new("plot-symlinks");
    dir.write("a_bw.1.log", "100, 20, 0, 0, 0\n200, 30, 0, 0, 0\n");
    dir.write("r.json", JSON_PLUS);
    std::fs::create_dir(dir.file("o")).unwrap();
    let outputs = [
        "a_bw.1.svg",
        "a_bw.1.png",
        "j-read-clat-hist.svg",
        "j-read-clat-hist.png",
        "j-read-clat-pct.svg",
        "j-read-clat-pct.png",
        "index.html",
    ];
    // Every output name a symlink out of DIR: half to a victim file, half
    // dangling (following those would create the file they name).
    for (i, name) in outputs.iter().enumerate() {
        let target = dir.file(&format!("victim-{i}"));
        if i % 2 == 0 {
            std::fs::write(&target, "precious\n").unwrap();
        }
        std::os::unix::fs::symlink(&target, dir.file(&format!("o/{name}"))).unwrap();
    }
    let o = plot(&dir, &["a_bw.1.log", "r.json", "--html", "-o", "o"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert_eq!(common::stderr(&o), "");
    let mut printed: Vec<String> = common::stdout(&o).lines().map(String::from).collect();
    printed.sort();
    let mut want: Vec<String> = outputs.iter().map(|n| format!("o/{n}")).collect();
    want.sort();
    assert_eq!(printed, want);
    for (i, name) in outputs.iter().enumerate() {
        let victim = dir.file(&format!("victim-{i}"));
        match i % 2 {
            0 => assert!(
                read(&victim) == "precious\n",
                "{name} wrote through its symlink"
            ),
            _ => assert!(!victim.exists(), "{name} created its symlink's target"),
        }
        let meta = std::fs::symlink_metadata(dir.file(&format!("o/{name}"))).unwrap();
        assert!(meta.file_type().is_file(), "{name}: {:?}", meta.file_type());
        assert!(meta.len() > 0, "{name} is empty");
    }
    assert!(read(dir.file("o/index.html")).contains("<svg"));
    // Nothing but the outputs is left in DIR (no temporary file).
    let mut left: Vec<String> = std::fs::read_dir(dir.file("o"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let mut names: Vec<String> = outputs.iter().map(|n| n.to_string()).collect();
    names.sort();
    assert_eq!(left, names);
    // DIR itself a symlink is the user's choice: followed.
    std::fs::create_dir(dir.file("real")).unwrap();
    std::os::unix::fs::symlink(dir.file("real"), dir.file("link")).unwrap();
    let o = plot(&dir, &["a_bw.1.log", "--format=svg", "-o", "link"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(dir.file("real/a_bw.1.svg").is_file());
    // An output name taken by a directory is an error naming it.
    std::fs::create_dir(dir.file("d")).unwrap();
    std::fs::create_dir(dir.file("d/a_bw.1.svg")).unwrap();
    let o = plot(&dir, &["a_bw.1.log", "--format=svg", "-o", "d"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        common::stderr(&o),
        "rfio plot: d/a_bw.1.svg: Is a directory\n"
    );
    assert_eq!(std::fs::read_dir(dir.file("d")).unwrap().count(), 1);
}

#[test]
fn hostile_inputs_are_named_by_file_and_line_and_quoted() {
    let dir = TempDir::new("plot-hostile");
    let ok = "100, 20, 0, 0, 0\n";
    // A 4 MiB line of digits: refused once past a log line's size.
    let huge = format!("{ok}{}\n", "7".repeat(4 << 20));
    std::fs::write(dir.file("huge_bw.1.log"), huge).unwrap();
    std::fs::write(
        dir.file("esc_bw.1.log"),
        format!("{ok}{ok}\x1b]0;pwned\x07, 1\n"),
    )
    .unwrap();
    let mut bad_utf8 = ok.as_bytes().to_vec();
    bad_utf8.extend_from_slice(b"100, \xff\xfe, 0, 0, 0\n");
    std::fs::write(dir.file("bin_bw.1.log"), bad_utf8).unwrap();
    dir.write(
        "broken.json",
        "j: (groupid=0)\n{\n  \"jobs\" : [\n    { \"jobname\" : \"j\", }\n",
    );
    std::fs::write(
        dir.file("bad.json"),
        b"{\"jobs\": [{\"jobname\": \"\xff\"}]}",
    )
    .unwrap();
    let cases: &[(&str, String)] = &[
        (
            "huge_bw.1.log",
            format!(
                "rfio plot: huge_bw.1.log: line 2: not a fio log line (longer than 256 bytes): \"{}...\"\n",
                "7".repeat(80)
            ),
        ),
        (
            "esc_bw.1.log",
            "rfio plot: esc_bw.1.log: line 3: not a fio log line (time, value, ddir, bs, [offset,] prio): \"\\x1b]0;pwned\\x07, 1\"\n".into(),
        ),
        (
            "bin_bw.1.log",
            "rfio plot: bin_bw.1.log: line 2: not a fio log line (time, value, ddir, bs, [offset,] prio): \"100, \u{fffd}\u{fffd}, 0, 0, 0\"\n".into(),
        ),
        (
            "broken.json",
            "rfio plot: broken.json: line 4, column 24: not valid JSON: trailing comma\n".into(),
        ),
        (
            "bad.json",
            "rfio plot: bad.json: line 1, column 24: not valid JSON: invalid unicode code point\n".into(),
        ),
    ];
    for (file, want) in cases {
        let o = plot(&dir, &[file, "-o", "o"]);
        assert_eq!(o.status.code(), Some(1), "{file}");
        assert_eq!(common::stderr(&o), *want, "{file}");
        assert!(!dir.file("o").exists(), "{file} wrote something");
    }
}

/// Chromium, or a failure saying how to install it.
pub(crate) fn chromium() -> &'static str {
    match Command::new("chromium").arg("--version").output() {
        Ok(o) if o.status.success() => "chromium",
        _ => panic!("the HTML page is checked in Chromium: apt-get install -y chromium"),
    }
}

/// Chromium (headless) loading `page`: its DOM and what it logged.
pub(crate) fn browse(dir: &TempDir, page: &Path, extra: &[&str]) -> (String, String) {
    let profile = format!("--user-data-dir={}", dir.file("chromium-profile").display());
    let url = format!("file://{}", page.display());
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(&profile)
    .args(extra)
    .arg(&url);
    let (o, timed_out) = common::output_within(&mut cmd, std::time::Duration::from_secs(60));
    assert!(!timed_out, "chromium hung on {url}");
    assert!(
        o.status.success(),
        "chromium on {url}: {}",
        common::stderr(&o)
    );
    (common::stdout(&o), common::stderr(&o))
}

#[test]
fn the_html_page_loads_in_a_headless_browser() {
    chromium();
    let dir = TempDir::new("plot-browser");
    run_both(&dir);
    let o = plot(
        &dir,
        &[
            "r_iops.1.log",
            "f_clat.1.log",
            "r.json",
            "f.json",
            "--html",
            "--format=svg",
            "-o",
            "web",
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let charts = common::stdout(&o)
        .lines()
        .filter(|l| l.ends_with(".svg"))
        .count();
    // 2 logs, and per report 2 directions × (histogram, percentiles).
    assert_eq!(charts, 2 + 2 * 2 * 2);
    let page = dir.file("web/index.html");
    let (dom, log) = browse(&dir, &page, &["--dump-dom"]);
    assert_eq!(
        dom.matches("<svg ").count(),
        charts,
        "every chart in the DOM"
    );
    assert!(dom.contains("<table>") && dom.contains("<td>r</td>") && dom.contains("<td>f</td>"));
    assert!(
        !log.contains(":CONSOLE"),
        "the page logged to the console:\n{log}"
    );
    // Each kind of chart parses as an SVG document (a parse error shows
    // as a `parsererror` element).
    for svg in [
        "r_iops.1.svg",
        "r-read-clat-hist.svg",
        "f-write-clat-pct.svg",
    ] {
        let (dom, log) = browse(&dir, &dir.file(&format!("web/{svg}")), &["--dump-dom"]);
        assert!(
            dom.contains("<svg") && !dom.contains("parsererror"),
            "{svg}: {dom}"
        );
        assert!(!log.contains(":CONSOLE"), "{svg}: {log}");
    }
    // And it renders: a screenshot of the page.
    let shot = dir.file("shot.png");
    let arg = format!("--screenshot={}", shot.display());
    browse(
        &dir,
        &page,
        &[&arg, "--window-size=1000,2000", "--hide-scrollbars"],
    );
    assert_eq!(png_size(&shot), (1000, 2000));
}
