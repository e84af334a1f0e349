//! The verify driver of the loop (fio's `verify.c` as `do_io` and
//! `do_verify` use it): which completed writes are logged to be read back,
//! `verify_backlog` reads among the writes, the verify phase after a
//! writing pass, `verify_only`'s dry run, the check of each read, and the
//! state file at the end. What a write carries and how a read is checked
//! is [`Verifier`]'s.

use super::super::clock::Clock;
use super::super::job::Prepared;
use super::super::verify::{
    state_file, History, Piece, ReadBack, Verifier, F_IN_CUR_DEPTH, F_VER_LIST,
};
use super::units::Unit;
use super::{Exec, Halt};
use crate::ddir::Ddir;
use crate::debug::{dprint, Cat};
use crate::rand::Generator;
use crate::stats::{Completion, NO_SLAT};

/// What the loop keeps to read back and check what it wrote.
pub(super) struct Readback {
    /// `verify`: what writes carry and how reads are checked.
    verifier: Option<Verifier>,
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
    last_dir: Option<Ddir>,
    /// Verify reads left in the current `verify_backlog` batch.
    batch: u64,
    /// The last completed write offsets, a ring of `iodepth` (fio's
    /// `last_write_comp`, for the verify state file), and its next slot.
    write_comps: Box<[u64]>,
    write_comp_idx: usize,
}

