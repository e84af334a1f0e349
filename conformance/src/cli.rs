//! Command-line arguments of `rfio-conformance`: what the user asked for, nothing resolved yet.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::registry::Check;

/// The `--help` text.
pub(crate) const USAGE: &str = "\
usage: rfio-conformance [--fio PATH] [--rfio PATH] [--checks LIST] [--examples]
                        [--json FILE] [--quiet] [--timeout SECONDS] [--retries N]
                        [--jobs N] [PATH...]

Runs every job file through real fio and through rfio, side by side, and
compares what the two print, how they exit and what they leave behind.

  PATH               a job file, or a folder: every *.fio in it, recursively, sorted
  --examples         also every /usr/share/doc/fio/examples/*.fio (package fio-examples)
  --fio PATH         the real fio (default: fio on PATH)
  --rfio PATH        the rfio under test (default: the rfio next to this program,
                     else rfio on PATH)
  --checks LIST      comma-separated checks to run (default: all):
                       showcmd     `--showcmd FILE`: stdout byte-identical, same exit status
                       parse-only  `--parse-only FILE`: stdout byte-identical, same exit status
                       run         a real run (json+, then --minimal): exit status, JSON keys
                                   and types, terse layout, deterministic values exact,
                                   timing values plausible, files and logs left behind
                       pipelines   awk on the terse line, jq on the JSON, awk on iops logs
                                   work on both outputs (needs awk and jq)
                     run and pipelines apply to files whose header says
                     `; conformance: run` (see conformance/README.md)
  --json FILE        also write a machine-readable report to FILE
  --quiet            print only the differences and the summary line
  --timeout SECONDS  kill a run that takes longer and report it as a difference (default: 60; a job file
                     with long runtimes gets 10 times what they add up to)
  --retries N        run a check again up to N times when its only differences
                     are timing figures out of tolerance or fio's own timeout
                     (any count or value on an `unsteady` file; default: 2)
  --jobs N           job files compared in parallel (default: number of CPUs)
  --threads PGID     print where each thread of process group PGID waits (gdb's
                     frames when installed), as shown for a run killed for its time
  -h, --help         print this help

A job file whose header has the line `; conformance: rfio-refuses` is one that
fio accepts but rfio deliberately rejects: there, rfio exiting non-zero where
fio exits 0 counts as agreement and shows as `refused`. Other header lines:
`; conformance: run[, timed][, mixed][, tolerance=N][, terse-version=N]`,
`; conformance: skip-run=REASON`, `; expect-error: TEXT` (rfio's stderr must
contain TEXT wherever rfio fails).

Exit status: 0 when fio and rfio agree everywhere, 1 when anything differs,
2 on usage errors or when fio cannot be run.
";

/// Default for `--retries`.
pub(crate) const DEFAULT_RETRIES: u32 = 2;

/// Default for `--timeout`: a fio run that takes longer than this is killed.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The parsed command line.
#[derive(Debug)]
pub(crate) struct Args {
    pub(crate) fio: Option<PathBuf>,
    pub(crate) rfio: Option<PathBuf>,
    /// The checks to run, in the order given, without duplicates.
    pub(crate) checks: Vec<Check>,
    pub(crate) examples: bool,
    pub(crate) json: Option<PathBuf>,
    pub(crate) quiet: bool,
    pub(crate) timeout: Duration,
    /// `--retries`: attempts after the first for timing-only differences.
    pub(crate) retries: u32,
    /// Parallel workers; `None` means one per CPU.
    pub(crate) jobs: Option<usize>,
    pub(crate) paths: Vec<PathBuf>,
}

/// What the command line asks for.
#[derive(Debug)]
pub(crate) enum Command {
    Compare(Args),
    Help,
    /// `--threads PGID`: where the threads of a process group wait (what a run killed for its
    /// time limit shows; the integration tests ask it of theirs).
    Threads(u32),
}

/// Parses the arguments after the program name. The error is a one-line message for the user.
pub(crate) fn parse(argv: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    let mut args = Args {
        fio: None,
        rfio: None,
        checks: Vec::new(),
        examples: false,
        json: None,
        quiet: false,
        timeout: DEFAULT_TIMEOUT,
        retries: DEFAULT_RETRIES,
        jobs: None,
        paths: Vec::new(),
    };
    let mut argv = argv.into_iter();
    let mut only_paths = false;
    while let Some(arg) = argv.next() {
        let text = match arg.to_str() {
            Some(text) if !only_paths && text.starts_with('-') && text != "-" => text,
            _ => {
                args.paths.push(PathBuf::from(arg));
                continue;
            }
        };
        if text == "--" {
            only_paths = true;
            continue;
        }
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) => (name, Some(OsString::from(value))),
            None => (text, None),
        };
        match name {
            "--threads" => {
                let text = utf8_value(name, inline, &mut argv)?;
                return text
                    .parse()
                    .map(Command::Threads)
                    .map_err(|_| format!("--threads needs a process group id, not '{text}'"));
            }
            "-h" | "--help" => {
                no_value(name, &inline)?;
                return Ok(Command::Help);
            }
            "--examples" => {
                no_value(name, &inline)?;
                args.examples = true;
            }
            "--quiet" => {
                no_value(name, &inline)?;
                args.quiet = true;
            }
            "--fio" => args.fio = Some(value(name, inline, &mut argv)?.into()),
            "--rfio" => args.rfio = Some(value(name, inline, &mut argv)?.into()),
            "--json" => args.json = Some(value(name, inline, &mut argv)?.into()),
            "--checks" => {
                for check in parse_checks(&utf8_value(name, inline, &mut argv)?)? {
                    if !args.checks.contains(&check) {
                        args.checks.push(check);
                    }
                }
            }
            "--timeout" => args.timeout = parse_timeout(&utf8_value(name, inline, &mut argv)?)?,
            "--retries" => {
                let text = utf8_value(name, inline, &mut argv)?;
                args.retries = text
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n <= 100)
                    .ok_or_else(|| {
                        format!("--retries needs a number from 0 to 100, not '{text}'")
                    })?;
            }
            "--jobs" => args.jobs = Some(parse_jobs(&utf8_value(name, inline, &mut argv)?)?),
            _ => return Err(format!("unknown option '{text}'")),
        }
    }
    if args.paths.is_empty() && !args.examples {
        return Err("no job files given (pass job files or folders, or --examples)".into());
    }
    if args.checks.is_empty() {
        args.checks = Check::ALL.to_vec();
    }
    Ok(Command::Compare(args))
}

fn no_value(name: &str, inline: &Option<OsString>) -> Result<(), String> {
    match inline {
        Some(_) => Err(format!("option '{name}' takes no value")),
        None => Ok(()),
    }
}

/// The value of `--name=value` or `--name value`.
fn value(
    name: &str,
    inline: Option<OsString>,
    rest: &mut impl Iterator<Item = OsString>,
) -> Result<OsString, String> {
    inline
        .or_else(|| rest.next())
        .ok_or_else(|| format!("option '{name}' needs a value"))
}

fn utf8_value(
    name: &str,
    inline: Option<OsString>,
    rest: &mut impl Iterator<Item = OsString>,
) -> Result<String, String> {
    value(name, inline, rest)?
        .into_string()
        .map_err(|v| format!("option '{name}': value {v:?} is not UTF-8"))
}

/// `showcmd,parse-only` → the checks, in that order.
fn parse_checks(list: &str) -> Result<Vec<Check>, String> {
    list.split(',')
        .map(str::trim)
        .map(|name| {
            Check::from_name(name).ok_or_else(|| {
                let known: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "unknown check '{name}' in --checks (known: {})",
                    known.join(", ")
                )
            })
        })
        .collect()
}

fn parse_timeout(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs < 1e9 => {
            Ok(Duration::from_secs_f64(secs))
        }
        _ => Err(format!(
            "--timeout needs a positive number of seconds, not '{text}'"
        )),
    }
}

fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "--jobs needs a positive whole number, not '{text}'"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from))
    }

    fn compare(args: &[&str]) -> Args {
        match parse_strs(args) {
            Ok(Command::Compare(args)) => args,
            other => panic!("expected a comparison, got {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let args = compare(&["jobs"]);
        assert_eq!(args.paths, [PathBuf::from("jobs")]);
        assert_eq!(args.checks, Check::ALL);
        assert_eq!(args.timeout, DEFAULT_TIMEOUT);
        assert!(args.fio.is_none() && args.rfio.is_none() && !args.quiet && !args.examples);
    }

    #[test]
    fn values_inline_or_separate() {
        let args = compare(&[
            "--fio=/a/fio",
            "--rfio",
            "/b/rfio",
            "--checks",
            "parse-only,showcmd,parse-only",
            "--timeout=1.5",
            "--retries",
            "0",
            "--jobs",
            "3",
            "--json",
            "r.json",
            "--quiet",
            "--examples",
            "--",
            "--odd-name.fio",
        ]);
        assert_eq!(args.fio, Some(PathBuf::from("/a/fio")));
        assert_eq!(args.rfio, Some(PathBuf::from("/b/rfio")));
        assert_eq!(args.checks, [Check::ParseOnly, Check::Showcmd]);
        assert_eq!(args.timeout, Duration::from_millis(1500));
        assert_eq!(args.retries, 0);
        assert_eq!(args.jobs, Some(3));
        assert_eq!(args.json, Some(PathBuf::from("r.json")));
        assert!(args.quiet && args.examples);
        assert_eq!(args.paths, [PathBuf::from("--odd-name.fio")]);
    }

    #[test]
    fn usage_errors() {
        for (args, message) in [
            (&[][..], "no job files given"),
            (&["--nope", "x"][..], "unknown option '--nope'"),
            (&["x", "--fio"][..], "option '--fio' needs a value"),
            (&["x", "--quiet=1"][..], "option '--quiet' takes no value"),
            (&["x", "--checks=json"][..], "unknown check 'json'"),
            (&["x", "--timeout=0"][..], "--timeout needs a positive"),
            (&["x", "--retries=-1"][..], "--retries needs a number"),
            (&["x", "--jobs=none"][..], "--jobs needs a positive"),
        ] {
            let err = parse_strs(args).expect_err("a usage error");
            assert!(err.contains(message), "{args:?}: {err}");
        }
    }

    #[test]
    fn help() {
        assert!(matches!(parse_strs(&["x", "--help"]), Ok(Command::Help)));
    }
}
