//! Typed option values and the parsers that turn option text into them.
//!
//! Each parser follows fio 3.33's `parse.c` for what it accepts and what it
//! means, and refuses the inputs fio silently misreads (trailing garbage after
//! a number, unknown suffixes, negative counts): a benchmark must never run
//! with a value other than the one its author meant.
//!
//! Where rfio refuses what fio 3.33 accepts, the doc comment of the parser
//! says what fio does instead. The numbers live in `value/number.rs`, the
//! lists and distributions in `value/lists.rs`.

pub(crate) mod fio;
pub(crate) mod hint;
mod lists;
mod number;
mod plids;
pub(crate) use plids::parse_plids;
pub(crate) mod pattern;
pub(crate) mod steadystate;
#[cfg(test)]
mod tests;

pub(crate) use number::{parse_signed_size, parse_size};

use super::def::{FioType, OptionDef, ValueKind};
use crate::jobfile::Mode;

/// What the parsers need to know beyond the text itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ParseCtx {
    /// `kb_base` in force for this section: 1024 (default) or 1000.
    pub(crate) kb_base: u32,
    /// Whether values fio misreads are refused or read as fio reads them
    /// (see [`fio`]).
    pub(crate) mode: Mode,
    /// The fio release the values are read as.
    pub(crate) release: crate::release::Release,
}

impl Default for ParseCtx {
    fn default() -> Self {
        ParseCtx {
            kb_base: 1024,
            mode: Mode::Strict,
            release: crate::release::Release::DEFAULT,
        }
    }
}

/// A random offset distribution (`random_distribution=`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Distribution {
    Random,
    Zipf {
        theta: f64,
        center: Option<f64>,
    },
    Pareto {
        h: f64,
        center: Option<f64>,
    },
    Normal {
        dev: f64,
        center: Option<f64>,
    },
    /// `zoned:pct/pct_of_range:...` (`zoned_abs` with sizes in bytes). One
    /// list for every direction: fio 3.33 cannot take per-direction zones.
    Zoned {
        absolute: bool,
        zones: Vec<Zone>,
    },
}

/// One zone of a zoned distribution: `io_pct` percent of the I/O goes to the
/// next `size` (a percentage of the range, or bytes for `zoned_abs`). A
/// range share left empty is already filled in as fio does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Zone {
    pub(crate) io_pct: u32,
    pub(crate) size: u64,
}

/// One `bssplit` entry: `pct` percent of I/Os use block size `bs`.
/// `pct` is `None` when left empty (share the remainder equally).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitEntry {
    pub(crate) bs: u64,
    pub(crate) pct: Option<u32>,
}

/// A parsed option value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// A flag or boolean.
    Bool(bool),
    /// An integer (also counts like `numjobs`, `iodepth`).
    Int(i64),
    /// A byte quantity.
    Bytes(u64),
    /// A percentage (`size=50%`), 0 < p <= 100.
    Percent(f64),
    /// A time in microseconds.
    Micros(u64),
    /// Text kept as written (after substitution).
    Text(String),
    /// The index into `posvals`, and the text after the first `:` if any
    /// (blanks around it removed, as fio's `get_opt_postfix`). For `rw` it
    /// is checked: a count of at least 1 after a random pattern
    /// (`randread:8`), a size that may be negative after a sequential one
    /// (`write:4k`, `read:-8k`; read it with [`parse_signed_size`]). For other
    /// choices it is kept unchecked, because only some fio callbacks read it
    /// (`mem=mmaphuge:/path`, `ioengine=external:/lib.so`,
    /// `file_service_type=random:4`, `steadystate=iops:10%`): the consumer
    /// must refuse it where the option takes none (fio drops it there).
    Choice {
        index: usize,
        modifier: Option<String>,
    },
    /// Several of `posvals`, `,`-separated (`FIO_OPT_STR_MULTI`, e.g.
    /// `sync_file_range=wait_before,write:8`), and the `:N` after the last.
    ChoiceSet {
        indices: Vec<usize>,
        modifier: Option<String>,
    },
    /// Per-direction values for read, write, trim; `None` means "not given,
    /// use the default for that direction". Always three entries.
    PerDir(Vec<Option<Value>>),
    /// Per-direction `lo-hi` byte ranges; always three entries.
    Ranges(Vec<Option<(u64, u64)>>),
    /// `:`-separated floats.
    Floats(Vec<f64>),
    /// Per-direction block-size splits; always three entries (an empty one
    /// means "not given").
    BsSplit(Vec<Vec<SplitEntry>>),
    /// A number of zones (`size=10z`, only for `FIO_OPT_STR_VAL_ZONE`
    /// options; meaningful with `zonemode=zbd`).
    Zones(u64),
    /// A CPU list, sorted and deduplicated.
    Cpus(Vec<usize>),
    /// A random distribution.
    Distribution(Distribution),
    /// A deprecated or ignored option: nothing to keep.
    Nothing,
}

