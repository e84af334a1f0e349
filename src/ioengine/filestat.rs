//! `ioengine=filestat`: opening a file is a `stat(2)` (or `lstat`, or
//! `statx`, by `stat_type`) of it; the I/Os do nothing (fio's
//! `engines/filestat.c`). The files are laid out first.

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::cpath;
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, Queued};

pub(crate) struct FileStat {
    stat_type: StatType,
    opened: u32,
}

/// What `ioengine=filestat` is (fio's `engines/fileoperations.c`).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::SYNCIO | fio::FAKEIO | fio::NOSTATS | fio::NOFILEHASH);

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps {
    is_sync: true,
    needs_files: true,
    can_trim: true,
    has_commit: false,
    fake_io: true,
    file_op: true,
    no_extend: false,
    no_io: false,
};

/// filestat's `stat_type`: the call that "opens" a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum StatType {
    #[default]
    Stat,
    Lstat,
    Statx,
}

/// filestat's own options (fio's `options[]` of `engines/filestat.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct FileStatOptions {
    pub(crate) stat_type: StatType,
}

/// The fio names of [`FileStatOptions`].
pub(crate) const OPTIONS: &[&str] = &["stat_type"];

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<FileStatOptions, Refusal> {
    Ok(FileStatOptions {
        stat_type: match o.choice("stat_type") {
            Some("lstat") => StatType::Lstat,
            Some("statx") => StatType::Statx,
            _ => StatType::Stat,
        },
    })
}

pub(crate) fn new(
    _common: &CommonOptions,
    opts: &FileStatOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(FileStat {
        stat_type: opts.stat_type,
        opened: 0,
    }))
}

impl IoEngine for FileStat {
    fn name(&self) -> &'static str {
        "filestat"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let func = || {
            format!(
                "stat({}) type={}",
                target.path.display(),
                self.stat_type as u32 + 1
            )
        };
        let c = cpath(&target.path).map_err(|e| EngineError::new(e, func()))?;
        // SAFETY: `c` is NUL-terminated; the out-buffers are valid.
        let r = unsafe {
            match self.stat_type {
                StatType::Stat => {
                    let mut st: libc::stat = std::mem::zeroed();
                    libc::stat(c.as_ptr(), &mut st)
                }
                StatType::Lstat => {
                    let mut st: libc::stat = std::mem::zeroed();
                    libc::lstat(c.as_ptr(), &mut st)
                }
                StatType::Statx => {
                    let mut stx: libc::statx = std::mem::zeroed();
                    libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_ALL, &mut stx)
                }
            }
        };
        if r < 0 {
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
