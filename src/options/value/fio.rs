//! fio 3.33's own reading of option values: what `--compat=fio` runs, and
//! what a strict-mode refusal names as "fio reads this as ...".
//!
//! fio reads a value in two steps (`parse.c`). `handle_option` walks the
//! text in pieces: each piece starts after a separator (`,`, else `:`,
//! else `-`, for numbers; `,` only for ranges; `:` for float lists) and
//! runs to the end of the text, and `__handle_option` reads each piece on
//! its own, storing the first into the read slot, the second into the write
//! slot and so on. A piece that fails is reported (or not) and skipped:
//! the option fails only when every piece fails. Numbers go through
//! `str_to_decimal`: C's `strtoll` (base 16 when `0x` appears anywhere),
//! then a unit looked up after the digits, anything unknown ignored.
//!
//! Everything here follows that reading, and returns `None` where fio
//! refuses the value too, or where rfio does not reproduce fio's reading
//! of that kind of value (choice sets, CPU lists, distributions, patterns:
//! those are read strictly in both modes).

mod cnum;

use self::cnum::{atoi, is_c_space, str_to_decimal, strtoll};
use super::{ParseCtx, SplitEntry, Value};
use crate::options::def::{FioType, OptionDef, Split, TimeUnit, ValueKind};

/// What fio 3.33 makes of one option value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FioReading {
    /// The value fio stores; `None` when it stores nothing, so the value
    /// in force (from `[global]`, or the default) stays. In a per-direction
    /// value a `None` slot is a direction fio leaves as it was.
    pub(crate) value: Option<Value>,
    /// What fio prints on stderr while reading it, one line each.
    pub(crate) warnings: Vec<String>,
}

/// fio's `FIO_IO_U_LIST_MAX_LEN`: most entries of a float list.
const FLOAT_LIST_MAX: usize = 20;
/// fio's `BSSPLIT_MAX`.
const BSSPLIT_MAX: usize = 64;
/// fio copies a piece into a 128-byte buffer before reading it.
const TMP_LEN: usize = 127;

/// Numeric options whose value fio hands to a callback for every piece
/// that reads (`options.c`: `.cb` on a number type): the last piece wins,
/// where for other one-value options only the first piece is stored.
const CALLBACK_NUMBERS: &[&str] = &[
    "size",
    "io_size",
    "offset",
    "offset_increment",
    "zoneskip",
    "rwmixread",
    "rwmixwrite",
    "cpumask",
    "exitall",
    "buffer_compress_percentage",
    "dedupe_percentage",
    "gtod_reduce",
];

/// fio's reading of `raw` (the text after `=`, `None` when bare) for
/// option `def`; `None` when fio refuses it too, or rfio does not
/// reproduce fio's reading of this kind of value.
pub(crate) fn read(def: &OptionDef, raw: Option<&str>, ctx: &ParseCtx) -> Option<FioReading> {
    let text = raw?;
    match def.kind {
        ValueKind::Int
        | ValueKind::Size
        | ValueKind::SizeOrPercent
        | ValueKind::Time
        | ValueKind::TimeOrRange
        | ValueKind::SizeOrRange
        | ValueKind::Bool
        | ValueKind::Flag
            if def.posvals.is_empty() =>
        {
            numeric(def, text, ctx)
        }
        ValueKind::SizeRange if def.fio_type == FioType::Range => ranges(def, text, ctx),
        ValueKind::FloatList => floats(def, text),
        ValueKind::BsSplit => bssplit(text, ctx),
        ValueKind::Choice | ValueKind::ChoiceWithModifier if def.fio_type == FioType::Str => {
            choice(def, text, ctx)
        }
        // fio's option callback refuses an `external:PATH` that is not a
        // regular file while parsing (`str_ioengine_external_cb`).
        ValueKind::EngineName
            if crate::options::engines::external_path(text)
                .is_some_and(|p| !std::path::Path::new(p).is_file()) =>
        {
            None
        }
        ValueKind::EngineName if !text.is_empty() => Some(FioReading {
            value: Some(Value::Text(text.to_string())),
            warnings: Vec::new(),
        }),
        _ => None,
    }
}

// ---------------------------------------------------------------------
// handle_option: the pieces of a value.

