//! One job on its own thread (fio's `backend.c` `thread_main`): the
//! start delay, the placement, the buffers and the engine, `nice`,
//! `exec_prerun`, the I/O loop ([`super::exec`]), `exec_postrun`, and the
//! job's report. The job was checked and its files laid out before
//! ([`super::job`]).

use crate::release::places::Site;
use std::time::Duration;

use super::buffers::BufferFiller;
use super::clock::RealClock;
use super::errno::{engine_verror, verror};
use super::exec::{Env, Exec};
use super::host::Cgroup;
use super::job::{Prepared, SYNC_DEPTH_NOTE};
use super::layout;
use super::log::Log;
use super::offsets::OffsetGen;
use super::placement::Failure;
use super::progress::JobProgress;
use super::stop::Stop;
use super::think::sleep_unless;
use super::verify::save_state;
use crate::ioengine::{IoEngine, IoMem, IoMemory, MemSpec, StopFlag, ALIGN};
use crate::rand::Rng;
use crate::stats::blocks::MAX_BLOCKS;
use crate::stats::{BlockTracker, JobReport, Layout, ThreadStats};

impl Prepared<'_> {
    /// Run the job on the calling thread. `layout` is what the runner laid
    /// out for it (or the error that stops it); `stop` is requested by a
    /// signal or by `exitall` in another job; `progress` is the job's
    /// entry for the status line.
    pub(crate) fn run(
        &self,
        layout: Result<Option<Layout>, layout::Failed>,
        stop: &Stop,
        progress: &JobProgress,
        log: &dyn Log,
    ) -> JobReport {
        let spec = self.spec;
        if let Some(comm) = &spec.host.comm {
            // fio 3.42's thread_main: prctl(PR_SET_NAME, comm) as the job
            // starts; the kernel truncates it to 15 bytes.
            // SAFETY: `comm` is a NUL-terminated string that outlives the call.
            unsafe { libc::prctl(libc::PR_SET_NAME, comm.as_ptr()) };
        }
        // SAFETY: gettid has no preconditions.
        let mut pid = unsafe { libc::gettid() } as u32;
        let (ioprio, slots) = spec.engine.prio_slots();
        let mut ts = ThreadStats::new(&spec.report.stats)
            .with_prios(ioprio, slots)
            .with_log(spec.logs.as_ref().map(crate::logs::sink));
        // A job that ends before its I/O loop has no queue depth to report
        // (fio sets `latency_qd` as the loop starts: no latency_* keys); the
        // loop sets it.
        ts.latency_depth = Some(0);
        let layout = layout.and_then(|l| match self.track_blocks(&mut ts) {
            Ok(()) => Ok(l),
            Err(mut e) => {
                e.laid = l;
                Err(e)
            }
        });
        let mut setup_failed = false;
        let laid = match layout {
            Ok(l) => {
                self.execute(&mut ts, stop, progress, log);
                l
            }
            Err(e) => {
                setup_failed = e.errno == 0;
                if let Some(note) = &e.note {
                    log.err(note);
                }
                ts.error = e.errno;
                ts.error_msg = (!setup_failed).then_some(e.msg);
                // fio lays files out before it starts the job's process:
                // the job has no pid yet.
                pid = 0;
                e.laid
            }
        };
        if ts.error != 0 {
            // fio prints this on stdout, inside its JSON or terse output;
            // rfio keeps stdout for the report (conformance/README.md).
            log.err(&format!(
                "fio: pid={pid}, err={}/{}\n",
                ts.error,
                ts.error_msg.as_deref().unwrap_or("")
            ));
        }
        let mut report = JobReport::new(spec.report.clone(), pid, laid, &ts);
        report.setup_failed = setup_failed;
        report
    }

    /// `block_error_percentiles`: one word per trim-sized block of the
    /// job's one file, set up as fio's `setup_files` does (at most
    /// [`MAX_BLOCKS`], at least one).
    fn track_blocks(&self, ts: &mut ThreadStats) -> Result<(), layout::Failed> {
        let (true, Some(f)) = (self.spec.host.block_hist, self.files.first()) else {
            return Ok(());
        };
        let bs = self.spec.bs[2].0.max(1);
        let blocks = f.len / bs;
        if blocks == 0 || blocks > MAX_BLOCKS {
            return Err(layout::Failed {
                errno: libc::EINVAL,
                msg: verror(
                    self.spec.release.place(Site::BlockErrorHist),
                    "block_error_hist",
                    libc::EINVAL,
                ),
                note: Some(format!(
                    "fio: cannot calculate block histogram with {} trim blocks, maximum {MAX_BLOCKS}\n",
                    blocks as i32
                )),
                laid: None,
            });
        }
        ts.blocks = Some(Box::new(BlockTracker::new(blocks as usize, f.start, bs)));
        Ok(())
    }

    fn execute(&self, ts: &mut ThreadStats, stop: &Stop, progress: &JobProgress, log: &dyn Log) {
        self.work(ts, stop, progress, log);
        if self.set.unlink {
            for f in &self.files {
                self.engine.flags.unlink(&f.path);
            }
        }
    }

    /// Set the thread up (fio's order: placement, buffers and engine, nice,
    /// exec_prerun) and run the I/O; a set-up failure ends the job here.
    fn work(&self, ts: &mut ThreadStats, stop: &Stop, progress: &JobProgress, log: &dyn Log) {
        let spec = self.spec;
        let set = &self.set;
        if !self.start_delay(stop, log) {
            return;
        }
        let pinned = match self.place.enter(log) {
            Ok(p) => p,
            Err(f) => return failed(ts, f),
        };
        // The I/O units: one per possible I/O in flight (offloaded, each
        // submit worker has one in flight, whatever the engine).
        let offloaded = super::offload::applies(self);
        let depth = if self.caps.is_sync && !offloaded {
            1
        } else {
            set.iodepth as usize
        };
        let Some((pool, filler, mem)) = self.buffers(depth, ts, log) else {
            return;
        };
        // SAFETY: `stop` outlives the engine, dropped when the job ends.
        let flag = unsafe { StopFlag::new(stop.flag(), stop.deadline()) };
        let Some(engine) = self.start_engine(mem, flag, stop, ts, log) else {
            return;
        };
        // Left (back to the root group) when the job is over, whatever the
        // way out.
        let Some(cgroup) = self.enter_host(ts, log) else {
            return;
        };
        if set.pre_read && !spec.direct && self.caps.needs_files {
            for f in &self.files {
                let _ = layout::pre_read(&f.path, f.end(), stop);
            }
        }
        // io_submit_mode=offload: the submit workers start (fio's
        // rate_submit_init).
        let (engine, offload) = if offloaded {
            match super::offload::start(self, engine, mem, depth, flag, log) {
                Ok((engine, stamps)) => (engine, Some(stamps)),
                Err(f) => return failed(ts, f),
            }
        } else {
            (engine, None)
        };
        let env = Env {
            clock: if spec.host.time_thread.is_some() {
                RealClock::start_on_time_thread(set.clock)
            } else {
                RealClock::start(set.clock)
            },
            stop,
            progress,
            log,
            offload,
        };
        let mut exec = Exec::new(self, engine, mem, depth, filler, ts, env);
        exec.run_passes();
        if let Some(table) = exec.take_act().as_ref().and_then(super::act::job_done) {
            log.info(&table);
        }
        drop(exec);
        drop(pinned);
        self.place.postrun(log);
        // The engine (and with it every registration of the pool) is gone:
        // only now may the buffers go.
        drop(pool);
        drop(cgroup);
    }

    /// `startdelay`: wait before the job starts. Returns whether it
    /// starts: a job stopped meanwhile does not (a trigger saves its
    /// verify state all the same).
    fn start_delay(&self, stop: &Stop, log: &dyn Log) -> bool {
        let spec = self.spec;
        let (lo, hi) = spec.startdelay_us;
        // A range picks a delay per job (fio's rand_between on its own seed).
        let delay = lo + Rng::new(u64::from(spec.thread_number)).below(hi - lo + 1);
        if delay > 0 {
            sleep_unless(stop, Duration::from_micros(delay));
        }
        if !stop.requested() {
            return true;
        }
        if stop.saves_state() {
            // A trigger saves the state of the jobs not started too.
            // Its offset generator as set up, never drawn from.
            let rand = OffsetGen::new(spec, &spec.seeds, None).saved_state();
            if let Err(e) = save_state(spec, self.files.len(), 0, rand, None) {
                log.err(&e.to_string());
            }
        }
        false
    }

    /// The buffers of `depth` units, the writes' filled from the pattern:
    /// the pool, the filler that fills the writes on, and the units over
    /// the pool. `None`: the allocation failed, the job's error is set.
    fn buffers(
        &self,
        depth: usize,
        ts: &mut ThreadStats,
        log: &dyn Log,
    ) -> Option<(IoMemory, BufferFiller, IoMem)> {
        // Sizes past the address space ask for everything: ENOMEM below.
        let unit = usize::try_from(self.max_bs)
            .unwrap_or(usize::MAX)
            .div_ceil(ALIGN)
            .saturating_mul(ALIGN);
        // fio allocates no buffer memory for a job that moves no data.
        let pattern = self.pattern();
        let mem_spec = if pattern.read || pattern.write {
            self.spec.placement.mem.clone()
        } else {
            MemSpec::default()
        };
        let mut pool = match IoMemory::allocate(&mem_spec, unit.saturating_mul(depth)) {
            Ok(m) => m,
            Err(e) => {
                for note in &e.notes {
                    log.err(note);
                }
                let msg = verror(e.src, e.func, e.errno);
                // fio 3.33 goes on after a failed buffer allocation (and
                // crashes later); its report of such a job has the
                // latency_* keys.
                ts.latency_depth = None;
                failed(ts, Failure::Error(e.errno, msg));
                return None;
            }
        };
        let mut filler = self.filler.clone();
        if !self.caps.fake_io && pattern.write {
            for chunk in pool.as_mut_slice().chunks_mut(unit) {
                filler.fill(&mut chunk[..self.max_bs as usize]);
            }
        }
        let mem = IoMem {
            base: pool.as_mut_ptr(),
            unit,
            units: depth,
        };
        Some((pool, filler, mem))
    }

    /// The engine over `mem` (fio's `td_io_init`), its notices shown.
    /// `None`: it failed to start (the job's error is set), or the job was
    /// stopped while it started.
    fn start_engine(
        &self,
        mem: IoMem,
        flag: StopFlag,
        stop: &Stop,
        ts: &mut ThreadStats,
        log: &dyn Log,
    ) -> Option<Box<dyn IoEngine>> {
        let spec = self.spec;
        let mut engine = match (self.engine.new)(self.engine_spec(), mem, Some(flag)) {
            Ok(e) => e,
            Err(_) if stop.requested() => {
                // Stopped while the engine started (nbd's handshake with
                // a silent server): the job never ran, no error.
                return None;
            }
            Err(e) => {
                // fio's td_io_init: the engine's own lines, then its note.
                if let Some(lines) = &e.log {
                    log.err(lines);
                }
                log.err(&format!(
                    "fio: io engine {} init failed.{}\n",
                    self.engine.name,
                    if spec.iodepth > 1 {
                        " Perhaps try reducing io depth?"
                    } else {
                        ""
                    }
                ));
                ts.error = e.errno;
                ts.error_msg = Some(engine_verror(&e, None));
                return None;
            }
        };
        while let Some(note) = engine.notice() {
            log.note(&note);
        }
        if self.caps.is_sync && self.set.iodepth > 1 {
            // On stderr: fio's stdout copy breaks terse and JSON parsers.
            log.err(&format!("{SYNC_DEPTH_NOTE}\n"));
        }
        Some(engine)
    }

    /// The thread's place on the host: its control group (left when the
    /// returned guard drops), `nice`, the I/O scheduler, `exec_prerun`.
    /// `None`: the job ends here (on a failure, with its error set).
    fn enter_host(&self, ts: &mut ThreadStats, log: &dyn Log) -> Option<LeaveOnDrop> {
        let cgroup = match &self.place.host.cgroup {
            Some(c) => match Cgroup::join(c, log) {
                Ok(g) => LeaveOnDrop(Some(g)),
                Err(f) => {
                    failed(ts, f);
                    return None;
                }
            },
            None => LeaveOnDrop(None),
        };
        if let Err(f) = self.place.renice() {
            failed(ts, f);
            return None;
        }
        if let Err((errno, msg)) = self.switch_ioscheduler(log) {
            failed(ts, Failure::Error(errno, msg));
            return None;
        }
        if !self.place.prerun(log) {
            return None;
        }
        Some(cgroup)
    }
}

/// A set-up step failed: its error (if it has one) is the job's.
fn failed(ts: &mut ThreadStats, f: Failure) {
    if let Failure::Error(errno, msg) = f {
        ts.error = errno;
        ts.error_msg = Some(msg);
    }
}

/// A job thread's control group, left when dropped.
struct LeaveOnDrop(Option<Cgroup>);

impl Drop for LeaveOnDrop {
    fn drop(&mut self) {
        if let Some(g) = self.0.take() {
            g.leave();
        }
    }
}
