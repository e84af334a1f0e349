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
    /// When the file has errors: how many sections came wholly before the
    /// first one (fio stops reading a job file at its first error).
    pub good_sections: Option<usize>,
}

/// `[name]` and the entries below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub span: Span,
    pub entries: Vec<Entry>,
}

impl Section {
    /// fio treats every section whose name starts with `global` as global.
    pub fn is_global(&self) -> bool {
        self.name.starts_with("global")
    }
}

/// One `key=value` or bare `key` line, comments and surrounding blanks removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The whole entry as written (what fio quotes in "Bad option <...>").
    pub text: String,
    pub span: Span,
}

impl Entry {
    /// The option name: the text before the first `=`, trailing blanks removed.
    pub fn key(&self) -> &str {
        split_entry(&self.text).0
    }

    /// The value: everything after the first `=`, leading blanks kept (fio
    /// keeps them), or `None` for a bare option.
    pub fn value(&self) -> Option<&str> {
        split_entry(&self.text).1
    }
}

/// Split `key=value` the way fio does: at the first `=`, trimming blanks at
/// the end of the key only.
pub fn split_entry(text: &str) -> (&str, Option<&str>) {
    match text.split_once('=') {
        Some((k, v)) => (k.trim_end(), Some(v)),
        None => (text, None),
    }
}