/// One piece of a value as `handle_option` hands it on: the text from
/// the piece's start to the end, whether more pieces follow, its number.
struct Piece<'a> {
    text: &'a [u8],
    more: bool,
    curr: usize,
}

/// The pieces of `text` for an option of fio type `t`.
fn pieces(text: &[u8], t: FioType) -> Vec<Piece<'_>> {
    let find = |s: &[u8], c: u8| s.iter().position(|b| *b == c);
    let mut out = Vec::new();
    let mut start = 0;
    loop {
        let rest = &text[start..];
        let sep = match t {
            FioType::FloatList => find(rest, b':'),
            FioType::StrMulti | FioType::Range => find(rest, b','),
            _ => find(rest, b',')
                .or_else(|| find(rest, b':'))
                .or_else(|| find(rest, b'-')),
        };
        out.push(Piece {
            text: rest,
            more: sep.is_some(),
            curr: out.len(),
        });
        match sep {
            Some(at) => start += at + 1,
            None => return out,
        }
    }
}

/// A piece cut as `__handle_option` cuts it for a number: into a 128-byte
/// buffer, then at the first `,`.
fn number_text(piece: &[u8]) -> &[u8] {
    let piece = &piece[..piece.len().min(TMP_LEN)];
    let end = piece.iter().position(|b| *b == b',').unwrap_or(piece.len());
    &piece[..end]
}

/// What one piece of a number reads as: the value, or why not (a message
/// fio prints, or `None` when it fails silently).
fn number_piece(def: &OptionDef, piece: &[u8], ctx: &ParseCtx) -> Result<u64, Option<String>> {
    let name = def.name;
    if piece.last() == Some(&b'z') {
        if def.fio_type != FioType::StrValZone {
            return Err(Some(format!("{name}: 'z' suffix isn't applicable")));
        }
        // Zones: a count before the `z`, nothing else.
        return match strtoll(piece, 10) {
            Some((n, false, end)) if piece.get(end) == Some(&b'z') => {
                Ok(ZONE_BASE + u64::from(n as u32))
            }
            _ => Err(Some(format!(
                "{name}: unexpected zone value '{}'",
                String::from_utf8_lossy(piece)
            ))),
        };
    }
    let text = number_text(piece);
    let time = matches!(def.kind, ValueKind::Time | ValueKind::TimeOrRange)
        || def.fio_type == FioType::StrValTime;
    let seconds = def.time_unit == TimeUnit::Seconds;
    let v = str_to_decimal(text, !time, ctx, time && seconds).ok_or(None)? as u64;
    let int = def.fio_type == FioType::Int;
    if let Some(max) = def.max.filter(|m| *m != 0) {
        let too_large = if int {
            (v as i32) > max as i32
        } else {
            v > max as u64
        };
        if too_large {
            return Err(Some(format!(
                "{name}: max value out of range: {v} ({max} max)"
            )));
        }
    }
    if let Some(min) = def.min.filter(|m| *m != 0) {
        let too_small = if int {
            i64::from(v as i32) < min
        } else {
            v < min as u64
        };
        if too_small {
            return Err(Some(format!(
                "{name}: min value out of range: {} ({min} min)",
                v as i64
            )));
        }
    }
    Ok(v)
}

/// fio's `ZONE_BASE_VAL`: a zone count is stored above it.
const ZONE_BASE: u64 = (u64::MAX >> 1) + 1;

/// One piece of a boolean (`FIO_OPT_BOOL`, `FIO_OPT_STR_SET`): fio's
/// `check_int`, `sscanf("%u")` (or `%x` when `0x` appears), then the bounds.
fn bool_piece(def: &OptionDef, piece: &[u8]) -> Result<i32, Option<String>> {
    let hex = piece.windows(2).any(|w| w == b"0x" || w == b"0X");
    let (v, _, _) = strtoll(piece, if hex { 16 } else { 10 }).ok_or(None)?;
    let il = v as i32;
    if let Some(max) = def.max.filter(|m| *m != 0) {
        if il > max as i32 {
            return Err(Some(format!("max value out of range: {il} ({max} max)")));
        }
    }
    if let Some(min) = def.min.filter(|m| *m != 0) {
        if i64::from(il) < min {
            return Err(Some(format!("min value out of range: {il} ({min} min)")));
        }
    }
    Ok(il)
}