/// Why a value was refused. The messages name the problem; the caller adds
/// the option, the job and the file:line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ValueError {
    /// A non-flag option written bare.
    #[error("requires an argument")]
    MissingArgument,
    /// The text is not a value of this kind at all.
    #[error("'{value}' is not {expected}")]
    Invalid {
        value: String,
        expected: &'static str,
    },
    /// A number followed by something fio would silently drop.
    #[error("'{value}': unexpected '{rest}' after the number")]
    TrailingGarbage { value: String, rest: String },
    /// A number written with a blank before it (`bs = 4k` in a job file
    /// keeps the blank): fio 3.33 reads ` 4k` as 4 bytes.
    #[error("'{value}' starts with a blank, which fio misreads (' 4k' is 4 bytes); remove it")]
    LeadingBlank { value: String },
    /// An unknown unit suffix.
    #[error("'{value}': unknown unit suffix '{suffix}'")]
    BadSuffix { value: String, suffix: String },
    /// Below the option's minimum.
    #[error("min value out of range: {value} ({min} min)")]
    BelowMin { value: i64, min: i64 },
    /// Above the option's maximum.
    #[error("max value out of range: {value} ({max} max)")]
    AboveMax { value: i64, max: i64 },
    /// Not one of the allowed values (the caller lists them).
    #[error("'{value}' is not a valid value")]
    NotAChoice { value: String },
    /// A pattern (`buffer_pattern`, `verify_pattern`) that does not read.
    #[error("'{text}': {why}")]
    Pattern {
        text: String,
        why: pattern::PatternError,
    },
    /// A structural problem (bssplit over 100%, a reversed range...).
    #[error("{0}")]
    Other(String),
    /// A value fio's option callback refuses, with the lines it logs
    /// before its `failed parsing` (none: it says nothing more).
    #[error("'{}'", if .0.is_empty() { "fio cannot read it" } else { .0[0].as_str() })]
    Fio(Vec<String>),
    /// An option fio 3.33 lists but refuses whatever its value
    /// (`percentage_sequential`, `rwmixcycle`: `FIO_OPT_DEPRECATED`).
    #[error("fio 3.33 refuses this option (\"Option {0} is deprecated\")")]
    Deprecated(&'static str),
}

