//! One pass over the files (fio's `do_io`): each turn lets the flow hook
//! hold the job back, takes a unit (one to queue again first, else a free
//! one), fills it with the next I/O (a sync, a `verify_backlog` read or
//! `trim_backlog` trim, the replayed log's or the pattern's, placed on
//! the zones), and submits it; then the latency hook and the think time
//! get their turn. A rate limit waits here, before the I/O it delays.
//! The hooks' call points are named as in [`super::hooks`].

use super::super::clock::Clock;
use super::super::lat_target::Step as LatStep;
use super::super::offsets::Io as NextIo;
use super::hooks::flow::Flow;
use super::hooks::replay::Next;
use super::hooks::zbd;
use super::readback::Turn;
use super::{Exec, Halt};
use crate::ddir::Ddir;

/// What a turn of the pass's loop does next.
enum Step {
    /// Submit this unit; `Some(dir)` when it carries a new read, write or
    /// trim of the pattern (think time follows one that is no trim).
    Submit(u32, Option<Ddir>),
    /// Nothing to submit this turn: take the next one.
    Again,
    /// The pass is over.
    Over,
}

impl<C: Clock> Exec<'_, '_, C> {
    /// One pass (fio's `do_io`): until the job stops, its runtime is over
    /// or the pass is done, each turn takes a unit and submits it.
    pub(super) fn run_pass(&mut self, first: bool) {
        let job = self.job;
        let polling = job.set.batch_complete_min == 0 && job.set.batch_complete_max == 0;
        self.pass_starts(first);
        let mut pass_issued = 0u64;
        while !self.should_stop() {
            let mut now = match self.just_done_ns.take() {
                Some(t) => t,
                None => self.now(),
            };
            self.check_ramp(now);
            // Every job gets to issue an I/O, however long it waited for a
            // CPU after its clock started (fio reads a cached clock that
            // lags its first I/Os).
            if self.runtime_over(now) {
                break;
            }
            if self.progress.snapshot_due() {
                self.serve_snapshot(now);
            }
            if self.flow_held_back() {
                continue;
            }
            // fio's do_io counts toward a pass's bytes only the I/O the
            // engine queues (FIO_Q_QUEUED), never one completed inside
            // `queue`: with a synchronous engine a pass runs on until the
            // files are done or the job's bytes are issued.
            let (t, issued_dir) = if let Some(t) = self.units.take_requeued() {
                (t, None)
            } else {
                match self.next_unit(&mut now, polling, &mut pass_issued) {
                    Step::Submit(t, dir) => (t, dir),
                    Step::Again => continue,
                    Step::Over => break,
                }
            };
            self.submit_turn(t, issued_dir, polling, &mut pass_issued);
        }
        self.pass_ends();
    }

    /// A pass starts (fio's `clear_io_state` for a pass after the first):
    /// files from their start, generators re-seeded as randrepeat says,
    /// the pass's counts, think time and latency target from zero.
    fn pass_starts(&mut self, first: bool) {
        if !first {
            self.gen.reset();
            self.sync.new_pass();
            self.engine.new_loop();
            if let Some(r) = self.rate.as_mut() {
                r.reset();
            }
        }
        if let Some(z) = self.gen.zbd.as_mut() {
            z.pass_starts();
        }
        self.zbd_account();
        let now = self.now();
        if let Some(t) = self.think.as_mut() {
            t.reset(now);
        }
        self.count.pass_issued_ios = 0;
        self.count.pass_completed_ios = 0;
        if let Some(l) = self.hooks.latency.as_mut() {
            l.pass_starts(self.job.set.iodepth, now);
        }
    }

    /// Before issue: whether the flow hook holds the job back; it waited
    /// meanwhile, after its I/O in flight completed (fio's
    /// `flow_threshold_exceeded`).
    #[inline]
    pub(super) fn flow_held_back(&mut self) -> bool {
        let Some(sleep_ns) = self.hooks.flow.as_ref().and_then(Flow::before_issue) else {
            return false;
        };
        if sleep_ns > 0 {
            // fio's io_u_quiesce, then usleep(flow_sleep).
            self.drain();
        }
        Flow::wait(sleep_ns, &self.clock, self.stop);
        true
    }

