//! C's number readers, as glibc implements them (`strtoll`, `atoi`), and
//! fio's reading of a number with its size or time unit on top of them
//! (`str_to_decimal`, `get_mult_bytes`, `get_mult_time`).

use super::super::ParseCtx;

pub(super) fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C's `strtoll(s, &end, base)` for base 10 or 16: the value (saturated,
/// with whether it overflowed) and the bytes read; `None` when no digit.
pub(super) fn strtoll(s: &[u8], base: u32) -> Option<(i64, bool, usize)> {
    let mut i = s.iter().take_while(|b| is_c_space(**b)).count();
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digit = |b: u8| (b as char).to_digit(base);
    if base == 16
        && s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(|b| digit(*b).is_some())
    {
        i += 2;
    }
    let start = i;
    let mut magnitude: u128 = 0;
    while let Some(d) = s.get(i).and_then(|b| digit(*b)) {
        magnitude = (magnitude * u128::from(base) + u128::from(d)).min(1 << 64);
        i += 1;
    }
    if i == start {
        return None;
    }
    let value = if negative {
        match magnitude {
            m if m > 1 << 63 => return Some((i64::MIN, true, i)),
            m => (m as i128).wrapping_neg() as i64,
        }
    } else {
        match magnitude {
            m if m > i64::MAX as u128 => return Some((i64::MAX, true, i)),
            m => m as i64,
        }
    };
    Some((value, false, i))
}

/// C's `atoi`: `strtol` truncated to `int`, 0 when there is no number.
pub(super) fn atoi(s: &[u8]) -> i32 {
    strtoll(s, 10).map_or(0, |(v, _, _)| v as i32)
}

/// fio's `is_separator` (the end of a unit in `__get_mult_bytes`).
fn is_separator(b: u8) -> bool {
    matches!(b, b':' | b'-' | b',' | b'/')
}

/// A size unit's multiplier (fio's `__get_mult_bytes`): the text is
/// lowercased and cut at the first separator, then matched by prefix, so
/// `k`, `kb`, `kx` and `kilo` are all kilo; `%` marks a percentage.
/// Returns the multiplier and whether it is a percentage.
fn size_unit(unit: Option<&[u8]>, kb_base: u32) -> (u64, bool) {
    let Some(unit) = unit else {
        return (1, false);
    };
    let end = unit
        .iter()
        .position(|b| is_separator(*b))
        .unwrap_or(unit.len());
    let c = unit[..end].to_ascii_lowercase();
    let other_base = match kb_base {
        1000 => 1024,
        1024 => 1000,
        b => b,
    };
    let (power, base) = match c.as_slice() {
        [b'p', b'i', b'b', ..] => (5, other_base),
        [b't', b'i', b'b', ..] => (4, other_base),
        [b'g', b'i', b'b', ..] => (3, other_base),
        [b'm', b'i', b'b', ..] => (2, other_base),
        [b'k', b'i', b'b', ..] => (1, other_base),
        [b'p', ..] => (5, kb_base),
        [b't', ..] => (4, kb_base),
        [b'g', ..] => (3, kb_base),
        [b'm', ..] => (2, kb_base),
        [b'k', ..] => (1, kb_base),
        [b'%', ..] => return (1, true),
        _ => (0, kb_base),
    };
    (u64::from(base).wrapping_pow(power), false)
}

/// Where fio looks for a size unit (`get_mult_bytes`): after the digits
/// and a sign before them; only a letter or `%` starts one. A text of one
/// byte is looked up whole.
fn size_unit_at(s: &[u8]) -> Option<&[u8]> {
    if s.len() < 2 {
        return Some(s);
    }
    let mut i = 0;
    let mut digit_seen = false;
    while let Some(&b) = s.get(i) {
        if !b.is_ascii_digit() && ((b != b'+' && b != b'-') || digit_seen) {
            break;
        }
        digit_seen |= b.is_ascii_digit();
        i += 1;
    }
    match s.get(i) {
        Some(b) if b.is_ascii_alphabetic() || *b == b'%' => Some(&s[i..]),
        _ => None,
    }
}

/// A time unit's multiplier in microseconds (fio's `get_mult_time`):
/// `us…` and `ms…` by prefix, `s`, `m`, `h`, `d` only exactly (the rest of
/// the text, uncut); anything else is 1 µs, even for options counted in
/// seconds; no unit at all is the option's own.
fn time_unit(s: &[u8], seconds: bool) -> u64 {
    let i = s
        .iter()
        .position(|b| !b.is_ascii_digit() && *b != b'+' && *b != b'-')
        .unwrap_or(s.len());
    if !s.get(i).is_some_and(u8::is_ascii_alphabetic) {
        return if seconds { 1_000_000 } else { 1 };
    }
    let c = s[i..].to_ascii_lowercase();
    match c.as_slice() {
        [b'u', b's', ..] => 1,
        [b'm', b's', ..] => 1_000,
        b"s" => 1_000_000,
        b"m" => 60 * 1_000_000,
        b"h" => 3_600 * 1_000_000,
        b"d" => 86_400 * 1_000_000,
        _ => 1,
    }
}

/// fio's `str_to_decimal`: a number with a size unit (`kilo`) or a time
/// unit; `None` where fio fails (no digits, or too large). A percentage
/// comes back as fio encodes it, `-1 - N`.
pub(super) fn str_to_decimal(s: &[u8], kilo: bool, ctx: &ParseCtx, seconds: bool) -> Option<i64> {
    if s.is_empty() {
        return None;
    }
    let base = if s.windows(2).any(|w| w == b"0x" || w == b"0X") {
        16
    } else {
        10
    };
    let (v, overflow, _) = strtoll(s, base)?;
    if overflow && v == i64::MAX {
        return None;
    }
    Some(if kilo {
        match size_unit(size_unit_at(s), ctx.kb_base) {
            (_, true) => (u64::MAX.wrapping_sub(v as u64)) as i64,
            (mult, false) => (v as u64).wrapping_mul(mult) as i64,
        }
    } else {
        (v as u64).wrapping_mul(time_unit(s, seconds)) as i64
    })
}
