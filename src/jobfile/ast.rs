//! The syntax tree of a job file: sections of option entries, with the
//! position of every one of them. Includes are already expanded: an entry
//! that came from an included file carries that file's position.

use std::path::Path;
use std::sync::Arc;

use crate::diag::Span;

/// A parsed job file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFile {
    pub path: Arc<Path>,
    pub sections: Vec<Section>,
    /// When the file has errors: where fio would have stopped reading it.
    pub(crate) stop: Option<Stop>,
}

/// Where the first error of a job file is, as fio's `--showcmd` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stop {
    /// Sections read wholly before the first error.
    pub(crate) good_sections: usize,
    /// Set when the error is inside section number `good_sections`.
    pub(crate) partial: Option<Partial>,
}

/// The section the first error is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Partial {
    /// Entries read before the error (the section holds only these).
    pub(crate) kept: usize,
    /// fio still applies and prints them (after a failed `include`).
    pub(crate) show_options: bool,
}

/// `[name]` and the entries below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub(crate) span: Span,
    pub entries: Vec<Entry>,
    /// `--compat=fio`: what fio prints on stderr while reading the
    /// section's lines (a failed `include`), in order.
    pub(crate) warnings: Vec<String>,
    /// `--compat=fio`: an `include` fio could not open (errno and its
    /// text): fio keeps the job and fails it when it runs.
    pub(crate) include_error: Option<(i32, String)>,
}

impl Section {
    pub(crate) fn new(name: String, span: Span) -> Section {
        Section {
            name,
            span,
            entries: Vec::new(),
            warnings: Vec::new(),
            include_error: None,
        }
    }
}

impl Section {
    /// fio treats every section whose name starts with `global` as global.
    pub(crate) fn is_global(&self) -> bool {
        self.name.starts_with("global")
    }
}

/// One `key=value` or bare `key` line, comments and surrounding blanks removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The whole entry as written (what fio quotes in "Bad option <...>").
    pub text: String,
    pub(crate) span: Span,
}

/// Split `key=value` the way fio does: at the first `=`, trimming blanks
/// and control characters at the end of the key only (`bs\x7f=4k` is `bs`).
pub(crate) fn split_entry(text: &str) -> (&str, Option<&str>) {
    // Byte by byte: a name is short, and `=` ASCII.
    match text.bytes().position(|b| b == b'=') {
        Some(at) => (
            super::parser::trim_blank_end(&text[..at]),
            Some(&text[at + 1..]),
        ),
        None => (text, None),
    }
}

impl JobFile {
    /// A plain-text outline of the tree, one line per section and entry
    /// with its position (`line:col`, prefixed by the file name for entries
    /// from included files). The grammar test vectors are written in it.
    pub fn outline(&self) -> String {
        let mut out = String::new();
        for s in &self.sections {
            out.push_str(&format!("[{}] {}\n", s.name, self.position(&s.span)));
            for e in &s.entries {
                out.push_str(&format!("  {} {}\n", e.text, self.position(&e.span)));
            }
        }
        out
    }

    fn position(&self, span: &Span) -> String {
        match span {
            Span::File { path, line, col } if **path == *self.path => format!("{line}:{col}"),
            Span::File { path, line, col } => {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!("{name}:{line}:{col}")
            }
            Span::Arg { index } => format!("arg {index}"),
        }
    }

    /// The tree written back as job-file text (parsing it again gives the
    /// same sections and entries, positions aside).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for s in &self.sections {
            out.push_str(&format!("[{}]\n", s.name));
            for e in &s.entries {
                out.push_str(&e.text);
                out.push('\n');
            }
        }
        out
    }
}

impl Entry {
    /// The file the entry was read from.
    pub fn span_file(&self) -> Option<&Path> {
        match &self.span {
            Span::File { path, .. } => Some(path),
            Span::Arg { .. } => None,
        }
    }
}
