//! The I/O loop of one job (fio's `backend.c` `do_io` and `keep_running`,
//! `io_u.c`'s queue and completion paths).
//!
//! The loop keeps a fixed pool of `iodepth` I/O units (buffers and
//! [`Io`](crate::ioengine::Io)s), allocated before the first I/O. Each
//! turn takes a free unit, fills it from the pattern, and queues it; a
//! queued I/O is committed after `iodepth_batch_submit` of them; when no
//! unit is free the loop reaps completions (`iodepth_batch_complete_min`/
//! `_max`) down to `iodepth_low`. Nothing in the loop allocates, locks or
//! makes a system call other than the engine's and the clock reads.
//!
//! What only some jobs do (verify, the latency target, the I/O logs,
//! zones, flows, act) are the loop's hooks ([`hooks`]), called at named
//! points in the order of fio's `do_io`; `Exec` keeps what every I/O
//! needs.
//!
//! The files:
//!
//! | file | what | fio |
//! |---|---|---|
//! | `mod.rs` | [`Exec`], the passes and the ramp | `thread_main`'s loop, `keep_running` |
//! | `control.rs` | time line, pass and job limits, another pass? | `keep_running`, `do_io`'s checks |
//! | `units.rs` | the unit pool, requeue, in-flight count | `io_u` freelist, `cur_depth` |
//! | `files.rs` | opening and closing the files | `td_io_open_file`, `close_files` |
//! | `pass.rs` | one pass, rate waits, think time | `do_io`, `handle_thinktime` |
//! | `noio.rs` | the loop of an engine without I/O (cpuio, exec) | `do_io` with `FIO_NOIO` |
//! | `submit.rs` | queue, commit, reap | `td_io_queue`, `io_u_queued_complete` |
//! | `complete.rs` | one completion: errors, accounting, the hooks | `io_completed` |
//! | `sync.rs` | `fsync=N`, `end_fsync` | `should_fsync`, `do_io`'s end |
//! | `readback.rs` | the verify hook's I/O: backlog reads and trims, checks | `get_next_verify`, `verify_io_u` |
//! | `verify_phase.rs` | verify phase (experimental too), dry run | `do_verify`, `do_dry_run` |
//! | `errors.rs` | `continue_on_error`, `ignore_error` | `td_non_fatal_error` |
//! | `offload.rs` | offloaded I/O's times and counts | `rate-submit.c` |
//! | `trace.rs` | `--debug=io,file` lines | `dprint_io_u` |
//! | `hooks/` | verify, latency, iolog, replay, zbd, flow, act | see [`hooks`] |

mod complete;
mod control;
mod errors;
mod files;
mod hooks;
mod noio;
mod offload;
mod pass;
mod readback;
mod submit;
mod sync;
mod trace;
mod units;
mod verify_phase;

use self::control::{Budget, Counters, Timeline};
use self::files::OpenFiles;
use self::hooks::latency::Latency;
use self::hooks::verify::Verify;
use self::hooks::Hooks;
use self::sync::Cadence;
use self::units::Units;
use super::act::ActSlices;
use super::buffers::BufferFiller;
use super::clock::Clock;
use super::job::Prepared;
use super::offload::Stamps;
use super::offsets::IoGen;
use super::progress::{JobProgress, JobState};
use super::rate::RateLimiter;
use super::runner::Log;
use super::stop::Stop;
use super::think::ThinkTime;
use crate::ioengine::{Caps, IoEngine, IoMem, StopFlag};
use crate::stats::ThreadStats;
use std::sync::Arc;

/// Why the loop stops issuing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Halt {
    Running,
    /// A fatal I/O error: finish, report it.
    Failed,
    /// `latency_target` settled and ran its final window: the job is over.
    Done,
}

/// What the loop is given from outside: its clock, the stop request it
/// obeys, its entry for the status line, and where its messages go.
pub(crate) struct Env<'j, C> {
    pub(crate) clock: C,
    pub(crate) stop: &'j Stop,
    pub(crate) progress: &'j JobProgress,
    pub(crate) log: &'j dyn Log,
    /// `io_submit_mode=offload`: the workers' times of each unit's I/O
    /// (`None`: the loop submits inline).
    pub(crate) offload: Option<Arc<Stamps>>,
}

