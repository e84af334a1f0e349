//! A Linux zoned block device (fio's `oslib/linux-blkzoned.c`): its model
//! and open-zone limit from sysfs (`queue/zoned`, `queue/max_open_zones`,
//! of the whole disk for a partition), zone reports and zone operations
//! through the `linux/blkzoned.h` ioctls.
//!
//! The kernel's structures are mirrored here ([`BlkZone`],
//! [`BlkZoneReport`], [`BlkZoneRange`]); their layout is checked by the
//! tests against the uapi header's sizes and offsets.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::device::{Errno, ZonedDevice};
use super::types::{Model, Zone, ZoneCond, ZoneType};
use crate::debug::{dprint, Cat};

/// `struct blk_zone`: one zone descriptor of a report (64 bytes; sectors
/// of 512 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BlkZone {
    pub(crate) start: u64,
    pub(crate) len: u64,
    pub(crate) wp: u64,
    pub(crate) kind: u8,
    pub(crate) cond: u8,
    pub(crate) non_seq: u8,
    pub(crate) reset: u8,
    pub(crate) resv: [u8; 4],
    /// Valid when the report's flags have `BLK_ZONE_REP_CAPACITY`.
    pub(crate) capacity: u64,
    pub(crate) reserved: [u8; 24],
}

/// `struct blk_zone_report`: the header of a report, followed in memory
/// by room for `nr_zones` descriptors.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BlkZoneReport {
    pub(crate) sector: u64,
    /// In: room for this many descriptors; out: how many were written.
    pub(crate) nr_zones: u32,
    pub(crate) flags: u32,
}

/// `struct blk_zone_range`: the argument of the reset, open, close and
/// finish ioctls.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BlkZoneRange {
    pub(crate) sector: u64,
    pub(crate) nr_sectors: u64,
}

/// `BLK_ZONE_REP_CAPACITY`: the descriptors' `capacity` is valid.
const REP_CAPACITY: u32 = 1;

/// Linux's `_IOC(dir, type, nr, size)`.
const fn ioc(dir: u64, kind: u64, nr: u64, size: usize) -> u64 {
    (dir << 30) | ((size as u64) << 16) | (kind << 8) | nr
}
const IOC_WRITE: u64 = 1;
const IOC_READ: u64 = 2;
/// `_IOWR(0x12, 130, struct blk_zone_report)`.
pub(crate) const BLKREPORTZONE: u64 = ioc(
    IOC_READ | IOC_WRITE,
    0x12,
    130,
    std::mem::size_of::<BlkZoneReport>(),
);
/// `_IOW(0x12, 131, struct blk_zone_range)`.
pub(crate) const BLKRESETZONE: u64 = ioc(IOC_WRITE, 0x12, 131, RANGE);
/// `_IOW(0x12, 134, struct blk_zone_range)`.
pub(crate) const BLKOPENZONE: u64 = ioc(IOC_WRITE, 0x12, 134, RANGE);
/// `_IOW(0x12, 135, struct blk_zone_range)`.
pub(crate) const BLKCLOSEZONE: u64 = ioc(IOC_WRITE, 0x12, 135, RANGE);
/// `_IOW(0x12, 136, struct blk_zone_range)`.
pub(crate) const BLKFINISHZONE: u64 = ioc(IOC_WRITE, 0x12, 136, RANGE);
const RANGE: usize = std::mem::size_of::<BlkZoneRange>();

/// A zoned block device, reached by its path.
#[derive(Debug, Clone)]
pub struct BlkZoned {
    path: PathBuf,
    /// `st_rdev`, for its sysfs directory.
    rdev: u64,
    model: Model,
}

impl BlkZoned {
    /// The block device at `path` (with metadata `meta`), its model read
    /// from sysfs (no attribute: no zones).
    pub fn new(path: &Path, meta: &std::fs::Metadata) -> BlkZoned {
        let rdev = meta.rdev();
        let model = sysfs_attr(rdev, "queue/zoned")
            .map(|m| {
                dprint!(Cat::Zbd, "{}: zbd model string: {m}\n", path.display());
                Model::from_sysfs(&m)
            })
            .unwrap_or(Model::None);
        BlkZoned {
            path: path.to_path_buf(),
            rdev,
            model,
        }
    }

