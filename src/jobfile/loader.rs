//! Reading job files from disk: decoding, the line grammar, and `include`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use super::ast::{Entry, JobFile, Partial, Section, Stop};
use super::mode::{Mode, COMPAT_HINT};
use super::parser::{line, trim_blank_end, trim_space_start, Line, LineError};
use super::Error;
use crate::diag::{self, show_path, Diagnostic, Diagnostics, Kind, Span};

/// fio reads lines with `fgets` into an 8192-byte buffer: a longer line is
/// split in two and misread. rfio refuses it instead.
pub(crate) const MAX_LINE: usize = 8191;

/// How deep includes may nest. A cycle is found by the files being read,
/// whatever the depth; this only bounds the recursion (fio itself nests
/// until it runs out of file descriptors, some ten thousand deep).
pub(crate) const MAX_INCLUDE_DEPTH: usize = 1000;

/// Read and parse the job file at `path` (`-` is standard input).
pub fn load(path: &Path) -> Result<JobFile, Diagnostics> {
    let (file, diags) = load_partial(path, Mode::Strict)?;
    diags.into_result(file)
}

/// Read the job file at `path` and parse what can be parsed (see
/// [`parse_partial`]), in `mode`; fails only when the file cannot be read.
pub(crate) fn load_partial(path: &Path, mode: Mode) -> Result<(JobFile, Diagnostics), Diagnostics> {
    let shown: Arc<Path> = Arc::from(path);
    let bytes = if path == Path::new("-") {
        read_limited(std::io::stdin().lock()).map_err(|e| {
            Diagnostic::bare(format!("unable to read job file from standard input: {e}"))
        })?
    } else {
        read_file(path).map_err(|e| {
            let path = path.to_path_buf();
            let reason = e.to_string();
            Diagnostic::new(None, Kind::MissingFile { path, reason })
        })?
    };
    Ok(parse_partial(shown, &bytes, mode))
}

/// Parse job-file text held in memory. `path` names it in diagnostics and
/// anchors relative includes.
pub fn parse_bytes(path: Arc<Path>, bytes: &[u8]) -> Result<JobFile, Diagnostics> {
    let (file, diags) = parse_partial(path, bytes, Mode::Strict);
    diags.into_result(file)
}

