//! `ioengine=vsync`: `lseek(2)` then `readv(2)`/`writev(2)` of one vector
//! (fio's `engines/sync.c`).

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{non_data, ret, Files};
use super::flags::{self, fio, EngineFlags};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};
use crate::ddir::Ddir;

#[derive(Default)]
pub(crate) struct Vsync {
    files: Files,
}

/// What `ioengine=vsync` is (fio's `engines/sync.c`).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::SYNCIO).open_error_at(flags::GENERIC_OPEN);

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps::SYNC_FILES;

pub(crate) fn new(_common: &CommonOptions, _mem: IoMem) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Vsync::default()))
}

impl Vsync {
    /// # Safety
    /// As [`IoEngine::queue`]: `io.buf` is valid for `io.len` bytes, and
    /// untouched by anyone else, until this returns.
    #[inline]
    unsafe fn xfer(&mut self, io: &Io) -> IoResult {
        if let Some(r) = non_data(&self.files, io.file, io.dir, io.offset, io.len) {
            return r;
        }
        let fd = self.files.fd(io.file);
        // SAFETY: lseek only takes integers.
        if unsafe { libc::lseek(fd, io.offset as libc::off_t, libc::SEEK_SET) } < 0 {
            return Err(errno());
        }
        let iov = libc::iovec {
            iov_base: io.buf.cast(),
            iov_len: io.len,
        };
        // SAFETY: `iov` describes `io.buf`, valid for `io.len` bytes until
        // this returns (this function's contract).
        ret(unsafe {
            match io.dir {
                Ddir::Read => libc::readv(fd, &iov, 1),
                _ => libc::writev(fd, &iov, 1),
            }
        })
    }
}

super::files::sync_file_engine!(Vsync, "vsync");
