//! The run: the jobs run here, with fio's banner, status line and reports
//! printed around them ([`Printer`]), then the results and the exit
//! status; or `--parse-only`'s and `--showcmd`'s step short of the run.

use std::cell::RefCell;
use std::fs::File;
use std::io::Write;

use super::args::{Args, Format};
use super::printer::Printer;
use super::report::{formats, no_jobs, report_error};
use super::{showcmd, signals, sink, status};
use crate::baseline::{self, beyond::Beyond, Prepared};
use crate::jobfile::subst::Keywords;
use crate::jobfile::Mode;
use crate::output;
use crate::plan;
use crate::run::{Error as RunFailure, Front, Invocation, Outcome};
use crate::stats::RunReport;
use crate::workload::agg::BandwidthLog;

/// Run the jobs of `args` (`beyond.repeat` times); the exit status.
pub(super) fn run(
    args: &Args,
    beyond: &Beyond,
    argv: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    let formats = formats(args);
    let out_file = match output_file(args) {
        Ok(f) => f,
        Err(e) => {
            writeln!(err, "rfio: output file open error: {e}")?;
            return Ok(1);
        }
    };
    let status_file = match &args.status_output {
        Some(path) if !args.parse_only && !args.showcmd => match File::create(path) {
            Ok(f) => Some(f),
            Err(e) => {
                writeln!(err, "rfio: status output file open error: {e}")?;
                return Ok(1);
            }
        },
        _ => None,
    };
    let mut invocation = invocation(args);
    if args.bandwidth_log {
        // fio samples where it computes the status line, and writes the
        // files empty where it does not.
        let eta = super::eta::Settings::new(args, formats.normal, super::eta::stdout_is_tty());
        invocation.bandwidth_log = Some(BandwidthLog {
            sampled: eta.show,
            interval_ms: eta.interval.as_millis() as u64,
        });
    }
    // `--baseline-*` (rfio's own): the work identified before the run; a
    // compare of other work is refused here, nothing run.
    let cmd = baseline::CommandLine {
        job_files: &args.job_files,
        job_options: super::args::job_options(argv),
        argv,
    };
    let baseline = match baseline::prepare(beyond, cmd, &invocation) {
        Ok(b) => b,
        Err(e) => {
            write!(err, "{e}")?;
            return Ok(e.status());
        }
    };
    let mut file_out = out_file.as_ref().map(std::io::BufWriter::new);
    // The report's sink: its first write error is told after the run.
    let unwritten_report = RefCell::new(None);
    let mut sink = sink::Sink {
        inner: match file_out.as_mut() {
            Some(f) => f,
            None => &mut *out,
        },
        error: &unwritten_report,
    };
    let mut watch = Printer {
        args,
        formats,
        dest: match &out_file {
            Some(f) => status::Dest::File(f),
            None => status::Dest::Stdout,
        },
        status_dest: match &status_file {
            Some(f) => status::Dest::File(f),
            None => status::Dest::Stderr,
        },
        out: &mut sink,
        err: &mut *err,
        handlers: None,
        told: false,
        ran_ms: 0,
    };
    let result = crate::run::run_repeated(invocation, beyond.repeat, &mut watch);
    let Printer {
        out: run_out,
        err: run_err,
        told,
        handlers: _handlers,
        ..
    } = watch;
    let ran = Ran {
        args,
        formats,
        told,
        unwritten_report: &unwritten_report,
        baseline,
    };
    match result {
        Ok(Outcome::Parsed) => Ok(0),
        Ok(Outcome::ShowCmd(front)) => showcmd(&front, args.mode, out, err),
        Ok(Outcome::Ran(report)) => ran.finish(&report, run_out, run_err),
        Err(RunFailure::NoJobs { job_sections }) => {
            // fio prints its usage text on stdout, whatever `--output` says.
            no_jobs(job_sections, args.release, out, err)?;
            Ok(1)
        }
        Err(e) => {
            report_error(e, &formats, args, run_out, run_err)?;
            Ok(1)
        }
    }
}

/// The invocation the command line asks for (`--lint`'s too).
pub(super) fn invocation(args: &Args) -> Invocation<'static> {
    Invocation {
        job_files: args.job_files.clone(),
        job_texts: Vec::new(),
        input: plan::Input::from(args),
        keywords: Keywords::from_system(),
        stop: &signals::STOP,
        bandwidth_log: None,
        idle_prof: args.idle_prof,
    }
}

/// The `--output` file, created (none for `--parse-only` and `--showcmd`),
/// and `--debug`'s lines sent to it: the main thread writes the banner and
/// the results through a buffer, the status thread its reports directly
/// (each side flushes before the other writes).
fn output_file(args: &Args) -> std::io::Result<Option<File>> {
    let file = match &args.output {
        Some(path) if !args.parse_only && !args.showcmd => File::create(path)?,
        _ => return Ok(None),
    };
    crate::debug::set_sink(std::os::fd::AsRawFd::as_raw_fd(&file));
    Ok(Some(file))
}

