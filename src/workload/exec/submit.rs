//! Queue, commit, reap and complete (fio's `td_io_queue`,
//! `td_io_commit`, `wait_for_completions`, `io_u_queued_complete` and
//! `io_completed`): the units' way through the engine and back, and the
//! accounting of each completion.
//!
//! Latencies follow fio: a unit's start time is taken when it is filled;
//! its submission (issue) time when the engine accepted it (after `commit`
//! for engines that submit there, after `queue` otherwise); slat is issue
//! minus start, clat completion minus issue. Synchronous engines (fio's
//! `FIO_SYNCIO`) take their issue time just before `queue`; they record no
//! slat, but their lat (start to completion) still exceeds clat.

use std::time::Duration;

use super::super::clock::Clock;
use super::super::errno::{strerror, verror};
use super::Exec;
use crate::ddir::Ddir;
use crate::ioengine::{IoResult, Queued};
use crate::stats::{Completion, Timing};

impl<C: Clock> Exec<'_, '_, C> {
    /// Queue unit `t` and account its submission; reap when the pool is
    /// full (or always, when polling). Returns whether the engine queued
    /// it (fio's `FIO_Q_QUEUED`) rather than completing it at once or
    /// finding it busy.
    pub(super) fn submit(&mut self, t: u32, polling: bool) -> bool {
        if crate::debug::on(crate::debug::Cat::Io) {
            self.trace_io("queue", t);
        }
        if self.iolog.is_some() {
            self.log_queued(t);
        }
        // fio's io_u_submit: an I/O overlapping one in flight is busy.
        // fio's issue time of a synchronous engine: just before `queue`.
        let issued = if self.caps.is_sync { self.now() } else { 0 };
        // lockfile=exclusive: held until the engine returns.
        let job = self.job;
        let held = job.lock_file(self.units.get(t).file);
        let status =
            if self.serialize && self.units.in_flight() > 0 && self.units.overlaps_in_flight(t) {
                Queued::Busy
            } else if let Some(r) = self.zbd_trim(t) {
                Queued::Completed(r)
            } else {
                // SAFETY: unit `t` was taken from the free list, so no I/O
                // in flight has its token and nobody else touches its
                // buffer (pool unit `t`, at least `io.len` bytes, which
                // outlives the engine) until the engine reports it complete
                // and it goes back there.
                unsafe { self.engine.queue(&self.units.get(t).io) }
            };
        drop(held);
        // fio's do_io counts no bytes for an offloaded I/O.
        let queued = status == Queued::Queued && self.offload.is_none();
        match status {
            Queued::Completed(r) => {
                if self.time.recording() {
                    self.ts.io_submitted(self.units.in_flight() as u32 + 1);
                    if !self.caps.has_commit {
                        // fio's td_io_queue for engines without commit.
                        self.ts.io_submit_batch(1);
                        self.ts.io_complete_batch(1);
                    }
                }
                let now = self.now();
                let u = self.units.get_mut(t);
                u.issue_ns = if self.caps.is_sync {
                    issued
                } else {
                    u.start_ns
                };
                match r {
                    // An error the engine reports its own way.
                    Err(e) => match self.engine.queue_error(e) {
                        Some(q) => self.queue_failed(t, q),
                        None => self.complete(t, r, now),
                    },
                    Ok(_) => self.complete(t, r, now),
                }
                // (Not after a verified read: its check takes time.)
                if self.caps.is_sync && !self.verify.on() {
                    self.just_done_ns = Some(now);
                }
            }
            Queued::Queued => {
                self.units.submitted(t);
                let now = if self.caps.has_commit { 0 } else { self.now() };
                if self.offload.is_some() {
                    self.offload_queued();
                } else if self.time.recording() {
                    self.ts.io_submitted(self.units.in_flight() as u32);
                    if !self.caps.has_commit {
                        self.ts.io_submit_batch(1);
                        self.ts.io_complete_batch(1);
                    }
                }
                if self.caps.has_commit {
                    self.units.queued_uncommitted(t);
                    if self.units.uncommitted() >= self.job.set.batch_submit as usize {
                        self.commit();
                    }
                } else {
                    self.units.get_mut(t).issue_ns = now;
                }
            }
            Queued::Busy if self.engine.done() => {
                // The engine has nothing more to do (fio's td->done: a net
                // reader's peer said goodbye): the I/O is not issued.
                self.units.give_back(t);
                self.halt = super::Halt::Done;
            }
            Queued::Busy => {
                self.units.requeue(t);
                self.commit();
            }
        }
        let full = self.queue_full() || (status == Queued::Busy && self.units.in_flight() > 0);
        if full || polling {
            self.wait_for_completions(full);
        }
        queued
    }

