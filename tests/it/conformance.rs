//! Conformance against real fio 3.33: runs the `rfio-conformance` tool over fio's own example job
//! files and our corpus in jobfiles/, comparing rfio with fio: `showcmd` and `parse-only` on
//! every file, the real `run` and the seed `pipelines` (awk on terse, jq on JSON, awk on iops
//! logs) on every `; conformance: run` file. As a check of the tool and the corpus, fio is also
//! compared with itself on a small sample (all of it would double the cost of this test; run
//! `rfio-conformance --rfio "$(command -v fio)" jobfiles` for the full self-check). Needs real fio
//! and jq installed; fails, never skips, without them.

use std::path::{Path, PathBuf};
use std::process::Command;

const NEED_FIO: &str =
    "real fio 3.33 is needed for conformance tests: apt-get install -y fio fio-examples jq";

/// The real fio on PATH, with its example job files; panics with the install hint otherwise.
fn real_fio() -> PathBuf {
    let fio = on_path("fio").unwrap_or_else(|| panic!("{NEED_FIO} (no fio on PATH)"));
    let version = Command::new(&fio)
        .arg("--version")
        .output()
        .unwrap_or_else(|err| panic!("{NEED_FIO} ({} does not run: {err})", fio.display()));
    assert!(
        version.status.success() && version.stdout.starts_with(b"fio-"),
        "{NEED_FIO} ({} --version: {:?})",
        fio.display(),
        String::from_utf8_lossy(&version.stdout)
    );
    assert!(
        Path::new("/usr/share/doc/fio/examples").is_dir(),
        "{NEED_FIO} (no /usr/share/doc/fio/examples)"
    );
    for program in ["jq", "awk"] {
        assert!(
            on_path(program).is_some(),
            "{NEED_FIO} (no {program} on PATH, needed by the pipelines check)"
        );
    }
    fio
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn jobfiles() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("jobfiles")
}

/// Runs the tool comparing `fio` with `rfio` with these extra arguments (checks, paths), and
/// asserts that they agree everywhere, showing the tool's report otherwise.
fn assert_conforms(fio: &Path, rfio: &Path, args: &[&str], paths: &[PathBuf]) {
    let output = Command::new(env!("CARGO_BIN_EXE_rfio-conformance"))
        .arg("--fio")
        .arg(fio)
        .arg("--rfio")
        .arg(rfio)
        .args(args)
        .args(paths)
        .output()
        .expect("run rfio-conformance");
    assert!(
        output.status.success(),
        "rfio-conformance --rfio {} reports differences ({}):\n{}\n{}",
        rfio.display(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every check on every file: showcmd and parse-only everywhere, run and pipelines on the
/// `; conformance: run` files. Rate-limited jobs mostly sleep, so four files are compared at a
/// time even on two cores.
#[test]
fn rfio_agrees_with_fio() {
    let fio = real_fio();
    assert_conforms(
        &fio,
        Path::new(env!("CARGO_BIN_EXE_rfio")),
        &["--examples", "--jobs", "4"],
        &[jobfiles()],
    );
}

/// fio 3.42, the second oracle: `RFIO_FIO_3_42` (scripts/test sets it from
/// `scripts/fio-oracle 3.42`), else the oracle's cache. `None` only where
/// `RFIO_TEST_NO_FIO_3_42=1` marks a machine without it.
fn fio_3_42() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".cache"));
    let fio = std::env::var_os("RFIO_FIO_3_42")
        .map(PathBuf::from)
        .unwrap_or_else(|| cache.join("rfio-oracles/fio-3.42/fio"));
    let version = Command::new(&fio).arg("--version").output().ok();
    let missing = match version {
        Some(v) if v.stdout.starts_with(b"fio-3.42") => None,
        _ => Some(format!(
            "no fio 3.42 at {} (build it: scripts/fio-oracle 3.42, and set RFIO_FIO_3_42)",
            fio.display()
        )),
    };
    crate::common::require::require("fio-3.42", missing).then_some(fio)
}

