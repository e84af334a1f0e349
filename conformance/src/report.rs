//! What the user reads: the table (one row per job file, one column per check), the details of
//! every `DIFF`, the summary line, and the JSON report. Pure functions of the results.

use std::fmt::Write;

use serde_json::{json, Map, Value};

use crate::check::{CheckResult, FileResult, LIMIT_FACTOR};
use crate::judge::MIN_RATE_RUNTIME_MS;
use crate::registry::Check;
use crate::run::{self, Outcome, Status};
use crate::show::{excerpt, fmt_number, head};
use crate::spec::DEFAULT_TOLERANCE;
use crate::verdict::{Difference, RunPair, Side, Verdict};

/// How much of stderr the details show (it is not compared, but explains a failure).
const STDERR_SHOWN: usize = 200;

/// Column widths of the table.
pub(crate) struct Table {
    file_width: usize,
    check_widths: Vec<usize>,
}

impl Table {
    /// A table for these file names and checks.
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>, checks: &[Check]) -> Table {
        let file_width = names
            .into_iter()
            .map(|name| name.chars().count())
            .chain(["job file".len()])
            .max()
            .unwrap_or(0);
        let check_widths = checks
            .iter()
            .map(|check| check.name().len().max("refused".len()))
            .collect();
        Table {
            file_width,
            check_widths,
        }
    }

    /// The header line.
    pub(crate) fn header(&self, checks: &[Check]) -> String {
        self.line("job file", checks.iter().map(|check| check.name()))
    }

    /// The row of one job file.
    pub(crate) fn row(&self, file: &FileResult) -> String {
        self.line(
            &file.job.display,
            file.results.iter().map(|result| result.verdict.label()),
        )
    }

    fn line<'a>(&self, first: &str, cells: impl Iterator<Item = &'a str>) -> String {
        let mut line = format!("{first:<width$}", width = self.file_width);
        for (cell, width) in cells.zip(&self.check_widths) {
            let _ = write!(line, "  {cell:<width$}");
        }
        line.truncate(line.trim_end().len());
        line.push('\n');
        line
    }
}

/// Counts of passed and failed file×check cells (cells of checks that did not run, `-` and
/// `skipped`, count as neither).
pub(crate) fn counts(files: &[FileResult]) -> (usize, usize) {
    let cells = files
        .iter()
        .flat_map(|file| &file.results)
        .filter(|r| r.verdict.counted());
    let passed = cells.clone().filter(|r| r.verdict.passed()).count();
    (passed, cells.count() - passed)
}

/// `conformance: N passed, M failed`
pub(crate) fn summary_line(files: &[FileResult]) -> String {
    let (passed, failed) = counts(files);
    format!("conformance: {passed} passed, {failed} failed\n")
}

/// The explanation of every `DIFF`, in table order; empty if there is none.
pub(crate) fn details(files: &[FileResult]) -> String {
    let mut out = String::new();
    for file in files {
        for result in &file.results {
            if let Verdict::Diff(differences) = &result.verdict {
                let _ = write!(out, "DIFF {} [{}]", file.job.display, result.check.name());
                if result.attempts > 1 {
                    let _ = write!(out, " (the last of {} attempts)", result.attempts);
                }
                out.push('\n');
                for difference in differences {
                    explain(&mut out, difference, result);
                }
                out.push('\n');
            }
        }
    }
    out
}

/// The files whose real runs the header skips, those with known differences
/// (`KNOWN`), with the reason, and the checks that took more than one attempt;
/// empty if there is none.
pub(crate) fn skips(files: &[FileResult]) -> String {
    let mut out = String::new();
    for file in files {
        for result in file.results.iter().filter(|r| r.attempts > 1) {
            let _ = writeln!(
                out,
                "retried {} [{}]: {}; {} after {} attempts",
                file.job.display,
                result.check.name(),
                if file.job.unsteady() {
                    "fio's own results vary here (`unsteady`)"
                } else {
                    "timing figures out of tolerance"
                },
                if result.verdict.passed() {
                    "agreed"
                } else {
                    "still out"
                },
                result.attempts
            );
        }
        for (word, known) in [("skipped", false), ("known", true)] {
            let cells: Vec<(&str, &str)> = file
                .results
                .iter()
                .filter_map(|r| match &r.verdict {
                    Verdict::Skipped(reason) if !known => Some((r.check.name(), reason.as_str())),
                    Verdict::Known(reason, _) if known => Some((r.check.name(), reason.as_str())),
                    _ => None,
                })
                .collect();
            if let Some((_, reason)) = cells.first() {
                let names: Vec<&str> = cells.iter().map(|(name, _)| *name).collect();
                let _ = writeln!(
                    out,
                    "{word} {} [{}]: {reason}",
                    file.job.display,
                    names.join(", ")
                );
            }
        }
    }
    out
}

