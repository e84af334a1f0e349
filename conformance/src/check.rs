//! The checks: what each one runs, and how it judges the two outcomes.
//!
//! [`Check`] is the registry: one variant per check, [`Check::ALL`] lists them in report order.
//! A check names the [`Mode`]s it runs each binary in (the same mode is run once per file and
//! shared between the checks that need it), says which job files it [applies](Check::applies)
//! to, and judges the outcomes in [`Check::judge`]. The `run` check's comparisons live in
//! runcheck.rs (JSON, terse, files and logs), the `pipelines` check's in pipelines.rs.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::corpus::{Directives, Expect, JobFile, RunMode, RunSpec, Waiver};
use crate::run::{self, Outcome, Status};
use crate::{pipelines, runcheck};

/// One way of running a job file through both binaries and comparing the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// `BIN --showcmd FILE`: stdout byte-identical, same exit status.
    Showcmd,
    /// `BIN --parse-only FILE`: stdout byte-identical, same exit status.
    ParseOnly,
    /// A real run (`--output-format=json+`, then `--minimal` or the header's terse version):
    /// same exit status, JSON and terse layout, deterministic values exact, timing values
    /// plausible, same files and logs left behind. Only for `; conformance: run` files.
    Run,
    /// The seed scripts' pipelines (awk on the terse line, jq on the JSON, awk on the iops logs)
    /// give numbers of the same shape on both outputs. Only for `; conformance: run` files.
    Pipelines,
}

/// How a binary is run for a check. Each mode runs at most once per job file and binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Mode {
    /// `--showcmd FILE`
    Showcmd,
    /// `--parse-only FILE`
    ParseOnly,
    /// `--output-format=json+ FILE`, keeping the files the run leaves behind.
    JsonPlus,
    /// `--minimal FILE` (terse version 3).
    Minimal,
    /// `--output-format=terse --terse-version=N FILE`.
    Terse(u8),
}

impl Mode {
    /// The arguments both binaries get for `job` (an absolute path).
    pub(crate) fn args(self, job: &Path) -> Vec<OsString> {
        let mut args: Vec<OsString> = match self {
            Mode::Showcmd => vec!["--showcmd".into()],
            Mode::ParseOnly => vec!["--parse-only".into()],
            Mode::JsonPlus => vec!["--output-format=json+".into()],
            Mode::Minimal => vec!["--minimal".into()],
            Mode::Terse(version) => vec![
                "--output-format=terse".into(),
                format!("--terse-version={version}").into(),
            ],
        };
        args.push(job.as_os_str().to_owned());
        args
    }

    /// How the report names this run.
    pub(crate) fn name(self) -> String {
        match self {
            Mode::Showcmd => "showcmd".into(),
            Mode::ParseOnly => "parse-only".into(),
            Mode::JsonPlus => "json+".into(),
            Mode::Minimal => "minimal".into(),
            Mode::Terse(version) => format!("terse-v{version}"),
        }
    }

    /// The terse version this mode prints, if it prints terse output.
    pub(crate) fn terse_version(self) -> Option<u8> {
        match self {
            Mode::Minimal => Some(3),
            Mode::Terse(version) => Some(version),
            Mode::Showcmd | Mode::ParseOnly | Mode::JsonPlus => None,
        }
    }

    fn keeps_files(self) -> bool {
        self == Mode::JsonPlus
    }
}

