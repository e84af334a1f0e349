//! `ioengine=filecreate`: opening a file creates it (`open(O_CREAT|O_RDWR,
//! 0600)`); the I/Os themselves do nothing (fio's `engines/filecreate.c`).
//! Files are not laid out first. The latency that matters is the open's,
//! which the workload measures.

use std::os::fd::OwnedFd;

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::open_fd;
use super::flags::{fio, EngineFlags};
use super::io::{EngineError, FileId, FileTarget, Io, IoMem, OpenFlags, Queued};

#[derive(Default)]
pub(crate) struct FileCreate {
    /// `None` once closed (`openfiles`).
    fds: Vec<Option<OwnedFd>>,
}

/// What `ioengine=filecreate` is (fio's `engines/fileoperations.c`; it
/// creates the files it is given).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::DISKLESSIO | fio::SYNCIO | fio::FAKEIO | fio::NOSTATS | fio::NOFILEHASH)
        .changes_files()
        .block_sized_files()
        .open_error_at(Some(("open", "engines/fileoperations.c:91")));

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
    Ok(Box::new(FileCreate::default()))
}

impl IoEngine for FileCreate {
    fn name(&self) -> &'static str {
        "filecreate"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let flags = OpenFlags {
            write: true,
            create: true,
            ..OpenFlags::default()
        };
        self.fds.push(Some(open_fd(&target.path, flags, 0o600)?));
        Ok(FileId(self.fds.len() as u32 - 1))
    }

    #[inline]
    unsafe fn queue(&mut self, io: &Io) -> Queued {
        Queued::Completed(Ok(if io.dir.is_data() { io.len } else { 0 }))
    }

    fn close_file(&mut self, file: FileId) {
        if let Some(fd) = self.fds.get_mut(file.0 as usize) {
            *fd = None;
        }
    }

    fn close_all(&mut self) {
        self.fds.clear();
    }
}
