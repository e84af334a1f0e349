//! One job's zoned I/O (fio's `zbd.c` per-I/O paths): what direction the
//! next I/O takes, where sequential I/O moves with `zoneskip`, and how an
//! I/O drawn by the offset generator is moved onto the zones: writes to a
//! zone's write pointer (resetting a full zone, opening zones within the
//! limits), reads below it.
//! The job's files each have their zone table (shared with the other jobs
//! of the file) and the range of zones their region covers.

use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) use super::region::Region;
use super::table::{JobZones, Refused, ZoneTable};
use super::types::ZoneCond;
use crate::ddir::Ddir;
use crate::debug::{dprint, Cat};
use crate::plan::resolve::zones::ZbdRules;
use crate::workload::offsets::FileCursor;

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
    /// The release's rules.
    pub(crate) rules: ZbdRules,
}

/// A job's zoned I/O state.
#[derive(Debug, Clone)]
pub(crate) struct ZbdJob {
    pub(crate) files: Vec<ZbdFile>,
    pub(crate) set: JobSettings,
    /// Open zones and resets of this job.
    pub(crate) counters: JobZones,
    /// Bytes issued in the current zone (fio's `td->zone_bytes`).
    zone_bytes: u64,
    /// Writes issued that fill their zone and have not completed: their
    /// zone closes when they do.
    filling: u32,
    /// Why the last I/O could not be placed, when that fails the job.
    failure: Option<Refused>,
}

/// How long a write waits for other jobs' writes to close their zones
/// before its file has no more I/O (fio waits as long as any job has I/O
/// in flight; a job that lost its I/O must not hang the others).
const QUIESCE_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

fn lock(t: &Mutex<ZoneTable>) -> MutexGuard<'_, ZoneTable> {
    t.lock().unwrap_or_else(|e| e.into_inner())
}

impl ZbdJob {
    pub(crate) fn new(files: Vec<ZbdFile>, set: JobSettings, counters: JobZones) -> ZbdJob {
        ZbdJob {
            files,
            set,
            counters,
            zone_bytes: 0,
            filling: 0,
            failure: None,
        }
    }

    /// Zone resets this job did since the last call.
    pub(crate) fn take_resets(&mut self) -> u64 {
        std::mem::take(&mut self.counters.resets)
    }

    /// Whether an I/O could not be placed and that fails the job: no more
    /// I/O then.
    pub(crate) fn failed(&self) -> bool {
        self.failure.is_some()
    }

    /// Why the job's last I/O could not be placed, if that fails the job.
    pub(crate) fn take_failure(&mut self) -> Option<Refused> {
        self.failure.take()
    }

    /// Whether writes that fill their zone are in flight: their zones
    /// close when they complete, and fio waits for that (`io_u_quiesce`)
    /// before it opens or resets a zone.
    pub(crate) fn wants_quiesce(&self) -> bool {
        self.filling > 0
    }

    /// A new pass over the files (fio's `fio_file_reset` of each file as
    /// it opens, and `reset_io_counters`).
    pub(crate) fn pass_starts(&mut self) {
        self.zone_bytes = 0;
        for fi in 0..self.files.len() {
            self.file_reset(fi);
        }
    }

    /// fio's `zbd_file_reset`: for a writing job, count the data in the
    /// file's zones again, empty them first when the job verifies, and
    /// start the periodic reset countdown again.
    pub(crate) fn file_reset(&mut self, fi: usize) {
        if !self.set.writes {
            return;
        }
        let zf = &self.files[fi];
        let mut t = lock(&zf.table);
        let swd = t.recount(zf.min_zone, zf.max_zone);
        dprint!(Cat::Zbd, "zbd_file_reset({}): swd = {swd}\n", t.name);
        if self.set.verify {
            t.reset_zones(&mut self.counters, zf.min_zone, zf.max_zone);
        }
        t.reset_write_cnt(self.set.reset_frequency);
    }

    /// fio's `zbd_adjust_ddir`: a mixed job reads once there is data (3.34:
    /// it `wrote` itself; 3.37: or no `write_share`); until then it writes.
    #[inline]
    pub(crate) fn adjust_dir(&self, fi: usize, dir: Ddir, wrote: bool, write_share: u32) -> Ddir {
        if dir != Ddir::Read || !self.set.mixed || self.set.read_beyond_wp {
            return dir;
        }
        let rules = self.set.rules;
        let data = if rules.reads_after_own_write {
            wrote
        } else {
            lock(&self.files[fi].table).with_data > 0
        };
        if data || (rules.no_write_share_reads && write_share == 0) {
            Ddir::Read
        } else {
            Ddir::Write
        }
    }

    /// fio's `setup_zbd_zone_mode`, before the offset of an I/O of `dir`
    /// on file `fi` is drawn: sequential writes jump from a zone's
    /// capacity to its end; with `zoneskip`, sequential I/O moves to the
    /// next zone once this one is done.
    #[inline]
    pub(crate) fn before_offset(&mut self, fi: usize, f: &mut FileCursor, dir: Ddir) {
        let t = lock(&self.files[fi].table);
        let last = f.last_pos(dir);
        let zi = t.zone_idx(last);
        let z = t.zone(zi);
        if z.capacity < t.zone_size
            && !self.set.random
            && dir == Ddir::Write
            && last >= z.capacity_end()
        {
            let end = t.zone_end(zi);
            dprint!(
                Cat::Zbd,
                "{}: Jump from zone capacity limit to zone end: ({last} -> {end}) for zone {zi} ({})\n",
                t.name,
                z.capacity
            );
            f.set_last_pos(dir, end);
        }
        if self.set.random || self.set.zone_skip == 0 {
            return;
        }
        let last = f.last_pos(dir);
        if self.zone_bytes >= self.set.zone_size
            || last >= t.zone_end(zi)
            || (dir == Ddir::Read && !self.set.read_beyond_wp && last >= z.wp)
        {
            self.zone_bytes = 0;
            let mut fo = f.file_offset() + self.set.zone_size + self.set.zone_skip;
            if fo >= f.region.real_file_size {
                fo = self.files[fi].start_offset;
            }
            f.set_file_offset(fo);
            f.set_last_pos(dir, fo);
        }
    }

