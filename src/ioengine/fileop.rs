//! The file-operation engines (fio's `engines/fileoperations.c`):
//! `filecreate`, `filestat`, `filedelete`, and fio 3.37's `dircreate`,
//! `dirstat`, `dirdelete`. Each is one [`FileOp`]: opening a file is one
//! system call on it ([`Call`]), and the I/Os themselves do nothing. The
//! latency that matters is the call's, which the workload measures (the
//! engines are `FIO_NOSTATS`).
//!
//! - `filecreate`: `open(O_CREAT|O_RDWR, 0600)`; the descriptor is held
//!   until the file closes. Files are not laid out first.
//! - `filestat`: `stat(2)` (or `lstat`, or `statx`, by `stat_type`). The
//!   files are laid out first.
//! - `filedelete`: `unlink(2)`. The files are laid out first, so that there
//!   is something to delete.
//! - `dircreate`: `mkdir(2)`; nothing is laid out, and a directory that
//!   exists already fails the open (`EEXIST`), as `mkdir` does.
//! - `dirstat`: filestat on directories, which the job's setup makes
//!   ([`make_dirs`]); it shares filestat's `stat_type`.
//! - `dirdelete`: `rmdir(2)` of the directories the job's setup makes; one
//!   that is not empty, or gone (a second pass), fails the open.
//!
//! What differs between them is a [`FileOpDef`]: the call, fio's name, the
//! engine's flags (where fio reports a failed call: `open_error_at`) and
//! whether the job's files are laid out ([`Caps::needs_files`]).

use std::os::fd::OwnedFd;
use std::path::Path;

use super::engine::{Caps, IoEngine};
use super::error::SetupError;
use super::files::{cpath, open_fd};
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{errno, EngineError, FileId, FileTarget, Io, OpenFlags, Queued};

/// The system call that "opens" a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Call {
    /// `open(O_CREAT|O_RDWR, 0600)` (filecreate).
    Create,
    /// `stat`, `lstat` or `statx`, by [`StatType`] (filestat, dirstat).
    Stat,
    /// `unlink` (filedelete).
    Unlink,
    /// `mkdir` (dircreate).
    Mkdir,
    /// `rmdir` (dirdelete).
    Rmdir,
}

/// One file-operation engine: what [`FileOp`] is parameterised by.
pub(crate) struct FileOpDef {
    /// fio's name (`ioengine=`).
    pub(crate) name: &'static str,
    pub(crate) call: Call,
    /// fio's flags, and where fio reports a failed call.
    pub(crate) flags: EngineFlags,
    /// The job's files are laid out before the job (filestat, filedelete).
    needs_files: bool,
    /// The job's setup makes its files directories ([`make_dirs`]: dirstat,
    /// dirdelete).
    makes_dirs: bool,
}

/// fio's flags of the engines that run on files that need not exist.
const DISKLESS: EngineFlags =
    EngineFlags::fio(fio::DISKLESSIO | fio::SYNCIO | fio::FAKEIO | fio::NOSTATS | fio::NOFILEHASH)
        .changes_files();

/// `ioengine=filecreate`: it creates the files it is given.
pub(crate) static FILECREATE: FileOpDef = FileOpDef {
    name: "filecreate",
    call: Call::Create,
    flags: DISKLESS
        .block_sized_files()
        .open_error_at(Some(("open", "engines/fileoperations.c:91"))),
    needs_files: false,
    makes_dirs: false,
};

/// `ioengine=filestat`.
pub(crate) static FILESTAT: FileOpDef = FileOpDef {
    name: "filestat",
    call: Call::Stat,
    flags: EngineFlags::fio(fio::SYNCIO | fio::FAKEIO | fio::NOSTATS | fio::NOFILEHASH),
    needs_files: true,
    makes_dirs: false,
};

/// `ioengine=filedelete`: it deletes the files it is given.
pub(crate) static FILEDELETE: FileOpDef = FileOpDef {
    name: "filedelete",
    call: Call::Unlink,
    flags: EngineFlags::fio(fio::SYNCIO | fio::FAKEIO | fio::NOSTATS | fio::NOFILEHASH)
        .changes_files()
        .open_error_at(Some(("delete", "engines/fileoperations.c:205"))),
    needs_files: true,
    makes_dirs: false,
};

