//! How a run's failure and the formats asked for are printed, shared by
//! the local front end and `--server`'s sessions.

use std::io::Write;

use super::args::{ArgErrors, Args, Format};
use super::showcmd;
use super::usage::{program, usage};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::jobfile::Mode;
use crate::options::jobopts::OptionError;
use crate::output::{self, normal};
use crate::plan::{JobSpec, SectionOutcome};
use crate::release::Release;
use crate::run::{Error as RunFailure, Front};
use crate::workload::RunError;

/// Print why the command line is refused: as fio does when reading as fio
/// (`mode`), as rfio does otherwise.
pub(crate) fn arg_errors(
    e: &ArgErrors,
    mode: Mode,
    release: Release,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    match mode {
        Mode::Fio => write!(err, "{}", e.fio_text(&program(), release)),
        Mode::Strict => write!(err, "{e}"),
    }
}

/// What fio prints for one diagnostic, or rfio's line where fio has none.
fn fio_line(d: &Diagnostic) -> String {
    d.kind.fio_text().unwrap_or_else(|| format!("rfio: {d}\n"))
}

/// fio's lines for one option of section `name` that failed.
fn fio_option_error(e: &OptionError, name: &str) -> String {
    let mut d = e.diag.clone();
    d.message = format!("job '{}': {}", crate::diag::visible(name), d.message);
    match e.diag.kind.fio_text() {
        Some(text) => text,
        None => format!("rfio: {d}\n"),
    }
}

/// Where a span is in fio's order of reading: the command line, then
/// each job file in turn.
fn reading_order(front: &Front, s: &Span) -> (usize, u32, u32) {
    match s {
        Span::Arg { index } => (0, *index, 0),
        Span::File { path, line, col } => {
            let file = front.files.iter().position(|f| *f.path == **path);
            (file.map_or(usize::MAX, |i| i + 1), *line, *col)
        }
    }
}

/// The description lines of the jobs fio added before it met the problem
/// at `at` (it adds a job as it starts reading the next section, and
/// describes it in a run with the normal output: `described`).
fn fio_added_before(front: &Front, at: Option<&Span>, described: bool) -> String {
    let Some(at) = at.filter(|_| described) else {
        return String::new();
    };
    let jobs = &front.fe.plan.jobs;
    let before = |j: &&JobSpec| reading_order(front, &j.span) < reading_order(front, at);
    let added = jobs.iter().take_while(before).count();
    normal::banners_within(jobs.iter().map(|j| &j.report), added)
}

/// What fio prints (stdout, stderr) for a front end that failed: it stops
/// at the first problem in its order of reading. A bad value on the
/// command line (read first) is one line; a section of a job file that
/// fails prints each of its bad options, then that the job is dropped; a
/// line the loader refuses stops the file where it is. Before that, in a
/// run with the normal output (`described`), the jobs it added. What fio
/// would not have stopped at is told in rfio's words.
pub(crate) fn fio_front_errors(front: &Front, described: bool) -> (String, String) {
    let fe = &front.fe;
    let failed = |s: &&SectionOutcome| !s.errors.is_empty();
    if let Some(s) = fe.sections.iter().filter(|s| s.file.is_none()).find(failed) {
        let e = &s.errors[0];
        let one = SectionOutcome {
            errors: vec![e.clone()],
            ..s.clone()
        };
        let added = fio_added_before(front, e.diag.span.as_ref(), described);
        return (
            added + &showcmd::valid_values_tables(&one),
            fio_option_error(e, &s.name),
        );
    }
    let mut load = front.load_diags.0.iter();
    for (idx, file) in front.files.iter().enumerate() {
        let sections = fe.sections.iter().filter(|s| s.file == Some(idx));
        for (n, s) in sections.enumerate() {
            if let Some(st) = file.stop {
                let read = n < st.good_sections
                    || (n == st.good_sections && st.partial.is_some_and(|p| p.show_options));
                if !read {
                    break;
                }
            }
            if !s.errors.is_empty() {
                let mut err: String = s
                    .errors
                    .iter()
                    .map(|e| fio_option_error(e, &s.name))
                    .collect();
                err.push_str(&format!("fio: job {} dropped\n", s.name));
                let spans = s.errors.iter().filter_map(|e| e.diag.span.as_ref());
                let first = spans.min_by_key(|at| reading_order(front, at));
                let added = fio_added_before(front, first, described);
                return (added + &showcmd::valid_values_tables(s), err);
            }
        }
        if file.stop.is_some() {
            if let Some(d) = load.next() {
                let added = fio_added_before(front, d.span.as_ref(), described);
                return (added, fio_line(d));
            }
        }
    }
    (String::new(), front.diags().to_string())
}

