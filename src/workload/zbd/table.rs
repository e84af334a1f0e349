//! The zones of one device as fio tracks them (fio's
//! `zoned_block_device_info`): every zone's write pointer, condition and
//! capacity, the open zones, the bytes holding data, the countdown to the
//! next periodic reset. One table per file name, shared by every job that
//! uses the file (fio shares it between jobs and processes), behind a
//! mutex.
//!
//! The table ends with a sentinel zone starting at the end of the last
//! one, as fio's does: offsets at or past the end map to it.

use super::device::{Errno, ZonedDevice};
use super::types::{Model, Zone, ZoneCond, ZoneType};
use crate::debug::{dprint, Cat};

/// fio's `ZBD_MAX_OPEN_ZONES`: the room for open zones.
pub(crate) const MAX_OPEN_ZONES: usize = 4096;

/// fio's `ZBD_REPORT_MAX_ZONES`: zones asked for per report.
const REPORT_MAX_ZONES: usize = 8192;

/// One zone (fio's `fio_zone_info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ZoneInfo {
    pub(crate) start: u64,
    pub(crate) wp: u64,
    pub(crate) capacity: u64,
    pub(crate) cond: ZoneCond,
    /// Sequential write required: writes go to the write pointer. (fio
    /// treats sequential-write-preferred zones as conventional.)
    pub(crate) has_wp: bool,
    /// In the table's open zones.
    pub(crate) open: bool,
    /// To be reset before the next write (`zone_reset_frequency`).
    pub(crate) reset_zone: bool,
}

impl ZoneInfo {
    /// Where the usable part of the zone ends.
    pub(crate) fn capacity_end(&self) -> u64 {
        self.start + self.capacity
    }

    /// fio's `zbd_zone_full`: fewer than `required` bytes left before the
    /// capacity ends (only a zone with a write pointer fills).
    pub(crate) fn full(&self, required: u64) -> bool {
        self.has_wp && self.wp + required > self.capacity_end()
    }

    /// Room for more than nothing but less than `min_bs` bytes (fio's
    /// `zbd_zone_remainder` between 0 and the block size).
    pub(crate) fn small_remainder(&self, min_bs: u64) -> bool {
        let end = self.capacity_end();
        self.wp < end && end - self.wp < min_bs
    }

    fn sentinel(start: u64) -> ZoneInfo {
        ZoneInfo {
            start,
            wp: 0,
            capacity: 0,
            cond: ZoneCond::NotWp,
            has_wp: false,
            open: false,
            reset_zone: false,
        }
    }
}

/// The per-job counters a table operation updates (fio's
/// `td->num_open_zones`, `td->ts.nr_zone_resets`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct JobZones {
    pub(crate) open: u32,
    pub(crate) resets: u64,
}

/// Why a table could not be built (fio's `zbd_create_zone_info`
/// failing): the lines fio logs (`true`: on stderr) and the error it sets
/// on the job, if any (`errno`, `td_verror` text).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Refused {
    pub(crate) lines: Vec<(bool, String)>,
    pub(crate) error: Option<(i32, String)>,
    /// The job got past fio's checks to where `zbd_setup_files` starts
    /// counting its zone resets (fio 3.42 then reports them, 0).
    pub(crate) counted: bool,
}

impl Refused {
    /// A refusal fio logs on stderr without failing the job's error.
    pub(crate) fn err(line: String) -> Refused {
        Refused {
            lines: vec![(true, line)],
            error: None,
            counted: false,
        }
    }

    /// The same refusal, of a job that counts its zone resets.
    pub(crate) fn counted(mut self) -> Refused {
        self.counted = true;
        self
    }

    /// The job's error (the first one set stays, as fio's `td_verror`).
    pub(crate) fn with_error(mut self, errno: i32, src: &str, func: &str) -> Refused {
        if self.error.is_none() {
            self.error = Some((errno, super::super::errno::verror(src, func, errno)));
        }
        self
    }
}