    /// fio's `queue_full`: no unit is free, or as many are in use as the
    /// latency target's depth allows.
    #[inline]
    fn queue_full(&self) -> bool {
        self.units.none_free()
            || self
                .lat
                .depth()
                .is_some_and(|d| self.units.in_use() >= d as usize)
    }

    /// Submit what is queued; the submitted units' issue time is now.
    pub(super) fn commit(&mut self) {
        if !self.caps.has_commit {
            return;
        }
        let r = self.engine.commit();
        let now = self.now();
        let n = self.units.committed(now);
        // Engines that submit in commit count the batch (fio's
        // io_u_mark_submit in libaio/io_uring; the null engine does not).
        if n > 0 && !self.caps.fake_io && self.time.recording() {
            self.ts.io_submit_batch(n as u32);
        }
        if let Err(e) = r {
            self.fail_with(e, verror("ioengines.c:399", "td_io_commit", e));
            self.log.err(&format!("fio: io_submit: {}\n", strerror(e)));
        }
    }

    /// fio's `wait_for_completions`.
    fn wait_for_completions(&mut self, full: bool) {
        let set = &self.job.set;
        let mut min = (set.batch_complete_min as usize).min(self.units.in_flight());
        if (full && min == 0) || set.batch_complete_min == 0 {
            min = 1;
        }
        loop {
            if !self.reap(min) {
                break;
            }
            if !(full && self.units.in_flight() > set.iodepth_low as usize) {
                break;
            }
        }
    }

    /// fio's `io_u_queued_complete`: wait for `min` completions (0: take
    /// what is there) and account them. False on an engine error.
    pub(super) fn reap(&mut self, min: usize) -> bool {
        let depth = self.units.in_flight();
        if depth == 0 {
            return true;
        }
        let (min, timeout) = if min == 0 {
            (0, Some(Duration::ZERO))
        } else {
            (min.min(depth), None)
        };
        if min > 0 && self.units.uncommitted() > 0 {
            self.commit();
        }
        let max = (self.job.set.batch_complete_max as usize)
            .min(self.units.in_flight())
            .max(min);
        let n = match self.engine.getevents(min, max, timeout) {
            Ok(n) => n,
            Err(e) => {
                self.fail_with(e, verror("ioengines.c:300", "td_io_getevents", e));
                return false;
            }
        };
        let now = self.now();
        // Offloaded: the workers' clock, now (their submission counted
        // each completion).
        let mono = self.offload.as_ref().map(|s| s.now());
        if self.time.recording() && mono.is_none() {
            self.ts.io_complete_batch(n as u32);
        }
        for i in 0..n {
            let c = self.engine.event(i);
            self.units.landed(c.token);
            let at = match mono {
                Some(mono) => self.offload_landed(c.token, now, mono),
                None => now,
            };
            self.complete(c.token, c.result, at);
        }
        if n < min && self.engine.done() {
            // The engine gave up waiting on its peer (the job was stopped,
            // or its time is up): what is still in flight never completes,
            // and is no error.
            self.units.lose_in_flight();
            self.halt = super::Halt::Done;
        }
        true
    }

