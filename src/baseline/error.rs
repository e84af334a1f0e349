//! Why `--repeat` or a baseline is refused: the layer's one error. Each
//! text is what rfio prints, whole lines (`rfio: ...` and the newline);
//! [`Error::status`] is the exit status that goes with it.

use std::io;
use std::path::PathBuf;

use super::{FORMAT, REFUSED_STATUS};
use crate::diag::quote;

/// The largest baseline file read (a saved one is a few KiB, plus the job
/// files' text).
pub(crate) const MAX_BYTES: u64 = 16 << 20;

/// How much of a string from the file a message quotes.
pub(crate) const ECHO: usize = 200;

#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// Read as fio reads (called as `fio`): one of rfio's flags, which
    /// fio does not have (`arg` as written). The command line words it
    /// as fio's getopt does.
    #[error("fio: unrecognized option '{arg}'\nfio: unrecognized option '{arg}'\n")]
    NotFio { arg: String },
    #[error("rfio: --repeat={0}: the number of runs must be a whole number, at least 1\n")]
    Repeat(String),
    #[error("rfio: --baseline-threshold={0}: a percentage, at least 0 (e.g. 10 or 2.5)\n")]
    Threshold(String),
    #[error(
        "rfio: --baseline-metrics={text}: '{}' is not a metric (iops, bw, mean, or a percentile: p99, p99.9)\n",
        quote(bad, ECHO)
    )]
    Metrics { text: String, bad: String },
    #[error(
        "rfio: --baseline-save/--baseline-compare need the job file's path, not standard input\n"
    )]
    StandardInput,
    /// A job file that cannot be read to be saved or compared.
    #[error("rfio: failed to read job file {}: {source}\n", path.display())]
    JobFile { path: PathBuf, source: io::Error },
    /// The baseline file (`name`) cannot be opened or read.
    #[error("rfio: baseline {name}: {source}\n")]
    Read { name: String, source: io::Error },
    #[error(
        "rfio: baseline {name}: larger than a baseline can be ({} MiB at most)\n",
        MAX_BYTES >> 20
    )]
    TooLarge { name: String },
    #[error("rfio: baseline {name}: not JSON: {}\n", quote(&source.to_string(), ECHO))]
    NotJson {
        name: String,
        source: serde_json::Error,
    },
    #[error("rfio: baseline {name}: not an rfio baseline (no \"format\": \"{FORMAT}\")\n")]
    NotBaseline { name: String },
    /// A baseline of an earlier format (which compared the job files'
    /// text): saved again, it compares by meaning.
    #[error(
        "rfio: baseline {name}: saved by an earlier rfio (format {format}), which compared \
         the job files' text; save it again with this rfio: {resave}\n"
    )]
    OldFormat {
        name: String,
        format: String,
        resave: String,
    },
    #[error("rfio: baseline {name}: malformed: {}\n", quote(&source.to_string(), ECHO))]
    Malformed {
        name: String,
        source: serde_json::Error,
    },
    /// A field of the baseline out of its range.
    #[error("rfio: baseline {name}: {source}\n")]
    Field { name: String, source: BadField },
    /// The work differs from the baseline's (each difference a line).
    #[error("{}", why.iter().map(|w| format!("rfio: baseline {name}: cannot compare: {w}\n")).collect::<String>())]
    CannotCompare { name: String, why: Vec<String> },
    /// `--baseline-save` after a run that failed or was stopped.
    #[error("rfio: baseline {} not saved: the run did not complete\n", path.display())]
    NotSaved { path: PathBuf },
    #[error("rfio: baseline {}: cannot write: {source}\n", path.display())]
    Write { path: PathBuf, source: io::Error },
}

impl Error {
    /// The exit status: a baseline that cannot be read or used, or work
    /// that differs, is [`REFUSED_STATUS`] (nothing ran); the rest 1.
    pub(crate) fn status(&self) -> i32 {
        match self {
            Error::Read { .. }
            | Error::TooLarge { .. }
            | Error::NotJson { .. }
            | Error::NotBaseline { .. }
            | Error::OldFormat { .. }
            | Error::Malformed { .. }
            | Error::Field { .. }
            | Error::CannotCompare { .. } => REFUSED_STATUS,
            _ => 1,
        }
    }
}

/// A field of a baseline (`field`: its path in the file, `results.runs`)
/// and why its value is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {why}")]
pub(crate) struct BadField {
    pub(crate) field: String,
    pub(crate) why: String,
}