/// The zones of one device.
pub(crate) struct ZoneTable {
    /// The file name the jobs use (fio's messages name it).
    pub(crate) name: String,
    pub(crate) model: Model,
    pub(crate) zone_size: u64,
    /// `nr_zones` zones and the sentinel.
    pub(crate) zones: Vec<ZoneInfo>,
    /// The limit on open zones (0: none, open zones not tracked).
    pub(crate) max_open_zones: u32,
    /// fio's `open_zones[]`: the first `num_open` are the open zones in
    /// the order they opened. Closing one moves the rest down, as fio's
    /// `memmove`, so the slots past `num_open` keep what was there (fio
    /// reads slot 0 of an empty list).
    open_zones: Box<[u32; MAX_OPEN_ZONES]>,
    pub(crate) num_open: u32,
    /// Bytes written below the write pointers (fio's
    /// `sectors_with_data`, in bytes despite its name), and in zones with
    /// a write pointer only.
    pub(crate) with_data: u64,
    pub(crate) wp_with_data: u64,
    /// Writes left before the next periodic reset
    /// (`zone_reset_frequency`).
    pub(crate) write_cnt: u32,
    /// Writes in flight, of every job, that fill their zone (it closes
    /// when they complete).
    pub(crate) filling: u32,
    pub(crate) dev: Box<dyn ZonedDevice>,
}

impl std::fmt::Debug for ZoneTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZoneTable")
            .field("name", &self.name)
            .field("model", &self.model)
            .field("zone_size", &self.zone_size)
            .field("nr_zones", &self.nr_zones())
            .field("open", &self.open_list())
            .finish()
    }
}

impl ZoneTable {
    fn new(
        name: &str,
        model: Model,
        zone_size: u64,
        zones: Vec<ZoneInfo>,
        dev: Box<dyn ZonedDevice>,
    ) -> ZoneTable {
        ZoneTable {
            name: name.to_string(),
            model,
            zone_size,
            zones,
            max_open_zones: 0,
            open_zones: Box::new([0; MAX_OPEN_ZONES]),
            num_open: 0,
            with_data: 0,
            wp_with_data: 0,
            write_cnt: 0,
            filling: 0,
            dev,
        }
    }

    /// Zones emulated over a device or file of `size` bytes without zones
    /// (fio's `init_zone_info`): zones of `zone_size` bytes, `capacity` of
    /// them usable (0: all), empty, sequential write required; the last
    /// one may pass the end.
    pub(crate) fn emulated(
        name: &str,
        size: u64,
        zone_size: u64,
        capacity: u64,
        dev: Box<dyn ZonedDevice>,
    ) -> Result<ZoneTable, Refused> {
        if zone_size == 0 {
            return Err(Refused::err(format!(
                "{name}: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd\n\n"
            )));
        }
        if zone_size < 512 {
            return Err(Refused::err(format!(
                "{name}: zone size must be at least 512 bytes for --zonemode=zbd\n\n"
            )));
        }
        let cap = if capacity == 0 { zone_size } else { capacity };
        if cap > zone_size {
            return Err(Refused::err(format!(
                "{name}: job parameter zonecapacity {capacity} is larger than zone size {zone_size}\n"
            )));
        }
        if size < zone_size {
            return Err(Refused::err(format!(
                "{name}: file/device size {size} is smaller than zone size {zone_size}\n"
            ))
            .with_error(libc::EINVAL, "zbd.c:985", "zbd_create_zone_info() failed"));
        }
        let nr = size.div_ceil(zone_size);
        let mut zones: Vec<ZoneInfo> = (0..nr)
            .map(|i| {
                let z = Zone::empty(i * zone_size, zone_size, cap);
                info_of(&z)
            })
            .collect();
        zones.push(ZoneInfo::sentinel(nr * zone_size));
        Ok(ZoneTable::new(name, Model::None, zone_size, zones, dev))
    }

