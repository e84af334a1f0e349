//! The I/O loop of one job (fio's `backend.c` `do_io` and `keep_running`,
//! `io_u.c`'s queue and completion paths).
//!
//! The loop keeps a fixed pool of `iodepth` I/O units (buffers and
//! [`Io`]s), allocated before the first I/O. Each turn takes a free unit,
//! fills it from the pattern, and queues it; a queued I/O is committed
//! after `iodepth_batch_submit` of them; when no unit is free the loop
//! reaps completions (`iodepth_batch_complete_min`/`_max`) down to
//! `iodepth_low`. Nothing in the loop allocates, locks or makes a system
//! call other than the engine's and the clock reads.
//!
//! Latencies follow fio: a unit's start time is taken when it is filled;
//! its submission (issue) time when the engine accepted it (after `commit`
//! for engines that submit there, after `queue` otherwise); slat is issue
//! minus start, clat completion minus issue. Synchronous engines (fio's
//! `FIO_SYNCIO`) take their issue time just before `queue`; they record no
//! slat, but their lat (start to completion) still exceeds clat.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::buffers::BufferFiller;
use super::clock::Clock;
use super::job::{sleep_unless, strerror, verror, Prepared};
use super::lat_target::{too_slow, LatTarget, Step};
use super::offsets::IoGen;
use super::progress::{self, JobProgress, JobState};
use super::rate::RateLimiter;
use super::runner::Log;
use super::think::ThinkTime;
use super::verify::{History, Piece, ReadBack, Verifier, F_IN_CUR_DEPTH, F_VER_LIST};
use crate::ioengine::{
    Caps, FileId, FileTarget, Io, IoDir, IoEngine, IoMem, IoResult, OpenFlags, Queued,
};
use crate::plan::resolve::io::{ERR_READ, ERR_VERIFY, ERR_WRITE};
use crate::plan::spec::Dir;
use crate::rand::Generator;
use crate::stats::{Completion, ThreadStats, Timing, NO_SLAT};

fn io_dir(d: Dir) -> IoDir {
    match d {
        Dir::Read => IoDir::Read,
        Dir::Write => IoDir::Write,
        Dir::Trim => IoDir::Trim,
    }
}

/// fio's `io_ddir_name`.
fn ddir_name(d: IoDir) -> &'static str {
    match d {
        IoDir::Read => "read",
        IoDir::Write => "write",
        IoDir::Trim => "trim",
        IoDir::Sync => "sync",
        IoDir::DataSync => "datasync",
    }
}

/// Per-unit state beside its [`Io`].
#[derive(Clone, Copy)]
struct Unit {
    io: Io,
    /// Index into the job's files.
    file: usize,
    /// The whole length, for accounting after short transfers.
    len: u64,
    start_ns: u64,
    issue_ns: u64,
    /// Submitted to an asynchronous engine (counts in `cur_depth`).
    in_flight: bool,
    /// Where the I/O started (its offset moves on after a short transfer).
    offset0: u64,
    /// A write's number (fio's `numberio`), or the number of the write a
    /// verify read checks.
    numberio: u16,
    /// A read of a logged write (fio's `IO_U_F_VER_LIST`).
    ver_list: bool,
}

/// Why the loop stops issuing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Running,
    /// A fatal I/O error: finish, report it.
    Failed,
    /// `latency_target` settled and ran its final window: the job is over.
    Done,
}

/// The running job: engine, units, counters.
pub struct Exec<'j, 'a> {
    job: &'j Prepared<'a>,
    engine: Box<dyn IoEngine>,
    caps: Caps,
    mem: IoMem,
    units: Box<[Unit]>,
    free: Vec<u32>,
    /// Units whose short transfer must be queued again (remainder).
    requeue: Vec<u32>,
    /// Queued since the last commit (their issue time is set by commit).
    uncommitted: Vec<u32>,
    /// Units queued or submitted and not yet complete.
    cur_depth: usize,
    ids: Box<[FileId]>,
    /// Per file: how long opening it took (the file-operation engines),
    /// and whether that time is still to be recorded.
    op_ns: Box<[u64]>,
    op_pending: Box<[bool]>,
    gen: IoGen,
    rate: Option<RateLimiter>,
    think: Option<ThinkTime>,
    pub filler: BufferFiller,
    /// Reads and writes issued and completed in this pass (think time).
    pass_issued_ios: u64,
    pass_completed_ios: u64,
    ts: &'j mut ThreadStats,
    terminate: &'j AtomicBool,
    log: &'j dyn Log,
    /// What the status line reads: state, open files, completed I/O.
    progress: Arc<JobProgress>,
    clock: Clock,
    /// When stats start (end of ramp_time), ns on `clock`; `None` while
    /// ramping.
    stats_from: Option<u64>,
    ramp_ns: u64,
    runtime_ns: u64,
    stop: Stop,
    // Counters over the whole job.
    issued_bytes: u64,
    issued_ios: u64,
    done_bytes: u64,
    writes_since_fsync: u64,
    writes_since_fdatasync: u64,
    last_write_file: usize,
    /// Microseconds of I/O time with stats on, summed over earlier passes.
    elapsed_us: u64,
    /// `verify`: what writes carry and how reads are checked.
    verify: Option<Verifier>,
    /// The completed writes still to read back (fio's io pieces).
    hist: History,
    /// Whether completed writes are logged for reading back.
    log_pieces: bool,
    /// Whether reads of the job's own pattern are checked as they complete
    /// (a job that does not also write: fio's `!td_rw`).
    check_reads: bool,
    /// Writes issued (fio's `io_issues[DDIR_WRITE]`, the next `numberio`).
    write_issues: u64,
    /// Direction of the last completed read or write (fio's `last_ddir`).
    last_dir: Option<IoDir>,
    /// Verify reads left in the current `verify_backlog` batch.
    verify_batch: u64,
    /// The last completed write offsets, a ring of `iodepth` (fio's
    /// `last_write_comp`, for the verify state file), and its next slot.
    write_comps: Box<[u64]>,
    write_comp_idx: usize,
    /// When the current pass started, ns on `clock`.
    pass_start: u64,
    /// `latency_target`'s search (set up at each pass), its settings, and
    /// reads and writes completed with stats on (fio's `io_blocks`).
    lat: Option<LatTarget>,
    lat_cfg: Option<LatCfg>,
    lat_ios: u64,
    /// The search lowered the depth: let what is in flight finish first.
    lat_quiesce: bool,
    /// `max_latency` per direction, in ns (0: none).
    max_latency_ns: [u64; 3],
    /// `serialize_overlap`: an I/O waits for in-flight I/Os it overlaps.
    serialize: bool,
    /// `cmdprio_*` set: the engine gives each I/O a priority slot.
    cmdprio: bool,
}