    /// The device opened read-only or read-write.
    fn open(&self, write: bool) -> Result<std::fs::File, Errno> {
        std::fs::OpenOptions::new()
            .read(true)
            .write(write)
            .open(&self.path)
            .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))
    }

    /// One of the zone range ioctls on `offset..offset + len`.
    fn range_op(&mut self, request: u64, offset: u64, len: u64) -> Result<(), Errno> {
        use std::os::fd::AsRawFd;
        let f = self.open(true)?;
        let range = BlkZoneRange {
            sector: offset >> 9,
            nr_sectors: len >> 9,
        };
        // SAFETY: `request` is one of the blk_zone_range ioctls, which read
        // one `struct blk_zone_range` (BlkZoneRange has its layout) from the
        // pointer; `range` lives across the call and `f` is an open
        // descriptor.
        let r = unsafe { libc::ioctl(f.as_raw_fd(), request as _, &range as *const BlkZoneRange) };
        if r < 0 {
            return Err(errno());
        }
        Ok(())
    }
}

impl ZonedDevice for BlkZoned {
    fn model(&self) -> Model {
        self.model
    }

    fn report_zones(&mut self, offset: u64, zones: &mut [Zone]) -> Result<usize, Errno> {
        use std::os::fd::AsRawFd;
        let f = self.open(false)?;
        let room = zones.len().min(u32::MAX as usize);
        // The header, then `room` descriptors, in u64 words: 8-byte
        // aligned, as both structures need.
        let words =
            (std::mem::size_of::<BlkZoneReport>() + room * std::mem::size_of::<BlkZone>()) / 8;
        let mut buf = vec![0u64; words];
        let hdr = buf.as_mut_ptr() as *mut BlkZoneReport;
        // SAFETY: `buf` holds at least a header's 16 bytes, 8-byte aligned.
        unsafe {
            hdr.write(BlkZoneReport {
                sector: offset >> 9,
                nr_zones: room as u32,
                flags: 0,
            })
        };
        // SAFETY: BLKREPORTZONE reads the header and writes at most
        // `nr_zones` descriptors after it; `buf` has room for exactly that
        // many and outlives the call; `f` is an open descriptor.
        let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKREPORTZONE as _, hdr) };
        if r < 0 {
            return Err(errno());
        }
        // SAFETY: the kernel filled the header in place.
        let hdr = unsafe { hdr.read() };
        let n = (hdr.nr_zones as usize).min(room);
        // SAFETY: descriptors start 16 bytes (two words) in, 8-byte
        // aligned; the kernel wrote `n <= room` of them.
        let descs = unsafe { std::slice::from_raw_parts(buf.as_ptr().add(2) as *const BlkZone, n) };
        for (z, b) in zones.iter_mut().zip(descs) {
            *z = zone_of(b, hdr.flags).ok_or(libc::EIO)?;
        }
        Ok(n)
    }

    fn reset_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno> {
        self.range_op(BLKRESETZONE, offset, len)
    }

    fn open_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno> {
        self.range_op(BLKOPENZONE, offset, len)
    }

    fn close_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno> {
        self.range_op(BLKCLOSEZONE, offset, len)
    }

    fn finish_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno> {
        self.range_op(BLKFINISHZONE, offset, len)
    }

    fn max_open_zones(&mut self) -> Result<u32, Errno> {
        let Some(text) = sysfs_attr(self.rdev, "queue/max_open_zones") else {
            return Ok(0);
        };
        dprint!(
            Cat::Zbd,
            "{}: max open zones supported by device: {text}\n",
            self.path.display()
        );
        Ok(leading_number(&text) as u32)
    }
}

/// A kernel zone descriptor in bytes (fio's conversion): `None` for an
/// unknown zone type. Read-only, offline and unknown conditions read as
/// offline, with the write pointer at the start.
pub(crate) fn zone_of(b: &BlkZone, flags: u32) -> Option<Zone> {
    let kind = match b.kind {
        1 => ZoneType::Conventional,
        2 => ZoneType::SeqWriteRequired,
        3 => ZoneType::SeqWritePreferred,
        _ => return None,
    };
    let start = b.start << 9;
    let mut wp = b.wp << 9;
    let cond = match b.cond {
        0x0 => ZoneCond::NotWp,
        0x1 => ZoneCond::Empty,
        0x2 => ZoneCond::ImplicitOpen,
        0x3 => ZoneCond::ExplicitOpen,
        0x4 => ZoneCond::Closed,
        0xE => ZoneCond::Full,
        _ => {
            wp = start;
            ZoneCond::Offline
        }
    };
    let capacity = if flags & REP_CAPACITY != 0 {
        b.capacity << 9
    } else {
        b.len << 9
    };
    Some(Zone {
        start,
        len: b.len << 9,
        wp,
        capacity,
        kind,
        cond,
    })
}

/// The first line (at most 255 bytes, without its newline) of sysfs
/// attribute `attr` of the disk with device number `rdev` (a partition's
/// disk: fio reads the holder's attributes).
fn sysfs_attr(rdev: u64, attr: &str) -> Option<String> {
    let devno = format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev));
    let mut target = std::fs::read_link(devno).ok()?;
    let base = Path::new("/sys/dev/block");
    if first_line(&base.join(&target).join("partition")).is_some_and(|p| p.starts_with('1')) {
        target.pop();
    }
    first_line(&base.join(&target).join(attr))
}