/// fio's line for the first of `d` (it stops there).
fn fio_first(d: &Diagnostics) -> String {
    d.0.first().map(fio_line).unwrap_or_default()
}

/// No job to run: job sections that make no jobs (numjobs=0) fail without
/// fio's usage text ("error: maximum number of jobs reached."); no job
/// section at all gets it.
pub(crate) fn no_jobs(
    job_sections: bool,
    release: Release,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    if job_sections {
        writeln!(err, "rfio: no job to run: every job section has numjobs=0")
    } else {
        write!(out, "{}", usage(release))?;
        writeln!(err, "No job(s) defined\n")
    }
}

/// Print why a run stopped, as fio does: its valid values, usage text and
/// job descriptions where its output goes (stdout, or the `--output`
/// file), the rest on stderr.
pub(crate) fn report_error(
    e: RunFailure,
    formats: &output::Formats,
    args: &Args,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    let fio = args.mode == Mode::Fio;
    match e {
        RunFailure::Load(d) if fio => write!(err, "{}", fio_first(&d)),
        RunFailure::Invalid(front) if fio => {
            let described = formats.normal && !args.parse_only && !args.showcmd;
            let (stdout, stderr) = fio_front_errors(&front, described);
            write!(out, "{stdout}")?;
            write!(err, "{stderr}")
        }
        RunFailure::Load(d) | RunFailure::Unsupported(d) => write!(err, "{d}"),
        RunFailure::Invalid(front) => {
            // fio prints the valid values of a failed choice option where
            // its output goes.
            if let Some(s) = front.fe.sections.iter().find(|s| !s.errors.is_empty()) {
                write!(out, "{}", showcmd::valid_values_tables(s))?;
            }
            write!(err, "{}", front.diags())
        }
        RunFailure::NoJobs { job_sections } => no_jobs(job_sections, formats.release, out, err),
        RunFailure::Refused {
            front,
            added,
            refusal,
        } => {
            // fio refuses these while it adds the jobs: the description
            // lines of the jobs it added before come out, no banner; with
            // none added, its usage text (not after its own checks of a
            // job, `RunError::Refused`: `--compat=fio`'s `wait_for`).
            let usage_too = added == 0 && !matches!(refusal, RunError::Refused { .. });
            if usage_too {
                write!(out, "{}", usage(formats.release))?;
            } else if formats.normal {
                let jobs = front.fe.plan.jobs.iter().map(|j| &j.report);
                write!(out, "{}", normal::banners_within(jobs, added))?;
            }
            out.flush()?;
            writeln!(err, "{refusal}")?;
            if usage_too {
                writeln!(err, "No job(s) defined\n")?;
            }
            Ok(())
        }
        // Run errors carry fio's own wording ("fio: ...").
        RunFailure::Run(e) => writeln!(err, "{e}"),
        RunFailure::Io(e) => Err(e),
    }
}

/// The output formats asked for (`--output-format`, `--minimal`).
pub fn formats(args: &Args) -> output::Formats {
    let has = |f: Format| args.formats.contains(&f);
    output::Formats {
        normal: args.formats.is_empty() || has(Format::Normal),
        terse: has(Format::Terse),
        json: has(Format::Json) || has(Format::JsonPlus),
        json_plus: has(Format::JsonPlus),
        terse_version: args.terse_version,
        release: args.release,
    }
}