/// `latency_target` and its companions, read once.
#[derive(Clone, Copy)]
struct LatCfg {
    target_ns: u64,
    window_us: u64,
    percentile: f64,
    keep_running: bool,
}

impl LatCfg {
    fn of(spec: &crate::plan::spec::JobSpec) -> Option<LatCfg> {
        let c = &spec.report.stats;
        (c.latency_target_ns > 0).then_some(LatCfg {
            target_ns: c.latency_target_ns,
            window_us: c.latency_window_us,
            percentile: c.latency_percentile,
            keep_running: spec.exec.latency_run,
        })
    }
}

impl<'j, 'a> Exec<'j, 'a> {
    pub fn new(
        job: &'j Prepared<'a>,
        engine: Box<dyn IoEngine>,
        mem: IoMem,
        depth: usize,
        ts: &'j mut ThreadStats,
        terminate: &'j AtomicBool,
        log: &'j dyn Log,
    ) -> Exec<'j, 'a> {
        let caps = engine.caps();
        if caps.is_sync {
            ts.engine_is_sync();
        }
        let units = (0..depth)
            .map(|i| Unit {
                io: Io {
                    token: i as u32,
                    file: FileId(0),
                    dir: IoDir::Read,
                    offset: 0,
                    len: 0,
                    buf: mem.unit_ptr(i),
                },
                file: 0,
                len: 0,
                start_ns: 0,
                issue_ns: 0,
                in_flight: false,
                offset0: 0,
                numberio: 0,
                ver_list: false,
            })
            .collect();
        let spec = job.spec;
        let p = spec.pattern;
        let verify = Verifier::new(spec);
        // fio logs a written block when the job writes and reads back
        // (`do_verify`); a time-based job on a synchronous engine never
        // reaches its verify phase (its pass counts no bytes), so only
        // `verify_backlog` reads its blocks.
        let log_pieces = verify.as_ref().is_some_and(|v| {
            v.do_verify && p.write && (!spec.time_based || v.backlog > 0 || !caps.is_sync)
        });
        // fio keeps the blocks in write order when the job has a random
        // map, else sorted by offset with overwritten blocks dropped.
        let randommap = p.random && !spec.norandommap && spec.seeds.generator != Generator::Lfsr;
        let min_write = spec.bs[1].0.max(1);
        let capacity = if log_pieces {
            let mut n = job.pass_bytes / min_write + 1;
            if !randommap {
                let region: u64 = job.files.iter().map(|f| f.len).sum();
                n = n.min(region / min_write + 1);
            }
            n.min(1 << 20) as usize
        } else {
            0
        };
        let state_save = verify.as_ref().is_some_and(|v| v.state_save) && p.write;
        Exec {
            job,
            engine,
            caps,
            mem,
            units,
            free: (0..depth as u32).rev().collect(),
            requeue: Vec::with_capacity(depth),
            uncommitted: Vec::with_capacity(depth),
            cur_depth: 0,
            ids: vec![FileId(0); job.files.len()].into_boxed_slice(),
            op_ns: vec![0; job.files.len()].into_boxed_slice(),
            op_pending: vec![false; job.files.len()].into_boxed_slice(),
            gen: job.take_gen(),
            rate: job.rate.clone(),
            think: job.think.clone(),
            filler: job.filler.clone(),
            pass_issued_ios: 0,
            pass_completed_ios: 0,
            ts,
            terminate,
            log,
            progress: progress::current(),
            clock: Clock::start(job.set.clock),
            stats_from: None,
            ramp_ns: spec.ramp_time_us.saturating_mul(1000),
            runtime_ns: spec.runtime_us.saturating_mul(1000),
            stop: Stop::Running,
            issued_bytes: 0,
            issued_ios: 0,
            done_bytes: 0,
            writes_since_fsync: 0,
            writes_since_fdatasync: 0,
            last_write_file: 0,
            elapsed_us: 0,
            pass_start: 0,
            check_reads: verify.is_some() && !p.write,
            verify,
            hist: History::new(!randommap, capacity),
            log_pieces,
            write_issues: 0,
            last_dir: None,
            verify_batch: 0,
            write_comps: vec![0; if state_save { depth.max(1) } else { 0 }].into_boxed_slice(),
            write_comp_idx: 0,
            lat: None,
            lat_cfg: LatCfg::of(spec),
            lat_ios: 0,
            lat_quiesce: false,
            max_latency_ns: spec.exec.max_latency_ns,
            cmdprio: spec.engine.cmdprio().is_some(),
            serialize: depth > 1 && spec.exec.serialize_overlap,
        }
    }

    #[inline]
    fn now(&self) -> u64 {
        self.clock.now()
    }

