//! The strict-mode refusal of a value that fio 3.33 accepts: what fio
//! reads it as, and the two ways forward (write what was meant, or read it
//! as fio does with `--compat=fio`).
//!
//! `bs = 4k: fio reads this as 4 bytes (the text after the blank is
//! ignored); write bs=4 if you mean that, bs=4k for 4 KiB, or run with
//! --compat=fio to read it as fio does`

use super::fio::FioReading;
use super::{parse_value, ParseCtx, SplitEntry, Value, ValueError};
use crate::jobfile::mode::COMPAT_HINT;
use crate::options::def::{OptionDef, Split, ValueKind};

/// The message for `entry` (the option line as written), whose value
/// `text` the strict parser refused with `err` and fio reads as `reading`.
pub(crate) fn refusal(
    def: &OptionDef,
    entry: &str,
    text: &str,
    err: &ValueError,
    reading: &FioReading,
    ctx: &ParseCtx,
) -> String {
    let name = def.name;
    let what = match &reading.value {
        Some(v) => describe(def, v),
        None => format!("no value: {name} keeps the value in force"),
    };
    let why = why(def, err, reading);
    let mut ways = Vec::new();
    if let Some(v) = &reading.value {
        if let Some(canon) = spelling(def, v, ctx) {
            ways.push(format!("write {name}={canon} if you mean that"));
        }
    } else {
        ways.push("remove the line if you mean that".to_string());
    }
    if let Some((intent, meaning)) = intent(def, text, err, ctx) {
        if !ways
            .iter()
            .any(|w| w.contains(&format!("{name}={intent} ")))
        {
            ways.push(format!("{name}={intent} for {meaning}"));
        }
    }
    let ways = match ways.len() {
        0 => COMPAT_HINT.trim_start_matches("or ").to_string(),
        _ => format!("{}, {COMPAT_HINT}", ways.join(", ")),
    };
    format!("{entry}: fio reads this as {what}{why}; {ways}")
}

/// Why fio reads it so, in a few words (empty when the reading says it).
fn why(def: &OptionDef, err: &ValueError, reading: &FioReading) -> String {
    if !reading.warnings.is_empty() {
        return format!(
            " (it prints '{}' and carries on)",
            reading.warnings.join("', '")
        );
    }
    let time = matches!(def.kind, ValueKind::Time | ValueKind::TimeOrRange);
    match err {
        ValueError::LeadingBlank { .. } if def.kind == ValueKind::EngineName => {
            " (the blank is part of the name; the job fails when it starts)".into()
        }
        ValueError::LeadingBlank { .. } => " (it skips the blank, then misses the unit)".into(),
        ValueError::TrailingGarbage { rest, .. } if rest.starts_with(char::is_whitespace) => {
            " (the text after the blank is ignored)".into()
        }
        ValueError::TrailingGarbage { rest, .. } => format!(" ('{rest}' is ignored)"),
        ValueError::BadSuffix { suffix, .. } if time => {
            format!(" (the unknown unit '{suffix}' counts as microseconds)")
        }
        ValueError::BadSuffix { suffix, .. } => {
            format!(" (the unknown unit '{suffix}' is ignored)")
        }
        ValueError::Invalid { expected, .. } if expected.contains("'.'") => {
            " (the part from the '.' on is ignored)".into()
        }
        ValueError::AboveMax { .. } if matches!(def.kind, ValueKind::Flag | ValueKind::Bool) => {
            " (any number but 0 is on)".into()
        }
        ValueError::BelowMin { value, .. } if *value < 0 => {
            " (a negative number wraps around)".into()
        }
        _ => match (&reading.value, def.kind) {
            (Some(Value::BsSplit(dirs)), _) if dirs.iter().any(|d| over_100(d)) => {
                " (the percentages are not checked: the smallest shares are drawn first, \
                 until 100% is used up)"
                    .into()
            }
            (_, ValueKind::BsSplit) => {
                " (a percentage it cannot read is 0, which shares what the others leave)".into()
            }
            (
                Some(Value::Choice {
                    modifier: Some(m), ..
                }),
                _,
            ) if m == "0" => {
                " (a count it cannot read is 0: it never picks a new random offset and reads \
                 sequentially)"
                    .into()
            }
            _ => match err {
                ValueError::Other(m) if m.contains("only at the end of the value") => {
                    " (a unit s, m, h or d counts only at the end of the value; before that \
                     the number is microseconds)"
                        .into()
                }
                ValueError::Other(m) if m.contains("fio ignores the rest") => {
                    " (the values after the last direction are ignored)".into()
                }
                ValueError::Invalid { value, .. } => format!(" ('{value}' is ignored)"),
                _ => String::new(),
            },
        },
    }
}

/// Whether the given percentages of one direction add up to more than 100.
fn over_100(entries: &[SplitEntry]) -> bool {
    entries.iter().filter_map(|e| e.pct).sum::<u32>() > 100
}

