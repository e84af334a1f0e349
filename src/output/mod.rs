//! Output formats: pure functions of a [`crate::stats::RunReport`] and the
//! [`crate::plan::Plan`] it ran (no clock, no global state: the report
//! carries the timestamps).
//!
//! [`render_results`] prints what fio prints after a run in the selected
//! formats, in fio's fixed order: terse, then JSON, then normal.

mod cfmt;
pub mod json;
mod jsonw;
pub mod normal;
pub mod num2str;
pub mod terse;

use crate::plan::spec::Plan;
use crate::stats::{RunReport, Summary};

/// The formats selected with `--output-format` / `--minimal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Formats {
    pub normal: bool,
    pub terse: bool,
    pub json: bool,
    /// JSON+ (implies JSON).
    pub json_plus: bool,
    /// `--terse-version`: 2, 3 (default), 4 or 5.
    pub terse_version: u8,
}

impl Default for Formats {
    fn default() -> Formats {
        Formats {
            normal: true,
            terse: false,
            json: false,
            json_plus: false,
            terse_version: 3,
        }
    }
}

/// Everything fio prints once the jobs have run, in the selected formats:
/// the terse lines, the JSON document, then the normal report. (The file
/// layout lines of the normal format were printed as each layout started.)
pub fn render_results(report: &RunReport, plan: &Plan, formats: &Formats) -> String {
    let summary = Summary::new(&report.jobs);
    let mut out = String::new();
    if formats.terse {
        out.push_str(&terse::render_summary(
            report,
            &summary,
            formats.terse_version,
        ));
    }
    if formats.json || formats.json_plus {
        out.push_str(&json::render_summary(
            report,
            plan,
            &summary,
            formats.json_plus,
        ));
    }
    if formats.normal {
        out.push_str(&normal::results(report, &summary));
    }
    out
}

/// Notices fio prints while summing the jobs (`fio: kb_base differs for
/// jobs in group, ...`). fio writes them on stdout, in the middle of the
/// results; print them on stderr so no output format is polluted.
pub fn notices(report: &RunReport) -> Vec<String> {
    Summary::new(&report.jobs).warnings
}
