//! `ioengine=dirstat` (fio 3.37): filestat on directories. The job's
//! setup makes each of its files a directory (`mkdir(2)`, mode 0700; one
//! that exists is kept), and opening one is a `stat(2)` (or `lstat`, or
//! `statx`, by filestat's `stat_type`, which dirstat shares) of it; the
//! I/Os do nothing (fio's `engines/fileoperations.c`). Nothing is laid
//! out.

use std::path::Path;

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::cpath;
use super::filestat::{self, FileStatOptions};
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, Queued};

/// filestat's instance, on the directories.
pub(crate) struct DirStat {
    stat: Box<dyn IoEngine>,
}

/// What `ioengine=dirstat` is (fio's `engines/fileoperations.c`; its
/// setup makes the directories it stats).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::DISKLESSIO | fio::SYNCIO | fio::FAKEIO | fio::NOSTATS | fio::NOFILEHASH)
        .changes_files()
        .dirs()
        .open_error_at(Some(("stat", "engines/fileoperations.c:194")));

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

/// filestat's options (fio gives both engines one `options[]`).
pub(crate) const OPTIONS: &[&str] = filestat::OPTIONS;

/// The engine's options: filestat's.
pub(crate) fn options(o: &dyn OptionValues) -> Result<FileStatOptions, Refusal> {
    filestat::options(o)
}

pub(crate) fn new(
    common: &CommonOptions,
    opts: &FileStatOptions,
    mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(DirStat {
        stat: filestat::new(common, opts, mem)?,
    }))
}

/// fio's `setup_dirs`: each of the job's files made a directory (mode
/// 0700) before the job, one that exists kept. A failure ends the setup
/// with fio's line (`create directory PATH failed with ERRNO`); the job
/// is reaped unstarted. Parent directories are not made (the engine is
/// diskless to fio).
pub(crate) fn make_dirs(files: &[&Path]) -> Result<Option<u64>, String> {
    for path in files {
        let made = match cpath(path) {
            // SAFETY: `c` is NUL-terminated.
            Ok(c) if unsafe { libc::mkdir(c.as_ptr(), 0o700) } == 0 => Ok(()),
            Ok(_) => Err(errno()),
            Err(e) => Err(e),
        };
        match made {
            Ok(()) | Err(libc::EEXIST) => {}
            Err(e) => {
                return Err(format!(
                    "create directory {} failed with {e}\n",
                    path.display()
                ))
            }
        }
    }
    Ok(None)
}

impl IoEngine for DirStat {
    fn name(&self) -> &'static str {
        "dirstat"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        self.stat.open(target)
    }

    #[inline]
    unsafe fn queue(&mut self, io: &Io) -> Queued {
        // SAFETY: the caller's guarantees, handed on.
        unsafe { self.stat.queue(io) }
    }

    fn close_all(&mut self) {
        self.stat.close_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_makes_the_directories_and_keeps_those_there() {
        let dir = std::env::temp_dir().join(format!("rfio-dirstat-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("kept")).unwrap();
        let (kept, made) = (dir.join("kept"), dir.join("made"));
        assert_eq!(make_dirs(&[&kept, &made]), Ok(None));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&made).unwrap().permissions().mode();
        assert_eq!(mode & 0o7077, 0, "0700 at most (the umask applies)");
        let missing = dir.join("no/such");
        assert_eq!(
            make_dirs(&[&missing]),
            Err(format!(
                "create directory {} failed with 2\n",
                missing.display()
            ))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
