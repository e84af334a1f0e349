//! `ioengine=dirdelete` (fio 3.37): filedelete on directories. The job's
//! setup makes each of its files a directory (dirstat's), and opening one
//! removes it (`rmdir(2)`); the I/Os do nothing (fio's
//! `engines/fileoperations.c`). Nothing is laid out; a directory that is
//! not empty, or gone (a second pass), fails the open.

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::cpath;
use super::flags::{fio, EngineFlags};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, Queued};

pub(crate) use super::dirstat::make_dirs;

#[derive(Default)]
pub(crate) struct DirDelete {
    opened: u32,
}

/// What `ioengine=dirdelete` is (fio's `engines/fileoperations.c`; it
/// deletes the directories it is given).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::DISKLESSIO | fio::SYNCIO | fio::FAKEIO | fio::NOSTATS | fio::NOFILEHASH)
        .changes_files()
        .dirs()
        .open_error_at(Some(("delete", "engines/fileoperations.c:244")));

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps {
    is_sync: true,
    needs_files: false,
    can_trim: true,
    has_commit: false,
    fake_io: true,
    file_op: true,
    no_extend: false,
    no_io: false,
};

pub(crate) fn new(_common: &CommonOptions, _mem: IoMem) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(DirDelete::default()))
}

impl IoEngine for DirDelete {
    fn name(&self) -> &'static str {
        "dirdelete"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let func = || format!("delete({})", target.path.display());
        let c = cpath(&target.path).map_err(|e| EngineError::new(e, func()))?;
        // SAFETY: `c` is NUL-terminated.
        if unsafe { libc::rmdir(c.as_ptr()) } < 0 {
            return Err(EngineError::new(errno(), func()));
        }
        self.opened += 1;
        Ok(FileId(self.opened - 1))
    }

    #[inline]
    unsafe fn queue(&mut self, io: &Io) -> Queued {
        Queued::Completed(Ok(if io.dir.is_data() { io.len } else { 0 }))
    }

    fn close_all(&mut self) {
        self.opened = 0;
    }
}
