//! Queue, commit and reap (fio's `td_io_queue`, `td_io_commit`,
//! `wait_for_completions` and `io_u_queued_complete`): the units' way
//! through the engine and back; each completion is accounted in
//! `complete.rs`.
//!
//! Latencies follow fio: a unit's start time is taken when it is filled;
//! its submission (issue) time when the engine accepted it (after `commit`
//! for engines that submit there, after `queue` otherwise); slat is issue
//! minus start, clat completion minus issue. Synchronous engines (fio's
//! `FIO_SYNCIO`) take their issue time just before `queue`; they record no
//! slat, but their lat (start to completion) still exceeds clat.

use std::time::Duration;

use super::super::clock::Clock;
use super::super::errno::verror;
use super::hooks::latency::Latency;
use super::hooks::zbd;
use super::Exec;
use crate::ioengine::{IoResult, Queued};
use crate::release::places::Site;

impl<C: Clock> Exec<'_, '_, C> {
    /// Queue unit `t` and account its submission; reap when the pool is
    /// full (or always, when polling). Returns whether the engine queued
    /// it (fio's `FIO_Q_QUEUED`) rather than completing it at once or
    /// finding it busy.
    pub(super) fn submit(&mut self, t: u32, polling: bool) -> bool {
        if crate::debug::on(crate::debug::Cat::Io) {
            self.trace_io("queue", t);
        }
        if let Some(l) = self.hooks.iolog.as_mut() {
            l.on_queue(self.clock.now(), t, self.units.get(t));
        }
        // fio's issue time of a synchronous engine: just before `queue`.
        let issued = if self.caps.is_sync { self.now() } else { 0 };
        let status = self.queue(t);
        // fio's do_io counts no bytes for an offloaded I/O.
        let queued = status == Queued::Queued && self.offload.is_none();
        match status {
            Queued::Completed(r) => self.completed_at_once(t, r, issued),
            Queued::Queued => self.queued(t),
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

    /// Hand unit `t` to the engine (fio's `io_u_submit`), holding its
    /// file's lock (`lockfile=exclusive`: until the engine returns). An
    /// I/O overlapping one in flight is busy (`serialize_overlap`); a
    /// trim of a sequential zone is the zones' (`zonemode=zbd`).
    fn queue(&mut self, t: u32) -> Queued {
        let job = self.job;
        let held = job.lock_file(self.units.get(t).file);
        let status =
            if self.serialize && self.units.in_flight() > 0 && self.units.overlaps_in_flight(t) {
                Queued::Busy
            } else if let Some(r) = self.zbd_on_queue(t) {
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
        status
    }

    /// The zbd hook's turn as unit `t` is queued: a trim it did itself.
    #[inline]
    fn zbd_on_queue(&mut self, t: u32) -> Option<IoResult> {
        let z = self.gen.zbd.as_mut()?;
        let u = self.units.get(t);
        let (r, counted) = zbd::on_queue(z, u, &mut self.ts.zone_resets, self.log)?;
        if let Err(f) = counted {
            self.fail(f);
        }
        Some(r)
    }

    /// The engine completed unit `t` inside `queue` with `r` (a
    /// synchronous engine's issue time was `issued`).
    fn completed_at_once(&mut self, t: u32, r: IoResult, issued: u64) {
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
        if self.caps.is_sync && self.hooks.verify.is_none() {
            self.just_done_ns = Some(now);
        }
    }

    /// The engine queued unit `t`: it is in flight, committed with its
    /// batch when the engine commits.
    fn queued(&mut self, t: u32) {
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

    /// fio's `queue_full`: no unit is free, or as many are in use as the
    /// latency target's depth allows.
    #[inline]
    fn queue_full(&self) -> bool {
        self.units.none_free()
            || self
                .hooks
                .latency
                .as_ref()
                .and_then(Latency::depth)
                .is_some_and(|d| self.units.in_use() >= d as usize)
    }

    /// Submit what is queued; the submitted units' issue time is now.
    pub(super) fn commit(&mut self) {
        if !self.caps.has_commit {
            return;
        }
        let r = self.engine.commit();
        if let Err(e) = r {
            self.commit_failed(e);
            return;
        }
        let now = self.now();
        let n = self.units.committed(now);
        // Engines that submit in commit count the batch (fio's
        // io_u_mark_submit in libaio/io_uring; the null engine does not).
        if n > 0 && !self.caps.fake_io && self.time.recording() {
            self.ts.io_submit_batch(n as u32);
        }
    }

    /// The engine's commit failed with `errno` (fio's `td_io_commit`:
    /// `td_verror(td, -ret, "io commit")`, nothing else printed): the
    /// units queued for it were issued (fio counted them when it queued
    /// them) but none was submitted nor completes; the job fails.
    #[cold]
    fn commit_failed(&mut self, errno: i32) {
        if self.time.recording() {
            for i in 0..self.units.uncommitted() {
                let dir = self.units.get(self.units.uncommitted_unit(i)).io.dir;
                if dir.is_data() {
                    self.ts.io_failed(dir.index());
                }
            }
        }
        let now = self.now();
        self.units.committed(now);
        self.fail_with(
            errno,
            verror(self.place(Site::IoCommit), "io commit", errno),
        );
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
                self.fail_with(e, verror(self.place(Site::GetEvents), "get_events", e));
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
            // or its time is up), or dropped I/Os its failed commit never
            // submitted (the job failed already): what is still in flight
            // never completes, and is no error of its own.
            self.units.lose_in_flight();
            if self.halt != super::Halt::Failed {
                self.halt = super::Halt::Done;
            }
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
}
