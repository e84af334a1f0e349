//! The JSON part of the `run` check: fio's and rfio's `--output-format=json+` documents compared
//! key by key.
//!
//! - Objects: the same key set and the same key order; `bins` maps (JSON+ histogram buckets,
//!   whose keys are latency values) are compared by their total count instead.
//! - Arrays (`jobs`, `disk_util`): the same length, elements compared pairwise in order.
//! - Every value: the same type (null, bool, int, float, string, array, object; fio prints
//!   every float with decimals, so `1` and `1.000000` differ).
//! - Values by [`Role`]: see [`role`].
//!
//! fio's stdout is read as fio's own test harness reads it (from the first line `{` to the last
//! line `}`), since fio sometimes prints notices around its JSON; rfio's must be exactly one JSON
//! document.

use serde_json::{Map, Value};

use crate::judge::{Judge, Role};
use crate::show::head;
use crate::spec::TimingKey;
use crate::verdict::RunPair;

const KINDS: (&str, &str) = ("json-value", "json-plausible");

/// Compares the two JSON documents of the json+ run. Returns fio's document, which tells the
/// terse comparison the layout of each line. `pure`: rfio's stdout must be the JSON document
/// and nothing else (else it is read as leniently as fio's).
pub(crate) fn compare_documents(judge: &mut Judge<'_>, run: &RunPair, pure: bool) -> Option<Value> {
    let fio = document(&run.fio.stdout);
    let rfio_strict = serde_json::from_slice::<Value>(&run.rfio.stdout).ok();
    let rfio = rfio_strict.clone().or_else(|| document(&run.rfio.stdout));
    if pure && rfio_strict.is_none() && rfio.is_some() {
        judge.push(
            "json-pure",
            "json+ stdout",
            "(not required of fio)",
            head(&run.rfio.stdout, 120),
            "stdout is one JSON document and nothing else",
        );
    }
    match (&fio, &rfio) {
        (Some(f), Some(r)) => {
            Walk { judge: &mut *judge }.value("", "", "", false, f, r, None);
            mixed_totals(judge, f, r);
        }
        (Some(_), None) => judge.push(
            "json",
            "json+ stdout",
            "a JSON document",
            head(&run.rfio.stdout, 120),
            "both print a JSON document",
        ),
        (None, Some(_)) => judge.push(
            "json",
            "json+ stdout",
            head(&run.fio.stdout, 120),
            "a JSON document",
            "both print a JSON document",
        ),
        (None, None) => {}
    }
    fio
}

/// The JSON document in `stdout`: all of it, or else the lines from the first line `{` to the
/// last line `}` (as fio's t/fiotestlib.py reads fio's output).
fn document(stdout: &[u8]) -> Option<Value> {
    if let Ok(value) = serde_json::from_slice::<Value>(stdout) {
        return Some(value);
    }
    let text = String::from_utf8_lossy(stdout);
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.iter().position(|line| *line == "{")?;
    let last = lines.iter().rposition(|line| *line == "}")?;
    if last < first {
        return None;
    }
    serde_json::from_str(&lines[first..=last].join("\n")).ok()
}

/// How the value under `key` (in an object under `parent`) is compared. `in_options`: inside
/// `global options` or `job options`, where every value is the text of an option: exact.
pub(crate) fn role(key: &str, parent: &str, in_options: bool) -> Role {
    if in_options {
        return Role::Exact;
    }
    match key {
        "fio version" | "jobname" | "groupid" | "error" | "desc" | "latency_target"
        | "latency_percentile" | "latency_window" | "latency_depth" | "total_err"
        | "first_error" | "name" | "prioclass" | "prio" => Role::Exact,
        // When the report was made, and fio's estimate of the time left (which a loaded
        // machine changes): nondeterministic, their type only.
        "timestamp" | "timestamp_ms" | "time" | "eta" => Role::Any,
        "io_bytes" | "io_kbytes" | "total_ios" | "short_ios" | "drop_ios" | "N" => Role::Count,
        "bw_bytes" | "bw" => Role::Rate(TimingKey::Bw),
        "iops" => Role::Rate(TimingKey::Iops),
        "bw_mean" | "iops_mean" => Role::SampleMean,
        "runtime" | "job_runtime" => Role::Runtime,
        "bw_agg" => Role::Percent,
        _ if matches!(
            parent,
            "iodepth_level"
                | "iodepth_submit"
                | "iodepth_complete"
                | "latency_ns"
                | "latency_us"
                | "latency_ms"
        ) =>
        {
            Role::Percent
        }
        _ => Role::Plausible,
    }
}