/// Parse what can be parsed: the tree (with `stop` set when there were
/// errors) and every problem found.
///
/// In [`Mode::Fio`] the lines fio 3.33 reads its own way are read so:
/// `[job` names a job `jo` (fio drops the last character as if it were
/// the `]`), and an `include` that fails (a missing file, a cycle, a
/// `[section]` inside) is reported with fio's messages and ends the
/// section: the next option line of that section is outside of any
/// section for fio, an error.
pub(crate) fn parse_partial(path: Arc<Path>, bytes: &[u8], mode: Mode) -> (JobFile, Diagnostics) {
    let mut cx = Context {
        diags: Diagnostics::default(),
        stack: Vec::new(),
        read: HashMap::new(),
        read_bytes: 0,
        mode,
    };
    // Room for every section at once: growing the list as it fills would
    // need half as much again, with many sections.
    let headers = bytes
        .split(|b| *b == b'\n')
        .filter(|l| l.trim_ascii_start().starts_with(b"["))
        .count();
    let mut sections: Vec<Section> = Vec::with_capacity(headers);
    cx.stack.push(canonical(&path));
    // fio stops reading a job file at its first error: where that was.
    let mut stop: Option<Stop> = None;
    // After a bad section header its options are skipped, not reported again.
    let mut in_bad_section = false;
    // `--compat=fio`: after a failed include fio has ended the section.
    let mut ended = false;
    let text = job_text(bytes);
    for (span, item) in lines(&path, &text, mode) {
        let had_errors = !cx.diags.is_empty();
        let kept = sections.last().map(|s| s.entries.len());
        let is_include = matches!(item, Ok(Line::Include { .. }));
        // fio names a job after a header it cannot read (`[job`: `jo`).
        let (item, fio_header) = match item {
            Err(bad) if mode.is_fio() && bad.fio_section_name().is_some() => {
                let name = bad.fio_section_name().map(str::to_string);
                (Ok(Line::Blank), name)
            }
            item => (item, None),
        };
        let mut after_failed_include = false;
        if let Some(name) = fio_header {
            in_bad_section = false;
            ended = false;
            if let Some(done) = sections.last_mut() {
                done.entries.shrink_to_fit();
            }
            sections.push(Section::new(name, span.clone()));
        }
        match item {
            Err(bad) => {
                in_bad_section |= bad.is_section_header();
                cx.diags.push(Diagnostic::at(span, bad.to_string()))
            }
            Ok(Line::Blank) => {}
            Ok(Line::Option { .. } | Line::Include { .. }) if in_bad_section => {}
            Ok(Line::Option { text } | Line::Include { path: text }) if ended => {
                let text = if is_include {
                    format!("include {text}")
                } else {
                    text.to_string()
                };
                after_failed_include = true;
                let entry = text;
                cx.diags.push(Diagnostic::new(
                    Some(span),
                    Kind::AfterFailedInclude { entry },
                ));
            }
            Ok(Line::Section { name }) => {
                in_bad_section = false;
                ended = false;
                if let Some(done) = sections.last_mut() {
                    done.entries.shrink_to_fit();
                }
                sections.push(Section::new(name.to_string(), span))
            }
            Ok(Line::Include { path: inc }) => match sections.last_mut() {
                Some(section) => {
                    let inc = inc.to_string();
                    if let Err(FailedInclude(shown)) = cx.include(&path, &inc, span, section, 1) {
                        section
                            .warnings
                            .push(format!("Error 1 while parsing include file {shown}"));
                        ended = true;
                    }
                }
                None => cx.outside_section(span, &format!("include {inc}")),
            },
            Ok(Line::Option { text }) => match sections.last_mut() {
                Some(section) => section.entries.push(Entry {
                    text: text.to_string(),
                    span,
                }),
                None => cx.outside_section(span, text),
            },
        }
        if stop.is_none() && !had_errors && !cx.diags.is_empty() {
            stop = Some(match kept {
                // fio added the job before it met the line.
                _ if after_failed_include => Stop {
                    good_sections: sections.len(),
                    partial: None,
                },
                // A bad line inside a section: fio drops that section, or
                // for a failed include keeps the options read before it.
                Some(kept) if !in_bad_section => Stop {
                    good_sections: sections.len() - 1,
                    partial: Some(Partial {
                        kept,
                        show_options: is_include,
                    }),
                },
                _ => Stop {
                    good_sections: sections.len(),
                    partial: None,
                },
            });
        }
    }
    if let Some(Stop {
        good_sections,
        partial: Some(p),
    }) = &stop
    {
        sections[*good_sections].entries.truncate(p.kept);
    }
    // A control character or a byte that is not UTF-8 in a line quoted
    // would be invisible, or worse, on a terminal.
    for d in &mut cx.diags.0 {
        if let Cow::Owned(shown) = diag::visible(&d.message) {
            d.message = shown;
        }
    }
    (
        JobFile {
            path,
            sections,
            stop,
        },
        cx.diags,
    )
}

/// The text of a job file (a UTF-8 byte-order mark dropped). fio reads
/// any bytes: those that are not UTF-8 (a file name) are carried as text
/// that gives them back ([`diag::text_of_bytes`]).
fn job_text(bytes: &[u8]) -> Cow<'_, str> {
    diag::text_of_bytes(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
}

