//! One job's zoned I/O (fio's `zbd.c` per-I/O paths): what direction the
//! next I/O takes, where sequential I/O moves with `zoneskip`, and how an
//! I/O drawn by the offset generator is moved onto the zones: writes to a
//! zone's write pointer (resetting a full zone, opening zones within the
//! limits), reads below it.
//! The job's files each have their zone table (shared with the other jobs
//! of the file) and the range of zones their region covers.

use std::sync::{Mutex, MutexGuard};

use super::place::Placed;
pub(crate) use super::place::{JobSettings, ZbdFile};
pub(crate) use super::region::Region;
use super::table::{JobZones, Refused, ZoneTable};
use crate::ddir::Ddir;
use crate::debug::{dprint, Cat};
use crate::workload::offsets::FileCursor;

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

    /// A write at `offset` of `len` bytes on file `fi` failed inside a
    /// sync engine's `queue` (fio's `zbd_queue_io` with an error): the
    /// write pointer, moved when the write was placed, goes back to where
    /// the write started (fio moves it only for a write that went
    /// through), and the zone stays open (fio does not end the zone's
    /// I/O). With `recover_zbd_write_error`, the lines of fio's
    /// `zbd_recover_write_error` that asks the zone's write pointer of a
    /// device without zones: `(stdout, line)`.
    pub(crate) fn sync_write_failed(
        &mut self,
        fi: usize,
        offset: u64,
        len: u64,
    ) -> Vec<(bool, String)> {
        let mut t = lock(&self.files[fi].table);
        let zi = t.zone_idx(offset);
        let z = t.zone(zi);
        if !z.has_wp {
            return Vec::new();
        }
        if z.wp == (offset + len).min(z.capacity_end()) && z.wp >= offset {
            t.retreat(zi, offset);
        }
        if offset + len >= z.capacity_end() {
            self.filling = self.filling.saturating_sub(1);
            t.filling = t.filling.saturating_sub(1);
        }
        if !self.set.recover_write_error {
            return Vec::new();
        }
        dprint!(Cat::Zbd, "{}: Start fixing {zi} write pointer\n", t.name);
        let lines = report_for_recovery(&t.name, z.start);
        dprint!(
            Cat::Zbd,
            "{}: Fixed write pointer of the zone {zi}\n",
            t.name
        );
        lines
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

/// fio's `zbd_recover_write_error` on a file whose zones fio emulates: it
/// asks the device for the zone at `start` (`BLKREPORTZONE`, which a
/// regular file or a block device without zones refuses), and says that
/// it could not; the write pointer stays where it was. The lines, `true`
/// for fio's stdout (`log_info`).
fn report_for_recovery(name: &str, start: u64) -> Vec<(bool, String)> {
    use super::device::ZonedDevice;
    let path = std::path::Path::new(name);
    let mut zone = [super::types::Zone::empty(start, 0, 0)];
    let errno = match std::fs::metadata(path) {
        Ok(meta) => {
            match super::blkzoned::BlkZoned::new(path, &meta).report_zones(start, &mut zone) {
                Ok(_) => return Vec::new(),
                Err(e) => e,
            }
        }
        Err(e) => e.raw_os_error().unwrap_or(libc::EIO),
    };
    let sector = start >> 9;
    vec![
        (
            false,
            format!("{name}: BLKREPORTZONE ioctl failed, ret=-1, err=-{errno}.\n"),
        ),
        (
            false,
            format!(
                "{name}: report zones from sector {sector} failed (nr_zones=1; errno={errno}).\n"
            ),
        ),
        (
            true,
            format!("fio: Report zone for write recovery failed for {name}\n"),
        ),
    ]
}
