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
/// fio's `OS_O_ATOMIC` (`040000000`) for `atomic=1`.
const O_ATOMIC: libc::c_int = 0o40000000;
/// `BLKFLSBUF`: `_IO(0x12, 97)`.
const BLKFLSBUF: libc::c_ulong = 0x1261;

/// One open file.
#[derive(Debug)]
pub(crate) struct OpenFile {
    pub(crate) fd: OwnedFd,
    /// A block device (trim is a discard, invalidation a buffer flush).
    pub(crate) is_block: bool,
}

/// The files an engine has open, indexed by [`FileId`]. A closed file's
/// slot is taken by the next file opened.
#[derive(Debug, Default)]
pub struct Files {
    files: Vec<Option<OpenFile>>,
    /// Slots of closed files, to be used again.
    free: Vec<u32>,
}

impl Files {
    /// Open `target` as fio's `generic_open_file` does and remember it.
    pub(crate) fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let (fd, is_block) = open_generic(&target.path, target.flags, 0o644)?;
        Ok(self.insert(OpenFile { fd, is_block }))
    }

    /// Remember an already open descriptor.
    #[cfg(test)]
    pub(crate) fn push(&mut self, fd: OwnedFd) -> Result<FileId, EngineError> {
        let is_block = file_type(fd.as_raw_fd()) == Some(libc::S_IFBLK);
        Ok(self.insert(OpenFile { fd, is_block }))
    }

    fn insert(&mut self, file: OpenFile) -> FileId {
        let file = Some(file);
        if let Some(slot) = self.free.pop() {
            self.files[slot as usize] = file;
            return FileId(slot);
        }
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    /// The open file `id`.
    ///
    /// # Panics
    /// When `id` was closed: the workload issues no I/O to a closed file.
    #[inline]
    pub(crate) fn get(&self, id: FileId) -> &OpenFile {
        self.files[id.0 as usize]
            .as_ref()
            .expect("no I/O goes to a closed file")
    }

    /// The descriptor of file `id` (-1, which every call refuses with
    /// `EBADF`, once it is closed).
    #[inline]
    pub(crate) fn fd(&self, id: FileId) -> RawFd {
        self.files[id.0 as usize]
            .as_ref()
            .map_or(-1, |f| f.fd.as_raw_fd())
    }

    /// The descriptors of the open files, in slot order.
    pub(crate) fn raw_fds(&self) -> impl Iterator<Item = RawFd> + '_ {
        self.files.iter().flatten().map(|f| f.fd.as_raw_fd())
    }

    /// No file is open.
    pub(crate) fn is_empty(&self) -> bool {
        self.files.iter().all(Option::is_none)
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

    /// Close file `id` (its slot is free again).
    pub(crate) fn close(&mut self, id: FileId) {
        if let Some(slot) = self.files.get_mut(id.0 as usize) {
            if slot.take().is_some() {
                self.free.push(id.0);
            }
        }
    }

    /// Close everything.
    pub(crate) fn clear(&mut self) {
        self.files.clear();
        self.free.clear();
    }
}

/// Open `path` with `flags` (read-only or read-write, `O_DIRECT`, `O_SYNC`,
/// `O_DSYNC`, `O_CREAT`), as fio's `generic_open_file`.
pub(crate) fn open_fd(
    path: &Path,
    flags: OpenFlags,
    mode: libc::mode_t,
) -> Result<OwnedFd, EngineError> {
    open_fd_with(path, flags, mode, 0)
}

