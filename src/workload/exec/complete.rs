//! One completion (fio's `io_completed`): an error or a short transfer
//! first, then the accounting (bytes, the ramp, latencies), and the
//! hooks' turns in fio's order: the zones close a filled zone, the verify
//! hook counts and checks, the latency hook and act judge the latency.

use super::super::clock::Clock;
use super::hooks::replay::Replayer;
use super::hooks::zbd;
use super::units::Unit;
use super::Exec;
use crate::ddir::Ddir;
use crate::ioengine::IoResult;
use crate::stats::{Completion, Timing};

impl<C: Clock> Exec<'_, '_, C> {
    /// One I/O finished at `now` with `r`.
    #[inline]
    pub(super) fn complete(&mut self, t: u32, r: IoResult, now: u64) {
        if self.hooks.replay.as_ref().is_some_and(Replayer::lost) {
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
            if let Some(z) = self.gen.zbd.as_mut() {
                if r.is_err() && self.caps.is_sync && u.io.dir == Ddir::Write {
                    zbd::on_failed_sync_write(z, &u, self.log);
                } else {
                    zbd::on_complete(z, &u);
                }
            }
            // Not queued again for a remainder: the file may close.
            self.file_io_done(u.file);
        }
        match r {
            Ok(n) if n >= u.io.len => {}
            // Nothing moved (a read past the end): fio's "full resid".
            Ok(0) => return self.io_failed(t, &u, libc::EIO),
            Ok(n) => return self.short(t, n),
            Err(e) => return self.io_failed(t, &u, e),
        }
        if crate::debug::on(crate::debug::Cat::Io) {
            self.trace_io("complete", t);
        }
        self.units.give_back(t);
        self.count.done_bytes += u.len;
        self.progress.io_done(u.io.dir.index(), u.len);
        let verifying = self
            .hooks
            .verify
            .as_mut()
            .is_some_and(|v| v.on_complete(&u));
        if !verifying {
            self.count.pass_done[u.io.dir.index()] += u.len;
        }
        if u.io.dir != Ddir::Trim {
            self.count.pass_completed_ios += 1;
        }
        // The completion that ends the ramp is not counted: fio's
        // should_account() resets the statistics after this I/O added its
        // bytes, and the job is still ramping then.
        let counted_from = match self.check_ramp(now) {
            true => None,
            false => self.time.stats_from(),
        };
        if !self.time.recording() {
            let r = &mut self.count.ramp_io[u.io.dir.index().min(2)];
            *r = (r.0 + u.len, r.1 + 1);
            if let Some(group) = self.progress.ramp_group() {
                group.fetch_add(u.len, std::sync::atomic::Ordering::Relaxed);
            }
        }
        if let Some(from) = counted_from {
            self.account(t, &u, now, from);
        }
        if u.io.dir == Ddir::Read && self.hooks.verify.is_some() {
            self.check_read(t);
        }
    }

    /// Unit `t`, `u`, failed with `errno`.
    #[cold]
    fn io_failed(&mut self, t: u32, u: &Unit, errno: i32) {
        self.units.give_back(t);
        if let Some(v) = self.hooks.verify.as_mut() {
            v.on_failed(u);
        }
        self.io_error(errno, u.io.dir, u.file, u.io.offset, u.io.len);
    }

    /// Unit `t` moved only `n` bytes: the rest is queued again, as fio
    /// requeues the resid.
    #[cold]
    fn short(&mut self, t: u32, n: usize) {
        let u = self.units.get(t);
        if self.time.recording() {
            self.ts.io_short(u.io.dir.index());
        }
        let io = &mut self.units.get_mut(t).io;
        io.offset += n as u64;
        io.len -= n;
        io.buf = io.buf.wrapping_add(n);
        self.units.requeue(t);
    }

    /// Completed unit `t`, `u`, counts in the statistics (which started
    /// at `from`): its latencies (a file operation's time), then the
    /// latency and act hooks judge its total latency.
    #[inline]
    fn account(&mut self, t: u32, u: &Unit, now: u64, from: u64) {
        if self.caps.file_op {
            // The file operation's time, once per open.
            let open_ns = self.open.take_open_ns(u.file);
            self.ts.complete(&Completion {
                dir: u.io.dir,
                bytes: u.len,
                at_ns: now.saturating_sub(from),
                timing: Timing::FileOp { open_ns },
                ..Completion::default()
            });
            return;
        }
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
        let lat = now.saturating_sub(u.start_ns);
        let job = self.job;
        if let Some(l) = self.hooks.latency.as_mut() {
            if let Err(f) = l.on_complete(u, lat, now, &job.files[u.file].path) {
                self.fail(f);
            }
        }
        if let Some(a) = self.hooks.act.as_mut() {
            if let Err(f) = a.on_complete(lat, now) {
                self.fail(f);
            }
        }
    }

    /// Unit `t` completed after its replay ran out: fio counts it as
    /// issued, nothing more.
    #[cold]
    fn lose(&mut self, t: u32) {
        let dir = self.units.get(t).io.dir;
        self.units.give_back(t);
        if dir.is_data() && self.time.recording() {
            self.ts.io_failed(dir.index());
        }
    }
}