    /// The zones `dev` reports (fio's `parse_zone_info`), as many as cover
    /// `size` bytes; `zone_size` is the job's `zonesize` (0: the device's).
    pub(crate) fn reported(
        name: &str,
        size: u64,
        zone_size: u64,
        mut dev: Box<dyn ZonedDevice>,
    ) -> Result<ZoneTable, Refused> {
        let model = dev.model();
        let mut buf = vec![Zone::empty(0, 0, 0); REPORT_MAX_ZONES];
        let n = report(dev.as_mut(), name, 0, &mut buf)?;
        let size0 = buf[0].len;
        if size0 == 0 {
            return Err(Refused::err(format!("{name}: invalid 0 zone size\n")));
        }
        let nr = size.div_ceil(size0) as usize;
        if zone_size != 0 && zone_size != size0 {
            return Err(Refused::err(format!(
                "fio: {name} job parameter zonesize {zone_size} does not match disk zone size {size0}.\n"
            ))
            .with_error(libc::EINVAL, "zbd.c:985", "zbd_create_zone_info() failed"));
        }
        dprint!(
            Cat::Zbd,
            "Device {name} has {nr} zones of size {} KB\n",
            size0 / 1024
        );
        let invalid = || {
            Refused {
                lines: vec![(false, format!("{name}: invalid zone data\n"))],
                error: None,
                counted: false,
            }
            .with_error(libc::EINVAL, "zbd.c:985", "zbd_create_zone_info() failed")
        };
        let mut zones: Vec<ZoneInfo> = Vec::with_capacity(nr + 1);
        let mut got = n;
        let mut end = 0;
        loop {
            for z in &buf[..got] {
                if zones.len() == nr {
                    break;
                }
                if zones.last().is_some_and(|p| z.start != p.start + size0) {
                    return Err(invalid());
                }
                zones.push(info_of(z));
            }
            if let Some(last) = buf[..got].last() {
                end = last.start + last.len;
            }
            if zones.len() >= nr || got == 0 {
                break;
            }
            let want = (nr - zones.len()).min(REPORT_MAX_ZONES);
            got = report(dev.as_mut(), name, end, &mut buf[..want])?;
        }
        zones.push(ZoneInfo::sentinel(end));
        Ok(ZoneTable::new(name, model, size0, zones, dev))
    }

    /// Zones, the sentinel not counted.
    pub(crate) fn nr_zones(&self) -> u32 {
        (self.zones.len() - 1) as u32
    }

    /// fio's `zbd_offset_to_zone_idx`: the zone holding `offset`, the
    /// sentinel for offsets at or past the end.
    pub(crate) fn zone_idx(&self, offset: u64) -> u32 {
        (offset / self.zone_size).min(u64::from(self.nr_zones())) as u32
    }

    /// Zone `i` (past the sentinel: a zone without write pointer starting
    /// where the sentinel ends).
    pub(crate) fn zone(&self, i: u32) -> ZoneInfo {
        match self.zones.get(i as usize) {
            Some(z) => *z,
            None => {
                let s = self.zones[self.zones.len() - 1].start + self.zone_size;
                ZoneInfo::sentinel(s)
            }
        }
    }

    pub(crate) fn zone_mut(&mut self, i: u32) -> &mut ZoneInfo {
        &mut self.zones[i as usize]
    }

    /// Where zone `i` ends: the next zone's start.
    pub(crate) fn zone_end(&self, i: u32) -> u64 {
        self.zone(i + 1).start
    }

    /// The open zones, in the order they opened.
    pub(crate) fn open_list(&self) -> &[u32] {
        &self.open_zones[..self.num_open as usize]
    }

    /// Slot `i` of the open-zone array, open or not (fio reads stale
    /// slots).
    pub(crate) fn open_slot(&self, i: u32) -> u32 {
        self.open_zones[(i as usize).min(MAX_OPEN_ZONES - 1)]
    }

    /// fio's `zbd_open_zone` for job `job` (limits `job_max`, 0: none):
    /// whether zone `i` is (now) open for writes. `verify_bs`: with
    /// verification, the write block size (a full zone is never reset
    /// then, so it does not open).
    pub(crate) fn open_zone(
        &mut self,
        job: &mut JobZones,
        i: u32,
        job_max: u32,
        verify_bs: Option<u64>,
    ) -> bool {
        let z = self.zone(i);
        if z.cond == ZoneCond::Offline {
            return false;
        }
        if verify_bs.is_some_and(|bs| z.full(bs)) {
            return false;
        }
        if self.max_open_zones == 0 {
            return true;
        }
        if z.open {
            // Filled by the writes in flight: a full zone, not an open one.
            return z.wp < z.capacity_end();
        }
        if job_max > 0 && job.open >= job_max {
            return false;
        }
        if self.num_open >= self.max_open_zones || self.num_open as usize >= MAX_OPEN_ZONES {
            return false;
        }
        dprint!(Cat::Zbd, "{}: opening zone {i}\n", self.name);
        self.open_zones[self.num_open as usize] = i;
        self.num_open += 1;
        job.open += 1;
        self.zone_mut(i).open = true;
        true
    }