/// Classify each line of `text` (from [`job_text`]), as they are read (a
/// job file of many short lines would need much more memory for them all
/// at once). Read as fio reads (`mode`), a line with no option name
/// (`=4`) or a control character first is an option, as fio takes it,
/// which the options refuse as fio does ("Bad option").
fn lines<'a>(
    path: &'a Arc<Path>,
    text: &'a str,
    mode: Mode,
) -> impl Iterator<Item = (Span, Result<Line<'a>, BadLine>)> + 'a {
    // What every line is checked for, looked for in the whole text once: a
    // text without a NUL or a raw byte needs no line's bytes worked out.
    let plain = !text.as_bytes().contains(&0) && !diag::carries_bytes(text);
    split_lines(text).enumerate().map(move |(idx, raw)| {
        let lineno = idx as u32 + 1;
        let checked = match plain && raw.len() <= MAX_LINE {
            true => Ok(raw),
            false => check_line(raw),
        };
        match checked {
            Ok(text) => {
                let col = 1 + (text.len() - trim_space_start(text).len()) as u32;
                let span = Span::file(path, lineno, col);
                let item = match line(text) {
                    Err(LineError::MissingOptionName | LineError::ControlCharacter { .. })
                        if mode.is_fio() =>
                    {
                        Ok(Line::Option {
                            text: fio_option_text(text),
                        })
                    }
                    item => item.map_err(BadLine::Syntax),
                };
                (span, item)
            }
            Err(msg) => (Span::file(path, lineno, 1), Err(BadLine::NotText(msg))),
        }
    })
}

/// `text.split('\n')`, byte by byte (most lines are short: searching each
/// with memchr cost more than the line).
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.bytes().position(|b| b == b'\n') {
            Some(at) => {
                rest = Some(&r[at + 1..]);
                Some(&r[..at])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

struct Context {
    diags: Diagnostics,
    /// Canonical paths of the files being read, outermost first.
    stack: Vec<PathBuf>,
    /// Regular files included so far, by the including file and the name
    /// given: a file included many times is found and read once.
    read: HashMap<(PathBuf, String), Rc<Included>>,
    /// Bytes held in `read` (at most [`MAX_FILE_BYTES`]; past that files
    /// are read again each time).
    read_bytes: usize,
    mode: Mode,
}

/// An included file, read.
struct Included {
    path: Arc<Path>,
    canonical: PathBuf,
    bytes: Vec<u8>,
}

impl Context {
    fn outside_section(&mut self, span: Span, text: &str) {
        let entry = text.to_string();
        self.diags
            .push(Diagnostic::new(Some(span), Kind::OutsideSection { entry }));
    }

    /// Refuse `include inc` at `span`: `why`.
    fn refuse_include(&mut self, span: Span, inc: &str, why: String) {
        let include = inc.to_string();
        self.diags
            .push(Diagnostic::new(Some(span), Kind::Include { include, why }));
    }

    /// Expand `include inc` (found in `from`) into `section`'s entries.
    ///
    /// Strictly, every problem is an error and the rest is read. In
    /// [`Mode::Fio`] a problem fio survives is a failure, as in fio: the
    /// file's warnings go to the section, an open error is kept for the
    /// job, the lines after the failure are not read, and `Err` names the
    /// file (each file on the way up prints `Error 1 while parsing include
    /// file NAME`). A `[section]` inside drops the whole file.
    fn include(
        &mut self,
        from: &Path,
        inc: &str,
        span: Span,
        section: &mut Section,
        depth: usize,
    ) -> Result<(), FailedInclude> {
        let fio = self.mode.is_fio();
        let shown = show_path(&resolve_include(from, inc));
        let file = match self.read_include(from, inc) {
            Ok(file) => file,
            // fio cannot open it either: it says so and carries on.
            Err((Some(errno), e)) if fio => {
                section
                    .warnings
                    .push(format!("fio: unable to open '{shown}' job file"));
                section.include_error.get_or_insert((errno, e.to_string()));
                return Err(FailedInclude(shown));
            }
            Err((Some(_), e)) => {
                let why = format!(
                    "cannot include '{inc}': {e}; fio reports this on stderr, skips the \
                     include and what follows it in the section, and fails the job when it \
                     runs; fix the path, {COMPAT_HINT}"
                );
                self.refuse_include(span, inc, why);
                return Ok(());
            }
            // A device or directory, or too large: refused in both modes.
            Err((None, e)) => {
                self.refuse_include(span, inc, format!("cannot include '{inc}': {e}"));
                return Ok(());
            }
        };
        if self.stack.contains(&file.canonical) || depth > MAX_INCLUDE_DEPTH {
            if fio {
                // fio follows a cycle until it runs out of file descriptors.
                section
                    .warnings
                    .push(format!("fio: unable to open '{shown}' job file"));
                section
                    .include_error
                    .get_or_insert((libc::EMFILE, "Too many open files".to_string()));
                return Err(FailedInclude(shown));
            }
            let msg = if depth > MAX_INCLUDE_DEPTH {
                format!("cannot include '{inc}': includes nest more than {MAX_INCLUDE_DEPTH} files deep")
            } else {
                format!(
                    "include cycle: '{inc}' is already being read (it includes itself, directly or \
                     through other files); fio follows it until it runs out of file descriptors, \
                     then fails the job; remove the include, {COMPAT_HINT}"
                )
            };
            self.refuse_include(span, inc, msg);
            return Ok(());
        }
        self.stack.push(file.canonical.clone());
        let result = self.include_lines(&file, section, depth);
        self.stack.pop();
        result.map_err(|()| FailedInclude(shown))
    }

    /// The lines of included `file`, into `section`.
    fn include_lines(
        &mut self,
        file: &Included,
        section: &mut Section,
        depth: usize,
    ) -> Result<(), ()> {
        let fio = self.mode.is_fio();
        let start = section.entries.len();
        let target = &file.path;
        let text = job_text(&file.bytes);
        for (span, item) in lines(target, &text, self.mode) {
            match item {
                Err(bad) if fio && bad.is_section_header() => {
                    section.entries.truncate(start);
                    section
                        .warnings
                        .push("No new sections in included files".into());
                    return Err(());
                }
                Err(bad) => self.diags.push(Diagnostic::at(span, bad.to_string())),
                Ok(Line::Blank) => {}
                Ok(Line::Option { text }) => section.entries.push(Entry {
                    text: text.to_string(),
                    span,
                }),
                Ok(Line::Include { path: inner }) => {
                    let inner = inner.to_string();
                    let included = self.include(target, &inner, span, section, depth + 1);
                    if let Err(FailedInclude(shown)) = included {
                        section
                            .warnings
                            .push(format!("Error 1 while parsing include file {shown}"));
                        return Err(());
                    }
                }
                Ok(Line::Section { .. }) if fio => {
                    section.entries.truncate(start);
                    section
                        .warnings
                        .push("No new sections in included files".into());
                    return Err(());
                }
                Ok(Line::Section { name }) => {
                    let why = format!(
                        "section [{name}] in an included file: included files may hold options \
                         only; fio reports it and drops the whole include (and the rest of the \
                         section); move [{name}] into the job file, {COMPAT_HINT}"
                    );
                    let include = show_path(&file.path);
                    let kind = Kind::Include { include, why };
                    self.diags.push(Diagnostic::new(Some(span), kind));
                }
            }
        }
        Ok(())
    }

    /// Find and read `inc`, included from `from` (once per regular file);
    /// when it cannot be read, why, with the errno when it cannot be
    /// opened at all (as fio cannot).
    fn read_include(
        &mut self,
        from: &Path,
        inc: &str,
    ) -> Result<Rc<Included>, (Option<i32>, Error)> {
        let key = (from.to_path_buf(), inc.to_string());
        if let Some(file) = self.read.get(&key) {
            return Ok(Rc::clone(file));
        }
        let target = resolve_include(from, inc);
        let (bytes, regular) = read_file_kind(&target).map_err(|e| match e {
            Error::Open { errno, .. } => (Some(errno), e),
            e => (None, e),
        })?;
        let file = Rc::new(Included {
            canonical: canonical(&target),
            path: Arc::from(target.as_path()),
            bytes,
        });
        // A pipe gives what it gives once; only regular files are kept.
        if regular && self.read_bytes + file.bytes.len() <= MAX_FILE_BYTES as usize {
            self.read_bytes += file.bytes.len();
            self.read.insert(key, Rc::clone(&file));
        }
        Ok(file)
    }
}

/// Job files larger than this are refused (a job file is text; this keeps
/// `include /dev/zero` and the like from reading forever).
pub(crate) const MAX_FILE_BYTES: u64 = 64 << 20;

/// Read a job or include file: a regular file (or a pipe such as
/// `/dev/stdin`), at most [`MAX_FILE_BYTES`].
fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    read_file_kind(path).map(|(bytes, _)| bytes)
}

/// [`read_file`], and whether the file is a regular file.
fn read_file_kind(path: &Path) -> Result<(Vec<u8>, bool), Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::open(&e))?;
    let meta = file.metadata().map_err(|e| Error::read(&e))?;
    if meta.is_dir() {
        return Err(Error::Directory);
    }
    if meta.file_type().is_char_device() || meta.file_type().is_block_device() {
        return Err(Error::Device);
    }
    Ok((read_limited(file)?, meta.is_file()))
}