/// What the user may have meant, when the refusal says: `bs= 8k` and
/// `bs=4 k` mean 8k and 4k. Only a spelling the strict parser takes.
fn intent(
    def: &OptionDef,
    text: &str,
    err: &ValueError,
    ctx: &ParseCtx,
) -> Option<(String, String)> {
    let meant = match err {
        ValueError::LeadingBlank { .. } => text.trim_start().to_string(),
        ValueError::TrailingGarbage { rest, .. } if rest.starts_with(char::is_whitespace) => {
            text.split_whitespace().collect()
        }
        _ => return None,
    };
    let strict = ParseCtx {
        mode: crate::jobfile::Mode::Strict,
        ..*ctx
    };
    let v = parse_value(def, Some(&meant), &strict).ok()?;
    Some((meant, describe(def, &v)))
}

/// A spelling of `v` that rfio's strict parser reads as `v`, if any.
fn spelling(def: &OptionDef, v: &Value, ctx: &ParseCtx) -> Option<String> {
    let text = spell(def, v)?;
    let strict = ParseCtx {
        mode: crate::jobfile::Mode::Strict,
        ..*ctx
    };
    let back = parse_value(def, Some(&text), &strict).ok()?;
    (back == *v || effective(&back) == effective(v)).then_some(text)
}

/// `v` as fio draws from it: a `bssplit` with its percentages filled in
/// and sorted, the shares past 100% in all cut off (the same split
/// whichever way it was written).
fn effective(v: &Value) -> Value {
    match v {
        Value::BsSplit(dirs) => Value::BsSplit(dirs.iter().map(|d| drawn(d)).collect()),
        v => v.clone(),
    }
}

/// One direction's split as fio draws from it (`bssplit_ddir`, then
/// `get_next_bs`): empty percentages share what the others leave, the
/// entries are sorted by percentage, and a draw of 1 to 100 takes the first
/// entry whose running total reaches it, so shares past 100 are never
/// drawn. Entries never drawn are left out.
fn drawn(entries: &[SplitEntry]) -> Vec<SplitEntry> {
    let given: u32 = entries.iter().filter_map(|e| e.pct).sum();
    let missing = entries.iter().filter(|e| e.pct.is_none()).count() as u32;
    let share = match (missing, entries.len()) {
        (1, 1) => 100,
        (0, _) => 0,
        (m, _) => 100u32.saturating_sub(given) / m,
    };
    let mut filled: Vec<SplitEntry> = entries
        .iter()
        .map(|e| SplitEntry {
            bs: e.bs,
            pct: Some(e.pct.unwrap_or(share)),
        })
        .collect();
    filled.sort_by_key(|e| e.pct);
    let mut total = 0;
    let mut out = Vec::new();
    for e in filled {
        let p = e.pct.unwrap_or(0);
        let take = p.min(100u32.saturating_sub(total));
        total += take;
        if take > 0 {
            out.push(SplitEntry {
                bs: e.bs,
                pct: Some(take),
            });
        }
    }
    out
}

/// `v` as option text.
fn spell(def: &OptionDef, v: &Value) -> Option<String> {
    Some(match v {
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Int(n) => n.to_string(),
        Value::Bytes(n) => size_text(*n),
        Value::Percent(p) => format!("{p}%"),
        Value::Micros(us) => time_text(*us),
        Value::Zones(n) => format!("{n}z"),
        Value::Text(t) => t.clone(),
        Value::Floats(f) => f
            .iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join(":"),
        Value::Choice { index, modifier } => {
            let name = def.posvals.get(*index)?.value;
            match modifier {
                Some(m) => format!("{name}:{m}"),
                None => name.to_string(),
            }
        }
        Value::PerDir(dirs) => {
            let slots: Vec<String> = dirs[..directions(def, dirs.len())]
                .iter()
                .map(|d| match d {
                    Some(v) => spell(def, v),
                    None => Some(String::new()),
                })
                .collect::<Option<_>>()?;
            per_dir_text(slots)
        }
        Value::Ranges(dirs) if def.kind == ValueKind::TimeOrRange => {
            let (lo, hi) = dirs.first().copied().flatten()?;
            format!("{}-{}", time_text(lo), time_text(hi))
        }
        Value::Ranges(dirs) => {
            let slots = dirs[..directions(def, dirs.len())]
                .iter()
                .map(|d| match d {
                    None => String::new(),
                    Some((lo, hi)) if lo == hi && def.kind == ValueKind::SizeOrRange => {
                        size_text(*lo)
                    }
                    Some((lo, hi)) => format!("{}-{}", size_text(*lo), size_text(*hi)),
                })
                .collect();
            per_dir_text(slots)
        }
        Value::BsSplit(dirs) => {
            let slots = dirs
                .iter()
                .map(|d| {
                    drawn(d)
                        .iter()
                        .map(|e| format!("{}/{}", size_text(e.bs), e.pct.unwrap_or(0)))
                        .collect::<Vec<_>>()
                        .join(":")
                })
                .collect();
            per_dir_text(slots)
        }
        _ => return None,
    })
}

