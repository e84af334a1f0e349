//! `--merge-blktrace-only`: fio reads the jobs, merges the blktrace
//! traces of those that set `merge_blktrace_file`, and runs nothing.
//! A merge that fails (an input missing, not a blktrace, cut short, or
//! the output one of the inputs) is reported with what failed and gives
//! exit status 1 (fio 3.33 reports and exits 0); the other jobs still
//! merge. As it adds each job it prints the job's description
//! line (normal output format only); the merges' messages go to stderr.

use std::io::Write;

use crate::jobfile::{load_partial, JobFile};
use crate::output::normal;
use crate::plan;
use crate::workload::iolog::merge;

use super::args::Args;

/// Merge the traces of every job of the command line `args` and its job
/// files; the exit status.
pub(crate) fn merge_only(
    args: &Args,
    normal_output: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    let mut files: Vec<JobFile> = Vec::with_capacity(args.job_files.len());
    for path in &args.job_files {
        match load_partial(path, args.mode) {
            Ok((file, diags)) => {
                write!(err, "{diags}")?;
                files.push(file);
            }
            Err(d) => {
                write!(err, "{d}")?;
                return Ok(1);
            }
        }
    }
    let fe = plan::build(
        plan::Input::from(args),
        &files,
        &crate::jobfile::subst::Keywords::from_system(),
    );
    if !fe.diags.is_empty() {
        write!(err, "{}", fe.diags)?;
        return Ok(1);
    }
    // fio merges once per section, before it makes the section's clones.
    let mut code = 0;
    for job in fe.plan.jobs.iter().filter(|j| j.subjob == 0) {
        if normal_output {
            write!(out, "{}", normal::banners([&job.report]))?;
            out.flush()?;
        }
        let o = &job.iolog;
        if let Some(m) = &o.merge {
            if let Err(e) = merge::merge(&o.read, m) {
                writeln!(err, "{e}")?;
                code = 1;
            }
        }
    }
    Ok(code)
}