/// The lines explaining one difference, indented under its `DIFF` line.
fn explain(out: &mut String, difference: &Difference, result: &CheckResult) {
    let Some(main) = result.runs.first() else {
        return;
    };
    let (fio, rfio) = (&main.fio, &main.rfio);
    match difference {
        Difference::Timeout(side) | Difference::CannotRun(side) => {
            for run in &result.runs {
                let outcome = outcome(run, *side);
                if matches!(outcome.status, Status::TimedOut(_) | Status::CannotRun(_)) {
                    let _ = writeln!(
                        out,
                        "  {}: {} [{} run]",
                        side.name(),
                        outcome.status,
                        run.mode.name()
                    );
                    if !outcome.stalled.is_empty() {
                        let _ = writeln!(out, "  its threads when it was killed:");
                        out.push_str(&outcome.stalled);
                    }
                }
            }
        }
        Difference::ExitStatus => {
            let _ = writeln!(
                out,
                "  exit status: fio {}, rfio {}{}",
                fio.status,
                rfio.status,
                if result.runs.len() > 1 {
                    format!(" [{} run]", main.mode.name())
                } else {
                    String::new()
                }
            );
            stderr_lines(out, fio, rfio);
        }
        Difference::NotAccepted => {
            let _ = writeln!(
                out,
                "  rfio should accept this file (`; conformance: rfio-accepts`) where fio \
                 rejects it ({}), but it ended with {}",
                fio.status, rfio.status
            );
        }
        Difference::NotRefused => {
            let how = match rfio.status {
                Status::Exited(0) => "it accepted it (exit 0)".to_owned(),
                Status::Exited(101) => "it panicked (exit 101)".to_owned(),
                ref other => format!("it ended with {other}"),
            };
            let _ = writeln!(
                out,
                "  rfio should refuse this file (`; conformance: rfio-refuses`) where fio \
                 accepts it ({}), but {how}",
                fio.status
            );
            stderr_lines(out, fio, rfio);
        }
        Difference::Stdout { offset } => {
            let _ = writeln!(
                out,
                "  stdout: first difference at byte {offset} (fio {} bytes, rfio {} bytes)",
                fio.stdout.len(),
                rfio.stdout.len()
            );
            let _ = writeln!(out, "    fio:  {}", excerpt(&fio.stdout, *offset));
            let _ = writeln!(out, "    rfio: {}", excerpt(&rfio.stdout, *offset));
        }
        Difference::Mismatch(m) => {
            if m.fio.chars().count() + m.rfio.chars().count() <= 60 {
                let _ = writeln!(
                    out,
                    "  {}: fio {}, rfio {} ({})",
                    m.place, m.fio, m.rfio, m.rule
                );
            } else {
                let _ = writeln!(out, "  {}: {}", m.place, m.rule);
                let _ = writeln!(out, "    fio:  {}", m.fio);
                let _ = writeln!(out, "    rfio: {}", m.rfio);
            }
        }
        Difference::More(n) => {
            let _ = writeln!(
                out,
                "  ... and {n} more difference{} (all of them are in the --json report)",
                if *n == 1 { "" } else { "s" }
            );
        }
    }
}

fn outcome(run: &RunPair, side: Side) -> &Outcome {
    match side {
        Side::Fio => &run.fio,
        Side::Rfio => &run.rfio,
    }
}

/// The start of both stderrs: not compared, but usually the reason for a different exit.
fn stderr_lines(out: &mut String, fio: &Outcome, rfio: &Outcome) {
    let _ = writeln!(out, "  stderr (not compared):");
    let _ = writeln!(out, "    fio:  {}", head(&fio.stderr, STDERR_SHOWN));
    let _ = writeln!(out, "    rfio: {}", head(&rfio.stderr, STDERR_SHOWN));
}

/// What the JSON report records about the setup.
pub(crate) struct Setup<'a> {
    pub(crate) fio: &'a str,
    pub(crate) fio_version: &'a str,
    pub(crate) rfio: &'a str,
    pub(crate) directives_apply: bool,
    pub(crate) checks: &'a [Check],
    pub(crate) timeout: std::time::Duration,
    pub(crate) retries: u32,
}

/// The machine-readable report.
pub(crate) fn json(setup: &Setup<'_>, files: &[FileResult]) -> Value {
    let (passed, failed) = counts(files);
    let checks: Vec<&str> = setup.checks.iter().map(|c| c.name()).collect();
    json!({
        "fio": { "path": setup.fio, "version": setup.fio_version },
        "rfio": { "path": setup.rfio },
        "directives_apply": setup.directives_apply,
        "checks": checks,
        "timeout_s": setup.timeout.as_secs_f64(),
        "retries": setup.retries,
        "passed": passed,
        "failed": failed,
        "files": files.iter().map(file_json).collect::<Vec<_>>(),
    })
}

