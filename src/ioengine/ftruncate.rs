//! `ioengine=ftruncate`: every write sets the file's size to its offset
//! (`ftruncate(2)`); reads and trims fail with `EINVAL` (fio's
//! `engines/ftruncate.c`). No data moves.

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{sync, Files};
use super::flags::{self, fio, EngineFlags};
use super::io::{EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};
use crate::ddir::Ddir;

#[derive(Default)]
pub(crate) struct Ftruncate {
    files: Files,
}

/// What `ioengine=ftruncate` is (fio's `engines/ftruncate.c`; it truncates
/// the files it is given).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(fio::SYNCIO | fio::FAKEIO)
    .changes_files()
    .open_error_at(flags::GENERIC_OPEN);

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps {
    is_sync: true,
    needs_files: true,
    can_trim: false,
    has_commit: false,
    fake_io: true,
    file_op: false,
    no_extend: false,
    no_io: false,
};

pub(crate) fn new(_common: &CommonOptions, _mem: IoMem) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Ftruncate::default()))
}

impl Ftruncate {
    fn op(&mut self, io: &Io) -> IoResult {
        match io.dir {
            Ddir::Write => {
                // SAFETY: ftruncate only takes integers.
                let r =
                    unsafe { libc::ftruncate(self.files.fd(io.file), io.offset as libc::off_t) };
                super::files::ret(r as isize).map(|_| io.len)
            }
            Ddir::Sync | Ddir::DataSync => sync(self.files.fd(io.file), io.dir),
            Ddir::Read | Ddir::Trim => Err(libc::EINVAL),
        }
    }
}

impl IoEngine for Ftruncate {
    fn name(&self) -> &'static str {
        "ftruncate"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        self.files.open(target)
    }

    #[inline]
    unsafe fn queue(&mut self, io: &Io) -> Queued {
        Queued::Completed(self.op(io))
    }

    fn files(&mut self) -> Option<&mut Files> {
        Some(&mut self.files)
    }
}
