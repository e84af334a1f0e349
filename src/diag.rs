//! Source positions and diagnostics shared by every front-end stage.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
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
            Span::File { path, line, col } => write!(f, "{}:{line}:{col}", show_path(path)),
            Span::Arg { index } => write!(f, "command line argument {index}"),
        }
    }
}

/// One problem found in the input, with where it is.
///
/// `kind` says what the problem is, for a caller to match and for fio's
/// wording of it ([`Kind::fio_text`]); `message` is rfio's wording: the
/// kind's text, with what later stages add around it (the plan puts the
/// job's name first: `job 'j': ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Option<Span>,
    pub message: String,
    /// Boxed: a diagnostic travels in many `Result`s.
    pub kind: Box<Kind>,
}

impl Diagnostic {
    /// A problem of rfio's own at `span` ([`Kind::Other`]).
    pub(crate) fn at(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Some(span), Kind::Other(message.into()))
    }

    /// A problem of rfio's own, nowhere in particular.
    pub(crate) fn bare(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(None, Kind::Other(message.into()))
    }

    /// `kind` at `span`, worded as its text says.
    pub(crate) fn new(span: Option<Span>, kind: Kind) -> Diagnostic {
        Diagnostic {
            span,
            message: kind.to_string(),
            kind: Box::new(kind),
        }
    }
}

/// What went wrong in the front end (job files, option values): one
/// variant per problem a caller may want to tell apart. `Display` is rfio's
/// wording (where it depends on more than the fields, the layer that found
/// the problem worded it: `why`); [`Kind::fio_text`] is what fio prints for
/// it instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Kind {
    /// rfio's own refusal: fio has no such error (it reads the input its
    /// own way, or fails later), so there is no fio wording.
    #[error("{0}")]
    Other(String),
    /// A job file that cannot be opened or read (`reason`: the system's,
    /// or why rfio will not read it).
    #[error("unable to open '{}' job file: {reason}", show_path(path))]
    MissingFile { path: PathBuf, reason: String },
    /// An option line (`entry`) before the first `[section]`.
    #[error(
        "option '{entry}' is outside of any [section]: put it under [global] or a job section"
    )]
    OutsideSection { entry: String },
    /// An option line after an `include` that failed (read as fio reads):
    /// fio has ended the section at the include.
    #[error(
        "option '{entry}' follows a failed include: fio has ended the section there, so the \
         line is outside of any [section]"
    )]
    AfterFailedInclude { entry: String },
    /// An `include` rfio refuses (a missing file, a cycle, a section in
    /// it, a directory): `why` says what and what fio does.
    #[error("{why}")]
    Include { include: String, why: String },
    /// An option name that no option of the job answers to (`entry`: the
    /// line as written), with rfio's suggestion and fio's (fio measures
    /// the name against its own options, by name only).
    #[error("unknown option '{name}'{}", did_you_mean(suggestion))]
    UnknownOption {
        name: String,
        entry: String,
        suggestion: Option<String>,
        fio_suggestion: Option<String>,
    },
    /// A name that is an option somewhere else (a command-line flag,
    /// another engine's, a later release's): `why` says where. fio, which
    /// does not know it here, says "Bad option" as for any other name.
    #[error("{why}")]
    NotAJobOption {
        name: String,
        entry: String,
        why: String,
        fio_suggestion: Option<String>,
    },
    /// A value `option` refuses (`value`: as applied, `None` when bare):
    /// `why` is rfio's account, `fio` the lines fio prints for it.
    #[error("{why}")]
    BadValue {
        option: String,
        value: Option<String>,
        why: String,
        fio: Vec<String>,
    },
}

fn did_you_mean(s: &Option<String>) -> String {
    match s {
        Some(s) => format!(" (did you mean '{s}'?)"),
        None => String::new(),
    }
}