/// A number, a boolean, a time, one per direction or with an upper end
/// (`filesize`, `startdelay`), as `handle_option` stores it.
fn numeric(def: &OptionDef, text: &str, ctx: &ParseCtx) -> Option<FioReading> {
    let is_bool = matches!(def.fio_type, FioType::Bool | FioType::StrSet);
    if !is_bool && !number_type(def.fio_type) {
        return None;
    }
    let dirs = match def.split {
        Split::One => 1,
        Split::ReadWrite => 2,
        Split::ReadWriteTrim => 3,
    };
    // Second slot: a per-direction write value, or the upper end of a
    // `FIO_OPT_STR_VAL` pair.
    let pair = matches!(def.kind, ValueKind::SizeOrRange | ValueKind::TimeOrRange);
    let callback = CALLBACK_NUMBERS.contains(&def.name);
    let mut slots: [Option<u64>; 3] = [None; 3];
    let mut last: Option<u64> = None;
    let mut warnings = Vec::new();
    let mut any = false;
    for p in pieces(text.as_bytes(), def.fio_type) {
        let v = if is_bool {
            bool_piece(def, p.text).map(|il| il as u32 as u64)
        } else {
            number_piece(def, p.text, ctx)
        };
        let v = match v {
            Ok(v) => v,
            Err(msg) => {
                warnings.extend(msg);
                continue;
            }
        };
        any = true;
        last = Some(v);
        let first = p.curr == 0;
        if pair {
            if first {
                slots[0] = Some(v);
            }
            if !p.more {
                slots[1] = Some(v);
            }
            continue;
        }
        if first {
            slots[0] = Some(v);
        }
        if p.curr == 1 || (!p.more && p.curr < 1) {
            slots[1] = Some(v);
        }
        if p.curr == 2 || (!p.more && p.curr < 2) {
            slots[2] = Some(v);
        }
    }
    if !any {
        return None;
    }
    if callback {
        slots[0] = last;
    }
    let one = |v: u64| scalar(def, v);
    let value = if pair {
        match (slots[0], slots[1]) {
            (Some(lo), Some(hi)) if lo == hi && def.kind == ValueKind::TimeOrRange => {
                Some(Value::Micros(lo))
            }
            // fio keeps a reversed `filesize` as written and draws sizes
            // far above both ends; rfio refuses it in both modes.
            (Some(lo), Some(hi)) if lo > hi && def.kind == ValueKind::SizeOrRange => return None,
            (Some(lo), Some(hi)) => Some(Value::Ranges(vec![
                Some((lo.min(hi), lo.max(hi))),
                None,
                None,
            ])),
            _ => None,
        }
    } else if dirs == 1 {
        slots[0].map(one)
    } else {
        let mut v: Vec<Option<Value>> = slots.iter().map(|s| s.map(one)).collect();
        for slot in v.iter_mut().skip(dirs) {
            *slot = None;
        }
        v.iter().any(Option::is_some).then_some(Value::PerDir(v))
    };
    Some(FioReading { value, warnings })
}

fn number_type(t: FioType) -> bool {
    matches!(
        t,
        FioType::Int | FioType::Ull | FioType::StrVal | FioType::StrValTime | FioType::StrValZone
    )
}

/// A stored number as the value rfio keeps for `def`.
fn scalar(def: &OptionDef, v: u64) -> Value {
    if def.fio_type == FioType::StrValZone && (ZONE_BASE..ZONE_BASE + (1 << 32)).contains(&v) {
        return Value::Zones(v - ZONE_BASE);
    }
    match def.kind {
        ValueKind::Bool | ValueKind::Flag => Value::Bool(v != 0),
        ValueKind::Time | ValueKind::TimeOrRange => Value::Micros(v),
        ValueKind::Int if def.fio_type == FioType::Int => {
            // An `int` field: 32 bits, signed only where negatives mean
            // something.
            if def.min.is_some_and(|m| m < 0) {
                Value::Int(i64::from(v as i32))
            } else {
                Value::Int(i64::from(v as u32))
            }
        }
        ValueKind::Int => Value::Int(v as i64),
        ValueKind::SizeOrPercent if v >= u64::MAX - 100 => match u64::MAX - v {
            // `size=0%` is no size at all.
            0 => Value::Bytes(0),
            p => Value::Percent(p as f64),
        },
        _ => Value::Bytes(v),
    }
}