    /// A pass ends: everything in flight completes and is counted (fio's
    /// `io_u_queued_complete(td, cur_depth)`), requeued remainders that
    /// never went out again are dropped, and the pass's syncs are issued.
    fn pass_ends(&mut self) {
        self.drain();
        self.units.drop_requeued();
        self.final_syncs();
    }

    /// The loop stops issuing: an error, a settled latency target, or a
    /// stop request.
    #[inline]
    fn should_stop(&self) -> bool {
        self.halt != Halt::Running || self.stop.requested()
    }

    /// The job's runtime is over at `now`, once it issued an I/O.
    #[inline]
    fn runtime_over(&self, now: u64) -> bool {
        self.count.issued_ios > 0 && self.time.runtime_over(now)
    }

    /// The pass has issued what it should, `pass_issued` bytes queued so
    /// far. Blocks left on the trim list keep the pass going past the
    /// job's bytes (fio's do_io loop condition).
    #[inline]
    fn pass_done(&self, pass_issued: u64) -> bool {
        let v = self.hooks.verify.as_ref();
        let verifies = v.is_some();
        if v.is_some_and(|v| v.trims_pending()) {
            self.budget.pass_bytes_done(pass_issued, verifies)
        } else {
            self.budget.pass_done(pass_issued, verifies, &self.count)
        }
    }

    /// A unit for this turn, drawn at `now` (a replayed log may move it
    /// on): a sync that is due, a `verify_backlog` read or `trim_backlog`
    /// trim, or the pattern's (or the replayed log's) next I/O. A backlog
    /// I/O queued here adds to `pass_issued`.
    #[inline]
    fn next_unit(&mut self, now: &mut u64, polling: bool, pass_issued: &mut u64) -> Step {
        if self.pass_done(*pass_issued) {
            return Step::Over;
        }
        if self.sync_due() {
            return Step::Again;
        }
        // A verify_backlog read or trim_backlog trim goes first; neither
        // counts as issued for the job's size (fio counts them in
        // `io_issue_bytes` of no direction the size reads).
        if self.hooks.verify.as_ref().is_some_and(|v| v.backlog_on()) {
            match self.backlog_turn(*now, polling) {
                Turn::Pattern => {}
                Turn::Issued(queued) => {
                    *pass_issued += queued;
                    return Step::Again;
                }
                Turn::Stop => return Step::Over,
            }
        }
        let next = if self.hooks.replay.is_some() {
            self.replay_next(now)
        } else {
            self.next_io(*now)
        };
        if self.hooks.iolog.is_some() {
            self.log_closed_files();
        }
        if let Some(f) = self.gen.select.take_broken_hit() {
            self.broken_picked(f, next.is_some());
        }
        let Some(next) = next else {
            if self.hooks.replay.is_none() && self.file_busy() {
                return Step::Again;
            }
            return Step::Over;
        };
        if self.gen.select.limit.is_some() {
            if !self.file_events() {
                return Step::Over;
            }
            if !self.file_open(next.file) {
                // Its open failed (a file-operation engine): draw again.
                return Step::Again;
            }
        }
        if self.hooks.verify.is_some() && self.pattern_io_stops(&next) {
            return Step::Over;
        }
        match self.issue(next, *now) {
            Some(t) => Step::Submit(t, Some(next.dir)),
            None => Step::Again,
        }
    }

    /// Draw: the pattern's next I/O at `now` (the generators' `next_io`),
    /// with the zbd hook's turn before (the writes filling their zone
    /// complete first) and after (resets counted, a failed placement).
    #[inline]
    fn next_io(&mut self, now: u64) -> Option<NextIo> {
        let Some(z) = self.gen.zbd.as_ref() else {
            return self.gen.next_io(self.rate.as_mut(), now);
        };
        if zbd::before_draw(z, self.units.in_flight()) {
            self.drain();
        }
        let next = self.gen.next_io(self.rate.as_mut(), now);
        self.zbd_account();
        next
    }

    /// The zones' resets since the last look are counted; a placement
    /// that failed the job fails it.
    pub(super) fn zbd_account(&mut self) {
        let Some(z) = self.gen.zbd.as_mut() else {
            return;
        };
        if let Err(f) = zbd::account(z, &mut self.ts.zone_resets, self.log) {
            self.fail(f);
        }
    }

