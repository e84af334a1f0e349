//! Source positions and diagnostics shared by every front-end stage.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// Where a piece of input came from: a job file (line and column, 1-based)
/// or the command line (argument index, 1-based).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Span {
    File {
        path: Arc<Path>,
        line: u32,
        col: u32,
    },
    Arg {
        index: u32,
    },
}

impl Span {
    pub(crate) fn file(path: &Arc<Path>, line: u32, col: u32) -> Span {
        Span::File {
            path: Arc::clone(path),
            line,
            col,
        }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Span::File { path, line, col } => write!(f, "{}:{line}:{col}", path.display()),
            Span::Arg { index } => write!(f, "command line argument {index}"),
        }
    }
}

/// One problem found in the input, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Option<Span>,
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn at(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            span: Some(span),
            message: message.into(),
        }
    }

    pub(crate) fn bare(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            span: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.span {
            Some(span) => write!(f, "{span}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Every problem found in one pass; never empty when returned as an error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub(crate) fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    /// `Ok(v)` when nothing was reported, else all the diagnostics.
    pub(crate) fn into_result<T>(self, v: T) -> Result<T, Diagnostics> {
        if self.0.is_empty() {
            Ok(v)
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "rfio: {d}")?;
        }
        Ok(())
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}