fn read_limited(reader: impl Read) -> Result<Vec<u8>, Error> {
    let mut buf = Vec::new();
    reader
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::read(&e))?;
    if buf.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::TooLarge);
    }
    Ok(buf)
}

/// An `include` that failed as fio fails it (read as fio reads): the
/// file's name as fio shows it in `Error 1 while parsing include file
/// NAME`.
struct FailedInclude(String);

/// A line that is not part of a job file.
enum BadLine {
    /// Not text (a NUL byte) or too long.
    NotText(Error),
    /// Text that breaks the grammar.
    Syntax(LineError),
}

impl BadLine {
    fn is_section_header(&self) -> bool {
        matches!(
            self,
            BadLine::Syntax(LineError::UnterminatedHeader { .. } | LineError::EmptySectionName)
        )
    }

    /// The name fio gives a header it cannot read as `[name]`: the text
    /// after the `[` less its last character (`[job` is job `jo`, `[]` a
    /// job with an empty name).
    fn fio_section_name(&self) -> Option<&str> {
        match self {
            BadLine::Syntax(LineError::UnterminatedHeader { header, .. }) => {
                let name = header.strip_prefix('[')?;
                let last = name.chars().next_back()?;
                Some(&name[..name.len() - last.len_utf8()])
            }
            BadLine::Syntax(LineError::EmptySectionName) => Some(""),
            _ => None,
        }
    }
}