    /// `len` bytes were issued (fio's `td->zone_bytes`).
    #[inline]
    pub(crate) fn issued(&mut self, len: u64) {
        self.zone_bytes += len;
    }

    /// fio's `zbd_adjust_block`: where the I/O of `dir` drawn at `offset`
    /// for `len` bytes on file `fi` (its region now `region`) really goes,
    /// or `None` when this file has no more I/O for it (then
    /// [`ZbdJob::take_failure`] says whether that fails the job).
    /// `commit(offset, len)` takes the I/O placed: it may drop it (`None`)
    /// or shorten it (the random map), and a write then moves its zone's
    /// write pointer by what is left (fio's `zbd_queue_io`), the zone
    /// still locked.
    #[inline]
    pub(crate) fn adjust_block(
        &mut self,
        fi: usize,
        region: Region,
        dir: Ddir,
        (offset, len): (u64, u64),
        commit: impl FnOnce(u64, u64) -> Option<u64>,
    ) -> Option<(u64, u64)> {
        let zf = &self.files[fi];
        let mut t = lock(&zf.table);
        let mut waited = None;
        let (placed, offset, len) = loop {
            let mut io = Placed {
                t: &mut t,
                zf,
                set: &self.set,
                counters: &mut self.counters,
                region,
                dir,
                offset,
                len,
                no_open_zone: false,
            };
            let placed = io.place();
            let (o, l, stuck) = (io.offset, io.len, io.no_open_zone);
            // No open zone has room, but writes in flight (other jobs')
            // will close theirs: fio waits for them (`io_u_quiesce`, and
            // again while any job has I/O in flight).
            if placed == Ok(false) && stuck && t.filling > self.filling {
                let since = *waited.get_or_insert_with(std::time::Instant::now);
                if since.elapsed() < QUIESCE_LIMIT {
                    drop(t);
                    std::thread::sleep(std::time::Duration::from_micros(20));
                    t = lock(&zf.table);
                    continue;
                }
            }
            break (placed, o, l);
        };
        match placed {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => {
                self.failure = Some(e);
                return None;
            }
        }
        let len = commit(offset, len)?;
        if dir == Ddir::Write {
            let zi = t.zone_idx(offset);
            let z = t.zone(zi);
            if z.has_wp {
                t.advance(zi, offset + len);
                if offset + len >= z.capacity_end() {
                    self.filling += 1;
                    t.filling += 1;
                }
            }
        }
        Some((offset, len))
    }

    /// An I/O of `dir` at `offset` of `len` bytes on file `fi` completed
    /// (fio's `zbd_end_zone_io`): a write that filled its zone closes it.
    #[inline]
    pub(crate) fn completed(&mut self, fi: usize, dir: Ddir, offset: u64, len: u64) {
        if dir != Ddir::Write {
            return;
        }
        let mut t = lock(&self.files[fi].table);
        let zi = t.zone_idx(offset);
        let z = t.zone(zi);
        if z.has_wp && offset + len >= z.capacity_end() {
            self.filling = self.filling.saturating_sub(1);
            t.filling = t.filling.saturating_sub(1);
            t.close_zone(&mut self.counters, zi);
        }
    }

    /// fio's `zbd_do_io_u_trim`: a trim of a zone with a write pointer
    /// resets the zone instead (`None`: not such a zone, trim it). A trim
    /// that does not start the zone fails (EINVAL, after fio's line), as
    /// does a reset the device refuses.
    pub(crate) fn trim(&mut self, fi: usize, offset: u64) -> Option<Result<(), Refused>> {
        let mut t = lock(&self.files[fi].table);
        let zi = t.zone_idx(offset);
        let z = t.zone(zi);
        if !z.has_wp {
            return None;
        }
        if offset != z.start {
            return Some(Err(Refused::err(format!(
                "Trim offset not at zone start ({offset})\n"
            ))));
        }
        Some(t.reset_zone(&mut self.counters, zi))
    }
}

/// One I/O being placed on the zones of a file.
struct Placed<'a, 'b> {
    t: &'a mut ZoneTable,
    zf: &'b ZbdFile,
    set: &'b JobSettings,
    counters: &'b mut JobZones,
    region: Region,
    dir: Ddir,
    offset: u64,
    len: u64,
    /// A write found no open zone with room for it.
    no_open_zone: bool,
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
    fn place(&mut self) -> Outcome {
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
        let verify_bs = self.set.verify.then_some(self.set.min_bs[1]);
        let finish = self.set.rules.finish_small_remainder;
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
        if zb.reset_zone || zb.full(min_bs) {
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
        let new_len = self.len.min(room) / min_bs * min_bs;
        if new_len == self.len {
            return Self::ACCEPT;
        }
        if new_len >= min_bs {
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
        // Or an open zone of the file the write still fits in.
        for k in 0..self.t.num_open {
            let zi = self.t.open_slot(k);
            if !(min_zone..max_zone).contains(&zi) {
                continue;
            }
            let z = self.t.zone(zi);
            if z.wp + min_bs <= z.capacity_end() {
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
        self.set.verify.then_some(self.set.min_bs[1])
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
