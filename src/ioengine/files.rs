//! The file table most engines share (fio's `generic_open_file` and
//! friends), and the operations every engine does the same way: trim, sync
//! and cache invalidation.

use crate::ddir::Ddir;
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::io::{errno, EngineError, FileId, FileTarget, IoResult, OpenFlags};

/// `BLKDISCARD`: `_IO(0x12, 119)`.
const BLKDISCARD: libc::c_ulong = 0x1277;
/// `BLKFLSBUF`: `_IO(0x12, 97)`.
const BLKFLSBUF: libc::c_ulong = 0x1261;

/// One open file.
#[derive(Debug)]
pub(crate) struct OpenFile {
    pub(crate) fd: OwnedFd,
    /// A block device (trim is a discard, invalidation a buffer flush).
    pub(crate) is_block: bool,
}

/// The files an engine has open, indexed by [`FileId`].
#[derive(Debug, Default)]
pub struct Files {
    files: Vec<OpenFile>,
}

impl Files {
    /// Open `target` as fio's `generic_open_file` does and remember it.
    pub(crate) fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let fd = open_fd(&target.path, target.flags, 0o644)?;
        self.push(fd)
    }

    /// Remember an already open descriptor.
    pub(crate) fn push(&mut self, fd: OwnedFd) -> Result<FileId, EngineError> {
        let is_block = is_block_fd(fd.as_raw_fd());
        self.files.push(OpenFile { fd, is_block });
        Ok(FileId(self.files.len() as u32 - 1))
    }

    #[inline]
    pub(crate) fn get(&self, id: FileId) -> &OpenFile {
        &self.files[id.0 as usize]
    }

    #[inline]
    pub(crate) fn fd(&self, id: FileId) -> RawFd {
        self.files[id.0 as usize].fd.as_raw_fd()
    }

    pub(crate) fn raw_fds(&self) -> impl Iterator<Item = RawFd> + '_ {
        self.files.iter().map(|f| f.fd.as_raw_fd())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// `posix_fadvise(DONTNEED)` on a file, `BLKFLSBUF` on a block device.
    pub(crate) fn invalidate(&self, id: FileId) -> Result<(), i32> {
        let f = self.get(id);
        invalidate_fd(f.fd.as_raw_fd(), f.is_block)
    }

    /// `posix_fadvise(2)` of a region.
    pub(crate) fn fadvise(
        &self,
        id: FileId,
        offset: u64,
        len: u64,
        advice: i32,
    ) -> Result<(), i32> {
        // SAFETY: posix_fadvise only reads its integer arguments.
        let r = unsafe {
            libc::posix_fadvise(
                self.fd(id),
                offset as libc::off_t,
                len as libc::off_t,
                advice,
            )
        };
        if r != 0 {
            Err(r)
        } else {
            Ok(())
        }
    }

    /// Close everything.
    pub(crate) fn clear(&mut self) {
        self.files.clear();
    }
}

/// Open `path` with `flags` (read-only or read-write, `O_DIRECT`, `O_SYNC`,
/// `O_DSYNC`, `O_CREAT`), as fio's `generic_open_file`.
pub(crate) fn open_fd(
    path: &Path,
    flags: OpenFlags,
    mode: libc::mode_t,
) -> Result<OwnedFd, EngineError> {
    let c = cpath(path).map_err(|e| EngineError::open(path, e))?;
    let mut oflags = libc::O_CLOEXEC;
    oflags |= if flags.write {
        libc::O_RDWR
    } else {
        libc::O_RDONLY
    };
    if flags.direct {
        oflags |= libc::O_DIRECT;
    }
    if flags.sync {
        oflags |= libc::O_SYNC;
    }
    if flags.dsync {
        oflags |= libc::O_DSYNC;
    }
    if flags.create {
        oflags |= libc::O_CREAT;
    }
    // SAFETY: `c` is a NUL-terminated path; open has no other preconditions.
    let fd = unsafe { libc::open(c.as_ptr(), oflags, libc::c_uint::from(mode)) };
    if fd < 0 {
        return Err(EngineError::open(path, errno()));
    }
    // SAFETY: `fd` was just returned by open and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `path` as a C string (errno `EINVAL` for an inner NUL).
pub(crate) fn cpath(path: &Path) -> Result<CString, i32> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| libc::EINVAL)
}

