//! Numbers: integers, sizes, percentages, times, booleans, and the
//! per-direction (`read,write,trim`) lists of them.
//!
//! fio 3.33 reads every number with `strtoll` (base 16 when `0x` appears
//! anywhere in the text) and then looks for a unit after the digits, ignoring
//! whatever it does not recognise (`parse.c`: `str_to_decimal`,
//! `get_mult_bytes`, `get_mult_time`, `check_int`). rfio accepts the same
//! spellings with the same meaning and refuses the ones fio silently misreads.

use super::{ParseCtx, Value, ValueError};
use crate::options::def::{FioType, OptionDef, Split, TimeUnit, ValueKind};

/// The largest value fio can hold in any number (`long long`).
const FIO_MAX: u128 = i64::MAX as u128;

/// A whole number as written: its sign, its magnitude, whether it was hex,
/// and the text after the digits.
struct Whole<'a> {
    negative: bool,
    magnitude: u128,
    hex: bool,
    rest: &'a str,
}

impl Whole<'_> {
    fn signed(&self, mult: u128) -> Option<i128> {
        let v = self.magnitude.checked_mul(mult)?;
        if v > FIO_MAX {
            return None;
        }
        let v = v as i128;
        Some(if self.negative { -v } else { v })
    }
}

/// Read `[+-]digits` or `[+-]0x hexdigits` from the start of `text`.
///
/// `expected` names the kind of value for [`ValueError::Invalid`].
fn lex_whole<'a>(text: &'a str, expected: &'static str) -> Result<Whole<'a>, ValueError> {
    if text.starts_with(|c: char| c.is_ascii_whitespace()) {
        // fio's strtoll skips the blank but its suffix scan does not:
        // `bs= 4k` is 4 bytes in fio 3.33.
        return Err(ValueError::LeadingBlank {
            value: text.to_string(),
        });
    }
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (hex, body) = match body.get(..2) {
        Some("0x" | "0X") => (true, &body[2..]),
        _ => (false, body),
    };
    let radix = if hex { 16 } else { 10 };
    let end = body
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(body.len());
    if end == 0 {
        return Err(invalid(text, expected));
    }
    let magnitude = u128::from_str_radix(&body[..end], radix)
        .ok()
        .filter(|&m| m <= FIO_MAX)
        .ok_or_else(|| too_large(text))?;
    let rest = &body[end..];
    if !hex && rest.starts_with('.') {
        // strtoll stops at the dot: fio reads `1.5k` as 1 and `0.5` as 0.
        return Err(invalid(
            text,
            "a whole number (fio drops everything after a '.')",
        ));
    }
    Ok(Whole {
        negative,
        magnitude,
        hex,
        rest,
    })
}

pub(super) fn invalid(value: &str, expected: &'static str) -> ValueError {
    ValueError::Invalid {
        value: value.to_string(),
        expected,
    }
}

fn too_large(value: &str) -> ValueError {
    ValueError::Other(format!(
        "'{value}' is too large (fio holds at most {})",
        i64::MAX
    ))
}

fn trailing(value: &str, rest: &str) -> ValueError {
    ValueError::TrailingGarbage {
        value: value.to_string(),
        rest: rest.to_string(),
    }
}

fn bad_suffix(value: &str, suffix: &str) -> ValueError {
    ValueError::BadSuffix {
        value: value.to_string(),
        suffix: suffix.to_string(),
    }
}

/// Split `rest` into its leading run of letters and what follows.
fn letters(rest: &str) -> (&str, &str) {
    let end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    rest.split_at(end)
}

/// The multiplier of a size suffix (case-insensitive), as fio's
/// `__get_mult_bytes`: `k m g t p` with an optional `b` or `i` are powers of
/// `kb_base`; with `ib` they are powers of the *other* base (fio's inverted
/// "compatibility" rule: under the default 1024, `KiB` is 1000); `b` or
/// nothing is 1.
fn size_mult(suffix: &str, kb_base: u32) -> Option<u128> {
    // Compared without a lowered copy: every size option is read here.
    let Some(first) = suffix.bytes().next() else {
        return Some(1);
    };
    if suffix.eq_ignore_ascii_case("b") {
        return Some(1);
    }
    let first = first.to_ascii_lowercase();
    let power = b"kmgtp".iter().position(|&c| c == first)? as u32 + 1;
    // `first` is ASCII: the rest starts after it.
    let rest = &suffix[1..];
    let is = |w: &str| rest.eq_ignore_ascii_case(w);
    let base = if rest.is_empty() || is("b") || is("i") {
        kb_base
    } else if is("ib") {
        match kb_base {
            1000 => 1024,
            1024 => 1000,
            other => other,
        }
    } else {
        return None;
    };
    Some(u128::from(base).pow(power))
}

