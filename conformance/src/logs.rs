//! The log part of the `run` check: every `*.log` file both runs wrote (`write_bw_log`,
//! `write_iops_log`, `write_lat_log`, `write_hist_log`), compared by shape:
//!
//! - the same set of column counts (`time, value, ddir, bs[, offset], prio`: 5 or 6; histogram
//!   rows `time, ddir, bs, bucket...`);
//! - the same set of data directions (the ddir column);
//! - both per-I/O logs (every line has a non-zero block size) or both windowed ones
//!   (`log_avg_msec`: block size 0);
//! - line counts: a per-I/O log has one line per I/O, so the counts are exact (within the
//!   tolerance for `timed` and `mixed` jobs); a windowed log (and a histogram log) may differ by
//!   one window, which is one line per data direction.

use std::collections::BTreeSet;

use crate::judge::{within, Judge};
use crate::spec::RunSpec;

/// How the line counts of fio's and rfio's copy of one log may differ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum LineRule {
    /// Exactly the same (a per-I/O log of a size-bound job, or an empty log).
    Exact,
    /// Within this factor (a per-I/O log of a `timed` or `mixed` job).
    Ratio(f64),
    /// At most this many lines apart: one window, one line per data direction.
    Window(usize),
}

impl LineRule {
    /// Whether `fio` and `rfio` lines satisfy the rule; the error is the rule, explained.
    pub(crate) fn check(self, fio: usize, rfio: usize) -> Result<(), String> {
        match self {
            LineRule::Exact if fio == rfio => Ok(()),
            LineRule::Exact => Err("exactly as many lines".into()),
            LineRule::Ratio(tolerance) => {
                within(fio as f64, rfio as f64, tolerance).map_err(|why| format!("lines {why}"))
            }
            LineRule::Window(lines) if fio.abs_diff(rfio) <= lines => Ok(()),
            LineRule::Window(lines) => Err(format!(
                "within one window of a windowed log ({lines} line{}: one per data direction)",
                if lines == 1 { "" } else { "s" }
            )),
        }
    }
}

/// A log file's lines, split into columns.
pub(crate) struct Log {
    pub(crate) rows: Vec<Vec<String>>,
    histogram: bool,
}

impl Log {
    pub(crate) fn parse(name: &str, contents: &[u8]) -> Log {
        let text = String::from_utf8_lossy(contents);
        Log {
            rows: text
                .lines()
                .map(|line| line.split(',').map(|c| c.trim().to_owned()).collect())
                .collect(),
            histogram: name.contains("_clat_hist."),
        }
    }

    fn columns(&self) -> BTreeSet<usize> {
        self.rows.iter().map(Vec::len).collect()
    }

    /// The values of the data direction column.
    fn directions(&self) -> BTreeSet<&str> {
        let at = if self.histogram { 1 } else { 2 };
        self.rows
            .iter()
            .filter_map(|row| row.get(at).map(String::as_str))
            .collect()
    }

    /// Every line is one I/O (a non-zero block size); `None` for an empty log.
    fn per_io(&self) -> Option<bool> {
        if self.rows.is_empty() {
            return None;
        }
        if self.histogram {
            return Some(false);
        }
        Some(
            self.rows
                .iter()
                .all(|row| row.get(3).is_some_and(|bs| bs != "0")),
        )
    }

    /// How rfio's copy of this log (this being fio's) may differ in line count.
    pub(crate) fn line_rule(&self, spec: &RunSpec) -> LineRule {
        match self.per_io() {
            None => LineRule::Exact,
            Some(true) if spec.timed || spec.mixed => LineRule::Ratio(spec.tolerance.counts),
            Some(true) => LineRule::Exact,
            Some(false) => LineRule::Window(self.directions().len().max(1)),
        }
    }
}