impl Readback {
    /// The driver of `job` on an engine that `is_sync`, with `depth` units.
    pub(super) fn new(job: &Prepared<'_>, is_sync: bool, depth: usize) -> Readback {
        let spec = job.spec;
        let p = spec.pattern;
        let verifier = Verifier::new(spec);
        // fio logs a written block when the job writes and reads back
        // (`do_verify`); a time-based job on a synchronous engine never
        // reaches its verify phase (its pass counts no bytes), so only
        // `verify_backlog` reads its blocks.
        let log_pieces = verifier.as_ref().is_some_and(|v| {
            v.do_verify && p.write && (!spec.time_based || v.backlog > 0 || !is_sync)
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
        let state_save = verifier.as_ref().is_some_and(|v| v.state_save) && p.write;
        Readback {
            check_reads: verifier.is_some() && !p.write,
            verifier,
            hist: History::new(!randommap, capacity),
            log_pieces,
            write_issues: 0,
            last_dir: None,
            batch: 0,
            write_comps: vec![0; if state_save { depth.max(1) } else { 0 }].into_boxed_slice(),
            write_comp_idx: 0,
        }
    }

    /// Whether the job verifies at all.
    #[inline]
    pub(super) fn on(&self) -> bool {
        self.verifier.is_some()
    }

    /// The verifier, for a write to fill.
    #[inline]
    pub(super) fn verifier(&mut self) -> Option<&mut Verifier> {
        self.verifier.as_mut()
    }

    /// `verify_fatal`.
    pub(super) fn fatal(&self) -> bool {
        self.verifier.as_ref().is_some_and(|v| v.fatal)
    }

    /// `verify_only`.
    pub(super) fn only(&self) -> bool {
        self.verifier.as_ref().is_some_and(|v| v.only)
    }

    /// Whether a time-based writing job's verify reads would never come
    /// (no backlog, and the writes use all of the runtime).
    pub(super) fn phase_only(&self) -> bool {
        self.verifier
            .as_ref()
            .is_some_and(|v| v.do_verify && v.backlog == 0 && !v.only)
    }

    /// Whether completed writes are logged to be read back (a pass is
    /// followed by the verify phase).
    #[inline]
    pub(super) fn logs_writes(&self) -> bool {
        self.log_pieces
    }

    /// A pass (or the verify phase) starts: fio's `clear_io_state`
    /// re-seeds the verify generator with `randrepeat`.
    pub(super) fn start(&mut self) {
        if let Some(v) = self.verifier.as_mut() {
            v.reset();
        }
    }

    /// A pass is over: what it did not read back is forgotten.
    pub(super) fn forget(&mut self) {
        self.hist.clear();
    }

    /// A new write is issued: its `numberio`.
    #[inline]
    pub(super) fn next_numberio(&mut self) -> u16 {
        let n = self.write_issues as u16;
        self.write_issues += 1;
        n
    }

    /// A new read of the job's pattern is issued: a job that checks its
    /// reads draws the read's seed.
    #[inline]
    pub(super) fn read_issued(&mut self) {
        if self.check_reads {
            if let Some(v) = self.verifier.as_mut() {
                v.draw_read_seed();
            }
        }
    }

    /// The logged write to read back next, if any.
    pub(super) fn next_piece(&mut self) -> Option<Piece> {
        self.hist.pop()
    }

    /// fio's `check_get_verify`: whether the next I/O reads back a logged
    /// write (`verify_backlog`, `verify_backlog_batch`).
    #[inline]
    pub(super) fn backlog_due(&mut self) -> bool {
        let Some(v) = self.verifier.as_ref() else {
            return false;
        };
        if v.backlog == 0 || self.hist.is_empty() {
            return false;
        }
        if self.batch > 0 {
            self.batch -= 1;
            return true;
        }
        if self.hist.len() as u64 % v.backlog == 0 && self.last_dir != Some(Ddir::Read) {
            self.batch = if v.backlog_batch > 0 {
                v.backlog_batch
            } else {
                v.backlog
            };
            return true;
        }
        false
    }

    /// Unit `u`, a read or write, completed whole: a write is logged to be
    /// read back and remembered for the state file.
    #[inline]
    pub(super) fn completed(&mut self, u: &Unit) {
        self.last_dir = Some(u.io.dir);
        if u.io.dir == Ddir::Write {
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
    }

    /// The last completed write offsets, newest first (at most `iodepth`),
    /// for the state file; `None` when the job saves no state.
    fn last_writes(&self) -> Option<Vec<(u64, u64)>> {
        if self.write_comps.is_empty() {
            return None;
        }
        let depth = self.write_comps.len();
        let n = (self.write_issues as usize).min(depth);
        let mut comps = Vec::with_capacity(n);
        let mut j = self.write_comp_idx;
        for _ in 0..n {
            j = if j == 0 { depth - 1 } else { j - 1 };
            comps.push((0u64, self.write_comps[j]));
        }
        Some(comps)
    }
}

impl<C: Clock> Exec<'_, '_, C> {
    /// Set unit `t` up to read back `piece` (fio's `get_next_verify`).
    pub(super) fn setup_verify_read(&mut self, t: u32, piece: Piece, now: u64) {
        if let Some(v) = self.verify.verifier() {
            v.draw_read_seed();
        }
        let buf = self.units.buf(t);
        let fi = piece.file as usize;
        let file = self.ids[fi];
        let u = self.units.get_mut(t);
        u.io.file = file;
        u.io.dir = Ddir::Read;
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
    pub(super) fn verify_phase(&mut self) {
        let polling = self.job.set.batch_complete_min == 0 && self.job.set.batch_complete_max == 0;
        self.verify.start();
        dprint!(Cat::Verify, "starting loop\n");
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
            let t = if let Some(t) = self.units.take_requeued() {
                t
            } else {
                let Some(t) = self.units.take() else {
                    self.reap(1);
                    continue;
                };
                let Some(piece) = self.verify.next_piece() else {
                    self.units.give_back(t);
                    break;
                };
                self.setup_verify_read(t, piece, now);
                t
            };
            self.submit(t, polling);
        }
        self.drain();
        self.units.drop_requeued();
        dprint!(Cat::Verify, "exiting loop\n");
    }

    /// `verify_only` for a writing job (fio's `do_dry_run`): the pass's
    /// writes are generated, numbered and logged but not issued, so the
    /// verify phase reads back what an earlier run wrote.
    pub(super) fn dry_run(&mut self, first: bool) {
        if !first {
            self.gen.reset();
        }
        // Nothing is queued to the engine, so (as in fio) the pass has no
        // limit of its own: it ends when the files are done or the job's
        // bytes are issued.
        while self.halt == Halt::Running && !self.stop.requested() {
            if self.budget.job_done(&self.count) {
                break;
            }
            let Some(next) = self.gen.next_io(None, 0) else {
                break;
            };
            self.count.issued_bytes += next.len;
            self.count.issued_ios += 1;
            // fio completes each dry I/O at once, so it counts as done.
            let now = self.now();
            self.check_ramp(now);
            self.count.done_bytes += next.len;
            if let Some(from) = self.time.stats_from() {
                self.ts.io_submitted(1);
                self.ts.complete(&Completion {
                    dir: next.dir,
                    bytes: next.len,
                    slat_ns: NO_SLAT,
                    clat_ns: 0,
                    at_ns: now.saturating_sub(from),
                    offset: next.offset,
                    ..Completion::default()
                });
            }
            if next.dir == Ddir::Write {
                let numberio = self.verify.next_numberio();
                if let Some(v) = self.verify.verifier() {
                    v.skip_write();
                }
                if self.verify.log_pieces {
                    self.verify.hist.log(Piece {
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
    pub(super) fn check_read(&mut self, t: u32) -> i32 {
        let u = *self.units.get(t);
        let check_reads = self.verify.check_reads;
        let Some(v) = self.verify.verifier.as_mut() else {
            return 0;
        };
        if self.caps.fake_io || !(u.ver_list || check_reads) {
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
        let b = unsafe { std::slice::from_raw_parts_mut(self.units.buf(t), u.len as usize) };
        let err = v.check(b, &rb, self.log);
        dprint!(
            Cat::Verify,
            "verify io_u {t}: off=0x{:x},len=0x{:x},file={name}: {}\n",
            u.offset0,
            u.len,
            if err == 0 { "ok" } else { "bad" }
        );
        err
    }

    /// fio's verify state file at the end of a writing job with verify
    /// (`verify_state_save`, on by default).
    pub(super) fn save_verify_state(&mut self) {
        let Some(comps) = self.verify.last_writes() else {
            return;
        };
        let spec = self.job.spec;
        let (name, data) = state_file(
            &spec.name,
            spec.thread_number.saturating_sub(1),
            self.verify.write_comps.len() as u32,
            self.job.files.len() as u32,
            self.verify.write_issues,
            &comps,
        );
        if let Err(e) = std::fs::write(&name, data) {
            self.log.err(&format!(
                "fio: open state file: {e}\nfio: state file: {name} (for_write=1)\n"
            ));
        }
    }
}
