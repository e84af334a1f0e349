//! How bytes and numbers are shown in the report: quoted and escaped so that invisible
//! differences show, cut to an excerpt around the first difference; numbers as people write them.

use std::fmt::Write;

/// How many bytes of context an excerpt shows before the first difference.
const BEFORE: usize = 30;
/// How many bytes an excerpt shows from the first difference on.
const AFTER: usize = 50;

/// The bytes around `offset`, quoted and escaped, `...` marking what is cut off.
pub(crate) fn excerpt(bytes: &[u8], offset: usize) -> String {
    let start = offset.saturating_sub(BEFORE).min(bytes.len());
    let end = offset.saturating_add(AFTER).min(bytes.len());
    let mut text = String::new();
    if start > 0 {
        text.push_str("...");
    }
    text.push_str(&quote(&bytes[start..end]));
    if end < bytes.len() {
        text.push_str("...");
    }
    text
}

/// The first `limit` bytes, quoted and escaped.
pub(crate) fn head(bytes: &[u8], limit: usize) -> String {
    let mut text = quote(&bytes[..bytes.len().min(limit)]);
    if bytes.len() > limit {
        text.push_str("...");
    }
    text
}

/// Bytes as a double-quoted ASCII string: printable ASCII as is, `\n \r \t \\ \"` escaped, every
/// other byte as `\xNN`, so that invisible differences (CR, NUL, non-UTF-8) show.
pub(crate) fn quote(bytes: &[u8]) -> String {
    let mut text = String::from("\"");
    for &b in bytes {
        match b {
            b'\n' => text.push_str("\\n"),
            b'\r' => text.push_str("\\r"),
            b'\t' => text.push_str("\\t"),
            b'\\' => text.push_str("\\\\"),
            b'"' => text.push_str("\\\""),
            b' '..=b'~' => text.push(char::from(b)),
            _ => {
                let _ = write!(text, "\\x{b:02x}");
            }
        }
    }
    text.push('"');
    text
}

/// A number as people write it: `3`, `2.5`.
pub(crate) fn fmt_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_cut_long_values() {
        let long = [b'a'; 100];
        assert_eq!(
            excerpt(&long, 40),
            format!("...\"{}\"...", "a".repeat(BEFORE + AFTER))
        );
        assert_eq!(quote(b"\x00\xff\"\\"), "\"\\x00\\xff\\\"\\\\\"");
        assert_eq!(excerpt(b"ab", 2), "\"ab\"");
    }
}
