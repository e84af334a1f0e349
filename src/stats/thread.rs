//! What one job thread accumulates while it runs: no locking, and no
//! allocation per I/O (histograms and log buffers are set up when the job
//! starts).
//!
//! A [`ThreadStats`] is made from the job's resolved [`StatsConfig`], its
//! I/O priorities and, when it writes logs, an [`IoLog`] (from
//! `crate::logs`) that it feeds each completed I/O and each closed
//! bandwidth/IOPS window. Each finished I/O arrives as one [`Completion`]
//! ([`ThreadStats::complete`]).

use std::time::{SystemTime, UNIX_EPOCH};

use super::completion::{Completion, IoLog, LoggedIo, Rate, Timing, NO_SLAT};
use super::config::StatsConfig;
use super::cpu::{CpuUsage, RusageMark};
use super::dist::{batch_class, depth_class, DepthMaps, LatBuckets};
use super::hist::LatHist;
use super::lat::LatAccum;
use super::prio::ClatPrio;

/// A periodic bandwidth or IOPS sampler (fio's `__add_samples`), run from
/// the completions instead of a timer: when an I/O completes past the end
/// of a window, the window is closed with what completed before it.
#[derive(Debug, Clone, Copy, Default)]
struct Sampler {
    interval_ms: u64,
    /// Start of the current window, ms since the job's I/O start.
    last_ms: u64,
    /// Counter values at the start of the window.
    last: [u64; 3],
}

/// What one job thread accumulated; owned by that thread.
#[derive(Debug, Default)]
pub struct ThreadStats {
    /// The wall-clock time (ms since the Unix epoch) of the job's last
    /// epoch: its start, or the end of its ramp (fio's `td->job_start`,
    /// which `set_epoch_time` reads each time).
    pub(crate) job_start_ms: u64,
    /// Per direction (read, write, trim): bytes and I/Os completed.
    pub(crate) bytes: [u64; 3],
    pub(crate) ios: [u64; 3],
    /// Short and dropped I/Os.
    pub(crate) short_ios: [u64; 3],
    pub(crate) drop_ios: [u64; 3],
    /// Submission, completion and total latency, ns.
    pub(crate) slat: [LatAccum; 3],
    pub(crate) clat: [LatAccum; 3],
    pub(crate) lat: [LatAccum; 3],
    /// Histograms for the latencies that get percentiles.
    pub(crate) slat_hist: [Option<Box<LatHist>>; 3],
    pub(crate) clat_hist: [Option<Box<LatHist>>; 3],
    pub(crate) lat_hist: [Option<Box<LatHist>>; 3],
    /// Bandwidth (KiB/s) and IOPS samples, one per interval.
    pub bw: [LatAccum; 3],
    pub iops: [LatAccum; 3],
    pub(crate) lat_buckets: LatBuckets,
    pub(crate) depth: DepthMaps,
    /// fsync/fdatasync/sync_file_range calls and their latency.
    pub(crate) sync_ios: u64,
    pub(crate) sync: LatAccum,
    pub(crate) sync_hist: Option<Box<LatHist>>,
    pub cpu: CpuUsage,
    /// Microseconds from the start of I/O to the end of the job.
    pub elapsed_us: u64,
    /// First error: errno (0 if none) and its description.
    pub error: i32,
    pub error_msg: Option<String>,
    /// Errors let through by `continue_on_error`, and the first of them.
    pub(crate) total_err: u64,
    pub(crate) first_error: i32,
    /// The queue depth `latency_target` settled on (default: iodepth).
    pub(crate) latency_depth: Option<u32>,
    /// Zones reset (`zonemode=zbd`, fio's `nr_zone_resets`).
    pub(crate) zone_resets: u64,
    /// A log file that could not be written, reported after the run.
    pub log_error: Option<String>,
    /// The job's own I/O priority (`prio`/`prioclass`, fio's `td->ioprio`;
    /// 0 when neither is set): what an I/O without a command priority
    /// carries.
    pub ioprio: u16,
    /// Reads and writes with command priorities (`cmdprio_*`): latencies
    /// per priority, indexed by the slot the engine reports (slot 0 the
    /// job's own priority). Empty for a direction without command
    /// priorities (fio's `td->ts.clat_prio[ddir]`).
    pub prios: [Vec<ClatPrio>; 2],
    /// `block_error_percentiles`: trims per block of the job's file.
    pub blocks: Option<Box<super::blocks::BlockTracker>>,
    cfg: StatsConfig,
    /// The job's logs, fed per I/O (`None`: it writes none).
    log: Option<Box<dyn IoLog>>,
    bw_sampler: Sampler,
    iops_sampler: Sampler,
    rusage_start: Option<RusageMark>,
    /// Completion time of the latest I/O, ns since the I/O start.
    last_at_ns: u64,
    /// The earliest time (ns since the I/O start) a bandwidth or IOPS
    /// window may end: I/Os before it compare once and tick nothing.
    /// 0: not known yet (the next I/O ticks and sets it).
    next_tick_ns: u64,
}

