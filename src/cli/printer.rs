//! What the command prints around a local run's jobs ([`Printer`], the
//! run's [`Watch`]): the banner, the status line and interim reports, the
//! jobs' live messages.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use super::args::{Args, Format};
use super::{eta, signals, status, trigger};
use crate::output::{self, normal};
use crate::plan::Plan;
use crate::run::Watch;
use crate::stats::RunReport;
use crate::workload::{self, RunError};

/// The process's stderr is a terminal: the lint warnings before a run are
/// printed (set by [`super::main`] only, so in-process callers never get them).
pub(super) static LINT_TTY: AtomicBool = AtomicBool::new(false);

/// The jobs' live messages: notes and errors on stdout and stderr, and
/// fio's `Laying out IO file` lines where the normal output goes, as each
/// layout starts (fio's `log_info`, printed only with the normal format).
struct RunLog<'a> {
    dest: status::Dest<'a>,
    normal: bool,
    /// `--compat=fio`: the lines fio prints where its report goes
    /// ([`fio_prints_on_stdout`]) go there too, not to stderr.
    as_fio: bool,
}

/// The live messages fio prints with `log_info`, where its report goes,
/// which rfio prints on stderr to keep its report whole: a job's `fio:
/// pid=N, err=E/...` line, the note that a synchronous engine caps the
/// depth, exec_prerun's `NAME : Saving output of ...`, the note that a
/// file without a size gets no I/O (`fio: file NAME may be ignored`).
fn fio_prints_on_stdout(line: &str) -> bool {
    line.starts_with("fio: pid=")
        || (line.starts_with("fio: file ") && line.ends_with(" may be ignored\n"))
        || line.starts_with("note: both iodepth >= 1 and synchronous I/O engine")
        || line.contains(" : Saving output of ")
}

impl workload::Log for RunLog<'_> {
    fn info(&self, text: &str) {
        workload::StdLog.info(text);
    }

    fn err(&self, text: &str) {
        if !self.as_fio {
            return workload::StdLog.err(text);
        }
        for line in text.split_inclusive('\n') {
            match fio_prints_on_stdout(line) {
                true => self.dest.write(line),
                false => workload::StdLog.err(line),
            }
        }
    }

    fn layout(&self, text: &str) {
        if self.normal {
            self.dest.write(text);
        }
    }
}

/// What the command prints around the jobs: the banner before them, the
/// status line and the interim reports beside them (a monitor thread), the
/// jobs' live messages.
pub(super) struct Printer<'a> {
    pub(super) args: &'a Args,
    pub(super) formats: output::Formats,
    /// Where the status thread writes (stdout or the `--output` file).
    pub(super) dest: status::Dest<'a>,
    /// Where `--status-format=ndjson` lines go (`--status-output`, or
    /// stderr), when the results are in another format.
    pub(super) status_dest: status::Dest<'a>,
    /// Where the banner and the results go.
    pub(super) out: &'a mut dyn Write,
    /// Where fio's warnings go (stderr).
    pub(super) err: &'a mut dyn Write,
    /// SIGINT/SIGTERM stop the jobs, SIGUSR1 asks for a report, from the
    /// banner on.
    pub(super) handlers: Option<signals::Handlers>,
    /// The monitor printed the signal message already.
    pub(super) told: bool,
    /// The time the runs before this one took (`--repeat`), ms: the
    /// `--status-interval` schedule runs on across them.
    pub(super) ran_ms: u64,
}

/// A job's error as fio's `td_verror` words it (`fio: file:init.c:1956,
/// func=job file open, error=...`): a dry run prints it with `log_info`,
/// where the report goes.
fn is_job_error(line: &str) -> bool {
    line.starts_with("fio: file:") && line.contains(", func=")
}

/// fio's notices of the options it ignores (`Option NAME is deprecated`).
fn deprecated_notices(notices: &[crate::plan::Deprecated]) -> String {
    let lines = notices.iter();
    lines
        .map(|d| format!("Option {} is deprecated\n", d.name))
        .collect()
}

/// The description lines of the `jobs` that are `described`, each notice
/// before the line of the job it was read before (a section's notices
/// come before its line, as fio reads a section's options and then adds
/// its jobs).
fn banners_and_notices(
    jobs: &[crate::plan::JobSpec],
    notices: &[crate::plan::Deprecated],
    described: &dyn Fn(usize) -> bool,
) -> String {
    let lines = |from: usize, to: usize| {
        let shown = (from..to)
            .filter(|&i| described(i))
            .map(|i| &jobs[i].report);
        normal::banners(shown)
    };
    let mut out = String::new();
    let mut from = 0;
    for d in notices {
        let to = d.jobs_before.clamp(from, jobs.len());
        out.push_str(&lines(from, to));
        out.push_str(&format!("Option {} is deprecated\n", d.name));
        from = to;
    }
    out.push_str(&lines(from, jobs.len()));
    out
}

