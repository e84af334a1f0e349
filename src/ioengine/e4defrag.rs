//! `ioengine=e4defrag`: each write moves the blocks of its range out of a
//! donor file into the job's file with ext4's `EXT4_IOC_MOVE_EXT` ioctl,
//! as a defragmenter does (fio's `engines/e4defrag.c`). Only writes: a
//! read, trim or sync fails with EINVAL.
//!
//! As fio: the donor is `donorname` (under `directory` when the job has
//! one), created if missing; without `inplace` its space is allocated
//! once when the engine starts, from the job's `offset` to the high end of
//! its `filesize` (with no `filesize` that is nothing, and fio's
//! `fallocate` fails with EINVAL); with `inplace=1` each write allocates
//! the donor's range first and truncates the donor to nothing after. A
//! move of fewer blocks than asked is a short write; of none, EINVAL. The
//! errors of an I/O are fio's `td_io_queue`'s (`ioengines.c:399`).

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::engine::{Caps, CommonOptions, IoEngine, QueueError};
use super::files::Files;
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};
use crate::ddir::Ddir;

/// The options of e4defrag (fio's `options[]` of `engines/e4defrag.c`),
/// and what the engine needs of the job.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct E4defragOptions {
    /// `donorname`.
    pub(crate) donorname: Option<String>,
    /// `inplace`.
    pub(crate) inplace: bool,
    /// The job's `directory=`, as written (fio puts the donor under it).
    pub(crate) directory: Option<String>,
    /// The job's `offset` (fio's `start_offset`).
    pub(crate) start_offset: u64,
    /// The high end of the job's `filesize` (0 when unset).
    pub(crate) file_size_high: u64,
}

/// The fio names of [`E4defragOptions`]' options.
pub(crate) const OPTIONS: &[&str] = &["donorname", "inplace"];

/// What `ioengine=e4defrag` is (fio's `engines/e4defrag.c`).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(fio::SYNCIO);

/// What e4defrag can do (fio's `FIO_SYNCIO`, on files).
pub(crate) const CAPS: Caps = Caps::SYNC_FILES;

/// `EXT4_IOC_MOVE_EXT`: `_IOWR('f', 15, struct move_extent)`.
const EXT4_IOC_MOVE_EXT: libc::c_ulong = 0xC028_660F;

/// ext4's `struct move_extent`.
#[repr(C)]
#[derive(Default)]
struct MoveExtent {
    reserved: u32,
    donor_fd: u32,
    orig_start: u64,
    donor_start: u64,
    len: u64,
    moved_len: u64,
}

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<E4defragOptions, Refusal> {
    let job = o.job();
    Ok(E4defragOptions {
        donorname: o.text("donorname"),
        inplace: o.int("inplace") != 0,
        directory: job.directory.clone(),
        start_offset: job.offset,
        file_size_high: job.filesize_high,
    })
}

pub(crate) fn new(
    _common: &CommonOptions,
    o: &E4defragOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    let Some(name) = o.donorname.as_deref().filter(|n| !n.is_empty()) else {
        return Err(EngineError::bare(1, "'donorname' options required\n"));
    };
    let path = match &o.directory {
        Some(d) => format!("{d}/{name}"),
        None => name.to_string(),
    };
    let c = CString::new(path.as_bytes())
        .map_err(|_| EngineError::fio(libc::EINVAL, "engines/e4defrag.c:93", "io_queue_init"))?;
    // SAFETY: `c` is a NUL-terminated path.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
            0o644,
        )
    };
    if fd < 0 {
        return Err(
            EngineError::fio(errno(), "engines/e4defrag.c:93", "io_queue_init")
                .with_log(format!("Can't open donor file {path} err:-1\n")),
        );
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    let donor = unsafe { OwnedFd::from_raw_fd(fd) };
    let failed = || EngineError::fio(errno(), "engines/e4defrag.c:113", "io_queue_init");
    if !o.inplace {
        let len = (o.file_size_high as i64).wrapping_sub(o.start_offset as i64);
        // SAFETY: fallocate only takes integers.
        if unsafe { libc::fallocate(fd, 0, o.start_offset as libc::off_t, len) } != 0 {
            return Err(failed());
        }
    }
    // SAFETY: an all-zero stat is a valid value for fstat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a whole stat.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(failed());
    }
    Ok(Box::new(E4defrag {
        files: Files::default(),
        donor,
        bsz: (st.st_blksize as u64).max(1),
        inplace: o.inplace,
    }))
}