    /// Draw, replaying: the log's next I/O at `now` (moved on past the
    /// waits on the way); its syncs are issued here. `None` when the pass
    /// is over.
    fn replay_next(&mut self, now: &mut u64) -> Option<NextIo> {
        let mut used = false;
        loop {
            if self.halt != Halt::Running {
                return None;
            }
            let issued = self.count.issued_bytes;
            let r = self.hooks.replay.as_mut()?;
            match r.next(&self.clock, self.stop, self.log, issued, &mut used, now) {
                Next::Io(io) => return Some(io),
                Next::Over => return None,
                Next::Sync(file, d) => {
                    if let Err(e) = self.sync_file(file, d, true) {
                        self.sync_failed(e, d, file);
                    }
                }
            }
        }
    }

    /// `write_iolog`: the files that ran out in the draw are closed.
    fn log_closed_files(&mut self) {
        let (Some(closed), Some(l)) = (self.gen.closed.as_mut(), self.hooks.iolog.as_mut()) else {
            return;
        };
        if !closed.is_empty() {
            l.files_closed(self.clock.now(), closed);
        }
    }

    /// Submit unit `t` (its bytes count toward the pass's when the engine
    /// queues it), then what follows each I/O: a failed open stops the
    /// job, the latency target checks, and a new read or write
    /// (`issued_dir`) may think.
    #[inline]
    fn submit_turn(
        &mut self,
        t: u32,
        issued_dir: Option<Ddir>,
        polling: bool,
        pass_issued: &mut u64,
    ) {
        let len = self.units.get(t).len;
        if self.submit(t, polling) {
            *pass_issued += len;
        }
        if self.open.failed {
            self.halt = Halt::Failed;
        }
        if self.hooks.latency.as_ref().is_some_and(|l| l.searching()) {
            self.latency_after_issue();
        }
        if let Some(dir) = issued_dir.filter(|d| *d != Ddir::Trim) {
            self.think_after(dir);
        }
    }

    /// Set a free unit up for `next`, the pattern's next I/O drawn at
    /// `now`, after the wait the rate asks for; `None` when no unit was
    /// free (the loop reaps whenever none is, so that cannot happen).
    #[inline]
    fn issue(&mut self, next: NextIo, mut now: u64) -> Option<u32> {
        if next.wrapped
            && self.job.set.invalidate
            && !self.job.spec.direct
            && self.caps.needs_files
            && !self.caps.file_op
        {
            // fio's loop_cache_invalidate: a time-based job that starts the
            // file over reads it from the device again.
            let _ = self.engine.invalidate(self.open.ids[next.file]);
        }
        if next.wait_ns > 0 {
            // The rate says wait: complete what is in flight, then sleep
            // (fio's io_u_quiesce + usec_sleep). Offloaded, the I/O in
            // flight goes on meanwhile (fio quiesces only inline).
            if self.offload.is_none() {
                self.drain();
            }
            // Never past the job's runtime: fio's wait ends with it, and
            // the I/O it delayed is not issued.
            let wait = match self.time.runtime_left_ns(self.now()) {
                Some(left) => next.wait_ns.min(left),
                None => next.wait_ns,
            };
            self.clock.sleep(wait, self.stop);
            now = self.now();
            if self.stop.requested() || self.runtime_over(now) {
                return None;
            }
        }
        let Some(t) = self.units.take() else {
            self.reap(1);
            return None;
        };
        let buf = self.units.buf(t);
        let (numberio, piece) = self.fill(buf, &next, now);
        let file = self.open.ids[next.file];
        let u = self.units.get_mut(t);
        u.io.file = file;
        u.io.dir = next.dir;
        u.io.offset = next.offset;
        u.io.len = next.len as usize;
        u.io.buf = buf;
        u.file = next.file;
        u.len = next.len;
        u.start_ns = now;
        u.offset0 = next.offset;
        u.numberio = numberio;
        u.ver_list = false;
        u.piece = piece;
        u.trimmed = false;
        self.count.issued_bytes += next.len;
        self.count.issued_ios += 1;
        if next.dir != Ddir::Trim {
            self.count.pass_issued_ios += 1;
        }
        self.sync.issued(next.dir, next.file, next.offset, next.len);
        Some(t)
    }

