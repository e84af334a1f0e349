//! The checks: what each one runs, and how it judges the two outcomes.
//!
//! [`Check`] is the registry: one variant per check, [`Check::ALL`] lists them in report order.
//! To add a check (json, terse, logs, a real run...), add a variant, give it a name and the
//! arguments it passes, and decide in [`Check::compare`] how its outcomes are judged; a check
//! that must look at files the run leaves behind will also need `run` to hand them over before
//! the temporary directory is removed.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::corpus::{Directives, JobFile};
use crate::run::{self, Outcome, Status};

/// One way of running a job file through both binaries and comparing the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// `BIN --showcmd FILE`: stdout byte-identical, same exit status.
    Showcmd,
    /// `BIN --parse-only FILE`: stdout byte-identical, same exit status.
    ParseOnly,
}

impl Check {
    /// Every check, in report order.
    pub(crate) const ALL: [Check; 2] = [Check::Showcmd, Check::ParseOnly];

    /// The name used in `--checks`, the table and the JSON report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Check::Showcmd => "showcmd",
            Check::ParseOnly => "parse-only",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|check| check.name() == name)
    }

    /// The arguments both binaries get for `job` (an absolute path).
    pub(crate) fn args(self, job: &Path) -> Vec<OsString> {
        let flag = match self {
            Check::Showcmd => "--showcmd",
            Check::ParseOnly => "--parse-only",
        };
        vec![OsString::from(flag), job.as_os_str().to_owned()]
    }

    /// Judges the two outcomes of this check. `deliberate` holds the file's
    /// `; conformance:` directives, when they apply.
    ///
    /// stderr is never compared: rfio's error messages deliberately differ from fio's.
    pub(crate) fn compare(self, fio: &Outcome, rfio: &Outcome, deliberate: Directives) -> Verdict {
        match self {
            Check::Showcmd | Check::ParseOnly => compare_exit_and_stdout(fio, rfio, deliberate),
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
    /// They disagree, for these reasons (never empty).
    Diff(Vec<Difference>),
}

impl Verdict {
    /// What the table shows.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Refused => "refused",
            Verdict::Accepted => "accepted",
            Verdict::Diff(_) => "DIFF",
        }
    }

    pub(crate) fn passed(&self) -> bool {
        !matches!(self, Verdict::Diff(_))
    }
}

/// One reason for a `DIFF`. The values themselves are in the two outcomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Difference {
    /// This side did not finish within the time limit and was killed.
    Timeout(Side),
    /// This side could not be started.
    CannotRun(Side),
    /// The exit statuses differ.
    ExitStatus,
    /// stdout differs, first at this byte offset.
    Stdout { offset: usize },
    /// The header says rfio refuses this file and fio exited 0, but rfio did not refuse it
    /// cleanly: it exited 0, panicked (exit 101) or died from a signal.
    NotRefused,
    /// The header says rfio accepts this file and fio rejected it, but rfio did not exit 0.
    NotAccepted,
}

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
        }
    }
}

/// The outcome of one check of one job file.
#[derive(Clone, Debug)]
pub(crate) struct CheckResult {
    pub(crate) check: Check,
    pub(crate) verdict: Verdict,
    pub(crate) fio: Outcome,
    pub(crate) rfio: Outcome,
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
    pub(crate) limit: Duration,
    /// Whether `; conformance:` directives apply. They describe rfio's deliberate differences, so
    /// they do not when "rfio" is fio itself (a self-check of fio and of this tool).
    pub(crate) directives_apply: bool,
}

/// Runs every check on one job file, each run in its own fresh temporary directory.
pub(crate) fn check_file(job: &JobFile, checks: &[Check], bins: &Binaries<'_>) -> FileResult {
    let deliberate = if bins.directives_apply {
        job.directives
    } else {
        Directives::default()
    };
    let results = checks
        .iter()
        .map(|&check| {
            let args = check.args(&job.path);
            let fio = run::run_in_temp_dir(bins.fio, &args, bins.limit);
            let rfio = run::run_in_temp_dir(bins.rfio, &args, bins.limit);
            let verdict = check.compare(&fio, &rfio, deliberate);
            CheckResult {
                check,
                verdict,
                fio,
                rfio,
            }
        })
        .collect();
    FileResult {
        job: job.clone(),
        results,
    }
}

/// Same exit status and byte-identical stdout; with `rfio-refuses`, rfio failing where fio
/// exits 0 is agreement, and with `rfio-accepts`, rfio exiting 0 where fio fails.
fn compare_exit_and_stdout(fio: &Outcome, rfio: &Outcome, deliberate: Directives) -> Verdict {
    let mut differences = unfinished(fio, Side::Fio);
    differences.extend(unfinished(rfio, Side::Rfio));
    if !differences.is_empty() {
        return Verdict::Diff(differences);
    }
    if deliberate.rfio_accepts && fio.status != Status::Exited(0) {
        return if rfio.status == Status::Exited(0) {
            Verdict::Accepted
        } else {
            Verdict::Diff(vec![Difference::NotAccepted])
        };
    }
    if deliberate.rfio_refuses && fio.status == Status::Exited(0) {
        return if is_refusal(&rfio.status) {
            Verdict::Refused
        } else {
            Verdict::Diff(vec![Difference::NotRefused])
        };
    }
    if fio.status != rfio.status {
        differences.push(Difference::ExitStatus);
    }
    if let Some(offset) = first_difference(&fio.stdout, &rfio.stdout) {
        differences.push(Difference::Stdout { offset });
    }
    if differences.is_empty() {
        Verdict::Ok
    } else {
        Verdict::Diff(differences)
    }
}

/// A timeout or a failed start, which makes the rest of the comparison meaningless.
fn unfinished(outcome: &Outcome, side: Side) -> Vec<Difference> {
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
    };

    #[test]
    fn acceptances() {
        let accepts = Directives {
            rfio_refuses: false,
            rfio_accepts: true,
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
}
