//! Placing one I/O of a zoned job on the zones of its file (fio's
//! `zbd_adjust_block` and the zone searches it makes): a read below a write
//! pointer, a write at the write pointer of a zone open for writes (a full
//! zone reset, a zone with too little room finished), a trim in a zone
//! with data.

use std::sync::{Arc, Mutex};

use super::region::Region;
use super::table::{JobZones, Refused, ZoneTable};
use super::types::ZoneCond;
use crate::ddir::Ddir;
use crate::debug::{dprint, Cat};
use crate::plan::resolve::zones::ZbdRules;

/// One file of a zoned job.
#[derive(Debug, Clone)]
pub(crate) struct ZbdFile {
    pub(crate) table: Arc<Mutex<ZoneTable>>,
    /// The zones of the region: `min_zone..max_zone`.
    pub(crate) min_zone: u32,
    pub(crate) max_zone: u32,
    /// fio's `get_start_offset`, where `zoneskip` wraps to.
    pub(crate) start_offset: u64,
}

/// What a job's zoned I/O depends on (fio's `td->o` as the zone code
/// reads it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct JobSettings {
    /// `rw=rand*`.
    pub(crate) random: bool,
    /// Reads and writes mixed (fio's `td_rw`).
    pub(crate) mixed: bool,
    /// The job writes (fio's `td_write`).
    pub(crate) writes: bool,
    /// `verify` is set.
    pub(crate) verify: bool,
    /// The smallest block size per direction.
    pub(crate) min_bs: [u64; 3],
    /// The zone size (the device's).
    pub(crate) zone_size: u64,
    /// `zoneskip` in bytes.
    pub(crate) zone_skip: u64,
    pub(crate) read_beyond_wp: bool,
    pub(crate) job_max_open_zones: u32,
    pub(crate) reset_threshold: f64,
    pub(crate) reset_frequency: f64,
    /// `write_zone_remainder`: a zone's last bytes, fewer than a block,
    /// are written with a shorter write.
    pub(crate) write_zone_remainder: bool,
    /// `recover_zbd_write_error` (on zones fio emulates: only the device
    /// has zones of its own to report).
    pub(crate) recover_write_error: bool,
    /// The release's rules.
    pub(crate) rules: ZbdRules,
}

impl JobSettings {
    /// The room below which a zone counts as full for writes of at least
    /// `min_bs` bytes (fio's `zbd_zone_full`): the block size, or with
    /// `write_zone_remainder` one byte (no room at all).
    pub(crate) fn full_below(&self, min_bs: u64) -> u64 {
        if self.write_zone_remainder {
            1
        } else {
            min_bs
        }
    }

    /// Whether a zone with room for less than a block is finished (made
    /// full) and the write moved on (3.34 on, unless
    /// `write_zone_remainder` writes that room).
    pub(crate) fn finishes_small_remainders(&self) -> bool {
        self.rules.finish_small_remainder && !self.write_zone_remainder
    }
}

/// One I/O being placed on the zones of a file.
pub(super) struct Placed<'a, 'b> {
    pub(super) t: &'a mut ZoneTable,
    pub(super) zf: &'b ZbdFile,
    pub(super) set: &'b JobSettings,
    pub(super) counters: &'b mut JobZones,
    pub(super) region: Region,
    pub(super) dir: Ddir,
    pub(super) offset: u64,
    pub(super) len: u64,
    /// A write found no open zone with room for it.
    pub(super) no_open_zone: bool,
}

/// How placing an I/O ends: accepted (`Ok(true)`), no I/O left on the
/// file (`Ok(false)`), or an error that fails the job.
type Outcome = Result<bool, Refused>;

impl Placed<'_, '_> {
    const ACCEPT: Outcome = Ok(true);
    const EOF: Outcome = Ok(false);

    fn min_bs(&self) -> u64 {
        self.set.min_bs[self.dir.index()].max(1)
    }