/// `ioengine=dircreate` (fio 3.37): it creates the directories it is given.
pub(crate) static DIRCREATE: FileOpDef = FileOpDef {
    name: "dircreate",
    call: Call::Mkdir,
    flags: DISKLESS
        .block_sized_files()
        .dirs()
        .open_error_at(Some(("open", "engines/fileoperations.c:123"))),
    needs_files: false,
    makes_dirs: false,
};

/// `ioengine=dirstat` (fio 3.37): its setup makes the directories it stats.
pub(crate) static DIRSTAT: FileOpDef = FileOpDef {
    name: "dirstat",
    call: Call::Stat,
    flags: DISKLESS
        .dirs()
        .open_error_at(Some(("stat", "engines/fileoperations.c:194"))),
    needs_files: false,
    makes_dirs: true,
};

/// `ioengine=dirdelete` (fio 3.37): it deletes the directories it is given
/// (its setup makes them).
pub(crate) static DIRDELETE: FileOpDef = FileOpDef {
    name: "dirdelete",
    call: Call::Rmdir,
    flags: DISKLESS
        .dirs()
        .open_error_at(Some(("delete", "engines/fileoperations.c:244"))),
    needs_files: false,
    makes_dirs: true,
};

impl FileOpDef {
    /// What the engine can do.
    pub(crate) const fn caps(&self) -> Caps {
        Caps {
            is_sync: true,
            needs_files: self.needs_files,
            can_trim: true,
            has_commit: false,
            fake_io: true,
            file_op: true,
            no_extend: false,
            no_io: false,
        }
    }

    /// The fio names of the engine's own options: filestat's `stat_type`
    /// for the stat engines (fio gives filestat and dirstat one
    /// `options[]`), none for the others.
    pub(crate) const fn options(&self) -> &'static [&'static str] {
        match self.call {
            Call::Stat => &["stat_type"],
            _ => &[],
        }
    }

    /// The engine's own options, from the job's values of
    /// [`options`](Self::options), as the plan hands them: `None` for an
    /// engine without any.
    pub(crate) fn resolve(&self, o: &dyn OptionValues) -> Result<Option<FileStatOptions>, Refusal> {
        Ok(match self.call {
            Call::Stat => Some(FileStatOptions {
                stat_type: match o.choice("stat_type") {
                    Some("lstat") => StatType::Lstat,
                    Some("statx") => StatType::Statx,
                    _ => StatType::Stat,
                },
            }),
            _ => None,
        })
    }

    /// An instance, with the job's options (their defaults for an engine
    /// without any).
    pub(crate) fn start(
        &'static self,
        options: FileStatOptions,
    ) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(FileOp {
            def: self,
            stat_type: options.stat_type,
            fds: Vec::new(),
        }))
    }

    /// The engine's setup (fio's `.setup`): the stat and delete engines on
    /// directories make them first ([`make_dirs`]); the others find out
    /// nothing (`Ok(None)`).
    pub(crate) fn setup(&self, files: &[&Path]) -> Result<Option<u64>, SetupError> {
        if self.makes_dirs {
            make_dirs(files)
        } else {
            Ok(None)
        }
    }
}

/// filestat's `stat_type`: the call that "opens" a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum StatType {
    #[default]
    Stat,
    Lstat,
    Statx,
}

/// filestat's own options (fio's `options[]` of `engines/filestat.c`),
/// which dirstat shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct FileStatOptions {
    pub(crate) stat_type: StatType,
}

/// An instance of one of the file-operation engines.
pub(crate) struct FileOp {
    def: &'static FileOpDef,
    stat_type: StatType,
    /// One per file opened, in order (its [`FileId`]): filecreate's
    /// descriptor, `None` once closed (`openfiles`), or for the calls that
    /// leave none.
    fds: Vec<Option<OwnedFd>>,
}