/// Whether a check applies to a job file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Applies<'a> {
    Yes(Option<&'a RunSpec>),
    /// Not for this file (a parse-only file and a check that needs a real run).
    No,
    /// The file's header skips real runs, for this reason.
    Skipped(&'a str),
}

impl Check {
    /// Every check, in report order.
    pub(crate) const ALL: [Check; 4] = [
        Check::Showcmd,
        Check::ParseOnly,
        Check::Run,
        Check::Pipelines,
    ];

    /// The name used in `--checks`, the table and the JSON report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Check::Showcmd => "showcmd",
            Check::ParseOnly => "parse-only",
            Check::Run => "run",
            Check::Pipelines => "pipelines",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|check| check.name() == name)
    }

    /// Whether this check applies to `job`.
    pub(crate) fn applies(self, job: &JobFile) -> Applies<'_> {
        match (self, &job.run) {
            (Check::Showcmd | Check::ParseOnly, _) => Applies::Yes(None),
            (Check::Run | Check::Pipelines, RunMode::Run(spec)) => Applies::Yes(Some(spec)),
            (Check::Run | Check::Pipelines, RunMode::Skipped(reason)) => Applies::Skipped(reason),
            (Check::Run | Check::Pipelines, RunMode::ParseOnly) => Applies::No,
        }
    }

    /// The runs this check needs, the first one being its main run.
    pub(crate) fn modes(self, spec: Option<&RunSpec>) -> Vec<Mode> {
        match self {
            Check::Showcmd => vec![Mode::Showcmd],
            Check::ParseOnly => vec![Mode::ParseOnly],
            Check::Run => {
                let terse = match spec.and_then(|spec| spec.terse_version) {
                    None | Some(3) => Mode::Minimal,
                    Some(version) => Mode::Terse(version),
                };
                vec![Mode::JsonPlus, terse]
            }
            // The seed pipelines read `--minimal` output (terse v3 field numbers).
            Check::Pipelines => vec![Mode::JsonPlus, Mode::Minimal],
        }
    }

    /// Judges the runs of this check (in the order of [`Check::modes`]). `deliberate` holds
    /// the file's `; conformance:` directives about rfio's deliberate differences, when they
    /// apply.
    ///
    /// stderr is never compared: rfio's error messages deliberately differ from fio's.
    pub(crate) fn judge(
        self,
        runs: &[RunPair],
        spec: Option<&RunSpec>,
        deliberate: Directives,
    ) -> Verdict {
        match self {
            Check::Showcmd | Check::ParseOnly => {
                compare_exit_and_stdout(&runs[0].fio, &runs[0].rfio, deliberate)
            }
            Check::Run => runcheck::judge(runs, &spec.cloned().unwrap_or_default(), deliberate),
            Check::Pipelines => {
                pipelines::judge(runs, &spec.cloned().unwrap_or_default(), deliberate)
            }
        }
    }
}

/// One side of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Fio,
    Rfio,
}

impl Side {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Side::Fio => "fio",
            Side::Rfio => "rfio",
        }
    }
}

/// How one check of one job file came out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// fio and rfio agree.
    Ok,
    /// fio accepted the file, and rfio refused it as the file's header says it should.
    Refused,
    /// fio rejected the file, and rfio accepted it as the file's header says it should.
    Accepted,
    /// The check does not apply to this file (it is not a `; conformance: run` file).
    NotApplicable,
    /// The file's header skips this check (`skip-run=REASON`), for this reason.
    Skipped(String),
    /// They disagree, for these reasons (never empty).
    Diff(Vec<Difference>),
    /// They disagree only where the file's header names known differences
    /// (`; known-diff: CHECK PLACE: REASON`), for these reasons: shown, not counted as a failure.
    Known(String, Vec<Difference>),
}

impl Verdict {
    /// What the table shows.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Refused => "refused",
            Verdict::Accepted => "accepted",
            Verdict::NotApplicable => "-",
            Verdict::Skipped(_) => "skipped",
            Verdict::Diff(_) => "DIFF",
            Verdict::Known(..) => "KNOWN",
        }
    }

    pub(crate) fn passed(&self) -> bool {
        !matches!(self, Verdict::Diff(_))
    }

    /// Whether the cell counts in the summary (checks that did not run do not).
    pub(crate) fn counted(&self) -> bool {
        !matches!(self, Verdict::NotApplicable | Verdict::Skipped(_))
    }

    /// `Ok` when there are no differences, else `Diff`.
    pub(crate) fn from_differences(differences: Vec<Difference>) -> Verdict {
        if differences.is_empty() {
            Verdict::Ok
        } else {
            Verdict::Diff(differences)
        }
    }
}

/// One reason for a `DIFF`. The values themselves are in the two outcomes, or in the
/// [`Mismatch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Difference {
    /// This side did not finish its main run within the time limit and was killed.
    Timeout(Side),
    /// This side could not be started.
    CannotRun(Side),
    /// The exit statuses of the main run differ.
    ExitStatus,
    /// stdout differs, first at this byte offset.
    Stdout { offset: usize },
    /// The header says rfio refuses this file and fio exited 0, but rfio did not refuse it
    /// cleanly: it exited 0, panicked (exit 101) or died from a signal.
    NotRefused,
    /// The header says rfio accepts this file and fio rejected it, but rfio did not exit 0.
    NotAccepted,
    /// A value, layout or file that differs, with both values.
    Mismatch(Box<Mismatch>),
    /// This many more differences were found and are not listed.
    More(usize),
}

/// One difference found by the `run` or `pipelines` check (or an `; expect-error:` line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// What kind of comparison failed, for the JSON report: `json-keys`, `json-type`, ...
    pub(crate) kind: &'static str,
    /// Where: `json+ jobs[0].read.total_ios`, `minimal line 1 $8`, `files a_iops.1.log`.
    pub(crate) place: String,
    pub(crate) fio: String,
    pub(crate) rfio: String,
    /// The rule that failed: `exact`, `same type`, `ratio 12.0 > tolerance 10`...
    pub(crate) rule: String,
}

