//! Structured values: byte ranges, block-size splits, float lists, CPU lists
//! and random distributions.
//!
//! fio parses these in `parse.c` (`FIO_OPT_RANGE`, `FIO_OPT_FLOAT_LIST`) and in
//! `options.c` callbacks (`str_bssplit_cb`, `set_cpus_allowed`,
//! `str_random_distribution_cb`). Those callbacks use `atoi`/`sscanf`, which
//! stop quietly at the first character they do not understand; rfio refuses
//! such text instead.

use super::number::{directions, invalid, parse_size, spread};
use super::{Distribution, ParseCtx, SplitEntry, Value, ValueError, Zone};
use crate::options::def::{OptionDef, Split};

/// fio's `BSSPLIT_MAX`: entries per direction.
const BSSPLIT_MAX: usize = 64;
/// fio's `ZONESPLIT_MAX`: zones in a zoned distribution.
const ZONESPLIT_MAX: usize = 256;
/// fio's `FIO_MAX_CPUS` on Linux (`CPU_SETSIZE`).
const MAX_CPUS: usize = 1024;
/// fio's defaults when `zipf`/`pareto` are given without a value
/// (`FIO_DEF_ZIPF`, `FIO_DEF_PARETO`).
const DEF_ZIPF: f64 = 1.1;
const DEF_PARETO: f64 = 0.2;

fn other(msg: String) -> ValueError {
    ValueError::Other(msg)
}

/// Split on `sep`, allowing one trailing separator (`4k/50:8k/50:`), which
/// fio ignores. An empty piece elsewhere is refused: fio stops reading the
/// list there and drops the rest.
fn split_entries<'a>(
    text: &'a str,
    sep: char,
    expected: &'static str,
) -> Result<Vec<&'a str>, ValueError> {
    let mut entries: Vec<&str> = text.split(sep).collect();
    if entries.len() > 1 && entries.last() == Some(&"") {
        entries.pop();
    }
    if entries.iter().any(|e| e.is_empty()) {
        return Err(invalid(text, expected));
    }
    Ok(entries)
}

/// A plain whole percentage, `0` to `100`, optionally written with `%`.
fn parse_pct(text: &str, whole: &str) -> Result<u32, ValueError> {
    let digits = text.strip_suffix('%').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(whole, "a list of whole percentages"));
    }
    match digits.parse::<u32>() {
        Ok(p) if p <= 100 => Ok(p),
        _ => Err(other(format!(
            "'{whole}': a percentage must be at most 100, not {digits}"
        ))),
    }
}

/// A finite floating point number (leading and trailing blanks allowed, as
/// `sscanf("%lf")` after fio's blank stripping reads them).
fn parse_float(text: &str, whole: &str) -> Result<f64, ValueError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or_else(|| invalid(whole, "a floating point number"))
}

/// `bsrange=lo-hi[,lo-hi[,lo-hi]]` (also `lo:hi`); a reversed range is
/// swapped, as fio does for `FIO_OPT_RANGE` options, unless
/// `refuse_reversed`: `filesize` (a `FIO_OPT_STR_VAL` in fio) keeps the
/// ends as written, and fio 3.33 then draws file sizes of up to 2^64 bytes
/// (it lays out files until the disk is full). Per-direction pieces follow
/// [`spread`].
pub(super) fn parse_ranges(
    def: &OptionDef,
    text: &str,
    ctx: &ParseCtx,
    refuse_reversed: bool,
) -> Result<Value, ValueError> {
    let value = parse_ranges_swapped(def, text, ctx)?;
    if refuse_reversed {
        for piece in text.split(',') {
            if let Some(at) = piece.find('-').or_else(|| piece.find(':')) {
                let (lo, hi) = (
                    parse_size(&piece[..at], ctx)?,
                    parse_size(&piece[at + 1..], ctx)?,
                );
                if lo > hi {
                    return Err(other(format!(
                        "'{text}': the range {piece} is reversed (fio 3.33 does not swap \
                         it and draws sizes far above both ends); write {}-{}",
                        &piece[at + 1..],
                        &piece[..at]
                    )));
                }
            }
        }
    }
    Ok(value)
}

