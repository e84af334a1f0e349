//! `ioengine=libpmem`: each file is mapped as PMDK's `pmem_map_file` maps
//! it, and every I/O is a copy to or from the mapping (fio's
//! `engines/libpmem.c`; rfio does what libpmem does, without PMDK): a
//! write is `pmem_memcpy`, the copy with its cache lines flushed
//! (`clflush` on x86-64), drained (`sfence`) at once when the job asks for
//! synchronous I/O (`sync=1`) and otherwise by the job's syncs (`fsync=N`,
//! `end_fsync`); a read is a plain copy; a trim fails with EINVAL.
//!
//! As PMDK: the file is opened read-write (created if missing), its size
//! set to the job's region and its blocks allocated, then mapped with
//! `MAP_SHARED_VALIDATE | MAP_SYNC`, which only a DAX filesystem on
//! persistent memory grants; anywhere else the mapping is plain
//! `MAP_SHARED` and is not persistent memory unless `PMEM_IS_PMEM_FORCE=1`
//! is in the environment (PMDK's switch). Not persistent memory is fio's
//! error: `td_verror(td, errno, "file_name does not point to persistent
//! memory")`, with the errno of the refused `MAP_SYNC` (EOPNOTSUPP).
//! A job with blocks smaller than a page and syncs every N blocks fails to
//! start, as fio's (`libpmem: mmap options dictate a minimum block size of
//! 4096 bytes`).
//!
//! The mapping helpers are shared with dev-dax (`devdax.rs`).

use std::os::fd::{AsRawFd, OwnedFd};

use super::engine::{Caps, CommonOptions, IoEngine, QueueError};
use super::files::open_fd;
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};
use crate::ddir::Ddir;

/// What libpmem (and dev-dax) need of the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PmemOptions {
    /// Blocks smaller than a page (fio's `rw_min_bs & page_mask`) with
    /// `fsync=N` or `fdatasync=N`: fio's init refuses the job.
    pub(crate) small_blocks_with_syncs: bool,
    /// `sync=1` (or `dsync`): each write is drained at once.
    pub(crate) sync_io: bool,
    /// The job reads, writes (for dev-dax's mapping protection) and
    /// verifies.
    pub(crate) read: bool,
    pub(crate) write: bool,
    pub(crate) verify: bool,
}

/// libpmem has no options of its own.
pub(crate) const OPTIONS: &[&str] = &[];

/// What `ioengine=libpmem` is (fio's `engines/libpmem.c`).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(
    fio::SYNCIO
        | fio::RAWIO
        | fio::DISKLESSIO
        | fio::NOEXTEND
        | fio::NODISKUTIL
        | fio::BARRIER
        | fio::MEMALIGN,
);

/// What libpmem can do (fio's `FIO_SYNCIO | FIO_DISKLESSIO | FIO_NOEXTEND
/// | FIO_NODISKUTIL | ...`): its files are real (fio fills them before the
/// job, `Prepopulating IO file`), written through the mapping only.
pub(crate) const CAPS: Caps = Caps {
    no_extend: true,
    ..Caps::SYNC_FILES
};

/// fio's line and error when the job's blocks are below a page with syncs.
pub(super) fn init_check(engine: &str, o: &PmemOptions) -> Result<(), EngineError> {
    if o.small_blocks_with_syncs {
        return Err(EngineError::bare(
            1,
            format!("{engine}: mmap options dictate a minimum block size of 4096 bytes\n"),
        ));
    }
    Ok(())
}

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<PmemOptions, Refusal> {
    let job = o.job();
    // fio's init refuses blocks below a page (`rw_min_bs & page_mask`)
    // with `fsync=N`/`fdatasync=N`; `sync=` drains each write.
    Ok(PmemOptions {
        small_blocks_with_syncs: job.min_bs % 4096 != 0 && job.syncs,
        sync_io: job.sync_io,
        read: job.read,
        write: job.write,
        verify: job.verify,
    })
}

pub(crate) fn new(
    _common: &CommonOptions,
    o: &PmemOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    init_check("libpmem", o)?;
    Ok(Box::new(Libpmem {
        maps: Vec::new(),
        sync_io: o.sync_io,
        force: std::env::var("PMEM_IS_PMEM_FORCE").ok().as_deref() == Some("1"),
    }))
}

/// One mapped file (or device).
pub(super) struct Mapping {
    pub(super) _fd: OwnedFd,
    pub(super) ptr: *mut u8,
    pub(super) len: usize,
}