struct E4defrag {
    files: Files,
    donor: OwnedFd,
    /// The donor's block size (`st_blksize`).
    bsz: u64,
    inplace: bool,
}

impl E4defrag {
    /// fio's `fio_e4defrag_queue` of a write.
    fn defrag(&mut self, io: &Io) -> IoResult {
        let donor = self.donor.as_raw_fd();
        let len = io.len as u64;
        if self.inplace {
            // SAFETY: fallocate only takes integers.
            let r =
                unsafe { libc::fallocate(donor, 0, io.offset as libc::off_t, len as libc::off_t) };
            if r != 0 {
                return Err(errno());
            }
        }
        let orig_start = io.offset / self.bsz;
        let mut me = MoveExtent {
            donor_fd: donor as u32,
            orig_start,
            donor_start: orig_start,
            len: (io.offset + len).div_ceil(self.bsz) - orig_start,
            ..MoveExtent::default()
        };
        // SAFETY: `me` is a whole move_extent, which the ioctl reads and
        // writes.
        let r = unsafe { libc::ioctl(self.files.fd(io.file), EXT4_IOC_MOVE_EXT, &mut me) };
        let ioctl_errno = (r != 0).then(errno);
        let moved = (me.moved_len * self.bsz).min(len);
        let mut result = match moved {
            m if m == len => Ok(io.len),
            // A short move: the rest is issued again.
            m if m > 0 => Ok(m as usize),
            // Past the end of the file.
            _ => Err(libc::EINVAL),
        };
        if let Some(e) = ioctl_errno {
            result = Err(e);
        }
        if self.inplace {
            // SAFETY: ftruncate only takes integers.
            if unsafe { libc::ftruncate(donor, 0) } != 0 && result.is_ok() {
                result = Err(errno());
            }
        }
        result
    }
}

impl IoEngine for E4defrag {
    fn name(&self) -> &'static str {
        "e4defrag"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        self.files.open(target)
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        // Defragmentation changes the layout, not the data: writes only.
        if io.dir != Ddir::Write {
            return Queued::Completed(Err(libc::EINVAL));
        }
        Queued::Completed(self.defrag(io))
    }

    fn queue_error(&mut self, errno: i32) -> Option<QueueError> {
        // fio's e4defrag sets io_u->error only: td_io_queue reports it.
        Some(QueueError {
            error: EngineError::fio(errno, "ioengines.c:399", "td_io_queue"),
            log: None,
        })
    }

    fn files(&mut self) -> Option<&mut Files> {
        Some(&mut self.files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_extent_is_extfs_layout() {
        assert_eq!(std::mem::size_of::<MoveExtent>(), 40);
        // _IOWR('f', 15, 40 bytes).
        let ioc = (3u64 << 30) | (40 << 16) | (u64::from(b'f') << 8) | 15;
        let ioc: libc::c_ulong = ioc as libc::c_ulong;
        assert_eq!(EXT4_IOC_MOVE_EXT, ioc);
    }

    #[test]
    fn starts_as_fio() {
        let common = CommonOptions::default();
        let e = new(&common, &E4defragOptions::default(), IoMem::NONE)
            .err()
            .unwrap();
        assert_eq!(
            (e.errno, e.log.as_deref()),
            (1, Some("'donorname' options required\n"))
        );
        let missing = std::env::temp_dir()
            .join(format!("rfio-e4d-missing-{}", std::process::id()))
            .join("sub");
        let o = E4defragOptions {
            donorname: Some("d".into()),
            directory: Some(missing.display().to_string()),
            ..E4defragOptions::default()
        };
        let e = new(&common, &o, IoMem::NONE).err().unwrap();
        assert_eq!(e.errno, libc::ENOENT);
        assert_eq!(
            e.log,
            Some(format!(
                "Can't open donor file {}/d err:-1\n",
                missing.display()
            ))
        );
        // No filesize: nothing to allocate, fallocate's EINVAL.
        let dir = std::env::temp_dir().join(format!("rfio-e4d-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let o = E4defragOptions {
            donorname: Some("donor".into()),
            directory: Some(dir.display().to_string()),
            ..E4defragOptions::default()
        };
        let e = new(&common, &o, IoMem::NONE).err().unwrap();
        assert_eq!(
            (e.errno, e.src),
            (libc::EINVAL, Some("engines/e4defrag.c:113"))
        );
        assert!(dir.join("donor").exists(), "created first");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