/// The corpus against fio 3.42, with rfio as fio 3.42 (the tool sets the release from the
/// oracle's version): the headers' unqualified lines state fio 3.33's results, `; fio-3.42:`
/// lines what differs there (conformance/README.md).
#[test]
fn rfio_agrees_with_fio_3_42() {
    let Some(fio) = fio_3_42() else { return };
    real_fio();
    assert_conforms(
        &fio,
        Path::new(env!("CARGO_BIN_EXE_rfio")),
        &["--jobs", "4"],
        &[jobfiles()],
    );
}

/// Runs the tool comparing `fio` with rfio on `paths` with `args`; its exit status and stdout.
fn conformance_report(args: &[&str], paths: &[PathBuf]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rfio-conformance"))
        .arg("--fio")
        .arg(real_fio())
        .arg("--rfio")
        .arg(env!("CARGO_BIN_EXE_rfio"))
        .args(args)
        .args(paths)
        .output()
        .expect("run rfio-conformance");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// The header lines are checked, not prose: a file whose stated result is wrong fails even
/// where fio and rfio agree, and a `; known-diff:` line that covers nothing fails too (it
/// must name the exact place it waives, and go when the difference does).
#[test]
fn headers_that_do_not_hold_fail() {
    let dir = TempDir::new("headers");
    let write = |name: &str, text: &str| {
        let path = dir.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    // fio and rfio both reject rw=foo (exit 1): they agree, but the header says ok.
    let wrong_expect = write(
        "wrong-expect.fio",
        "; rw=foo\n; expect: ok\n[job]\nrw=foo\n",
    );
    let (code, report) = conformance_report(&["--checks", "parse-only"], &[wrong_expect]);
    assert_eq!(code, Some(1), "{report}");
    assert!(
        report.contains("parse-only rfio exit status: fio (not compared: exit 1), rfio exit 1 (rfio exits 0 (`; expect: ok`))"),
        "{report}"
    );
    // The same file stating what happens passes.
    let right_expect = write(
        "right-expect.fio",
        "; rw=foo\n; expect-exit: 1\n[job]\nrw=foo\n",
    );
    let (code, report) = conformance_report(&["--checks", "parse-only"], &[right_expect]);
    assert_eq!(code, Some(0), "{report}");
    // A waiver for a place where nothing differs.
    let stale = write(
        "stale.fio",
        "; x\n; expect: ok\n; known-diff: parse-only stdout: long fixed\n[job]\nsize=1m\n",
    );
    let (code, report) = conformance_report(&["--checks", "parse-only"], &[stale]);
    assert_eq!(code, Some(1), "{report}");
    assert!(
        report.contains("names a difference that is gone"),
        "{report}"
    );
    // A waiver of a whole file is not a waiver.
    let whole = write(
        "whole.fio",
        "; x\n; known-diff: rfio has a bug\n[job]\nsize=1m\n",
    );
    let (code, report) = conformance_report(&["--checks", "parse-only"], &[whole]);
    assert_eq!(code, Some(2), "{report}");
}

/// The sample of the corpus on which fio is compared with itself: the parser edge cases (does
/// every one give fio a deterministic answer?) and one real-run file of each kind (are the exact
/// comparisons of the `run` check really deterministic for fio, including random mixes, size-
/// bound rate limits, windowed logs and time-bound jobs? do the tight tolerances of the 1-2 s
/// timing jobs hold between two runs of fio?).
const SELF_CHECK_RUNS: &[&str] = &[
    "rw/randrw.fio",
    "bs/bssplit-per-direction.fio",
    "random/zipf.fio",
    "jobs/group-reporting-groups.fio",
    "files/filename-format.fio",
    "timing/rate.fio",
    "timing/time-based.fio",
    "timing/measured-rate.fio",
    "timing/measured-rate-per-direction.fio",
    "timing/measured-ramp-time.fio",
    "outputs/unified-both.fio",
    "outputs/terse-v5.fio",
    "logs/log-avg-msec.fio",
    "logs/numjobs-log-index.fio",
    "engines/libaio.fio",
    "errors/no-size.fio",
];

/// fio compared with itself must agree: this checks the tool (fresh directories, same
/// environment, exact comparisons only where fio is deterministic) and the corpus.
#[test]
fn fio_agrees_with_itself() {
    let fio = real_fio();
    assert_conforms(
        &fio,
        &fio,
        &["--checks", "showcmd,parse-only"],
        &[jobfiles().join("parser")],
    );
    let runs: Vec<PathBuf> = SELF_CHECK_RUNS.iter().map(|f| jobfiles().join(f)).collect();
    assert_conforms(&fio, &fio, &["--checks", "run,pipelines"], &runs);
}

/// The job files of the corpus with their `; expect-error:` texts and whether their header opts
/// them into real runs.
fn expected_errors() -> Vec<(PathBuf, Vec<String>, bool)> {
    let mut files = Vec::new();
    let mut pending = vec![jobfiles()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "fio") {
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                let header: Vec<&str> = text
                    .lines()
                    .take_while(|line| {
                        line.trim().is_empty() || line.trim_start().starts_with([';', '#'])
                    })
                    .collect();
                let errors: Vec<String> = header
                    .iter()
                    .filter_map(|line| line.split_once("expect-error:"))
                    .map(|(_, text)| text.trim().to_owned())
                    .collect();
                let runs = header.iter().any(|line| {
                    line.contains("conformance:") && line.split([' ', ',']).any(|w| w == "run")
                });
                if !errors.is_empty() {
                    files.push((path, errors, runs));
                }
            }
        }
    }
    files.sort();
    files
}