    /// The passes over the files (fio's `keep_running` loop).
    pub fn run_passes(&mut self) {
        let job = self.job;
        let spec = job.spec;
        self.clock = Clock::start(job.set.clock);
        // The queue depth the report shows: iodepth (or what the latency
        // target settles on, below).
        self.ts.latency_depth = None;
        self.progress.mark_epoch();
        if self.ramp_ns == 0 {
            self.stats_from = Some(0);
            self.ts.job_started();
            self.progress.set_state(JobState::Running);
        } else {
            self.progress.set_state(JobState::Ramp);
        }
        if spec.time_based
            && spec.pattern.write
            && self
                .verify
                .as_ref()
                .is_some_and(|v| v.do_verify && v.backlog == 0 && !v.only)
        {
            self.log.err(
                "fio: verification read phase will never start because write phase uses all of runtime\n",
            );
        }
        let mut pass = 0u64;
        loop {
            // A pass's time includes opening its files (fio opens them in
            // its I/O loop), and the first pass starts with the runtime
            // clock: a job reports at least the runtime it was given.
            let pass_start = if pass == 0 { 0 } else { self.now() };
            if self.stop == Stop::Failed || !self.open_files() {
                break;
            }
            self.pass_start = pass_start;
            let done_before = self.done_bytes;
            if let Some(v) = self.verify.as_mut() {
                v.reset();
            }
            let dry = spec.pattern.write && self.verify.as_ref().is_some_and(|v| v.only);
            if dry {
                // fio's do_dry_run never sets up the latency target, so its
                // report has no latency_* keys.
                self.ts.latency_depth = Some(0);
                self.dry_run(pass == 0);
            } else {
                self.run_pass(pass == 0);
            }
            if self.log_pieces && self.stop == Stop::Running {
                self.verify_phase();
            }
            self.hist.clear();
            let pass_end = self.now();
            if let Some(from) = self.stats_from {
                self.elapsed_us += pass_end.saturating_sub(from.max(pass_start)) / 1000;
            }
            self.end_of_pass();
            pass += 1;
            if matches!(self.stop, Stop::Failed | Stop::Done)
                || self.terminate.load(Ordering::Relaxed)
            {
                break;
            }
            if self.done_bytes == done_before {
                break; // a pass that moved nothing ends the job
            }
            if self.runtime_over(self.now()) {
                break;
            }
            // fio's keep_running: time-based jobs run on, `loops` passes
            // are made, and an `io_size` beyond `size` takes more passes
            // while at least a block is left to do.
            let keep = spec.time_based
                || pass < u64::from(spec.loops.max(1))
                || (spec.number_ios == 0
                    && spec.io_size.is_some()
                    && self.done_bytes < job.limit
                    && job.limit - self.done_bytes >= job.max_bs);
            if !keep {
                break;
            }
            self.stop = Stop::Running;
            if job.set.unlink_each_loop {
                for f in &job.files {
                    let _ = std::fs::remove_file(&f.path);
                }
            }
        }
        if self.job.fill && self.ts.error == libc::ENOSPC {
            // fill_device: the filesystem is full, the job is done (fio
            // clears the error and terminates the job).
            self.ts.error = 0;
            self.ts.error_msg = None;
        }
        if self.stats_from.is_none() {
            // The job ended inside its ramp: nothing is reported.
            self.ts.job_started();
        }
        self.ts.elapsed_us = self.elapsed_us;
        if let Some(l) = &self.lat {
            self.ts.latency_depth = Some(l.depth());
        }
        self.save_verify_state();
        self.ts.job_finished();
        self.progress.set_state(JobState::Finishing);
    }

    /// Open (and invalidate) every file; false when one fails.
    fn open_files(&mut self) -> bool {
        let job = self.job;
        let spec = job.spec;
        let p = spec.pattern;
        let flags = OpenFlags {
            direct: spec.direct,
            write: p.writes(),
            sync: job.set.o_sync,
            dsync: job.set.o_dsync,
            // fio's generic_open_file: O_CREAT for a job that writes.
            create: job.set.create_on_open || p.write,
        };
        for (i, f) in job.files.iter().enumerate() {
            let target = FileTarget {
                path: f.path.clone(),
                flags,
                region_end: f.end(),
            };
            let t0 = Instant::now();
            match self.engine.open(&target) {
                Ok(id) => self.ids[i] = id,
                Err(e) => {
                    // fio prints no line of its own for it (the job's
                    // `err=` line says it).
                    self.engine.close_all();
                    if let Some(note) = job.open_failure_note(&f.path) {
                        self.log.err(&note);
                    }
                    self.fail_with(e.errno, job.open_verror(&e));
                    return false;
                }
            }
            self.op_ns[i] = t0.elapsed().as_nanos() as u64;
            self.op_pending[i] = true;
            if self.caps.needs_files && !self.caps.file_op {
                if job.set.invalidate && !spec.direct {
                    let _ = self.engine.invalidate(self.ids[i]);
                }
                if let Some(advice) = job.set.fadvise {
                    let _ = self.engine.fadvise(self.ids[i], f.start, f.len, advice);
                }
            }
        }
        if let Err(e) = self.engine.post_init() {
            self.engine.close_all();
            // io_uring opens its registered files here.
            self.fail_with(e.errno, job.open_verror(&e));
            return false;
        }
        self.progress.set_files_open(job.files.len() as u32);
        true
    }

    /// At the end of a pass (inside its time, as fio's `do_io`):
    /// `end_fsync`/`fsync_on_close` for a writing job.
    fn final_syncs(&mut self) {
        let job = self.job;
        if self.stop != Stop::Failed
            && job.spec.pattern.write
            && (job.set.end_fsync || job.set.fsync_on_close)
        {
            for i in 0..job.files.len() {
                if let Err(e) = self.sync_file(i, IoDir::Sync, false) {
                    self.log.err(&format!(
                        "fio: end_fsync failed for file {}\n",
                        job.files[i].path.display()
                    ));
                    let _ = e;
                }
            }
        }
    }

    /// After a pass: close the files.
    fn end_of_pass(&mut self) {
        self.engine.close_all();
        self.progress.set_files_open(0);
    }

    #[inline]
    fn runtime_over(&self, now: u64) -> bool {
        match self.stats_from {
            Some(from) => self.runtime_ns > 0 && now.saturating_sub(from) >= self.runtime_ns,
            None => false,
        }
    }

    /// End the ramp once its time has come.
    #[inline]
    fn check_ramp(&mut self, now: u64) {
        if self.stats_from.is_none() && now >= self.ramp_ns {
            self.stats_from = Some(now);
            self.ts.job_started();
            self.progress.mark_epoch();
            self.progress.set_state(JobState::Running);
        }
    }

