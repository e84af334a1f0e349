//! `ioengine=sync`: `lseek(2)` then `read(2)`/`write(2)` (fio's `engines/sync.c`).

use super::engine::{
    errno, Caps, EngineConfig, EngineError, FileId, FileTarget, Io, IoDir, IoEngine, IoResult,
    Queued,
};
use super::files::{non_data, ret, Files};

#[derive(Default)]
pub struct Sync {
    files: Files,
}

/// What this engine can do.
pub const CAPS: Caps = Caps::SYNC_FILES;

pub fn new(_cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Sync::default()))
}

impl Sync {
    #[inline]
    fn xfer(&mut self, io: &Io) -> IoResult {
        if let Some(r) = non_data(&self.files, io.file, io.dir, io.offset, io.len) {
            return r;
        }
        let fd = self.files.fd(io.file);
        // SAFETY: lseek only takes integers.
        if unsafe { libc::lseek(fd, io.offset as libc::off_t, libc::SEEK_SET) } < 0 {
            return Err(errno());
        }
        // SAFETY: `io.buf` is valid for `io.len` bytes until completion
        // (the engine contract), which is before this returns.
        ret(unsafe {
            match io.dir {
                IoDir::Read => libc::read(fd, io.buf.cast(), io.len),
                _ => libc::write(fd, io.buf.cast(), io.len),
            }
        })
    }
}

impl IoEngine for Sync {
    fn name(&self) -> &'static str {
        "sync"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        self.files.open(target)
    }

    #[inline]
    fn queue(&mut self, io: &Io) -> Queued {
        Queued::Completed(self.xfer(io))
    }

    fn invalidate(&mut self, file: FileId) -> Result<(), i32> {
        self.files.invalidate(file)
    }

    fn fadvise(&mut self, file: FileId, offset: u64, len: u64, advice: i32) -> Result<(), i32> {
        self.files.fadvise(file, offset, len, advice)
    }

    fn close_all(&mut self) {
        self.files.clear();
    }
}
