//! Zoned block devices (`zonemode=zbd`, fio 3.33's `zbd.c`): I/O that
//! follows the zones of a device.
//!
//! - Writes go to a zone's write pointer only: the offset the generators
//!   draw picks the zone, the write pointer the place in it. A full zone
//!   is reset before it is written again (fio counts the resets, `N zone
//!   resets` in the report); `zone_reset_threshold` and
//!   `zone_reset_frequency` reset zones periodically once enough of the
//!   region holds data. `max_open_zones` (or a host-managed device's own
//!   limit) and `job_max_open_zones` bound the zones written at once:
//!   a write outside them goes to an open zone instead.
//! - Reads stay below the write pointers (`read_beyond_wp=1` lifts that);
//!   a read in a zone without data moves to the next one with data (the
//!   nearest, for random I/O), and a job that finds none has nothing more
//!   to read. A mixed job writes until there is data to read.
//! - A trim of a sequential zone resets it.
//!
//! The device's zones come through the [`ZonedDevice`] trait: a Linux
//! zoned block device's (sysfs and the `BLKREPORTZONE`/`BLKRESETZONE`
//! ioctls, [`blkzoned`]), or, for a regular file or a block device without
//! zones, zones of `zonesize` bytes that fio emulates (all empty when the
//! run starts). Every job using a file shares its zones ([`ZbdRegistry`]).
//!
//! The files: `types` (models, zones), `device` (the trait, emulation),
//! `probe` (which a file has), `blkzoned` (Linux), `table` (a device's zones
//! as fio tracks them), `setup` (a job's zones made ready, fio's checks),
//! `job` (the per-I/O rules), `place` (one I/O placed on the zones).

pub mod blkzoned;
pub mod device;
mod job;
mod place;
mod probe;
mod region;
mod setup;
mod table;
pub mod types;

pub use device::ZonedDevice;
pub(crate) use job::{Region, ZbdJob};
pub(crate) use setup::{prepare, FileInfo, ZbdRegistry};
pub(crate) use table::Refused;

#[cfg(test)]
mod fake;
#[cfg(test)]
mod tests;