// ---------------------------------------------------------------------
// Ranges, float lists, bssplit, choices.

/// `FIO_OPT_RANGE` (`bsrange`): pieces at `,`; each `lo-hi` or `lo:hi`
/// (the first `-`, else the first `:`), reversed ends swapped, no bounds
/// checked.
fn ranges(def: &OptionDef, text: &str, ctx: &ParseCtx) -> Option<FioReading> {
    let mut slots: [Option<(u64, u64)>; 3] = [None; 3];
    let mut any = false;
    for p in pieces(text.as_bytes(), FioType::Range) {
        let piece = number_text(p.text);
        let at = piece
            .iter()
            .position(|b| *b == b'-')
            .or_else(|| piece.iter().position(|b| *b == b':'));
        let Some(at) = at else { continue };
        let (Some(lo), Some(hi)) = (
            str_to_decimal(&piece[..at], true, ctx, false),
            str_to_decimal(&piece[at + 1..], true, ctx, false),
        ) else {
            continue;
        };
        let (lo, hi) = (lo as u64, hi as u64);
        let range = (lo.min(hi), lo.max(hi));
        any = true;
        if p.curr == 0 {
            slots[0] = Some(range);
        }
        if p.curr == 1 || (!p.more && p.curr < 1) {
            slots[1] = Some(range);
        }
        if p.curr == 2 || (!p.more && p.curr < 2) {
            slots[2] = Some(range);
        }
    }
    if !any {
        return None;
    }
    if def.split == Split::ReadWrite {
        slots[2] = None;
    }
    Some(FioReading {
        value: Some(Value::Ranges(slots.to_vec())),
        warnings: Vec::new(),
    })
}

/// C's `sscanf("%lf")` on the start of `s`: blanks, then the longest
/// decimal number (or `inf`, `nan`) there.
fn leading_float(s: &[u8]) -> Option<f64> {
    let start = s.iter().take_while(|b| is_c_space(**b)).count();
    let floaty = |b: &u8| b.is_ascii_digit() || b"+-.eEinfatyINFATY".contains(b);
    let run = s[start..].iter().take(64).take_while(|b| floaty(b)).count();
    let s = std::str::from_utf8(&s[start..start + run]).ok()?;
    (1..=s.len())
        .rev()
        .find_map(|end| s[..end].parse::<f64>().ok())
}

/// `FIO_OPT_FLOAT_LIST` (`percentile_list`): pieces at `:`, each read
/// with `sscanf("%lf")` and checked against the range; a bad piece is
/// reported and left out (its slot stays 0), at most 20 entries.
fn floats(def: &OptionDef, text: &str) -> Option<FioReading> {
    let mut list = [0.0f64; FLOAT_LIST_MAX];
    let mut used = 0;
    let mut warnings = Vec::new();
    let mut any = false;
    for p in pieces(text.as_bytes(), FioType::FloatList) {
        if p.curr >= FLOAT_LIST_MAX {
            warnings.push(format!("the list exceeding max length {FLOAT_LIST_MAX}"));
            continue;
        }
        let Some(f) = leading_float(p.text) else {
            warnings.push(format!(
                "not a floating point value: {}",
                String::from_utf8_lossy(p.text)
            ));
            continue;
        };
        if def.min.is_some() || def.max.is_some() {
            let (min, max) = (def.min.unwrap_or(0) as f64, def.max.unwrap_or(0) as f64);
            if f > max {
                warnings.push(format!("value out of range: {f:.6} (range max: {max:.6})"));
                continue;
            }
            if f < min {
                warnings.push(format!("value out of range: {f:.6} (range min: {min:.6})"));
                continue;
            }
        }
        list[p.curr] = f;
        used = used.max(p.curr + 1);
        any = true;
    }
    if !any {
        return None;
    }
    Some(FioReading {
        value: Some(Value::Floats(list[..used].to_vec())),
        warnings,
    })
}

