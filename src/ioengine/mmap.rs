//! `ioengine=mmap`: the file's I/O region is mapped (`mmap(2)`,
//! `MAP_SHARED`) when it is opened and every I/O is a `memcpy` to or from
//! the mapping (fio's `engines/mmap.c`). Syncs are `msync(MS_SYNC)`, trims
//! punch a hole. A write job's file is first extended to the end of its
//! region, so that no store lands past the end of the file.
//!
//! `thp` asks for transparent huge pages (`madvise(MADV_HUGEPAGE)`) on a
//! private mapping, as fio does: writes then stay in the job's copy and
//! never reach the file.

use crate::ddir::Ddir;
use std::os::fd::AsRawFd;

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{open_generic, trim, OpenFile};
use super::flags::{self, fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};

struct Mapped {
    /// `None` once closed (`openfiles`).
    file: Option<OpenFile>,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: `ptr` is a mapping owned by this value alone (unmapped when it
// is closed or dropped), plain shared memory any thread of the process may
// use.
unsafe impl Send for Mapped {}

pub(crate) struct Mmap {
    maps: Vec<Mapped>,
    /// `direct=1`: every transfer is synced and its pages dropped, the
    /// closest a mapping gets to O_DIRECT (fio does the same).
    direct: bool,
    /// `thp`.
    thp: bool,
}

/// mmap's own options (fio's `options[]` of `engines/mmap.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct MmapOptions {
    /// `thp` (an integer, non-zero: on): a private mapping with
    /// `MADV_HUGEPAGE`.
    pub(crate) thp: bool,
}

/// The fio names of [`MmapOptions`].
pub(crate) const OPTIONS: &[&str] = &["thp"];

/// What `ioengine=mmap` is (fio's `engines/mmap.c`).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::SYNCIO | fio::NOEXTEND).open_error_at(flags::GENERIC_OPEN);

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps {
    no_extend: true,
    no_io: false,
    ..Caps::SYNC_FILES
};

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<MmapOptions, Refusal> {
    Ok(MmapOptions {
        thp: o.int("thp") != 0,
    })
}

pub(crate) fn new(
    common: &CommonOptions,
    opts: &MmapOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Mmap {
        maps: Vec::new(),
        direct: common.direct,
        thp: opts.thp,
    }))
}

impl Mmap {
    fn unmap_all(&mut self) {
        for m in self.maps.drain(..) {
            if m.len > 0 {
                // SAFETY: `ptr`/`len` are exactly what mmap returned.
                unsafe { libc::munmap(m.ptr.cast(), m.len) };
            }
        }
    }

    /// # Safety
    /// As [`IoEngine::queue`]: `io.buf` is valid for `io.len` bytes, and
    /// untouched by anyone else, until this returns.
    #[inline]
    unsafe fn xfer(&mut self, io: &Io) -> IoResult {
        let m = &self.maps[io.file.0 as usize];
        match io.dir {
            Ddir::Trim => {
                return match &m.file {
                    Some(f) => trim(f, io.offset, io.len),
                    None => Err(libc::EBADF),
                }
            }
            Ddir::Sync | Ddir::DataSync => {
                // SAFETY: the range is the whole live mapping.
                let r = unsafe { libc::msync(m.ptr.cast(), m.len, libc::MS_SYNC) };
                return if r < 0 { Err(errno()) } else { Ok(0) };
            }
            Ddir::Read | Ddir::Write => {}
        }
        let end = io.offset.checked_add(io.len as u64);
        if end.is_none_or(|e| e > m.len as u64) {
            return Err(libc::EINVAL);
        }
        // SAFETY: `offset..offset+len` is inside the mapping (checked above).
        let at = unsafe { m.ptr.add(io.offset as usize) };
        // SAFETY: `io.buf` is valid for `len` bytes (this function's
        // contract), the mapping range as above; the two never overlap (the
        // buffer is the job's own memory).
        unsafe {
            if io.dir == Ddir::Read {
                std::ptr::copy_nonoverlapping(at, io.buf, io.len);
            } else {
                std::ptr::copy_nonoverlapping(io.buf, at, io.len);
            }
        }
        if self.direct {
            // msync/madvise want a page-aligned start.
            let page = at as usize & !(4096 - 1);
            let len = at as usize + io.len - page;
            // SAFETY: the range lies inside the live mapping.
            unsafe {
                if libc::msync(page as *mut libc::c_void, len, libc::MS_SYNC) < 0 {
                    return Err(errno());
                }
                libc::posix_madvise(page as *mut libc::c_void, len, libc::POSIX_MADV_DONTNEED);
            }
        }
        Ok(io.len)
    }
}

