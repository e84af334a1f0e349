//! The line grammar of fio job files (see `grammar/jobfile.ebnf`; each rule
//! there is one function here, with the same name).
//!
//! fio reads a job file line by line. Blanks at both ends of a line are
//! dropped; a line whose first visible character is `;` or `#` is a comment,
//! and on every other line everything from the first `;` or `#` on is a
//! comment too (fio has no quoting, so values can never hold those
//! characters). What is left is a section header, an `include`, or an option.

use nom::bytes::complete::tag;
use nom::character::complete::{char, space1};
use nom::combinator::{all_consuming, eof, map, rest, verify};
use nom::sequence::{delimited, preceded, terminated};
use nom::IResult;

use super::mode::COMPAT_HINT;

/// One classified line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// Nothing but blanks and comments.
    Blank,
    /// `[name]`.
    Section { name: &'a str },
    /// `include path`.
    Include { path: &'a str },
    /// `key`, `key=value` (the text, comments and outer blanks removed).
    Option { text: &'a str },
}

/// Why a line is not well-formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineError {
    /// `[job` with no closing bracket (fio would drop the last character
    /// and name the job `jo`).
    UnterminatedHeader {
        header: String,
        cut_by_comment: bool,
    },
    /// `[]`.
    EmptySectionName,
    /// `include` with no path.
    IncludeWithoutPath,
    /// `=value` with no option name.
    MissingOptionName,
    /// A control character (not a blank) starts the line: fio strips only
    /// blanks at the start of a line, takes the character as part of the
    /// option name and refuses the line ("Bad option").
    ControlCharacter { byte: u8 },
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::UnterminatedHeader {
                header,
                cut_by_comment,
            } => {
                write!(f, "section header '{header}' has no closing ']'")?;
                if *cut_by_comment {
                    f.write_str(" (';' and '#' start a comment, even inside a header)")?;
                }
                // fio takes the last character for the `]`.
                let inner = header.strip_prefix('[').unwrap_or(header);
                let mut fio = inner.to_string();
                fio.pop();
                write!(
                    f,
                    "; fio reads this as job '{fio}' (it drops the last character as if it were ']'); \
                     write [{fio}] if you mean that, "
                )?;
                if !inner.contains(']') && !*cut_by_comment {
                    write!(f, "[{inner}] for job '{inner}', ")?;
                }
                f.write_str(COMPAT_HINT)
            }
            LineError::EmptySectionName => write!(
                f,
                "section header '[]' has no name; fio reads this as a job with an empty name; \
                 name the job, {COMPAT_HINT}"
            ),
            LineError::IncludeWithoutPath => f.write_str("'include' needs a file name"),
            LineError::MissingOptionName => {
                f.write_str("option line has no option name before '='")
            }
            LineError::ControlCharacter { byte } => write!(
                f,
                "line starts with the control character 0x{byte:02x}: fio reads it as part of the option name and refuses the line"
            ),
        }
    }
}

/// Bytes fio strips at the start of a line (C's `isspace`: TAB, LF, VT,
/// FF, CR and space).
fn is_space_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Bytes fio strips at the end of a line and of an option name
/// (`isspace` or `iscntrl`). A line of nothing else is blank. All ASCII.
fn is_blank_byte(b: u8) -> bool {
    b <= b' ' || b == 0x7f
}

/// `s` without its blanks ([`is_blank_byte`]) at the end. Byte by byte: every
/// blank is ASCII, and no byte of a longer UTF-8 character is.
pub(crate) fn trim_blank_end(s: &str) -> &str {
    let b = s.as_bytes();
    let mut end = b.len();
    while end > 0 && is_blank_byte(b[end - 1]) {
        end -= 1;
    }
    &s[..end]
}

/// `s` without its spaces ([`is_space_byte`]) at the start (as
/// [`trim_blank_end`]).
pub(crate) fn trim_space_start(s: &str) -> &str {
    let start = s.bytes().position(|b| !is_space_byte(b));
    &s[start.unwrap_or(s.len())..]
}

/// `s` without its blanks at both ends.
fn trim_blank(s: &str) -> &str {
    let start = s.bytes().position(|b| !is_blank_byte(b));
    trim_blank_end(&s[start.unwrap_or(s.len())..])
}

fn is_comment_start(c: char) -> bool {
    c == ';' || c == '#'
}

/// `comment = ( ";" | "#" ), { any } ;`
///
/// [`line()`] drops a comment without parsing it (everything after
/// [`content`]); the rule keeps its function, as every rule here has one.
#[allow(dead_code)]
pub(crate) fn comment(input: &str) -> IResult<&str, &str> {
    preceded(
        verify(nom::character::complete::anychar, |c| is_comment_start(*c)),
        rest,
    )(input)
}

/// `content = { any - ( ";" | "#" ) } ;` — the part of a line before its
/// comment, with blanks at both ends removed.
pub(crate) fn content(input: &str) -> IResult<&str, &str> {
    // Byte by byte: `;` and `#` are ASCII (take_till by characters was
    // most of the cost of a short line).
    let end = input.bytes().position(|b| b == b';' || b == b'#');
    let (text, rest) = input.split_at(end.unwrap_or(input.len()));
    Ok((rest, trim_blank(text)))
}

/// `section_header = "[", section_name, "]" ;`
pub(crate) fn section_header(input: &str) -> IResult<&str, &str> {
    all_consuming(delimited(
        char('['),
        section_name,
        terminated(char(']'), eof),
    ))(input)
}

/// `section_name = { any } ;` (up to the last `]` of the line).
pub(crate) fn section_name(input: &str) -> IResult<&str, &str> {
    let end = input.rfind(']').unwrap_or(input.len());
    Ok((&input[end..], &input[..end]))
}

