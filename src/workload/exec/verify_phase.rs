//! The verify phase after a writing pass (fio's `do_verify`): every
//! logged write read back and checked, in the log's order; or, with
//! `experimental_verify`, the pattern replayed from its start, each write
//! (and trim) it makes again read back instead. And `verify_only`'s dry
//! run of a writing job (fio's `do_dry_run`).

use super::super::clock::Clock;
use super::readback::Readback;
use super::{Exec, Halt};
use crate::ddir::Ddir;
use crate::debug::{dprint, Cat};
use crate::stats::{Completion, NO_SLAT};
use crate::workload::verify::Piece;

impl<C: Clock> Exec<'_, '_, C> {
    /// The verify phase after a pass.
    pub(super) fn verify_phase(&mut self) {
        let polling = self.job.set.batch_complete_min == 0 && self.job.set.batch_complete_max == 0;
        // What the pass wrote and trimmed (fio's `verify_bytes`).
        let written =
            self.verify.pass_done[Ddir::Write.index()] + self.verify.pass_done[Ddir::Trim.index()];
        self.verify.start();
        // fio re-seeds the verify generator here even without randrepeat.
        if let Some(v) = self.verify.verifier() {
            v.reseed();
        }
        self.verify.set_verifying(true);
        dprint!(Cat::Verify, "starting loop\n");
        let exp = self.verify.exp;
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
            let t = if let Some(t) = self.units.take_requeued() {
                t
            } else {
                if exp && self.verify.bytes_verified + self.verify_min_bs() > written {
                    break;
                }
                let Some(t) = self.units.take() else {
                    self.reap(1);
                    continue;
                };
                let piece = if exp {
                    self.replayed_piece()
                } else {
                    self.verify.next_piece()
                };
                let Some(piece) = piece else {
                    self.units.give_back(t);
                    break;
                };
                if self.state_stops(piece.file as usize, piece.offset) {
                    self.units.give_back(t);
                    break;
                }
                self.setup_verify_read(t, piece, now);
                t
            };
            self.submit(t, polling);
        }
        self.drain();
        self.units.drop_requeued();
        self.verify.set_verifying(false);
        dprint!(Cat::Verify, "exiting loop\n");
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
                    piece.numberio = self.verify.verify_read_issues as u16;
                    self.verify.verify_read_issues += 1;
                    self.verify.write_issues += 1;
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
        self.verify.set_verifying(false);
        // Nothing is queued to the engine, so (as in fio) the pass has no
        // limit of its own: it ends when the files are done or the job's
        // bytes are issued.
        while self.halt == Halt::Running && !self.stop.requested() {
            if self.budget.job_done(&self.count) && !self.verify.trims_pending() {
                break;
            }
            // fio's get_io_u hands out backlog reads and trims here too;
            // they complete at once, unchecked.
            if self.verify.backlog_on() {
                let backlog = match self.verify.check_get_verify() {
                    Some(p) => Some((Ddir::Read, p)),
                    None => self.verify.check_get_trim().map(|p| (Ddir::Trim, p)),
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
                let numberio = self.verify.next_numberio();
                if let Some(v) = self.verify.verifier() {
                    v.skip_write();
                }
                let piece = self
                    .verify
                    .log_write(next.file, next.offset, next.len, numberio);
                dry_landed(&mut self.verify, next.file, next.offset, piece);
                if let Some(c) = self.verify.comps.as_mut() {
                    c.record(next.file, next.offset);
                }
            }
        }
    }
}

impl<C: Clock> Exec<'_, '_, C> {
    /// fio completes each dry I/O at once, so it counts as done.
    fn dry_complete(&mut self, dir: Ddir, offset: u64, len: u64) {
        let now = self.now();
        self.check_ramp(now);
        self.count.done_bytes += len;
        self.verify.dry_done(dir, len);
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

/// A dry write is done as soon as it is logged.
fn dry_landed(r: &mut Readback, file: usize, offset: u64, piece: u64) {
    if piece > 0 {
        r.hist.landed(crate::workload::verify::Key {
            file: file as u32,
            offset,
            seq: piece - 1,
        });
    }
}