    /// fio's `zbd_adjust_block`.
    pub(super) fn place(&mut self) -> Outcome {
        let t = &*self.t;
        let zi = t.zone_idx(self.offset);
        let zb = t.zone(zi);
        if !zb.has_wp {
            return self.conventional(zi);
        }
        if zb.cond != ZoneCond::Offline && self.dir == Ddir::Read && self.set.read_beyond_wp {
            return Self::ACCEPT;
        }
        match self.dir {
            Ddir::Read => self.read(zi),
            Ddir::Write => self.write(zi),
            Ddir::Trim => self.trim(zi),
            Ddir::Sync | Ddir::DataSync => Self::ACCEPT,
        }
    }

    /// In a zone without write pointer: anything goes, but a write must
    /// not run into a sequential zone after it.
    fn conventional(&mut self, zi: u32) -> Outcome {
        if self.dir != Ddir::Write {
            return Self::ACCEPT;
        }
        let (zb, next) = (self.t.zone(zi), self.t.zone(zi + 1));
        if !next.has_wp || self.offset + self.len <= next.start {
            return Self::ACCEPT;
        }
        let min_bs = self.min_bs();
        let new_len = if self.offset + min_bs > next.start {
            // fio's arithmetic, as it is.
            self.offset = zb.start + next.start - self.offset;
            self.len.min(next.start.wrapping_sub(self.offset))
        } else {
            next.start - self.offset
        };
        self.len = new_len / min_bs * min_bs;
        Self::ACCEPT
    }

    /// A read: below a write pointer, in this zone or the nearest one with
    /// data.
    fn read(&mut self, zi: u32) -> Outcome {
        let min_bs = self.min_bs();
        let random = self.set.random;
        let orig_start = self.t.zone(zi).start;
        let mut zb = self.t.zone(zi);
        let mut range = if zb.cond != ZoneCond::Offline {
            zb.wp.wrapping_sub(zb.start) as i64
        } else {
            0
        };
        if range < min_bs as i64 || (!random && self.offset + min_bs > zb.wp) {
            let Some(found) = self.find_zone(min_bs, zi) else {
                return Self::EOF;
            };
            zb = self.t.zone(found);
            range = zb.wp.wrapping_sub(zb.start) as i64;
            if !random {
                self.offset = zb.start;
            }
        }
        let range = range as u64;
        if range <= self.len {
            self.offset = zb.start;
        } else if random {
            self.offset =
                zb.start + ((self.offset - orig_start) % (range - self.len)) / min_bs * min_bs;
        }
        if !zb.has_wp {
            return Self::ACCEPT;
        }
        let new_len = self.len.min(zb.wp.wrapping_sub(self.offset)) / min_bs * min_bs;
        if new_len < self.len {
            self.len = new_len;
        }
        Self::ACCEPT
    }

