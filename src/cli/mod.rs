//! The `rfio` command: read the command line ([`args`]) and do what it
//! asks, one function per action, picked by [`run_inner`]'s match: the
//! run ([`jobs`]: a [`crate::run::Invocation`] handed to [`crate::run`],
//! which loads the job files, builds the plan and runs it, with fio's
//! banner, status line and reports printed around the jobs by
//! [`printer`]), `--showcmd` and `--parse-only` (the run's first steps),
//! the help texts, the self-tests ([`crate::tools`]), `--server` and
//! `--client` ([`crate::remote`]), `--lint`, `rfio plot`.

mod alloc;
pub(crate) mod args;
pub(crate) mod eta;
mod jobs;
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

use crate::baseline::beyond::{self, Beyond};
use crate::options::cmdhelp;
use crate::release::Release;
use crate::remote::{client, server};
use crate::tools;
use args::{Action, Args};
pub use report::formats;
use report::{no_jobs, report_error};
use usage::usage;

/// Run rfio with `argv` (program name excluded); returns the exit status.
pub fn main() -> i32 {
    // The TSC's calibration runs from here to the first job's start.
    crate::workload::anchor_clock();
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

/// Read the command line and do what it asks: one function per action.
fn run_inner(
    argv: &[String],
    called_fio: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    if !called_fio && argv.first().is_some_and(|a| a == "plot") {
        return plot::main(&argv[1..], out, err);
    }
    let args = match args::parse_called(argv, called_fio) {
        Ok(a) => a.called_as(called_fio.then_some(std::ffi::OsStr::new("fio"))),
        Err(e) => {
            let (mode, release) = args::reading_of(argv, called_fio);
            report::arg_errors(&e, mode, release, err)?;
            return Ok(1);
        }
    };
    let Some(args) = with_release(args, called_fio, err)? else {
        return Ok(1);
    };
    // rfio's `--repeat`, `--baseline-*` (fio mode refuses them as fio).
    let beyond = match beyond::read(&args.beyond()) {
        Ok(b) => b,
        Err(crate::baseline::Error::NotFio { arg }) => {
            // As fio's getopt refuses an option it does not know.
            let name = arg.trim_start_matches('-').to_string();
            let e = args::ArgError::Unrecognized {
                arg,
                name,
                suggestion: None,
                loaded: None,
            };
            let text = e.fio_text(&usage::program(), args.release);
            write!(err, "{}", text.unwrap_or_default())?;
            return Ok(1);
        }
        Err(e) => {
            write!(err, "{e}")?;
            return Ok(1);
        }
    };
    if crate::debug::apply(&args.debug, out, err)? {
        return Ok(0);
    }
    match &args.action {
        Action::Run => drive(&args, &beyond, argv, called_fio, out, err),
        Action::Version => version(args.release, called_fio, out),
        Action::Help => {
            write!(out, "{}", usage(args.release))?;
            Ok(0)
        }
        Action::CmdHelp(arg, profile) => {
            let text =
                cmdhelp::profile_cmdhelp_output(args.release, arg.as_deref(), profile.as_deref());
            help(text, out, err)
        }
        Action::EngHelp(arg) => enghelp(args.release, arg.as_deref(), out, err),
        Action::InflateLog(path) => inflate_log(path, out, err),
        Action::Tool(tool) => tools::run(tool, out, err),
    }
}

/// Settle the fio release rfio behaves as (`--compat=fio-3.NN`, else
/// `RFIO_FIO_VERSION`); `None`: refused, and said on `err`.
fn with_release(
    args: Args,
    called_fio: bool,
    err: &mut dyn Write,
) -> std::io::Result<Option<Args>> {
    let (mode, release, chosen) = (args.mode, args.release_asked(), args.release_chosen());
    let args = match args.with_env_release() {
        Ok(a) => a,
        Err(e) => {
            report::arg_errors(&e, mode, release, err)?;
            return Ok(None);
        }
    };
    let runs = args.action == Action::Run && !args.parse_only && !args.showcmd;
    if args.release != Release::V3_33 && chosen && !called_fio && runs {
        // What a later release changed is not all in yet: say so, as rfio,
        // to whoever asked for that release (the default's gaps are in
        // README.md, not on every run's stderr).
        writeln!(
            err,
            "rfio: as {}: that release's options, version and seeding are known; \
             its other changes to behaviour and outputs follow fio 3.33 so far \
             (README: fio releases)",
            args.release
        )?;
    }
    Ok(Some(args))
}

/// The jobs, run here or on servers, or the step short of them that the
/// command line asks for.
fn drive(
    args: &Args,
    beyond: &Beyond,
    argv: &[String],
    called_fio: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    if args.server_session {
        let as_fio = args.mode == crate::jobfile::Mode::Fio;
        return Ok(server::session(
            as_fio,
            args.release,
            args.server_jail.as_deref(),
            err,
        ));
    }
    if let Some(addr) = &args.server {
        return serve(args, addr, out, err);
    }
    if client::wanted(args) {
        return run_client(beyond, argv, called_fio, out, err);
    }
    if args.merge_blktrace_only {
        return merge::merge_only(args, formats(args).normal, out, err);
    }
    if let Some(flag) = args.unsupported.first() {
        return unsupported(args, flag, err);
    }
    if args.lint {
        return lint_only(args, out, err);
    }
    jobs::run(args, beyond, argv, out, err)
}

/// `--version`: the release rfio behaves as.
fn version(release: Release, called_fio: bool, out: &mut dyn Write) -> std::io::Result<i32> {
    let release = release.name();
    if called_fio {
        writeln!(out, "{release}")?;
    } else {
        writeln!(
            out,
            "rfio-{} ({release} compatible)",
            env!("CARGO_PKG_VERSION")
        )?;
    }
    Ok(0)
}

/// `--enghelp[=ENGINE[,OPTION]]`.
fn enghelp(
    release: Release,
    arg: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    if arg.is_none_or(str::is_empty) {
        // The engines rfio runs that the release has (fio lists every
        // engine of its build).
        let names = crate::options::engines::available_of(crate::ioengine::names(), release);
        write!(out, "{}", cmdhelp::enghelp_list_of(names))?;
        return Ok(0);
    }
    help(cmdhelp::enghelp_output_in(release, arg), out, err)
}

/// `--inflate-log=FILE`.
fn inflate_log(path: &Path, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
    match crate::logs::inflate_file(path, out) {
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
    }
}

/// `--server=ADDR`: listen for fio's clients.
fn serve(
    args: &Args,
    addr: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    if args.unsupported.iter().any(|f| f == "client") {
        writeln!(err, "fio: can't be both client and server")?;
        return Ok(1);
    }
    let cfg = server::Config {
        addr: addr.to_string(),
        daemonize: args.daemonize.clone(),
        allow: args.server_allow.clone(),
        jail: args.server_jail.clone(),
        as_fio: args.mode == crate::jobfile::Mode::Fio,
        release: args.release,
    };
    Ok(server::listen(&cfg, out, err))
}

/// `--client=HOST ...`: the jobs run on servers.
fn run_client(
    beyond: &Beyond,
    argv: &[String],
    called_fio: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    // The servers run the jobs once each; a repetition or a baseline
    // there would be silently ignored.
    if beyond.repeat > 1 || beyond.save.is_some() || beyond.compare.is_some() {
        writeln!(
            err,
            "rfio: --repeat and --baseline-* run the jobs here; they do not work with --client"
        )?;
        return Ok(1);
    }
    client::run(argv, called_fio, out, err)
}

/// A flag that only works with `--client` (`--remote-config`).
fn unsupported(args: &Args, flag: &str, err: &mut dyn Write) -> std::io::Result<i32> {
    // `--remote-config` names a job file on a server: without
    // `--client` fio exits 1 and says nothing; rfio says why.
    if args.mode != crate::jobfile::Mode::Fio {
        writeln!(
            err,
            "rfio: --{flag} needs --client (it names a job file on the server)"
        )?;
    }
    Ok(1)
}

/// `--lint`: build the plan and report its methodology problems (exit 0:
/// none, 1: some, 2: the jobs are invalid, reported as a run would).
fn lint_only(args: &Args, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
    let front = match crate::run::plan_only(&jobs::invocation(args)) {
        Ok(front) => front,
        Err(e) => {
            report_error(e, &formats(args), args, out, err)?;
            return Ok(2);
        }
    };
    let plan = &front.fe.plan;
    if plan.jobs.is_empty() {
        let job_sections = front.fe.sections.iter().any(|s| !s.global);
        no_jobs(job_sections, args.release, out, err)?;
        return Ok(2);
    }
    let found = crate::lint::lint(plan, &args.lint_allow);
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