/// The report as indented JSON text, with a final newline.
pub(crate) fn render(report: &Value) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

/// Bytes that should be UTF-8 as a JSON string; invalid sequences become U+FFFD.
fn lossy(bytes: &[u8]) -> Value {
    Value::String(String::from_utf8_lossy(bytes).into_owned())
}

fn file_json(file: &FileResult) -> Value {
    json!({
        "path": file.job.display,
        "absolute_path": lossy(file.job.path.as_os_str().as_encoded_bytes()),
        "conformance": file.job.directives.names(),
        "results": file.results.iter().map(result_json).collect::<Vec<_>>(),
    })
}

fn result_json(result: &CheckResult) -> Value {
    let differences: Vec<Value> = match &result.verdict {
        Verdict::Diff(differences) | Verdict::Known(_, differences) => {
            differences.iter().map(difference_json).collect()
        }
        _ => Vec::new(),
    };
    let status = match result.verdict {
        Verdict::Ok => "ok",
        Verdict::Refused => "refused",
        Verdict::Accepted => "accepted",
        Verdict::NotApplicable => "not-applicable",
        Verdict::Skipped(_) => "skipped",
        Verdict::Diff(_) => "diff",
        Verdict::Known(..) => "known",
    };
    let mut object = Map::new();
    object.insert("check".into(), json!(result.check.name()));
    object.insert("status".into(), json!(status));
    object.insert("attempts".into(), json!(result.attempts));
    if let Verdict::Skipped(reason) | Verdict::Known(reason, _) = &result.verdict {
        object.insert("reason".into(), json!(reason));
    }
    object.insert("differences".into(), Value::Array(differences));
    // The main run's outcomes, then every run (the same main run first) with its mode.
    if let Some(main) = result.runs.first() {
        object.insert("fio".into(), outcome_json(&main.fio));
        object.insert("rfio".into(), outcome_json(&main.rfio));
    }
    if result.runs.len() > 1 {
        let runs: Vec<Value> = result.runs[1..]
            .iter()
            .map(|run| {
                json!({
                    "mode": run.mode.name(),
                    "fio": outcome_json(&run.fio),
                    "rfio": outcome_json(&run.rfio),
                })
            })
            .collect();
        object.insert("other_runs".into(), Value::Array(runs));
    }
    Value::Object(object)
}

fn difference_json(difference: &Difference) -> Value {
    let mut object = Map::new();
    object.insert("kind".into(), json!(difference.kind()));
    match difference {
        Difference::Timeout(side) | Difference::CannotRun(side) => {
            object.insert("side".into(), json!(side.name()));
        }
        Difference::Stdout { offset } => {
            object.insert("offset".into(), json!(offset));
        }
        Difference::Mismatch(m) => {
            for (key, value) in [
                ("place", &m.place),
                ("fio", &m.fio),
                ("rfio", &m.rfio),
                ("rule", &m.rule),
            ] {
                object.insert(key.into(), json!(value));
            }
        }
        Difference::More(n) => {
            object.insert("count".into(), json!(n));
        }
        Difference::ExitStatus | Difference::NotRefused | Difference::NotAccepted => {}
    }
    Value::Object(object)
}

fn outcome_json(outcome: &Outcome) -> Value {
    let (exit_code, signal, error) = match &outcome.status {
        Status::Exited(code) => (json!(code), Value::Null, Value::Null),
        Status::Signaled(signal) => (Value::Null, json!(signal), Value::Null),
        Status::TimedOut(_) => (Value::Null, Value::Null, Value::Null),
        Status::CannotRun(why) => (Value::Null, Value::Null, json!(why)),
    };
    let files: Vec<Value> = outcome
        .files
        .iter()
        .map(|file| json!({ "path": file.path, "size": file.size }))
        .collect();
    json!({
        "status": outcome.status.to_string(),
        "exit_code": exit_code,
        "signal": signal,
        "timed_out": matches!(outcome.status, Status::TimedOut(_)),
        "error": error,
        "elapsed_ms": u64::try_from(outcome.elapsed.as_millis()).unwrap_or(u64::MAX),
        "stdout": lossy(&outcome.stdout),
        "stderr": lossy(&outcome.stderr),
        "files": files,
    })
}

