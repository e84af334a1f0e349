//! Checks made before anything is written: block devices that are mounted
//! or carry a filesystem, and free space for the files to lay out.

use std::collections::HashMap;
use std::ffi::CString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Why a device must not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeviceProblem {
    /// fio's own check (`lib/mountcheck.c`).
    Mounted,
    /// The first bytes hold a filesystem superblock (rfio's addition).
    Filesystem(&'static str),
}

/// Whether writing the block device `path` could destroy a filesystem.
/// `None` for anything that is not a block device, or a clean one.
pub(crate) fn device_problem(path: &Path) -> Option<DeviceProblem> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.file_type().is_block_device() {
        return None;
    }
    if is_mounted(path, meta.rdev()) {
        return Some(DeviceProblem::Mounted);
    }
    signature(path).map(DeviceProblem::Filesystem)
}

/// Whether `/proc/self/mounts` mounts `path` (or another node of the same
/// device) anywhere.
fn is_mounted(path: &Path, rdev: u64) -> bool {
    let Ok(mounts) = std::fs::read_to_string("/proc/self/mounts") else {
        return false;
    };
    mounts.lines().any(|line| {
        let Some(src) = line.split_whitespace().next() else {
            return false;
        };
        let src = unescape_mount(src);
        if Path::new(&src) == path {
            return true;
        }
        src.starts_with('/')
            && std::fs::metadata(&src)
                .is_ok_and(|m| m.file_type().is_block_device() && m.rdev() == rdev)
    })
}

/// `/proc/mounts` escapes blanks and backslashes as `\ooo`.
fn unescape_mount(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The filesystem whose superblock starts the device, if any of those rfio
/// knows: ext2/3/4, xfs, btrfs.
fn signature(path: &Path) -> Option<&'static str> {
    let mut f = std::fs::File::open(path).ok()?;
    let mut head = vec![0u8; 65_600 + 8];
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    let head = &head[..got];
    signature_of(head)
}

fn signature_of(head: &[u8]) -> Option<&'static str> {
    if head.len() >= 4 && &head[..4] == b"XFSB" {
        return Some("xfs");
    }
    if head.len() >= 1082 && head[1080..1082] == [0x53, 0xEF] {
        return Some("ext4");
    }
    if head.len() >= 65_608 && &head[65_600..65_608] == b"_BHRfS_M" {
        return Some("btrfs");
    }
    None
}

/// Not enough room for the files to lay out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NoSpace {
    /// A directory on the filesystem that is short.
    pub(crate) dir: PathBuf,
    pub(crate) needed: u64,
    pub(crate) available: u64,
}

/// Check that every filesystem can hold the files of `files` (path, bytes
/// the file must have) that still have to be laid out. A file listed twice
/// counts once, at its largest size.
pub(crate) fn check_space(files: &[(PathBuf, u64)]) -> Result<(), NoSpace> {
    let mut want: HashMap<&Path, u64> = HashMap::new();
    for (p, size) in files {
        let e = want.entry(p.as_path()).or_insert(0);
        *e = (*e).max(*size);
    }
    // Per filesystem: (a directory on it, bytes still needed, available).
    let mut per_fs: HashMap<u64, (PathBuf, u64, u64)> = HashMap::new();
    for (path, size) in want {
        let have = std::fs::metadata(path).map_or(0, |m| {
            if m.file_type().is_file() {
                m.len()
            } else {
                u64::MAX
            }
        });
        if have >= size {
            continue;
        }
        let Some((dir, fsid, avail)) = fs_of(path) else {
            continue;
        };
        let e = per_fs.entry(fsid).or_insert((dir, 0, avail));
        e.1 += size - have;
    }
    for (_, (dir, needed, available)) in per_fs {
        if needed > available {
            return Err(NoSpace {
                dir,
                needed,
                available,
            });
        }
    }
    Ok(())
}

/// The nearest existing directory holding `path`, its filesystem id and
/// the bytes available there to an unprivileged user; `None` where that
/// cannot be known (a filesystem without blocks).
fn fs_of(path: &Path) -> Option<(PathBuf, u64, u64)> {
    let mut dir = path.parent().unwrap_or(Path::new("."));
    if dir.as_os_str().is_empty() {
        dir = Path::new(".");
    }
    while !dir.exists() {
        dir = dir.parent().filter(|d| !d.as_os_str().is_empty())?;
    }
    let c = CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero statvfs is a valid value to be overwritten.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is NUL-terminated and `st` a valid out-pointer.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    if st.f_blocks == 0 {
        // proc, sysfs and their kind count no blocks: there is nothing to
        // measure, and the layout finds out what it may do there.
        return None;
    }
    let avail = (st.f_bavail as u64).saturating_mul(st.f_frsize as u64);
    Some((dir.to_path_buf(), st.f_fsid as u64, avail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superblocks_are_recognised() {
        let mut b = vec![0u8; 70_000];
        assert_eq!(signature_of(&b), None);
        b[1080] = 0x53;
        b[1081] = 0xEF;
        assert_eq!(signature_of(&b), Some("ext4"));
        let mut b = vec![0u8; 70_000];
        b[65_600..65_608].copy_from_slice(b"_BHRfS_M");
        assert_eq!(signature_of(&b), Some("btrfs"));
        b[..4].copy_from_slice(b"XFSB");
        assert_eq!(signature_of(&b), Some("xfs"));
    }

    #[test]
    fn regular_files_are_never_devices() {
        assert_eq!(device_problem(Path::new("/etc/hostname")), None);
        assert_eq!(device_problem(Path::new("/nonexistent/x")), None);
    }

    #[test]
    fn mount_escapes() {
        assert_eq!(unescape_mount(r"/a\040b"), "/a b");
        assert_eq!(unescape_mount("/dev/vda"), "/dev/vda");
    }

    #[test]
    fn space_is_checked_per_filesystem() {
        let dir = std::env::temp_dir();
        let ok = check_space(&[(dir.join("rfio-space-small"), 4096)]);
        assert!(ok.is_ok());
        let huge = check_space(&[(dir.join("rfio-space-huge"), u64::MAX / 2)]);
        assert!(huge.is_err());
    }

    #[test]
    fn filesystems_without_blocks_are_not_measured() {
        // proc counts no blocks: it says nothing of the room there, and
        // a layout under it fails with its own error.
        let p = PathBuf::from(format!("/proc/rfio-space-{}/f", std::process::id()));
        assert_eq!(check_space(&[(p, 1 << 20)]), Ok(()));
    }
}
