//! `ioengine=falloc`: every I/O is an `fallocate(2)` of its range (fio's
//! `engines/falloc.c`): reads `FALLOC_FL_KEEP_SIZE`, writes mode 0 (the
//! file grows), trims `FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE`. Files
//! are opened read-write and created if missing.

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{sync, Files};
use super::flags::{fio, EngineFlags};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};
use crate::ddir::Ddir;

#[derive(Default)]
pub(crate) struct Falloc {
    files: Files,
}

/// What `ioengine=falloc` is (fio's `engines/falloc.c`; it allocates (and
/// creates) the files it is given, and its failed open reads as success).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(fio::SYNCIO)
    .changes_files()
    .failed_open_looks_opened()
    .open_error_at(Some(("open", "engines/falloc.c:45")));

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps {
    is_sync: true,
    needs_files: true,
    can_trim: true,
    has_commit: false,
    // Not fio's FIO_FAKEIO: write buffers are filled, and a verifying
    // job checks its reads (against what the buffer last held, as no
    // data is read).
    fake_io: false,
    file_op: false,
    no_extend: false,
    no_io: false,
};

pub(crate) fn new(_common: &CommonOptions, _mem: IoMem) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Falloc::default()))
}

impl Falloc {
    fn op(&mut self, io: &Io) -> IoResult {
        let fd = self.files.fd(io.file);
        let mode = match io.dir {
            Ddir::Read => libc::FALLOC_FL_KEEP_SIZE,
            Ddir::Write => 0,
            Ddir::Trim => libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            Ddir::Sync | Ddir::DataSync => return sync(fd, io.dir),
        };
        // SAFETY: fallocate only takes integers.
        let r =
            unsafe { libc::fallocate(fd, mode, io.offset as libc::off_t, io.len as libc::off_t) };
        if r < 0 {
            Err(errno())
        } else {
            Ok(io.len)
        }
    }
}

impl IoEngine for Falloc {
    fn name(&self) -> &'static str {
        "falloc"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let mut t = target.clone();
        t.flags.write = true;
        t.flags.create = true;
        self.files.open(&t)
    }

    #[inline]
    unsafe fn queue(&mut self, io: &Io) -> Queued {
        Queued::Completed(self.op(io))
    }

    fn files(&mut self) -> Option<&mut Files> {
        Some(&mut self.files)
    }
}