/// How many differences one cell lists before it only counts the rest.
pub(crate) const MAX_LISTED: usize = 25;

impl Difference {
    /// A stable machine-readable name, for the JSON report.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Difference::Timeout(_) => "timeout",
            Difference::CannotRun(_) => "cannot-run",
            Difference::ExitStatus => "exit-status",
            Difference::Stdout { .. } => "stdout",
            Difference::NotRefused => "not-refused",
            Difference::NotAccepted => "not-accepted",
            Difference::Mismatch(mismatch) => mismatch.kind,
            Difference::More(_) => "more",
        }
    }

    /// A mismatch.
    pub(crate) fn mismatch(
        kind: &'static str,
        place: impl Into<String>,
        fio: impl Into<String>,
        rfio: impl Into<String>,
        rule: impl Into<String>,
    ) -> Difference {
        Difference::Mismatch(Box::new(Mismatch {
            kind,
            place: place.into(),
            fio: fio.into(),
            rfio: rfio.into(),
            rule: rule.into(),
        }))
    }
}

/// Caps a list of differences at [`MAX_LISTED`], counting the rest in a final `More`.
pub(crate) fn capped(mut differences: Vec<Difference>) -> Vec<Difference> {
    if differences.len() > MAX_LISTED {
        let more = differences.len() - MAX_LISTED;
        differences.truncate(MAX_LISTED);
        differences.push(Difference::More(more));
    }
    differences
}

/// Both binaries' outcomes of one run mode.
#[derive(Clone, Debug)]
pub(crate) struct RunPair {
    pub(crate) mode: Mode,
    pub(crate) fio: Outcome,
    pub(crate) rfio: Outcome,
}

/// The outcome of one check of one job file.
#[derive(Clone, Debug)]
pub(crate) struct CheckResult {
    pub(crate) check: Check,
    pub(crate) verdict: Verdict,
    /// The runs judged, main run first; empty when the check did not run.
    pub(crate) runs: Vec<RunPair>,
    /// How many times the runs were made: more than once when timing figures missed their
    /// tolerance (see [`Binaries::retries`]).
    pub(crate) attempts: u32,
}

/// All checks of one job file.
#[derive(Clone, Debug)]
pub(crate) struct FileResult {
    pub(crate) job: JobFile,
    pub(crate) results: Vec<CheckResult>,
}

/// The two binaries and how to run them.
#[derive(Clone, Debug)]
pub(crate) struct Binaries<'a> {
    pub(crate) fio: &'a Path,
    pub(crate) rfio: &'a Path,
    /// The time limit of a run: at least this, more for a job file that needs more
    /// ([`time_limit`]).
    pub(crate) limit: Duration,
    /// How many times a check whose only differences are timing figures out of tolerance is
    /// run again (a loaded machine can stretch one run, not every one).
    pub(crate) retries: u32,
    /// Whether `; conformance:` directives about rfio's deliberate differences (and the
    /// `; expect-error:` lines) apply. They describe rfio, so they do not when "rfio" is fio
    /// itself (a self-check of fio and of this tool).
    pub(crate) directives_apply: bool,
}

/// How many times what a job file needs (its runtimes and delays) a run may take before it is
/// killed: a loaded machine can stretch a rate-limited or time-based job, never tenfold.
pub(crate) const LIMIT_FACTOR: u32 = 10;

/// The time limit of `job`'s runs: `minimum`, or [`LIMIT_FACTOR`] times what the job file
/// needs, whichever is longer.
pub(crate) fn time_limit(job: &JobFile, minimum: Duration) -> Duration {
    minimum.max(job.needs * LIMIT_FACTOR)
}