/// The running job: engine, units, counters; generic over its clock.
pub(crate) struct Exec<'j, 'a, C: Clock> {
    job: &'j Prepared<'a>,
    engine: Box<dyn IoEngine>,
    caps: Caps,
    units: Units,
    /// The job's files on the engine.
    open: OpenFiles,
    gen: IoGen,
    rate: Option<RateLimiter>,
    think: Option<ThinkTime>,
    filler: BufferFiller,
    ts: &'j mut ThreadStats,
    /// Checked before every I/O and by every wait.
    stop: &'j Stop,
    log: &'j dyn Log,
    /// What the status line reads: state, open files, completed I/O.
    progress: &'j JobProgress,
    clock: C,
    /// The completion time of a synchronous I/O just done, for the next
    /// turn of the loop to use as its `now` (nothing but bookkeeping ran
    /// in between): one clock read per I/O fewer, at most once.
    just_done_ns: Option<u64>,
    time: Timeline,
    budget: Budget,
    count: Counters,
    halt: Halt,
    sync: Cadence,
    /// `serialize_overlap`: an I/O waits for in-flight I/Os it overlaps.
    serialize: bool,
    /// `cmdprio_*` set: the engine gives each I/O a priority slot.
    cmdprio: bool,
    /// What only some jobs do, called at the loop's named points.
    hooks: Hooks<'j>,
    /// Offloaded submission: the workers' times (`Env::offload`).
    offload: Option<Arc<Stamps>>,
}

impl<'j, 'a, C: Clock> Exec<'j, 'a, C> {
    /// The loop of `job` on `engine`, with `depth` units over the buffers
    /// of `mem` (the first filled by `filler`, which fills the writes on),
    /// recording in `ts`.
    pub(crate) fn new(
        job: &'j Prepared<'a>,
        engine: Box<dyn IoEngine>,
        mem: IoMem,
        depth: usize,
        filler: BufferFiller,
        ts: &'j mut ThreadStats,
        env: Env<'j, C>,
    ) -> Exec<'j, 'a, C> {
        let mut engine = engine;
        // SAFETY: the engine lives in this Exec, which borrows the stop
        // request for 'j and drops the engine with itself.
        engine.watch_stop(unsafe { StopFlag::new(env.stop.flag(), env.stop.deadline()) });
        let caps = engine.caps();
        if caps.is_sync {
            ts.engine_is_sync();
        }
        let spec = job.spec;
        let nfiles = job.files.len();
        // An offloaded pass, as a synchronous one, counts no bytes.
        let (hooks, started) = Hooks::new(
            job,
            caps.is_sync,
            caps.is_sync || env.offload.is_some(),
            env.log,
        );
        let mut gen = job.take_gen();
        if hooks.iolog.is_some() {
            // The generator lists the files that run out, for the log.
            gen.closed = Some(Vec::new());
        }
        let mut exec = Exec {
            job,
            engine,
            caps,
            units: Units::new(mem, depth),
            open: OpenFiles::new(nfiles),
            gen,
            rate: job.rate.clone(),
            think: job.think.clone(),
            filler,
            ts,
            stop: env.stop,
            log: env.log,
            progress: env.progress,
            clock: env.clock,
            time: Timeline::new(
                spec.ramp_time_us.saturating_mul(1000),
                spec.runtime_us.saturating_mul(1000),
            )
            .with_ramp_checks(spec.ramp_size, spec.ramp_check_ns),
            budget: Budget::of(job),
            count: Counters::default(),
            halt: Halt::Running,
            just_done_ns: None,
            sync: Cadence::new(&job.set).with_range(spec.file.sync_range, nfiles),
            cmdprio: spec.engine.cmdprio().is_some(),
            // Offloaded, the workers serialize (over every such job).
            serialize: depth > 1 && spec.exec.serialize_overlap && env.offload.is_none(),
            hooks,
            offload: env.offload,
        };
        if let Err(f) = started {
            exec.fail(f);
        }
        exec
    }

    #[inline]
    fn now(&self) -> u64 {
        self.clock.now()
    }