impl ThreadStats {
    /// Stats recording as `cfg` says, without command priorities or logs
    /// (`ThreadStats::default()` records with fio's defaults).
    pub fn new(cfg: &StatsConfig) -> ThreadStats {
        ThreadStats {
            cfg: cfg.clone(),
            ..ThreadStats::default()
        }
    }

    /// The job's own I/O priority `ioprio` (fio's `td->ioprio`), and for
    /// reads and writes with command priorities the priority of each slot
    /// an engine reports (empty: none).
    pub fn with_prios(mut self, ioprio: u16, slots: [Vec<u16>; 2]) -> ThreadStats {
        self.ioprio = ioprio;
        self.prios = slots.map(|s| s.into_iter().map(ClatPrio::new).collect());
        self
    }

    /// Feed the job's logs `log` (opened when the job starts).
    pub fn with_log(mut self, log: Option<Box<dyn IoLog>>) -> ThreadStats {
        self.log = log;
        self
    }

    /// The job thread starts its I/O (after layout and startdelay): set up
    /// histograms and log files, read the CPU usage. Allocates.
    pub fn job_started(&mut self) {
        self.job_start_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let p = &self.cfg.percentiles;
        for d in (0..3).filter(|&d| self.cfg.dirs[d]) {
            if p.slat && self.slat_hist[d].is_none() {
                self.slat_hist[d] = Some(Box::default());
            }
            if p.clat && self.clat_hist[d].is_none() {
                self.clat_hist[d] = Some(Box::default());
            }
            if p.lat && self.lat_hist[d].is_none() {
                self.lat_hist[d] = Some(Box::default());
            }
        }
        if p.clat || p.lat {
            for prio in self.prios.iter_mut().flatten() {
                prio.hist.get_or_insert_with(Box::default);
            }
        }
        self.bw_sampler.interval_ms = self.cfg.bw_avg_ms.max(1);
        self.iops_sampler.interval_ms = self.cfg.iops_avg_ms.max(1);
        self.next_tick_ns = 0;
        if let Some(l) = self.log.as_mut() {
            let now_ms = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            if let Err(e) = l.start(now_ms) {
                self.log_error = Some(format!("cannot open the log {e}"));
            }
        }
        self.rusage_start = Some(RusageMark::now());
    }

    /// An I/O was submitted with `depth` I/Os in flight (itself included).
    #[inline]
    pub fn io_submitted(&mut self, depth: u32) {
        self.depth.depth[depth_class(depth)] += 1;
    }

    /// The engine submitted `n` I/Os in one call (fio's
    /// `io_u_mark_submit`; sync engines count 1 per I/O, the null engine
    /// none).
    #[inline]
    pub fn io_submit_batch(&mut self, n: u32) {
        self.depth.submit[batch_class(n)] += 1;
        self.depth.total_submit += 1;
    }

    /// The engine reaped `n` completions in one call (`io_u_mark_complete`).
    #[inline]
    pub fn io_complete_batch(&mut self, n: u32) {
        self.depth.complete[batch_class(n)] += 1;
        self.depth.total_complete += 1;
    }