/// Runs every check on one job file, each run in its own fresh temporary directory. A mode two
/// checks need (the `json+` run of `run` and `pipelines`) runs once.
pub(crate) fn check_file(job: &JobFile, checks: &[Check], bins: &Binaries<'_>) -> FileResult {
    let bins = &Binaries {
        limit: time_limit(job, bins.limit),
        ..bins.clone()
    };
    let mut done: HashMap<Mode, RunPair> = HashMap::new();
    let results = checks
        .iter()
        .map(|&check| {
            let deliberate = if bins.directives_apply {
                let refuses = job.directives.rfio_refuses
                    && job
                        .refuses_in
                        .as_ref()
                        .is_none_or(|only| only.contains(&check));
                Directives {
                    pure_output: true,
                    rfio_refuses: refuses,
                    ..job.directives
                }
            } else {
                Directives::default()
            };
            let spec = match check.applies(job) {
                Applies::Yes(spec) => spec,
                Applies::No => return not_run(check, Verdict::NotApplicable),
                Applies::Skipped(reason) => {
                    return not_run(check, Verdict::Skipped(reason.to_owned()))
                }
            };
            let judge = |runs: &[RunPair]| {
                let mut verdict = check.judge(runs, spec, deliberate);
                if bins.directives_apply {
                    verdict = with_expected_errors(verdict, runs, &job.expect_errors);
                    if let Some(expect) = job.expect {
                        let decides = matches!(check, Check::Run | Check::Pipelines)
                            || job.run == RunMode::ParseOnly;
                        verdict = with_expectation(verdict, runs, expect, decides);
                    }
                    verdict = waived(verdict, check, &job.known_diffs);
                }
                verdict
            };
            let modes = check.modes(spec);
            let mut runs: Vec<RunPair> = modes
                .iter()
                .map(|&mode| {
                    done.entry(mode)
                        .or_insert_with(|| run_both(mode, &job.path, bins))
                        .clone()
                })
                .collect();
            let mut verdict = judge(&runs);
            // Timing figures that miss their tolerance may be the machine's load: both
            // binaries run again, and one attempt within the tolerances passes. Anything
            // else (a count, a value, a layout) fails at once.
            let mut attempts = 1;
            while attempts <= bins.retries && only_timing(&verdict) {
                attempts += 1;
                runs = modes
                    .iter()
                    .map(|&mode| run_both(mode, &job.path, bins))
                    .collect();
                for run in &runs {
                    done.insert(run.mode, run.clone());
                }
                verdict = judge(&runs);
            }
            CheckResult {
                check,
                verdict,
                runs,
                attempts,
            }
        })
        .collect();
    FileResult {
        job: job.clone(),
        results,
    }
}

fn not_run(check: Check, verdict: Verdict) -> CheckResult {
    CheckResult {
        check,
        verdict,
        attempts: 0,
        runs: Vec::new(),
    }
}

fn run_both(mode: Mode, job: &Path, bins: &Binaries<'_>) -> RunPair {
    let args = mode.args(job);
    let run = |program: &Path| {
        if mode.keeps_files() {
            run::run_in_temp_dir_keeping_files(program, &args, bins.limit)
        } else {
            run::run_in_temp_dir(program, &args, bins.limit)
        }
    };
    RunPair {
        mode,
        fio: run(bins.fio),
        rfio: run(bins.rfio),
    }
}

/// Whether `verdict` fails only on timing figures out of their tolerance (rule `... within
/// N ...`), which another attempt may bring within it.
fn only_timing(verdict: &Verdict) -> bool {
    match verdict {
        Verdict::Diff(differences) => differences.iter().all(|d| {
            matches!(d, Difference::Mismatch(m) if m.rule.contains("within "))
                || matches!(d, Difference::More(_))
        }),
        _ => false,
    }
}

/// Adds `more` to the differences of `verdict` (a `Diff` then, whatever it was).
fn with_differences(verdict: Verdict, more: Vec<Difference>) -> Verdict {
    if more.is_empty() {
        return verdict;
    }
    match verdict {
        Verdict::Diff(mut differences) => {
            differences.extend(more);
            Verdict::Diff(capped(differences))
        }
        _ => Verdict::Diff(capped(more)),
    }
}

/// `; expect: ok` / `; expect-exit: N`: how rfio exits. Wherever rfio fails, it exits N (never
/// where the file expects `ok`); in the runs that `decide` (the real runs of a `run` file, the
/// parse of any other file), rfio exits exactly as expected.
fn with_expectation(verdict: Verdict, runs: &[RunPair], expect: Expect, decides: bool) -> Verdict {
    let (wanted, stated) = match expect {
        Expect::Ok => (0, "`; expect: ok`".to_owned()),
        Expect::Exit(code) => (code, format!("`; expect-exit: {code}`")),
    };
    let mut found = Vec::new();
    for run in runs {
        let status = &run.rfio.status;
        let as_stated = *status == Status::Exited(wanted);
        let failed_otherwise = !as_stated && *status != Status::Exited(0);
        // A timeout or failed start is reported as such already.
        let unfinished = matches!(status, Status::TimedOut(_) | Status::CannotRun(_));
        if !unfinished && (failed_otherwise || (decides && !as_stated)) {
            found.push(Difference::mismatch(
                "expect",
                format!("{} rfio exit status", run.mode.name()),
                format!("(not compared: {})", run.fio.status),
                status.to_string(),
                format!("rfio exits {wanted} ({stated})"),
            ));
        }
    }
    with_differences(verdict, found)
}