    /// The passes over the files (fio's `keep_running` loop).
    pub(crate) fn run_passes(&mut self) {
        if self.job.spec.file.create_only {
            // The files are laid out, the job is done (fio's setup_files
            // sets td->done; its I/O loop never starts).
            return;
        }
        self.job_starts();
        let mut pass = 0u64;
        loop {
            // A pass's time includes opening its files (fio opens them in
            // its I/O loop), and the first pass starts with the runtime
            // clock: a job reports at least the runtime it was given.
            let pass_start = if pass == 0 { 0 } else { self.now() };
            if self.halt == Halt::Failed || !self.open_files() {
                break;
            }
            let moved = self.run_one_pass(pass, pass_start);
            pass += 1;
            if !self.keep_running(pass, moved) {
                break;
            }
            self.next_pass();
        }
        self.job_ends();
    }

    /// The job's time starts: the clock, the status line's state (running,
    /// or ramping up), the deadline the engine's waits obey.
    fn job_starts(&mut self) {
        let spec = self.job.spec;
        self.clock.restart();
        // The queue depth the report shows: iodepth (or what the latency
        // target settles on, as the job ends).
        self.ts.latency_depth = None;
        self.progress.mark_epoch();
        // fio 3.42's ramp checks fall every second from the run's start
        // (its helper thread's timers), before this job's I/O began.
        if self.time.begin(self.progress.since_origin_ns()) {
            self.ts.job_started();
            self.progress.set_state(JobState::Running);
        } else {
            self.progress.set_state(JobState::Ramp);
        }
        self.publish_deadline(0);
        let phase_only = self.hooks.verify.as_ref().is_some_and(Verify::phase_only);
        if spec.time_based && spec.pattern.write && !spec.pattern.read && phase_only {
            self.log.err(
                "fio: verification read phase will never start because write phase uses all of runtime\n",
            );
        }
    }

    /// Pass number `pass` over the open files, timed from `pass_start`: a
    /// dry run, the loop of an engine without I/O, or I/O; then the
    /// verify phase. Returns whether the pass moved anything outside
    /// verifying.
    fn run_one_pass(&mut self, pass: u64, pass_start: u64) -> bool {
        let spec = self.job.spec;
        let pass_start = if pass == 0 && self.engine.stats_start_at_open() {
            // fio's net engine resets the statistics once a listening
            // job has its connection: its time starts now.
            let now = self.now();
            if self.time.recording() {
                self.time.restart(now);
                self.progress.mark_epoch();
                self.publish_deadline(now);
            }
            now
        } else {
            pass_start
        };
        self.time.pass_starts(pass_start);
        let done_before = self.count.done_bytes;
        self.count.pass_done = [0; 3];
        if let Some(v) = self.hooks.verify.as_mut() {
            v.pass_starts();
        }
        let dry = spec.pattern.write && self.hooks.verify.as_ref().is_some_and(Verify::only);
        if dry {
            // fio's do_dry_run never sets up the latency target, so its
            // report has no latency_* keys.
            self.ts.latency_depth = Some(0);
            self.dry_run(pass == 0);
        } else if self.caps.no_io {
            self.run_noio();
        } else {
            self.run_pass(pass == 0);
            if let Some(v) = self.hooks.verify.as_ref() {
                v.leaked_trims(self.log);
            }
        }
        // What the pass did outside verifying (fio's bytes_done of
        // do_io): reads the job checks as it goes do not count.
        let moved = if dry {
            self.count.done_bytes > done_before
        } else {
            self.count.pass_done.iter().sum::<u64>() > 0
        };
        let phase = self.hooks.verify.as_ref().is_some_and(Verify::logs_writes);
        if phase && self.halt == Halt::Running {
            self.before_verify_phase();
            self.verify_phase();
        }
        if let Some(v) = self.hooks.verify.as_mut() {
            v.pass_ends();
        }
        let pass_end = self.now();
        self.time.pass_ends(pass_end);
        self.end_of_pass();
        moved
    }