    /// An I/O of direction `dir` transferred less than asked.
    #[inline]
    pub(crate) fn io_short(&mut self, dir: usize) {
        self.short_ios[dir.min(2)] += 1;
        // fio queues the remainder again as an I/O of its own: its
        // `total_io_u` (total_ios, the depth map's base) counts both.
        self.ios[dir.min(2)] += 1;
    }

    /// An I/O of direction `dir` failed: it moved nothing but was issued,
    /// and fio's `total_ios` (its `total_io_u`, counted at queue time) has
    /// it.
    #[cold]
    pub(crate) fn io_failed(&mut self, dir: usize) {
        self.ios[dir.min(2)] += 1;
    }

    /// An error let through by `continue_on_error`.
    pub fn io_error(&mut self, errno: i32) {
        self.total_err += 1;
        if self.first_error == 0 {
            self.first_error = errno;
        }
    }

    /// A sync call (fsync, fdatasync, sync_file_range) took `lat_ns`. The
    /// first one allocates the sync latency histogram.
    pub fn sync_done(&mut self, lat_ns: u64) {
        self.sync_ios += 1;
        if self.cfg.clat {
            self.sync.add(lat_ns);
            self.sync_hist
                .get_or_insert_with(Box::default)
                .record(lat_ns);
        }
    }

    /// An `fdatasync` (`slot` 0) or `sync_file_range` (`slot` 1) call
    /// took `lat_ns`: fio records its latency with the syncs' but counts
    /// the call past the end of its per-direction I/O totals
    /// (`total_io_u[4]` and `[5]` are `short_io_u[0]` and `[1]`): as a
    /// short read or write, not in the syncs' total.
    pub(crate) fn sync_in_short_slot(&mut self, slot: usize, lat_ns: u64) {
        self.short_ios[slot.min(2)] += 1;
        if self.cfg.clat {
            self.sync.add(lat_ns);
            self.sync_hist
                .get_or_insert_with(Box::default)
                .record(lat_ns);
        }
    }

    /// The engine completes each I/O in its submission call (fio's
    /// `FIO_SYNCIO`): the time from an I/O's start to its issue counts in
    /// `lat`, but fio records and logs no submission latency for it.
    pub(crate) fn engine_is_sync(&mut self) {
        self.cfg.slat = false;
    }

    /// One I/O completed (see [`Completion`]). This is the one call the
    /// workload makes per I/O: it does not allocate, and it is inlined
    /// where it is called (the match on the constant `timing` of the
    /// caller's `Completion` then folds away).
    #[inline(always)]
    pub fn complete(&mut self, c: &Completion) {
        match c.timing {
            Timing::Io => {
                self.record(c);
                if c.dir == crate::ddir::Ddir::Trim {
                    if let Some(b) = &mut self.blocks {
                        b.trimmed_at(c.offset);
                    }
                }
            }
            Timing::FileOp { open_ns } => self.file_op(c, open_ns),
        }
    }

    /// Count a completed I/O of `bytes` at `at_ns`, closing the bw/iops
    /// windows that ended before it. Returns the direction index and the
    /// completion time in ms.
    #[inline]
    fn count(&mut self, dir: usize, bytes: u64, at_ns: u64) -> usize {
        let d = dir.min(2);
        self.last_at_ns = self.last_at_ns.max(at_ns);
        if at_ns >= self.next_tick_ns {
            self.tick(at_ns / 1_000_000);
        }
        self.bytes[d] += bytes;
        self.ios[d] += 1;
        d
    }

    /// A bandwidth or IOPS window may have ended by `now_ms`: close those
    /// that did, and note when the next one may.
    #[inline(never)]
    fn tick(&mut self, now_ms: u64) {
        if !self.cfg.bw_per_io {
            self.tick_bw(now_ms);
        }
        if !self.cfg.iops_per_io {
            self.tick_iops(now_ms);
        }
        // A window [last_ms, last_ms + interval_ms) ends at the first I/O
        // whose whole ms reach its end: at_ns / 1e6 >= end iff at_ns >=
        // end * 1e6.
        let due = |s: &Sampler, per_io: bool| {
            if per_io || s.interval_ms == 0 {
                u64::MAX
            } else {
                (s.last_ms + s.interval_ms).saturating_mul(1_000_000)
            }
        };
        self.next_tick_ns = due(&self.bw_sampler, self.cfg.bw_per_io)
            .min(due(&self.iops_sampler, self.cfg.iops_per_io));
    }