/// What the end of a run that ran needs beside its report.
struct Ran<'a> {
    args: &'a Args,
    formats: output::Formats,
    /// The monitor printed the signal message already.
    told: bool,
    /// The report's sink's first write error (the results' included).
    unwritten_report: &'a RefCell<Option<std::io::Error>>,
    baseline: Option<Prepared>,
}

impl Ran<'_> {
    /// Print the results, the baseline's comparison; the exit status.
    fn finish(
        self,
        report: &RunReport,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> std::io::Result<i32> {
        let (args, formats) = (self.args, self.formats);
        let signaled = signals::received();
        // Where fio puts it when read as fio (before the results, in the
        // file with `--output`); on stderr as rfio, so the output stays
        // what its format says.
        if let (Some(sig), false) = (signaled, self.told) {
            match args.mode {
                Mode::Fio => write!(out, "{}", signals::message(sig))?,
                Mode::Strict => write!(err, "{}", signals::message(sig))?,
            }
        }
        // fio prints these with its report; rfio on stderr, but as fio
        // when reading as fio.
        for notice in output::notices(report) {
            match args.mode {
                Mode::Fio => writeln!(out, "{notice}")?,
                Mode::Strict => writeln!(err, "{notice}")?,
            }
        }
        // `--baseline-compare`: the verdicts go into the report, which
        // every format prints.
        let comparison = self.baseline.as_ref().and_then(|b| b.compare(report));
        let compared;
        let report = match comparison {
            Some(c) => {
                compared = RunReport {
                    baseline: Some(c),
                    ..report.clone()
                };
                &compared
            }
            None => report,
        };
        output::write_results(report, &formats, out)?;
        if args.formats.contains(&Format::Ndjson) {
            let line = output::ndjson::final_line(report, formats.json_plus);
            out.write_all(line.as_bytes())?;
        }
        out.flush()?;
        // Without the normal output on stdout, the verdicts' text goes to
        // stderr too (JSON has them; terse has no room).
        let normal_only = formats.normal
            && !formats.terse
            && !formats.json
            && !args.formats.contains(&Format::Ndjson);
        if let (Some(c), false) = (&report.baseline, normal_only) {
            write!(err, "{}", output::baseline::text(c))?;
        }
        let unwritten = self.tell_unwritten(report, err)?;
        let failed = report
            .jobs
            .iter()
            .filter(|j| j.error != 0 || j.setup_failed)
            .count();
        let regressed = report.baseline.as_ref().is_some_and(|c| c.failed());
        if let Some(b) = self.baseline {
            let whole = failed == 0 && signals::received().is_none();
            if let Err(msg) = b.save(report, whole) {
                write!(err, "{msg}")?;
                if whole {
                    return Ok(1);
                }
            }
        }
        // A signal while the results were written counts too (fio's
        // handler sets its exit value).
        if signals::received().is_some() {
            return Ok(signals::SIGNALED_STATUS);
        }
        if failed == 0 && regressed {
            return Ok(baseline::REGRESSED_STATUS);
        }
        // fio exits with the number of jobs that ended with an error, as
        // a process status (modulo 256).
        match (failed % 256) as i32 {
            0 if unwritten => Ok(1),
            status => Ok(status),
        }
    }

    /// Tell what could not be written (fio ignores it: as fio, so does
    /// rfio); whether anything was.
    fn tell_unwritten(&self, report: &RunReport, err: &mut dyn Write) -> std::io::Result<bool> {
        let mut unwritten = false;
        if self.args.mode == Mode::Strict {
            if let Some(e) = self.unwritten_report.borrow_mut().take() {
                let name = match &self.args.output {
                    Some(path) => crate::diag::show_path(path),
                    None => "standard output".to_string(),
                };
                writeln!(err, "rfio: cannot write the report to {name}: {e}")?;
                unwritten = true;
            }
            for e in report.jobs.iter().filter_map(|j| j.log_error.as_deref()) {
                writeln!(err, "rfio: {e}")?;
                unwritten = true;
            }
        }
        Ok(unwritten)
    }
}

/// `--showcmd`: each job file's jobs as command-line options.
fn showcmd(
    front: &Front,
    mode: Mode,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    let mut status = 0;
    for (idx, file) in front.files.iter().enumerate() {
        let (text, failed) = showcmd::render_file(&front.fe, idx, file.stop);
        write!(out, "{text}")?;
        if failed {
            status = 1;
            break;
        }
    }
    let diags = front.diags();
    if diags.is_empty() {
        return Ok(status);
    }
    // The valid values fio prints are in the command lines already.
    match mode {
        Mode::Fio => write!(err, "{}", super::report::fio_front_errors(front, false).1)?,
        Mode::Strict => write!(err, "{diags}")?,
    }
    Ok(1)
}
