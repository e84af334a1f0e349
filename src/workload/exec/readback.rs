//! The verify driver of the loop (fio's `verify.c` and `trim.c` as
//! `do_io` and `get_io_u` use them): which writes are logged to be read
//! back (as they are issued), `verify_backlog` reads and `trim_backlog`
//! trims among the writes, the check of each read, fio's verifying state
//! and what it counts, `verify_state_load`'s stop, and the state file at
//! the end. The verify phase after a pass is in `verify_phase.rs`; what a
//! write carries and how a read is checked is [`Verifier`]'s.

use super::super::clock::Clock;
use super::super::job::Prepared;
use super::super::offsets::Io as NextIo;
use super::super::verify::{
    save_state, History, Key, Piece, ReadBack, TrimPicker, Verifier, WriteComps, F_IN_CUR_DEPTH,
    F_VER_LIST,
};
use super::units::Unit;
use super::Exec;
use crate::ddir::Ddir;
use crate::debug::{dprint, Cat};
use crate::rand::Generator;

/// What the loop keeps to read back and check what it wrote.
pub(super) struct Readback {
    /// `verify`: what writes carry and how reads are checked.
    pub(super) verifier: Option<Verifier>,
    /// The logged writes still to read back (fio's io pieces), and the
    /// trim list.
    pub(super) hist: History,
    /// Whether writes are logged for reading back.
    pub(super) log_pieces: bool,
    /// Whether a verify phase follows each pass.
    phase: bool,
    /// `experimental_verify`: the verify phase replays the pattern.
    pub(super) exp: bool,
    /// Whether reads of the job's own pattern are checked as they complete
    /// (a job that does not also write: fio's `!td_rw`).
    pub(super) check_reads: bool,
    /// Writes issued (fio's `io_issues[DDIR_WRITE]`, the next `numberio`).
    pub(super) write_issues: u64,
    /// Writes logged so far: the next piece's `seq`.
    logged: u64,
    /// Direction of the last completed read, write or trim (fio's
    /// `last_ddir`: a read before anything completed, as fio's zeroed
    /// thread data says).
    last_dir: Ddir,
    /// `verify_backlog` and its batch left (fio's `verify_batch`).
    backlog: u64,
    backlog_batch: u64,
    batch: u64,
    /// `trim_backlog` (0: off), its batch option and the batch left (fio's
    /// `trim_batch`), and who goes on the trim list.
    trim_backlog: u64,
    trim_batch_opt: u64,
    trim_batch: u64,
    trim_zero: bool,
    trims: Option<TrimPicker>,
    /// The last completed write offsets per file (the state file's).
    pub(super) comps: Option<WriteComps>,
    /// fio's `TD_VERIFYING` runstate: set by the last I/O submitted (or
    /// the verify phase). What completes meanwhile counts as verified.
    verifying: bool,
    /// Bytes read while verifying, over the whole job (fio's
    /// `bytes_verified`, never reset between passes).
    pub(super) bytes_verified: u64,
    /// Bytes completed in this pass while not verifying, per direction
    /// (fio's `bytes_done` of one `do_io`).
    pub(super) pass_done: [u64; 3],
    /// Reads completed, all of them (fio's `io_blocks[DDIR_READ]`).
    pub(super) reads_done: u64,
    /// The experimental verify phase's reads so far (fio's
    /// `verify_read_issues`, the `numberio` each must find).
    pub(super) verify_read_issues: u64,
}