impl IoEngine for Mmap {
    fn name(&self) -> &'static str {
        "mmap"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let mut flags = target.flags;
        // A mapping does its own caching: O_DIRECT means nothing here.
        flags.direct = false;
        let (fd, _) = open_generic(&target.path, flags, 0o644)?;
        let raw = fd.as_raw_fd();
        let len = target.region_end as usize;
        if flags.write {
            // SAFETY: an all-zero `stat` is a valid value to be overwritten.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: `raw` is open, `st` a valid out-pointer.
            if unsafe { libc::fstat(raw, &mut st) } < 0 {
                return Err(EngineError::last_os("fstat"));
            }
            let is_file = (st.st_mode & libc::S_IFMT) == libc::S_IFREG;
            if is_file && (st.st_size as u64) < target.region_end {
                // SAFETY: ftruncate only takes integers.
                let r = unsafe { libc::ftruncate(raw, target.region_end as libc::off_t) };
                if r < 0 {
                    return Err(EngineError::last_os("ftruncate"));
                }
            }
        }
        let prot = if flags.write {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        let ptr = if len == 0 {
            std::ptr::null_mut()
        } else {
            let shared = if self.thp {
                libc::MAP_PRIVATE
            } else {
                libc::MAP_SHARED
            };
            // SAFETY: a fresh mapping of an open descriptor; nothing else
            // aliases it.
            let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, shared, raw, 0) };
            if p == libc::MAP_FAILED {
                return Err(EngineError::last_os("mmap"));
            }
            if self.thp {
                // An advice: its failure is ignored, as fio ignores it.
                // SAFETY: the whole fresh mapping.
                unsafe { libc::madvise(p, len, libc::MADV_HUGEPAGE) };
            }
            p.cast::<u8>()
        };
        let file = OpenFile {
            fd,
            is_block: false,
        };
        self.maps.push(Mapped {
            file: Some(file),
            ptr,
            len,
        });
        Ok(FileId(self.maps.len() as u32 - 1))
    }

    #[inline]
    unsafe fn queue(&mut self, io: &Io) -> Queued {
        // SAFETY: the caller guarantees the buffer until the I/O completes
        // (`queue`'s contract), which is before `xfer` returns.
        Queued::Completed(unsafe { self.xfer(io) })
    }

    fn invalidate(&mut self, file: FileId) -> Result<(), i32> {
        let m = &self.maps[file.0 as usize];
        if m.len == 0 {
            return Ok(());
        }
        // SAFETY: the whole live mapping; DONTNEED drops the page references.
        let r = unsafe { libc::madvise(m.ptr.cast(), m.len, libc::MADV_DONTNEED) };
        if r < 0 {
            return Err(errno());
        }
        match &m.file {
            Some(f) => super::files::invalidate_fd(f.fd.as_raw_fd(), false),
            None => Err(libc::EBADF),
        }
    }

    fn fadvise(&mut self, file: FileId, _offset: u64, _len: u64, advice: i32) -> Result<(), i32> {
        let m = &self.maps[file.0 as usize];
        if m.len == 0 {
            return Ok(());
        }
        let madv = if advice == libc::POSIX_FADV_RANDOM {
            libc::MADV_RANDOM
        } else {
            libc::MADV_SEQUENTIAL
        };
        // SAFETY: the whole live mapping; the advice only affects paging.
        let r = unsafe { libc::madvise(m.ptr.cast(), m.len, madv) };
        if r < 0 {
            Err(errno())
        } else {
            Ok(())
        }
    }

    fn close_file(&mut self, file: FileId) {
        if let Some(m) = self.maps.get_mut(file.0 as usize) {
            if m.len > 0 {
                // SAFETY: `ptr`/`len` are exactly what mmap returned, and
                // no I/O of the file is in flight (I/O here is synchronous).
                unsafe { libc::munmap(m.ptr.cast(), m.len) };
            }
            m.ptr = std::ptr::null_mut();
            m.len = 0;
            m.file = None;
        }
    }

    fn raw_fd(&mut self, file: FileId) -> Option<std::os::fd::RawFd> {
        let m = self.maps.get(file.0 as usize)?;
        m.file.as_ref().map(|f| f.fd.as_raw_fd())
    }

    fn close_all(&mut self) {
        self.unmap_all();
    }
}

impl Drop for Mmap {
    fn drop(&mut self) {
        self.unmap_all();
    }
}