    /// fio's `zbd_close_zone`: zone `i` leaves the open zones.
    pub(crate) fn close_zone(&mut self, job: &mut JobZones, i: u32) {
        if !self.zone(i).open {
            return;
        }
        let Some(slot) = self.open_list().iter().position(|&z| z == i) else {
            return;
        };
        dprint!(Cat::Zbd, "{}: closing zone {i}\n", self.name);
        self.open_zones.copy_within(slot + 1.., slot);
        self.num_open -= 1;
        job.open = job.open.saturating_sub(1);
        self.zone_mut(i).open = false;
    }

    /// fio's `zbd_reset_zone`: empty zone `i` (through the device when it
    /// has zones of its own). A zone without data is left alone.
    pub(crate) fn reset_zone(&mut self, job: &mut JobZones, i: u32) -> Result<(), Refused> {
        let z = self.zone(i);
        let data = z.wp.wrapping_sub(z.start);
        if data == 0 {
            return Ok(());
        }
        dprint!(Cat::Zbd, "{}: resetting wp of zone {i}.\n", self.name);
        if self.model != Model::None {
            let len = self.zone_end(i) - z.start;
            if let Err(e) = self.dev.reset_zones(z.start, len) {
                return Err(Refused::err(format!(
                    "{}: resetting wp for {} sectors at sector {} failed ({e}).\n",
                    self.name,
                    len >> 9,
                    z.start >> 9
                ))
                .with_error(e, "zbd.c:231", "resetting wp failed"));
            }
        }
        self.with_data = self.with_data.wrapping_sub(data);
        self.wp_with_data = self.wp_with_data.wrapping_sub(data);
        self.zone_mut(i).wp = z.start;
        job.resets += 1;
        Ok(())
    }

    /// fio's `zbd_finish_zone` (3.34 on): zone `i` made full through the
    /// device when it has zones of its own; its write pointer then at the
    /// zone's end (its data not counted, as fio's).
    pub(crate) fn finish_zone(&mut self, i: u32) -> Result<(), Refused> {
        let z = self.zone(i);
        if self.model != Model::None {
            if let Err(e) = self.dev.finish_zones(z.start, self.zone_size) {
                return Err(Refused::err(format!(
                    "{}: finish zone at sector {} failed ({e}).\n",
                    self.name,
                    z.start >> 9
                ))
                .with_error(e, "zbd.c:396", "finish zone failed"));
            }
        }
        let end = self.zone_end(i);
        self.zone_mut(i).wp = end;
        Ok(())
    }

    /// fio's zone finish of `zbd_convert_to_write_zone` (3.34 on): zone
    /// `zi`, with room for less than a block, leaves the open zones and is
    /// finished; the write goes to the next zone with a write pointer of
    /// the file's `zones` (wrapping), or, for a sequential job at the
    /// last zone, the file has no more writes (`None`).
    pub(crate) fn finish_for_next(
        &mut self,
        job: &mut JobZones,
        zi: u32,
        (min_zone, max_zone): (u32, u32),
        random: bool,
    ) -> Result<Option<u32>, Refused> {
        self.close_zone(job, zi);
        dprint!(Cat::Zbd, "{}: finish zone {zi}\n", self.name);
        self.finish_zone(zi)?;
        if zi + 1 >= max_zone && !random {
            return Ok(None);
        }
        // The region holds a zone with a write pointer (`zi`): this ends.
        let mut next = zi;
        loop {
            next += 1;
            if next >= max_zone {
                next = min_zone;
            }
            if self.zone(next).has_wp {
                return Ok(Some(next));
            }
        }
    }