    /// Wait for everything in flight.
    pub(super) fn drain(&mut self) {
        if self.units.uncommitted() > 0 {
            self.commit();
        }
        while self.units.in_flight() > 0 {
            let depth = self.units.in_flight();
            if !self.reap(depth) {
                // The engine failed: its I/Os are lost, free the units.
                self.units.lose_in_flight();
            }
        }
    }

    /// One I/O finished at `now` with `r`.
    #[inline]
    pub(super) fn complete(&mut self, t: u32, r: IoResult, now: u64) {
        if self.replay_lost() {
            return self.lose(t);
        }
        let u = *self.units.get(t);
        if !u.io.dir.is_data() {
            // A sync of the loop (fsync=N) is accounted by its caller.
            self.units.give_back(t);
            if let Err(e) = r {
                self.io_error(e, u.io.dir, u.file, 0, 0);
            }
            return;
        }
        if !matches!(r, Ok(n) if n > 0 && n < u.io.len) {
            self.zbd_completed(&u);
            // Not queued again for a remainder: the file may close.
            self.file_io_done(u.file);
        }
        match r {
            Ok(n) if n >= u.io.len => {}
            Ok(0) => {
                // Nothing moved (a read past the end): fio's "full resid".
                self.units.give_back(t);
                self.verify.failed(&u);
                self.io_error(libc::EIO, u.io.dir, u.file, u.io.offset, u.io.len);
                return;
            }
            Ok(n) => {
                // Short: queue the rest again, as fio requeues the resid.
                if self.time.recording() {
                    self.ts.io_short(u.io.dir.index());
                }
                let io = &mut self.units.get_mut(t).io;
                io.offset += n as u64;
                io.len -= n;
                io.buf = io.buf.wrapping_add(n);
                self.units.requeue(t);
                return;
            }
            Err(e) => {
                self.units.give_back(t);
                self.verify.failed(&u);
                self.io_error(e, u.io.dir, u.file, u.io.offset, u.io.len);
                return;
            }
        }
        if crate::debug::on(crate::debug::Cat::Io) {
            self.trace_io("complete", t);
        }
        self.units.give_back(t);
        self.count.done_bytes += u.len;
        self.progress.io_done(u.io.dir.index(), u.len);
        self.verify.completed(&u);
        if u.io.dir != Ddir::Trim {
            self.pass_completed_ios += 1;
        }
        // The completion that ends the ramp is not counted: fio's
        // should_account() resets the statistics after this I/O added its
        // bytes, and the job is still ramping then.
        let counted_from = match self.check_ramp(now) {
            true => None,
            false => self.time.stats_from(),
        };
        if !self.time.recording() {
            let r = &mut self.ramp_io[u.io.dir.index().min(2)];
            *r = (r.0 + u.len, r.1 + 1);
        }
        if let (Some(from), true) = (counted_from, self.caps.file_op) {
            // The file operation's time, once per open.
            let open_ns = std::mem::take(&mut self.op_pending[u.file]).then(|| self.op_ns[u.file]);
            self.ts.complete(&Completion {
                dir: u.io.dir,
                bytes: u.len,
                at_ns: now.saturating_sub(from),
                timing: Timing::FileOp { open_ns },
                ..Completion::default()
            });
        } else if let Some(from) = counted_from {
            // A synchronous engine's slat is not recorded (see
            // `ThreadStats::engine_is_sync`), but counts in its lat.
            let (slat, clat) = (
                u.issue_ns.saturating_sub(u.start_ns),
                now.saturating_sub(u.issue_ns),
            );
            self.ts.complete(&Completion {
                dir: u.io.dir,
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
            // Steady state's latency criterion reads it (fio 3.42).
            self.progress.clat_done(clat);
            if self.lat.counted(u.io.dir) {
                self.check_latency(t, now.saturating_sub(u.start_ns), now);
            }
            if self.act.is_some() {
                self.act_latency(now.saturating_sub(u.start_ns), now);
            }
        }
        if u.io.dir == Ddir::Read && self.verify.on() {
            let e = self.check_read(t);
            if e != 0 {
                self.verify_failed(e);
            }
        }
    }
}