impl Kind {
    /// What fio prints on stderr for this problem, each line with its
    /// newline; `None` where fio has no such error ([`Kind::Other`]) and
    /// rfio's wording stands.
    pub(crate) fn fio_text(&self) -> Option<String> {
        let bad_option = |entry: &str, suggestion: &Option<String>| {
            let mut t = format!("Bad option <{entry}>\n");
            if let Some(s) = suggestion {
                t.push_str(&format!("Did you mean {s}?\n"));
            }
            t
        };
        match self {
            Kind::Other(_) | Kind::Include { .. } => None,
            Kind::MissingFile { path, .. } => Some(format!(
                "fio: unable to open '{}' job file\n",
                show_path(path)
            )),
            Kind::OutsideSection { entry } | Kind::AfterFailedInclude { entry } => {
                Some(format!("fio: option <{entry}> outside of [] job section\n"))
            }
            Kind::UnknownOption {
                entry,
                fio_suggestion,
                ..
            }
            | Kind::NotAJobOption {
                entry,
                fio_suggestion,
                ..
            } => Some(bad_option(entry, fio_suggestion)),
            Kind::BadValue { fio, .. } if fio.is_empty() => None,
            Kind::BadValue { fio, .. } => Some(fio.iter().map(|l| format!("{l}\n")).collect()),
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

/// The reason an I/O error gives, as the C library's `strerror` says it:
/// its text without Rust's ` (os error N)` tail (fio's messages print the
/// reason alone).
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// A control character other than TAB: invisible, or worse (ESC and BEL
/// sequences), on a terminal; or a byte that is not UTF-8 (see
/// [`text_of_bytes`]).
fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\t') || raw_byte(c).is_some()
}

/// Paths and names are bytes on Linux, and fio uses them as given. The
/// text stages (job files, the command line, option values) carry a byte
/// that is not part of valid UTF-8 as one character of a private-use
/// range, `RAW_BASE + byte` (bytes 0x80 to 0xff: U+10FF80 to U+10FFFF),
/// so that the plan turns the text back into exactly those bytes.
const RAW_BASE: u32 = 0x10_FF00;

/// The byte a character of the raw range stands for.
fn raw_byte(c: char) -> Option<u8> {
    let v = (c as u32).checked_sub(RAW_BASE)?;
    u8::try_from(v).ok().filter(|b| *b >= 0x80)
}

fn push_raw(out: &mut String, bytes: &[u8]) {
    for b in bytes {
        // Only bytes 0x80..=0xff: ASCII is always valid UTF-8.
        out.extend(char::from_u32(RAW_BASE + u32::from(*b)));
    }
}

/// `bytes` as text, losslessly: valid UTF-8 as it is, every other byte
/// (and the bytes of a character of the raw range itself, which would be
/// read back as raw bytes) as a character of the raw range.
/// [`bytes_of_text`] gives the bytes back; [`visible`] shows them as
/// `\xNN`. Borrowed when `bytes` is UTF-8 without such characters.
pub(crate) fn text_of_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        if !carries_bytes(text) {
            return Cow::Borrowed(text);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match raw_byte(c) {
                Some(_) => push_raw(&mut out, c.encode_utf8(&mut [0; 4]).as_bytes()),
                None => out.push(c),
            }
        }
        push_raw(&mut out, chunk.invalid());
    }
    Cow::Owned(out)
}

/// `text` (from [`text_of_bytes`]) stands for bytes that are not UTF-8.
pub(crate) fn carries_bytes(text: &str) -> bool {
    // Each character of the raw range (U+10FF80 to U+10FFFF) starts with
    // the byte 0xF4 in UTF-8: a text without one (found with memchr)
    // carries none, and is not decoded.
    text.as_bytes().contains(&0xF4) && text.chars().any(|c| raw_byte(c).is_some())
}

/// The bytes `text` (from [`text_of_bytes`]) stands for.
pub(crate) fn bytes_of_text(text: &str) -> Cow<'_, [u8]> {
    if !carries_bytes(text) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match raw_byte(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// A command-line argument, a directory entry: [`text_of_bytes`].
pub(crate) fn text_of_os(s: &OsStr) -> Cow<'_, str> {
    text_of_bytes(s.as_bytes())
}

/// The path `text` (from [`text_of_bytes`]) names: exactly the bytes given.
pub(crate) fn path_of_text(text: &str) -> PathBuf {
    PathBuf::from(OsString::from_vec(bytes_of_text(text).into_owned()))
}

