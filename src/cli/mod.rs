//! The `rfio` command: read the command line and the job files, build the
//! plan, then print, check or run it.

pub(crate) mod args;
pub(crate) mod eta;
pub(crate) mod showcmd;
pub(crate) mod signals;
pub(crate) mod status;

use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::diag::Diagnostics;
use crate::jobfile::subst::Keywords;
use crate::jobfile::{load_partial, JobFile};
use crate::options::{cmdhelp, Support};
use crate::output::{self, normal};
use crate::plan::{build, Frontend};
use crate::workload;
use args::{Action, Args, Format};

/// The fio release whose behaviour rfio reproduces.
pub(crate) const FIO_VERSION: &str = "fio-3.33";

/// Run rfio with `argv` (program name excluded); returns the exit status.
pub fn main() -> i32 {
    signals::default_sigpipe();
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let called_fio = std::env::args_os()
        .next()
        .and_then(|a| Path::new(&a).file_name().map(|n| n == "fio"))
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
    let args = match args::parse(argv) {
        Ok(a) => a,
        Err(d) => {
            write!(err, "{d}")?;
            return Ok(1);
        }
    };
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
        Action::CmdHelp(arg) => return help(cmdhelp::cmdhelp_output(arg.as_deref()), out, err),
        Action::EngHelp(arg) => return help(cmdhelp::enghelp_output(arg.as_deref()), out, err),
    }
    if let Some(flag) = args.unsupported.first() {
        writeln!(
            err,
            "rfio: --{flag} is not supported yet (rfio runs jobs locally only)"
        )?;
        return Ok(1);
    }

    let mut files: Vec<JobFile> = Vec::new();
    let mut load_diags = Diagnostics::default();
    for path in &args.job_files {
        match load_partial(path) {
            Ok((file, diags)) => {
                files.push(file);
                load_diags.extend(diags);
            }
            Err(d) => {
                write!(err, "{d}")?;
                return Ok(1);
            }
        }
    }
    // The process ends right after this call: freeing every job's options
    // one by one (tens of milliseconds for 10,000 jobs) is wasted work.
    let files = std::mem::ManuallyDrop::new(files);
    let fe = std::mem::ManuallyDrop::new(build(&args, &files, &Keywords::from_system()));

    if args.showcmd {
        return showcmd(&fe, &files, &load_diags, out, err);
    }
    // fio prints the valid values of a failed choice option on stdout.
    if let Some(s) = fe.sections.iter().find(|s| !s.errors.is_empty()) {
        write!(out, "{}", showcmd::valid_values_tables(s))?;
    }
    let mut diags = load_diags;
    diags.extend(fe.diags.clone());
    if !diags.is_empty() {
        write!(err, "{diags}")?;
        return Ok(1);
    }
    if args.parse_only {
        return Ok(0);
    }
    if fe.plan.jobs.is_empty() {
        // Job sections that make no jobs (numjobs=0): fio fails without its
        // usage text ("error: maximum number of jobs reached.").
        if fe.sections.iter().any(|s| !s.global) {
            writeln!(err, "rfio: no job to run: every job section has numjobs=0")?;
        } else {
            write!(out, "{}", usage())?;
            writeln!(err, "No job(s) defined\n")?;
        }
        return Ok(1);
    }
    let unsupported = unsupported_options(&fe);
    if !unsupported.is_empty() {
        write!(err, "{unsupported}")?;
        return Ok(1);
    }
    execute(&args, &fe, out, err)
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
    }
}

/// The jobs' live messages: notes and errors on stdout and stderr, and
/// fio's `Laying out IO file` lines where the normal output goes, as each
/// layout starts (fio's `log_info`, printed only with the normal format).
struct RunLog<'a> {
    dest: status::Dest<'a>,
    normal: bool,
}

impl workload::Log for RunLog<'_> {
    fn info(&self, text: &str) {
        workload::StdLog.info(text);
    }

    fn err(&self, text: &str) {
        workload::StdLog.err(text);
    }

    fn layout(&self, text: &str) {
        if self.normal {
            self.dest.write(text);
        }
    }
}