/// What a size-like text turned out to be.
enum Sized {
    Bytes(i128),
    Percent(u128),
    Zones(u128),
}

/// Read a size or integer with fio's k/m/g/t/p suffixes, and, when allowed,
/// `N%` or `Nz` (zones).
fn lex_sized(
    text: &str,
    ctx: &ParseCtx,
    percent: bool,
    zones: bool,
    expected: &'static str,
) -> Result<Sized, ValueError> {
    let w = lex_whole(text, expected)?;
    if w.hex {
        // fio never applies a suffix to a hex number (`0x10k` is 16).
        if !w.rest.is_empty() {
            return Err(trailing(text, w.rest));
        }
        return w.signed(1).map(Sized::Bytes).ok_or_else(|| too_large(text));
    }
    let (suffix, after) = letters(w.rest);
    if percent && suffix.is_empty() && after.starts_with('%') {
        // `100%%` (a template's escaped `%`) is 100% for fio too.
        if after.len() > 1 && !after.bytes().all(|b| b == b'%') {
            return Err(trailing(text, &after[1..]));
        }
        if w.negative {
            return Err(invalid(text, "a percentage above 0"));
        }
        return Ok(Sized::Percent(w.magnitude));
    }
    if after.starts_with('%') && suffix.is_empty() {
        return Err(bad_suffix(text, "%"));
    }
    if suffix.eq_ignore_ascii_case("z") {
        if !zones {
            return Err(bad_suffix(text, suffix));
        }
        if !after.is_empty() {
            return Err(trailing(text, after));
        }
        if w.negative {
            return Err(invalid(text, "a zone count of zero or more"));
        }
        return Ok(Sized::Zones(w.magnitude));
    }
    let mult = size_mult(suffix, ctx.kb_base).ok_or_else(|| bad_suffix(text, suffix))?;
    if !after.is_empty() {
        return Err(trailing(text, after));
    }
    w.signed(mult)
        .map(Sized::Bytes)
        .ok_or_else(|| too_large(text))
}

/// A size that may be negative: the `N` of `rw=read:N` (fio's
/// `ddir_seq_add`, where `read:-8k` steps backwards).
pub(crate) fn parse_signed_size(text: &str, ctx: &ParseCtx) -> Result<i64, ValueError> {
    match lex_sized(text, ctx, false, false, "a size")? {
        Sized::Bytes(v) => Ok(v as i64),
        Sized::Percent(_) | Sized::Zones(_) => unreachable!("percent and zones not allowed"),
    }
}

/// A non-negative byte count with suffixes (no percentages, no zones).
pub(crate) fn parse_size(text: &str, ctx: &ParseCtx) -> Result<u64, ValueError> {
    let v = parse_signed_size(text, ctx)?;
    u64::try_from(v).map_err(|_| invalid(text, "a size of zero or more"))
}

/// The multiplier, in microseconds, of a time suffix (case-insensitive), as
/// fio's `get_mult_time`.
///
/// fio compares `us`/`ms` as prefixes and everything else exactly, and
/// silently uses 1 µs for anything it does not know: `2sec` and `2min` are
/// 2 µs there, even on options counted in seconds. rfio refuses those
/// suffixes instead (the HOWTO's `sec` is wrong for 3.33).
fn time_mult(suffix: &str) -> Option<u128> {
    let is = |w: &str| suffix.eq_ignore_ascii_case(w);
    Some(if is("us") || is("usec") {
        1
    } else if is("ms") || is("msec") {
        1_000
    } else if is("s") {
        1_000_000
    } else if is("m") {
        60 * 1_000_000
    } else if is("h") {
        3_600 * 1_000_000
    } else if is("d") {
        86_400 * 1_000_000
    } else {
        return None;
    })
}

fn default_time_mult(unit: TimeUnit) -> u128 {
    match unit {
        TimeUnit::Seconds => 1_000_000,
        TimeUnit::Micros => 1,
    }
}

/// A time in microseconds.
fn lex_time(def: &OptionDef, text: &str) -> Result<i128, ValueError> {
    lex_time_in(def.time_unit, text)
}