impl FileOp {
    /// The call, on `target`: the descriptor filecreate holds.
    fn call(&self, target: &FileTarget) -> Result<Option<OwnedFd>, EngineError> {
        let path = &target.path;
        match self.def.call {
            Call::Create => {
                let flags = OpenFlags {
                    write: true,
                    create: true,
                    ..OpenFlags::default()
                };
                open_fd(path, flags, 0o600).map(Some)
            }
            Call::Mkdir => {
                let c = cpath(path).map_err(|e| EngineError::open(path, e))?;
                // fio passes `S_IFDIR` as the mode: the type bits, no
                // permission bit, so the directory is made `d---------`
                // whatever the umask.
                // SAFETY: `c` is NUL-terminated.
                if unsafe { libc::mkdir(c.as_ptr(), libc::S_IFDIR) } < 0 {
                    return Err(EngineError::open(path, errno()));
                }
                Ok(None)
            }
            Call::Stat => {
                let func = || {
                    let how = self.stat_type as u32 + 1;
                    format!("stat({}) type={how}", path.display())
                };
                let c = cpath(path).map_err(|e| EngineError::new(e, func()))?;
                checked(stat(&c, self.stat_type), func)
            }
            Call::Unlink | Call::Rmdir => {
                let func = || format!("delete({})", path.display());
                let c = cpath(path).map_err(|e| EngineError::new(e, func()))?;
                // SAFETY: `c` is NUL-terminated.
                let r = unsafe {
                    if self.def.call == Call::Unlink {
                        libc::unlink(c.as_ptr())
                    } else {
                        libc::rmdir(c.as_ptr())
                    }
                };
                checked(r, func)
            }
        }
    }
}

/// A call's return `r` as the open's: its errno, named `func()`, when it
/// failed.
fn checked(r: libc::c_int, func: impl FnOnce() -> String) -> Result<Option<OwnedFd>, EngineError> {
    if r < 0 {
        Err(EngineError::new(errno(), func()))
    } else {
        Ok(None)
    }
}

/// `stat`, `lstat` or `statx` of `path`: the call's return.
fn stat(path: &std::ffi::CStr, how: StatType) -> libc::c_int {
    // SAFETY: `path` is NUL-terminated; the out-buffers are valid.
    unsafe {
        match how {
            StatType::Stat => {
                let mut st: libc::stat = std::mem::zeroed();
                libc::stat(path.as_ptr(), &mut st)
            }
            StatType::Lstat => {
                let mut st: libc::stat = std::mem::zeroed();
                libc::lstat(path.as_ptr(), &mut st)
            }
            StatType::Statx => {
                let mut stx: libc::statx = std::mem::zeroed();
                libc::statx(libc::AT_FDCWD, path.as_ptr(), 0, libc::STATX_ALL, &mut stx)
            }
        }
    }
}

impl IoEngine for FileOp {
    fn name(&self) -> &'static str {
        self.def.name
    }

    fn caps(&self) -> Caps {
        self.def.caps()
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let fd = self.call(target)?;
        self.fds.push(fd);
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

/// fio's `setup_dirs`: each of the job's files made a directory (mode
/// 0700) before the job, one that exists kept. A failure ends the setup
/// with fio's line (`create directory PATH failed with ERRNO`); the job
/// is reaped unstarted. Parent directories are not made (the engine is
/// diskless to fio).
pub(crate) fn make_dirs(files: &[&Path]) -> Result<Option<u64>, SetupError> {
    for path in files {
        let made = match cpath(path) {
            // SAFETY: `c` is NUL-terminated.
            Ok(c) if unsafe { libc::mkdir(c.as_ptr(), 0o700) } == 0 => Ok(()),
            Ok(_) => Err(errno()),
            Err(e) => Err(e),
        };
        match made {
            Ok(()) | Err(libc::EEXIST) => {}
            Err(errno) => {
                return Err(SetupError::MakeDir {
                    path: path.to_path_buf(),
                    errno,
                })
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_makes_the_directories_and_keeps_those_there() {
        let dir = std::env::temp_dir().join(format!("rfio-dirstat-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("kept")).unwrap();
        let (kept, made) = (dir.join("kept"), dir.join("made"));
        assert!(matches!(DIRSTAT.setup(&[&kept, &made]), Ok(None)));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&made).unwrap().permissions().mode();
        assert_eq!(mode & 0o7077, 0, "0700 at most (the umask applies)");
        let missing = dir.join("no/such");
        let e = make_dirs(&[&missing]).unwrap_err();
        assert!(
            matches!(&e, SetupError::MakeDir { path, errno: libc::ENOENT } if path == &missing)
        );
        assert_eq!(
            e.to_string(),
            format!("create directory {} failed with 2\n", missing.display())
        );
        assert!(
            matches!(DIRCREATE.setup(&[&missing]), Ok(None)),
            "dircreate makes none"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
