//! The verify phase after a writing pass (fio's `do_verify`): every
//! logged write read back and checked, in the log's order; or, with
//! `experimental_verify`, the pattern replayed from its start, each write
//! (and trim) it makes again read back instead. And `verify_only`'s dry
//! run of a writing job (fio's `do_dry_run`).

use super::super::clock::Clock;
use super::hooks::verify::Verify;
use super::{Exec, Halt};
use crate::ddir::Ddir;
use crate::debug::{dprint, Cat};
use crate::stats::{Completion, NO_SLAT};
use crate::workload::verify::Piece;

impl<C: Clock> Exec<'_, '_, C> {
    /// Pass end: the writes are over, the verify phase follows. fio
    /// closes the files first (the iolog hook logs it), and reaps again
    /// whatever happened as a replay ended.
    pub(super) fn before_verify_phase(&mut self) {
        if let Some(l) = self.hooks.iolog.as_mut() {
            l.pass_ends(self.clock.now());
        }
        if let Some(r) = self.hooks.replay.as_mut() {
            r.before_verify();
        }
    }

    /// The verify phase after a pass.
    pub(super) fn verify_phase(&mut self) {
        let polling = self.job.set.batch_complete_min == 0 && self.job.set.batch_complete_max == 0;
        // What the pass wrote and trimmed (fio's `verify_bytes`).
        let done = self.count.pass_done;
        let written = done[Ddir::Write.index()] + done[Ddir::Trim.index()];
        self.count.pass_done = [0; 3];
        let Some(v) = self.hooks.verify.as_mut() else {
            return;
        };
        v.pass_starts();
        // fio re-seeds the verify generator here even without randrepeat.
        v.verifier.reseed();
        v.set_verifying(true);
        dprint!(Cat::Verify, "starting loop\n");
        let exp = v.exp;
        if exp {
            // fio's clear_io_state: the pattern starts over.
            self.gen.reset();
        }
        while self.halt == Halt::Running {
            if self.stop.requested() {
                break;
            }
            let now = self.now();
            self.check_ramp(now);
            if self.time.runtime_over(now) {
                break;
            }
            if self.progress.snapshot_due() {
                self.serve_snapshot(now);
            }
            if self.flow_held_back() {
                continue;
            }
            let t = match self.units.take_requeued() {
                Some(t) => t,
                None => match self.next_verify_read(exp, written, now) {
                    Some(Some(t)) => t,
                    Some(None) => continue,
                    None => break,
                },
            };
            self.submit(t, polling);
        }
        self.drain();
        self.units.drop_requeued();
        if let Some(v) = self.hooks.verify.as_mut() {
            v.set_verifying(false);
        }
        dprint!(Cat::Verify, "exiting loop\n");
    }

    /// The verify phase's next read back at `now`, set up on a unit:
    /// `Some(None)` when no unit was free (one completion was reaped),
    /// `None` when the phase is over (the log, or what the pass
    /// `written`, is read back; or a loaded state stops it).
    fn next_verify_read(&mut self, exp: bool, written: u64, now: u64) -> Option<Option<u32>> {
        let verified = self.hooks.verify.as_ref().map_or(0, |v| v.bytes_verified);
        if exp && verified + self.verify_min_bs() > written {
            return None;
        }
        let Some(t) = self.units.take() else {
            self.reap(1);
            return Some(None);
        };
        let piece = if exp {
            self.replayed_piece()
        } else {
            self.hooks.verify.as_mut().and_then(Verify::next_piece)
        };
        let Some(piece) = piece else {
            self.units.give_back(t);
            return None;
        };
        if self.state_stops(
            piece.file as usize,
            piece.offset,
            Some(u64::from(piece.numberio)),
        ) {
            self.units.give_back(t);
            return None;
        }
        self.setup_verify_read(t, piece, now);
        Some(Some(t))
    }

    /// fio's `rw_min_bs`.
    fn verify_min_bs(&self) -> u64 {
        self.job.spec.verify.as_ref().map_or(1, |v| v.rw_min_bs)
    }

    /// The experimental verify phase's next read: the pattern's next write
    /// or trim, made again (its reads are skipped, counted for the mix as
    /// fio counts them). A write becomes a read of the `verify_read_issues`th
    /// numbered block, its seed drawn as its write drew it; fio counts it
    /// as an issued write (the job's `numberio` moves on).
    fn replayed_piece(&mut self) -> Option<Piece> {
        let now = self.now();
        loop {
            let next = self.gen.next_io(None, now)?;
            // Not issued: with openfiles, the file need not stay open.
            self.file_io_done(next.file);
            let mut piece = Piece::new(next.file as u32, next.offset, next.len as u32, 0, 0);
            piece.in_flight = false;
            match next.dir {
                Ddir::Write => {
                    let v = self.hooks.verify.as_mut()?;
                    piece.numberio = v.verify_read_issues as u16;
                    v.verify_read_issues += 1;
                    self.count.write_issues += 1;
                }
                Ddir::Trim => piece.trimmed = true,
                _ => continue,
            }
            self.count.issued_bytes += next.len;
            self.count.issued_ios += 1;
            return Some(piece);
        }
    }

    /// `verify_only` for a writing job (fio's `do_dry_run`): the pass's
    /// writes are generated, numbered and logged but not issued, so the
    /// verify phase reads back what an earlier run wrote.
    pub(super) fn dry_run(&mut self, first: bool) {
        if !first {
            self.gen.reset();
        }
        let Some(v) = self.hooks.verify.as_mut() else {
            return;
        };
        v.set_verifying(false);
        // Nothing is queued to the engine, so (as in fio) the pass has no
        // limit of its own: it ends when the files are done or the job's
        // bytes are issued.
        while self.halt == Halt::Running && !self.stop.requested() {
            let Some(v) = self.hooks.verify.as_mut() else {
                return;
            };
            if self.budget.job_done(&self.count) && !v.trims_pending() {
                break;
            }
            // fio's get_io_u hands out backlog reads and trims here too;
            // they complete at once, unchecked.
            if v.backlog_on() {
                let backlog = match v.check_get_verify() {
                    Some(p) => Some((Ddir::Read, p)),
                    None => v.check_get_trim().map(|p| (Ddir::Trim, p)),
                };
                if let Some((dir, p)) = backlog {
                    self.count.issued_ios += 1;
                    self.dry_complete(dir, p.offset, u64::from(p.len));
                    continue;
                }
            }
            let Some(next) = self.gen.next_io(None, 0) else {
                break;
            };
            self.file_io_done(next.file);
            self.count.issued_bytes += next.len;
            self.count.issued_ios += 1;
            self.dry_complete(next.dir, next.offset, next.len);
            if next.dir == Ddir::Write {
                let numberio = self.count.next_numberio();
                if let Some(v) = self.hooks.verify.as_mut() {
                    v.on_dry_write(next.file, next.offset, next.len, numberio);
                }
            }
        }
    }

    /// fio completes each dry I/O at once, so it counts as done.
    fn dry_complete(&mut self, dir: Ddir, offset: u64, len: u64) {
        let now = self.now();
        self.check_ramp(now);
        self.count.done_bytes += len;
        self.count.pass_done[dir.index()] += len;
        if let Some(v) = self.hooks.verify.as_mut() {
            v.on_dry_complete(dir);
        }
        if let Some(from) = self.time.stats_from() {
            self.ts.io_submitted(1);
            self.ts.complete(&Completion {
                dir,
                bytes: len,
                slat_ns: NO_SLAT,
                clat_ns: 0,
                at_ns: now.saturating_sub(from),
                offset,
                ..Completion::default()
            });
        }
    }
}