/// `include_directive = "include", blank, { blank }, path ;`
pub(crate) fn include_directive(input: &str) -> IResult<&str, &str> {
    preceded(terminated(tag("include"), space1), map(rest, str::trim))(input)
}

/// `option = key, [ "=", value ] ;` with `key` the text before the first
/// `=` (blanks at its end allowed) and `value` the rest, leading blanks kept.
pub(crate) fn option(input: &str) -> IResult<&str, &str> {
    verify(rest, |s: &str| !s.is_empty() && !s.starts_with('='))(input)
}

/// Classify one physical line (without its line terminator).
pub(crate) fn line(raw: &str) -> Result<Line<'_>, LineError> {
    let trimmed = trim_space_start(raw);
    // A line that starts (after blanks) with a comment, or holds only blanks
    // and control characters.
    let (_, text) = content(trimmed).expect("content never fails");
    if text.is_empty() {
        return Ok(Line::Blank);
    }
    if let Some(c) = trimmed.chars().next().filter(char::is_ascii_control) {
        return Err(LineError::ControlCharacter { byte: c as u8 });
    }
    if text.starts_with('[') {
        return match section_header(text) {
            Ok((_, "")) => Err(LineError::EmptySectionName),
            Ok((_, name)) => Ok(Line::Section { name }),
            Err(_) => Err(LineError::UnterminatedHeader {
                header: text.to_string(),
                cut_by_comment: trimmed.len() > text.len()
                    && trimmed[text.len()..].starts_with(is_comment_start),
            }),
        };
    }
    if text == "include" {
        return Err(LineError::IncludeWithoutPath);
    }
    if let Ok((_, path)) = include_directive(text) {
        return Ok(Line::Include { path });
    }
    match option(text) {
        Ok((_, text)) => Ok(Line::Option { text }),
        Err(_) => Err(LineError::MissingOptionName),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_lines() {
        assert_eq!(line(""), Ok(Line::Blank));
        assert_eq!(line("   \t"), Ok(Line::Blank));
        assert_eq!(line("; comment"), Ok(Line::Blank));
        assert_eq!(line("  # comment"), Ok(Line::Blank));
        assert_eq!(line("[job]"), Ok(Line::Section { name: "job" }));
        assert_eq!(line("[ x y ]"), Ok(Line::Section { name: " x y " }));
        assert_eq!(line("[job] ; c"), Ok(Line::Section { name: "job" }));
        assert_eq!(line("bs=4k"), Ok(Line::Option { text: "bs=4k" }));
        assert_eq!(line("bs = 4k\r"), Ok(Line::Option { text: "bs = 4k" }));
        assert_eq!(
            line("rw=read ; trailing"),
            Ok(Line::Option { text: "rw=read" })
        );
        assert_eq!(line("time_based"), Ok(Line::Option { text: "time_based" }));
        assert_eq!(line("include a.inc"), Ok(Line::Include { path: "a.inc" }));
        assert_eq!(
            line("include\tsub/a.inc  "),
            Ok(Line::Include { path: "sub/a.inc" })
        );
    }

    #[test]
    fn refuses_what_fio_guesses_at() {
        assert_eq!(
            line("[job"),
            Err(LineError::UnterminatedHeader {
                header: "[job".into(),
                cut_by_comment: false
            })
        );
        assert_eq!(
            line("[job#1]"),
            Err(LineError::UnterminatedHeader {
                header: "[job".into(),
                cut_by_comment: true
            })
        );
        assert_eq!(line("[]"), Err(LineError::EmptySectionName));
        assert_eq!(line("include"), Err(LineError::IncludeWithoutPath));
        assert_eq!(line("=4k"), Err(LineError::MissingOptionName));
    }

    /// fio strips blanks only at the start of a line: a DEL, BS, ESC or
    /// ^A there is part of the option name, and fio refuses the line.
    #[test]
    fn control_characters_at_the_start_are_refused() {
        for (text, byte) in [
            ("\x7fbs=4k", 0x7f),
            ("\x08bs=4k", 0x08),
            ("\x1bbs=4k", 0x1b),
            ("\x01bs=4k", 0x01),
            ("  \x01time_based", 0x01),
            ("\t\x7f[job]", 0x7f),
            ("\x01include a.inc", 0x01),
            ("\x7f=4k", 0x7f),
        ] {
            assert_eq!(
                line(text),
                Err(LineError::ControlCharacter { byte }),
                "{text:?}"
            );
        }
    }

    /// TAB, VT, FF and CR are blanks at the start; control characters at
    /// the end of a line are stripped; a line of blanks and control
    /// characters (before any comment) is blank. All as fio reads them.
    #[test]
    fn blanks_and_trailing_control_characters() {
        assert_eq!(line("\tbs=4k"), Ok(Line::Option { text: "bs=4k" }));
        assert_eq!(line("\x0b\x0cbs=4k"), Ok(Line::Option { text: "bs=4k" }));
        assert_eq!(line("\rbs=4k\r"), Ok(Line::Option { text: "bs=4k" }));
        assert_eq!(line("bs=4k\x7f\x1b"), Ok(Line::Option { text: "bs=4k" }));
        assert_eq!(line("bs=\t4k"), Ok(Line::Option { text: "bs=\t4k" }));
        assert_eq!(line("[job]\x01"), Ok(Line::Section { name: "job" }));
        assert_eq!(line("[\x01job]"), Ok(Line::Section { name: "\x01job" }));
        assert_eq!(line("\x7f\x01"), Ok(Line::Blank));
        assert_eq!(line("\x01 ; comment"), Ok(Line::Blank));
    }
}
