//! A command line split into its arguments, each with the arguments it
//! spans, read as [`parse`](super::parse) reads it: for `--client`, which
//! needs to know where each option and job file is.

use super::{find_read, HasArg};

/// One argument of a command line, as [`parse`](super::parse) reads it
/// (for `--client`, which needs to know where each option and job file
/// is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg {
    /// A job file (or anything after `--`).
    File(String),
    /// `--`: every later argument is a job file.
    EndOfOptions,
    /// An option by its full name (one of fio's flags, or a job option),
    /// with its value.
    Opt {
        name: &'static str,
        value: Option<String>,
        job: bool,
    },
    /// An option [`parse`](super::parse) refuses (unknown, ambiguous, a
    /// missing value).
    Bad,
}

/// The job options of `argv` (`--bs=4k`), each as written with its value.
pub(crate) fn job_options(argv: &[String]) -> Vec<String> {
    classify(argv, false)
        .into_iter()
        .filter(|(a, _)| matches!(a, Arg::Opt { job: true, .. }))
        .map(|(_, range)| argv[range].join(" "))
        .collect()
}

/// `argv` (without the program name) split into [`Arg`]s, each with the
/// arguments it spans, read as [`parse_called`](super::parse_called)
/// reads them (`called_fio`: the program's name is `fio`).
pub(crate) fn classify(argv: &[String], called_fio: bool) -> Vec<(Arg, std::ops::Range<usize>)> {
    let reading = super::reading::reading_of(argv, called_fio);
    let mut out = Vec::new();
    let mut i = 0;
    let mut only_files = false;
    while i < argv.len() {
        let arg = &argv[i];
        let start = i;
        i += 1;
        if only_files || arg == "-" || !arg.starts_with('-') {
            out.push((Arg::File(arg.clone()), start..i));
            continue;
        }
        if arg == "--" {
            only_files = true;
            out.push((Arg::EndOfOptions, start..i));
            continue;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Ok(opt) = find_read(reading, arg, name, &|_| true) else {
            out.push((Arg::Bad, start..i));
            continue;
        };
        let value = match (opt.has_arg, inline) {
            (HasArg::Required, None) => match argv.get(i) {
                Some(next) => {
                    i += 1;
                    Some(next.clone())
                }
                None => {
                    out.push((Arg::Bad, start..i));
                    continue;
                }
            },
            (_, v) => v,
        };
        out.push((
            Arg::Opt {
                name: opt.name,
                value,
                job: opt.job,
            },
            start..i,
        ));
    }
    out
}