    /// One pass (fio's `do_io`).
    fn run_pass(&mut self, first: bool) {
        let job = self.job;
        let time_based = job.spec.time_based;
        let polling = job.set.batch_complete_min == 0 && job.set.batch_complete_max == 0;
        if !first {
            // fio's clear_io_state: files from their start, generators
            // re-seeded as randrepeat says.
            self.gen.reset();
            self.engine.new_loop();
            if let Some(r) = self.rate.as_mut() {
                r.reset();
            }
        }
        let now = self.now();
        if let Some(t) = self.think.as_mut() {
            t.reset(now);
        }
        self.pass_issued_ios = 0;
        self.pass_completed_ios = 0;
        // fio's lat_target_init at the start of do_io: the search starts
        // again at depth 1.
        self.lat = self.lat_cfg.map(|c| {
            LatTarget::new(
                c.target_ns,
                c.window_us,
                c.percentile,
                c.keep_running,
                job.set.iodepth,
                now,
                self.lat_ios,
            )
        });
        let mut pass_issued = 0u64;
        while self.stop == Stop::Running {
            if self.terminate.load(Ordering::Relaxed) {
                break;
            }
            let mut now = self.now();
            self.check_ramp(now);
            // Every job gets to issue an I/O, however long it waited for a
            // CPU after its clock started (fio reads a cached clock that
            // lags its first I/Os).
            if self.issued_ios > 0 && self.runtime_over(now) {
                break;
            }
            if self.progress.snapshot_due() {
                self.serve_snapshot(now);
            }
            let mut issued_dir = None;
            // fio's do_io counts toward a pass's bytes only the I/O the
            // engine queues (FIO_Q_QUEUED), never one completed inside
            // `queue`: with a synchronous engine a pass runs on until the
            // files are done or the job's bytes are issued.
            let t = if let Some(t) = self.requeue.pop() {
                t
            } else {
                // A time-based pass ends on its bytes only to verify them.
                if (pass_issued >= job.pass_bytes && (!time_based || self.verify.is_some()))
                    || (!time_based
                        && (self.issued_bytes >= job.total_bytes
                            || self.issued_ios >= job.total_ios))
                {
                    break;
                }
                if self.sync_due() {
                    continue;
                }
                if self.backlog_due() {
                    if let Some(t) = self.free.pop() {
                        if let Some(piece) = self.hist.pop() {
                            let len = u64::from(piece.len);
                            self.setup_verify_read(t, piece, now);
                            if job.spec.pattern.read {
                                // A mixed job counts its verify reads
                                // against its size (fio's td_rw sum).
                                self.issued_bytes += len;
                            }
                            if self.submit(t, polling) {
                                pass_issued += len;
                            }
                            continue;
                        }
                        self.free.push(t);
                    }
                }
                let Some(next) = self.gen.next_io(self.rate.as_mut(), now) else {
                    break;
                };
                if next.wrapped
                    && job.set.invalidate
                    && !job.spec.direct
                    && self.caps.needs_files
                    && !self.caps.file_op
                {
                    // fio's loop_cache_invalidate: a time-based job that
                    // starts the file over reads it from the device again.
                    let _ = self.engine.invalidate(self.ids[next.file]);
                }
                if next.wait_ns > 0 {
                    // The rate says wait: complete what is in flight, then
                    // sleep (fio's io_u_quiesce + usec_sleep).
                    self.drain();
                    self.sleep_ns(next.wait_ns);
                    now = self.now();
                }
                let Some(t) = self.free.pop() else {
                    // Cannot happen: the loop reaps whenever no unit is free.
                    self.reap(1);
                    continue;
                };
                let buf = self.mem.unit_ptr(t as usize);
                let mut numberio = 0u16;
                if next.dir == Dir::Write {
                    numberio = self.write_issues as u16;
                    self.write_issues += 1;
                }
                if next.dir == Dir::Write && !self.caps.fake_io {
                    // SAFETY: the unit is free, so nobody else uses its
                    // buffer, which holds `unit >= len` bytes.
                    let b = unsafe { std::slice::from_raw_parts_mut(buf, next.len as usize) };
                    let start = (now / 1_000_000_000, now % 1_000_000_000);
                    match self.verify.as_mut() {
                        Some(v) => {
                            self.filler.prepare_write(b, next.offset, start, true);
                            v.populate(b, next.offset, u64::from(numberio), start);
                        }
                        None => self.filler.prepare_write(b, next.offset, start, false),
                    }
                } else if next.dir == Dir::Read && self.check_reads {
                    if let Some(v) = self.verify.as_mut() {
                        v.draw_read_seed();
                    }
                }
                let u = &mut self.units[t as usize];
                u.io.file = self.ids[next.file];
                u.io.dir = io_dir(next.dir);
                u.io.offset = next.offset;
                u.io.len = next.len as usize;
                u.io.buf = buf;
                u.file = next.file;
                u.len = next.len;
                u.start_ns = now;
                u.offset0 = next.offset;
                u.numberio = numberio;
                u.ver_list = false;
                self.issued_bytes += next.len;
                self.issued_ios += 1;
                if next.dir != Dir::Trim {
                    self.pass_issued_ios += 1;
                }
                if next.dir == Dir::Write {
                    self.writes_since_fsync += 1;
                    self.writes_since_fdatasync += 1;
                    self.last_write_file = next.file;
                }
                issued_dir = Some(next.dir);
                t
            };
            let len = self.units[t as usize].len;
            if self.submit(t, polling) {
                pass_issued += len;
            }
            if self.lat.is_some() {
                self.lat_target_check();
            }
            if let Some(dir) = issued_dir.filter(|d| *d != Dir::Trim) {
                self.think_after(dir);
            }
        }
        // Everything in flight completes and is counted (fio's
        // `io_u_queued_complete(td, cur_depth)`).
        self.drain();
        // Requeued remainders that never went out again are dropped.
        while let Some(t) = self.requeue.pop() {
            self.free.push(t);
        }
        self.final_syncs();
    }

