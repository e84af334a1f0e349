//! The byte range of a file a job works on, and where it starts (fio's
//! `get_start_offset`).

use crate::plan::resolve::offsets::Share;
use crate::plan::spec::JobSpec;

/// The byte range of one file a job works on (fio's `fio_file` fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileRegion {
    /// Absolute start of the I/O region (fio's `file_offset`, normally
    /// [`start_offset`]).
    pub(crate) file_offset: u64,
    /// Bytes of the region (fio's `io_size`).
    pub(crate) io_size: u64,
    /// Size of the whole file (fio's `real_file_size`); for a file rfio
    /// creates, `file_offset + io_size`.
    pub(crate) real_file_size: u64,
}

impl FileRegion {
    /// A region of `io_size` bytes starting at `file_offset` in a file
    /// that ends with it.
    pub fn new(file_offset: u64, io_size: u64) -> FileRegion {
        FileRegion {
            file_offset,
            io_size,
            real_file_size: file_offset + io_size,
        }
    }

    /// Absolute end of the I/O region (fio's `io_size + get_start_offset`).
    pub(crate) fn end(&self) -> u64 {
        self.file_offset + self.io_size
    }
}

/// fio's `get_start_offset`: where job `spec` starts in a file of
/// `real_file_size` bytes: `offset` (bytes or a percentage of the file)
/// plus `subjob * offset_increment` (bytes or a percentage); percentages
/// are rounded up to `offset_align` or, without it, the smallest block
/// size.
pub fn start_offset(spec: &JobSpec, real_file_size: u64) -> u64 {
    let o = &spec.offsets;
    let mut align = false;
    let mut bytes = |share: Share| match share {
        Share::Percent(p) => {
            align = true;
            percent_of(p, real_file_size)
        }
        Share::Bytes(b) => b,
    };
    let sub = u64::from(spec.subjob).wrapping_mul(bytes(o.offset_increment));
    let mut offset = bytes(o.offset) + sub;
    if align {
        let align_bs = match o.offset_align {
            Some(b) => b,
            None => spec.bs.iter().map(|b| b.0).min().unwrap_or(4096).max(1),
        };
        offset = offset.div_ceil(align_bs) * align_bs;
    }
    offset
}

/// `p`% of `n` in fio's integer arithmetic (`n * p / 100`).
fn percent_of(p: f64, n: u64) -> u64 {
    if p.fract() == 0.0 {
        (u128::from(n) * p as u128 / 100) as u64
    } else {
        (n as f64 * p / 100.0) as u64
    }
}