/// Whether a difference may be waived by a `; known-diff:` line: a value, layout or file that
/// differs, never a timeout, crash, failed start, exit status or unmet expectation.
fn waivable(difference: &Difference) -> Option<&str> {
    match difference {
        Difference::Mismatch(m)
            if !matches!(
                m.kind,
                "timeout" | "exit-status" | "expect" | "expect-error"
            ) =>
        {
            Some(&m.place)
        }
        _ => None,
    }
}

/// Applies the file's `; known-diff: CHECK PLACE: REASON` lines to one cell: a `Diff` all of
/// whose differences are covered becomes `Known`; differences no line covers stay a `Diff`. A
/// line for this check that covers nothing is a difference of its own (the bug was fixed:
/// remove the line).
fn waived(verdict: Verdict, check: Check, waivers: &[Waiver]) -> Verdict {
    let mine: Vec<&Waiver> = waivers.iter().filter(|w| w.check == check).collect();
    if mine.is_empty() || !verdict.counted() {
        return verdict;
    }
    let (differences, otherwise) = match verdict {
        Verdict::Diff(differences) => (differences, None),
        other => (Vec::new(), Some(other)),
    };
    let mut used = vec![false; mine.len()];
    let mut open = Vec::new();
    let mut known = Vec::new();
    for difference in differences {
        let by = waivable(&difference)
            .and_then(|place| mine.iter().position(|w| w.covers(check, place)));
        match by {
            Some(index) => {
                used[index] = true;
                known.push(difference);
            }
            None => open.push(difference),
        }
    }
    for (waiver, _) in mine.iter().zip(&used).filter(|(_, used)| !**used) {
        open.push(Difference::mismatch(
            "known-diff-unused",
            waiver.place.clone(),
            "(as rfio)",
            "(as fio)",
            format!(
                "`; known-diff: {} {}` names a difference that is gone: remove the line",
                check.name(),
                waiver.place
            ),
        ));
    }
    if !open.is_empty() {
        return Verdict::Diff(capped(open));
    }
    if let Some(verdict) = otherwise {
        return verdict;
    }
    let mut reasons: Vec<&str> = mine
        .iter()
        .zip(&used)
        .filter(|(_, used)| **used)
        .map(|(w, _)| w.reason.as_str())
        .collect();
    reasons.dedup();
    Verdict::Known(reasons.join("; "), known)
}

/// `; expect-error: TEXT`: wherever rfio exits non-zero, its stderr must contain every TEXT.
fn with_expected_errors(verdict: Verdict, runs: &[RunPair], expected: &[String]) -> Verdict {
    let mut missing = Vec::new();
    for run in runs {
        if !matches!(run.rfio.status, Status::Exited(code) if code != 0) {
            continue;
        }
        let stderr = String::from_utf8_lossy(&run.rfio.stderr);
        for text in expected
            .iter()
            .filter(|text| !stderr.contains(text.as_str()))
        {
            missing.push(Difference::mismatch(
                "expect-error",
                format!("{} rfio stderr", run.mode.name()),
                "(not compared)",
                crate::report::head(&run.rfio.stderr, 300),
                format!("must contain {:?} (`; expect-error:`)", text),
            ));
        }
    }
    with_differences(verdict, missing)
}

/// Same exit status and byte-identical stdout; with `rfio-refuses`, rfio failing where fio
/// exits 0 is agreement, and with `rfio-accepts`, rfio exiting 0 where fio fails.
pub(crate) fn compare_exit_and_stdout(
    fio: &Outcome,
    rfio: &Outcome,
    deliberate: Directives,
) -> Verdict {
    let mut differences = match exit_statuses(fio, rfio, deliberate) {
        Ok(differences) => differences,
        Err(verdict) => return verdict,
    };
    if let Some(offset) = first_difference(&fio.stdout, &rfio.stdout) {
        differences.push(Difference::Stdout { offset });
    }
    Verdict::from_differences(differences)
}

/// The exit-status part of every comparison. `Err` is a final verdict (a timeout or failed
/// start, which makes the rest meaningless, or a deliberate refusal or acceptance); `Ok` lists
/// the differences so far (an exit status that differs), and the caller compares the rest.
pub(crate) fn exit_statuses(
    fio: &Outcome,
    rfio: &Outcome,
    deliberate: Directives,
) -> Result<Vec<Difference>, Verdict> {
    let mut differences = unfinished(fio, Side::Fio);
    differences.extend(unfinished(rfio, Side::Rfio));
    if !differences.is_empty() {
        return Err(Verdict::Diff(differences));
    }
    if deliberate.rfio_accepts && fio.status != Status::Exited(0) {
        return Err(if rfio.status == Status::Exited(0) {
            Verdict::Accepted
        } else {
            Verdict::Diff(vec![Difference::NotAccepted])
        });
    }
    if deliberate.rfio_refuses && fio.status == Status::Exited(0) {
        return Err(if is_refusal(&rfio.status) {
            Verdict::Refused
        } else {
            Verdict::Diff(vec![Difference::NotRefused])
        });
    }
    if fio.status != rfio.status {
        differences.push(Difference::ExitStatus);
    }
    Ok(differences)
}

