//! `ioengine=pvsync2`: `preadv2(2)`/`pwritev2(2)` of one vector, with
//! `RWF_HIPRI` (polled completion) when `hipri` is set (fio's
//! `engines/sync.c`).

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{non_data, ret, Files};
use super::io::{EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};
use crate::ddir::Ddir;

pub(crate) struct Pvsync2 {
    files: Files,
    /// `RWF_*` flags of every transfer.
    rwf: libc::c_int,
}

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps::SYNC_FILES;

/// pvsync2's own options (fio's `options[]` of `engines/sync.c` that rfio
/// runs with).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Pvsync2Options {
    /// `hipri`: `RWF_HIPRI` on every transfer.
    pub(crate) hipri: bool,
}

/// The fio names of [`Pvsync2Options`].
pub(crate) const OPTIONS: &[&str] = &["hipri"];

pub(crate) fn new(
    _common: &CommonOptions,
    opts: &Pvsync2Options,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Pvsync2 {
        files: Files::default(),
        rwf: if opts.hipri { libc::RWF_HIPRI } else { 0 },
    }))
}

impl Pvsync2 {
    /// # Safety
    /// As [`IoEngine::queue`]: `io.buf` is valid for `io.len` bytes, and
    /// untouched by anyone else, until this returns.
    #[inline]
    unsafe fn xfer(&mut self, io: &Io) -> IoResult {
        if let Some(r) = non_data(&self.files, io.file, io.dir, io.offset, io.len) {
            return r;
        }
        let fd = self.files.fd(io.file);
        let iov = libc::iovec {
            iov_base: io.buf.cast(),
            iov_len: io.len,
        };
        let off = io.offset as libc::off_t;
        // SAFETY: `iov` describes `io.buf`, valid for `io.len` bytes until
        // this returns (this function's contract).
        ret(unsafe {
            match io.dir {
                Ddir::Read => libc::preadv2(fd, &iov, 1, off, self.rwf),
                _ => libc::pwritev2(fd, &iov, 1, off, self.rwf),
            }
        })
    }
}

super::files::sync_file_engine!(Pvsync2, "pvsync2");