    /// Queue unit `t` and account its submission; reap when the pool is
    /// full (or always, when polling). Returns whether the engine queued
    /// it (fio's `FIO_Q_QUEUED`) rather than completing it at once or
    /// finding it busy.
    fn submit(&mut self, t: u32, polling: bool) -> bool {
        let job = self.job;
        // fio's io_u_submit: an I/O overlapping one in flight is busy.
        // fio's issue time of a synchronous engine: just before `queue`.
        let issued = if self.caps.is_sync { self.now() } else { 0 };
        let status = if self.serialize && self.cur_depth > 0 && self.overlaps_in_flight(t) {
            Queued::Busy
        } else {
            // SAFETY: unit `t` was taken from the free list, so no I/O in
            // flight has its token and nobody else touches its buffer (pool
            // unit `t`, at least `io.len` bytes, which outlives the engine)
            // until the engine reports it complete and it goes back there.
            unsafe { self.engine.queue(&self.units[t as usize].io) }
        };
        let queued = status == Queued::Queued;
        match status {
            Queued::Completed(r) => {
                if self.stats_from.is_some() {
                    self.ts.io_submitted(self.cur_depth as u32 + 1);
                    if !self.caps.has_commit {
                        // fio's td_io_queue for engines without commit.
                        self.ts.io_submit_batch(1);
                        self.ts.io_complete_batch(1);
                    }
                }
                let now = self.now();
                self.units[t as usize].issue_ns = if self.caps.is_sync {
                    issued
                } else {
                    self.units[t as usize].start_ns
                };
                self.complete(t, r, now);
            }
            Queued::Queued => {
                self.cur_depth += 1;
                let now = if self.caps.has_commit { 0 } else { self.now() };
                let u = &mut self.units[t as usize];
                u.in_flight = true;
                if self.stats_from.is_some() {
                    self.ts.io_submitted(self.cur_depth as u32);
                    if !self.caps.has_commit {
                        self.ts.io_submit_batch(1);
                        self.ts.io_complete_batch(1);
                    }
                }
                if self.caps.has_commit {
                    self.uncommitted.push(t);
                    if self.uncommitted.len() >= job.set.batch_submit as usize {
                        self.commit();
                    }
                } else {
                    u.issue_ns = now;
                }
            }
            Queued::Busy => {
                self.requeue.push(t);
                self.commit();
            }
        }
        let full = self.queue_full() || (status == Queued::Busy && self.cur_depth > 0);
        if full || polling {
            self.wait_for_completions(full);
        }
        queued
    }

    /// fio's `queue_full`: no unit is free, or as many are in use as the
    /// latency target's depth allows.
    #[inline]
    fn queue_full(&self) -> bool {
        self.free.is_empty()
            || self
                .lat
                .as_ref()
                .is_some_and(|l| self.units.len() - self.free.len() >= l.depth() as usize)
    }

    /// Whether unit `t`'s range overlaps an I/O in flight (fio's
    /// `in_flight_overlap`, which compares offsets whatever the file).
    fn overlaps_in_flight(&self, t: u32) -> bool {
        let io = &self.units[t as usize].io;
        let (x1, x2) = (io.offset, io.offset + io.len as u64);
        self.units.iter().any(|u| {
            u.in_flight && u.io.token != t && x1 < u.io.offset + u.io.len as u64 && u.io.offset < x2
        })
    }

    /// After completions: fio's `lat_target_check` (outside the ramp), and
    /// the quiesce a lowered depth asked for.
    fn lat_target_check(&mut self) {
        if self.lat_quiesce {
            self.lat_quiesce = false;
            self.drain();
        }
        if self.stats_from.is_none() {
            return;
        }
        let now = self.now();
        let Some(lat) = self.lat.as_mut() else {
            return;
        };
        match lat.check(now, self.lat_ios) {
            Step::Continue | Step::Fatal => {}
            Step::Quiesce => self.drain(),
            Step::FinalRun => {
                // Complete what is in flight, then the statistics start
                // again for the final window (fio's reset_all_stats).
                self.drain();
                let now = self.now();
                self.restart_stats(now);
            }
            Step::Done => self.stop = Stop::Done,
        }
    }

    /// fio's `check_get_verify`: whether the next I/O reads back a logged
    /// write (`verify_backlog`, `verify_backlog_batch`).
    #[inline]
    fn backlog_due(&mut self) -> bool {
        let Some(v) = self.verify.as_ref() else {
            return false;
        };
        if v.backlog == 0 || self.hist.is_empty() {
            return false;
        }
        if self.verify_batch > 0 {
            self.verify_batch -= 1;
            return true;
        }
        if self.hist.len() as u64 % v.backlog == 0 && self.last_dir != Some(IoDir::Read) {
            self.verify_batch = if v.backlog_batch > 0 {
                v.backlog_batch
            } else {
                v.backlog
            };
            return true;
        }
        false
    }

    /// Set unit `t` up to read back `piece` (fio's `get_next_verify`).
    fn setup_verify_read(&mut self, t: u32, piece: Piece, now: u64) {
        if let Some(v) = self.verify.as_mut() {
            v.draw_read_seed();
        }
        let buf = self.mem.unit_ptr(t as usize);
        let fi = piece.file as usize;
        let u = &mut self.units[t as usize];
        u.io.file = self.ids[fi];
        u.io.dir = IoDir::Read;
        u.io.offset = piece.offset;
        u.io.len = piece.len as usize;
        u.io.buf = buf;
        u.file = fi;
        u.len = u64::from(piece.len);
        u.start_ns = now;
        u.offset0 = piece.offset;
        u.numberio = piece.numberio;
        u.ver_list = true;
    }

    /// The verify phase after a writing pass (fio's `do_verify`): every
    /// logged write is read back and checked, in the log's order.
    fn verify_phase(&mut self) {
        let polling = self.job.set.batch_complete_min == 0 && self.job.set.batch_complete_max == 0;
        if let Some(v) = self.verify.as_mut() {
            // fio's clear_io_state before do_verify re-seeds with randrepeat.
            v.reset();
        }
        while self.stop == Stop::Running {
            if self.terminate.load(Ordering::Relaxed) {
                break;
            }
            let now = self.now();
            self.check_ramp(now);
            if self.runtime_over(now) {
                break;
            }
            if self.progress.snapshot_due() {
                self.serve_snapshot(now);
            }
            let t = if let Some(t) = self.requeue.pop() {
                t
            } else {
                let Some(t) = self.free.pop() else {
                    self.reap(1);
                    continue;
                };
                let Some(piece) = self.hist.pop() else {
                    self.free.push(t);
                    break;
                };
                self.setup_verify_read(t, piece, now);
                t
            };
            self.submit(t, polling);
        }
        self.drain();
        while let Some(t) = self.requeue.pop() {
            self.free.push(t);
        }
    }