fn parse_ranges_swapped(def: &OptionDef, text: &str, ctx: &ParseCtx) -> Result<Value, ValueError> {
    // FIO_OPT_RANGE splits per direction on ',' only.
    let pieces: Vec<&str> = text.split(',').collect();
    let dirs = match def.split {
        Split::One => 3,
        split => directions(split),
    };
    let ranges = spread(text, &pieces, dirs, |piece| {
        let at = piece
            .find('-')
            .or_else(|| piece.find(':'))
            .ok_or_else(|| invalid(piece, "a range like 1k-4k"))?;
        let lo = parse_size(&piece[..at], ctx)?;
        let hi = parse_size(&piece[at + 1..], ctx)?;
        for v in [lo, hi] {
            if let Some(min) = def.min {
                if (v as i128) < i128::from(min) {
                    return Err(ValueError::BelowMin {
                        value: v as i64,
                        min,
                    });
                }
            }
            if let Some(max) = def.max {
                if (v as i128) > i128::from(max) {
                    return Err(ValueError::AboveMax {
                        value: v as i64,
                        max,
                    });
                }
            }
        }
        Ok((lo.min(hi), lo.max(hi)))
    })?;
    Ok(Value::Ranges(ranges))
}

/// `bssplit=bs/pct:bs/pct[,...]` for read, write, trim. An empty or `0`
/// percentage is `None`: fio shares what the others leave among those
/// (`4k/0` is not "never" in fio). The given percentages may not add up to
/// more than 100 (fio only notices when two or more are left empty).
pub(super) fn parse_bssplit(text: &str, ctx: &ParseCtx) -> Result<Value, ValueError> {
    // str_bssplit_cb strips blanks around the whole value.
    let trimmed = text.trim();
    let pieces: Vec<&str> = trimmed.split(',').collect();
    if pieces.len() > 3 {
        return Err(other(format!(
            "'{text}': at most 3 lists (read,write,trim); fio misreads the rest"
        )));
    }
    if pieces.iter().all(|p| p.is_empty()) {
        return Err(invalid(text, "a block size split like 4k/50:8k/50"));
    }
    let mut dirs: Vec<Vec<SplitEntry>> = vec![Vec::new(); 3];
    for (i, piece) in pieces.iter().enumerate() {
        if !piece.is_empty() {
            dirs[i] = parse_split_dir(piece, text, ctx)?;
        }
    }
    // str_split_parse: with two lists, trim takes the write list; with one,
    // every direction takes it.
    let last = dirs[pieces.len() - 1].clone();
    for dir in dirs.iter_mut().skip(pieces.len()) {
        *dir = last.clone();
    }
    Ok(Value::BsSplit(dirs))
}

fn parse_split_dir(
    piece: &str,
    whole: &str,
    ctx: &ParseCtx,
) -> Result<Vec<SplitEntry>, ValueError> {
    let entries = split_entries(piece, ':', "a block size split like 4k/50:8k/50")?;
    if entries.len() > BSSPLIT_MAX {
        return Err(other(format!(
            "'{whole}': at most {BSSPLIT_MAX} block sizes per direction; fio ignores the rest"
        )));
    }
    let mut split = Vec::with_capacity(entries.len());
    for entry in entries {
        let (bs, pct) = match entry.split_once('/') {
            Some((bs, pct)) => (bs, Some(pct)),
            None => (entry, None),
        };
        let bs = parse_size(bs, ctx)?;
        if bs == 0 {
            return Err(ValueError::BelowMin { value: 0, min: 1 });
        }
        let pct = match pct {
            None | Some("") => None,
            Some(p) => Some(parse_pct(p, whole)?).filter(|&p| p != 0),
        };
        split.push(SplitEntry { bs, pct });
    }
    let sum: u32 = split.iter().filter_map(|e| e.pct).sum();
    if sum > 100 {
        return Err(other(format!(
            "'{whole}': bssplit percentages add up to {sum}%, more than 100%"
        )));
    }
    Ok(split)
}