/// Per-direction texts joined with `,`, trailing repeats left out (the
/// last value given also sets the later directions).
fn per_dir_text(mut slots: Vec<String>) -> String {
    while slots.len() > 1
        && !slots[slots.len() - 1].is_empty()
        && slots[slots.len() - 1] == slots[slots.len() - 2]
    {
        slots.pop();
    }
    slots.join(",")
}

/// `v` in words: `4 bytes`, `4 KiB`, `5 microseconds`, `read 4 KiB, write
/// 8 KiB, trim 16 KiB`.
pub(crate) fn describe(def: &OptionDef, v: &Value) -> String {
    match v {
        Value::Bool(b) => (if *b { "on" } else { "off" }).to_string(),
        Value::Int(n) => n.to_string(),
        Value::Bytes(n) => bytes(*n),
        Value::Percent(p) => format!("{p}%"),
        Value::Micros(us) => micros(*us),
        Value::Zones(n) => format!("{n} zones"),
        Value::Text(t) if def.kind == ValueKind::EngineName => format!("the engine '{t}'"),
        Value::Text(t) => format!("'{t}'"),
        Value::Floats(f) => f
            .iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join(":"),
        Value::PerDir(dirs) => per_dir(
            dirs[..directions(def, dirs.len())]
                .iter()
                .map(|d| d.as_ref().map(|v| describe(def, v))),
        ),
        Value::Ranges(dirs) if def.kind == ValueKind::TimeOrRange => match dirs.first() {
            Some(Some((lo, hi))) => format!("{} to {}", micros(*lo), micros(*hi)),
            _ => String::new(),
        },
        Value::Ranges(dirs) => per_dir(dirs[..directions(def, dirs.len())].iter().map(|d| {
            d.map(|(lo, hi)| match lo == hi {
                true => bytes(lo),
                false => format!("{} to {}", bytes(lo), bytes(hi)),
            })
        })),
        Value::BsSplit(dirs) => per_dir(dirs.iter().map(|d| {
            (!d.is_empty()).then(|| {
                drawn(d)
                    .iter()
                    .map(|e| format!("{} {}%", bytes(e.bs), e.pct.unwrap_or(0)))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
        })),
        Value::Choice { .. } => spell(def, v).unwrap_or_default(),
        _ => spell(def, v).unwrap_or_default(),
    }
}

/// How many of a per-direction value's `len` slots option `def` has.
fn directions(def: &OptionDef, len: usize) -> usize {
    let n = match def.split {
        Split::One if def.kind == ValueKind::SizeRange => 3,
        Split::One => 1,
        Split::ReadWrite => 2,
        Split::ReadWriteTrim => 3,
    };
    n.min(len)
}

/// Read, write and trim in words; one phrase when all three agree.
fn per_dir(dirs: impl Iterator<Item = Option<String>>) -> String {
    let dirs: Vec<Option<String>> = dirs.collect();
    if let [Some(a), rest @ ..] = dirs.as_slice() {
        if rest.iter().all(|d| d.as_ref() == Some(a)) {
            return a.clone();
        }
    }
    let names = ["read", "write", "trim"];
    dirs.iter()
        .zip(names)
        .map(|(d, n)| match d {
            Some(d) => format!("{n} {d}"),
            None => format!("{n} unchanged"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A byte count as option text: `4k` for 4096 (rfio's strict reading
/// checks that it means the same under the `kb_base` in force).
fn size_text(n: u64) -> String {
    for (shift, unit) in [(40, "t"), (30, "g"), (20, "m"), (10, "k")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{}{unit}", n >> shift);
        }
    }
    n.to_string()
}

/// A time as option text, with a unit fio reads anywhere in a value
/// (`ms`, `us`: `s` counts only at the end).
fn time_text(us: u64) -> String {
    match us {
        us if us > 0 && us % 1000 == 0 => format!("{}ms", us / 1000),
        us => format!("{us}us"),
    }
}

/// A byte count in words: `1 byte`, `4 bytes`, `4 KiB`, `1 MiB`.
fn bytes(n: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{} {unit}", n >> shift);
        }
    }
    match n {
        1 => "1 byte".into(),
        n => format!("{n} bytes"),
    }
}

/// A time in words, in the largest whole unit.
fn micros(us: u64) -> String {
    let (n, unit) = match us {
        0 => (0, "microseconds"),
        us if us % 1_000_000 == 0 => (us / 1_000_000, "seconds"),
        us if us % 1_000 == 0 => (us / 1_000, "milliseconds"),
        us => (us, "microseconds"),
    };
    match n {
        1 => format!("1 {}", unit.trim_end_matches('s')),
        n => format!("{n} {unit}"),
    }
}
