//! What goes wrong reading job files: the file itself, a line of it, an
//! expression in a value. Each is a reason a [`crate::diag::Diagnostic`]
//! gives (its kind says which line or file).

use super::loader::{MAX_FILE_BYTES, MAX_LINE};

/// One reason, worded as rfio words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Error {
    /// The file cannot be opened (`errno`, and the system's reason):
    /// fio cannot open it either.
    #[error("{reason}")]
    Open { errno: i32, reason: String },
    /// Opened, but reading it failed.
    #[error("{reason}")]
    Read { reason: String },
    #[error("it is a directory")]
    Directory,
    #[error("it is a device, not a job file")]
    Device,
    #[error("it is larger than {} MiB", MAX_FILE_BYTES >> 20)]
    TooLarge,
    /// A line longer than fio reads (`len` bytes).
    #[error("line is {len} bytes long; fio reads at most {MAX_LINE}")]
    LineTooLong { len: usize },
    /// A NUL byte at column `col` (1-based).
    #[error("line holds a NUL byte at column {col}: this is not a job file")]
    NulByte { col: usize },
    /// A plain number of keyword math (`bc`'s) that is not one.
    #[error("'{0}' is not a number")]
    NotANumber(String),
    /// A number of an expression that does not read (the reader's reason).
    #[error("{0}")]
    Number(String),
    /// Text left over after a whole expression.
    #[error("unexpected '{rest}' in expression '{text}'")]
    Trailing { rest: String, text: String },
    #[error("unexpected '{0}' in expression")]
    Unexpected(char),
    #[error("expression ends early")]
    EndsEarly,
    #[error("missing ')' in expression")]
    MissingParen,
    #[error("expression nests too deeply")]
    TooDeep,
    #[error("arithmetic overflow")]
    Overflow,
    #[error("division by zero")]
    DivisionByZero,
    #[error("negative or huge exponent")]
    BadExponent,
}

impl Error {
    /// A failed open, with its errno.
    pub(crate) fn open(e: &std::io::Error) -> Error {
        match e.raw_os_error() {
            Some(errno) => Error::Open {
                errno,
                reason: crate::diag::io_reason(e),
            },
            None => Error::read(e),
        }
    }

    /// A failed read.
    pub(crate) fn read(e: &std::io::Error) -> Error {
        Error::Read {
            reason: crate::diag::io_reason(e),
        }
    }
}