/// The JSON type of a value, as the report names it.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value as the report shows it: numbers and strings as JSON, containers by their size.
fn show(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("array of {}", items.len()),
        Value::Object(fields) => format!("object of {} keys", fields.len()),
        other => {
            let text = other.to_string();
            if text.chars().count() > 80 {
                format!("{}...", text.chars().take(80).collect::<String>())
            } else {
                text
            }
        }
    }
}

/// `path.key`, or `path["key"]` when the key is not an identifier (jq syntax).
fn child(path: &str, key: &str) -> String {
    let identifier = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let path = if path.is_empty() && !identifier {
        "."
    } else {
        path
    };
    if identifier {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_owned()))
    }
}

fn place(path: &str) -> String {
    format!("json+ {}", if path.is_empty() { "." } else { path })
}

struct Walk<'j, 'a> {
    judge: &'j mut Judge<'a>,
}

impl Walk<'_, '_> {
    /// Compares `f` and `r`, found at `path` under `key` in an object under `parent`.
    /// `runtimes`: the direction's runtimes when `f` and `r` are fields of a direction object.
    #[allow(clippy::too_many_arguments)]
    fn value(
        &mut self,
        path: &str,
        key: &str,
        parent: &str,
        in_options: bool,
        f: &Value,
        r: &Value,
        runtimes: Option<(f64, f64)>,
    ) {
        let (f_type, r_type) = (type_name(f), type_name(r));
        if f_type != r_type {
            self.judge.push(
                "json-type",
                place(path),
                format!("{f_type} {}", show(f)),
                format!("{r_type} {}", show(r)),
                "same type",
            );
            return;
        }
        let role = role(key, parent, in_options);
        match (f, r) {
            (Value::Object(f), Value::Object(r)) if key == "bins" => self.bins(path, f, r),
            (Value::Object(f), Value::Object(r)) => {
                let in_options = in_options || key == "global options" || key == "job options";
                self.keys(path, f, r);
                let runtimes = match (f.get("runtime"), r.get("runtime")) {
                    (Some(Value::Number(a)), Some(Value::Number(b))) => {
                        Some((a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0)))
                    }
                    _ => None,
                };
                for (k, fv) in f {
                    if let Some(rv) = r.get(k) {
                        self.value(&child(path, k), k, key, in_options, fv, rv, runtimes);
                    }
                }
            }
            (Value::Array(f), Value::Array(r)) => {
                if f.len() != r.len() {
                    self.judge.push(
                        "json-length",
                        place(path),
                        f.len().to_string(),
                        r.len().to_string(),
                        "same number of elements",
                    );
                }
                for (i, (fv, rv)) in f.iter().zip(r).enumerate() {
                    self.value(
                        &format!("{path}[{i}]"),
                        key,
                        parent,
                        in_options,
                        fv,
                        rv,
                        None,
                    );
                }
            }
            (Value::Number(a), Value::Number(b)) => {
                let numbers = (
                    a.as_f64().unwrap_or(f64::NAN),
                    b.as_f64().unwrap_or(f64::NAN),
                );
                let texts = (a.to_string(), b.to_string());
                self.judge.numbers(
                    KINDS,
                    &place(path),
                    role,
                    numbers,
                    (&texts.0, &texts.1),
                    runtimes,
                );
            }
            (Value::String(_) | Value::Bool(_), _) if role != Role::Any && f != r => {
                self.judge
                    .push("json-value", place(path), show(f), show(r), "exact");
            }
            _ => {}
        }
    }

    /// The same keys, in the same order.
    fn keys(&mut self, path: &str, f: &Map<String, Value>, r: &Map<String, Value>) {
        let mut sets_differ = false;
        for key in f.keys().filter(|key| !r.contains_key(*key)) {
            sets_differ = true;
            self.judge.push(
                "json-keys",
                place(&child(path, key)),
                "present",
                "absent",
                "same keys",
            );
        }
        for key in r.keys().filter(|key| !f.contains_key(*key)) {
            sets_differ = true;
            self.judge.push(
                "json-keys",
                place(&child(path, key)),
                "absent",
                "present",
                "same keys",
            );
        }
        if sets_differ {
            return;
        }
        let (fk, rk): (Vec<&String>, Vec<&String>) = (f.keys().collect(), r.keys().collect());
        if let Some(at) = fk.iter().zip(&rk).position(|(a, b)| a != b) {
            let from = |keys: &[&String]| {
                let shown: Vec<&str> = keys[at..].iter().take(4).map(|k| k.as_str()).collect();
                format!(
                    "{}{}",
                    shown.join(", "),
                    if keys.len() > at + 4 { ", ..." } else { "" }
                )
            };
            self.judge.push(
                "json-key-order",
                place(path),
                from(&fk),
                from(&rk),
                format!("same key order (first difference at key {})", at + 1),
            );
        }
    }

    /// JSON+ `bins`: keys are bucket values (data, not layout), values counts. Every key must be
    /// a number and every count an integer; the total count is compared as an I/O count.
    fn bins(&mut self, path: &str, f: &Map<String, Value>, r: &Map<String, Value>) {
        if let Some((key, value)) = r
            .iter()
            .find(|(key, value)| key.parse::<u64>().is_err() || !value.is_u64())
        {
            self.judge.push(
                "json-type",
                place(&child(path, key)),
                "\"<ns>\": int",
                format!("{}: {}", Value::String(key.clone()), show(value)),
                "bins map latency values to counts",
            );
        }
        let total = |m: &Map<String, Value>| m.values().filter_map(Value::as_u64).sum::<u64>();
        let (ft, rt) = (total(f), total(r));
        self.judge.numbers(
            KINDS,
            &format!("{} (total count)", place(path)),
            Role::Count,
            (ft as f64, rt as f64),
            (&ft.to_string(), &rt.to_string()),
            None,
        );
    }
}