/// A fresh empty directory, removed afterwards.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let path =
            std::env::temp_dir().join(format!("rfio-expect-error-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every `; expect-error: TEXT` file makes rfio fail, with TEXT on stderr: when parsing
/// (`--parse-only`), or else (for errors only a real run finds, in `; conformance: run` files)
/// when running it in an empty directory. The tool checks the texts wherever rfio fails; this
/// test makes sure rfio fails at all.
#[test]
fn rfio_prints_the_expected_errors() {
    let files = expected_errors();
    assert!(
        files.len() >= 20,
        "only {} job files have `; expect-error:` lines",
        files.len()
    );
    let rfio = env!("CARGO_BIN_EXE_rfio");
    let mut failures = Vec::new();
    for (index, (path, errors, runs)) in files.iter().enumerate() {
        let dir = TempDir::new(&index.to_string());
        // As rfio-conformance runs them beside Debian's fio 3.33.
        let run = |args: &[&str]| {
            Command::new(rfio)
                .args(args)
                .arg(path)
                .env("RFIO_FIO_VERSION", "3.33")
                .current_dir(&dir.0)
                .output()
                .expect("run rfio")
        };
        let mut output = run(&["--parse-only"]);
        if output.status.success() && *runs {
            output = run(&["--output-format=terse"]);
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.success() {
            failures.push(format!("{}: rfio exits 0", path.display()));
        }
        for text in errors.iter().filter(|text| !stderr.contains(text.as_str())) {
            failures.push(format!(
                "{}: stderr lacks {text:?}; it is {stderr:?}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The corpus is as large as promised, and every file says what it checks and what to expect.
#[test]
fn corpus_is_documented() {
    let mut files = Vec::new();
    let mut pending = vec![jobfiles()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "fio") {
                files.push(path);
            }
        }
    }
    let mut runs = 0;
    for path in &files {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let text = text.trim_start_matches('\u{feff}');
        assert!(
            text.starts_with(';') || text.starts_with('#'),
            "{}: no header comment saying what the file checks",
            path.display()
        );
        let states = text.lines().any(|line| {
            let body = line.trim_start_matches([';', '#', ' ']);
            line.starts_with([';', '#'])
                && (body.starts_with("expect:") || body.starts_with("expect-exit:"))
        });
        assert!(
            states,
            "{}: the header does not state the expected result (`; expect: ok` or `; expect-exit: N`)",
            path.display()
        );
        if text
            .lines()
            .take_while(|line| line.starts_with([';', '#']) || line.trim().is_empty())
            .any(|line| {
                line.starts_with("; conformance:") && line.split([' ', ',']).any(|w| w == "run")
            })
        {
            runs += 1;
        }
    }
    assert!(
        files.len() >= 80,
        "only {} job files in jobfiles/",
        files.len()
    );
    assert!(
        runs >= 30,
        "only {runs} job files with `; conformance: run`"
    );
}
