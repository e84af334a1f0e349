//! `ioengine=dev-dax`: I/O to a device DAX character device
//! (`/dev/daxX.Y`, persistent memory without a filesystem), mapped and
//! copied to and from (fio's `engines/dev-dax.c`): a read is a copy, a
//! write PMDK's `pmem_memcpy_persist` (copy, flush, drain), a sync does
//! nothing, a trim fails with EINVAL.
//!
//! As fio: the device's size is what sysfs says
//! (`/sys/dev/char/MAJOR:MINOR/size`, read when the job's files are set
//! up), and the job's region of it is mapped from its start, readable for
//! reads and verifies, writable for writes. A target that is not a device
//! DAX character device (its sysfs `subsystem` is not `dax`) cannot run:
//! the plan refuses it ([`not_dax`]), where fio reaps such a job without a
//! word. This machine has no such device: only the refusal and the
//! mapping (on a regular file) are tested here.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use super::engine::{Caps, CommonOptions, IoEngine, QueueError};
use super::error::SetupError;
use super::files::open_generic;
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{EngineError, FileId, FileTarget, Io, IoMem, Queued};
use super::libpmem::{init_check, Mapping, PmemOptions};
use crate::ddir::Ddir;

/// What dev-dax needs of the job.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct DevdaxOptions {
    pub(crate) pmem: PmemOptions,
    /// The job's first file: the device whose size the setup reads.
    pub(crate) device: Option<PathBuf>,
}

/// dev-dax has no options of its own.
pub(crate) const OPTIONS: &[&str] = &[];

/// What `ioengine=dev-dax` is (fio's `engines/dev-dax.c`).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::SYNCIO | fio::DISKLESSIO | fio::NOEXTEND | fio::NODISKUTIL);

/// What dev-dax can do (fio's `FIO_SYNCIO | FIO_DISKLESSIO | FIO_NOEXTEND
/// | FIO_NODISKUTIL`): nothing to lay out, the device's size its own.
pub(crate) const CAPS: Caps = Caps {
    needs_files: false,
    no_extend: true,
    ..Caps::SYNC_FILES
};