/// One line naming the two binaries, for the top of the text report.
pub(crate) fn setup_lines(setup: &Setup<'_>) -> String {
    let mut out = format!(
        "fio:  {} ({})\nrfio: {}\n",
        setup.fio, setup.fio_version, setup.rfio
    );
    if !setup.directives_apply {
        out.push_str(
            "note: rfio is this same fio, so `; conformance:` headers do not apply \
             (a self-check)\n",
        );
    }
    let _ = writeln!(
        out,
        "each run: fresh empty temporary directory, timeout {} (or {} times what the file's \
         runtimes add up to)",
        run::seconds(setup.timeout),
        LIMIT_FACTOR
    );
    if setup.checks.contains(&Check::Run) {
        let _ = writeln!(
            out,
            "run: counts exact for size-bound jobs; timing figures within each file's tolerance \
             (default {}x, rates and runtimes only where both ran >= {} ms; a check missing only \
             those runs again, up to {} times)",
            fmt_number(DEFAULT_TOLERANCE),
            MIN_RATE_RUNTIME_MS,
            setup.retries
        );
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::judge;
    use crate::corpus::JobFile;
    use crate::spec::{Directives, RunMode};
    use std::path::PathBuf;
    use std::time::Duration;

    fn outcome(code: i32, stdout: &str, stderr: &str) -> Outcome {
        Outcome {
            status: Status::Exited(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            elapsed: Duration::from_millis(7),
            files: Vec::new(),
            stalled: String::new(),
        }
    }

    fn file(name: &str, results: Vec<CheckResult>) -> FileResult {
        FileResult {
            job: JobFile {
                path: PathBuf::from("/abs").join(name),
                display: name.into(),
                directives: Directives::default(),
                run: RunMode::ParseOnly,
                expect_errors: Vec::new(),
                known_diffs: Vec::new(),
                strict_waivers: true,
                skipped: None,
                expect: None,
                refuses_in: None,
                needs: Duration::ZERO,
            },
            results,
        }
    }

    fn result(check: Check, fio: Outcome, rfio: Outcome) -> CheckResult {
        let runs = vec![RunPair {
            mode: check.modes(None)[0],
            fio,
            rfio,
        }];
        CheckResult {
            check,
            verdict: judge(check, &runs, None, Directives::default()),
            attempts: 1,
            runs,
        }
    }

    fn sample() -> Vec<FileResult> {
        vec![
            file(
                "a.fio",
                vec![
                    result(Check::Showcmd, outcome(0, "x", ""), outcome(0, "x", "")),
                    result(Check::ParseOnly, outcome(0, "", ""), outcome(0, "", "")),
                ],
            ),
            file(
                "longer/name.fio",
                vec![
                    result(
                        Check::Showcmd,
                        outcome(0, "fio --name=a --bs=4k \n", ""),
                        outcome(2, "fio --name=a \r\n", "rfio: bad\n"),
                    ),
                    result(Check::ParseOnly, outcome(0, "", ""), outcome(0, "", "")),
                ],
            ),
        ]
    }

    #[test]
    fn table() {
        let files = sample();
        let checks = [Check::Showcmd, Check::ParseOnly];
        let table = Table::new(files.iter().map(|f| f.job.display.as_str()), &checks);
        let mut text = table.header(&checks);
        for f in &files {
            text.push_str(&table.row(f));
        }
        assert_eq!(
            text,
            "job file         showcmd  parse-only\n\
             a.fio            ok       ok\n\
             longer/name.fio  DIFF     ok\n"
        );
        assert_eq!(summary_line(&files), "conformance: 3 passed, 1 failed\n");
    }

    #[test]
    fn details_show_both_values_escaped() {
        let text = details(&sample());
        assert_eq!(
            text,
            "DIFF longer/name.fio [showcmd]\n\
             \x20 exit status: fio exit 0, rfio exit 2\n\
             \x20 stderr (not compared):\n\
             \x20   fio:  \"\"\n\
             \x20   rfio: \"rfio: bad\\n\"\n\
             \x20 stdout: first difference at byte 13 (fio 22 bytes, rfio 15 bytes)\n\
             \x20   fio:  \"fio --name=a --bs=4k \\n\"\n\
             \x20   rfio: \"fio --name=a \\r\\n\"\n\n"
        );
    }

    #[test]
    fn json_report() {
        let setup = Setup {
            fio: "/usr/bin/fio",
            fio_version: "fio-3.33",
            rfio: "/x/rfio",
            directives_apply: true,
            checks: &Check::ALL,
            timeout: Duration::from_secs(20),
            retries: 2,
        };
        let text = render(&json(&setup, &sample()));
        for needle in [
            "\"passed\": 3,",
            "\"failed\": 1,",
            "\"status\": \"diff\"",
            "\"kind\": \"exit-status\"",
            "\"kind\": \"stdout\",\n",
            "\"offset\": 13",
            "\"stdout\": \"fio --name=a \\r\\n\"",
            "\"exit_code\": 2,",
            "\"timeout_s\": 20.0,",
        ] {
            assert!(text.contains(needle), "{needle} missing in\n{text}");
        }
    }
}
