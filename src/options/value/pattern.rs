//! `buffer_pattern` and `verify_pattern`: a byte pattern written as fio
//! 3.33's `lib/pattern.c` (`parse_and_fill_pattern`) reads it, when the
//! option is read (fio fails `--parse-only` and `--showcmd` on a bad one).
//!
//! A pattern is a sequence, without separators, of:
//!
//! - `0x` hex digits: the bytes in written order, an odd digit count padded
//!   with a 0 in front (`0x123` is `01 23`); a hex number ends where the
//!   next `0x` starts (`0xff0x14` is `ff 14`);
//! - a decimal integer in `[-2^31, 2^31)`, little-endian in as few bytes
//!   as it needs (`-1` is `ff ff ff ff`, `0` is one `00`); blanks may come
//!   before it (C's `strtol`), a sign too;
//! - `"text"`: its bytes (no escapes);
//! - `'path'`: that file's bytes up to the limit, read now;
//! - `%o` (`verify_pattern` only, at most 8): 8 bytes where each block's
//!   offset goes.
//!
//! 512 bytes at most in all before fio 3.34, 128 MiB from it
//! ([`max_size`], fio's `MAX_PATTERN_SIZE`). What fio refuses
//! (`fio: failed parsing buffer_pattern=...`, exit 1) rfio refuses with the
//! reason; an empty piece (`""`, an empty file, `0x0x1`), on which fio
//! aborts (exit 134), is refused too.

use super::ValueError;
use crate::release::{Change, Release};

/// fio 3.33's `MAX_PATTERN_SIZE`.
pub(crate) const MAX_PATTERN_SIZE: usize = 512;

/// The longest pattern `release` reads: fio 3.34 allocates patterns
/// (`lib/pattern.h` MAX_PATTERN_SIZE 128 MiB) where 3.33 had 512 bytes.
pub(crate) fn max_size(release: Release) -> usize {
    match release.has(Change::LongPatterns) {
        true => 128 << 20,
        false => MAX_PATTERN_SIZE,
    }
}

/// `%o` formats one pattern may hold (fio's `verify_fmt` array).
pub(crate) const MAX_FORMATS: usize = 8;
/// Bytes a `%o` format takes (a block offset).
const OFFSET_LEN: usize = 8;

/// A parsed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BytePattern {
    /// The bytes, with zeros where the formats go.
    pub(crate) bytes: Vec<u8>,
    /// Where each `%o` puts the block offset (8 bytes, little-endian).
    pub(crate) offsets: Vec<usize>,
}

/// Whether option `name` takes a pattern, and whether `%o` formats are
/// allowed in it.
pub(crate) fn pattern_option(name: &str) -> Option<bool> {
    match name {
        "buffer_pattern" => Some(false),
        "verify_pattern" => Some(true),
        _ => None,
    }
}

/// Why a pattern does not read (the text quoted is the rest of the
/// pattern from where it fails).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PatternError {
    /// Past the release's limit (its bytes; see [`max_size`]).
    #[error("longer than {0} bytes (fio's limit)")]
    TooLong(usize),
    #[error("unterminated string {0}")]
    UnterminatedString(String),
    #[error("formats such as %o are for verify_pattern only, not at {0}")]
    FormatNotAllowed(String),
    #[error("unknown format at {0} (only %o, the block offset)")]
    UnknownFormat(String),
    #[error("more than {MAX_FORMATS} %o formats")]
    TooManyFormats,
    /// A piece that gives no byte.
    #[error("{0} adds no bytes (fio 3.33 aborts on it)")]
    NoBytes(String),
    #[error("unterminated file name {0}")]
    UnterminatedFile(String),
    /// `'name'`: the file cannot be read (the system's reason).
    #[error("cannot read pattern file '{name}': {reason}")]
    File { name: String, reason: String },
    #[error("pattern file '{0}' is empty")]
    EmptyFile(String),
    /// `0x` with no digit after it (at the start: `None`).
    #[error("0x without hex digits{}", .0.as_ref().map(|at| format!(" at {at}")).unwrap_or_default())]
    NoHexDigits(Option<String>),
    #[error("unexpected blank at '{0}' (a blank may only come before a decimal number)")]
    Blank(String),
    #[error("cannot read {0}: expected 0x<hex>, a decimal number, \"text\" or 'file'")]
    Unreadable(String),
    #[error(
        "{0} is out of range (a decimal number is at most 32 bits: {min} to {max})",
        min = i32::MIN,
        max = i32::MAX
    )]
    OutOfRange(String),
}