// SAFETY: the mapping is owned by this value alone (mapped by `map`,
// unmapped when it drops) and is plain shared memory, which any thread of
// the process may read, write and unmap.
unsafe impl Send for Mapping {}

impl Mapping {
    /// Map `len` bytes of `fd` from offset 0, shared; first with
    /// `MAP_SYNC` (granted on persistent memory only). The mapping, and
    /// whether `MAP_SYNC` was granted or the errno of its refusal.
    pub(super) fn map(
        fd: OwnedFd,
        len: usize,
        prot: i32,
    ) -> Result<(Mapping, Result<(), i32>), i32> {
        if len == 0 {
            let m = Mapping {
                _fd: fd,
                ptr: std::ptr::null_mut(),
                len: 0,
            };
            return Ok((m, Err(libc::EINVAL)));
        }
        let raw = fd.as_raw_fd();
        // SAFETY: a fresh mapping of an open descriptor; nothing aliases it.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED_VALIDATE | libc::MAP_SYNC,
                raw,
                0,
            )
        };
        let (p, sync) = if p == libc::MAP_FAILED {
            let refused = errno();
            // SAFETY: as above.
            let p =
                unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, raw, 0) };
            if p == libc::MAP_FAILED {
                return Err(errno());
            }
            (p, Err(refused))
        } else {
            (p, Ok(()))
        };
        Ok((
            Mapping {
                _fd: fd,
                ptr: p.cast(),
                len,
            },
            sync,
        ))
    }

    /// The mapping's bytes for `io` (at its offset), or EINVAL past its
    /// end.
    fn at(&self, io: &Io) -> Result<*mut u8, i32> {
        match io.offset.checked_add(io.len as u64) {
            Some(end) if end <= self.len as u64 => {
                // SAFETY: inside the mapping (checked).
                Ok(unsafe { self.ptr.add(io.offset as usize) })
            }
            _ => Err(libc::EINVAL),
        }
    }

    /// A read (`memcpy`) or a write (`pmem_memcpy`: copy and flush, and
    /// drain when `drain`) of `io`; EINVAL for anything else.
    ///
    /// # Safety
    /// `io.buf` is valid for `io.len` bytes, untouched by anyone else.
    pub(super) unsafe fn xfer(&self, io: &Io, drain: bool) -> IoResult {
        let at = self.at(io)?;
        // SAFETY: `at` has `io.len` bytes inside the mapping, `io.buf` as
        // many (the contract); the job's buffer never overlaps a mapping.
        unsafe {
            match io.dir {
                Ddir::Read => std::ptr::copy_nonoverlapping(at, io.buf, io.len),
                Ddir::Write => {
                    std::ptr::copy_nonoverlapping(io.buf, at, io.len);
                    flush(at, io.len);
                    if drain {
                        self::drain();
                    }
                }
                _ => return Err(libc::EINVAL),
            }
        }
        Ok(io.len)
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: exactly what mmap returned.
            unsafe { libc::munmap(self.ptr.cast(), self.len) };
        }
    }
}

/// Flush the cache lines of `len` bytes at `p` (PMDK's `pmem_flush`).
///
/// # Safety
/// `p` is valid for `len` bytes.
unsafe fn flush(p: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let start = p as usize & !63;
        let end = p as usize + len;
        let mut line = start;
        while line < end {
            // SAFETY: the line holds bytes of the range (the contract);
            // clflush is in every x86-64 CPU.
            unsafe { std::arch::x86_64::_mm_clflush(line as *const u8) };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, len);
}

/// Wait for the flushes (PMDK's `pmem_drain`).
pub(super) fn drain() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a fence has no operands.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
    #[cfg(not(target_arch = "x86_64"))]
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

struct Libpmem {
    maps: Vec<Mapping>,
    sync_io: bool,
    /// `PMEM_IS_PMEM_FORCE=1`.
    force: bool,
}

