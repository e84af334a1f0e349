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
//! fio 3.33's option rules are the plan's ([`ZoneOptions`]): settings fio
//! refuses are refused when the job is set up (before any I/O), in fio's
//! words (`--zonemode=none and --zonesize are not compatible.`).

use super::offsets::cursor::FileCursor;
use super::offsets::error::SetupError;
use crate::ddir::Ddir;
use crate::plan::resolve::zones::{ZoneMode, ZoneOptions};
use crate::plan::spec::JobSpec;

/// The strided zone state of one job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StridedZones {
    /// `zonesize`: bytes per zone visit.
    pub(crate) size: u64,
    /// `zonerange`: bytes in a zone.
    pub(crate) range: u64,
    /// `zoneskip`: bytes skipped after each zone.
    pub(crate) skip: u64,
    /// Bytes done in the current zone (fio's `td->zone_bytes`).
    bytes: u64,
}

impl StridedZones {
    /// The zone state of `spec`: `None` without strided zones (zoned
    /// block devices are [`super::zbd`]'s), fio's
    /// refusal (in its words) for settings fio refuses.
    pub(crate) fn of(spec: &JobSpec) -> Result<Option<StridedZones>, SetupError> {
        match &spec.zones {
            Err(refusal) => Err(SetupError::Invalid(refusal.0.clone())),
            Ok(None | Some(ZoneMode::Zbd(_))) => Ok(None),
            Ok(Some(ZoneMode::Strided(ZoneOptions { size, range, skip }))) => {
                Ok(Some(StridedZones {
                    size: *size,
                    range: *range,
                    skip: *skip,
                    bytes: 0,
                }))
            }
        }
    }

    /// Before the offset of an I/O of `dir` on `f` is chosen (fio's
    /// `setup_strided_zone_mode`): move to the next zone when this one is
    /// done, keep sequential I/O inside the zone, reset the file at each
    /// round. `block_seed` re-seeds an LFSR. Allocation free.
    #[inline]
    pub(crate) fn before_io(&mut self, f: &mut FileCursor, dir: Ddir, block_seed: u64) {
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
    pub(crate) fn done(&mut self, len: u64) {
        self.bytes += len;
    }

    /// A new loop: no bytes done in the zone (fio's `reset_io_counters`).
    pub(crate) fn reset(&mut self) {
        self.bytes = 0;
    }
}