/// The sysfs directory of character device `path`, when it is one.
fn sysfs_dir(path: &Path) -> Option<PathBuf> {
    let m = std::fs::metadata(path).ok()?;
    if !m.file_type().is_char_device() {
        return None;
    }
    use std::os::unix::fs::MetadataExt;
    let rdev = m.rdev();
    Some(PathBuf::from(format!(
        "/sys/dev/char/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    )))
}

/// Why `path` cannot be dev-dax's target (`None`: it is a device DAX
/// character device).
pub(crate) fn refuse_file(path: &Path) -> Option<String> {
    let why = not_dax(path)?;
    Some(format!(
        "ioengine=dev-dax needs a device DAX character device (/dev/daxX.Y); {why}"
    ))
}

/// Why `path` is no device DAX character device, or `None` when it is one.
pub(crate) fn not_dax(path: &Path) -> Option<String> {
    let Some(dir) = sysfs_dir(path) else {
        return Some(format!("{} is not a character device", path.display()));
    };
    let subsystem = std::fs::canonicalize(dir.join("subsystem")).ok();
    let class = subsystem.as_deref().and_then(Path::file_name);
    if class.and_then(|c| c.to_str()) != Some("dax") {
        return Some(format!("{} is not a device DAX device", path.display()));
    }
    None
}

/// fio's `fio_devdax_get_file_size`: the device's size from sysfs.
pub(crate) fn setup(o: &DevdaxOptions) -> Result<Option<u64>, SetupError> {
    let Some(dev) = &o.device else {
        return Ok(None);
    };
    let Some(dir) = sysfs_dir(dev) else {
        return Ok(None);
    };
    let path = dir.join("size");
    let size = std::fs::read_to_string(&path).map_err(|source| SetupError::DevdaxSizeUnread {
        device: dev.clone(),
        path: path.clone(),
        source,
    })?;
    size.trim()
        .parse()
        .map(Some)
        .map_err(|_| SetupError::DevdaxBadSize {
            device: dev.clone(),
            text: size.trim().to_string(),
        })
}

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<DevdaxOptions, Refusal> {
    Ok(DevdaxOptions {
        pmem: super::libpmem::options(o)?,
        device: o.job().first_file.clone(),
    })
}

pub(crate) fn new(
    _common: &CommonOptions,
    o: &DevdaxOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    init_check("dev-dax", &o.pmem)?;
    let p = &o.pmem;
    // fio's fio_devdax_file: read and write for a mix, write (and read
    // to verify) for writes, read for reads.
    let prot = match (p.read, p.write) {
        (true, true) => libc::PROT_READ | libc::PROT_WRITE,
        (false, true) if p.verify => libc::PROT_READ | libc::PROT_WRITE,
        (false, true) => libc::PROT_WRITE,
        _ => libc::PROT_READ,
    };
    Ok(Box::new(Devdax {
        maps: Vec::new(),
        prot,
    }))
}

struct Devdax {
    maps: Vec<Mapping>,
    prot: i32,
}

impl IoEngine for Devdax {
    fn name(&self) -> &'static str {
        "dev-dax"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    /// fio's generic open, then the job's region mapped from the start.
    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let mut flags = target.flags;
        flags.direct = false;
        flags.create = false;
        let (fd, _) = open_generic(&target.path, flags, 0o644)?;
        let (m, _) = Mapping::map(fd, target.region_end as usize, self.prot)
            .map_err(|e| EngineError::fio(e, "engines/dev-dax.c:97", "mmap"))?;
        self.maps.push(m);
        Ok(FileId(self.maps.len() as u32 - 1))
    }

    #[inline]
    unsafe fn queue(&mut self, io: &Io) -> Queued {
        if matches!(io.dir, Ddir::Sync | Ddir::DataSync) {
            return Queued::Completed(Ok(0));
        }
        // SAFETY: the caller guarantees the buffer until the I/O completes
        // (`queue`'s contract), which is before `xfer` returns.
        Queued::Completed(unsafe { self.maps[io.file.0 as usize].xfer(io, true) })
    }

    fn queue_error(&mut self, errno: i32) -> Option<QueueError> {
        // fio's dev-dax sets io_u->error only: td_io_queue reports it.
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

    #[test]
    fn only_device_dax_devices_are_targets() {
        assert_eq!(
            not_dax(Path::new("/dev/null")).as_deref(),
            Some("/dev/null is not a device DAX device")
        );
        assert_eq!(
            not_dax(Path::new("/nonexistent-dax")).as_deref(),
            Some("/nonexistent-dax is not a character device")
        );
        let o = DevdaxOptions {
            device: Some("/dev/null".into()),
            ..DevdaxOptions::default()
        };
        // /dev/null's sysfs entry has no size.
        assert!(setup(&o).is_err());
        assert!(matches!(setup(&DevdaxOptions::default()), Ok(None)));
    }

    #[test]
    fn maps_and_persists_writes() {
        let path = std::env::temp_dir().join(format!("rfio-devdax-{}", std::process::id()));
        std::fs::write(&path, vec![0u8; 8192]).unwrap();
        let o = DevdaxOptions {
            pmem: PmemOptions {
                write: true,
                verify: true,
                ..PmemOptions::default()
            },
            device: None,
        };
        let mut e = new(&CommonOptions::default(), &o, IoMem::NONE).unwrap();
        let flags = crate::ioengine::OpenFlags {
            write: true,
            ..Default::default()
        };
        let f = e
            .open(&FileTarget {
                path: path.clone(),
                flags,
                region_end: 8192,
            })
            .unwrap();
        let mut w = vec![5u8; 4096];
        let io = |dir, buf: &mut [u8]| Io {
            token: 0,
            file: f,
            dir,
            offset: 4096,
            len: buf.len(),
            buf: buf.as_mut_ptr(),
        };
        // SAFETY (each queue): the buffer outlives the call.
        assert_eq!(
            unsafe { e.queue(&io(Ddir::Write, &mut w)) },
            Queued::Completed(Ok(4096))
        );
        let mut r = vec![0u8; 4096];
        assert_eq!(
            unsafe { e.queue(&io(Ddir::Read, &mut r)) },
            Queued::Completed(Ok(4096))
        );
        assert_eq!(r, w);
        assert_eq!(
            unsafe { e.queue(&io(Ddir::Sync, &mut [])) },
            Queued::Completed(Ok(0))
        );
        assert_eq!(
            unsafe { e.queue(&io(Ddir::Trim, &mut r)) },
            Queued::Completed(Err(libc::EINVAL))
        );
        e.close_all();
        assert_eq!(&std::fs::read(&path).unwrap()[4096..], &w[..]);
        let _ = std::fs::remove_file(&path);
    }
}
