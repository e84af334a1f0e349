//! `ioengine=dircreate` (fio 3.37): opening a file creates it as a
//! directory (`mkdir(2)`); the I/Os themselves do nothing (fio's
//! `engines/fileoperations.c`, the directory side of filecreate). Nothing
//! is laid out first, and a directory that exists already fails the open
//! (`EEXIST`), as `mkdir` does. The latency that matters is the mkdir's,
//! which the workload measures.

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::cpath;
use super::flags::{fio, EngineFlags};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, Queued};

#[derive(Default)]
pub(crate) struct DirCreate {
    opened: u32,
}

/// What `ioengine=dircreate` is (fio's `engines/fileoperations.c`; it
/// creates the directories it is given).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::DISKLESSIO | fio::SYNCIO | fio::FAKEIO | fio::NOSTATS | fio::NOFILEHASH)
        .changes_files()
        .block_sized_files()
        .dirs()
        .open_error_at(Some(("open", "engines/fileoperations.c:123")));

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
    Ok(Box::new(DirCreate::default()))
}

impl IoEngine for DirCreate {
    fn name(&self) -> &'static str {
        "dircreate"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let c = cpath(&target.path).map_err(|e| EngineError::open(&target.path, e))?;
        // fio passes `S_IFDIR` as the mode: the type bits, no permission
        // bit, so the directory is made `d---------` whatever the umask.
        // SAFETY: `c` is NUL-terminated.
        if unsafe { libc::mkdir(c.as_ptr(), libc::S_IFDIR) } < 0 {
            return Err(EngineError::open(&target.path, errno()));
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
