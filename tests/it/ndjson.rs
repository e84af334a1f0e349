//! `--output-format=ndjson` and `--status-format=ndjson`: rfio's streaming
//! status, one compact JSON object a line (fio 3.33 has no such format:
//! `fio: invalid output format ndjson`).
//!
//! A null-engine job at `rate_iops=100` with `--status-interval=1`: 3 s
//! for the fields, 10 s for the issue's own check under `jq -c` (they
//! mostly sleep; the bounds are loose so a loaded machine cannot fail them,
//! the upper ones exact).

use crate::common;

use std::collections::BTreeSet;

use serde_json::Value;

use common::{run_in, TempDir, RFIO};

const JOB: &[&str] = &[
    "--name=paced",
    "--ioengine=null",
    "--rw=read",
    "--bs=4k",
    "--size=1m",
    "--rate_iops=100",
    "--time_based",
];

fn rfio(dir: &TempDir, extra: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = extra.iter().chain(JOB).copied().collect();
    let out = run_in(RFIO, dir, &args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

fn lines(text: &str) -> Vec<Value> {
    assert!(text.ends_with('\n'), "{text}");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn a_line_per_interval_then_the_final_report() {
    let dir = TempDir::new("ndjson");
    let (rc, out, err) = rfio(
        &dir,
        &[
            "--output-format=ndjson",
            "--status-interval=1",
            "--runtime=3",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    let all = lines(&out);
    let (last, status) = all.split_last().expect("some lines");
    assert!(status.len() >= 2, "{out}");
    assert!(status.len() <= 4, "{out}");
    let mut prev_ios = 0;
    let mut prev_bytes = 0;
    for s in status {
        assert_eq!(s["type"], "status", "{s}");
        assert!(s["time"].as_u64().unwrap() > 1_600_000_000_000);
        assert!(s["elapsed_ms"].is_u64());
        assert!(s["eta_sec"].is_u64() || s["eta_sec"].is_null());
        let job = &s["jobs"][0];
        assert_eq!(job["jobname"], "paced");
        assert_eq!(job["groupid"], 0);
        let read = &job["read"];
        let iops = read["iops"].as_f64().unwrap();
        assert!(iops <= 110.0, "{s}");
        assert!(read["bw_bytes"].as_u64().unwrap() as f64 <= 110.0 * 4096.0);
        let ios = read["total_ios"].as_u64().unwrap();
        let bytes = read["io_bytes"].as_u64().unwrap();
        assert!(ios >= prev_ios && bytes >= prev_bytes, "{s}");
        assert_eq!(bytes, ios * 4096);
        (prev_ios, prev_bytes) = (ios, bytes);
        if iops > 0.0 {
            assert!(read["clat_mean_ns"].as_f64().unwrap() > 0.0);
            assert!(read["clat_p99_ns"].as_u64().unwrap() > 0);
        }
        for d in ["write", "trim"] {
            assert_eq!(job[d]["total_ios"], 0);
            assert_eq!(job[d]["iops"], 0.0);
            assert!(job[d]["clat_p99_ns"].is_null());
        }
    }
    // A full interval at the rate: at least one line shows it.
    assert!(
        status
            .iter()
            .any(|s| s["jobs"][0]["read"]["iops"].as_f64().unwrap() >= 50.0),
        "{out}"
    );
    assert_eq!(keys(last), ["report", "type"].map(String::from).into());
    assert_eq!(last["type"], "final");
    let report = &last["report"];
    let total = report["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!(total >= prev_ios, "{out}");
    // 100/s for 3 s, the first at once: 301 at most.
    assert!((150..=302).contains(&total), "{total}");
    assert_eq!(report["jobs"][0]["read"]["io_bytes"], total * 4096);
    assert_eq!(report["fio version"], "fio-3.33");

    // The same keys as the document `--output-format=json` prints.
    let (rc, json, err) = rfio(&dir, &["--output-format=json", "--runtime=1"]);
    assert_eq!(rc, 0, "{err}");
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(keys(report), keys(&doc));
    assert_eq!(keys(&report["jobs"][0]), keys(&doc["jobs"][0]));
    assert_eq!(
        keys(&report["jobs"][0]["read"]),
        keys(&doc["jobs"][0]["read"])
    );
}

/// `v` with every number as an f64 (`0` and `0.0` alike).
fn as_f64(v: &Value) -> Value {
    match v {
        Value::Number(n) => serde_json::json!(n.as_f64().unwrap()),
        Value::Array(a) => Value::Array(a.iter().map(as_f64).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), as_f64(v))).collect()),
        other => other.clone(),
    }
}

/// What `jq -c .` makes of `text`: one compact line per object, parsed.
fn through_jq(text: &str) -> Vec<Value> {
    use std::io::Write;
    let mut jq = std::process::Command::new("jq")
        .args(["-c", "."])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("jq is needed: apt-get install -y jq");
    jq.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let done = jq.wait_with_output().unwrap();
    assert!(done.status.success(), "jq -c . failed on:\n{text}");
    lines(&String::from_utf8(done.stdout).unwrap())
}

/// The issue's own check: a 10 s run with `--status-interval=1` streams
/// lines that `jq -c` takes one by one (the same objects, a line each), and
/// the last line's report is the JSON document the same run prints
/// (`--output-format=ndjson,json`: the document before the final line).
#[test]
fn ten_seconds_under_jq_and_the_last_line_is_the_json_report() {
    let dir = TempDir::new("ndjson-10s");
    let (rc, out, err) = rfio(
        &dir,
        &[
            "--output-format=ndjson,json",
            "--status-interval=1",
            "--runtime=10",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    let start = out.find("\n{\n").expect("the JSON document") + 1;
    let end = out[start..].find("\n}\n").expect("its end") + start + 3;
    let (doc, stream) = (
        &out[start..end],
        format!("{}{}", &out[..start], &out[end..]),
    );
    let all = lines(&stream);
    // jq prints `0.0` as `0`: numbers compare as numbers.
    let numbers = |v: &[Value]| v.iter().map(as_f64).collect::<Vec<_>>();
    assert_eq!(numbers(&through_jq(&stream)), numbers(&all));
    let (last, status) = all.split_last().unwrap();
    // One a second for 10 s; a loaded machine may miss one or two.
    assert!((8..=11).contains(&status.len()), "{} lines", status.len());
    assert!(status.iter().all(|s| s["type"] == "status"));
    let ios: Vec<u64> = status
        .iter()
        .map(|s| s["jobs"][0]["read"]["total_ios"].as_u64().unwrap())
        .collect();
    assert!(ios.windows(2).all(|w| w[0] <= w[1]), "{ios:?}");
    assert_eq!(last["type"], "final");
    let doc: Value = serde_json::from_str(doc).unwrap();
    assert_eq!(last["report"], doc);
    let total = doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!(total >= *ios.last().unwrap() && total <= 1002, "{total}");
}

/// `--status-format=ndjson` beside another format: the lines go to
/// stderr, or to `--status-output`, never among the results (the
/// `--output` file stays one JSON document).
#[test]
fn status_format_streams_beside_any_output_format() {
    let dir = TempDir::new("ndjson-status-format");
    let file = dir.file("out.txt");
    let output = format!("--output={}", file.display());
    // `--status` still means `--status-interval`, as to fio.
    let (rc, out, err) = rfio(
        &dir,
        &[
            "--status-format=ndjson",
            "--output-format=json",
            "--status=400ms",
            "--runtime=1",
            &output,
        ],
    );
    assert_eq!(rc, 0, "{err}");
    assert_eq!(out, "");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["jobs"][0]["jobname"], "paced");
    let status = lines(&err);
    assert!(!status.is_empty() && status.len() <= 3, "{err}");
    assert!(status.iter().all(|s| s["type"] == "status"));

    // With the normal report on stdout, and --status-output.
    let (rc, out, err) = rfio(
        &dir,
        &[
            "--status-format=ndjson",
            "--status-output=status.ndjson",
            "--status-interval=400ms",
            "--runtime=1",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    assert_eq!(err, "");
    assert!(out.contains("Run status group 0 (all jobs):"), "{out}");
    assert!(!out.contains("\"type\""), "{out}");
    let text = std::fs::read_to_string(dir.file("status.ndjson")).unwrap();
    let status = lines(&text);
    assert!(
        !status.is_empty() && status.iter().all(|s| s["type"] == "status"),
        "{text}"
    );

    let (rc, _, err) = rfio(&dir, &["--status-format=xml", "--runtime=1"]);
    assert_eq!(rc, 1);
    assert!(err.contains("invalid status format 'xml'"), "{err}");
}

#[test]
fn without_an_interval_only_the_final_line() {
    let dir = TempDir::new("ndjson-final");
    // Accepted when reading as fio too (fio has no `ndjson`).
    let (rc, out, err) = rfio(
        &dir,
        &["--compat=fio", "--output-format=ndjson", "--runtime=100ms"],
    );
    assert_eq!(rc, 0, "{err}");
    let all = lines(&out);
    assert_eq!(all.len(), 1, "{out}");
    assert_eq!(all[0]["type"], "final");
    assert_eq!(all[0]["report"]["jobs"][0]["jobname"], "paced");
}

/// `eta_sec` is a number from the first status line (fio's status line
/// waits 3 s before its first estimate; rfio's stream does not): a 1 s
/// job has at most a second left, counting down.
#[test]
fn eta_sec_is_a_number_from_the_first_line() {
    let dir = TempDir::new("ndjson-eta");
    let (rc, out, err) = rfio(
        &dir,
        &[
            "--output-format=ndjson",
            "--status-interval=300ms",
            "--runtime=1",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    let all = lines(&out);
    let status: Vec<&Value> = all.iter().filter(|l| l["type"] == "status").collect();
    assert!(status.len() >= 2, "{out}");
    let etas: Vec<u64> = status
        .iter()
        .map(|l| l["eta_sec"].as_u64().unwrap_or_else(|| panic!("{l}")))
        .collect();
    assert!(etas.iter().all(|&e| e <= 1), "{etas:?}");
    assert!(etas.windows(2).all(|w| w[1] <= w[0]), "{etas:?}");
}
