//! Checking one job file: every check's runs (each mode once per file, run again when only
//! timing figures miss their tolerance), judged by the check ([`judge`]: the exit statuses and
//! stdout for `showcmd` and `parse-only`, runcheck.rs for `run`, pipelines.rs for
//! `pipelines`), then held against what the file's header states: `; expect-error:`,
//! `; expect:`/`; expect-exit:` and `; known-diff:` lines.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use crate::corpus::{Applies, Expect, JobFile, Waiver};
use crate::registry::{Check, Mode};
use crate::run::{self, Status};
use crate::show::head;
use crate::spec::{Directives, RunMode, RunSpec};
use crate::verdict::{capped, compare_exit_and_stdout, Difference, RunPair, Side, Verdict};
use crate::{pipelines, runcheck};

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
            let spec = match job.applies(check) {
                Applies::Yes(spec) => spec,
                Applies::No => return not_run(check, Verdict::NotApplicable),
                Applies::Skipped(reason) => {
                    return not_run(check, Verdict::Skipped(reason.to_owned()))
                }
            };
            let verdict_of = |runs: &[RunPair]| {
                let mut verdict = judge(check, runs, spec, deliberate);
                if bins.directives_apply {
                    verdict = with_expected_errors(verdict, runs, &job.expect_errors);
                    if let Some(expect) = job.expect {
                        let decides = matches!(check, Check::Run | Check::Pipelines)
                            || job.run == RunMode::ParseOnly;
                        verdict = with_expectation(verdict, runs, expect, decides);
                    }
                    verdict = waived(verdict, check, &job.known_diffs, job.strict_waivers);
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
            let mut verdict = verdict_of(&runs);
            // Timing figures that miss their tolerance may be the machine's load, and fio
            // 3.33 now and then hangs (`io_submit_mode=offload`): both binaries run again,
            // and one attempt within the tolerances passes. Anything else (a count, a
            // value, a layout, rfio timing out) fails at once, but on an `unsteady` file,
            // where fio's own counts vary with the scheduling, counts and values too.
            let unsteady = spec.is_some_and(|spec| spec.unsteady);
            let mut attempts = 1;
            while attempts <= bins.retries && worth_another_attempt(&verdict, unsteady) {
                attempts += 1;
                runs = modes
                    .iter()
                    .map(|&mode| run_both(mode, &job.path, bins))
                    .collect();
                for run in &runs {
                    done.insert(run.mode, run.clone());
                }
                verdict = verdict_of(&runs);
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

/// Judges the runs of `check` (in the order of [`Check::modes`]). `deliberate` holds the file's
/// `; conformance:` directives about rfio's deliberate differences, when they apply.
///
/// stderr is never compared: rfio's error messages deliberately differ from fio's.
pub(crate) fn judge(
    check: Check,
    runs: &[RunPair],
    spec: Option<&RunSpec>,
    deliberate: Directives,
) -> Verdict {
    match check {
        Check::Showcmd | Check::ParseOnly => {
            compare_exit_and_stdout(&runs[0].fio, &runs[0].rfio, deliberate)
        }
        Check::Run => runcheck::judge(runs, &spec.cloned().unwrap_or_default(), deliberate),
        Check::Pipelines => pipelines::judge(runs, &spec.cloned().unwrap_or_default(), deliberate),
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
/// N ...`) or on fio's own hang, which another attempt may clear; on an `unsteady` file, also
/// on counts and values (never on how rfio exits: a panic or a wrong status fails at once).
fn worth_another_attempt(verdict: &Verdict, unsteady: bool) -> bool {
    match verdict {
        Verdict::Diff(differences) => differences.iter().all(|d| {
            matches!(d, Difference::Mismatch(m)
                if m.rule.contains("within ") || m.rule == runcheck::FIO_DID_NOT_FINISH)
                || matches!(d, Difference::Mismatch(m)
                    if unsteady && !m.kind.starts_with("expect"))
                // The statuses differ, but rfio's is the one the header
                // expects (else an `expect` mismatch stops the retry).
                || (unsteady && matches!(d, Difference::ExitStatus))
                || matches!(d, Difference::More(_) | Difference::Timeout(Side::Fio))
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
fn waived(verdict: Verdict, check: Check, waivers: &[Waiver], strict: bool) -> Verdict {
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
    let unused = mine.iter().zip(&used).filter(|(_, used)| !**used);
    for (waiver, _) in unused.filter(|(w, _)| strict || w.release.is_some()) {
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
                head(&run.rfio.stderr, 300),
                format!("must contain {:?} (`; expect-error:`)", text),
            ));
        }
    }
    with_differences(verdict, missing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Outcome;
    use crate::verdict::Side;

    fn outcome(status: Status, stdout: &str) -> Outcome {
        Outcome {
            status,
            stdout: stdout.as_bytes().to_vec(),
            stderr: b"ignored".to_vec(),
            elapsed: Duration::ZERO,
            files: Vec::new(),
            stalled: String::new(),
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
            judge(self, &runs, None, deliberate)
        }
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
            release: None,
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
            waived(
                Verdict::Diff(vec![slat.clone()]),
                Check::Run,
                &waivers,
                true
            ),
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
                &waivers,
                true
            ),
            Verdict::Diff(vec![count.clone()])
        );
        // Another check of the same file is not waived.
        assert_eq!(
            waived(
                Verdict::Diff(vec![slat.clone()]),
                Check::Pipelines,
                &waivers,
                true
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
                true,
            );
            assert_eq!(verdict, Verdict::Diff(vec![never]), "{verdict:?}");
        }
        // A waiver that covers nothing any more is a difference: the line must go.
        let stale = waived(Verdict::Ok, Check::Run, &waivers, true);
        assert!(
            matches!(&stale, Verdict::Diff(d) if d[0].kind() == "known-diff-unused"),
            "{stale:?}"
        );
        assert_eq!(
            waived(Verdict::Ok, Check::Showcmd, &waivers, true),
            Verdict::Ok
        );
        assert_eq!(
            waived(Verdict::NotApplicable, Check::Run, &waivers, true),
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
    fn timing_differences_and_fios_hangs_are_retried() {
        let late = Difference::mismatch(
            "json-plausible",
            "json+ .x.iops",
            "1",
            "2",
            "iops within 5% (+9.0%)",
        );
        let count = mismatch("json-value", "json+ .x.total_ios");
        let again = |d: Vec<Difference>| worth_another_attempt(&Verdict::Diff(d), false);
        assert!(again(vec![late.clone(), Difference::More(3)]));
        assert!(!again(vec![late.clone(), count.clone()]));
        // Where fio's own counts vary (`unsteady`), a count is run again too, but never how
        // rfio exits.
        let unsteady = |d: Vec<Difference>| worth_another_attempt(&Verdict::Diff(d), true);
        assert!(unsteady(vec![late.clone(), count.clone()]));
        let panicked = mismatch("expect", "json+ rfio exit status");
        assert!(!unsteady(vec![count.clone(), panicked.clone()]));
        assert!(!unsteady(vec![Difference::Timeout(Side::Rfio)]));
        // fio failing where rfio exits as expected (a connection reset);
        // rfio exiting otherwise than expected is never run again.
        assert!(unsteady(vec![Difference::ExitStatus, count]));
        assert!(!unsteady(vec![Difference::ExitStatus, panicked]));
        assert!(!again(vec![Difference::ExitStatus]));
        // fio hung (fio 3.33 does, now and then, with offload): run again.
        assert!(again(vec![late.clone(), Difference::Timeout(Side::Fio)]));
        // rfio hung: a difference at once.
        assert!(!again(vec![late.clone(), Difference::Timeout(Side::Rfio)]));
        // fio hung in the terse run (not the main one): run again; both hung: not.
        let fio_hung =
            |rule: &str| Difference::mismatch("timeout", "minimal run", "timeout", "exit 0", rule);
        assert!(again(vec![
            late.clone(),
            fio_hung(runcheck::FIO_DID_NOT_FINISH)
        ]));
        assert!(!again(vec![late, fio_hung("both finish")]));
        assert!(!worth_another_attempt(&Verdict::Ok, true));
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
            strict_waivers: true,
            skipped: None,
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