fn is_block_fd(fd: RawFd) -> bool {
    // SAFETY: an all-zero `stat` is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is a valid out-pointer.
    let r = unsafe { libc::fstat(fd, &mut st) };
    r == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFBLK
}

/// Drop cached pages of `fd`.
pub(crate) fn invalidate_fd(fd: RawFd, is_block: bool) -> Result<(), i32> {
    if is_block {
        // SAFETY: BLKFLSBUF takes no argument besides the descriptor.
        let r = unsafe { libc::ioctl(fd, BLKFLSBUF, 0) };
        return if r < 0 { Err(errno()) } else { Ok(()) };
    }
    // SAFETY: posix_fadvise only reads its integer arguments.
    let r = unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r != 0 {
        Err(r)
    } else {
        Ok(())
    }
}

/// Trim `len` bytes at `offset`: a discard on a block device, a punched
/// hole in a regular file (the file keeps its size).
pub(crate) fn trim(file: &OpenFile, offset: u64, len: usize) -> IoResult {
    let fd = file.fd.as_raw_fd();
    if file.is_block {
        let range: [u64; 2] = [offset, len as u64];
        // SAFETY: BLKDISCARD reads two u64 from the pointer, which is valid.
        let r = unsafe { libc::ioctl(fd, BLKDISCARD, range.as_ptr()) };
        return if r < 0 { Err(errno()) } else { Ok(len) };
    }
    // SAFETY: fallocate only reads its integer arguments.
    let r = unsafe {
        libc::fallocate(
            fd,
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            offset as libc::off_t,
            len as libc::off_t,
        )
    };
    if r < 0 {
        Err(errno())
    } else {
        Ok(len)
    }
}

/// `fsync(2)` or `fdatasync(2)`.
pub(crate) fn sync(fd: RawFd, dir: Ddir) -> IoResult {
    // SAFETY: both calls only take the descriptor.
    let r = unsafe {
        if dir == Ddir::DataSync {
            libc::fdatasync(fd)
        } else {
            libc::fsync(fd)
        }
    };
    if r < 0 {
        Err(errno())
    } else {
        Ok(0)
    }
}

/// A `read`/`write`-style return value as an [`IoResult`].
#[inline]
pub(crate) fn ret(r: isize) -> IoResult {
    if r < 0 {
        Err(errno())
    } else {
        Ok(r as usize)
    }
}

/// The non-data directions every sync engine handles the same way; `None`
/// for reads and writes.
#[inline]
pub(crate) fn non_data(
    files: &Files,
    file: FileId,
    dir: Ddir,
    offset: u64,
    len: usize,
) -> Option<IoResult> {
    match dir {
        Ddir::Read | Ddir::Write => None,
        Ddir::Trim => Some(trim(files.get(file), offset, len)),
        Ddir::Sync | Ddir::DataSync => Some(sync(files.fd(file), dir)),
    }
}

/// The `IoEngine` impl every synchronous file engine shares (sync, psync,
/// vsync, pvsync, pvsync2): each I/O completes inside `queue` through the
/// engine's own `xfer`, files live in its `files` table (which the trait's
/// default methods use), and it declares the `CAPS` of its module.
macro_rules! sync_file_engine {
    ($ty:ident, $name:literal) => {
        impl IoEngine for $ty {
            fn name(&self) -> &'static str {
                $name
            }

            fn caps(&self) -> Caps {
                CAPS
            }

            fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
                self.files.open(target)
            }

            #[inline]
            unsafe fn queue(&mut self, io: &Io) -> Queued {
                // SAFETY: the caller guarantees the buffer until the I/O
                // completes (`queue`'s contract), which is before `xfer`
                // returns.
                Queued::Completed(unsafe { self.xfer(io) })
            }

            fn files(&mut self) -> Option<&mut Files> {
                Some(&mut self.files)
            }
        }
    };
}
pub(crate) use sync_file_engine;