/// Parse `raw` (the text after `=`, or `None` when the option was written
/// bare) as a value of option `def`.
///
/// `raw` is taken as it was written: a job-file value keeps a blank after
/// `=` (fio does too), and refusing it here is deliberate (see
/// [`ValueError::LeadingBlank`]).
pub(crate) fn parse_value(
    def: &OptionDef,
    raw: Option<&str>,
    ctx: &ParseCtx,
) -> Result<Value, ValueError> {
    if def.fio_type == FioType::Deprecated {
        return Err(ValueError::Deprecated(def.name));
    }
    if let Some(formats) = pattern::pattern_option(def.name) {
        // fio parses a pattern when it reads the option (a bare one too).
        let text = raw.unwrap_or("");
        pattern::parse_pattern(text, formats, pattern::max_size(ctx.release))?;
        return Ok(Value::Text(text.to_string()));
    }
    let Some(text) = raw else {
        // fio hands a bare `FIO_OPT_STR` option to its handler: a choice then
        // fails to match, a callback option (`write_bw_log`) takes it as "on".
        return match def.kind {
            ValueKind::Flag => Ok(Value::Bool(true)),
            ValueKind::Ignored => Ok(Value::Nothing),
            _ if def.fio_type == FioType::Str && !def.posvals.is_empty() => {
                Err(ValueError::NotAChoice {
                    value: String::new(),
                })
            }
            ValueKind::Text if def.fio_type == FioType::Str => Ok(Value::Text(String::new())),
            _ => Err(ValueError::MissingArgument),
        };
    };
    match def.kind {
        ValueKind::Ignored => Ok(Value::Nothing),
        ValueKind::Text => parse_text(def, text),
        ValueKind::EngineName => parse_engine_name(text),
        ValueKind::Choice | ValueKind::ChoiceWithModifier if def.fio_type == FioType::StrMulti => {
            parse_choice_set(def, text)
        }
        ValueKind::Choice | ValueKind::ChoiceWithModifier => parse_choice(def, text, ctx),
        ValueKind::Int
        | ValueKind::Size
        | ValueKind::SizeOrPercent
        | ValueKind::Time
        | ValueKind::Bool
        | ValueKind::Flag => number::parse_numeric(def, text, ctx),
        ValueKind::TimeOrRange => parse_time_or_range(def, text, ctx),
        ValueKind::SizeRange => lists::parse_ranges(def, text, ctx, false),
        ValueKind::SizeOrRange if !text.contains(['-', ':', ',']) => {
            let n = parse_size(text, ctx)?;
            Ok(Value::Ranges(vec![Some((n, n)), None, None]))
        }
        // fio reads `filesize` as a low and a high end: the first number
        // and the last (`512-4k,1k-8k` is 512-8k); only one range means
        // what it says.
        ValueKind::SizeOrRange if text.contains(',') => Err(ValueError::Other(format!(
            "'{text}': one size or one range lo-hi, without ','"
        ))),
        ValueKind::SizeOrRange => lists::parse_ranges(def, text, ctx, true),
        ValueKind::FloatList => lists::parse_floats(def, text),
        ValueKind::BsSplit => lists::parse_bssplit(text, ctx),
        ValueKind::CpuList => lists::parse_cpus(text),
        ValueKind::PlacementIds => match plids::parse_plids(text) {
            Ok(_) => Ok(Value::Text(text.to_string())),
            Err(lines) => Err(ValueError::Fio(lines)),
        },
        ValueKind::RandomDistribution => lists::parse_distribution(def, text, ctx),
    }
}

/// Free text, kept as written. fio refuses an empty `FIO_OPT_STR_STORE`
/// value (`description=`).
fn parse_text(def: &OptionDef, text: &str) -> Result<Value, ValueError> {
    if text.is_empty() && def.fio_type == FioType::StrStore {
        return Err(number::invalid(text, "a non-empty value"));
    }
    Ok(Value::Text(text.to_string()))
}

/// A time, or `lo-hi`: two times (microseconds) for a random pick between
/// them, as fio's `startdelay=1-3` (lo > hi are swapped, as fio does).
fn parse_time_or_range(def: &OptionDef, text: &str, ctx: &ParseCtx) -> Result<Value, ValueError> {
    let time = OptionDef {
        kind: ValueKind::Time,
        ..*def
    };
    let micros = |t: &str| match number::parse_numeric(&time, t, ctx)? {
        Value::Micros(us) => Ok(us),
        _ => Err(number::invalid(t, "a time")),
    };
    match text.get(1..).and_then(|rest| rest.find('-')).map(|i| i + 1) {
        Some(dash) => {
            number::check_time_piece(text, &text[..dash])?;
            let (lo, hi) = (micros(&text[..dash])?, micros(&text[dash + 1..])?);
            Ok(Value::Ranges(vec![
                Some((lo.min(hi), lo.max(hi))),
                None,
                None,
            ]))
        }
        None => micros(text).map(Value::Micros),
    }
}

/// An ioengine name. fio takes any text here and fails only when it runs
/// the job (`ioengine = null` → "engine  null not loadable"); rfio refuses
/// blanks and empty names at once. `external:PATH` must name a regular file,
/// which fio checks while parsing too ("invalid external ioengine path").
fn parse_engine_name(text: &str) -> Result<Value, ValueError> {
    if text.starts_with([' ', '\t']) {
        return Err(ValueError::LeadingBlank {
            value: text.to_string(),
        });
    }
    if text.is_empty() || text.contains(char::is_whitespace) {
        return Err(number::invalid(text, "an ioengine name"));
    }
    if let Some(path) = super::engines::external_path(text) {
        if !std::path::Path::new(path).is_file() {
            return Err(ValueError::Other(format!(
                "invalid external ioengine path '{path}': not a regular file"
            )));
        }
    }
    Ok(Value::Text(text.to_string()))
}