    /// One I/O of a file-operation engine (filecreate, filestat, ...):
    /// fio's FIO_NOSTATS engines leave the I/O itself out of the latency
    /// statistics and record the file operation's time as a completion
    /// latency once per file open (`open_ns`), without a total latency or
    /// the latency distribution.
    fn file_op(&mut self, c: &Completion, open_ns: Option<u64>) {
        let bytes = c.bytes;
        let d = self.count(c.dir.index(), bytes, c.at_ns);
        let now_ms = c.at_ns / 1_000_000;
        let Some(clat_ns) = open_ns.filter(|_| self.cfg.clat) else {
            return;
        };
        self.clat[d].add(clat_ns);
        if let Some(h) = self.clat_hist[d].as_mut() {
            h.record(clat_ns);
        }
        if let Some(l) = self.log.as_mut() {
            // fio's add_clat_sample from the file operation has no block
            // size: the log line says 0.
            l.io(&LoggedIo {
                t_ms: now_ms,
                dir: d,
                bytes: 0,
                offset: 0,
                ioprio: self.ioprio,
                bw: None,
                iops: false,
                lat_ns: None,
                slat: None,
                issued_ns: c.at_ns.saturating_sub(clat_ns),
                clat_ns: Some(clat_ns),
                hist: false,
                clat_hist: None,
            });
        }
    }

    /// One completed I/O, with its offset and priority slot (inlined into
    /// [`ThreadStats::complete`], its only caller).
    #[inline(always)]
    fn record(&mut self, c: &Completion) {
        let Completion {
            bytes,
            slat_ns,
            clat_ns,
            at_ns,
            prio_slot,
            ..
        } = *c;
        let d = self.count(c.dir.index(), bytes, at_ns);
        let has_slat = slat_ns != NO_SLAT;
        let lat_ns = if has_slat {
            slat_ns.saturating_add(clat_ns)
        } else {
            clat_ns
        };
        if has_slat && self.cfg.slat {
            self.slat[d].add(slat_ns);
            if let Some(h) = self.slat_hist[d].as_mut() {
                h.record(slat_ns);
            }
        }
        if self.cfg.clat {
            self.clat[d].add(clat_ns);
            if let Some(h) = self.clat_hist[d].as_mut() {
                h.record(clat_ns);
            }
            self.lat_buckets.add(clat_ns);
        }
        if self.cfg.lat {
            self.lat[d].add(lat_ns);
            if let Some(h) = self.lat_hist[d].as_mut() {
                h.record(lat_ns);
            }
        }
        // fio's add_stat_prio_sample / add_lat_percentile_prio_sample:
        // completion latencies, or total ones with lat_percentiles=1.
        let mut ioprio = self.ioprio;
        if let Some(p) = self.prios.get_mut(d).filter(|p| !p.is_empty()) {
            let i = usize::from(prio_slot).min(p.len() - 1);
            let p = &mut p[i];
            ioprio = p.ioprio;
            let pct = &self.cfg.percentiles;
            let v = if pct.lat {
                self.cfg.lat.then_some(lat_ns)
            } else {
                self.cfg.clat.then_some(clat_ns)
            };
            if let Some(v) = v {
                p.lat.add(v);
                if pct.lat || pct.clat {
                    if let Some(h) = p.hist.as_mut() {
                        h.record(v);
                    }
                }
            }
        }
        // A bw/iops log without log_avg_msec: one sample per I/O, which
        // also replaces the periodic summary samples (fio's quirk).
        let mut bw = None;
        if self.cfg.bw_per_io && !self.cfg.disable_bw {
            let rate = if clat_ns > 0 {
                (u128::from(bytes) * 1_000_000 / u128::from(clat_ns)) as u64
            } else {
                0
            };
            self.bw[d].add(rate);
            bw = Some(rate);
        }
        let iops = self.cfg.iops_per_io && !self.cfg.gtod_reduce;
        if iops {
            self.iops[d].add(1);
        }
        if self.log.is_some() {
            self.log_io(c, ioprio, bw, iops);
        }
    }

