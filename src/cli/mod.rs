//! The `rfio` command: read the command line into an [`Invocation`], hand
//! it to [`crate::run::run`] (which loads the job files, builds the plan
//! and runs it), and print what comes back: fio's banner, status line and
//! reports while the jobs run (a [`Watch`]), then the results or the error.

mod alloc;
pub(crate) mod args;
pub(crate) mod eta;
mod merge;
mod plot;
mod printer;
pub(crate) mod report;
pub(crate) mod showcmd;
pub(crate) mod signals;
mod sink;
pub(crate) mod status;
mod trigger;
pub(crate) mod usage;

use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;

use crate::baseline::{self, beyond};
use crate::jobfile::subst::Keywords;
use crate::options::cmdhelp;
use crate::output;
use crate::plan;
use crate::remote::{client, server};
use crate::run::{Error as RunFailure, Front, Invocation, Outcome};
use crate::tools;
use args::{Action, Args, Format};
use printer::Printer;
pub use report::formats;
use report::{no_jobs, report_error};
use usage::usage;
pub(crate) use usage::FIO_VERSION;

/// Run rfio with `argv` (program name excluded); returns the exit status.
pub fn main() -> i32 {
    signals::default_sigpipe();
    printer::LINT_TTY.store(
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
        Ordering::Relaxed,
    );
    // Bytes that are not UTF-8 (a file name) are carried losslessly.
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| crate::diag::text_of_os(&a).into_owned())
        .collect();
    let argv0 = std::env::args_os().next();
    let called_fio = argv0
        .as_deref()
        .and_then(|a| Path::new(a).file_name().map(|n| n == "fio"))
        .unwrap_or(false);
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let mut out = stdout.lock();
    let mut err = stderr.lock();
    let status = run(&argv, called_fio, &mut out, &mut err);
    let _ = out.flush();
    status
}

/// Everything `main` does, with the output streams passed in.
pub(crate) fn run(
    argv: &[String],
    called_fio: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    match run_inner(argv, called_fio, out, err) {
        Ok(status) => status,
        // A closed stdout (`rfio ... | head`) is not an error for callers
        // in-process; the binary dies of SIGPIPE first, as fio.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(_) => 1,
    }
}