    /// `verify_only` for a writing job (fio's `do_dry_run`): the pass's
    /// writes are generated, numbered and logged but not issued, so the
    /// verify phase reads back what an earlier run wrote.
    fn dry_run(&mut self, first: bool) {
        let job = self.job;
        if !first {
            self.gen.reset();
        }
        // Nothing is queued to the engine, so (as in fio) the pass has no
        // limit of its own: it ends when the files are done or the job's
        // bytes are issued.
        while self.stop == Stop::Running && !self.terminate.load(Ordering::Relaxed) {
            if !job.spec.time_based
                && (self.issued_bytes >= job.total_bytes || self.issued_ios >= job.total_ios)
            {
                break;
            }
            let Some(next) = self.gen.next_io(None, 0) else {
                break;
            };
            self.issued_bytes += next.len;
            self.issued_ios += 1;
            // fio completes each dry I/O at once, so it counts as done.
            let now = self.now();
            self.check_ramp(now);
            self.done_bytes += next.len;
            if let Some(from) = self.stats_from {
                self.ts.io_submitted(1);
                self.ts.complete(&Completion {
                    dir: next.dir as usize,
                    bytes: next.len,
                    slat_ns: NO_SLAT,
                    clat_ns: 0,
                    at_ns: now.saturating_sub(from),
                    offset: next.offset,
                    ..Completion::default()
                });
            }
            if next.dir == Dir::Write {
                let numberio = self.write_issues as u16;
                self.write_issues += 1;
                if let Some(v) = self.verify.as_mut() {
                    v.skip_write();
                }
                if self.log_pieces {
                    self.hist.log(Piece {
                        file: next.file as u32,
                        len: next.len as u32,
                        offset: next.offset,
                        numberio,
                    });
                }
            }
        }
    }

    /// Check a completed read of unit `t` against what was written.
    /// Returns the errno of a failed check (0 when it passed).
    fn check_read(&mut self, t: u32) -> i32 {
        let u = self.units[t as usize];
        let Some(v) = self.verify.as_mut() else {
            return 0;
        };
        if self.caps.fake_io || !(u.ver_list || self.check_reads) {
            return 0;
        }
        let spec = self.job.spec;
        // fio checks numberio only for a job that writes fixed-size blocks
        // and is not time based (and not with verify_only).
        let fixed = spec
            .bs
            .iter()
            .all(|b| b.0 == spec.bs[0].0 && b.1 == spec.bs[0].0);
        let numberio = (u.ver_list && spec.pattern.write && fixed && !spec.time_based && !v.only)
            .then_some(u.numberio);
        let mut flags = F_IN_CUR_DEPTH;
        if u.ver_list {
            flags |= F_VER_LIST;
        }
        let name = self.job.files[u.file].path.display().to_string();
        let rb = ReadBack {
            file: &name,
            offset: u.offset0,
            numberio,
            flags,
            time: (u.start_ns / 1_000_000_000, u.start_ns % 1_000_000_000),
        };
        // SAFETY: the unit completed and is not queued again before this
        // returns; its buffer holds `unit >= len` bytes.
        let b = unsafe {
            std::slice::from_raw_parts_mut(self.mem.unit_ptr(t as usize), u.len as usize)
        };
        v.check(b, &rb, self.log)
    }

    /// A read failed its check: fio's error of the completion path, unless
    /// `continue_on_error` covers verify errors.
    #[cold]
    fn verify_failed(&mut self, errno: i32) {
        let (src, func) = if self.caps.is_sync {
            ("io_u.c:2152", "io_u_sync_complete")
        } else {
            ("io_u.c:2190", "io_u_queued_complete")
        };
        if self.job.set.non_fatal(ERR_VERIFY, errno) {
            // fio sets the error and clears it again (td_clear_error): the
            // report shows the first one, the job does not count as failed.
            self.ts.io_error(errno);
            if self.ts.error_msg.is_none() {
                self.ts.error_msg = Some(verror(src, func, errno));
            }
            if self.verify.as_ref().is_some_and(|v| v.fatal) {
                // verify_fatal: fio marks the job to terminate.
                self.stop = Stop::Failed;
            }
            return;
        }
        self.fail_with(errno, verror(src, func, errno));
    }

    /// fio's verify state file at the end of a writing job with verify
    /// (`verify_state_save`, on by default).
    fn save_verify_state(&mut self) {
        if self.write_comps.is_empty() {
            return;
        }
        let spec = self.job.spec;
        let depth = self.write_comps.len();
        let n = (self.write_issues as usize).min(depth);
        let mut comps = Vec::with_capacity(n);
        let mut j = self.write_comp_idx;
        for _ in 0..n {
            j = if j == 0 { depth - 1 } else { j - 1 };
            comps.push((0u64, self.write_comps[j]));
        }
        let (name, data) = super::verify::state_file(
            &spec.name,
            spec.thread_number.saturating_sub(1),
            depth as u32,
            self.job.files.len() as u32,
            self.write_issues,
            &comps,
        );
        if let Err(e) = std::fs::write(&name, data) {
            self.log.err(&format!(
                "fio: open state file: {e}\nfio: state file: {name} (for_write=1)\n"
            ));
        }
    }

    /// A full report was asked for (`--status-interval`): hand over the
    /// statistics so far.
    #[cold]
    fn serve_snapshot(&self, now: u64) {
        let elapsed = self.stats_from.map_or(0, |from| {
            self.elapsed_us + now.saturating_sub(from.max(self.pass_start)) / 1000
        });
        self.progress.serve_snapshot(self.ts, elapsed);
    }

    /// fio's `handle_thinktime` after a read or write.
    fn think_after(&mut self, dir: Dir) {
        let now = self.now();
        let Some(think) = self.think.as_mut() else {
            return;
        };
        let Some(pause) = think.check(self.pass_issued_ios, self.pass_completed_ios, now) else {
            return;
        };
        self.drain();
        let left = |s: &Self| {
            let from = s.stats_from?;
            (s.runtime_ns > 0)
                .then(|| s.runtime_ns.saturating_sub(s.now().saturating_sub(from)) / 1000)
        };
        let spin = pause.spin(left(self));
        let t0 = Instant::now();
        while (t0.elapsed().as_micros() as u64) < spin {
            std::hint::spin_loop();
        }
        let spun = t0.elapsed().as_micros() as u64;
        let sleep = pause.sleep(spun, left(self));
        super::think::pause(self.terminate, sleep);
        let total = t0.elapsed().as_micros() as u64;
        let now = self.now();
        if let Some(t) = self.think.as_mut() {
            t.done(now);
        }
        if let Some(r) = self.rate.as_mut() {
            r.after_think(dir, total);
        }
    }