    /// Feed completed I/O `c` to the job's logs: it carried priority
    /// `ioprio`, gave per-I/O bandwidth sample `bw` and an IOPS sample if
    /// `iops`. Out of line: the I/O loop of a job without logs stays as
    /// small as it was, and one with logs spends its time formatting.
    #[inline(never)]
    fn log_io(&mut self, c: &Completion, ioprio: u16, bw: Option<u64>, iops: bool) {
        let d = c.dir.index().min(2);
        let has_slat = c.slat_ns != NO_SLAT;
        let lat_ns = if has_slat {
            c.slat_ns.saturating_add(c.clat_ns)
        } else {
            c.clat_ns
        };
        let slat = (has_slat && self.cfg.slat)
            .then(|| (c.at_ns.saturating_sub(c.clat_ns) / 1_000_000, c.slat_ns));
        let io = LoggedIo {
            t_ms: c.at_ns / 1_000_000,
            dir: d,
            bytes: c.bytes,
            offset: c.offset,
            ioprio,
            bw,
            iops,
            lat_ns: self.cfg.lat.then_some(lat_ns),
            slat,
            issued_ns: c.at_ns.saturating_sub(c.clat_ns),
            clat_ns: self.cfg.clat.then_some(c.clat_ns),
            hist: self.cfg.clat,
            clat_hist: self.clat_hist[d].as_deref(),
        };
        if let Some(l) = self.log.as_mut() {
            l.io(&io);
        }
    }

    /// Close the bandwidth windows that ended by `now_ms`.
    fn tick_bw(&mut self, now_ms: u64) {
        let s = &mut self.bw_sampler;
        if s.interval_ms == 0 || now_ms < s.last_ms + s.interval_ms {
            return;
        }
        let t = s.last_ms + s.interval_ms;
        for d in 0..3 {
            let delta = self.bytes[d] - s.last[d];
            if delta == 0 {
                continue;
            }
            let rate = delta * 1000 / s.interval_ms / 1024;
            self.bw[d].add(rate);
            if let Some(l) = self.log.as_mut() {
                l.sampled(Rate::Bw, t, rate, d);
            }
            s.last[d] = self.bytes[d];
        }
        s.last_ms = if now_ms >= t + s.interval_ms {
            // Nothing completed in the windows between: skip them.
            now_ms - (now_ms - t) % s.interval_ms
        } else {
            t
        };
    }

    /// Close the IOPS windows that ended by `now_ms`.
    fn tick_iops(&mut self, now_ms: u64) {
        let s = &mut self.iops_sampler;
        if s.interval_ms == 0 || now_ms < s.last_ms + s.interval_ms {
            return;
        }
        let t = s.last_ms + s.interval_ms;
        for d in 0..3 {
            let delta = self.ios[d] - s.last[d];
            if delta == 0 {
                continue;
            }
            let rate = delta * 1000 / s.interval_ms;
            self.iops[d].add(rate);
            if let Some(l) = self.log.as_mut() {
                l.sampled(Rate::Iops, t, rate, d);
            }
            s.last[d] = self.ios[d];
        }
        s.last_ms = if now_ms >= t + s.interval_ms {
            now_ms - (now_ms - t) % s.interval_ms
        } else {
            t
        };
    }

    /// The statistics start over (fio's `reset_all_stats` when the latency
    /// target settles): what was recorded goes; the settings, the open log
    /// files and the errors stay. Allocates.
    pub(crate) fn restart(&mut self) {
        let old = std::mem::take(self);
        *self = ThreadStats {
            cfg: old.cfg,
            error: old.error,
            error_msg: old.error_msg,
            total_err: old.total_err,
            first_error: old.first_error,
            latency_depth: old.latency_depth,
            log_error: old.log_error,
            ..ThreadStats::default()
        };
        // job_started without opening the logs again.
        self.job_started();
        self.log = old.log;
    }