/// The part of a choice value fio 3.33 compares with the allowed values:
/// up to the first `,`, or when there is none up to the first `:` (its
/// `opt_len`). Returns the part, the delimiter, and the text after it.
fn choice_key(text: &str) -> (&str, Option<char>, Option<&str>) {
    for delim in [',', ':'] {
        if let Some((key, post)) = text.split_once(delim) {
            return (key, Some(delim), Some(post));
        }
    }
    (text, None, None)
}

fn find_posval(def: &OptionDef, key: &str) -> Option<usize> {
    def.posvals.iter().position(|p| p.value == key)
}

/// One of `posvals`, matched exactly and case-sensitively (fio compares
/// `max(len(posval), len(key))` bytes), so a value with a leading blank
/// (`rw = randread` in a job file) matches nothing, in fio too.
///
/// fio ignores everything after a `,` (`rw=read,write` is `read`): rfio
/// refuses it. The text after a `:` becomes the modifier.
fn parse_choice(def: &OptionDef, text: &str, ctx: &ParseCtx) -> Result<Value, ValueError> {
    let (key, delim, post) = choice_key(text);
    let index = find_posval(def, key).ok_or_else(|| ValueError::NotAChoice {
        value: text.to_string(),
    })?;
    let modifier = match (delim, post) {
        (Some(','), _) => {
            return Err(ValueError::TrailingGarbage {
                value: text.to_string(),
                rest: text[key.len()..].to_string(),
            })
        }
        (_, Some(post)) => {
            let post = post.trim();
            if post.is_empty() {
                return Err(number::invalid(text, "a choice with a value after ':'"));
            }
            if def.kind == ValueKind::ChoiceWithModifier {
                check_rw_modifier(def.posvals[index].value, post, text, ctx)?;
            }
            Some(post.to_string())
        }
        _ => None,
    };
    if def.name == "steadystate" {
        steadystate::threshold(def.posvals[index].value, modifier.as_deref(), ctx)?;
    }
    Ok(Value::Choice { index, modifier })
}

/// The `N` of `rw=<pattern>:N`, checked as fio's `str_rw_cb` reads it.
///
/// After a random pattern (`rand…`) fio reads N with `atoi`: `randread:8k`
/// is 8, `randread:abc` is 0 (never re-seek). rfio wants a plain count of at
/// least 1. After a sequential pattern N is a size that may be negative.
fn check_rw_modifier(
    pattern: &str,
    post: &str,
    text: &str,
    ctx: &ParseCtx,
) -> Result<(), ValueError> {
    if !pattern.starts_with("rand") {
        return parse_signed_size(post, ctx).map(|_| ());
    }
    match post.parse::<u32>() {
        Ok(n) if n >= 1 && post.bytes().all(|b| b.is_ascii_digit()) => Ok(()),
        _ => Err(ValueError::Other(format!(
            "'{text}': after a random pattern, ':N' counts I/Os per new random offset \
             and must be a whole number of at least 1"
        ))),
    }
}

/// Several of `posvals` separated by `,` (`FIO_OPT_STR_MULTI`). fio reads a
/// `:N` from the first `:` it finds, and matches an earlier piece holding a
/// `:` against nothing (silently dropping it): rfio takes `:N` only on the
/// last piece.
fn parse_choice_set(def: &OptionDef, text: &str) -> Result<Value, ValueError> {
    let pieces: Vec<&str> = text.split(',').collect();
    let mut indices = Vec::with_capacity(pieces.len());
    let mut modifier = None;
    for (i, piece) in pieces.iter().enumerate() {
        let (key, post) = match piece.split_once(':') {
            Some((key, post)) if i + 1 == pieces.len() => (key, Some(post.trim())),
            Some(_) => {
                return Err(ValueError::Other(format!(
                    "'{text}': only the last value may have a ':N'"
                )))
            }
            None => (*piece, None),
        };
        let index = find_posval(def, key).ok_or_else(|| ValueError::NotAChoice {
            value: text.to_string(),
        })?;
        indices.push(index);
        if let Some(post) = post {
            if post.is_empty() {
                return Err(number::invalid(text, "a choice with a value after ':'"));
            }
            modifier = Some(post.to_string());
        }
    }
    Ok(Value::ChoiceSet { indices, modifier })
}
