//! `--repeat=N` (rfio's own): the jobs run N times, fio's report is the
//! median run's (exactly as a single run prints it), the runs summed up
//! after it (JSON `"repeat"`, a normal-output block; terse unchanged).
//! Called as `fio` the flag is refused as fio 3.33 refuses an unknown
//! option (`fio: unrecognized option '--repeat=3'`, twice, exit 1).

use crate::common;

use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;

use common::{rfio, stderr, stdout, Running, TempDir, RFIO};

const NULL_JOB: &[&str] = &["--name=n", "--ioengine=null", "--rw=read", "--size=1m"];

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

fn json_of(out: &Output) -> Value {
    let text = stdout(out);
    let start = text.find('{').unwrap_or_else(|| panic!("no JSON: {text}"));
    serde_json::from_str(&text[start..]).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn run(dir: &TempDir, extra: &[&str], job: &[&str]) -> Output {
    let args: Vec<&str> = extra.iter().chain(job).copied().collect();
    let out = rfio(dir, &args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    out
}

/// Every spread of a `"repeat"` direction of `runs` runs: min <= median
/// <= max, cv >= 0 (null for one run), each run's value listed, the median
/// one of them.
fn check_spread(s: &Value, what: &str, runs: u64) {
    let f = |k: &str| s[k].as_f64().unwrap_or_else(|| panic!("{what}.{k}: {s}"));
    assert!(f("min") <= f("median"), "{what}: {s}");
    assert!(f("median") <= f("max"), "{what}: {s}");
    match runs {
        1 => assert!(s["cv_pct"].is_null(), "{what}: one run has no cv: {s}"),
        _ => assert!(f("cv_pct") >= 0.0, "{what}: {s}"),
    }
    let each: Vec<f64> = s["runs"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no runs: {s}"))
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(each.len() as u64, runs, "{what}: {s}");
    assert!(each.contains(&f("median")), "{what}: {s}");
    let min = each.iter().copied().fold(f64::INFINITY, f64::min);
    let max = each.iter().copied().fold(0.0, f64::max);
    assert_eq!((min, max), (f("min"), f("max")), "{what}: {s}");
}

/// The `"repeat"` section of a run of `runs` runs of one job `name`, its
/// direction `dir` (with the percentile keys `pct_keys`).
fn check_repeat(doc: &Value, runs: u64, name: &str, dir: &str, pct_keys: &BTreeSet<String>) {
    let r = &doc["repeat"];
    assert_eq!(r["runs"], runs, "{r}");
    assert_eq!(r["requested"], runs, "{r}");
    let median = r["median_run"].as_u64().unwrap();
    assert!((1..=runs).contains(&median), "{r}");
    assert!(r.get("stopped").is_none(), "{r}");
    let jobs = r["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "{r}");
    assert_eq!(jobs[0]["jobname"], name);
    assert_eq!(jobs[0]["groupid"], 0);
    let d = &jobs[0][dir];
    assert_eq!(d["runs"], runs, "{d}");
    for m in ["iops", "bw_bytes"] {
        check_spread(&d[m], m, runs);
        assert!(d[m]["min"].as_f64().unwrap() > 0.0, "{d}");
    }
    check_spread(&d["clat_ns"]["mean"], "clat mean", runs);
    let pct = &d["clat_ns"]["percentile"];
    assert_eq!(&keys(pct), pct_keys);
    for (k, s) in pct.as_object().unwrap() {
        check_spread(s, k, runs);
    }
    // Only the directions that moved data.
    let dirs: Vec<String> = keys(&jobs[0])
        .into_iter()
        .filter(|k| ["read", "write", "trim"].contains(&k.as_str()))
        .collect();
    assert_eq!(dirs, [dir.to_string()]);
}

#[test]
fn null_engine_json_is_the_single_runs_plus_repeat() {
    let dir = TempDir::new("repeat-null");
    let single = json_of(&run(&dir, &["--output-format=json"], NULL_JOB));
    let three = json_of(&run(
        &dir,
        &["--output-format=json", "--repeat=3"],
        NULL_JOB,
    ));
    let mut top = keys(&three);
    assert!(top.remove("repeat"));
    assert_eq!(top, keys(&single));
    let (a, b) = (&single["jobs"][0], &three["jobs"][0]);
    assert_eq!(keys(a), keys(b));
    assert_eq!(keys(&a["read"]), keys(&b["read"]));
    assert_eq!(keys(&a["read"]["clat_ns"]), keys(&b["read"]["clat_ns"]));
    assert_eq!(b["read"]["total_ios"], 256);
    assert_eq!(b["read"]["io_bytes"], 1 << 20);
    assert_eq!(a["read"]["total_ios"], b["read"]["total_ios"]);
    assert_eq!(b["write"]["total_ios"], 0);
    let pct = keys(&b["read"]["clat_ns"]["percentile"]);
    assert_eq!(pct.len(), 17, "fio's default list");
    assert!(pct.contains("99.900000") && pct.contains("50.000000"));
    check_repeat(&three, 3, "n", "read", &pct);
    assert!(single.get("repeat").is_none());
}

#[test]
fn repeat_once_is_a_plain_run() {
    let dir = TempDir::new("repeat-once");
    let one = json_of(&run(
        &dir,
        &["--output-format=json", "--repeat=1"],
        NULL_JOB,
    ));
    assert!(one.get("repeat").is_none());
    let out = stdout(&run(&dir, &["--repeat=1"], NULL_JOB));
    assert!(!out.contains("Repeat:"), "{out}");
}

#[test]
fn file_job_normal_output_reports_once_then_the_block() {
    let dir = TempDir::new("repeat-file");
    let file = dir.arg("data");
    let job = [
        "--name=f",
        file.as_str(),
        "--size=4m",
        "--rw=randwrite",
        "--bs=4k",
    ];
    let out = stdout(&run(&dir, &["--repeat=3"], &job));
    // One fio report, with a single run's exact counts; the file laid
    // out once (kept by the first run, as by a first fio invocation).
    assert_eq!(out.matches("Laying out IO file").count(), 1, "{out}");
    assert_eq!(out.matches("Starting 1 process").count(), 1, "{out}");
    assert_eq!(out.matches("Run status group 0").count(), 1, "{out}");
    assert_eq!(
        out.matches("issued rwts: total=0,1024,0,0 short=0,0,0,0")
            .count(),
        1,
        "{out}"
    );
    let block = &out[out.find("\nRepeat: ").expect("the repeat block")..];
    assert!(out.find("Run status group 0").unwrap() < out.find("\nRepeat: ").unwrap());
    let header = block.lines().nth(1).unwrap();
    assert!(
        header.starts_with("Repeat: 3 runs (median run: ")
            && header.ends_with(", the report above)"),
        "{block}"
    );
    assert!(block.contains("\nf: (groupid=0)\n"), "{block}");
    for what in [
        "IOPS",
        "BW",
        "clat mean (",
        "clat p50.00 (",
        "clat p90.00 (",
        "clat p99.00 (",
        "clat p99.90 (",
    ] {
        let prefix = format!("  write: {what}");
        let line = block
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no {what} line: {block}"));
        assert!(line.contains(" median="), "{line}");
        assert!(line.contains(", min=") && line.contains(", max="), "{line}");
        assert!(
            line.contains("%, runs=[") && line.contains(", cv="),
            "{line}"
        );
        let runs = line.split("runs=[").nth(1).unwrap().trim_end_matches(']');
        assert_eq!(runs.split(' ').count(), 3, "each run's figure: {line}");
    }
    assert!(!block.contains("  read:"), "{block}");
    assert_eq!(std::fs::metadata(dir.file("data")).unwrap().len(), 4 << 20);

    // JSON+ on the same file: fio's shape, plus the section.
    let single = json_of(&run(&dir, &["--output-format=json+"], &job));
    let three = json_of(&run(&dir, &["--output-format=json+", "--repeat=3"], &job));
    let w = &three["jobs"][0]["write"];
    assert_eq!(w["total_ios"], 1024);
    assert_eq!(keys(w), keys(&single["jobs"][0]["write"]));
    assert!(w["clat_ns"]["bins"].is_object());
    let pct = keys(&w["clat_ns"]["percentile"]);
    check_repeat(&three, 3, "f", "write", &pct);
}

/// The normal block and the JSON of one invocation (`--output-format=json,normal`):
/// each latency line in the unit fio's percentile table picks for its
/// figures (nsec, usec over 2 us and 100 us, msec over 2 ms and 100 ms),
/// its figures those of JSON in that unit, each run's listed.
#[test]
fn the_block_shows_latencies_in_fios_units_and_every_run() {
    let dir = TempDir::new("repeat-units");
    let job = [
        "--name=n",
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
        "--rate_iops=2000",
    ];
    let out = stdout(&run(
        &dir,
        &["--output-format=json,normal", "--repeat=3"],
        &job,
    ));
    let start = out.find('{').expect("the JSON");
    let doc: Value = serde_json::Deserializer::from_str(&out[start..])
        .into_iter()
        .next()
        .expect("a document")
        .expect("the JSON parses");
    let block = &out[out.find("\nRepeat: 3 runs").expect("the block")..];
    let r = &doc["repeat"]["jobs"][0]["read"];
    let mut spreads = vec![("clat mean".to_string(), r["clat_ns"]["mean"].clone())];
    for (k, s) in r["clat_ns"]["percentile"].as_object().unwrap() {
        let p: f64 = k.parse().unwrap();
        spreads.push((format!("clat p{p:.2}"), s.clone()));
    }
    assert_eq!(spreads.len(), 18);
    for (what, s) in spreads {
        let f = |k: &str| s[k].as_f64().unwrap();
        let (unit, div) = if f("min") > 2e6 && f("max") > 99_999_999.0 {
            ("msec", 1e6)
        } else if f("min") > 2000.0 && f("max") > 99_999.0 {
            ("usec", 1e3)
        } else {
            ("nsec", 1.0)
        };
        let prefix = format!("  read: {what} ({unit}) median=");
        let line = block
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no {prefix}: {block}"));
        let shown = |x: f64| match what.as_str() {
            "clat mean" => format!("{:.2}", x / div),
            _ => format!("{}", (x / div).ceil() as u64),
        };
        let each: Vec<String> = s["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| shown(v.as_f64().unwrap()))
            .collect();
        assert!(
            line.starts_with(&format!(
                "{prefix}{}, min={}",
                shown(f("median")),
                shown(f("min"))
            )),
            "{line}"
        );
        assert!(
            line.ends_with(&format!(", runs=[{}]", each.join(" "))),
            "{line}"
        );
    }
}

/// `--minimal`: the median run's terse line, as a single run prints it
/// (the runs' figures are in JSON).
#[test]
fn terse_is_the_median_runs_line_only() {
    let dir = TempDir::new("repeat-terse");
    let single = stdout(&run(&dir, &["--minimal"], NULL_JOB));
    let two = stdout(&run(&dir, &["--minimal", "--repeat=2"], NULL_JOB));
    assert_eq!(two.lines().count(), 1, "{two}");
    let fields = |s: &str| s.trim_end().split(';').count();
    assert_eq!(fields(&two), fields(&single));
    // The read KiB (field 6 of version 3) as a single run's.
    let kib = |s: &str| s.split(';').nth(5).unwrap().to_string();
    assert_eq!(kib(&two), "1024");
    assert_eq!(kib(&two), kib(&single));
}

#[test]
fn bad_counts_are_refused() {
    let dir = TempDir::new("repeat-bad");
    for (arg, shown) in [
        ("--repeat=0", "0"),
        ("--repeat=abc", "abc"),
        ("--repeat=-2", "-2"),
    ] {
        let args: Vec<&str> = [arg].iter().chain(NULL_JOB).copied().collect();
        let out = rfio(&dir, &args);
        assert_eq!(out.status.code(), Some(1), "{arg}");
        assert_eq!(
            stderr(&out),
            format!(
                "rfio: --repeat={shown}: the number of runs must be a whole number, at least 1\n"
            )
        );
        assert_eq!(stdout(&out), "", "nothing ran");
    }
    // With --client the servers run the jobs: refused, not ignored (no
    // connection is tried: port 1 has no server).
    for arg in [
        "--repeat=3",
        "--baseline-save=b.json",
        "--baseline-compare=b.json",
    ] {
        let out = rfio(&dir, &[arg, "--client=127.0.0.1,1", "x.fio"]);
        assert_eq!(out.status.code(), Some(1), "{arg}");
        assert_eq!(
            stderr(&out),
            "rfio: --repeat and --baseline-* run the jobs here; they do not work with --client\n"
        );
        assert!(!dir.file("b.json").exists());
    }
}

/// Real fio 3.33: `fio --repeat=3 x.fio` prints `fio: unrecognized option
/// '--repeat=3'` twice on stderr (getopt's line and fio's), nothing on
/// stdout, exit 1. rfio called as `fio` and with `--compat=fio` alike.
#[test]
fn fio_mode_refuses_repeat_as_fio_does() {
    let dir = TempDir::new("repeat-fio");
    dir.write("x.fio", "[x]\nioengine=null\nsize=1m\n");
    let fio = common::real_fio();
    let real = common::run_in(fio, &dir, &["--repeat=3", "x.fio"]);
    let line = "fio: unrecognized option '--repeat=3'\n";
    assert_eq!(stderr(&real), format!("{line}{line}"));
    assert_eq!(real.status.code(), Some(1));
    assert_eq!(stdout(&real), "");
    // As the fio 3.33 it is compared with.
    let mut cmd = Command::new(RFIO);
    cmd.arg0("fio")
        .current_dir(&dir.0)
        .env("RFIO_FIO_VERSION", "3.33")
        .args(["--repeat=3", "x.fio"]);
    let (as_fio, timed_out) = common::output_within(&mut cmd, common::RUN_LIMIT);
    assert!(!timed_out);
    let compat = rfio(&dir, &["--compat=fio", "--repeat=3", "x.fio"]);
    for out in [as_fio, compat] {
        assert_eq!(stderr(&out), stderr(&real));
        assert_eq!(stdout(&out), stdout(&real));
        assert_eq!(out.status.code(), real.status.code());
    }
}

fn paced(runtime: &str) -> Vec<String> {
    [
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--rate_iops=1000",
        "--output-format=json",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--runtime={runtime}")])
    .collect()
}

/// The paced job of `runtime` s run with `repeat` and a status report a
/// second, SIGINT `after` the first report: exit 128, the last document.
fn interrupted(tag: &str, runtime: &str, repeat: &str, after: Duration) -> Value {
    let dir = TempDir::new(tag);
    let mut cmd = Command::new(RFIO);
    cmd.args(paced(runtime))
        .arg(repeat)
        .arg("--status-interval=1")
        .current_dir(&dir.0);
    let mut child = Running::start(&mut cmd);
    child.wait_for_stdout("a status report", Duration::from_secs(60), |s| {
        s.contains("\"jobs\"")
    });
    std::thread::sleep(after);
    child.signal(libc::SIGINT);
    let out = child.finish(Duration::from_secs(60), "rfio ends after SIGINT");
    assert_eq!(out.status.code(), Some(128), "{}", stderr(&out));
    last_doc(&stdout(&out))
}

/// SIGINT in the first run of five: the repetition stops, the run so far
/// is reported (as fio reports an interrupted run), status 128.
#[test]
fn a_signal_in_the_first_run_keeps_its_report() {
    let doc = interrupted("repeat-sig1", "30", "--repeat=5", Duration::ZERO);
    let r = &doc["repeat"];
    assert_eq!(r["requested"], 5, "{r}");
    assert_eq!(r["runs"], 1, "{r}");
    assert_eq!(r["median_run"], 1, "{r}");
    assert_eq!(r["stopped"], "signal", "{r}");
    let ios = doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!(ios > 0 && ios < 30_000, "{ios}");
    // One run: no cv to tell, the run's figure listed.
    let iops = &r["jobs"][0]["read"]["iops"];
    assert!(iops["cv_pct"].is_null(), "{iops}");
    assert_eq!(iops["runs"].as_array().map(Vec::len), Some(1), "{iops}");
}

/// SIGINT a second and a half after the first status report (runs of
/// 1 s each, 100 asked for; the 1 s status schedule goes on across the
/// runs, so reports come though no run outlasts the interval): the runs
/// before it are summed up and the interrupted one left out, so the run
/// reported is a whole one (1000 I/Os at 1000 IOPS over 1 s, give or take
/// the first).
#[test]
fn a_signal_in_a_later_run_reports_the_runs_done() {
    let doc = interrupted(
        "repeat-sig2",
        "1",
        "--repeat=100",
        Duration::from_millis(1500),
    );
    let r = &doc["repeat"];
    assert_eq!(r["stopped"], "signal", "{r}");
    let runs = r["runs"].as_u64().unwrap();
    assert!((1..100).contains(&runs), "{r}");
    if runs >= 2 {
        let ios = doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
        assert!((990..=1010).contains(&ios), "a whole run: {ios}");
        assert_eq!(r["jobs"][0]["read"]["runs"], runs);
    }
}

/// The last JSON document of `text` (after the `--status-interval` ones).
fn last_doc(text: &str) -> Value {
    let last = text.rfind("\"fio version\"").expect("a final report");
    let start = text[..last].rfind('{').unwrap();
    serde_json::from_str(&text[start..]).expect("the final report parses")
}

/// A run in which a job fails ends the repetition: that run is the one
/// reported (its error and fio's exit status, the number of failed jobs).
#[test]
fn a_failed_job_ends_the_repetition() {
    let dir = TempDir::new("repeat-fail");
    dir.write("plain", "");
    let target = format!("--filename={}/x", dir.file("plain").display());
    let out = rfio(
        &dir,
        &[
            "--repeat=3",
            "--output-format=json",
            "--name=e",
            target.as_str(),
            "--size=64k",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["jobs"][0]["error"], libc::ENOTDIR);
    let r = &doc["repeat"];
    assert_eq!(
        (r["requested"].as_u64(), r["runs"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(r["median_run"], 1);
    assert_eq!(r["stopped"], "job error");
    assert_eq!(r["jobs"][0]["jobname"], "e");
    assert!(r["jobs"][0].get("write").is_none(), "nothing moved: {r}");
}