/// A timeout or a failed start, which makes the rest of the comparison meaningless.
pub(crate) fn unfinished(outcome: &Outcome, side: Side) -> Vec<Difference> {
    match outcome.status {
        Status::TimedOut(_) => vec![Difference::Timeout(side)],
        Status::CannotRun(_) => vec![Difference::CannotRun(side)],
        Status::Exited(_) | Status::Signaled(_) => Vec::new(),
    }
}

/// A deliberate refusal is a normal non-zero exit; a Rust panic exits 101 and is a bug instead.
fn is_refusal(status: &Status) -> bool {
    matches!(status, Status::Exited(code) if *code != 0 && *code != 101)
}

/// The offset of the first byte where `a` and `b` differ (the shorter length if one is a prefix
/// of the other), or `None` if they are equal.
pub(crate) fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    if a == b {
        return None;
    }
    Some(
        a.iter()
            .zip(b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(status: Status, stdout: &str) -> Outcome {
        Outcome {
            status,
            stdout: stdout.as_bytes().to_vec(),
            stderr: b"ignored".to_vec(),
            elapsed: Duration::ZERO,
            files: Vec::new(),
        }
    }

    impl Check {
        /// Judges a single-run check from its two outcomes.
        fn compare(self, fio: &Outcome, rfio: &Outcome, deliberate: Directives) -> Verdict {
            let runs = [RunPair {
                mode: self.modes(None)[0],
                fio: fio.clone(),
                rfio: rfio.clone(),
            }];
            self.judge(&runs, None, deliberate)
        }
    }

    #[test]
    fn registry_names_round_trip() {
        for check in Check::ALL {
            assert_eq!(Check::from_name(check.name()), Some(check));
        }
        assert_eq!(Check::from_name("json"), None);
    }

    #[test]
    fn modes_and_arguments() {
        let job = Path::new("/j/a.fio");
        assert_eq!(Check::Run.modes(None), [Mode::JsonPlus, Mode::Minimal]);
        let v5 = RunSpec {
            terse_version: Some(5),
            ..RunSpec::default()
        };
        assert_eq!(
            Check::Run.modes(Some(&v5)),
            [Mode::JsonPlus, Mode::Terse(5)]
        );
        assert_eq!(
            Check::Pipelines.modes(Some(&v5)),
            [Mode::JsonPlus, Mode::Minimal]
        );
        assert_eq!(
            Mode::Terse(5).args(job),
            ["--output-format=terse", "--terse-version=5", "/j/a.fio"]
        );
        assert_eq!(
            Mode::JsonPlus.args(job),
            ["--output-format=json+", "/j/a.fio"]
        );
        assert_eq!(Mode::Minimal.terse_version(), Some(3));
    }

    #[test]
    fn expected_errors_are_looked_for_where_rfio_fails() {
        let mut rfio = outcome(Status::Exited(1), "");
        rfio.stderr = b"file.fio:3: rw: bad value 'foo'\n".to_vec();
        let runs = [RunPair {
            mode: Mode::ParseOnly,
            fio: outcome(Status::Exited(1), ""),
            rfio: rfio.clone(),
        }];
        let found = with_expected_errors(Verdict::Ok, &runs, &["bad value 'foo'".into()]);
        assert_eq!(found, Verdict::Ok);
        let missing = with_expected_errors(Verdict::Ok, &runs, &["no such".into()]);
        assert!(matches!(&missing, Verdict::Diff(d) if d[0].kind() == "expect-error"));
        // Where rfio succeeds there is nothing to look for.
        let ok = [RunPair {
            mode: Mode::ParseOnly,
            fio: outcome(Status::Exited(0), ""),
            rfio: outcome(Status::Exited(0), ""),
        }];
        assert_eq!(
            with_expected_errors(Verdict::Ok, &ok, &["x".into()]),
            Verdict::Ok
        );
    }

    #[test]
    fn first_difference_offsets() {
        assert_eq!(first_difference(b"abc", b"abc"), None);
        assert_eq!(first_difference(b"abc", b"abd"), Some(2));
        assert_eq!(first_difference(b"ab", b"abc"), Some(2));
        assert_eq!(first_difference(b"", b"x"), Some(0));
    }

    #[test]
    fn equal_exit_and_stdout_agree_whatever_stderr_says() {
        let fio = outcome(Status::Exited(1), "fio --name=x \n");
        let mut rfio = fio.clone();
        rfio.stderr = b"something else entirely".to_vec();
        assert_eq!(
            Check::Showcmd.compare(&fio, &rfio, Directives::default()),
            Verdict::Ok
        );
    }

    #[test]
    fn differences_are_listed() {
        let fio = outcome(Status::Exited(0), "fio --name=x \n");
        let rfio = outcome(Status::Exited(1), "fio --name=y \n");
        assert_eq!(
            Check::ParseOnly.compare(&fio, &rfio, Directives::default()),
            Verdict::Diff(vec![
                Difference::ExitStatus,
                Difference::Stdout { offset: 11 }
            ])
        );
    }

    #[test]
    fn timeouts_and_failed_starts_are_differences() {
        let fio = outcome(Status::TimedOut(Duration::from_secs(20)), "");
        let rfio = outcome(Status::CannotRun("nope".into()), "");
        assert_eq!(
            Check::Showcmd.compare(&fio, &rfio, REFUSES),
            Verdict::Diff(vec![
                Difference::Timeout(Side::Fio),
                Difference::CannotRun(Side::Rfio)
            ])
        );
    }

    const REFUSES: Directives = Directives {
        rfio_refuses: true,
        rfio_accepts: false,
        pure_output: true,
    };

    #[test]
    fn acceptances() {
        let accepts = Directives {
            rfio_refuses: false,
            rfio_accepts: true,
            pure_output: true,
        };
        let fio_err = outcome(Status::Exited(1), "\n");
        let ok = outcome(Status::Exited(0), "");
        assert_eq!(
            Check::Showcmd.compare(&fio_err, &ok, accepts),
            Verdict::Accepted
        );
        assert_eq!(
            Check::Showcmd.compare(&fio_err, &fio_err, accepts),
            Verdict::Diff(vec![Difference::NotAccepted])
        );
    }

    #[test]
    fn refusals() {
        let fio_ok = outcome(Status::Exited(0), "fio --name=job --bs=4 k \n");
        let refused = outcome(Status::Exited(1), "");
        let accepted = fio_ok.clone();
        let panicked = outcome(Status::Exited(101), "");
        let crashed = outcome(Status::Signaled(11), "");
        assert_eq!(
            Check::Showcmd.compare(&fio_ok, &refused, REFUSES),
            Verdict::Refused
        );
        for rfio in [&accepted, &panicked, &crashed] {
            assert_eq!(
                Check::Showcmd.compare(&fio_ok, rfio, REFUSES),
                Verdict::Diff(vec![Difference::NotRefused]),
                "{:?}",
                rfio.status
            );
        }
        // Without the directive, a refusal is a plain difference.
        assert!(!Check::Showcmd
            .compare(&fio_ok, &refused, Directives::default())
            .passed());
        // Where fio rejects the file too, the usual comparison applies.
        let fio_err = outcome(Status::Exited(1), "");
        assert_eq!(
            Check::Showcmd.compare(&fio_err, &refused, REFUSES),
            Verdict::Ok
        );
    }

    fn waiver(check: Check, place: &str) -> Waiver {
        Waiver {
            check,
            place: place.into(),
            reason: format!("bug at {place}"),
        }
    }

    fn mismatch(kind: &'static str, place: &str) -> Difference {
        Difference::mismatch(kind, place, "1", "2", "exact")
    }

    #[test]
    fn a_waiver_covers_its_place_only() {
        let waivers = [waiver(Check::Run, "json+ .jobs[0].read.slat_ns")];
        let slat = mismatch("json-value", "json+ .jobs[0].read.slat_ns.N");
        let count = mismatch("json-value", "json+ .jobs[0].read.total_ios");
        // Only the named place: known.
        assert_eq!(
            waived(Verdict::Diff(vec![slat.clone()]), Check::Run, &waivers),
            Verdict::Known(
                "bug at json+ .jobs[0].read.slat_ns".into(),
                vec![slat.clone()]
            )
        );
        // Anything else in the same cell still fails, and is all that is listed.
        assert_eq!(
            waived(
                Verdict::Diff(vec![slat.clone(), count.clone()]),
                Check::Run,
                &waivers
            ),
            Verdict::Diff(vec![count.clone()])
        );
        // Another check of the same file is not waived.
        assert_eq!(
            waived(
                Verdict::Diff(vec![slat.clone()]),
                Check::Pipelines,
                &waivers
            ),
            Verdict::Diff(vec![slat.clone()])
        );
        // Timeouts, crashes (exit statuses), failed starts and expectations never are.
        for never in [
            Difference::Timeout(Side::Rfio),
            Difference::CannotRun(Side::Fio),
            Difference::ExitStatus,
            Difference::NotRefused,
            mismatch("timeout", "json+ .jobs[0].read.slat_ns"),
            mismatch("exit-status", "json+ .jobs[0].read.slat_ns"),
            mismatch("expect", "json+ .jobs[0].read.slat_ns"),
        ] {
            let verdict = waived(
                Verdict::Diff(vec![slat.clone(), never.clone()]),
                Check::Run,
                &waivers,
            );
            assert_eq!(verdict, Verdict::Diff(vec![never]), "{verdict:?}");
        }
        // A waiver that covers nothing any more is a difference: the line must go.
        let stale = waived(Verdict::Ok, Check::Run, &waivers);
        assert!(
            matches!(&stale, Verdict::Diff(d) if d[0].kind() == "known-diff-unused"),
            "{stale:?}"
        );
        assert_eq!(waived(Verdict::Ok, Check::Showcmd, &waivers), Verdict::Ok);
        assert_eq!(
            waived(Verdict::NotApplicable, Check::Run, &waivers),
            Verdict::NotApplicable
        );
    }

    fn pair(mode: Mode, fio: i32, rfio: Status) -> RunPair {
        RunPair {
            mode,
            fio: outcome(Status::Exited(fio), ""),
            rfio: outcome(rfio, ""),
        }
    }

    #[test]
    fn expectations_are_checked() {
        let ok = [pair(Mode::ParseOnly, 0, Status::Exited(0))];
        let fails = [pair(Mode::ParseOnly, 0, Status::Exited(1))];
        let panics = [pair(Mode::JsonPlus, 0, Status::Exited(101))];
        assert_eq!(
            with_expectation(Verdict::Ok, &ok, Expect::Ok, true),
            Verdict::Ok
        );
        assert_eq!(
            with_expectation(Verdict::Ok, &fails, Expect::Exit(1), true),
            Verdict::Ok
        );
        let expect = |runs: &[RunPair], expect, decides| match with_expectation(
            Verdict::Ok,
            runs,
            expect,
            decides,
        ) {
            Verdict::Diff(d) => match &d[0] {
                Difference::Mismatch(m) => format!("{}: {} ({})", m.place, m.rfio, m.rule),
                other => format!("{other:?}"),
            },
            other => format!("{other:?}"),
        };
        assert_eq!(
            expect(&fails, Expect::Ok, false),
            "parse-only rfio exit status: exit 1 (rfio exits 0 (`; expect: ok`))"
        );
        assert_eq!(
            expect(&ok, Expect::Exit(1), true),
            "parse-only rfio exit status: exit 0 (rfio exits 1 (`; expect-exit: 1`))"
        );
        // A parse that succeeds is fine for a file whose error only a real run finds...
        assert_eq!(expect(&ok, Expect::Exit(1), false), "Ok");
        // ... but a failure must be the stated one, never a panic.
        assert_eq!(
            expect(&panics, Expect::Exit(1), false),
            "json+ rfio exit status: exit 101 (rfio exits 1 (`; expect-exit: 1`))"
        );
        let crashed = [pair(Mode::JsonPlus, 0, Status::Signaled(11))];
        assert!(expect(&crashed, Expect::Ok, false).contains("killed by signal 11"));
    }

    #[test]
    fn only_timing_differences_are_retried() {
        let late = Difference::mismatch(
            "json-plausible",
            "json+ .x.iops",
            "1",
            "2",
            "iops within 5% (+9.0%)",
        );
        let count = mismatch("json-value", "json+ .x.total_ios");
        assert!(only_timing(&Verdict::Diff(vec![
            late.clone(),
            Difference::More(3)
        ])));
        assert!(!only_timing(&Verdict::Diff(vec![late.clone(), count])));
        assert!(!only_timing(&Verdict::Diff(vec![
            late,
            Difference::Timeout(Side::Fio)
        ])));
        assert!(!only_timing(&Verdict::Ok));
    }

    #[test]
    fn time_limits_grow_with_what_the_job_needs() {
        let mut job = JobFile {
            path: "/j.fio".into(),
            display: "j.fio".into(),
            directives: Directives::default(),
            run: RunMode::ParseOnly,
            expect_errors: Vec::new(),
            known_diffs: Vec::new(),
            expect: None,
            refuses_in: None,
            needs: Duration::ZERO,
        };
        let minimum = Duration::from_secs(60);
        assert_eq!(time_limit(&job, minimum), minimum);
        job.needs = Duration::from_secs(2);
        assert_eq!(time_limit(&job, minimum), minimum);
        job.needs = Duration::from_secs(30);
        assert_eq!(time_limit(&job, minimum), Duration::from_secs(300));
    }
}