/// `:`-separated floats within the option's `min`/`max`. fio reports a bad
/// element after the first and then ignores the error; rfio refuses it.
pub(super) fn parse_floats(def: &OptionDef, text: &str) -> Result<Value, ValueError> {
    let mut floats = Vec::new();
    for element in text.split(':') {
        let f = parse_float(element, text)?;
        if let Some(max) = def.max {
            if f > max as f64 {
                return Err(other(format!(
                    "value out of range: {f:.6} (range max: {:.6})",
                    max as f64
                )));
            }
        }
        if let Some(min) = def.min {
            if f < min as f64 {
                return Err(other(format!(
                    "value out of range: {f:.6} (range min: {:.6})",
                    min as f64
                )));
            }
        }
        floats.push(f);
    }
    Ok(Value::Floats(floats))
}

/// `0,5,8-15`: CPU numbers and inclusive ranges, sorted and deduplicated.
/// Whether the CPUs are online is checked when the job runs.
pub(super) fn parse_cpus(text: &str) -> Result<Value, ValueError> {
    const EXPECTED: &str = "a CPU list like 0,5,8-15";
    // set_cpus_allowed strips blanks around the whole value.
    let entries = split_entries(text.trim(), ',', EXPECTED)?;
    let cpu = |s: &str| -> Result<usize, ValueError> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid(text, EXPECTED));
        }
        match s.parse::<usize>() {
            Ok(n) if n < MAX_CPUS => Ok(n),
            _ => Err(other(format!(
                "'{text}': fio supports CPUs 0 to {}",
                MAX_CPUS - 1
            ))),
        }
    };
    let mut cpus = Vec::new();
    for entry in entries {
        let (lo, hi) = match entry.split_once('-') {
            Some((lo, hi)) => (cpu(lo)?, cpu(hi)?),
            None => (cpu(entry)?, cpu(entry)?),
        };
        if lo > hi {
            // fio sets no CPU at all for a reversed range.
            return Err(other(format!("'{text}': CPU range {entry} is reversed")));
        }
        cpus.extend(lo..=hi);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(Value::Cpus(cpus))
}

/// The distributions fio 3.33 knows.
const DISTRIBUTIONS: [&str; 6] = ["random", "zipf", "pareto", "normal", "zoned", "zoned_abs"];

/// `random_distribution`: `random`, `zipf[:theta[:center]]`,
/// `pareto[:h[:center]]`, `normal[:dev[:center]]`, `zoned:pct/pct:...`,
/// `zoned_abs:pct/size:...`.
///
/// fio 3.33 matches the name before the first `,` (or, without one, the
/// first `:`), so a per-direction value like `zoned:60/40:40/60,100/100`
/// never matches and is refused, and `zipf,pareto` silently means zipf:
/// rfio refuses every `,`.
pub(super) fn parse_distribution(
    def: &OptionDef,
    text: &str,
    ctx: &ParseCtx,
) -> Result<Value, ValueError> {
    let not_a_choice = || ValueError::NotAChoice {
        value: text.to_string(),
    };
    // The name ends at the first `,` or `:`; with no `,` this is fio's key.
    let key = text.split([',', ':']).next().unwrap_or(text);
    let known = if def.posvals.is_empty() {
        DISTRIBUTIONS.contains(&key)
    } else {
        def.posvals.iter().any(|p| p.value == key)
    };
    if !known {
        return Err(not_a_choice());
    }
    if text.contains(',') {
        return Err(other(format!(
            "'{text}': fio 3.33 takes one distribution for all directions; remove the ','"
        )));
    }
    let post = text.split_once(':').map(|(_, post)| post.trim());
    let dist = match key {
        "random" => match post {
            None => Distribution::Random,
            Some(_) => return Err(other(format!("'{text}': 'random' takes no parameter"))),
        },
        "zipf" | "pareto" | "normal" => parse_skewed(key, post, text)?,
        "zoned" | "zoned_abs" => {
            let absolute = key == "zoned_abs";
            let zones = parse_zones(post.unwrap_or(""), absolute, text, ctx)?;
            Distribution::Zoned { absolute, zones }
        }
        _ => return Err(not_a_choice()),
    };
    Ok(Value::Distribution(dist))
}