/// The first line of a file, at most 255 bytes, without its newline.
fn first_line(path: &Path) -> Option<String> {
    let text = std::fs::read(path).ok()?;
    let line = text.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let line = &line[..line.len().min(255)];
    Some(String::from_utf8_lossy(line).into_owned())
}

/// C's `atoll`: the leading decimal number of `text` (0 if none).
fn leading_number(text: &str) -> u64 {
    let t = text.trim_start();
    let digits: &str = &t[..t.bytes().take_while(u8::is_ascii_digit).count()];
    digits.parse().unwrap_or(0)
}

fn errno() -> Errno {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn the_structures_have_the_kernels_layout() {
        // linux/blkzoned.h: struct blk_zone is 64 bytes, capacity at 32.
        assert_eq!(size_of::<BlkZone>(), 64);
        assert_eq!(align_of::<BlkZone>(), 8);
        assert_eq!(offset_of!(BlkZone, start), 0);
        assert_eq!(offset_of!(BlkZone, len), 8);
        assert_eq!(offset_of!(BlkZone, wp), 16);
        assert_eq!(offset_of!(BlkZone, kind), 24);
        assert_eq!(offset_of!(BlkZone, cond), 25);
        assert_eq!(offset_of!(BlkZone, non_seq), 26);
        assert_eq!(offset_of!(BlkZone, reset), 27);
        assert_eq!(offset_of!(BlkZone, resv), 28);
        assert_eq!(offset_of!(BlkZone, capacity), 32);
        assert_eq!(offset_of!(BlkZone, reserved), 40);
        assert_eq!(size_of::<BlkZoneReport>(), 16);
        assert_eq!(offset_of!(BlkZoneReport, sector), 0);
        assert_eq!(offset_of!(BlkZoneReport, nr_zones), 8);
        assert_eq!(offset_of!(BlkZoneReport, flags), 12);
        assert_eq!(size_of::<BlkZoneRange>(), 16);
        assert_eq!(offset_of!(BlkZoneRange, nr_sectors), 8);
    }

    #[test]
    fn the_ioctl_numbers_are_the_kernels() {
        // As the uapi header's _IOWR/_IOW macros compute them.
        assert_eq!(BLKREPORTZONE, 0xc010_1282);
        assert_eq!(BLKRESETZONE, 0x4010_1283);
        assert_eq!(BLKOPENZONE, 0x4010_1286);
        assert_eq!(BLKCLOSEZONE, 0x4010_1287);
        assert_eq!(BLKFINISHZONE, 0x4010_1288);
    }

    #[test]
    fn descriptors_read_in_bytes_as_fio_reads_them() {
        let d = BlkZone {
            start: 2048,
            len: 2048,
            wp: 2100,
            kind: 2,
            cond: 2,
            capacity: 1536,
            ..BlkZone::default()
        };
        let z = zone_of(&d, REP_CAPACITY).unwrap();
        assert_eq!(
            (z.start, z.len, z.wp, z.capacity),
            (1 << 20, 1 << 20, 2100 * 512, 768 << 10)
        );
        assert_eq!(
            (z.kind, z.cond),
            (ZoneType::SeqWriteRequired, ZoneCond::ImplicitOpen)
        );
        // Without the capacity flag the capacity is the length.
        assert_eq!(zone_of(&d, 0).unwrap().capacity, 1 << 20);
        // Read-only zones are offline, their write pointer at the start.
        let ro = zone_of(&BlkZone { cond: 0xD, ..d }, 0).unwrap();
        assert_eq!((ro.cond, ro.wp), (ZoneCond::Offline, 1 << 20));
        assert_eq!(zone_of(&BlkZone { kind: 9, ..d }, 0), None);
    }

    #[test]
    fn numbers_read_as_atoll() {
        assert_eq!(leading_number("128\n"), 128);
        assert_eq!(leading_number(" 14 zones"), 14);
        assert_eq!(leading_number("none"), 0);
    }

    #[test]
    fn a_loop_device_has_no_zones_and_reports_none() {
        // A block device that exists here (loop devices need root): any
        // block device without zones reads as model None.
        let Some(dev) = (0..8)
            .map(|i| PathBuf::from(format!("/dev/loop{i}")))
            .find(|p| std::fs::metadata(p).is_ok())
        else {
            return;
        };
        let meta = std::fs::metadata(&dev).unwrap();
        assert_eq!(BlkZoned::new(&dev, &meta).model(), Model::None);
    }
}