/// Run the plan and print the results in the requested formats.
fn execute(
    args: &Args,
    fe: &Frontend,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    let formats = formats(args);
    // The `--output` file: the main thread writes the banner and the
    // results through a buffer, the status thread its reports directly
    // (each side flushes before the other writes).
    let out_file = match &args.output {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Some(f),
            Err(e) => {
                writeln!(err, "rfio: output file open error: {e}")?;
                return Ok(1);
            }
        },
        None => None,
    };
    let mut file_out;
    let (out, dest): (&mut dyn Write, status::Dest) = match &out_file {
        Some(f) => {
            file_out = std::io::BufWriter::new(f);
            (&mut file_out, status::Dest::File(f))
        }
        None => (out, status::Dest::Stdout),
    };
    // SIGINT/SIGTERM stop the jobs, SIGUSR1 asks for a report; the status
    // line, the reports and the signal message come from a monitor thread
    // writing beside the jobs. Installed before `Starting N processes` is
    // printed (as fio), so a signal after that line never loses the report.
    let _handlers = signals::Handlers::install();
    if let Err((added, refusal)) = workload::refusal_when_added(&fe.plan) {
        // fio refuses these while it adds the jobs: the description lines
        // of the jobs it added before come out, no banner; with none added,
        // its usage text.
        if added == 0 {
            write!(out, "{}", usage())?;
        } else if formats.normal {
            write!(
                out,
                "{}",
                normal::banners_within(fe.plan.jobs.iter().map(|j| &j.report), added)
            )?;
        }
        out.flush()?;
        writeln!(err, "{refusal}")?;
        if added == 0 {
            writeln!(err, "No job(s) defined\n")?;
        }
        return Ok(1);
    }
    if formats.normal {
        write!(
            out,
            "{}{FIO_VERSION}\n{}",
            normal::banners(fe.plan.jobs.iter().map(|j| &j.report)),
            normal::starting(fe.plan.jobs.iter().map(|j| &j.report))
        )?;
    }
    out.flush()?;
    let progress = workload::Progress::new(fe.plan.jobs.len());
    let settings = eta::Settings::new(args, formats.normal, eta::stdout_is_tty());
    let reports =
        status::StatusReports::new(&fe.plan, &progress, formats, dest, args.status_interval_ms);
    let run_over = AtomicBool::new(false);
    let (result, outcome) = std::thread::scope(|s| {
        let (plan, progress, settings, run_over) = (&fe.plan, &progress, &settings, &run_over);
        let monitor =
            s.spawn(move || eta::monitor(plan, progress, settings, run_over, Some(reports)));
        let result = {
            let _stop = eta::StopOnDrop::new(run_over, monitor.thread().clone());
            let log = RunLog {
                dest,
                normal: formats.normal,
            };
            workload::run_with_progress(plan, &log, progress, &signals::STOP)
        };
        (result, monitor.join().unwrap_or_default())
    });
    let told = outcome.told;
    if args.bandwidth_log {
        // fio writes all three files, empty where the status line was not
        // computed.
        let log = outcome.agg.unwrap_or_default();
        if let Err(e) = log.write_to(Path::new(".")) {
            writeln!(err, "fio: failed to write aggregate bandwidth log: {e}")?;
        }
    }
    let signaled = signals::received();
    if let (Some(sig), false) = (signaled, told) {
        write!(out, "{}", signals::message(sig))?;
    }
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            // Run errors carry fio's own wording ("fio: ...").
            writeln!(err, "{e}")?;
            return Ok(1);
        }
    };
    for notice in output::notices(&report) {
        writeln!(err, "{notice}")?;
    }
    output::write_results(&report, &formats, out)?;
    out.flush()?;
    let failed = report.jobs.iter().filter(|j| j.error != 0).count();
    // A signal while the results were written counts too (fio's handler
    // sets its exit value).
    if signals::received().is_some() {
        return Ok(signals::SIGNALED_STATUS);
    }
    // fio exits with the number of jobs that ended with an error, as a
    // process status (modulo 256).
    Ok((failed % 256) as i32)
}

