//! The offset state of one file (fio's `fio_file`: positions, random map
//! or LFSR, distribution state), and what the generator decides for one
//! I/O.

use super::region::FileRegion;
use crate::ddir::Ddir;
use crate::rand::{Axmap, Gauss, Lfsr, Zipf};

/// A file's own distribution generator.
#[derive(Debug, Clone)]
pub(super) enum FileDist {
    None,
    Zipf(Zipf),
    Gauss(Gauss),
}

/// The offset state of one file (fio's `fio_file`: `last_pos`,
/// `last_start`, random map or LFSR, distribution).
#[derive(Debug, Clone)]
pub(crate) struct FileCursor {
    pub(crate) region: FileRegion,
    /// fio's `f->file_offset`: where the region starts now. It is
    /// `region.file_offset` (fio's `get_start_offset`) except while strided
    /// zones move it ([`crate::workload::zones`]).
    pub(super) file_offset: u64,
    pub(super) last_pos: [u64; 3],
    pub(super) last_start: [u64; 3],
    pub(super) map: Option<Axmap>,
    pub(super) lfsr: Option<Lfsr>,
    pub(super) dist: FileDist,
    /// `sprandom`: where the writes go (its state lasts the job: fio's
    /// `f->spr_info`, which a new loop does not reset).
    pub(super) spr: Option<Box<super::sprandom::Sprandom>>,
    /// The file just started over inside a pass (fio's
    /// `loop_cache_invalidate` points): its page cache is to be dropped.
    pub(super) wrapped: bool,
}

impl FileCursor {
    /// Where the last I/O of `dir` on this file started (`u64::MAX`
    /// before the first).
    pub(crate) fn last_start(&self, dir: Ddir) -> u64 {
        self.last_start[dir.index()]
    }

    /// `sprandom` gave its last block.
    pub(crate) fn sprandom_done(&self) -> bool {
        self.spr.as_ref().is_some_and(|s| s.done())
    }

    /// Where the last I/O of `dir` on this file ended.
    pub(crate) fn last_pos(&self, dir: Ddir) -> u64 {
        self.last_pos[dir.index()]
    }

    /// Where the region starts now (fio's `f->file_offset`): the start
    /// offset, or the current zone's start with strided zones.
    pub(crate) fn file_offset(&self) -> u64 {
        self.file_offset
    }

    /// Move the region's start (a strided zone switch).
    pub(crate) fn set_file_offset(&mut self, offset: u64) {
        self.file_offset = offset;
    }

    /// Set where the last I/O of `dir` ended (a strided zone switch).
    pub(crate) fn set_last_pos(&mut self, dir: Ddir, pos: u64) {
        self.last_pos[dir.index()] = pos;
    }

    /// The I/O of `dir` just placed went to `offset` for `len` bytes (a
    /// zoned device moved it from where it was drawn).
    pub(crate) fn moved(&mut self, dir: Ddir, offset: u64, len: u64) {
        self.last_start[dir.index()] = offset;
        self.last_pos[dir.index()] = offset + len;
    }

    /// fio's `fio_file_reset`: positions back to the region's start,
    /// random map cleared, LFSR re-seeded with `block_seed`.
    pub(crate) fn reset(&mut self, block_seed: u64) {
        self.last_pos = [self.file_offset; 3];
        self.last_start = [u64::MAX; 3];
        if let Some(m) = &mut self.map {
            m.reset();
        } else if let Some(l) = &mut self.lfsr {
            l.reset(block_seed);
        }
    }
}

/// What the offset generator decided for one I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NextOffset {
    /// Absolute offset in the file.
    pub(crate) offset: u64,
    /// Whether this I/O counts as random (`bs_is_seq_rand` reads it).
    pub(crate) is_random: bool,
    /// Whether the random map must not be marked (fio's `IO_U_F_BUSY_OK`).
    pub(crate) busy_ok: bool,
    /// The length fio imposes (a `randtrimwrite` write repeats its trim).
    pub(crate) len: Option<u64>,
}