/// `mixed` jobs: per job, the bytes of all directions together are exact.
fn mixed_totals(judge: &mut Judge<'_>, f: &Value, r: &Value) {
    if !judge.spec.mixed || judge.spec.timed {
        return;
    }
    let (Some(fj), Some(rj)) = (f["jobs"].as_array(), r["jobs"].as_array()) else {
        return;
    };
    for (i, (fj, rj)) in fj.iter().zip(rj).enumerate() {
        let (ft, rt) = (total_bytes(fj), total_bytes(rj));
        if ft != rt {
            judge.push(
                "json-value",
                format!("json+ .jobs[{i}] io_bytes of all directions"),
                ft.to_string(),
                rt.to_string(),
                "exact (total of a mixed job)",
            );
        }
    }
}

/// read + write + trim io_bytes of a job (or `mixed` with `unified_rw_reporting=mixed`).
pub(crate) fn total_bytes(job: &Value) -> u64 {
    let dirs: &[&str] = if job.get("read").is_some() {
        &["read", "write", "trim"]
    } else {
        &["mixed"]
    };
    dirs.iter()
        .filter_map(|dir| job[*dir]["io_bytes"].as_u64())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Mode;
    use crate::run::{Outcome, Status};
    use crate::spec::RunSpec;
    use crate::verdict::Difference;
    use std::time::Duration;

    fn outcome(stdout: &str) -> Outcome {
        Outcome {
            status: Status::Exited(0),
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
            elapsed: Duration::ZERO,
            files: Vec::new(),
            stalled: String::new(),
        }
    }

    fn compare(spec: &RunSpec, fio: &str, rfio: &str) -> Vec<String> {
        let run = RunPair {
            mode: Mode::JsonPlus,
            fio: outcome(fio),
            rfio: outcome(rfio),
        };
        let mut judge = Judge::new(spec);
        compare_documents(&mut judge, &run, true);
        judge
            .found
            .iter()
            .map(|d| match d {
                Difference::Mismatch(m) => {
                    format!(
                        "{} {}: fio {} rfio {} ({})",
                        m.kind, m.place, m.fio, m.rfio, m.rule
                    )
                }
                other => format!("{other:?}"),
            })
            .collect()
    }

    const FIO: &str = r#"notice on stdout
{
  "fio version" : "fio-3.33",
  "timestamp" : 1,
  "jobs" : [
    {
      "jobname" : "a",
      "job options" : { "rw" : "randrw" },
      "read" : { "io_bytes" : 4096, "bw" : 10, "iops" : 2.5, "runtime" : 3,
                 "clat_ns" : { "N" : 1, "percentile" : { "99.000000" : 5 }, "bins" : { "5" : 1 } } },
      "write" : { "io_bytes" : 8192, "bw" : 10, "iops" : 2.5, "runtime" : 3 },
      "latency_ns" : { "2" : 50.0 }
    }
  ]
}
"#;

    #[test]
    fn identical_documents_agree_and_fio_notices_are_skipped() {
        let rfio = FIO.strip_prefix("notice on stdout\n").unwrap();
        assert_eq!(
            compare(&RunSpec::default(), FIO, rfio),
            Vec::<String>::new()
        );
        // rfio may not print anything but the JSON.
        assert_eq!(
            compare(&RunSpec::default(), FIO, FIO)[0].split(':').next(),
            Some("json-pure json+ stdout")
        );
    }

    #[test]
    fn timing_values_and_bins_may_differ() {
        let rfio = FIO
            .strip_prefix("notice on stdout\n")
            .unwrap()
            .replace("\"bw\" : 10", "\"bw\" : 99")
            .replace("\"5\" : 1", "\"7\" : 1")
            .replace("\"99.000000\" : 5", "\"99.000000\" : 8")
            .replace("\"timestamp\" : 1", "\"timestamp\" : 2");
        assert_eq!(
            compare(&RunSpec::default(), FIO, &rfio),
            Vec::<String>::new()
        );
    }

    #[test]
    fn differences() {
        let rfio = FIO
            .strip_prefix("notice on stdout\n")
            .unwrap()
            .replace("\"jobname\" : \"a\"", "\"jobname\" : \"b\"")
            .replace("\"io_bytes\" : 4096", "\"io_bytes\" : 0")
            .replace(
                "\"iops\" : 2.5, \"runtime\" : 3,",
                "\"iops\" : 2, \"runtime\" : 3,",
            )
            .replace("\"2\" : 50.0", "\"2\" : 150.0")
            .replace("\"timestamp\" : 1,", "\"timestamp\" : 1, \"extra\" : 1,")
            .replace("\"percentile\" : { \"99.000000\" : 5 }, ", "");
        let found = compare(&RunSpec::default(), FIO, &rfio);
        assert_eq!(
            found,
            [
                "json-keys json+ .extra: fio absent rfio present (same keys)",
                "json-value json+ .jobs[0].jobname: fio \"a\" rfio \"b\" (exact)",
                "json-value json+ .jobs[0].read.io_bytes: fio 4096 rfio 0 (exact (size-bound job))",
                "json-type json+ .jobs[0].read.iops: fio float 2.5 rfio int 2 (same type)",
                "json-keys json+ .jobs[0].read.clat_ns.percentile: fio present rfio absent (same keys)",
                "json-plausible json+ .jobs[0].latency_ns[\"2\"]: fio 50 rfio 150 (plausible: finite, 0 to 100)",
            ]
        );
    }

    #[test]
    fn key_order_and_mixed_totals() {
        let rfio = FIO
            .strip_prefix("notice on stdout\n")
            .unwrap()
            .replace("\"io_bytes\" : 4096", "\"io_bytes\" : 8192")
            .replace(
                "\"io_bytes\" : 8192, \"bw\" : 10, \"iops\" : 2.5, \"runtime\" : 3 }",
                "\"io_bytes\" : 4096, \"bw\" : 10, \"iops\" : 2.5, \"runtime\" : 3 }",
            );
        let mixed = RunSpec {
            mixed: true,
            ..RunSpec::default()
        };
        assert_eq!(compare(&mixed, FIO, &rfio), Vec::<String>::new());
        let uneven = rfio.replace("\"io_bytes\" : 4096", "\"io_bytes\" : 0");
        assert_eq!(
            compare(&mixed, FIO, &uneven),
            ["json-value json+ .jobs[0] io_bytes of all directions: fio 12288 rfio 8192 (exact (total of a mixed job))"]
        );
        let reordered = FIO.strip_prefix("notice on stdout\n").unwrap().replace(
            "\"fio version\" : \"fio-3.33\",\n  \"timestamp\" : 1,",
            "\"timestamp\" : 1,\n  \"fio version\" : \"fio-3.33\",",
        );
        assert_eq!(
            compare(&RunSpec::default(), FIO, &reordered),
            ["json-key-order json+ .: fio fio version, timestamp, jobs rfio timestamp, fio version, jobs (same key order (first difference at key 1))"]
        );
    }

    #[test]
    fn paths_use_jq_syntax() {
        assert_eq!(child(".jobs[0]", "read"), ".jobs[0].read");
        assert_eq!(child("", "fio version"), ".[\"fio version\"]");
        assert_eq!(child(".p", "99.000000"), ".p[\"99.000000\"]");
    }
}