/// `bssplit` (fio's `str_bssplit_cb`, `str_split_parse`,
/// `split_parse_ddir`): up to three `,`-separated lists (a fourth is read
/// into the trim list's last size); in each, `bs/pct` entries at `:`, the
/// list ending at an empty entry; a percentage read with `atoi` (no number
/// or 0: share the rest; above 100: 100). Two empty percentages or more
/// with the rest over 100% fail, as in fio.
fn bssplit(text: &str, ctx: &ParseCtx) -> Option<FioReading> {
    let trimmed = text.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
    let mut warnings = Vec::new();
    let mut lists: Vec<&str> = trimmed.splitn(3, ',').collect();
    let dirs: [&str; 3] = match lists.len() {
        1 => [lists[0]; 3],
        2 => [lists[0], lists[1], lists[1]],
        _ => {
            // The trim list runs to the end (a fourth list is read as its
            // trailing text).
            let trim = lists.pop().unwrap_or_default();
            [lists[0], lists[1], trim]
        }
    };
    let mut out: Vec<Vec<SplitEntry>> = Vec::with_capacity(3);
    for list in dirs {
        out.push(split_list(list, ctx, &mut warnings)?);
    }
    Some(FioReading {
        value: Some(Value::BsSplit(out)),
        warnings,
    })
}

/// One direction's `bs/pct:bs/pct` list; `None` where fio fails.
fn split_list(list: &str, ctx: &ParseCtx, warnings: &mut Vec<String>) -> Option<Vec<SplitEntry>> {
    let mut entries = Vec::new();
    for entry in list.split(':') {
        if entry.is_empty() {
            break;
        }
        let (bs, pct) = match entry.split_once('/') {
            Some((bs, pct)) => {
                let p = i64::from(atoi(pct.as_bytes())) as u64;
                (
                    bs,
                    if p == 0 {
                        None
                    } else {
                        Some(p.min(100) as u32)
                    },
                )
            }
            None => (entry, None),
        };
        let Some(bs) = str_to_decimal(bs.as_bytes(), true, ctx, false) else {
            warnings.push("fio: split conversion failed".to_string());
            return None;
        };
        entries.push(SplitEntry { bs: bs as u64, pct });
        if entries.len() == BSSPLIT_MAX {
            warnings.push(format!("fio: hit max of {BSSPLIT_MAX} split entries"));
            break;
        }
    }
    let given: u32 = entries.iter().filter_map(|e| e.pct).sum();
    let missing = entries.iter().filter(|e| e.pct.is_none()).count();
    if given > 100 && missing > 1 {
        warnings.push("fio: bssplit percentages add to more than 100%".to_string());
        return None;
    }
    Some(entries)
}

/// A choice (`FIO_OPT_STR`): the value up to the first `,` (or, without
/// one, the first `:`) names the choice; after a `,` fio reads nothing.
/// For `rw` a `:` brings a count, read with `atoi`, after a random
/// pattern, a size after a sequential one (`str_rw_cb`). Other choices
/// have callbacks of their own, which may refuse: only the text before a
/// `,` is read for them, and only when rfio reads it alone.
fn choice(def: &OptionDef, text: &str, ctx: &ParseCtx) -> Option<FioReading> {
    let key_len = text
        .find(',')
        .or_else(|| text.find(':'))
        .unwrap_or(text.len());
    let key = &text[..key_len];
    let index = def.posvals.iter().position(|p| p.value == key)?;
    if def.kind != ValueKind::ChoiceWithModifier {
        let before_comma = &text[..text.find(',')?];
        let strict = ParseCtx {
            mode: crate::jobfile::Mode::Strict,
            ..*ctx
        };
        let value = super::parse_value(def, Some(before_comma), &strict).ok()?;
        return Some(FioReading {
            value: Some(value),
            warnings: Vec::new(),
        });
    }
    let post = text.find(':').map(|at| {
        text[at + 1..].trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control())
    });
    let modifier = match post {
        None => None,
        Some(post) => {
            let v = if def.posvals[index].value.starts_with("rand") {
                // An unsigned count.
                i64::from(atoi(post.as_bytes()) as u32)
            } else {
                str_to_decimal(post.as_bytes(), true, ctx, false)?
            };
            Some(v.to_string())
        }
    };
    Some(FioReading {
        value: Some(Value::Choice { index, modifier }),
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