/// Print a help request's output as fio does (stderr first).
fn help(h: cmdhelp::HelpOutput, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
    write!(err, "{}", h.stderr)?;
    write!(out, "{}", h.stdout)?;
    Ok(h.status)
}

fn showcmd(
    fe: &Frontend,
    files: &[JobFile],
    load_diags: &Diagnostics,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    let mut status = 0;
    for (idx, file) in files.iter().enumerate() {
        let (text, failed) = showcmd::render_file(fe, idx, file.stop);
        write!(out, "{text}")?;
        if failed {
            status = 1;
            break;
        }
    }
    let mut diags = load_diags.clone();
    diags.extend(fe.diags.clone());
    write!(err, "{diags}")?;
    if !diags.is_empty() {
        status = 1;
    }
    Ok(status)
}

/// One diagnostic per option setting that rfio cannot execute yet (once,
/// however many `numjobs` clones share it).
fn unsupported_options(fe: &Frontend) -> Diagnostics {
    let mut d = Diagnostics::default();
    let mut seen = std::collections::HashSet::new();
    for job in &fe.plan.jobs {
        for s in job
            .options
            .settings
            .iter()
            .filter(|s| s.def.support == Support::NotYet && !is_default(s))
        {
            if seen.insert((s.span.clone(), s.def.name)) {
                d.push(crate::diag::Diagnostic::at(
                    s.span.clone(),
                    format!(
                        "job '{}': rfio does not support {} yet",
                        job.name, s.def.name
                    ),
                ));
            }
        }
    }
    d
}

/// Whether a setting only restates its option's default
/// (`io_submit_mode=inline`, `fill_device=0`): rfio runs that as fio does
/// even where it cannot run the option's other values.
fn is_default(s: &crate::options::jobopts::Setting) -> bool {
    s.def.default.is_some_and(|d| {
        crate::options::value::parse_value(s.def, Some(d), &Default::default())
            .is_ok_and(|v| v == s.value)
    })
}

/// `--help`.
pub(crate) fn usage() -> String {
    format!(
        "{FIO_VERSION} compatible (rfio {})\n\
rfio [options] [job options] <job file(s)>\n\
  --parse-only\t\tParse options only, don't start any IO\n\
  --output\t\tWrite output to file\n\
  --bandwidth-log\tGenerate aggregate bandwidth logs\n\
  --minimal\t\tMinimal (terse) output\n\
  --output-format=type\tOutput format (terse,json,json+,normal)\n\
  --terse-version=type\tSet terse version output format (default 3, or 2 or 4 or 5)\n\
  --version\t\tPrint version info and exit\n\
  --help\t\tPrint this page\n\
  --cmdhelp=cmd\t\tPrint command help, \"all\" for all of them\n\
  --enghelp=engine\tPrint ioengine help, or list available ioengines\n\
  --enghelp=engine,cmd\tPrint help for an ioengine cmd\n\
  --showcmd\t\tTurn a job file into command line options\n\
  --eta=when\t\tWhen ETA estimate should be printed\n\
            \t\tMay be \"always\", \"never\" or \"auto\"\n\
  --eta-newline=t\tForce a new line for every 't' period passed\n\
  --status-interval=t\tForce full status dump every 't' period passed\n\
  --readonly\t\tTurn on safety read-only checks, preventing writes\n\
  --section=name\tOnly run specified section in job file, multiple sections can be specified\n\
  --warnings-fatal\tFio parser warnings are fatal\n\
  --max-jobs=nr\t\tMaximum number of threads/processes to support\n\
  --aux-path=path\tUse this path for fio state generated files\n\
\n\
rfio reproduces fio, which was written by Jens Axboe <axboe@kernel.dk>\n",
        env!("CARGO_PKG_VERSION")
    )
}
