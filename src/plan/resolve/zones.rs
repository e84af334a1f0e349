//! Strided zones: `zonemode`, `zonesize`, `zonerange`, `zoneskip`, with
//! fio 3.33's rules (`fixup_options`): `zonesize` with `zonemode=none` and
//! `zonemode=strided` without `zonesize` are refused, `openfiles` above 1
//! turns strided mode off silently, `zoneskip=Nz` is N zones of
//! `zonesize` bytes; `zonemode=zbd` is refused by rfio.

use super::read::Opts;
use super::Refusal;
use crate::options::Value;

/// A job's strided zones (`JobSpec::zones`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ZoneOptions {
    /// `zonesize`: bytes per zone visit.
    pub(crate) size: u64,
    /// `zonerange` (default: `zonesize`): bytes in a zone.
    pub(crate) range: u64,
    /// `zoneskip`: bytes skipped after each zone.
    pub(crate) skip: u64,
}

/// `None` without strided zones; fio's refusal (in its words) for
/// settings fio refuses.
pub(super) fn resolve(o: Opts<'_>) -> Result<Option<ZoneOptions>, Refusal> {
    let mode = o.choice("zonemode").unwrap_or("none");
    let size = bytes(o, "zonesize", 0);
    match mode {
        "zbd" => {
            return Err(Refusal(
                "zonemode=zbd is not supported by rfio: it needs a zoned block device \
                 (or fio's zone emulation on a regular file); use zonemode=strided or none"
                    .into(),
            ))
        }
        "none" if size != 0 => {
            return Err(Refusal(
                "--zonemode=none and --zonesize are not compatible.".into(),
            ))
        }
        "strided" if size == 0 => {
            return Err(Refusal(
                "--zonesize must be specified when using --zonemode=strided.".into(),
            ))
        }
        "strided" => {}
        _ => return Ok(None),
    }
    // fio: "Strided zone mode only really works with 1 file."; it looks at
    // `openfiles` as written only (it fills in the default, `nrfiles`,
    // later).
    if o.int("openfiles").unwrap_or(0).max(0) > 1 {
        return Ok(None);
    }
    let range = match bytes(o, "zonerange", size) {
        0 => size,
        r => r,
    };
    Ok(Some(ZoneOptions {
        size,
        range,
        skip: bytes(o, "zoneskip", size),
    }))
}

/// A size option in bytes; `Nz` (`zoneskip`) is N zones of `zone` bytes.
fn bytes(o: Opts<'_>, name: &str, zone: u64) -> u64 {
    match o.value(name) {
        Some(Value::Bytes(b)) => *b,
        Some(Value::Int(n)) => (*n).max(0) as u64,
        Some(Value::Zones(n)) => n.saturating_mul(zone),
        _ => 0,
    }
}