    /// Fill: the buffer `buf` of the unit that carries `next`, drawn at
    /// `now` (a write's data, with the verify hook's header); returns the
    /// write's `numberio` and the verify hook's piece key (0: none).
    #[inline]
    fn fill(&mut self, buf: *mut u8, next: &NextIo, now: u64) -> (u16, u64) {
        let v = self.hooks.verify.as_mut();
        if next.dir == Ddir::Read {
            if let Some(v) = v {
                v.on_read_issued();
            }
            return (0, 0);
        }
        if next.dir != Ddir::Write {
            return (0, 0);
        }
        let numberio = self.count.next_numberio();
        let piece = v.map_or(0, |v| {
            v.on_write_issued(next.file, next.offset, next.len, numberio)
        });
        if !self.caps.fake_io {
            // SAFETY: the unit is free, so nobody else uses its buffer,
            // which holds `unit >= len` bytes.
            let b = unsafe { std::slice::from_raw_parts_mut(buf, next.len as usize) };
            let start = (now / 1_000_000_000, now % 1_000_000_000);
            let v = self.hooks.verify.as_mut();
            self.filler
                .prepare_write(b, next.offset, start, v.is_some());
            if let Some(v) = v {
                v.verifier
                    .populate(b, next.offset, u64::from(numberio), start);
            }
        }
        (numberio, piece)
    }

    /// After issue, with a latency target: the quiesce the search asked
    /// for, then its verdict at the end of a window (fio's
    /// `lat_target_check`, outside the ramp).
    fn latency_after_issue(&mut self) {
        if self
            .hooks
            .latency
            .as_mut()
            .is_some_and(|l| l.take_quiesce())
        {
            self.drain();
        }
        if !self.time.recording() {
            return;
        }
        let now = self.now();
        let Some(l) = self.hooks.latency.as_mut() else {
            return;
        };
        match l.after_issue(now) {
            LatStep::Continue | LatStep::Fatal => {}
            LatStep::Quiesce => self.drain(),
            LatStep::FinalRun => {
                // Complete what is in flight, then the statistics start
                // again for the final window (fio's reset_all_stats).
                self.drain();
                let now = self.now();
                self.ts.restart();
                self.time.restart(now);
                self.publish_deadline(now);
                self.progress.mark_epoch();
            }
            LatStep::Done => self.halt = Halt::Done,
        }
    }

    /// A full report was asked for (`--status-interval`): hand over the
    /// statistics so far.
    #[cold]
    pub(super) fn serve_snapshot(&self, now: u64) {
        self.progress
            .serve_snapshot(self.ts, self.time.elapsed_us_at(now));
    }

    /// fio's `handle_thinktime` after a read or write.
    fn think_after(&mut self, dir: Ddir) {
        // fio 3.37's thinkcycles first: its `nop` is x86's `rep; nop`
        // (pause), as spin_loop is.
        for _ in 0..self.job.spec.think.cycles {
            std::hint::spin_loop();
        }
        if self.think.is_none() {
            return;
        }
        // The loop's next turn reads the clock again: the think time may
        // pause here.
        self.just_done_ns = None;
        let now = self.now();
        let Some(think) = self.think.as_mut() else {
            return;
        };
        let Some(pause) = think.check(
            self.count.pass_issued_ios,
            self.count.pass_completed_ios,
            now,
        ) else {
            return;
        };
        self.drain();
        let t0 = self.now();
        self.clock.spin(pause.spin(self.time.runtime_left_us(t0)));
        let spun_at = self.now();
        let spun = spun_at.saturating_sub(t0) / 1000;
        let sleep = pause.sleep(spun, self.time.runtime_left_us(spun_at));
        self.clock.pause(sleep, self.stop);
        let now = self.now();
        let total = now.saturating_sub(t0) / 1000;
        if let Some(t) = self.think.as_mut() {
            t.done(now);
        }
        if let Some(r) = self.rate.as_mut() {
            r.after_think(dir, total);
        }
    }
}
