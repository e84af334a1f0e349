//! Strided zones (`zonemode=strided`, fio's `io_u.c`
//! `setup_strided_zone_mode`): the job works on one zone of a file at a
//! time.
//!
//! - `zonesize=S`: bytes of I/O done in a zone before moving on;
//!   `zonerange=R` (default: `S`): the size of a zone, so random offsets
//!   are drawn in `[zone start, zone start + R)`; `zoneskip=K`: extra bytes
//!   left out between zones.
//! - After `S` bytes the zone start moves by `R + K`; past the end of the
//!   file it wraps back to the job's start offset. Sequential I/O restarts
//!   at each zone start, and again at the start of the same zone when it
//!   reaches the zone's end before `S` bytes are done (`S > R`). Whenever
//!   the bytes done in the zone are a multiple of `R` (a new zone, or a new
//!   round of one), the file is reset as fio's `fio_file_reset` resets it:
//!   positions, random map, LFSR.
//! - The bytes are counted per job (fio's `td->zone_bytes`), over all its
//!   files and directions, and cleared at the start of every loop, when
//!   the zone start goes back to the start offset.
//!
//! fio 3.33's option rules, checked when the job is set up (before any
//! I/O): `zonemode` defaults to `none`, and `zonesize` with `zonemode=none`
//! is an error (`--zonemode=none and --zonesize are not compatible.`), as is
//! `zonemode=strided` without `zonesize`; `zonerange` and `zoneskip` alone
//! do nothing. `openfiles` above 1 turns strided mode off silently (not
//! `nrfiles`: several files each get their own zone, with one byte count
//! for the job). `zoneskip=Nz` is N zones of `zonesize` bytes.
//! `zonemode=zbd` (zoned block devices, and fio's emulation of zones on
//! regular files) is refused.

use super::offsets::{FileCursor, SetupError};
use super::rng::choice;
use crate::options::Value;
use crate::plan::spec::{Dir, JobSpec};

/// The strided zone state of one job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StridedZones {
    /// `zonesize`: bytes per zone visit.
    pub size: u64,
    /// `zonerange`: bytes in a zone.
    pub range: u64,
    /// `zoneskip`: bytes skipped after each zone.
    pub skip: u64,
    /// Bytes done in the current zone (fio's `td->zone_bytes`).
    bytes: u64,
}

impl StridedZones {
    /// The zone settings of `spec`: `None` without strided zones, an
    /// error (in fio's words where fio has them) for settings fio refuses.
    pub fn of(spec: &JobSpec) -> Result<Option<StridedZones>, SetupError> {
        let mode = choice(spec, "zonemode").unwrap_or("none");
        let size = bytes(spec, "zonesize", 0);
        match mode {
            "zbd" => {
                return Err(SetupError::Invalid(
                    "zonemode=zbd is not supported by rfio: it needs a zoned block device \
                     (or fio's zone emulation on a regular file); use zonemode=strided or none"
                        .into(),
                ))
            }
            "none" if size != 0 => {
                return Err(SetupError::Invalid(
                    "--zonemode=none and --zonesize are not compatible.".into(),
                ))
            }
            "strided" if size == 0 => {
                return Err(SetupError::Invalid(
                    "--zonesize must be specified when using --zonemode=strided.".into(),
                ))
            }
            "strided" => {}
            _ => return Ok(None),
        }
        // fio: "Strided zone mode only really works with 1 file."; it
        // looks at `openfiles` only.
        if open_files(spec) > 1 {
            return Ok(None);
        }
        let range = match bytes(spec, "zonerange", size) {
            0 => size,
            r => r,
        };
        Ok(Some(StridedZones {
            size,
            range,
            skip: bytes(spec, "zoneskip", size),
            bytes: 0,
        }))
    }

    /// Before the offset of an I/O of `dir` on `f` is chosen (fio's
    /// `setup_strided_zone_mode`): move to the next zone when this one is
    /// done, keep sequential I/O inside the zone, reset the file at each
    /// round. `block_seed` re-seeds an LFSR. Allocation free.
    #[inline]
    pub fn before_io(&mut self, f: &mut FileCursor, dir: Dir, block_seed: u64) {
        if self.bytes >= self.size {
            self.bytes = 0;
            let mut fo = f.file_offset().wrapping_add(self.range + self.skip);
            if fo >= f.region.real_file_size {
                fo = f.region.file_offset;
            }
            f.set_file_offset(fo);
            f.set_last_pos(dir, fo);
        }
        if f.last_pos(dir) >= f.file_offset().wrapping_add(self.range) {
            let fo = f.file_offset();
            f.set_last_pos(dir, fo);
        }
        if self.bytes % self.range == 0 {
            f.reset(block_seed);
        }
    }

    /// Count `len` bytes issued in the current zone.
    #[inline]
    pub fn done(&mut self, len: u64) {
        self.bytes += len;
    }

    /// A new loop: no bytes done in the zone (fio's `reset_io_counters`).
    pub fn reset(&mut self) {
        self.bytes = 0;
    }
}

/// A size option in bytes; `Nz` (`zoneskip`) is N zones of `zone` bytes.
fn bytes(spec: &JobSpec, name: &str, zone: u64) -> u64 {
    match spec.opt(name) {
        Some(Value::Bytes(b)) => *b,
        Some(Value::Int(n)) => (*n).max(0) as u64,
        Some(Value::Zones(n)) => n.saturating_mul(zone),
        _ => 0,
    }
}

/// `openfiles` as fio knows it when it checks the zone mode: the option
/// as written (fio fills in the default, `nrfiles`, only later).
fn open_files(spec: &JobSpec) -> u64 {
    match spec.opt("openfiles") {
        Some(Value::Int(n)) => (*n).max(0) as u64,
        _ => 0,
    }
}