    /// Sleep `ns`, waking early when the job is told to stop.
    fn sleep_ns(&self, ns: u64) {
        if ns > 0 {
            sleep_unless(self.terminate, Duration::from_nanos(ns));
        }
    }

    /// `fsync=N`/`fdatasync=N`: sync the last written file after every N
    /// writes. Returns whether a sync was issued.
    fn sync_due(&mut self) -> bool {
        let set = &self.job.set;
        let dir = if set.fsync_blocks > 0 && self.writes_since_fsync >= set.fsync_blocks {
            self.writes_since_fsync = 0;
            IoDir::Sync
        } else if set.fdatasync_blocks > 0 && self.writes_since_fdatasync >= set.fdatasync_blocks {
            self.writes_since_fdatasync = 0;
            IoDir::DataSync
        } else {
            return false;
        };
        if let Err(e) = self.sync_file(self.last_write_file, dir, true) {
            self.io_error(e, dir, self.last_write_file, 0, 0);
        }
        true
    }

    /// Sync file `fi` through the engine, after everything in flight.
    /// `record`: count it in the stats, as fio does for `fsync=N` and
    /// `fdatasync=N` (its IO depths and sync latency) but not for
    /// `end_fsync`/`fsync_on_close`.
    fn sync_file(&mut self, fi: usize, dir: IoDir, record: bool) -> Result<(), i32> {
        self.drain();
        let Some(t) = self.free.pop() else {
            return Err(libc::EBUSY);
        };
        let u = &mut self.units[t as usize];
        u.io.file = self.ids[fi];
        u.io.dir = dir;
        u.io.offset = 0;
        u.io.len = 0;
        u.file = fi;
        u.len = 0;
        let t0 = self.now();
        let result = loop {
            // SAFETY: nothing is in flight (drained above) and unit `t`
            // came from the free list; a sync moves no data (`len` 0).
            match unsafe { self.engine.queue(&self.units[t as usize].io) } {
                Queued::Completed(r) => break r,
                Queued::Queued => {
                    if let Err(e) = self.engine.commit() {
                        break Err(e);
                    }
                    match self.engine.getevents(1, 1, None) {
                        Ok(n) if n >= 1 => break self.engine.event(0).result,
                        Ok(_) => continue,
                        Err(e) => break Err(e),
                    }
                }
                Queued::Busy => {
                    if let Err(e) = self.engine.commit() {
                        break Err(e);
                    }
                }
            }
        };
        self.free.push(t);
        if record && result.is_ok() && self.stats_from.is_some() {
            let lat = self.now().saturating_sub(t0);
            self.ts.io_submitted(1);
            self.ts.sync_done(lat);
        }
        result.map(|_| ())
    }

    /// Submit what is queued; the submitted units' issue time is now.
    fn commit(&mut self) {
        if !self.caps.has_commit {
            return;
        }
        let r = self.engine.commit();
        let now = self.now();
        for &t in &self.uncommitted {
            self.units[t as usize].issue_ns = now;
        }
        // Engines that submit in commit count the batch (fio's
        // io_u_mark_submit in libaio/io_uring; the null engine does not).
        if !self.uncommitted.is_empty() && !self.caps.fake_io && self.stats_from.is_some() {
            self.ts.io_submit_batch(self.uncommitted.len() as u32);
        }
        self.uncommitted.clear();
        if let Err(e) = r {
            self.fail_with(e, verror("ioengines.c:399", "td_io_commit", e));
            self.log.err(&format!("fio: io_submit: {}\n", strerror(e)));
        }
    }

    /// fio's `wait_for_completions`.
    fn wait_for_completions(&mut self, full: bool) {
        let set = &self.job.set;
        let mut min = (set.batch_complete_min as usize).min(self.cur_depth);
        if (full && min == 0) || set.batch_complete_min == 0 {
            min = 1;
        }
        loop {
            if !self.reap(min) {
                break;
            }
            if !(full && self.cur_depth > set.iodepth_low as usize) {
                break;
            }
        }
    }

    /// fio's `io_u_queued_complete`: wait for `min` completions (0: take
    /// what is there) and account them. False on an engine error.
    fn reap(&mut self, min: usize) -> bool {
        if self.cur_depth == 0 {
            return true;
        }
        let (min, timeout) = if min == 0 {
            (0, Some(Duration::ZERO))
        } else {
            (min.min(self.cur_depth), None)
        };
        if min > 0 && !self.uncommitted.is_empty() {
            self.commit();
        }
        let max = (self.job.set.batch_complete_max as usize)
            .min(self.cur_depth)
            .max(min);
        let n = match self.engine.getevents(min, max, timeout) {
            Ok(n) => n,
            Err(e) => {
                self.fail_with(e, verror("ioengines.c:300", "td_io_getevents", e));
                return false;
            }
        };
        let now = self.now();
        if self.stats_from.is_some() {
            self.ts.io_complete_batch(n as u32);
        }
        for i in 0..n {
            let c = self.engine.event(i);
            self.cur_depth -= 1;
            self.units[c.token as usize].in_flight = false;
            self.complete(c.token, c.result, now);
        }
        true
    }

    /// Wait for everything in flight.
    fn drain(&mut self) {
        if !self.uncommitted.is_empty() {
            self.commit();
        }
        while self.cur_depth > 0 {
            let depth = self.cur_depth;
            if !self.reap(depth) {
                // The engine failed: its I/Os are lost, free the units.
                for t in 0..self.units.len() as u32 {
                    if self.units[t as usize].in_flight {
                        self.units[t as usize].in_flight = false;
                        self.free.push(t);
                    }
                }
                self.cur_depth = 0;
            }
        }
    }

