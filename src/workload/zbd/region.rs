//! The region of a zoned job's file as the zone rules see it now.

use crate::workload::offsets::FileCursor;

/// The region of a file now: its start (which `zoneskip` moves) and size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Region {
    pub(crate) file_offset: u64,
    pub(crate) io_size: u64,
}

impl Region {
    /// The region of file `f` now.
    pub(crate) fn of(f: &FileCursor) -> Region {
        Region {
            file_offset: f.file_offset(),
            io_size: f.region.io_size,
        }
    }

    /// fio's `is_valid_offset`.
    pub(super) fn valid(&self, offset: u64) -> bool {
        offset.wrapping_sub(self.file_offset) < self.io_size
    }
}
