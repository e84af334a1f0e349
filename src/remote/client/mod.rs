//! `rfio --client=HOST ...`: rfio as fio's client. It sends job files to
//! fio servers (real fio ones, or `rfio --server`), starts them, shows
//! their status line, and prints what they report, as `fio --client`
//! (fio 3.33's client.c) does.
//!
//! - [`argv`]: the command line (which server gets which job files and
//!   options).
//! - [`conn`]: a connection, and the thread reading each server.
//! - [`session`]: the servers and the run loop; [`handle`]: each message.
//! - [`eta`]: the status line summed over the servers.
//! - [`files`]: job files read here, logs written here, files asked for.
//!
//! Beyond fio: rfio speaks a server's wire version when it answers in
//! another one it knows (fio 3.34 to 3.42): it reconnects once in that
//! version. It never writes a log outside the working directory (a log
//! name's directory is dropped, and said on stderr), nor sends a file that
//! is not a verify state of the working directory; it checks every index
//! and length a server sends.
//!
//! fio 3.33's quirks, kept when called as `fio` (or `--compat=fio`), fixed
//! when called as `rfio`:
//! - "All clients" prints its bandwidth without a unit (`BW=16.5Mi
//!   (17.3M)`) and no percentiles (fio copies neither into its sum);
//! - the status line's rates have no unit (`r=53.3M`);
//! - of the job files that follow no `--client` only the first is sent,
//!   and a server with files of its own gets them once per such file;
//! - "All clients" is printed each time the count of blocks is reached
//!   (twice when one server's START comes after another's blocks), and a
//!   server that sent no block takes one, not its own count, off it;
//! - a server without a job file is dropped without a word.
//!
//! Kept in both (they shape what parsers read): several servers' global
//! options in one JSON object (duplicate keys); the expected count of
//! blocks summed over every START (two job files to one server give no
//! "All clients"); TEXT printed as it comes, also inside JSON output.
//! Fixed in both: options are forwarded as `--name=value` (fio forwards
//! the last argument getopt read: `--output-format json` sends only
//! `json`, which a server takes for a job file).

mod argv;
mod conn;
mod eta;
mod files;
mod handle;
mod session;

use std::io::{self, Write};

use crate::cli::args::{self, Eta as EtaMode};
use crate::jobfile::Mode;
use session::{Session, Settings};

/// Whether `args` asks for client mode (a `--client` anywhere).
pub(crate) fn wanted(parsed: &args::Args) -> bool {
    parsed.unsupported.iter().any(|f| f == "client")
}

/// Run as fio's client with `argv` (without the program name); the exit
/// status.
pub(crate) fn run(
    argv: &[String],
    called_fio: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let line = match argv::split(argv, called_fio) {
        Ok(l) => l,
        Err(msg) => {
            writeln!(err, "{msg}")?;
            return Ok(1);
        }
    };
    let local = match args::parse_called(&line.local, called_fio) {
        Ok(a) => a.called_as(called_fio.then_some(std::ffi::OsStr::new("fio"))),
        Err(e) => {
            let (mode, release) = args::reading_of(&line.local, called_fio);
            crate::cli::report::arg_errors(&e, mode, release, err)?;
            return Ok(1);
        }
    };
    let (mode, release) = (local.mode, local.release_asked());
    let local = match local.with_env_release() {
        Ok(a) => a,
        Err(e) => {
            crate::cli::report::arg_errors(&e, mode, release, err)?;
            return Ok(1);
        }
    };
    let as_fio = local.mode == Mode::Fio;
    let settings = Settings {
        formats: crate::cli::report::formats(&local),
        as_fio,
        eta: local.eta != EtaMode::Never,
        eta_interval_ms: local.eta_interval_ms.unwrap_or(1000),
    };
    let plans = argv::job_plan(&line, as_fio);
    let servers = line.servers.into_iter().zip(plans).collect();
    let mut file = match &local.output {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Some(io::BufWriter::new(f)),
            Err(e) => {
                writeln!(
                    err,
                    "fio: output file open error: {}",
                    crate::diag::io_reason(&e)
                )?;
                return Ok(1);
            }
        },
        None => None,
    };
    // fio prints its status line on stdout, the rest where --output says.
    let (log, tty): (&mut dyn Write, Option<&mut dyn Write>) = match file.as_mut() {
        Some(f) => (f, Some(out)),
        None => (out, None),
    };
    let status = Session::new(settings, servers, local.eta_newline_ms, log, tty, err).run()?;
    if let Some(f) = file.as_mut() {
        f.flush()?;
    }
    Ok(status)
}