/// A time in microseconds, a bare number counted in `unit`.
pub(super) fn lex_time_in(unit: TimeUnit, text: &str) -> Result<i128, ValueError> {
    let w = lex_whole(text, "a time")?;
    if w.hex {
        // fio reads the `x` of `0x10` as an unknown unit: 16 µs even for
        // options counted in seconds.
        return Err(invalid(text, "a decimal time (fio misreads hex times)"));
    }
    if w.negative && w.magnitude != 0 {
        // fio stores it as a huge unsigned time (and reads the digits after
        // the `-` as a second value).
        return Err(invalid(text, "a time of zero or more"));
    }
    let (suffix, after) = letters(w.rest);
    let mult = if suffix.is_empty() {
        default_time_mult(unit)
    } else {
        time_mult(suffix).ok_or_else(|| bad_suffix(text, suffix))?
    };
    if !after.is_empty() {
        return Err(trailing(text, after));
    }
    w.signed(mult).ok_or_else(|| too_large(text))
}

/// Check `v` against the option's bounds, with fio's messages. Negative
/// numbers are refused even where fio sets no minimum (fio stores them in
/// unsigned fields, or reads the digits after the `-` as a second value); an
/// option that takes negative numbers declares a negative `min`.
/// `FIO_OPT_INT` options hold 32 bits.
fn check_range(def: &OptionDef, v: i128) -> Result<(), ValueError> {
    let clamp = |v: i128| v.clamp(i64::MIN.into(), i64::MAX.into()) as i64;
    let max = match (def.max, def.fio_type) {
        (Some(max), _) => Some(max),
        (None, FioType::Int) => Some(i64::from(u32::MAX)),
        (None, _) => None,
    };
    if let Some(max) = max {
        if v > i128::from(max) {
            return Err(ValueError::AboveMax {
                value: clamp(v),
                max,
            });
        }
    }
    let min = def.min.unwrap_or(0);
    if v < i128::from(min) {
        return Err(ValueError::BelowMin {
            value: clamp(v),
            min,
        });
    }
    Ok(())
}

/// Numeric options with allowed values (`posvals`) take only those.
fn check_posvals(def: &OptionDef, text: &str, v: i128) -> Result<(), ValueError> {
    if def.posvals.is_empty() {
        return Ok(());
    }
    let allowed = def
        .posvals
        .iter()
        .any(|p| p.value.parse::<i128>().ok() == Some(v));
    if allowed {
        Ok(())
    } else {
        Err(ValueError::NotAChoice {
            value: text.to_string(),
        })
    }
}

/// `0` or `1` (also `0x1`), for booleans and flags. fio's `sscanf("%u")`
/// skips leading blanks and so reads ` 1` correctly: rfio accepts it too.
fn parse_bool(text: &str) -> Result<Value, ValueError> {
    let t = text.trim_start();
    let w = lex_whole(t, "0 or 1")?;
    if !w.rest.is_empty() {
        return Err(trailing(text, w.rest));
    }
    let v = w.signed(1).ok_or_else(|| too_large(text))?;
    if v < 0 {
        return Err(ValueError::BelowMin {
            value: v as i64,
            min: 0,
        });
    }
    if v > 1 {
        return Err(ValueError::AboveMax {
            value: v as i64,
            max: 1,
        });
    }
    Ok(Value::Bool(v == 1))
}

/// One number of a numeric kind (`Int`, `Size`, `SizeOrPercent`, `Time`,
/// `Bool`, `Flag`), checked against the option's bounds.
pub(super) fn parse_scalar(
    def: &OptionDef,
    text: &str,
    ctx: &ParseCtx,
) -> Result<Value, ValueError> {
    match def.kind {
        ValueKind::Bool | ValueKind::Flag => parse_bool(text),
        ValueKind::Time => {
            let v = lex_time(def, text)?;
            check_range(def, v)?;
            Ok(Value::Micros(v as u64))
        }
        ValueKind::Int => match lex_sized(text, ctx, false, false, "an integer")? {
            Sized::Bytes(v) => {
                check_range(def, v)?;
                check_posvals(def, text, v)?;
                Ok(Value::Int(v as i64))
            }
            Sized::Percent(_) | Sized::Zones(_) => unreachable!("not allowed for integers"),
        },
        _ => {
            let percent = def.kind == ValueKind::SizeOrPercent;
            let zones = def.fio_type == FioType::StrValZone;
            match lex_sized(text, ctx, percent, zones, "a size")? {
                Sized::Bytes(v) if v < 0 => Err(invalid(text, "a size of zero or more")),
                Sized::Bytes(v) => {
                    check_range(def, v)?;
                    check_posvals(def, text, v)?;
                    Ok(Value::Bytes(v as u64))
                }
                // fio: 0% means "not set" (the whole file) and anything over
                // 100% is taken as a huge byte count, then clamped.
                Sized::Percent(p) if p == 0 || p > 100 => Err(ValueError::Other(format!(
                    "'{text}': a percentage must be above 0% and at most 100%"
                ))),
                Sized::Percent(p) => Ok(Value::Percent(p as f64)),
                Sized::Zones(n) => Ok(Value::Zones(n as u64)),
            }
        }
    }
}