    /// Another pass follows the `passes` done (fio's `keep_running`): the
    /// job neither failed, settled nor was stopped, the last pass `moved`
    /// something, the runtime is not over, and loops or bytes are left.
    fn keep_running(&self, passes: u64, moved: bool) -> bool {
        if matches!(self.halt, Halt::Failed | Halt::Done) || self.stop.requested() {
            return false;
        }
        if !moved || self.gen.finished() {
            // a pass that moved nothing ends the job, as sprandom's end
            // does (fio's `td->done`)
            return false;
        }
        if self.time.runtime_over(self.now()) {
            return false;
        }
        // A loaded verify state that ended a pass left its files undone:
        // fio goes on while a block is left of `size` (that pass stops at
        // once, saying so again).
        let undone = self.hooks.verify.as_ref().is_some_and(|v| v.state_stopped);
        (self.budget.another_pass(passes, self.count.done_bytes)
            || undone && self.budget.short_of_limit(self.count.done_bytes))
            && !self.job.append_once
    }

    /// Between two passes: the job runs on, and `unlink_each_loop`
    /// removes the files.
    fn next_pass(&mut self) {
        self.halt = Halt::Running;
        if self.job.set.unlink_each_loop {
            for f in &self.job.files {
                let _ = std::fs::remove_file(&f.path);
            }
        }
    }

    /// The job's passes are over: what it reports (a full device is no
    /// error, the ramp's I/O of a job that never left it, its time and
    /// queue depth) and the verify state it saves.
    fn job_ends(&mut self) {
        if self.job.fill && self.ts.error == libc::ENOSPC {
            // fill_device: the filesystem is full, the job is done (fio
            // clears the error and terminates the job).
            self.ts.error = 0;
            self.ts.error_msg = None;
        }
        if !self.time.recording() {
            // The job ended inside its ramp: what it moved, and its time,
            // are reported without latencies.
            self.ts.job_started();
            for (d, &(bytes, ios)) in self.count.ramp_io.iter().enumerate() {
                self.ts.bytes[d] += bytes;
                self.ts.ios[d] += ios;
            }
        }
        self.ts.elapsed_us = self.time.elapsed_us();
        if let Some(depth) = self.hooks.latency.as_ref().and_then(Latency::depth) {
            self.ts.latency_depth = Some(depth);
        }
        let stopped = self.stop.saves_state();
        let v = self.hooks.verify.as_ref();
        let rand = self.gen.offsets.saved_state();
        let issued = self.count.write_issues;
        hooks::verify::save_state(v, self.job, issued, rand, stopped, self.log);
        self.ts.job_finished();
        self.progress.set_state(JobState::Finishing);
    }

    /// Tell the engine's waits when the job's time is up (at `now` on
    /// the loop's clock): a peer that never answers holds it no longer.
    fn publish_deadline(&self, now: u64) {
        self.stop.set_deadline_in(self.time.deadline_left_ns(now));
    }

    /// End the ramp once its time has come: the statistics start at `now`.
    /// Returns whether it ended now.
    #[inline]
    fn check_ramp(&mut self, now: u64) -> bool {
        if !self.time.ramp_ends(now) {
            return false;
        }
        // The job's bytes, or (ramp_size with group_reporting) its
        // group's.
        let moved = match self.progress.ramp_group() {
            Some(group) => group.load(std::sync::atomic::Ordering::Relaxed),
            None => self.count.ramp_io.iter().map(|r| r.0).sum(),
        };
        if !self.time.ramp_over(now, moved) {
            self.publish_deadline(now);
            return false;
        }
        self.time.start_stats(now);
        self.publish_deadline(now);
        self.ts.job_started();
        self.progress.mark_epoch();
        self.progress.set_state(JobState::Running);
        true
    }
}

impl<C: Clock> Exec<'_, '_, C> {
    /// The job's act slices, when it is an act job, for the run's table.
    pub(crate) fn take_act(&mut self) -> Option<ActSlices> {
        self.hooks.act.take().map(hooks::act::Act::into_slices)
    }
}

impl<C: Clock> Drop for Exec<'_, '_, C> {
    fn drop(&mut self) {
        // Nothing may still use the buffers when the pool goes.
        self.drain();
        self.engine.close_all();
    }
}

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
