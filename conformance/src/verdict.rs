//! What a check finds: the two outcomes of a run ([`RunPair`]), the [`Difference`]s between
//! them and the [`Verdict`] of one check of one job file; and the comparison every check starts
//! with, the exit statuses (with the header's deliberate refusals and acceptances), which for
//! `showcmd` and `parse-only` is the whole check together with stdout.

use crate::registry::Mode;
use crate::run::{Outcome, Status};
use crate::spec::Directives;

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

    #[test]
    fn first_difference_offsets() {
        assert_eq!(first_difference(b"abc", b"abc"), None);
        assert_eq!(first_difference(b"abc", b"abd"), Some(2));
        assert_eq!(first_difference(b"ab", b"abc"), Some(2));
        assert_eq!(first_difference(b"", b"x"), Some(0));
    }
}