/// [`path_of_text`] of a text given whole: the text itself when it
/// stands for no raw bytes (not copied).
pub(crate) fn path_of_string(text: String) -> PathBuf {
    match carries_bytes(&text) {
        false => PathBuf::from(text),
        true => path_of_text(&text),
    }
}

/// `text` for an output that must be UTF-8 (a report): the bytes it stands
/// for, each invalid sequence as U+FFFD.
pub(crate) fn lossy(text: &str) -> Cow<'_, str> {
    match bytes_of_text(text) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()),
    }
}

/// `path` for a message: its bytes as [`visible`] text (a byte that is not
/// UTF-8 as `\xNN`, a control character escaped).
pub(crate) fn show_path(path: &Path) -> String {
    visible(&text_of_os(path.as_os_str())).into_owned()
}

/// `text` with each control character but TAB written as `\xNN` (or
/// `\u{NNNN}` beyond Latin-1), and each byte that is not UTF-8 (see
/// [`text_of_bytes`]) as `\xNN`, so that a message quoting input from a job
/// file, a log, a baseline or a peer cannot drive the user's terminal.
/// Borrowed when there is nothing to escape.
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    if !text.contains(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if let Some(b) = raw_byte(c) {
            out.push_str(&format!("\\x{b:02x}"));
            continue;
        }
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
    fn bytes_that_are_not_utf8_travel_as_text_and_come_back() {
        let raw: &[u8] = b"a\xffb\xc3(\xf4\x8f\xbe\x80\x01";
        let text = text_of_bytes(raw);
        assert_eq!(bytes_of_text(&text).as_ref(), raw);
        // A character of the raw range itself is carried as its bytes.
        let own = "x\u{10ff80}y";
        assert_eq!(
            bytes_of_text(&text_of_bytes(own.as_bytes())),
            own.as_bytes()
        );
        assert_eq!(visible(&text), "a\\xffb\\xc3(\\xf4\\x8f\\xbe\\x80\\x01");
        assert_eq!(lossy(&text_of_bytes(b"a\xffb")), "a\u{fffd}b");
        assert!(matches!(
            text_of_bytes(b"plain \xc3\xa9"),
            Cow::Borrowed("plain \u{e9}")
        ));
        let path = path_of_text(&text_of_bytes(b"d\xffe/f\x1b"));
        assert_eq!(path.as_os_str().as_bytes(), b"d\xffe/f\x1b");
        assert_eq!(show_path(&path), "d\\xffe/f\\x1b");
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

    /// A kind renders rfio's text (the message) and fio's, which a caller
    /// can tell apart by matching the kind.
    #[test]
    fn kinds_word_it_as_rfio_and_as_fio() {
        let at = Span::Arg { index: 2 };
        let d = Diagnostic::new(
            Some(at),
            Kind::UnknownOption {
                name: "iodpeth".into(),
                entry: "iodpeth=4".into(),
                suggestion: Some("iodepth".into()),
                fio_suggestion: Some("iodepth".into()),
            },
        );
        assert_eq!(
            d.to_string(),
            "command line argument 2: unknown option 'iodpeth' (did you mean 'iodepth'?)"
        );
        assert_eq!(
            d.kind.fio_text().as_deref(),
            Some("Bad option <iodpeth=4>\nDid you mean iodepth?\n")
        );
        let outside = Kind::OutsideSection {
            entry: "size=1m".into(),
        };
        assert_eq!(
            outside.fio_text().as_deref(),
            Some("fio: option <size=1m> outside of [] job section\n")
        );
        let missing = Kind::MissingFile {
            path: "j\x1b.fio".into(),
            reason: "No such file or directory".into(),
        };
        assert_eq!(
            missing.to_string(),
            "unable to open 'j\\x1b.fio' job file: No such file or directory"
        );
        assert_eq!(Diagnostic::bare("x").kind.fio_text(), None);
    }

    #[test]
    fn quote_caps_what_it_echoes() {
        assert_eq!(quote("abcdef", 3), "abc... (3 more characters)");
        assert_eq!(quote("abc", 3), "abc");
        assert_eq!(quote_bytes(b"\xff\x1b", 10), "\u{fffd}\\x1b");
    }
}