/// [`open_fd`] with the open flags `extra` besides.
fn open_fd_with(
    path: &Path,
    flags: OpenFlags,
    mode: libc::mode_t,
    extra: libc::c_int,
) -> Result<OwnedFd, EngineError> {
    let c = cpath(path).map_err(|e| EngineError::open(path, e))?;
    let mut oflags = libc::O_CLOEXEC | extra;
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
    if flags.atomic {
        // fio's OS_O_ATOMIC where the headers have no O_ATOMIC: Linux
        // ignores the bit, the open is O_DIRECT.
        oflags |= libc::O_DIRECT | O_ATOMIC;
    }
    // SAFETY: `c` is a NUL-terminated path; open has no other preconditions.
    let fd = unsafe { libc::open(c.as_ptr(), oflags, libc::c_uint::from(mode)) };
    if fd < 0 {
        return Err(EngineError::open(path, errno()));
    }
    // SAFETY: `fd` was just returned by open and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Open `path` as fio's `generic_open_file` does ([`open_fd`]), and say
/// whether it is a block device. fio's file type (`get_file_type`, a
/// `stat` before the open: a regular file unless it says otherwise)
/// decides the flags: what is not a regular file (a block or character
/// device, a pipe) is opened `O_NOATIME` (which on a block device saves an
/// inode update per read), and where the kernel refuses that (`EPERM`: the
/// caller neither owns the file nor has `CAP_FOWNER`) opened again without
/// it; a writer's `O_CREAT` is for a regular file only (`create_on_open`'s
/// for any); and a character device is opened read-write by a reader too,
/// unless `--readonly`.
pub(crate) fn open_generic(
    path: &Path,
    flags: OpenFlags,
    mode: libc::mode_t,
) -> Result<(OwnedFd, bool), EngineError> {
    let kind = path_type(path);
    let special = kind.is_some_and(|k| k != libc::S_IFREG);
    let mut f = flags;
    if special {
        f.create = f.create_on_open;
        if kind == Some(libc::S_IFCHR) && !f.readonly {
            f.write = true;
        }
        match open_fd_with(path, f, mode, libc::O_NOATIME) {
            Err(e) if e.errno == libc::EPERM => {}
            r => return r.map(|fd| (fd, kind == Some(libc::S_IFBLK))),
        }
    }
    let fd = open_fd(path, f, mode)?;
    Ok((fd, kind == Some(libc::S_IFBLK)))
}

/// The `S_IFMT` bits of `path` (`None` when stat fails: a file to create).
fn path_type(path: &Path) -> Option<libc::mode_t> {
    let c = cpath(path).ok()?;
    // SAFETY: an all-zero `stat` is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is NUL-terminated and `st` is a valid out-pointer.
    let r = unsafe { libc::stat(c.as_ptr(), &mut st) };
    (r == 0).then_some(st.st_mode & libc::S_IFMT)
}

/// `path` as a C string (errno `EINVAL` for an inner NUL).
pub(crate) fn cpath(path: &Path) -> Result<CString, i32> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| libc::EINVAL)
}