impl Readback {
    /// The driver of `job` on an engine that `is_sync`.
    pub(super) fn new(job: &Prepared<'_>, is_sync: bool) -> Readback {
        let spec = job.spec;
        let p = job.pattern();
        let verifier = Verifier::new(spec);
        let o = spec.verify.as_ref();
        let exp = o.is_some_and(|v| v.experimental);
        let trim = o.map(|v| v.trim).unwrap_or_default();
        let trimming = trim.percentage > 0 && trim.backlog > 0;
        // fio logs a written block when the job writes and reads back
        // (`do_verify`), unless its verify is experimental. A time-based
        // job on a synchronous engine never reaches its verify phase (its
        // pass counts no bytes): only `verify_backlog` reads its blocks,
        // and `trim_backlog` trims them.
        let reaches_phase = !spec.time_based || !is_sync;
        let log_pieces = o.is_some_and(|v| {
            v.do_verify && p.write && !exp && (reaches_phase || v.backlog > 0 || trimming)
        });
        let phase = o.is_some_and(|v| {
            v.do_verify && reaches_phase && if exp { p.writes() } else { p.write }
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
        let trims = TrimPicker::new(spec).filter(|_| log_pieces);
        let trim_capacity = if trims.is_some() {
            capacity * trim.percentage as usize / 100 + 1
        } else {
            0
        };
        let state_save = verifier.as_ref().is_some_and(|v| v.state_save) && p.write;
        let comps =
            state_save.then(|| WriteComps::new(spec.iodepth.max(1) as usize, job.files.len()));
        Readback {
            check_reads: verifier.is_some() && !(p.read && p.write),
            backlog: verifier.as_ref().map_or(0, |v| v.backlog),
            backlog_batch: verifier.as_ref().map_or(0, |v| v.backlog_batch),
            verifier,
            hist: History::new(!randommap, capacity, trim_capacity),
            log_pieces,
            phase,
            exp,
            write_issues: 0,
            logged: 0,
            last_dir: Ddir::Read,
            batch: 0,
            trim_backlog: if trims.is_some() { trim.backlog } else { 0 },
            trim_batch_opt: trim.batch,
            trim_batch: 0,
            trim_zero: trim.zero,
            trims,
            comps,
            verifying: false,
            bytes_verified: 0,
            pass_done: [0; 3],
            reads_done: 0,
            verify_read_issues: 0,
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

    /// Whether a time-based job that only writes would never get to its
    /// verify reads (no backlog: the writes use all of the runtime; fio
    /// warns whatever else the job sets).
    pub(super) fn phase_only(&self) -> bool {
        self.verifier
            .as_ref()
            .is_some_and(|v| v.do_verify && v.backlog == 0)
    }

    /// Whether a verify phase follows each pass (fio's `do_verify` after
    /// `do_io`).
    #[inline]
    pub(super) fn logs_writes(&self) -> bool {
        self.phase
    }

    /// A pass (or the verify phase) starts: fio's `clear_io_state`
    /// re-seeds the verify and trim generators with `randrepeat`, and the
    /// pass's bytes count from 0.
    pub(super) fn start(&mut self) {
        if let Some(v) = self.verifier.as_mut() {
            v.reset();
        }
        if let Some(t) = self.trims.as_mut() {
            t.reset();
        }
        self.pass_done = [0; 3];
    }

    /// A pass is over: what it did not read back is forgotten (fio's
    /// `prune_io_piece_log`).
    pub(super) fn forget(&mut self) {
        self.hist.clear();
    }

    /// fio's runstate for what is submitted next: verifying or not.
    #[inline]
    pub(super) fn set_verifying(&mut self, on: bool) {
        self.verifying = on;
    }

    /// Whether the pass must go on while the trim list holds blocks
    /// (fio's `do_io` runs while `trim_list` is not empty, trimming or
    /// not: a pass then ends only when its pattern does).
    #[inline]
    pub(super) fn trims_pending(&self) -> bool {
        self.hist.trim_entries() > 0
    }

    /// Bytes the pass completed while not verifying (fio's `bytes_done`
    /// of one `do_io`).
    pub(super) fn pass_bytes(&self) -> u64 {
        self.pass_done.iter().sum()
    }

    /// A new write is issued: its `numberio`.
    #[inline]
    pub(super) fn next_numberio(&mut self) -> u16 {
        let n = self.write_issues as u16;
        self.write_issues += 1;
        n
    }

    /// A write of `len` bytes at `offset` of file `file`, numbered
    /// `numberio`, is issued: fio logs it now (`log_io_piece`), and may
    /// put it on the trim list. Returns the unit's piece key (0: none).
    #[inline]
    pub(super) fn log_write(&mut self, file: usize, offset: u64, len: u64, numberio: u16) -> u64 {
        if !self.log_pieces {
            return 0;
        }
        let trim = self.trims.as_mut().is_some_and(|t| t.pick());
        let seq = self.logged;
        self.logged += 1;
        self.hist.log(
            Piece::new(file as u32, offset, len as u32, numberio, seq),
            trim,
        );
        seq + 1
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

    /// Whether the loop checks for `verify_backlog` or `trim_backlog` I/O
    /// before each I/O of the pattern.
    #[inline]
    pub(super) fn backlog_on(&self) -> bool {
        (self.backlog > 0 && self.log_pieces) || self.trim_backlog > 0
    }

    /// fio's `check_get_verify`: the logged write the next I/O reads back
    /// (`verify_backlog`, `verify_backlog_batch`), if it is one.
    pub(super) fn check_get_verify(&mut self) -> Option<Piece> {
        if self.backlog == 0 || self.hist.is_empty() {
            return None;
        }
        if self.batch == 0 {
            if self.hist.len() as u64 % self.backlog != 0 || self.last_dir == Ddir::Read {
                return None;
            }
            self.batch = if self.backlog_batch > 0 {
                self.backlog_batch
            } else {
                self.backlog
            };
        }
        let p = self.hist.pop()?;
        self.batch -= 1;
        Some(p)
    }

    /// fio's `check_get_trim`: the logged write the next I/O trims
    /// (`trim_backlog`, `trim_backlog_batch`), if it is one. (fio counts a
    /// batch down before it trims, and sets it after its first trim.)
    pub(super) fn check_get_trim(&mut self) -> Option<Piece> {
        if self.trim_backlog == 0 || self.hist.trim_entries() == 0 {
            return None;
        }
        if self.trim_batch > 0 {
            self.trim_batch -= 1;
        } else if self.hist.len() as u64 % self.trim_backlog == 0 && self.last_dir != Ddir::Read {
            self.trim_batch = if self.trim_batch_opt > 0 {
                self.trim_batch_opt
            } else {
                self.trim_backlog
            };
        } else {
            return None;
        }
        self.hist.pop_trim(self.trim_zero)
    }

    /// Unit `u`, a read, write or trim, completed whole: its write may be
    /// read back now and is remembered for the state file; its bytes count
    /// as verified or done, as fio's runstate says.
    #[inline]
    pub(super) fn completed(&mut self, u: &Unit) {
        let dir = u.io.dir;
        self.last_dir = dir;
        if self.verifying {
            if dir == Ddir::Read {
                self.bytes_verified += u.len;
            }
        } else {
            self.pass_done[dir.index()] += u.len;
        }
        match dir {
            Ddir::Read => self.reads_done += 1,
            Ddir::Write => {
                if u.piece > 0 {
                    self.hist.landed(key(u));
                }
                if let Some(c) = self.comps.as_mut() {
                    c.record(u.file, u.offset0);
                }
            }
            _ => {}
        }
    }

    /// A dry run's I/O of `len` bytes in `dir` completed at once.
    pub(super) fn dry_done(&mut self, dir: Ddir, len: u64) {
        self.last_dir = dir;
        self.pass_done[dir.index()] += len;
        if dir == Ddir::Read {
            self.reads_done += 1;
        }
    }

    /// Unit `u` failed: a write it logged is not read back (fio's
    /// `unlog_io_piece`).
    #[inline]
    pub(super) fn failed(&mut self, u: &Unit) {
        self.last_dir = u.io.dir;
        if u.piece > 0 {
            self.hist.unlog(key(u));
        }
    }
}

/// The log key of the write of unit `u`.
fn key(u: &Unit) -> Key {
    Key {
        file: u.file as u32,
        offset: u.offset0,
        seq: u.piece - 1,
    }
}

/// What the loop does next instead of the pattern's I/O.
pub(super) enum Turn {
    /// The pattern's next I/O.
    Pattern,
    /// A backlog read or trim went out: the engine queued this many bytes.
    Issued(u64),
    /// `verify_state_load` says the reads are done: the pass ends.
    Stop,
}

impl<C: Clock> Exec<'_, '_, C> {
    /// fio's `check_get_verify` and `check_get_trim` before the pattern's
    /// next I/O: a `verify_backlog` read or a `trim_backlog` trim. Either
    /// counts toward `number_ios` (fio counts every I/O there), not
    /// toward the job's size.
    pub(super) fn backlog_turn(&mut self, now: u64, polling: bool) -> Turn {
        let Some(t) = self.units.take() else {
            return Turn::Pattern;
        };
        if let Some(piece) = self.verify.check_get_verify() {
            if self.state_stops(piece.file as usize, piece.offset) {
                self.units.give_back(t);
                return Turn::Stop;
            }
            self.setup_verify_read(t, piece, now);
            self.verify.set_verifying(true);
            self.count.issued_ios += 1;
            let queued = self.submit(t, polling);
            return Turn::Issued(if queued { u64::from(piece.len) } else { 0 });
        }
        if let Some(piece) = self.verify.check_get_trim() {
            self.setup_trim(t, piece, now);
            self.verify.set_verifying(false);
            self.count.issued_ios += 1;
            let queued = self.submit(t, polling);
            return Turn::Issued(if queued { u64::from(piece.len) } else { 0 });
        }
        self.units.give_back(t);
        Turn::Pattern
    }

    /// The pattern's next I/O is about to be issued: fio's runstate
    /// follows it (a read the job checks is verifying). Returns whether a
    /// loaded state ends the pass before that read.
    #[inline]
    pub(super) fn pattern_io_stops(&mut self, next: &NextIo) -> bool {
        let checked = next.dir == Ddir::Read && self.verify.check_reads;
        self.verify.set_verifying(checked);
        checked && self.state_stops(next.file, next.offset)
    }

    /// fio's `verify_state_should_stop` for a read back of `offset` in
    /// file `file` (only with `verify_state_load`).
    #[inline]
    pub(super) fn state_stops(&self, file: usize, offset: u64) -> bool {
        self.job.verify_state.as_ref().is_some_and(|s| {
            self.verify.on() && s.should_stop(self.verify.reads_done, file as u64, offset)
        })
    }

    /// Set unit `t` up to read back `piece` (fio's `get_next_verify`; in
    /// the experimental verify phase, a replayed write or trim).
    pub(super) fn setup_verify_read(&mut self, t: u32, piece: Piece, now: u64) {
        // The seed fio draws for the read (for a replayed write, the one
        // its write drew; a replayed trim draws none).
        let mut seed = 0;
        if !(self.verify.exp && piece.trimmed) {
            if let Some(v) = self.verify.verifier() {
                seed = v.draw_read_seed();
            }
        }
        self.setup_unit(t, Ddir::Read, &piece, now);
        let u = self.units.get_mut(t);
        u.rand_seed = seed;
        u.ver_list = true;
        u.trimmed = piece.trimmed;
    }

    /// Set unit `t` up to trim `piece` (fio's `get_next_trim`).
    fn setup_trim(&mut self, t: u32, piece: Piece, now: u64) {
        self.setup_unit(t, Ddir::Trim, &piece, now);
    }

    fn setup_unit(&mut self, t: u32, dir: Ddir, piece: &Piece, now: u64) {
        let buf = self.units.buf(t);
        let fi = piece.file as usize;
        let file = self.file_id(fi);
        let u = self.units.get_mut(t);
        u.io.file = file;
        u.io.dir = dir;
        u.io.offset = piece.offset;
        u.io.len = piece.len as usize;
        u.io.buf = buf;
        u.file = fi;
        u.len = u64::from(piece.len);
        u.start_ns = now;
        u.offset0 = piece.offset;
        u.numberio = piece.numberio;
        u.ver_list = false;
        u.piece = 0;
        u.trimmed = false;
    }

    /// Check a completed read of unit `t` against what was written.
    /// Returns the errno of a failed check (0 when it passed).
    pub(super) fn check_read(&mut self, t: u32) -> i32 {
        let u = *self.units.get(t);
        let (check_reads, exp) = (self.verify.check_reads, self.verify.exp);
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
        if u.ver_list && !exp {
            flags |= F_VER_LIST;
        }
        let name = self.job.files[u.file].path.display().to_string();
        let rb = ReadBack {
            file: &name,
            offset: u.offset0,
            numberio,
            rand_seed: u.ver_list.then_some(u.rand_seed),
            flags,
            time: (u.start_ns / 1_000_000_000, u.start_ns % 1_000_000_000),
            trimmed: u.trimmed,
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

    /// fio's complaint at the end of a pass (`do_io`) about logged blocks
    /// still on the trim list.
    pub(super) fn trims_leaked(&self) {
        let n = self.verify.hist.trim_entries();
        if n > 0 {
            self.log.err(&format!("fio: {n} trim entries leaked?\n"));
        }
    }

    /// fio's verify state file at the end of a writing job with verify
    /// (`verify_state_save`, on by default), and of every job a trigger
    /// stopped (without completions when they were not kept).
    pub(super) fn save_verify_state(&mut self) {
        let spec = self.job.spec;
        let none;
        let comps = match self.verify.comps.as_ref() {
            Some(c) => c,
            None if self.stop.saves_state() => {
                none = WriteComps::new(spec.iodepth.max(1) as usize, self.job.files.len());
                &none
            }
            None => return,
        };
        if let Err(lines) = save_state(spec, self.verify.write_issues, comps) {
            self.log.err(&lines);
        }
    }
}