    /// fio's `zbd_reset_zones`: close and empty the zones `from..to`.
    /// Whether all resets went through.
    pub(crate) fn reset_zones(&mut self, job: &mut JobZones, from: u32, to: u32) -> bool {
        dprint!(Cat::Zbd, "{}: examining zones {from} .. {to}\n", self.name);
        let mut ok = true;
        for i in from..to {
            if !self.zone(i).has_wp {
                continue;
            }
            self.close_zone(job, i);
            let z = self.zone(i);
            if z.wp != z.start {
                dprint!(Cat::Zbd, "{}: resetting zone {i}\n", self.name);
                ok &= self.reset_zone(job, i).is_ok();
            }
        }
        ok
    }

    /// fio's `zbd_process_swd(SET_SWD)`: count the bytes holding data in
    /// zones `from..to` again; returns them.
    pub(crate) fn recount(&mut self, from: u32, to: u32) -> u64 {
        let (mut all, mut wp) = (0u64, 0u64);
        for i in from..to {
            let z = self.zone(i);
            let d = z.wp.wrapping_sub(z.start);
            all = all.wrapping_add(d);
            if z.has_wp {
                wp = wp.wrapping_add(d);
            }
        }
        self.with_data = all;
        self.wp_with_data = wp;
        all
    }

    /// Start the countdown to the next periodic reset: `1 / frequency`
    /// writes (none without a frequency).
    pub(crate) fn reset_write_cnt(&mut self, frequency: f64) {
        self.write_cnt = if frequency != 0.0 {
            (1.0 / frequency).min(f64::from(u32::MAX)) as u32
        } else {
            u32::MAX
        };
    }

    /// One more write: whether the countdown ran out (and started again).
    pub(crate) fn count_write(&mut self, frequency: f64) -> bool {
        if self.write_cnt > 0 {
            self.write_cnt -= 1;
        }
        if self.write_cnt == 0 {
            self.reset_write_cnt(frequency);
            return true;
        }
        false
    }

    /// The write pointer of zone `i` goes back to `offset` (a write from
    /// there failed), its bytes no longer counted as data.
    pub(crate) fn retreat(&mut self, i: u32, offset: u64) {
        let gone = self.zone(i).wp - offset;
        self.with_data = self.with_data.wrapping_sub(gone);
        self.wp_with_data = self.wp_with_data.wrapping_sub(gone);
        self.zone_mut(i).wp = offset;
    }

    /// A write of `offset..end` queued to zone `i` with a write pointer:
    /// the write pointer moves to its end (at most the zone's capacity).
    pub(crate) fn advance(&mut self, i: u32, end: u64) {
        let z = self.zone(i);
        let end = end.min(z.capacity_end());
        if z.wp <= end {
            self.with_data += end - z.wp;
            self.wp_with_data += end - z.wp;
        }
        self.zone_mut(i).wp = end;
    }
}

/// A reported zone as fio keeps it: a conventional or full zone's write
/// pointer is at its capacity's end; only sequential-write-required zones
/// have a write pointer.
fn info_of(z: &Zone) -> ZoneInfo {
    let wp = match z.cond {
        ZoneCond::NotWp | ZoneCond::Full => z.start + z.capacity,
        _ => z.wp,
    };
    ZoneInfo {
        start: z.start,
        wp,
        capacity: z.capacity,
        cond: z.cond,
        has_wp: z.kind == ZoneType::SeqWriteRequired,
        open: false,
        reset_zone: false,
    }
}

/// fio's `zbd_report_zones` from `offset`: an empty report is an error.
fn report(
    dev: &mut dyn ZonedDevice,
    name: &str,
    offset: u64,
    buf: &mut [Zone],
) -> Result<usize, Refused> {
    let failed = |e: Errno, what: String| Refused {
        lines: vec![
            (true, what),
            (
                false,
                format!("fio: report zones (offset {offset}) failed for {name} ({e}).\n"),
            ),
        ],
        error: None,
        counted: false,
    };
    match dev.report_zones(offset, buf) {
        Err(e) => Err(failed(
            e,
            format!(
                "{name}: report zones from sector {} failed ({e}).\n",
                offset >> 9
            ),
        )
        .with_error(e, "zbd.c:198", "report zones failed")),
        Ok(0) => Err(failed(
            libc::EIO,
            format!(
                "{name}: report zones from sector {} is empty.\n",
                offset >> 9
            ),
        )
        .with_error(libc::EIO, "zbd.c:202", "Empty zone report")),
        Ok(n) => Ok(n),
    }
}