/// The `S_IFMT` bits of open file `fd` (`None` when fstat fails).
#[cfg(test)]
fn file_type(fd: RawFd) -> Option<libc::mode_t> {
    // SAFETY: an all-zero `stat` is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is a valid out-pointer.
    let r = unsafe { libc::fstat(fd, &mut st) };
    (r == 0).then_some(st.st_mode & libc::S_IFMT)
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

/// `fcntl(2)` commands of Linux's write lifetime hints
/// (`F_LINUX_SPECIFIC_BASE + 12` and `+ 14`).
const F_SET_RW_HINT: libc::c_int = 1036;
const F_SET_FILE_RW_HINT: libc::c_int = 1038;

/// Set write lifetime hint `hint` (`RWH_WRITE_LIFE_*`) as fio's
/// `td_io_open_file` does: on the open file for direct I/O
/// (`F_SET_FILE_RW_HINT`), on the inode otherwise (`F_SET_RW_HINT`).
pub(crate) fn set_write_hint(fd: RawFd, direct: bool, hint: u64) -> Result<(), i32> {
    let cmd = if direct {
        F_SET_FILE_RW_HINT
    } else {
        F_SET_RW_HINT
    };
    // SAFETY: both commands read one u64 through the pointer, which is
    // valid for the call.
    let r = unsafe { libc::fcntl(fd, cmd, &hint as *const u64) };
    if r < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

/// `sync_file_range(2)` of `len` bytes at `offset` with `flags`; nothing
/// (and success) when `len` is 0, as fio's `do_sync_file_range`.
pub(crate) fn sync_range(fd: RawFd, offset: u64, len: u64, flags: u32) -> IoResult {
    if len == 0 {
        return Ok(0);
    }
    // SAFETY: sync_file_range only reads its integer arguments.
    let r =
        unsafe { libc::sync_file_range(fd, offset as libc::off64_t, len as libc::off64_t, flags) };
    if r < 0 {
        Err(errno())
    } else {
        Ok(0)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `atomic=1` opens `O_DIRECT` (the kernel drops fio's `O_ATOMIC` bit).
    #[test]
    fn atomic_opens_direct() {
        let path = std::env::temp_dir().join(format!("rfio-atomic-{}", std::process::id()));
        std::fs::write(&path, vec![0u8; 4096]).unwrap();
        let flags = OpenFlags {
            atomic: true,
            ..OpenFlags::default()
        };
        let fd = open_fd(&path, flags, 0o644).unwrap();
        // SAFETY: F_GETFL takes no argument besides the open descriptor.
        let fl = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
        assert_ne!(fl & libc::O_DIRECT, 0);
        std::fs::remove_file(&path).unwrap();
    }

    /// fio's `generic_open_file`: what is not a regular file is opened
    /// `O_NOATIME` (and, where that is refused with EPERM, without it); a
    /// regular file never is.
    #[test]
    fn devices_are_read_without_access_times() {
        let flags_of = |fd: &OwnedFd| {
            // SAFETY: F_GETFL takes no argument besides the open descriptor.
            unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) }
        };
        let path = std::env::temp_dir().join(format!("rfio-noatime-{}", std::process::id()));
        std::fs::write(&path, vec![0u8; 4096]).unwrap();
        let (fd, is_block) = open_generic(&path, OpenFlags::default(), 0o644).unwrap();
        assert_eq!(flags_of(&fd) & libc::O_NOATIME, 0);
        assert_eq!(flags_of(&fd) & libc::O_ACCMODE, libc::O_RDONLY);
        assert!(!is_block);
        std::fs::remove_file(&path).unwrap();
        // /dev/null is root's: root (CAP_FOWNER) gets the flag, anyone else
        // the EPERM fallback.
        let (fd, is_block) = open_generic(Path::new("/dev/null"), OpenFlags::default(), 0).unwrap();
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        assert_eq!(flags_of(&fd) & libc::O_NOATIME != 0, root);
        assert!(!is_block);
        // A character device is read-write for a reader too, unless
        // --readonly; a regular file read-only.
        assert_eq!(flags_of(&fd) & libc::O_ACCMODE, libc::O_RDWR);
        let ro = OpenFlags {
            readonly: true,
            ..OpenFlags::default()
        };
        let (fd, _) = open_generic(Path::new("/dev/null"), ro, 0).unwrap();
        assert_eq!(flags_of(&fd) & libc::O_ACCMODE, libc::O_RDONLY);
    }

    /// A closed file's slot is taken by the next file opened; its
    /// descriptor reads as -1 meanwhile.
    #[test]
    fn closed_slots_are_used_again() {
        let mut files = Files::default();
        let a = files.push(open_fd(Path::new("/dev/null"), OpenFlags::default(), 0).unwrap());
        let b = files.push(open_fd(Path::new("/dev/null"), OpenFlags::default(), 0).unwrap());
        files.close(a.unwrap());
        assert_eq!(files.fd(FileId(0)), -1);
        assert!(!files.is_empty());
        let c = files.push(open_fd(Path::new("/dev/null"), OpenFlags::default(), 0).unwrap());
        assert_eq!(c.unwrap(), FileId(0));
        files.close(b.unwrap());
        files.close(FileId(0));
        assert!(files.is_empty());
    }
}