/// How many directions a split option has values for.
pub(super) fn directions(split: Split) -> usize {
    match split {
        Split::One => 1,
        Split::ReadWrite => 2,
        Split::ReadWriteTrim => 3,
    }
}

/// Split a per-direction value as fio's `handle_option` walks it: at each
/// step the next `,`, or if none is left the next `:`, or the next `-`. A `-`
/// right at the start of a piece is a sign, not a separator.
pub(super) fn split_dirs(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    loop {
        let sep = rest.find(',').or_else(|| rest.find(':')).or_else(|| {
            rest.char_indices()
                .skip(1)
                .find(|&(_, c)| c == '-')
                .map(|(i, _)| i)
        });
        match sep {
            Some(i) => {
                pieces.push(&rest[..i]);
                rest = &rest[i + 1..];
            }
            None => {
                pieces.push(rest);
                return pieces;
            }
        }
    }
}

/// Spread per-direction pieces over read, write, trim as fio does: piece
/// *i* sets direction *i*; an empty piece leaves its direction unset (the
/// default); the last piece, when not empty, also sets every later
/// direction. So `4k,8k` is R4k W8k T8k, `,8k` is R- W8k T8k, and `8k,` is
/// R8k W- T- (fio 3.33: `bs=8k,` runs writes at the 4k default).
pub(super) fn spread<T: Clone>(
    text: &str,
    pieces: &[&str],
    dirs: usize,
    mut parse: impl FnMut(&str) -> Result<T, ValueError>,
) -> Result<Vec<Option<T>>, ValueError> {
    if pieces.len() > dirs {
        let names = if dirs == 2 {
            "read,write"
        } else {
            "read,write,trim"
        };
        return Err(ValueError::Other(format!(
            "'{text}': at most {dirs} values ({names}); fio ignores the rest"
        )));
    }
    if pieces.iter().all(|p| p.is_empty()) {
        return Err(ValueError::Invalid {
            value: text.to_string(),
            expected: "a value",
        });
    }
    let mut out: Vec<Option<T>> = vec![None; 3];
    for (i, piece) in pieces.iter().enumerate() {
        if !piece.is_empty() {
            out[i] = Some(parse(piece)?);
        }
    }
    if let Some(Some(last)) = out.get(pieces.len() - 1).cloned() {
        for slot in out.iter_mut().take(dirs).skip(pieces.len()) {
            *slot = Some(last.clone());
        }
    }
    Ok(out)
}

/// fio reads a time's unit in the rest of the whole value: `s`, `m`, `h`
/// and `d` count only at its very end, so in `5s-10s` or `10s,20s` the
/// first is 5 (10) microseconds. rfio refuses a piece so written that
/// more follows (`us` and `ms` work anywhere).
pub(super) fn check_time_piece(text: &str, piece: &str) -> Result<(), ValueError> {
    let digits = piece.trim_start_matches(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
    let (unit, _) = letters(digits);
    if ["s", "m", "h", "d"]
        .iter()
        .any(|u| unit.eq_ignore_ascii_case(u))
    {
        return Err(ValueError::Other(format!(
            "'{text}': fio takes the unit '{unit}' of '{piece}' only at the end of the value"
        )));
    }
    Ok(())
}

/// A numeric option: one value, or one per direction.
pub(super) fn parse_numeric(
    def: &OptionDef,
    text: &str,
    ctx: &ParseCtx,
) -> Result<Value, ValueError> {
    match def.split {
        Split::One => {
            if text.is_empty() {
                return Err(invalid(text, "a value"));
            }
            parse_scalar(def, text, ctx)
        }
        split => {
            let pieces = split_dirs(text);
            if def.kind == ValueKind::Time {
                for piece in &pieces[..pieces.len() - 1] {
                    check_time_piece(text, piece)?;
                }
            }
            let dirs = directions(split);
            spread(text, &pieces, dirs, |p| parse_scalar(def, p, ctx)).map(Value::PerDir)
        }
    }
}
