//! The zone operations fio needs from a device, behind one trait: its
//! model, a zone report, write pointer resets, its open-zone limit, and
//! explicit open/close/finish. [`super::blkzoned`] issues them to a Linux
//! zoned block device; a device without zones (a regular file, a block
//! device whose `queue/zoned` is `none`) has none of them and fio
//! emulates its zones ([`Emulated`]); the unit tests use an in-memory
//! zoned device. [`super::probe`] says which a file is.

use super::types::{Model, Zone};

/// An errno.
pub type Errno = i32;

/// A device's zone operations (fio's `blkzoned_*` and the ioengine zone
/// hooks). Offsets and lengths are in bytes, multiples of 512.
pub trait ZonedDevice: Send {
    /// The device's zoned model.
    fn model(&self) -> Model;
    /// Report the zones from the one holding `offset` on, at most
    /// `zones.len()` of them, into `zones`; returns how many. An empty
    /// report is no error here (fio calls it one).
    fn report_zones(&mut self, offset: u64, zones: &mut [Zone]) -> Result<usize, Errno>;
    /// Reset the write pointers of the zones in `offset..offset + len`.
    fn reset_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno>;
    /// Explicitly open the zones in `offset..offset + len`.
    fn open_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno>;
    /// Close the zones in `offset..offset + len`.
    fn close_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno>;
    /// Make the zones in `offset..offset + len` full.
    fn finish_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno>;
    /// The device's limit on open zones (0: none).
    fn max_open_zones(&mut self) -> Result<u32, Errno>;
}

/// A device without zones: fio emulates them, and nothing is sent to the
/// device (a reset only moves fio's write pointer).
#[derive(Debug, Clone, Copy, Default)]
pub struct Emulated;

impl ZonedDevice for Emulated {
    fn model(&self) -> Model {
        Model::None
    }
    fn report_zones(&mut self, _: u64, _: &mut [Zone]) -> Result<usize, Errno> {
        Err(libc::EINVAL)
    }
    fn reset_zones(&mut self, _: u64, _: u64) -> Result<(), Errno> {
        Ok(())
    }
    fn open_zones(&mut self, _: u64, _: u64) -> Result<(), Errno> {
        Ok(())
    }
    fn close_zones(&mut self, _: u64, _: u64) -> Result<(), Errno> {
        Ok(())
    }
    fn finish_zones(&mut self, _: u64, _: u64) -> Result<(), Errno> {
        Ok(())
    }
    fn max_open_zones(&mut self) -> Result<u32, Errno> {
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_emulated_device_reports_nothing_and_resets_for_free() {
        let mut e = Emulated;
        assert_eq!(e.report_zones(0, &mut []), Err(libc::EINVAL));
        assert_eq!(e.reset_zones(0, 1 << 20), Ok(()));
        assert_eq!(e.max_open_zones(), Ok(0));
    }
}