/// Parse `text` as a pattern (`formats`: `%o` is allowed). Relative `'file'`
/// names are read from the working directory, as fio does.
pub(crate) fn parse_pattern(
    text: &str,
    formats: bool,
    limit: usize,
) -> Result<BytePattern, ValueError> {
    let fail = |why: PatternError| ValueError::Pattern {
        text: text.to_string(),
        why: match why {
            PatternError::TooLong(_) => PatternError::TooLong(limit),
            why => why,
        },
    };
    if text.is_empty() {
        return Err(ValueError::MissingArgument);
    }
    let b = text.as_bytes();
    let mut out = BytePattern {
        bytes: Vec::new(),
        offsets: Vec::new(),
    };
    let mut i = 0;
    while i < b.len() {
        let room = limit - out.bytes.len();
        if room == 0 {
            return Err(fail(PatternError::TooLong(0)));
        }
        let (start, before) = (i, out.bytes.len());
        i = match b[i] {
            b'\'' => file_piece(text, i, room, &mut out.bytes).map_err(fail)?,
            b'"' => {
                let end = text[i + 1..]
                    .find('"')
                    .ok_or_else(|| fail(PatternError::UnterminatedString(text[i..].into())))?;
                if end > room {
                    return Err(fail(PatternError::TooLong(0)));
                }
                out.bytes.extend_from_slice(&b[i + 1..i + 1 + end]);
                i + end + 2
            }
            b'%' => {
                if !formats {
                    return Err(fail(PatternError::FormatNotAllowed(text[i..].into())));
                }
                if !text[i..].starts_with("%o") {
                    return Err(fail(PatternError::UnknownFormat(text[i..].into())));
                }
                if out.offsets.len() == MAX_FORMATS {
                    return Err(fail(PatternError::TooManyFormats));
                }
                if room < OFFSET_LEN {
                    return Err(fail(PatternError::TooLong(0)));
                }
                out.offsets.push(out.bytes.len());
                out.bytes.extend_from_slice(&[0; OFFSET_LEN]);
                i + 2
            }
            _ => number_piece(text, i, room, &mut out.bytes).map_err(fail)?,
        };
        if out.bytes.len() == before {
            return Err(fail(PatternError::NoBytes(text[start..i].into())));
        }
    }
    Ok(out)
}

/// `'path'` at `i`: the file's first `room` bytes. Returns where the piece
/// ends.
fn file_piece(text: &str, i: usize, room: usize, out: &mut Vec<u8>) -> Result<usize, PatternError> {
    let end = text[i + 1..]
        .find('\'')
        .ok_or_else(|| PatternError::UnterminatedFile(text[i..].into()))?;
    let name = &text[i + 1..i + 1 + end];
    // At most `room` bytes: the rest is past the limit (and a device such
    // as /dev/zero never ends).
    let mut data = Vec::new();
    std::fs::File::open(name)
        .and_then(|f| {
            std::io::Read::read_to_end(&mut std::io::Read::take(f, room as u64), &mut data)
        })
        .map_err(|e| PatternError::File {
            name: name.to_string(),
            reason: crate::diag::io_reason(&e),
        })?;
    if data.is_empty() {
        return Err(PatternError::EmptyFile(name.to_string()));
    }
    out.extend_from_slice(&data);
    Ok(i + end + 2)
}

/// fio's `isspace`.
fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// The value of one hex digit, if `c` is one.
fn hex_digit(c: Option<&u8>) -> Option<u8> {
    c.and_then(|c| (*c as char).to_digit(16)).map(|d| d as u8)
}

/// A number at `i`: `0x` hex, else a decimal integer. Returns where it
/// ends, as fio's `parse_number` reads it.
fn number_piece(
    text: &str,
    i: usize,
    room: usize,
    out: &mut Vec<u8>,
) -> Result<usize, PatternError> {
    let b = text.as_bytes();
    // `0`, one or more `x`, one or more hex digits (fio's sscanf).
    let hex_len = if b[i] == b'0' {
        let xs = b[i + 1..]
            .iter()
            .take_while(|c| matches!(c, b'x' | b'X'))
            .count();
        let digits = b[i + 1 + xs..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        (xs > 0 && digits > 0).then_some(1 + xs + digits)
    } else {
        None
    };
    if hex_len.is_none() && b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        // fio reads the 0 as a number, then fails on the x.
        return Err(PatternError::NoHexDigits(
            (i > 0).then(|| text[i..].to_string()),
        ));
    }
    match hex_len {
        Some(len) => hex_number(b, i, len, room, out).ok_or(PatternError::TooLong(0)),
        None => decimal_number(text, i, room, out),
    }
}