/// `zipf`, `pareto`, `normal` with their optional value and center, range
/// checked as fio's `str_random_distribution_cb` does.
fn parse_skewed(name: &str, post: Option<&str>, text: &str) -> Result<Distribution, ValueError> {
    let (value, center) = match post {
        None => (None, None),
        Some(p) => match p.split_once(':') {
            Some((v, c)) => (Some(parse_float(v, text)?), Some(parse_float(c, text)?)),
            None => (Some(parse_float(p, text)?), None),
        },
    };
    if let Some(c) = center {
        if !(0.0..=1.0).contains(&c) {
            return Err(other(format!(
                "'{text}': distribution center out of range (0 <= center <= 1.0)"
            )));
        }
    }
    Ok(match name {
        "zipf" => {
            let theta = value.unwrap_or(DEF_ZIPF);
            if theta == 1.0 {
                return Err(other(format!(
                    "'{text}': zipf theta must be different than 1.0"
                )));
            }
            Distribution::Zipf { theta, center }
        }
        "pareto" => {
            let h = value.unwrap_or(DEF_PARETO);
            if h <= 0.0 || h >= 1.0 {
                return Err(other(format!(
                    "'{text}': pareto input out of range (0 < input < 1.0)"
                )));
            }
            Distribution::Pareto { h, center }
        }
        _ => {
            let dev = value.unwrap_or(0.0);
            if !(0.0..100.0).contains(&dev) {
                return Err(other(format!(
                    "'{text}': normal deviation out of range (0 <= input < 100.0)"
                )));
            }
            Distribution::Normal { dev, center }
        }
    })
}

/// The zones of `zoned:` (`io_pct/range_pct`) or `zoned_abs:`
/// (`io_pct/bytes`). The I/O percentages must add up to exactly 100; for
/// `zoned`, range shares left empty (or `0`) split what the others leave,
/// with fio's integer division.
fn parse_zones(
    list: &str,
    absolute: bool,
    text: &str,
    ctx: &ParseCtx,
) -> Result<Vec<Zone>, ValueError> {
    const EXPECTED: &str = "a zoned distribution like zoned:60/10:30/20:10/70";
    if list.is_empty() {
        return Err(invalid(text, EXPECTED));
    }
    let entries = split_entries(list, ':', EXPECTED)?;
    if entries.len() > ZONESPLIT_MAX {
        return Err(other(format!("'{text}': at most {ZONESPLIT_MAX} zones")));
    }
    let mut io = Vec::with_capacity(entries.len());
    let mut sizes: Vec<Option<u64>> = Vec::with_capacity(entries.len());
    for entry in &entries {
        let (pct, size) = match entry.split_once('/') {
            Some((p, s)) => (p, s),
            None => (*entry, ""),
        };
        io.push(parse_pct(pct, text)?);
        sizes.push(if absolute {
            let bytes = if size.is_empty() {
                0
            } else {
                parse_size(size, ctx)?
            };
            if bytes == 0 {
                // fio takes a missing size as 0 bytes: a zone nothing can land in.
                return Err(other(format!(
                    "'{text}': each zoned_abs zone needs a size above 0, like 60/20g"
                )));
            }
            Some(bytes)
        } else if size.is_empty() {
            None
        } else {
            Some(u64::from(parse_pct(size, text)?)).filter(|&s| s != 0)
        });
    }
    let io_sum: u32 = io.iter().sum();
    let size_sum: u64 = sizes.iter().flatten().sum();
    if io_sum > 100 || (!absolute && size_sum > 100) {
        return Err(other(format!(
            "'{text}': zone_split percentages add to more than 100%"
        )));
    }
    if io_sum < 100 {
        return Err(other(format!(
            "'{text}': access percentage don't add up to 100 for zoned random \
             distribution (got={io_sum})"
        )));
    }
    let missing = sizes.iter().filter(|s| s.is_none()).count() as u64;
    if missing == 1 && sizes.len() == 1 {
        // fio 3.33 gives a lone zone without a range share 0% of the range
        // (all I/O at offset 0).
        return Err(other(format!(
            "'{text}': give the zone its share of the range, like zoned:100/100"
        )));
    }
    // Only `zoned` has missing shares, and its given shares sum to <= 100.
    let share = 100u64
        .saturating_sub(size_sum)
        .checked_div(missing)
        .unwrap_or(0);
    Ok(io
        .into_iter()
        .zip(sizes)
        .map(|(io_pct, size)| Zone {
            io_pct,
            size: size.unwrap_or(share),
        })
        .collect())
}