    /// The job thread has finished its I/O: read the CPU usage, write the
    /// last partial latency log windows and close the logs.
    pub fn job_finished(&mut self) {
        if let Some(start) = self.rusage_start.take() {
            let u = start.until(&RusageMark::now());
            self.cpu.merge(&u);
        }
        let end_ms = (self.elapsed_us / 1000).max(self.last_at_ns / 1_000_000);
        if let Some(mut logs) = self.log.take() {
            // No last, partial bandwidth/IOPS window: fio's helper thread
            // takes those samples only while the job runs, so what moved
            // after the last window boundary is never logged (latency
            // windows, fed per I/O, are flushed by `finish`).
            let clat = std::array::from_fn(|d| self.clat_hist[d].as_deref());
            if let Err(e) = logs.finish(end_ms, clat) {
                self.log_error.get_or_insert(e.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ddir::Ddir;

    fn started() -> ThreadStats {
        let mut ts = ThreadStats::default();
        ts.job_started();
        ts
    }

    /// A read or write of 4 KiB completing at `at_ns`.
    fn io(dir: usize, slat_ns: u64, clat_ns: u64, at_ns: u64) -> Completion {
        Completion {
            dir: Ddir::DATA[dir],
            bytes: 4096,
            slat_ns,
            clat_ns,
            at_ns,
            ..Completion::default()
        }
    }

    #[test]
    fn sync_engines_record_no_slat() {
        let mut ts = started();
        ts.complete(&io(0, NO_SLAT, 1000, 10_000));
        ts.complete(&io(1, 500, 1000, 20_000));
        assert_eq!(ts.slat[0].samples(), 0);
        assert_eq!(ts.lat[0].summary().unwrap().min, 1000);
        assert_eq!(ts.slat[1].samples(), 1);
        assert_eq!(ts.lat[1].summary().unwrap().min, 1500);
        assert_eq!(ts.clat_hist[0].as_ref().unwrap().len(), 1);
        assert!(
            ts.lat_hist[0].is_none(),
            "lat percentiles are off by default"
        );
    }

    #[test]
    fn samples_follow_the_window() {
        let mut ts = started();
        // 4 KiB every ms for 1.2 s: two full 500 ms windows.
        for ms in 1..=1200u64 {
            ts.complete(&io(0, NO_SLAT, 1000, ms * 1_000_000));
        }
        ts.elapsed_us = 1_200_000;
        ts.job_finished();
        let bw = ts.bw[0].summary().unwrap();
        assert_eq!(bw.samples, 2);
        // 499 or 500 I/Os of 4 KiB in 500 ms.
        assert!((3992..=4000).contains(&bw.min), "{bw:?}");
        let iops = ts.iops[0].summary().unwrap();
        assert_eq!(iops.samples, 2);
        assert!((998..=1000).contains(&iops.max), "{iops:?}");
    }

    #[test]
    fn gaps_skip_empty_windows() {
        let mut ts = started();
        ts.complete(&io(0, NO_SLAT, 1000, 100_000_000));
        ts.complete(&io(0, NO_SLAT, 1000, 5_100_000_000));
        ts.complete(&io(0, NO_SLAT, 1000, 5_700_000_000));
        // Windows ending at 500 ms (one I/O) and 5500 ms (one I/O).
        assert_eq!(ts.bw[0].samples(), 2);
    }

    #[test]
    fn depth_and_batches() {
        let mut ts = started();
        ts.io_submitted(1);
        ts.io_submitted(8);
        ts.io_submit_batch(1);
        ts.io_complete_batch(6);
        assert_eq!(ts.depth.depth[0], 1);
        assert_eq!(ts.depth.depth[3], 1);
        assert_eq!(ts.depth.submit[1], 1);
        assert_eq!(ts.depth.complete[2], 1);
    }
}