/// The bytes of the hex number of `len` characters at `i` (`0x` included),
/// read two digits at a time as fio does. `None` when they do not fit.
fn hex_number(b: &[u8], i: usize, len: usize, room: usize, out: &mut Vec<u8>) -> Option<usize> {
    let mut num = len as isize - 2;
    let mut beg = i as isize + 2;
    // `0xff0x14`: the `0` of the next `0x` is not a digit of this one.
    let next = (beg + num) as usize;
    if next < b.len() && b[next - 1] == b'0' && matches!(b[next], b'x' | b'X') {
        num -= 1;
    }
    let end = (beg + num) as usize;
    let mut left = room;
    while num > 0 && left > 0 {
        let at = beg as usize;
        let byte = if num & 1 == 1 {
            num += 1;
            beg -= 1;
            hex_digit(b.get(at)).unwrap_or(0)
        } else {
            match (hex_digit(b.get(at)), hex_digit(b.get(at + 1))) {
                (Some(h), Some(l)) => h << 4 | l,
                (Some(h), None) => h,
                _ => 0,
            }
        };
        out.push(byte);
        num -= 2;
        beg += 2;
        left -= 1;
    }
    (num <= 0).then_some(end)
}

/// A decimal integer at `i` (C's `strtol`, cut before the next `0x` and
/// then no longer than 21 characters, as fio's `strntol`).
fn decimal_number(
    text: &str,
    i: usize,
    room: usize,
    out: &mut Vec<u8>,
) -> Result<usize, PatternError> {
    let b = text.as_bytes();
    let rest = &text[i..];
    let expected = || {
        if rest.starts_with(|c: char| c.is_ascii_whitespace()) {
            PatternError::Blank(rest.to_string())
        } else {
            PatternError::Unreadable(rest.to_string())
        }
    };
    let lookahead = rest.to_ascii_lowercase().find("0x").filter(|&p| p > 0);
    let mut start = i;
    let limit = match lookahead {
        Some(p) => {
            // fio's strntol: leading spaces skipped, then at most 21 bytes.
            while start < i + p && b[start] == b' ' {
                start += 1;
            }
            let n = i + p - start;
            if n == 0 || n >= 22 {
                return Err(expected());
            }
            i + p
        }
        None => b.len(),
    };
    let mut j = start;
    while j < limit && is_c_space(b[j]) {
        j += 1;
    }
    let negative = j < limit && b[j] == b'-';
    if j < limit && matches!(b[j], b'+' | b'-') {
        j += 1;
    }
    let digits = b[j..limit]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 {
        return Err(expected());
    }
    let magnitude = text[j..j + digits]
        .bytes()
        .fold(0i128, |v, d| (v * 10 + i128::from(d - b'0')).min(1 << 40));
    let value = if negative { -magnitude } else { magnitude };
    if !(i128::from(i32::MIN)..=i128::from(i32::MAX)).contains(&value) {
        return Err(PatternError::OutOfRange(text[i..j + digits].to_string()));
    }
    let mut v = value as i32 as u32;
    if v == 0 {
        out.push(0);
    }
    let mut left = room;
    while v != 0 && left > 0 {
        out.push(v as u8);
        v >>= 8;
        left -= 1;
    }
    if v != 0 {
        return Err(PatternError::TooLong(0));
    }
    Ok(j + digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(text: &str) -> Vec<u8> {
        parse_pattern(text, true, MAX_PATTERN_SIZE)
            .expect(text)
            .bytes
    }

    fn refused(text: &str, formats: bool) -> String {
        match parse_pattern(text, formats, MAX_PATTERN_SIZE) {
            Err(e) => e.to_string(),
            Ok(p) => panic!("{text} accepted: {p:?}"),
        }
    }

    /// The examples of fio's `lib/pattern.c`, byte for byte.
    #[test]
    fn fio_examples() {
        assert_eq!(bytes("\"abcd\""), b"abcd");
        assert_eq!(bytes("-1024"), [0x00, 0xfc, 0xff, 0xff]);
        assert_eq!(bytes("66"), [0x42]);
        assert_eq!(bytes("0xFF0X1"), [0xff, 0x01]);
        assert_eq!(bytes("%o"), [0; 8]);
        assert_eq!(
            bytes("\"123\"0xFFeeCC"),
            [0x31, 0x32, 0x33, 0xff, 0xee, 0xcc]
        );
        let p = parse_pattern("-100xab\"1\"%o\"2\"", true, MAX_PATTERN_SIZE).unwrap();
        assert_eq!(
            p.bytes,
            [0xf6, 0xff, 0xff, 0xff, 0xab, 0x31, 0, 0, 0, 0, 0, 0, 0, 0, 0x32]
        );
        assert_eq!(p.offsets, [6]);
        let p = parse_pattern("%o0xdeadbeef%o", true, MAX_PATTERN_SIZE).unwrap();
        assert_eq!(p.offsets, [0, 12]);
        assert_eq!(p.bytes.len(), 20);
        assert_eq!(bytes("0xfefefefefefefefefefe"), [0xfe; 10]);
    }

    #[test]
    fn numbers_as_fio_reads_them() {
        assert_eq!(bytes("0x123"), [0x01, 0x23]);
        assert_eq!(bytes("0"), [0]);
        assert_eq!(bytes("-0"), [0]);
        assert_eq!(bytes("00012"), [12]);
        assert_eq!(bytes("  12"), [12]);
        assert_eq!(bytes("+5"), [5]);
        assert_eq!(bytes("12 34"), [12, 34]);
        assert_eq!(bytes("12\t3"), [12, 3]);
        assert_eq!(bytes("1000"), [0xe8, 0x03]);
        assert_eq!(bytes("2147483647"), [0xff, 0xff, 0xff, 0x7f]);
        assert_eq!(bytes("-2147483648"), [0, 0, 0, 0x80]);
        assert_eq!(bytes("0xff0x14"), [0xff, 0x14]);
        // fio reads `0xx12` too: the second x becomes a zero byte.
        assert_eq!(bytes("0xx12"), [0x00, 0x12]);
        assert_eq!(bytes("1\"aaaaaaaaaaaaaaa\"0x01").len(), 1 + 15 + 1);
    }

    /// Every value here makes fio 3.33 fail `--parse-only` (exit 1, or 134
    /// where it aborts on an empty piece).
    #[test]
    fn refused_as_fio_refuses() {
        for text in [
            "0xZZ",
            "0x",
            "0X",
            "zz",
            "12abc",
            "\"abc",
            "'/nonexistent/pattern'",
            "0x12 0x34",
            "0x12,0x34",
            "99999999999999999999",
            "2147483648",
            "-2147483649",
            "0x1g",
            "12 ab",
            "12 ",
            " \"ab\"",
            "\"a\"b",
            "'pfile",
            "1.5",
            "%p",
            "\"\"",
            "0x0x1",
            "1\"aaaaaaaaaaaaaaaaaaaaaa\"0x01",
        ] {
            refused(text, true);
        }
        assert!(refused("%o", false).contains("verify_pattern only"));
        assert!(refused("0x12%o", false).contains("verify_pattern only"));
        assert_eq!(refused("0xZZ", false), "'0xZZ': 0x without hex digits");
        assert_eq!(
            refused("\"a\"0xq", false),
            "'\"a\"0xq': 0x without hex digits at 0xq"
        );
        assert!(refused("\"\"", true).contains("\"\" adds no bytes"));
    }

    #[test]
    fn the_limit_follows_the_release() {
        assert_eq!(max_size(Release::V3_33), 512);
        assert_eq!(max_size(Release::V3_34), 128 << 20);
        let long = format!("0x{}", "ab".repeat(600));
        assert!(parse_pattern(&long, false, max_size(Release::V3_33)).is_err());
        let p = parse_pattern(&long, false, max_size(Release::V3_42)).unwrap();
        assert_eq!(p.bytes.len(), 600);
        // a file piece is read up to the limit, a never-ending one too
        let p = parse_pattern("'/dev/zero'", false, 4096).unwrap();
        assert_eq!(p.bytes, vec![0; 4096]);
    }

    #[test]
    fn at_most_512_bytes_and_8_formats() {
        let s = |n: usize| format!("\"{}\"", "a".repeat(n));
        assert_eq!(bytes(&s(512)).len(), 512);
        refused(&s(513), true);
        refused(&format!("{}%o", s(510)), true);
        assert_eq!(bytes(&format!("{}0x1234", s(510))).len(), 512);
        refused(&format!("{}0x1234", s(511)), true);
        assert_eq!(bytes(&format!("0x{}", "ab".repeat(512))).len(), 512);
        refused(&format!("0x{}", "ab".repeat(513)), true);
        refused(&format!("{}-1", s(510)), true);
        assert_eq!(bytes(&format!("{}-1", s(508))).len(), 512);
        assert_eq!(
            parse_pattern(&"%o".repeat(8), true, MAX_PATTERN_SIZE)
                .unwrap()
                .offsets
                .len(),
            8
        );
        refused(&"%o".repeat(9), true);
    }

    #[test]
    fn files_are_read_now() {
        let dir = std::env::temp_dir().join(format!("rfio-pattern-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small");
        std::fs::write(&small, b"hello").unwrap();
        let big = dir.join("big");
        std::fs::write(&big, vec![7u8; 1000]).unwrap();
        let empty = dir.join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(bytes(&format!("'{}'0x01", small.display())), b"hello\x01");
        assert_eq!(bytes(&format!("'{}'", big.display())), vec![7u8; 512]);
        assert!(refused(&format!("'{}'", empty.display()), true).contains("is empty"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
