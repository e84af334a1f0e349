//! What of a file has no data on the device: holes and unwritten extents,
//! asked of the file system with FIEMAP, or with `SEEK_DATA`/`SEEK_HOLE`
//! (holes only) where it has no FIEMAP (tmpfs, NFS).

use std::os::unix::io::AsRawFd;
use std::path::Path;

use super::Unwritten;

/// `FS_IOC_FIEMAP`: `_IOWR('f', 11, struct fiemap)` (a 32-byte header).
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
const FIEMAP_EXTENT_LAST: u32 = 0x1;
/// Delayed allocation: data in the page cache, not yet placed.
const FIEMAP_EXTENT_DELALLOC: u32 = 0x4;
const FIEMAP_EXTENT_UNWRITTEN: u32 = 0x800;
/// Extents asked for per call.
const BATCH: usize = 128;
/// Calls at most (a file in more pieces is judged on its first ones).
const MAX_CALLS: usize = 256;

/// `struct fiemap_extent` (linux/fiemap.h).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Extent {
    logical: u64,
    physical: u64,
    length: u64,
    reserved64: [u64; 2],
    flags: u32,
    reserved: [u32; 3],
}

/// `struct fiemap` with room for [`BATCH`] extents.
#[repr(C)]
struct Map {
    start: u64,
    length: u64,
    flags: u32,
    mapped_extents: u32,
    extent_count: u32,
    reserved: u32,
    extents: [Extent; BATCH],
}

/// The holes and unwritten extents of bytes `start..start + len` of `path`.
pub(super) fn unwritten(path: &Path, start: u64, len: u64) -> Option<Unwritten> {
    let file = std::fs::File::open(path).ok()?;
    let end = start.checked_add(len)?;
    fiemap(&file, start, end).or_else(|| seek_holes(&file, start, end))
}

/// The pieces of `start..end` with no data, by FIEMAP.
fn fiemap(file: &std::fs::File, start: u64, end: u64) -> Option<Unwritten> {
    let mut out = Unwritten::default();
    // Where the bytes not yet accounted for begin.
    let mut at = start;
    for _ in 0..MAX_CALLS {
        let mut map = Map {
            start: at,
            length: end - at,
            flags: 0,
            mapped_extents: 0,
            extent_count: BATCH as u32,
            reserved: 0,
            extents: [Extent::default(); BATCH],
        };
        // SAFETY: `map` is a `struct fiemap` followed by room for the
        // `extent_count` extents the kernel may fill in.
        if unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_FIEMAP, &mut map) } != 0 {
            return None;
        }
        let n = (map.mapped_extents as usize).min(BATCH);
        let mut last = n == 0;
        for e in &map.extents[..n] {
            let (lo, hi) = (e.logical.max(at), (e.logical + e.length).min(end));
            out.holes += lo.saturating_sub(at).min(end - at);
            if hi > lo
                && e.flags & FIEMAP_EXTENT_UNWRITTEN != 0
                && e.flags & FIEMAP_EXTENT_DELALLOC == 0
            {
                out.unwritten += hi - lo;
            }
            at = at.max(hi);
            last |= e.flags & FIEMAP_EXTENT_LAST != 0;
        }
        if last || at >= end {
            // What no extent maps, to the end, is a hole.
            out.holes += end.saturating_sub(at);
            return Some(out);
        }
    }
    Some(out)
}

/// The holes of `start..end`, by `SEEK_DATA` and `SEEK_HOLE`.
fn seek_holes(file: &std::fs::File, start: u64, end: u64) -> Option<Unwritten> {
    let fd = file.as_raw_fd();
    let seek = |from: u64, whence: libc::c_int| -> Option<u64> {
        let from = libc::off_t::try_from(from).ok()?;
        // SAFETY: lseek on an open descriptor; it only moves the offset.
        let r = unsafe { libc::lseek(fd, from, whence) };
        u64::try_from(r).ok()
    };
    let mut holes = 0;
    let mut at = start;
    while at < end {
        // ENXIO: no data from `at` on.
        let data = seek(at, libc::SEEK_DATA).unwrap_or(end).min(end);
        holes += data - at;
        if data >= end {
            break;
        }
        at = seek(data, libc::SEEK_HOLE)?.min(end);
    }
    Some(Unwritten {
        holes,
        unwritten: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::FileExt;

    fn temp(tag: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("rfio-extents-{tag}-{}", std::process::id()))
    }

    #[test]
    fn the_struct_is_the_kernels() {
        assert_eq!(std::mem::size_of::<Extent>(), 56);
        assert_eq!(std::mem::size_of::<Map>(), 32 + 56 * BATCH);
    }

    /// A sparse file (a 1 MiB hole, 64 KiB of data after it), a written
    /// one and, where the file system has them, unwritten extents.
    #[test]
    fn holes_data_and_unwritten_extents() {
        let p = temp("sparse");
        let f = std::fs::File::create(&p).unwrap();
        f.write_all_at(&[7u8; 65536], 1 << 20).unwrap();
        f.sync_all().unwrap();
        let u = unwritten(&p, 0, (1 << 20) + 65536).unwrap();
        assert_eq!(u.holes, 1 << 20, "{u:?}");
        assert_eq!(u.unwritten, 0);
        let u = unwritten(&p, 1 << 20, 65536).unwrap();
        assert_eq!(u, Unwritten::default());

        let mut f = std::fs::File::create(&p).unwrap();
        f.write_all(&[1u8; 1 << 16]).unwrap();
        assert_eq!(unwritten(&p, 0, 1 << 16).unwrap(), Unwritten::default());

        let f = std::fs::File::create(&p).unwrap();
        // SAFETY: fallocate on an open descriptor.
        let r = unsafe { libc::fallocate(f.as_raw_fd(), 0, 0, 1 << 20) };
        if r == 0 {
            let u = unwritten(&p, 0, 1 << 20).unwrap();
            // Unwritten extents (ext4, xfs, btrfs) or, by SEEK_DATA on a
            // file system without FIEMAP, data.
            assert!(u.unwritten == 1 << 20 || u == Unwritten::default(), "{u:?}");
        }
        let _ = std::fs::remove_file(&p);
    }
}
