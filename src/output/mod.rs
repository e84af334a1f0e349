//! Output formats: pure functions of a [`RunReport`], which carries
//! everything they print (each job's results and report settings, the
//! merged [`crate::stats::Summary`], the timestamps and their time zone):
//! no clock, no global state, no plan or option. Each format writes into an
//! [`std::io::Write`] (`write`), or returns its text (`render`).
//!
//! [`write_results`] prints what fio prints after a run in the selected
//! formats, in fio's fixed order: terse, then JSON, then normal.

pub(crate) mod baseline;
mod blocks;
mod cfmt;
pub(crate) mod client;
pub(crate) mod idle;
pub(crate) mod json;
mod jsonw;
pub(crate) mod ndjson;
pub(crate) mod normal;
pub(crate) mod num2str;
mod repeat;
mod steadystate;
pub(crate) mod terse;

use std::io::{self, Write};

use crate::stats::RunReport;

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
    /// The fio release whose name heads what a client prints (a run's
    /// outputs take theirs from its report).
    pub release: crate::release::Release,
}

impl Default for Formats {
    fn default() -> Formats {
        Formats {
            normal: true,
            terse: false,
            json: false,
            json_plus: false,
            terse_version: 3,
            release: crate::release::Release::DEFAULT,
        }
    }
}

/// Everything fio prints once the jobs have run, in the selected formats:
/// the terse lines, the JSON document, then the normal report. (The file
/// layout lines of the normal format were printed as each layout started.)
pub(crate) fn write_results(
    report: &RunReport,
    formats: &Formats,
    out: &mut dyn Write,
) -> io::Result<()> {
    if formats.terse {
        terse::write(report, formats.terse_version, out)?;
    }
    if formats.json || formats.json_plus {
        json::write(report, formats.json_plus, out)?;
    }
    if formats.normal {
        normal::write_results(report, out)?;
        // `--repeat` (rfio's own): after fio's report.
        if let Some(r) = &report.repeat {
            out.write_all(repeat::normal(r).as_bytes())?;
        }
        // `--baseline-compare` (rfio's own): after them.
        if let Some(c) = &report.baseline {
            write!(out, "\n{}", baseline::text(c))?;
        }
    }
    Ok(())
}

/// [`write_results`] into a string.
pub fn render_results(report: &RunReport, formats: &Formats) -> String {
    written(|out| write_results(report, formats, out))
}

/// What `write` writes, as text (writing into memory cannot fail, and
/// every format writes UTF-8).
pub(crate) fn written(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
    let mut buf: Vec<u8> = Vec::new();
    let _ = write(&mut buf);
    String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Notices fio prints while summing the jobs (`fio: kb_base differs for
/// jobs in group, ...`). fio writes them on stdout, in the middle of the
/// results; print them on stderr so no output format is polluted.
pub fn notices(report: &RunReport) -> &[String] {
    &report.summary.warnings
}
