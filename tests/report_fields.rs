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
