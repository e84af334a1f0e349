//! Source positions and diagnostics shared by every front-end stage.

use std::borrow::Cow;
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

/// A control character other than TAB: invisible, or worse (ESC and BEL
/// sequences), on a terminal.
fn is_hidden(c: char) -> bool {
    c.is_control() && c != '\t'
}

/// `text` with each control character but TAB written as `\xNN` (or
/// `\u{NNNN}` beyond Latin-1), so that a message quoting input from a job
/// file, a log, a baseline or a peer cannot drive the user's terminal.
/// Borrowed when there is nothing to escape.
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    if !text.contains(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if is_hidden(c) && (c as u32) < 0x100 => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`visible`] for text that is output rather than a quote in a message
/// (a server's TEXT: fio's report made on another machine): line ends kept,
/// every other control character but TAB (ESC, BEL, CR, ...) escaped.
/// Borrowed when there is nothing to escape.
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(visible).collect();
    match lines.iter().all(|l| matches!(l, Cow::Borrowed(_))) {
        true => Cow::Borrowed(text),
        false => Cow::Owned(lines.join("\n")),
    }
}

/// Bytes from outside (a log line, a peer's text) as [`visible`] text:
/// invalid UTF-8 shown as U+FFFD, at most `max` characters, with how much
/// was left out, so that an error never echoes a 64 MiB input whole.
pub(crate) fn quote_bytes(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    quote(&text, max)
}

/// `text` as [`visible`] text of at most `max` characters, with how much
/// was left out.
pub(crate) fn quote(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return visible(text).into_owned();
    }
    let head: String = text.chars().take(max).collect();
    format!("{}... ({} more characters)", visible(&head), total - max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_escapes_terminal_sequences_and_keeps_tabs() {
        assert_eq!(visible("a\tb"), "a\tb");
        assert_eq!(
            visible("file \x1b]0;pwned\x07\x1b[2J"),
            "file \\x1b]0;pwned\\x07\\x1b[2J"
        );
        assert_eq!(visible("nl\nend\u{9b}"), "nl\\x0aend\\x9b");
        assert!(matches!(visible("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn printable_keeps_line_ends_and_tabs_only() {
        assert_eq!(printable("a\tb\nc\n\n"), "a\tb\nc\n\n");
        assert_eq!(
            printable("x\x1b[2J\x07\r\u{9b}y\nz"),
            "x\\x1b[2J\\x07\\x0d\\x9by\nz"
        );
        assert!(matches!(printable("plain\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn quote_caps_what_it_echoes() {
        assert_eq!(quote("abcdef", 3), "abc... (3 more characters)");
        assert_eq!(quote("abc", 3), "abc");
        assert_eq!(quote_bytes(b"\xff\x1b", 10), "\u{fffd}\\x1b");
    }
}