fn run_inner(
    argv: &[String],
    called_fio: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    if !called_fio && argv.first().is_some_and(|a| a == "plot") {
        return plot::main(&argv[1..], out, err);
    }
    let args = match args::parse(argv) {
        Ok(a) => a.called_as(called_fio.then_some(std::ffi::OsStr::new("fio"))),
        Err(d) => {
            write!(err, "{d}")?;
            return Ok(1);
        }
    };
    // rfio's `--repeat`, `--baseline-*` (fio mode refuses them as fio).
    let beyond = match beyond::read(&args) {
        Ok(b) => b,
        Err(msg) => {
            write!(err, "{msg}")?;
            return Ok(1);
        }
    };
    if crate::debug::apply(&args.debug, out, err)? {
        return Ok(0);
    }
    match &args.action {
        Action::Run => {}
        Action::Version => {
            if called_fio {
                writeln!(out, "{FIO_VERSION}")?;
            } else {
                writeln!(
                    out,
                    "rfio-{} ({FIO_VERSION} compatible)",
                    env!("CARGO_PKG_VERSION")
                )?;
            }
            return Ok(0);
        }
        Action::Help => {
            write!(out, "{}", usage())?;
            return Ok(0);
        }
        Action::CmdHelp(arg, profile) => {
            let text = cmdhelp::profile_cmdhelp_output(arg.as_deref(), profile.as_deref());
            return help(text, out, err);
        }
        Action::EngHelp(arg) if arg.as_deref().is_none_or(str::is_empty) => {
            // The engines rfio runs (fio lists every engine of its build).
            write!(
                out,
                "{}",
                cmdhelp::enghelp_list_of(crate::ioengine::names())
            )?;
            return Ok(0);
        }
        Action::EngHelp(arg) => return help(cmdhelp::enghelp_output(arg.as_deref()), out, err),
        Action::InflateLog(path) => {
            return match crate::logs::inflate_file(path, out) {
                Ok(()) => Ok(0),
                // A closed pipe ends rfio as it ends fio (SIGPIPE, or
                // exit 0 in-process); any other write error is reported.
                Err(crate::logs::InflateError::Write(e, _))
                    if e.kind() == std::io::ErrorKind::BrokenPipe =>
                {
                    Err(e)
                }
                Err(e) => {
                    writeln!(err, "{e}")?;
                    if let Some(at) = e.data_error_at() {
                        writeln!(err, "{at}")?;
                    }
                    Ok(e.exit_status())
                }
            };
        }
        Action::Tool(tool) => return tools::run(tool, out, err),
    }
    if args.server_session {
        let as_fio = args.mode == crate::jobfile::Mode::Fio;
        return Ok(server::session(as_fio, args.server_jail.as_deref(), err));
    }
    if let Some(addr) = &args.server {
        if args.unsupported.iter().any(|f| f == "client") {
            writeln!(err, "fio: can't be both client and server")?;
            return Ok(1);
        }
        let cfg = server::Config {
            addr: addr.clone(),
            daemonize: args.daemonize.clone(),
            allow: args.server_allow.clone(),
            jail: args.server_jail.clone(),
            as_fio: args.mode == crate::jobfile::Mode::Fio,
        };
        return Ok(server::listen(&cfg, out, err));
    }
    if client::wanted(&args) {
        // The servers run the jobs once each; a repetition or a baseline
        // there would be silently ignored.
        if beyond.repeat > 1 || beyond.save.is_some() || beyond.compare.is_some() {
            writeln!(
                err,
                "rfio: --repeat and --baseline-* run the jobs here; they do not work with --client"
            )?;
            return Ok(1);
        }
        return client::run(argv, called_fio, out, err);
    }
    if args.merge_blktrace_only {
        return merge::merge_only(&args, formats(&args).normal, out, err);
    }
    if let Some(flag) = args.unsupported.first() {
        // `--remote-config` names a job file on a server: without
        // `--client` fio exits 1 and says nothing; rfio says why.
        if args.mode != crate::jobfile::Mode::Fio {
            writeln!(
                err,
                "rfio: --{flag} needs --client (it names a job file on the server)"
            )?;
        }
        return Ok(1);
    }
    if args.lint {
        return lint_only(&args, out, err);
    }
    let formats = formats(&args);
    // The `--output` file: the main thread writes the banner and the
    // results through a buffer, the status thread its reports directly
    // (each side flushes before the other writes).
    let out_file = match &args.output {
        Some(path) if !args.parse_only && !args.showcmd => match std::fs::File::create(path) {
            Ok(f) => Some(f),
            Err(e) => {
                writeln!(err, "rfio: output file open error: {e}")?;
                return Ok(1);
            }
        },
        _ => None,
    };
    if let Some(f) = &out_file {
        crate::debug::set_sink(std::os::fd::AsRawFd::as_raw_fd(f));
    }
    let invocation = Invocation {
        job_files: args.job_files.clone(),
        job_texts: Vec::new(),
        input: plan::Input::from(&args),
        keywords: Keywords::from_system(),
        stop: &signals::STOP,
    };
    // `--baseline-*` (rfio's own): the work identified before the run; a
    // compare of other work is refused here, nothing run.
    let baseline = match baseline::prepare(&beyond, &args, argv, &invocation) {
        Ok(b) => b,
        Err((status, msg)) => {
            write!(err, "{msg}")?;
            return Ok(status);
        }
    };
    let mut file_out = out_file.as_ref().map(std::io::BufWriter::new);
    // The report's sink: its first write error is told after the run.
    let unwritten_report = std::cell::RefCell::new(None);
    let mut sink = sink::Sink {
        inner: match file_out.as_mut() {
            Some(f) => f,
            None => &mut *out,
        },
        error: &unwritten_report,
    };
    let mut watch = Printer {
        args: &args,
        formats,
        dest: match &out_file {
            Some(f) => status::Dest::File(f),
            None => status::Dest::Stdout,
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
    match result {
        Ok(Outcome::Parsed) => Ok(0),
        Ok(Outcome::ShowCmd(front)) => showcmd(&front, out, err),
        Ok(Outcome::Ran(report)) => {
            let signaled = signals::received();
            if let (Some(sig), false) = (signaled, told) {
                write!(run_out, "{}", signals::message(sig))?;
            }
            // fio prints these with its report; rfio on stderr, but as fio
            // when reading as fio.
            for notice in output::notices(&report) {
                match args.mode {
                    crate::jobfile::Mode::Fio => writeln!(run_out, "{notice}")?,
                    crate::jobfile::Mode::Strict => writeln!(run_err, "{notice}")?,
                }
            }
            output::write_results(&report, &formats, run_out)?;
            if args.formats.contains(&Format::Ndjson) {
                let line = output::ndjson::final_line(&report, formats.json_plus);
                run_out.write_all(line.as_bytes())?;
            }
            run_out.flush()?;
            // What could not be written (fio ignores it: as fio, so does
            // rfio).
            let mut unwritten = false;
            if args.mode == crate::jobfile::Mode::Strict {
                if let Some(e) = unwritten_report.borrow_mut().take() {
                    let name = match &args.output {
                        Some(path) => crate::diag::show_path(path),
                        None => "standard output".to_string(),
                    };
                    writeln!(run_err, "rfio: cannot write the report to {name}: {e}")?;
                    unwritten = true;
                }
                for e in report.jobs.iter().filter_map(|j| j.log_error.as_deref()) {
                    writeln!(run_err, "rfio: {e}")?;
                    unwritten = true;
                }
            }
            let failed = report
                .jobs
                .iter()
                .filter(|j| j.error != 0 || j.setup_failed)
                .count();
            let mut regressed = false;
            if let Some(b) = baseline {
                let whole = failed == 0 && signals::received().is_none();
                let normal_only = formats.normal
                    && !formats.terse
                    && !formats.json
                    && !args.formats.contains(&Format::Ndjson);
                match b.finish(&report, whole, normal_only, run_out, run_err)? {
                    Ok(r) => regressed = r,
                    Err(msg) => {
                        write!(run_err, "{msg}")?;
                        if whole {
                            return Ok(1);
                        }
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
        Err(RunFailure::NoJobs { job_sections }) => {
            // fio prints its usage text on stdout, whatever `--output` says.
            no_jobs(job_sections, out, err)?;
            Ok(1)
        }
        Err(e) => {
            report_error(e, &formats, run_out, run_err)?;
            Ok(1)
        }
    }
}

/// `--lint`: build the plan and report its methodology problems (exit 0:
/// none, 1: some, 2: the jobs are invalid, reported as a run would).
fn lint_only(args: &Args, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
    let invocation = Invocation {
        job_files: args.job_files.clone(),
        job_texts: Vec::new(),
        input: plan::Input::from(args),
        keywords: Keywords::from_system(),
        stop: &signals::STOP,
    };
    let front = match crate::run::plan_only(&invocation) {
        Ok(front) => front,
        Err(e) => {
            report_error(e, &formats(args), out, err)?;
            return Ok(2);
        }
    };
    let plan = &front.fe.plan;
    if plan.jobs.is_empty() {
        no_jobs(front.fe.sections.iter().any(|s| !s.global), out, err)?;
        return Ok(2);
    }
    let found = crate::lint::lint(plan);
    match args.lint_json {
        true => write!(out, "{}", crate::lint::json(&found))?,
        false => write!(out, "{}", crate::lint::text(&found))?,
    }
    Ok(i32::from(!found.is_empty()))
}

/// Print a help request's output as fio does (stderr first).
fn help(h: cmdhelp::HelpOutput, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
    write!(err, "{}", h.stderr)?;
    write!(out, "{}", h.stdout)?;
    Ok(h.status)
}

fn showcmd(front: &Front, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
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
    write!(err, "{diags}")?;
    if !diags.is_empty() {
        status = 1;
    }
    Ok(status)
}