impl IoEngine for Libpmem {
    fn name(&self) -> &'static str {
        "libpmem"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    /// PMDK's `pmem_map_file(path, region, PMEM_FILE_CREATE, 0600)`.
    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let mut flags = target.flags;
        flags.write = true;
        flags.create = true;
        flags.direct = false;
        let fd = open_fd(&target.path, flags, 0o600)?;
        let len = target.region_end;
        let raw = fd.as_raw_fd();
        // SAFETY: ftruncate and posix_fallocate take integers.
        unsafe {
            if libc::ftruncate(raw, len as libc::off_t) != 0 {
                return Err(EngineError::last_os("ftruncate"));
            }
            if len > 0 {
                let r = libc::posix_fallocate(raw, 0, len as libc::off_t);
                if r != 0 {
                    return Err(EngineError::new(r, "posix_fallocate"));
                }
            }
        }
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let (m, sync) =
            Mapping::map(fd, len as usize, prot).map_err(|e| EngineError::new(e, "mmap"))?;
        let is_pmem = sync.is_ok() || self.force;
        if !is_pmem {
            let e = sync.err().unwrap_or(libc::EOPNOTSUPP);
            return Err(EngineError::fio(
                e,
                "engines/libpmem.c:114",
                "file_name does not point to persistent memory",
            ));
        }
        self.maps.push(m);
        Ok(FileId(self.maps.len() as u32 - 1))
    }

    #[inline]
    unsafe fn queue(&mut self, io: &Io) -> Queued {
        if matches!(io.dir, Ddir::Sync | Ddir::DataSync) {
            drain();
            return Queued::Completed(Ok(0));
        }
        // SAFETY: the caller guarantees the buffer until the I/O completes
        // (`queue`'s contract), which is before `xfer` returns.
        Queued::Completed(unsafe { self.maps[io.file.0 as usize].xfer(io, self.sync_io) })
    }

    fn queue_error(&mut self, errno: i32) -> Option<QueueError> {
        // fio's libpmem sets io_u->error only: td_io_queue reports it.
        Some(QueueError {
            error: EngineError::fio(errno, "ioengines.c:399", "td_io_queue"),
            log: None,
        })
    }

    fn close_all(&mut self) {
        self.maps.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(dir: Ddir, offset: u64, buf: &mut [u8]) -> Io {
        Io {
            token: 0,
            file: FileId(0),
            dir,
            offset,
            len: buf.len(),
            buf: buf.as_mut_ptr(),
        }
    }

    #[test]
    fn copies_through_the_mapping() {
        let dir = std::env::temp_dir().join(format!("rfio-pmem-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, vec![9u8; 100]).unwrap();
        let mut e = Libpmem {
            maps: Vec::new(),
            sync_io: true,
            force: false,
        };
        let target = FileTarget {
            path: path.clone(),
            flags: Default::default(),
            region_end: 64 << 10,
        };
        // Not persistent memory: fio's error, with MAP_SYNC's errno.
        let err = e.open(&target).unwrap_err();
        assert_eq!(err.src, Some("engines/libpmem.c:114"));
        assert_eq!(err.func, "file_name does not point to persistent memory");
        assert_eq!(err.errno, libc::EOPNOTSUPP);
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            64 << 10,
            "sized first"
        );
        e.force = true;
        let f = e.open(&target).unwrap();
        assert_eq!(f, FileId(0));
        let mut w = vec![7u8; 4096];
        // SAFETY (each queue): the buffer outlives the call.
        assert_eq!(
            unsafe { e.queue(&io(Ddir::Write, 8192, &mut w)) },
            Queued::Completed(Ok(4096))
        );
        let mut r = vec![0u8; 4096];
        assert_eq!(
            unsafe { e.queue(&io(Ddir::Read, 8192, &mut r)) },
            Queued::Completed(Ok(4096))
        );
        assert_eq!(r, w);
        assert_eq!(
            unsafe { e.queue(&io(Ddir::Trim, 0, &mut r)) },
            Queued::Completed(Err(libc::EINVAL))
        );
        assert_eq!(
            unsafe { e.queue(&io(Ddir::Read, 63 << 10, &mut r)) },
            Queued::Completed(Err(libc::EINVAL)),
            "past the mapping"
        );
        e.close_all();
        let data = std::fs::read(&path).unwrap();
        assert_eq!(&data[8192..12288], &w[..], "in the file");
        assert_eq!(&data[..100], &[9u8; 100][..], "the rest kept");
        let _ = std::fs::remove_dir_all(&dir);
        let small = PmemOptions {
            small_blocks_with_syncs: true,
            ..PmemOptions::default()
        };
        let e = new(&CommonOptions::default(), &small, IoMem::NONE)
            .err()
            .unwrap();
        assert_eq!(
            e.log.as_deref(),
            Some("libpmem: mmap options dictate a minimum block size of 4096 bytes\n")
        );
    }
}
