//! Report fields checked against what fio 3.33 prints for the same command
//! (each expectation was measured from real fio run the same way), and
//! reports that must stay machine-readable whatever the job is called.

mod common;

use common::{rfio, stdout, TempDir};

/// fio writes a TAB, newline or control byte in a job name raw, which makes
/// its JSON invalid; rfio escapes them so the report always parses.
#[test]
fn json_escapes_control_characters_in_names_and_options() {
    let dir = TempDir::new("json-escape");
    let name = "a\tb\nc;d\"e\\f\u{1}";
    let desc = "x\ty\r\u{1f}";
    let o = rfio(
        &dir,
        &[
            &format!("--name={name}"),
            &format!("--description={desc}"),
            "--ioengine=null",
            "--size=64k",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("report is valid JSON");
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], name);
    assert_eq!(job["job options"]["name"], name);
    assert_eq!(job["job options"]["description"], desc);
    assert_eq!(job["read"]["io_bytes"], 65536);
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let dir = TempDir::new("report-fields");
    let mut all = args.to_vec();
    all.push("--output-format=json");
    let o = rfio(&dir, &all);
    assert!(o.status.success(), "{}", common::stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("report is valid JSON")
}

/// fio's JSON `eta` after a run: INT_MAX while `elapsed` (seconds since
/// start, rounded up) is under 3, else 0 (every job has exited). Measured:
/// `--size=1024k --rate=1m` gives eta 2147483647 with elapsed 2,
/// `--size=2048k --rate=1m` gives eta 0 with elapsed 3.
#[test]
fn json_eta_is_zero_once_three_seconds_elapsed() {
    let base = ["--name=e", "--ioengine=null", "--bs=4k", "--rate=1m"];
    let long = json_of(&[&base[..], &["--size=2048k"]].concat());
    let job = &long["jobs"][0];
    assert!(job["elapsed"].as_u64().unwrap() >= 3, "{job}");
    assert_eq!(job["eta"], 0);
    let short = json_of(&["--name=s", "--ioengine=null", "--size=64k"]);
    let job = &short["jobs"][0];
    assert!(job["elapsed"].as_u64().unwrap() < 3, "{job}");
    assert_eq!(job["eta"], 2147483647);
}
