//! How a run's failure and the formats asked for are printed, shared by
//! the local front end and `--server`'s sessions.

use std::io::Write;

use super::args::{Args, Format};
use super::showcmd;
use super::usage::usage;
use crate::output::{self, normal};
use crate::run::Error as RunFailure;
use crate::workload::RunError;

/// No job to run: job sections that make no jobs (numjobs=0) fail without
/// fio's usage text ("error: maximum number of jobs reached."); no job
/// section at all gets it.
pub(crate) fn no_jobs(
    job_sections: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    if job_sections {
        writeln!(err, "rfio: no job to run: every job section has numjobs=0")
    } else {
        write!(out, "{}", usage())?;
        writeln!(err, "No job(s) defined\n")
    }
}

/// Print why a run stopped, as fio does: its valid values, usage text and
/// job descriptions where its output goes (stdout, or the `--output`
/// file), the rest on stderr.
pub(crate) fn report_error(
    e: RunFailure,
    formats: &output::Formats,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    match e {
        RunFailure::Load(d) | RunFailure::Unsupported(d) => write!(err, "{d}"),
        RunFailure::Invalid(front) => {
            // fio prints the valid values of a failed choice option where
            // its output goes.
            if let Some(s) = front.fe.sections.iter().find(|s| !s.errors.is_empty()) {
                write!(out, "{}", showcmd::valid_values_tables(s))?;
            }
            write!(err, "{}", front.diags())
        }
        RunFailure::NoJobs { job_sections } => no_jobs(job_sections, out, err),
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
                write!(out, "{}", usage())?;
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
