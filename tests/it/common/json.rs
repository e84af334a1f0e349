//! The JSON reports of the engine tests: rfio's, or any binary's with its
//! notices around the document left out, and a job's counts in them.

use std::process::Command;

use super::{rfio, stderr, stdout, TempDir};

/// rfio's JSON report of `args` run in `dir` (exit status 0 expected), and
/// its stderr.
pub fn json_run(dir: &TempDir, args: &[&str]) -> (serde_json::Value, String) {
    let mut a = vec!["--output-format=json"];
    a.extend_from_slice(args);
    let out = rfio(dir, &a);
    let err = stderr(&out);
    let doc = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: {}\n{err}", stdout(&out)));
    (doc, err)
}

pub fn read_of(doc: &serde_json::Value, job: usize) -> &serde_json::Value {
    &doc["jobs"][job]["read"]
}

/// The JSON document a binary printed (fio's notices around it left out),
/// its stderr and exit status; rfio as fio 3.33, the fio it is compared
/// with (fio ignores the variable).
pub fn json_of(bin: &str, dir: &TempDir, args: &[&str]) -> (serde_json::Value, String, i32) {
    json_env(bin, dir, args, &[("RFIO_FIO_VERSION", "3.33")])
}

/// [`json_of`] with `env` added to the environment.
pub fn json_env(
    bin: &str,
    dir: &TempDir,
    args: &[&str],
    env: &[(&str, &str)],
) -> (serde_json::Value, String, i32) {
    let mut a = vec!["--output-format=json"];
    a.extend_from_slice(args);
    let mut cmd = Command::new(bin);
    cmd.current_dir(&dir.0).args(&a).envs(env.iter().copied());
    let (out, timed_out) = super::output_within(&mut cmd, super::RUN_LIMIT);
    assert!(!timed_out, "{bin} {a:?} hung");
    let text = stdout(&out);
    let start = text.find("{\n").unwrap_or(0);
    let end = text.rfind('}').map_or(text.len(), |e| e + 1);
    let doc = serde_json::from_str(&text[start..end])
        .unwrap_or_else(|e| panic!("{bin} {args:?}: {e}: {text}\n{}", stderr(&out)));
    (doc, stderr(&out), out.status.code().unwrap_or(-1))
}

/// rfio's JSON report of `args` in `dir` as fio `release`; rfio's exit
/// status and the first job's error must be 0.
pub fn json_as(dir: &TempDir, release: &str, args: &[&str]) -> serde_json::Value {
    let (doc, err, code) = json_env(super::RFIO, dir, args, &[("RFIO_FIO_VERSION", release)]);
    assert_eq!(code, 0, "{release} {args:?}: {err}");
    assert_eq!(doc["jobs"][0]["error"], 0, "{release} {args:?}: {err}");
    doc
}

/// A job's error and its read, write and trim counts (I/Os and bytes).
pub fn summary(doc: &serde_json::Value, job: usize) -> (i64, [(u64, u64); 3]) {
    let j = &doc["jobs"][job];
    let dir = |d: &str| {
        (
            j[d]["total_ios"].as_u64().unwrap_or(u64::MAX),
            j[d]["io_bytes"].as_u64().unwrap_or(u64::MAX),
        )
    };
    (
        j["error"].as_i64().unwrap_or(i64::MIN),
        [dir("read"), dir("write"), dir("trim")],
    )
}