impl std::fmt::Display for BadLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadLine::NotText(e) => e.fmt(f),
            BadLine::Syntax(e) => e.fmt(f),
        }
    }
}

/// A line as fio takes it for an option: blanks (not other control
/// characters) dropped at its start, its comment and what ends it at its
/// end.
fn fio_option_text(line: &str) -> &str {
    let text = trim_space_start(line);
    let end = text.find([';', '#']).unwrap_or(text.len());
    trim_blank_end(&text[..end])
}

/// fio looks for an included file as given (relative to the working
/// directory) first, then relative to the directory of the including file.
fn resolve_include(from: &Path, inc: &str) -> PathBuf {
    let direct = diag::path_of_text(inc);
    if direct.is_absolute() || direct.exists() {
        return direct;
    }
    match from.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(direct),
        _ => direct,
    }
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A line of a job file: no NUL, not longer than fio can read (in bytes,
/// as fio reads them).
fn check_line(line: &str) -> Result<&str, Error> {
    // The text is never shorter than the bytes it stands for.
    let bytes = diag::bytes_of_text(line);
    if line.len() > MAX_LINE && bytes.len() > MAX_LINE {
        return Err(Error::LineTooLong { len: bytes.len() });
    }
    if let Some(pos) = bytes.iter().position(|b| *b == 0) {
        return Err(Error::NulByte { col: pos + 1 });
    }
    Ok(line)
}