impl Watch for Printer<'_> {
    fn warnings(&mut self, lines: &[String]) -> std::io::Result<()> {
        // As fio (not within `--showcmd`'s line, which fio prints it in).
        let fio = self.args.mode == crate::jobfile::Mode::Fio && !self.args.showcmd;
        for line in lines {
            match fio && is_job_error(line) {
                true => writeln!(self.out, "{line}")?,
                false => writeln!(self.err, "{line}")?,
            }
        }
        self.out.flush()?;
        self.err.flush()
    }

    fn deprecated(&mut self, plan: &Plan) -> std::io::Result<()> {
        match self.args.mode {
            // As rfio: a warning each, on stderr (stdout is the report's).
            crate::jobfile::Mode::Strict => {
                for d in &plan.deprecated {
                    writeln!(
                        self.err,
                        "rfio: {}: option '{}' is deprecated: fio ignores it",
                        d.span, d.name
                    )?;
                }
            }
            // As fio, where its output goes: a dry run's now (`--showcmd`
            // prints them in its line), a run's with the banners.
            crate::jobfile::Mode::Fio if self.args.parse_only && !self.args.showcmd => {
                write!(self.out, "{}", deprecated_notices(&plan.deprecated))?;
            }
            crate::jobfile::Mode::Fio => {}
        }
        Ok(())
    }

    fn starting(&mut self, plan: &Plan) -> std::io::Result<()> {
        // rfio's own mode, on a terminal: the lint's findings, one line
        // each (never on stdout, where the report goes).
        if self.args.mode == crate::jobfile::Mode::Strict
            && !self.args.quiet_lint
            && LINT_TTY.load(Ordering::Relaxed)
        {
            for line in crate::lint::warning_lines(&crate::lint::lint(plan, &self.args.lint_allow))
            {
                writeln!(self.err, "{line}")?;
            }
            self.err.flush()?;
        }
        // Installed before `Starting N processes` is printed (as fio), so a
        // signal after that line never loses the report.
        self.handlers = Some(signals::Handlers::install());
        let (own, profile) = plan.jobs.split_at(plan.jobs.len() - plan.profile_jobs);
        let fio = self.args.mode == crate::jobfile::Mode::Fio;
        // Read as fio, the lines fio printed as it read the jobs: its
        // notices, and the description lines of the jobs it added while
        // the output was normal.
        let notices = if fio { &plan.deprecated[..] } else { &[] };
        let normal = self.formats.normal;
        let described = |i: usize| match plan.described.iter().find(|(r, _)| r.contains(&i)) {
            Some((_, d)) if fio => *d,
            _ => normal,
        };
        write!(
            self.out,
            "{}",
            banners_and_notices(own, notices, &described)
        )?;
        if normal {
            // fio prints its version after the jobs it read, if any; a
            // profile's jobs come after, as it adds them to the run.
            if !own.is_empty() {
                writeln!(self.out, "{}", self.args.release.name())?;
            }
            write!(
                self.out,
                "{}{}",
                normal::banners(profile.iter().map(|j| &j.report)),
                normal::starting(plan.jobs.iter().map(|j| &j.report))
            )?;
        }
        self.out.flush()
    }

    fn running(
        &mut self,
        plan: &Plan,
        progress: &workload::Progress,
        jobs: &mut dyn FnMut(&dyn workload::Log) -> Result<RunReport, RunError>,
    ) -> std::io::Result<Result<RunReport, RunError>> {
        let (formats, dest) = (self.formats, self.dest);
        let settings = eta::Settings::new(self.args, formats.normal, eta::stdout_is_tty());
        let all_ndjson = self.args.formats.contains(&Format::Ndjson);
        let ndjson = self.args.status_ndjson || all_ndjson;
        // NDJSON status lines beside results of another format go apart.
        let status_dest = match self.args.status_ndjson && !all_ndjson {
            true => self.status_dest,
            false => dest,
        };
        let reports = status::StatusReports::new(
            plan,
            progress,
            formats,
            status_dest,
            self.args.status_interval_ms,
        )
        .ndjson(ndjson)
        .after(self.ran_ms);
        let run_over = AtomicBool::new(false);
        let triggers = &self.args.triggers;
        let (result, outcome) = std::thread::scope(|s| {
            let (settings, run_over) = (&settings, &run_over);
            let monitor =
                s.spawn(move || eta::monitor(plan, progress, settings, run_over, Some(reports)));
            s.spawn(move || trigger::watch(triggers, progress, &signals::STOP, run_over));
            let result = {
                let _stop = eta::StopOnDrop::new(run_over, monitor.thread().clone());
                let log = RunLog {
                    dest,
                    normal: formats.normal,
                    as_fio: self.args.mode == crate::jobfile::Mode::Fio,
                };
                jobs(&log)
            };
            (result, monitor.join().unwrap_or_default())
        });
        self.told = outcome.told;
        self.ran_ms += progress.origin().elapsed().as_millis() as u64;
        Ok(result)
    }
}