    /// A write: at the write pointer of an open zone, the zone reset
    /// first when full (or when the periodic reset says so).
    fn write(&mut self, zi: u32) -> Outcome {
        let min_bs = self.min_bs();
        if self.len > self.t.zone_size {
            return Err(Refused::default().with_error(
                libc::EINVAL,
                "zbd.c:1937",
                "I/O buflen exceeds zone size",
            ));
        }
        let full_below = self.set.full_below(min_bs);
        let verify_bs = self
            .set
            .verify
            .then_some(self.set.full_below(self.set.min_bs[1]));
        let finish = self.set.finishes_small_remainders();
        let mut zi = zi;
        loop {
            if finish && self.t.zone(zi).small_remainder(min_bs) {
                let (zf, random) = (self.zf, self.set.random);
                let next =
                    self.t
                        .finish_for_next(self.counters, zi, (zf.min_zone, zf.max_zone), random);
                match next? {
                    Some(next) => zi = next,
                    None => return Self::EOF,
                }
            }
            if !self
                .t
                .open_zone(self.counters, zi, self.set.job_max_open_zones, verify_bs)
            {
                match self.convert_to_open_zone() {
                    Some(z) => zi = z,
                    None => {
                        self.no_open_zone = true;
                        return Self::EOF;
                    }
                }
            }
            if !(finish && self.t.zone(zi).small_remainder(min_bs)) {
                break;
            }
        }
        if self.set.reset_frequency != 0.0
            && self.t.wp_with_data as f64 >= self.region.io_size as f64 * self.set.reset_threshold
            && self.t.count_write(self.set.reset_frequency)
        {
            self.t.zone_mut(zi).reset_zone = true;
        }
        let zb = self.t.zone(zi);
        if zb.reset_zone || zb.full(full_below) {
            self.t.zone_mut(zi).reset_zone = false;
            self.t.reset_zone(self.counters, zi)?;
            if zb.capacity < min_bs {
                return Err(Refused::err(format!(
                    "zone capacity {} smaller than minimum block size {min_bs}\n",
                    zb.capacity
                ))
                .with_error(libc::EINVAL, "zbd.c:1977", "ZCAP is less min_bs"));
            }
        }
        let zb = self.t.zone(zi);
        self.offset = zb.wp;
        if !self.region.valid(self.offset) {
            dprint!(
                Cat::Zbd,
                "{}: dropped request with offset {}\n",
                self.t.name,
                self.offset
            );
            return Err(Refused::default().with_error(
                libc::EINVAL,
                "zbd.c:1988",
                "invalid WP value",
            ));
        }
        let room = zb.capacity_end() - self.offset;
        // In whole blocks; with `write_zone_remainder` a room of at most
        // one block is written as it is.
        let wzr = self.set.write_zone_remainder;
        let mut new_len = self.len.min(room);
        if !wzr || new_len > min_bs {
            new_len = new_len / min_bs * min_bs;
        }
        if new_len == self.len {
            return Self::ACCEPT;
        }
        if wzr || new_len >= min_bs {
            self.len = new_len;
            return Self::ACCEPT;
        }
        Err(Refused::err(format!(
            "zone remainder {room} smaller than min block size {min_bs}\n"
        ))
        .with_error(libc::EIO, "zbd.c:2011", "zone remainder too small"))
    }

    /// A trim: a random one goes to a zone holding data.
    fn trim(&mut self, zi: u32) -> Outcome {
        let zb = self.t.zone(zi);
        if !self.set.random || zb.wp > zb.start {
            return Self::ACCEPT;
        }
        match self.find_zone(1, zi) {
            Some(z) => {
                self.offset = self.t.zone(z).start;
                dprint!(
                    Cat::Zbd,
                    "{}: found new zone({}) for trim\n",
                    self.t.name,
                    self.offset
                );
                Self::ACCEPT
            }
            None => Self::EOF,
        }
    }

    /// fio's `zbd_find_zone`: the next zone after `zi` (sequential I/O) or
    /// the nearest on either side (random I/O) holding `min_bytes` of data,
    /// within the file's zones.
    fn find_zone(&self, min_bytes: u64, zi: u32) -> Option<u32> {
        let (first, last) = (i64::from(self.zf.min_zone), i64::from(self.zf.max_zone));
        let random = self.set.random;
        let readable = |i: i64| {
            let z = self.t.zone(i as u32);
            z.cond != ZoneCond::Offline && z.start + min_bytes <= z.wp
        };
        let (mut z1, mut z2) = (i64::from(zi) + 1, i64::from(zi) - 1);
        while z1 < last || z2 >= first {
            if z1 < last && self.t.zone(z1 as u32).cond != ZoneCond::Offline {
                if readable(z1) {
                    return Some(z1 as u32);
                }
            } else if !random {
                break;
            }
            if random && z2 >= first && readable(z2) {
                return Some(z2 as u32);
            }
            z1 += 1;
            z2 -= 1;
        }
        dprint!(
            Cat::Zbd,
            "{}: no zone has {min_bytes} bytes of readable data\n",
            self.t.name
        );
        None
    }

    /// fio's `pick_random_zone_idx`: a slot of the open zones, by where
    /// the I/O falls in the region.
    fn pick_open_slot(&self) -> u32 {
        let rel = u128::from(self.offset.wrapping_sub(self.region.file_offset));
        (rel * u128::from(self.t.num_open) / u128::from(self.region.io_size.max(1))) as u32
    }