    /// One I/O finished at `now` with `r`.
    #[inline]
    fn complete(&mut self, t: u32, r: IoResult, now: u64) {
        let u = self.units[t as usize];
        if !u.io.dir.is_data() {
            // A sync of the loop (fsync=N) is accounted by its caller.
            self.free.push(t);
            if let Err(e) = r {
                self.io_error(e, u.io.dir, u.file, 0, 0);
            }
            return;
        }
        match r {
            Ok(n) if n >= u.io.len => {}
            Ok(0) => {
                // Nothing moved (a read past the end): fio's "full resid".
                self.free.push(t);
                self.io_error(libc::EIO, u.io.dir, u.file, u.io.offset, u.io.len);
                return;
            }
            Ok(n) => {
                // Short: queue the rest again, as fio requeues the resid.
                if self.stats_from.is_some() {
                    self.ts.io_short(u.io.dir as usize);
                }
                let u = &mut self.units[t as usize];
                u.io.offset += n as u64;
                u.io.len -= n;
                u.io.buf = u.io.buf.wrapping_add(n);
                self.requeue.push(t);
                return;
            }
            Err(e) => {
                self.free.push(t);
                self.io_error(e, u.io.dir, u.file, u.io.offset, u.io.len);
                return;
            }
        }
        self.free.push(t);
        self.done_bytes += u.len;
        self.progress.io_done(u.io.dir as usize, u.len);
        self.last_dir = Some(u.io.dir);
        if u.io.dir == IoDir::Write {
            if self.log_pieces {
                self.hist.log(Piece {
                    file: u.file as u32,
                    len: u.len as u32,
                    offset: u.offset0,
                    numberio: u.numberio,
                });
            }
            if !self.write_comps.is_empty() {
                self.write_comps[self.write_comp_idx] = u.offset0;
                self.write_comp_idx = (self.write_comp_idx + 1) % self.write_comps.len();
            }
        }
        if u.io.dir != IoDir::Trim {
            self.pass_completed_ios += 1;
        }
        self.check_ramp(now);
        if let (Some(from), true) = (self.stats_from, self.caps.file_op) {
            // The file operation's time, once per open.
            let open_ns = std::mem::take(&mut self.op_pending[u.file]).then(|| self.op_ns[u.file]);
            self.ts.complete(&Completion {
                dir: u.io.dir as usize,
                bytes: u.len,
                at_ns: now.saturating_sub(from),
                timing: Timing::FileOp { open_ns },
                ..Completion::default()
            });
        } else if let Some(from) = self.stats_from {
            // A synchronous engine's slat is not recorded (see
            // `ThreadStats::engine_is_sync`), but counts in its lat.
            let (slat, clat) = (
                u.issue_ns.saturating_sub(u.start_ns),
                now.saturating_sub(u.issue_ns),
            );
            self.ts.complete(&Completion {
                dir: u.io.dir as usize,
                bytes: u.len,
                slat_ns: slat,
                clat_ns: clat,
                at_ns: now.saturating_sub(from),
                offset: u.offset0,
                prio_slot: if self.cmdprio {
                    self.engine.prio_slot(t)
                } else {
                    0
                },
                timing: Timing::Io,
            });
            if u.io.dir != IoDir::Trim {
                self.lat_ios += 1;
            }
            if self.max_latency_ns[u.io.dir as usize] > 0 || self.lat.is_some() {
                self.check_latency(t, now.saturating_sub(u.start_ns), now);
            }
        }
        if u.io.dir == IoDir::Read && self.verify.is_some() {
            let e = self.check_read(t);
            if e != 0 {
                self.verify_failed(e);
            }
        }
    }

    /// The statistics start again at `now` (fio's `reset_all_stats` when
    /// the latency target settles).
    fn restart_stats(&mut self, now: u64) {
        self.ts.restart();
        self.elapsed_us = 0;
        self.stats_from = Some(now);
        self.pass_start = now;
        self.progress.mark_epoch();
    }

    /// `max_latency` and `latency_target` on one completed I/O's total
    /// latency (fio's checks in `account_io_completion`).
    fn check_latency(&mut self, t: u32, lat_ns: u64, now: u64) {
        let mut over = None;
        let max = self.max_latency_ns[self.units[t as usize].io.dir as usize];
        if max > 0 && lat_ns > max {
            over = Some(max);
        }
        if let Some(l) = self.lat.as_mut() {
            match l.completed(lat_ns, now, self.lat_ios) {
                Step::Fatal => over = over.or(Some(self.lat_cfg.map_or(0, |c| c.target_ns))),
                Step::Quiesce => self.lat_quiesce = true,
                _ => {}
            }
        }
        if let Some(max) = over {
            let u = &self.units[t as usize];
            self.log.err(&too_slow(
                lat_ns,
                max,
                &self.job.files[u.file].path.display().to_string(),
                ddir_name(u.io.dir),
                u.offset0,
                u.len,
            ));
            self.fail_with(
                libc::ETIMEDOUT,
                verror("io_u.c:1432", "max latency exceeded", libc::ETIMEDOUT),
            );
        }
    }

    /// An I/O failed with `errno`: go on if `continue_on_error` allows it,
    /// else stop the job with fio's messages.
    #[cold]
    fn io_error(&mut self, errno: i32, dir: IoDir, fi: usize, offset: u64, len: usize) {
        if dir.is_data() && self.stats_from.is_some() {
            self.ts.io_failed(dir as usize);
        }
        let bit = if dir == IoDir::Read {
            ERR_READ
        } else {
            ERR_WRITE
        };
        if self.job.set.non_fatal(bit, errno) {
            // As for verify errors: reported as the first error, not fatal.
            self.ts.io_error(errno);
            if self.ts.error_msg.is_none() {
                self.ts.error_msg = Some(verror("io_u.c:1876", "io_u error", errno));
            }
            return;
        }
        let path = &self.job.files[fi].path;
        self.log.err(&format!(
            "fio: io_u error on file {}: {}: {} offset={offset}, buflen={len}\n",
            path.display(),
            strerror(errno),
            ddir_name(dir),
        ));
        self.fail_with(errno, verror("io_u.c:1876", "io_u error", errno));
    }

    #[cold]
    fn fail_with(&mut self, errno: i32, msg: String) {
        if self.ts.error == 0 {
            self.ts.error = errno;
            self.ts.error_msg = Some(msg);
        }
        self.stop = Stop::Failed;
    }
}

impl Drop for Exec<'_, '_> {
    fn drop(&mut self) {
        // Nothing may still use the buffers when the pool goes.
        self.drain();
        self.engine.close_all();
    }
}