/// Compares fio's and rfio's copy of the log `name` (contents `None`: too large to keep).
pub(crate) fn compare(judge: &mut Judge<'_>, name: &str, fio: Option<&[u8]>, rfio: Option<&[u8]>) {
    let (Some(fio), Some(rfio)) = (fio, rfio) else {
        return;
    };
    let place = format!("files {name}");
    let (f, r) = (Log::parse(name, fio), Log::parse(name, rfio));
    let show = |set: BTreeSet<String>| set.into_iter().collect::<Vec<_>>().join(" ");
    let (fc, rc) = (f.columns(), r.columns());
    if !f.rows.is_empty() && !r.rows.is_empty() && fc != rc {
        judge.push(
            "log-columns",
            place.clone(),
            show(fc.iter().map(|n| format!("{n} columns")).collect()),
            show(rc.iter().map(|n| format!("{n} columns")).collect()),
            "same columns",
        );
    }
    let (fd, rd) = (f.directions(), r.directions());
    if !f.rows.is_empty() && !r.rows.is_empty() && fd != rd {
        judge.push(
            "log-directions",
            place.clone(),
            format!("ddir {}", show(fd.iter().map(|d| d.to_string()).collect())),
            format!("ddir {}", show(rd.iter().map(|d| d.to_string()).collect())),
            "same data directions",
        );
    }
    if let (Some(fp), Some(rp)) = (f.per_io(), r.per_io()) {
        if fp != rp {
            let kind = |per_io: bool| if per_io { "per-I/O" } else { "windowed" };
            judge.push(
                "log-kind",
                place.clone(),
                kind(fp),
                kind(rp),
                "same kind of log",
            );
        }
    }
    if let Err(rule) = f.line_rule(judge.spec).check(f.rows.len(), r.rows.len()) {
        let why = match f.per_io() {
            Some(true) => " (a per-I/O log: one line per I/O)",
            Some(false) => "",
            None => " (fio's is empty)",
        };
        judge.push(
            "log-lines",
            place,
            format!("{} lines", f.rows.len()),
            format!("{} lines", r.rows.len()),
            format!("{rule}{why}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Difference;

    fn compare_logs(spec: &RunSpec, name: &str, fio: &str, rfio: &str) -> Vec<String> {
        let mut judge = Judge::new(spec);
        compare(
            &mut judge,
            name,
            Some(fio.as_bytes()),
            Some(rfio.as_bytes()),
        );
        judge
            .found
            .iter()
            .map(|d| match d {
                Difference::Mismatch(m) => {
                    format!("{}: {} / {} ({})", m.kind, m.fio, m.rfio, m.rule)
                }
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn per_io_logs_count_exactly() {
        let spec = RunSpec::default();
        let fio = "0, 1, 0, 4096, 0\n1, 1, 0, 4096, 0\n";
        assert!(compare_logs(
            &spec,
            "a_iops.1.log",
            fio,
            "0, 1, 0, 4096, 0\n3, 1, 0, 4096, 0\n"
        )
        .is_empty());
        assert_eq!(
            compare_logs(&spec, "a_iops.1.log", fio, "0, 1, 0, 4096, 0\n"),
            ["log-lines: 2 lines / 1 lines (exactly as many lines (a per-I/O log: one line per I/O))"]
        );
        assert_eq!(
            compare_logs(
                &spec,
                "a_iops.1.log",
                fio,
                "0, 1, 0, 4096, 0, 0\n1, 1, 1, 4096, 0, 0\n"
            ),
            [
                "log-columns: 5 columns / 6 columns (same columns)",
                "log-directions: ddir 0 / ddir 0 1 (same data directions)",
            ]
        );
        let timed = RunSpec {
            timed: true,
            ..RunSpec::default()
        };
        assert!(compare_logs(&timed, "a_iops.1.log", fio, "0, 1, 0, 4096, 0\n").is_empty());
        // An empty log must stay empty.
        assert_eq!(
            compare_logs(&timed, "a_slat.1.log", "", "0, 1, 0, 4096, 0\n"),
            ["log-lines: 0 lines / 1 lines (exactly as many lines (fio's is empty))"]
        );
    }

    #[test]
    fn windowed_logs_may_differ_by_one_window() {
        let spec = RunSpec::default();
        let fio = "100, 5, 0, 0, 0\n100, 7, 1, 0, 0\n200, 5, 0, 0, 0\n200, 7, 1, 0, 0\n";
        let two_fewer = "100, 5, 0, 0, 0\n100, 7, 1, 0, 0\n";
        assert!(compare_logs(&spec, "a_bw.1.log", fio, two_fewer).is_empty());
        assert_eq!(
            compare_logs(&spec, "a_bw.1.log", fio, "100, 5, 0, 0, 0\n"),
            [
                "log-directions: ddir 0 1 / ddir 0 (same data directions)",
                "log-lines: 4 lines / 1 lines (within one window of a windowed log (2 lines: one per data direction))",
            ]
        );
        assert_eq!(
            compare_logs(&spec, "a_bw.1.log", fio, "1, 5, 0, 4096, 0\n"),
            [
                "log-directions: ddir 0 1 / ddir 0 (same data directions)",
                "log-kind: windowed / per-I/O (same kind of log)",
                "log-lines: 4 lines / 1 lines (within one window of a windowed log (2 lines: one per data direction))",
            ]
        );
        let hist = "100, 0, 4096, 1, 2, 3\n";
        assert!(compare_logs(&spec, "a_clat_hist.1.log", hist, "").is_empty());
    }
}