    /// fio's `zbd_convert_to_open_zone`: an open zone (opening one within
    /// the limits if need be) with room for a write, its start as the
    /// offset; `None` when there is none.
    fn convert_to_open_zone(&mut self) -> Option<u32> {
        let min_bs = self.min_bs();
        let (min_zone, max_zone) = (self.zf.min_zone, self.zf.max_zone);
        let limited = self.t.max_open_zones > 0 || self.set.job_max_open_zones > 0;
        let mut zone_idx = if limited {
            self.t.open_slot(self.pick_open_slot())
        } else {
            self.t.zone_idx(self.offset)
        };
        zone_idx = zone_idx.clamp(min_zone, max_zone.saturating_sub(1).max(min_zone));
        dprint!(
            Cat::Zbd,
            "zbd_convert_to_open_zone({}): starting from zone {zone_idx} (offset {}, buflen {})\n",
            self.t.name,
            self.offset,
            self.len
        );
        let mut examine = false;
        loop {
            let z = self.t.zone(zone_idx);
            if z.has_wp {
                if z.cond != ZoneCond::Offline && !limited {
                    examine = true;
                    break;
                }
                if self.t.num_open == 0 {
                    dprint!(
                        Cat::Zbd,
                        "zbd_convert_to_open_zone({}): no zones are open\n",
                        self.t.name
                    );
                    break;
                }
            }
            let num = self.t.num_open;
            let mut slot = self.pick_open_slot();
            let mut found = None;
            for _ in 0..num {
                if slot >= num {
                    slot = 0;
                }
                let cand = self.t.open_slot(slot);
                if (min_zone..max_zone).contains(&cand) {
                    found = Some(cand);
                    break;
                }
                slot += 1;
            }
            let Some(new_idx) = found else {
                dprint!(
                    Cat::Zbd,
                    "zbd_convert_to_open_zone({}): no candidate zone\n",
                    self.t.name
                );
                return None;
            };
            if new_idx == zone_idx {
                examine = true;
                break;
            }
            zone_idx = new_idx;
        }
        if examine {
            let z = self.t.zone(zone_idx);
            if z.wp + min_bs <= z.capacity_end() {
                return Some(self.opened(zone_idx));
            }
        }
        // The zone is full: open another one, after this one, wrapping to
        // the file's first zone.
        let rounds = self.region.io_size / self.t.zone_size.max(1);
        let mut zi = zone_idx;
        for _ in 0..rounds {
            zi += 1;
            if !self.region.valid(self.t.zone(zi).start) {
                zi = min_zone;
            }
            let z = self.t.zone(zi);
            if !z.has_wp || z.open {
                continue;
            }
            if self.t.open_zone(
                self.counters,
                zi,
                self.set.job_max_open_zones,
                self.verify_bs(),
            ) {
                return Some(self.opened(zi));
            }
        }
        // Or an open zone of the file the write still fits in (with
        // `write_zone_remainder`, one with any room).
        let fits = self.set.full_below(min_bs);
        for k in 0..self.t.num_open {
            let zi = self.t.open_slot(k);
            if !(min_zone..max_zone).contains(&zi) {
                continue;
            }
            let z = self.t.zone(zi);
            if z.wp + fits <= z.capacity_end() {
                return Some(self.opened(zi));
            }
        }
        dprint!(
            Cat::Zbd,
            "zbd_convert_to_open_zone({}): did not open another zone\n",
            self.t.name
        );
        None
    }

    fn verify_bs(&self) -> Option<u64> {
        self.set
            .verify
            .then_some(self.set.full_below(self.set.min_bs[1]))
    }

    /// The write goes to zone `zi`, from its start for now.
    fn opened(&mut self, zi: u32) -> u32 {
        dprint!(
            Cat::Zbd,
            "zbd_convert_to_open_zone({}): returning zone {zi}\n",
            self.t.name
        );
        self.offset = self.t.zone(zi).start;
        zi
    }
}
