//! Why the command line is refused: one [`ArgError`] per problem, worded
//! as rfio words it (`Display`, after the argument's position) and as fio
//! does ([`ArgError::fio_text`]: glibc's `getopt_long_only` messages, then
//! fio's own, as fio 3.33 and 3.42 print them).

use std::fmt;

use crate::diag::{Diagnostic, Diagnostics, Kind, Span};
use crate::options::suggest;
use crate::release::{Release, UnknownRelease};

/// One refused argument. `arg` is the argument as written (`--iodpeth=4`),
/// which fio's messages quote.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgError {
    /// No long option is `name` or starts with it.
    #[error("unrecognized option '--{name}'{}", did_you_mean(suggestion))]
    Unrecognized {
        arg: String,
        name: String,
        suggestion: Option<&'static str>,
        /// The ioengine whose options fio's getopt knew at this argument
        /// (fio suggests among them too).
        loaded: Option<String>,
    },
    /// `name` starts several long options (`candidates`, in fio's order).
    #[error(
        "option '--{name}' is ambiguous; possibilities: {}{}",
        candidates.iter().take(8).map(|c| format!("--{c}")).collect::<Vec<_>>().join(" "),
        if candidates.len() > 8 { " ..." } else { "" }
    )]
    Ambiguous {
        arg: String,
        name: String,
        candidates: Vec<&'static str>,
        /// As [`ArgError::Unrecognized`]'s.
        loaded: Option<String>,
    },
    /// `--option=VALUE` for a flag that takes none.
    #[error("option '--{option}' doesn't allow an argument")]
    NoArgumentAllowed { arg: String, option: &'static str },
    /// A flag that needs a value, last on the command line.
    #[error("option '--{option}' requires an argument")]
    RequiresArgument { arg: String, option: &'static str },
    #[error("bad terse version format '{0}' (2, 3, 4 or 5)")]
    TerseVersion(String),
    /// A name of `--output-format` none of fio's (or `ndjson`).
    #[error("invalid output format '{0}' (normal, terse, json, json+, ndjson)")]
    OutputFormat(String),
    /// The time of `--eta-newline`, `--eta-interval` or `--status-interval`.
    #[error("failed parsing --{flag} time '{text}'")]
    BadTime { flag: &'static str, text: String },
    #[error("--{flag} time too short ({min_ms} msec min)")]
    TimeTooShort { flag: &'static str, min_ms: u64 },
    /// `--trigger-timeout`'s time.
    #[error("failed parsing time {0}")]
    TriggerTime(String),
    #[error("invalid status format '{0}' (normal: as --output-format, ndjson)")]
    StatusFormat(String),
    #[error("can't use global as only section")]
    GlobalSection,
    #[error("--latency-log is deprecated. Use per-job latency log options.")]
    LatencyLog,
    /// A negative `--alloc-size` (fio crashes on it).
    #[error("bad --alloc-size value '{0}': the pool size cannot be negative")]
    AllocSize(String),
    /// A value a self-test's flag refuses (`--idle-prof`).
    #[error(transparent)]
    Tool(#[from] crate::tools::Error),
    /// `--compat=fio-3.NN` naming no release rfio can be.
    #[error("--compat={text}: {source}")]
    CompatRelease {
        text: String,
        source: UnknownRelease,
    },
    #[error(
        "--compat={0}: 'fio' reads job files and values as fio does, 'fio-3.NN' as that fio \
         release does (3.33 to 3.42), 'strict' refuses what fio silently misreads"
    )]
    Compat(String),
    #[error("--lint-format={0}: 'text' or 'json'")]
    LintFormat(String),
    /// `--lint-allow=`: a rule rfio does not have (the message names them).
    #[error(transparent)]
    LintAllow(#[from] crate::lint::UnknownRule),
    /// A flag's form that a later release brought, which rfio does not run
    /// yet (`arg` as written).
    #[error("{arg} ({what}) came with fio {}, and rfio does not run it yet", since.number())]
    NotYet {
        arg: String,
        what: &'static str,
        since: Release,
    },
    /// `RFIO_FIO_VERSION` naming no release rfio can be.
    #[error("{}={value}: {source}", crate::release::ENV)]
    Env {
        value: String,
        source: UnknownRelease,
    },
}

fn did_you_mean(s: &Option<&str>) -> String {
    match s {
        Some(h) => format!(" (did you mean '--{h}'?)"),
        None => String::new(),
    }
}

/// The dashes `arg` starts with (`--` or `-`), as glibc repeats them.
fn dashes(arg: &str) -> &str {
    match arg.strip_prefix("--") {
        Some(_) => "--",
        None => "-",
    }
}

impl ArgError {
    /// What fio prints on stderr for this argument (`prog`: the program
    /// name as called, which glibc's messages start with), each line with
    /// its newline; `None` for rfio's own flags and refusals, which fio
    /// does not have.
    pub(crate) fn fio_text(&self, prog: &str, release: Release) -> Option<String> {
        // glibc's line, then fio's `case '?'`: its own line and its guess.
        let getopt = |first: String, arg: &str, loaded: Option<&str>| {
            let mut t = format!("{prog}: {first}\n{prog}: unrecognized option '{arg}'\n");
            if let Some(s) = suggest::fio_closest_long_option(arg, release, loaded) {
                t.push_str(&format!("Did you mean {s}?\n"));
            }
            t
        };
        let line = |l: &str| Some(format!("fio: {l}\n"));
        match self {
            ArgError::Unrecognized { arg, loaded, .. } => Some(getopt(
                format!("unrecognized option '{arg}'"),
                arg,
                loaded.as_deref(),
            )),
            ArgError::Ambiguous {
                arg,
                candidates,
                loaded,
                ..
            } => {
                // fio lists the options it has (not rfio's own), the
                // loaded engine's among them.
                let known = suggest::fio_long_options(release, loaded.as_deref());
                let d = dashes(arg);
                let list: String = candidates
                    .iter()
                    .filter(|c| known.contains(c))
                    .map(|c| format!(" '{d}{c}'"))
                    .collect();
                // Only engines' options (fio knows them after --ioengine).
                let first = match list.is_empty() {
                    true => format!("unrecognized option '{arg}'"),
                    false => format!("option '{arg}' is ambiguous; possibilities:{list}"),
                };
                Some(getopt(first, arg, loaded.as_deref()))
            }
            ArgError::NoArgumentAllowed { arg, option } => Some(getopt(
                format!("option '{}{option}' doesn't allow an argument", dashes(arg)),
                arg,
                None,
            )),
            ArgError::RequiresArgument { arg, option } => Some(getopt(
                format!("option '{}{option}' requires an argument", dashes(arg)),
                arg,
                None,
            )),
            ArgError::TerseVersion(_) => line("bad terse version format"),
            ArgError::OutputFormat(name) => Some(format!(
                "fio: invalid output format {name}\nfio: failed parsing output-format\n"
            )),
            ArgError::BadTime { flag, text } => match *flag {
                "eta-newline" => line(&format!("failed parsing eta time {text}")),
                "eta-interval" => line(&format!("failed parsing eta interval {text}")),
                _ => line(&format!("failed parsing time {text}")),
            },
            ArgError::TimeTooShort { flag, min_ms } => match *flag {
                "eta-newline" => line("eta new line time too short"),
                "eta-interval" => line(&format!("eta interval time too short ({min_ms}msec min)")),
                _ => line("status interval too small"),
            },
            ArgError::TriggerTime(text) => line(&format!("failed parsing time {text}")),
            ArgError::GlobalSection | ArgError::LatencyLog | ArgError::Tool(_) => {
                line(&self.to_string())
            }
            ArgError::StatusFormat(_)
            | ArgError::NotYet { .. }
            | ArgError::AllocSize(_)
            | ArgError::CompatRelease { .. }
            | ArgError::Compat(_)
            | ArgError::LintFormat(_)
            | ArgError::LintAllow(_)
            | ArgError::Env { .. } => None,
        }
    }
}

/// Every refused argument of one command line, each with its position
/// (none for the environment's `RFIO_FIO_VERSION`), in order; never empty
/// when returned as an error. Shown as rfio shows diagnostics (`rfio:
/// command line argument 3: ...`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgErrors(pub Vec<(Option<Span>, ArgError)>);

impl ArgErrors {
    pub(crate) fn push(&mut self, span: Span, e: ArgError) {
        self.0.push((Some(span), e));
    }

    /// What fio prints: it stops at the first refused argument. rfio's
    /// wording (`rfio: ...`) where fio has none.
    pub(crate) fn fio_text(&self, prog: &str, release: Release) -> String {
        match self.0.first() {
            Some((span, e)) => e.fio_text(prog, release).unwrap_or_else(|| {
                let d = Diagnostic::new(span.clone(), Kind::Other(e.to_string()));
                format!("rfio: {d}\n")
            }),
            None => String::new(),
        }
    }
}

impl From<ArgError> for ArgErrors {
    fn from(e: ArgError) -> ArgErrors {
        ArgErrors(vec![(None, e)])
    }
}

impl fmt::Display for ArgErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Diagnostics::from(self.clone()).fmt(f)
    }
}

impl std::error::Error for ArgErrors {}

impl From<ArgErrors> for Diagnostics {
    fn from(e: ArgErrors) -> Diagnostics {
        let each = e.0.into_iter();
        Diagnostics(
            each.map(|(span, e)| Diagnostic::new(span, Kind::Other(e.to_string())))
                .collect(),
        )
    }
}
