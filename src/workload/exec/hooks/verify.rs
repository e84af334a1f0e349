//! The verify hook (fio's `verify.c` and `trim.c` as `do_io` and
//! `get_io_u` use them): which writes are logged to be read back (as they
//! are issued), `verify_backlog` reads and `trim_backlog` trims among the
//! writes, the check of each read, fio's verifying state and what it
//! counts, `verify_state_load`'s stop, and the state file at the end.
//! What a write carries and how a read is checked is [`Verifier`]'s; the
//! loop's verify phase after a pass (fio's `do_verify`) and its dry run
//! (`do_dry_run`) are passes of the loop (`exec/verify_phase.rs`) that
//! take their reads from here.
//!
//! Call points: [`Verify::pass_starts`]; before each I/O of the pattern,
//! [`Verify::check_get_verify`] and [`Verify::check_get_trim`] (a
//! backlog I/O goes first) and [`Verify::pattern_io`] (the runstate);
//! as an I/O is filled, [`Verify::on_write_issued`] (and the verifier's
//! `populate`) or [`Verify::on_read_issued`]; on its completion,
//! [`Verify::on_complete`] and, for a read, [`Verify::check`], or
//! [`Verify::on_failed`]; [`Verify::leaked_trims`] and
//! [`Verify::pass_ends`] as the pass ends; [`save_state`] as the job
//! ends.

use std::path::Path;

use super::super::units::Unit;
use crate::ddir::Ddir;
use crate::debug::{dprint, Cat};
use crate::plan::resolve::verify::LogOrder;
use crate::rand::Generator;
use crate::workload::job::Prepared;
use crate::workload::log::Log;
use crate::workload::offsets::Io as NextIo;
use crate::workload::verify::{
    History, Key, LoadedState, Piece, ReadBack, StateFormat as Format, StateStop, TrimPicker,
    Verifier, WriteComps, F_IN_CUR_DEPTH, F_VER_LIST,
};

/// What the loop keeps to read back and check what it wrote.
pub(crate) struct Verify {
    /// What writes carry and how reads are checked.
    pub(crate) verifier: Verifier,
    /// The logged writes still to read back (fio's io pieces), and the
    /// trim list.
    hist: History,
    /// Whether writes are logged for reading back.
    log_pieces: bool,
    /// Whether a verify phase follows each pass.
    phase: bool,
    /// `experimental_verify`: the verify phase replays the pattern.
    pub(crate) exp: bool,
    /// Whether reads of the job's own pattern are checked as they complete
    /// (a job that does not also write: fio's `!td_rw`).
    check_reads: bool,
    /// Whether a read back checks the `numberio` of its write (fio: a job
    /// that writes fixed-size blocks, not time based, not `verify_only`).
    check_numberio: bool,
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
    /// fio 3.40's batches (`TrimOptions::batches_fixed`).
    trim_batches_fixed: bool,
    trim_zero: bool,
    trims: Option<TrimPicker>,
    /// The last completed write offsets per file (the state file's).
    comps: Option<WriteComps>,
    /// fio's `TD_VERIFYING` runstate: set by the last I/O submitted (or
    /// the verify phase). What completes meanwhile counts as verified.
    verifying: bool,
    /// Reads that verify still count as the pass's bytes (3.37, a job
    /// that does not write).
    verified_reads_count: bool,
    /// Bytes read while verifying, over the whole job (fio's
    /// `bytes_verified`, never reset between passes).
    pub(crate) bytes_verified: u64,
    /// Reads completed, all of them (fio's `io_blocks[DDIR_READ]`).
    reads_done: u64,
    /// The experimental verify phase's reads so far (fio's
    /// `verify_read_issues`, the `numberio` each must find).
    pub(crate) verify_read_issues: u64,
    /// Reads of the pattern a loaded state let through (fio's
    /// `io_issues[DDIR_READ]`, the sequence number 3.41 stops by).
    pub(crate) read_issues: u64,
    /// A loaded state stopped a read back: the pass ended before its
    /// files were done, so fio's `keep_running` may make another.
    pub(crate) state_stopped: bool,
}

impl Verify {
    /// The hook of `job`, whose passes count no bytes (`no_pass_bytes`:
    /// a synchronous engine's, or offloaded); `None` when the job does not
    /// verify.
    pub(crate) fn new(job: &Prepared<'_>, no_pass_bytes: bool) -> Option<Verify> {
        let spec = job.spec;
        let p = job.pattern();
        let verifier = Verifier::new(spec)?;
        let o = spec.verify.as_ref()?;
        let exp = o.experimental;
        let trimming = o.trim.percentage > 0 && o.trim.backlog > 0;
        // fio logs a written block when the job writes and reads back
        // (`do_verify`), unless its verify is experimental. A time-based
        // job on a synchronous engine never reaches its verify phase (its
        // pass counts no bytes): only `verify_backlog` reads its blocks,
        // and `trim_backlog` trims them.
        let reaches_phase = !spec.time_based || !no_pass_bytes;
        let log_pieces =
            o.do_verify && p.write && !exp && (reaches_phase || o.backlog > 0 || trimming);
        let phase = o.do_verify && reaches_phase && if exp { p.writes() } else { p.write };
        let trims = TrimPicker::new(spec).filter(|_| log_pieces);
        let state_save = verifier.state_save && p.write;
        let fixed = spec
            .bs
            .iter()
            .all(|b| b.0 == spec.bs[0].0 && b.1 == spec.bs[0].0);
        Some(Verify {
            check_reads: !(p.read && p.write),
            check_numberio: spec.pattern.write && fixed && !spec.time_based && !verifier.only,
            backlog: verifier.backlog,
            backlog_batch: verifier.backlog_batch,
            hist: history(job, log_pieces, trims.is_some(), o.trim.percentage),
            comps: state_save.then(|| {
                let depth = Format::of(spec.release).comps_depth(spec.iodepth, job.caps.is_sync);
                WriteComps::new(depth, job.files.len())
            }),
            verifier,
            log_pieces,
            phase,
            exp,
            logged: 0,
            last_dir: Ddir::Read,
            batch: 0,
            trim_backlog: if trims.is_some() { o.trim.backlog } else { 0 },
            trim_batch_opt: o.trim.batch,
            trim_batch: 0,
            trim_batches_fixed: o.trim.batches_fixed,
            trim_zero: o.trim.zero,
            trims,
            verifying: false,
            verified_reads_count: o.verified_reads_count,
            bytes_verified: 0,
            reads_done: 0,
            read_issues: 0,
            state_stopped: false,
            verify_read_issues: 0,
        })
    }

    /// `verify_fatal`.
    pub(crate) fn fatal(&self) -> bool {
        self.verifier.fatal
    }

    /// `verify_only`.
    pub(crate) fn only(&self) -> bool {
        self.verifier.only
    }

    /// Whether a time-based job that only writes would never get to its
    /// verify reads (no backlog: the writes use all of the runtime; fio
    /// warns whatever else the job sets).
    pub(crate) fn phase_only(&self) -> bool {
        self.verifier.do_verify && self.verifier.backlog == 0
    }

    /// Whether a verify phase follows each pass (fio's `do_verify` after
    /// `do_io`).
    #[inline]
    pub(crate) fn logs_writes(&self) -> bool {
        self.phase
    }

    /// A pass (or the verify phase) starts: fio's `clear_io_state`
    /// re-seeds the verify and trim generators with `randrepeat`.
    pub(crate) fn pass_starts(&mut self) {
        self.verifier.reset();
        if let Some(t) = self.trims.as_mut() {
            t.reset();
        }
    }

    /// A pass is over: what it did not read back is forgotten (fio's
    /// `prune_io_piece_log`).
    pub(crate) fn pass_ends(&mut self) {
        self.hist.clear();
    }

    /// fio's complaint at the end of a pass (`do_io`) about logged blocks
    /// still on the trim list.
    pub(crate) fn leaked_trims(&self, log: &dyn Log) {
        let n = self.hist.trim_entries();
        if n > 0 {
            log.err(&format!("fio: {n} trim entries leaked?\n"));
        }
    }

    /// fio's runstate for what is submitted next: verifying or not.
    #[inline]
    pub(crate) fn set_verifying(&mut self, on: bool) {
        self.verifying = on;
    }

    /// Whether the pass must go on while the trim list holds blocks
    /// (fio's `do_io` runs while `trim_list` is not empty, trimming or
    /// not: a pass then ends only when its pattern does).
    #[inline]
    pub(crate) fn trims_pending(&self) -> bool {
        self.hist.trim_entries() > 0
    }

    /// A write of `len` bytes at `offset` of file `file`, numbered
    /// `numberio`, is issued: fio logs it now (`log_io_piece`), and may
    /// put it on the trim list. Returns the unit's piece key (0: none).
    #[inline]
    pub(crate) fn on_write_issued(
        &mut self,
        file: usize,
        offset: u64,
        len: u64,
        numberio: u16,
    ) -> u64 {
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

    /// A dry run's write of `len` bytes at `offset` of file `file`,
    /// numbered `numberio`: logged, landed at once, and remembered for the
    /// state file (its data is not made: the verify generator skips it).
    pub(crate) fn on_dry_write(&mut self, file: usize, offset: u64, len: u64, numberio: u16) {
        self.verifier.skip_write();
        let piece = self.on_write_issued(file, offset, len, numberio);
        if piece > 0 {
            self.hist.landed(Key {
                file: file as u32,
                offset,
                seq: piece - 1,
            });
        }
        if let Some(c) = self.comps.as_mut() {
            c.record(file, offset);
        }
    }

    /// A new read of the job's pattern is issued: a job that checks its
    /// reads draws the read's seed.
    #[inline]
    pub(crate) fn on_read_issued(&mut self) {
        if self.check_reads {
            self.verifier.draw_read_seed();
        }
    }

    /// The pattern's next I/O, `next`, is about to be issued: fio's
    /// runstate follows it (a read the job checks is verifying). Returns
    /// whether that is such a read.
    #[inline]
    pub(crate) fn pattern_io(&mut self, next: &NextIo) -> bool {
        let checked = next.dir == Ddir::Read && self.check_reads;
        self.verifying = checked;
        checked
    }

    /// The logged write to read back next, if any.
    pub(crate) fn next_piece(&mut self) -> Option<Piece> {
        self.hist.pop()
    }

    /// Whether the loop checks for `verify_backlog` or `trim_backlog` I/O
    /// before each I/O of the pattern.
    #[inline]
    pub(crate) fn backlog_on(&self) -> bool {
        (self.backlog > 0 && self.log_pieces) || self.trim_backlog > 0
    }

    /// fio's `check_get_verify`: the logged write the next I/O reads back
    /// (`verify_backlog`, `verify_backlog_batch`), if it is one.
    pub(crate) fn check_get_verify(&mut self) -> Option<Piece> {
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
    pub(crate) fn check_get_trim(&mut self) -> Option<Piece> {
        if self.trim_backlog == 0 {
            return None;
        }
        if self.trim_batches_fixed {
            return self.check_get_trim_batched();
        }
        if self.hist.trim_entries() == 0 {
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

    /// fio 3.40's `check_get_trim`: a batch starts, when the log holds a
    /// multiple of `trim_backlog` blocks, after anything but a trim and
    /// only with a block to trim (that trim is the batch's first); the
    /// batch ends when the trim list runs out.
    fn check_get_trim_batched(&mut self) -> Option<Piece> {
        if self.hist.trim_entries() == 0 {
            self.trim_batch = 0;
            return None;
        }
        if self.trim_batch > 0 {
            self.trim_batch -= 1;
            let p = self.hist.pop_trim(self.trim_zero);
            if p.is_none() {
                self.trim_batch = 0;
            }
            return p;
        }
        if self.hist.len() as u64 % self.trim_backlog != 0 || self.last_dir == Ddir::Trim {
            return None;
        }
        let p = self.hist.pop_trim(self.trim_zero)?;
        let batch = if self.trim_batch_opt > 0 {
            self.trim_batch_opt
        } else {
            self.trim_backlog
        };
        self.trim_batch = batch - 1;
        Some(p)
    }

    /// A read back of `piece` is set up: the seed fio draws for it (for a
    /// write the experimental verify phase replays, the one its write
    /// drew; a replayed trim draws none).
    /// Returns the seed drawn (0: none).
    pub(crate) fn on_verify_read(&mut self, piece: &Piece) -> u64 {
        match self.exp && piece.trimmed {
            true => 0,
            false => self.verifier.draw_read_seed(),
        }
    }

    /// Unit `u`, a read, write or trim, completed whole: its write may be
    /// read back now and is remembered for the state file. Returns whether
    /// it completed while verifying and its bytes count as verified, not
    /// as the pass's.
    #[inline]
    pub(crate) fn on_complete(&mut self, u: &Unit) -> bool {
        let dir = u.io.dir;
        self.last_dir = dir;
        if self.verifying && dir == Ddir::Read {
            self.bytes_verified += u.len;
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
        // fio 3.37 (io_u_update_bytes_done, 96a7e64c): a job that does
        // not write counts what it verified as done too.
        self.verifying && !self.verified_reads_count
    }

    /// A dry run's I/O in `dir` completed at once.
    pub(crate) fn on_dry_complete(&mut self, dir: Ddir) {
        self.last_dir = dir;
        if dir == Ddir::Read {
            self.reads_done += 1;
        }
    }

    /// Unit `u` failed: a write it logged is not read back (fio's
    /// `unlog_io_piece`).
    #[inline]
    pub(crate) fn on_failed(&mut self, u: &Unit) {
        self.last_dir = u.io.dir;
        if u.piece > 0 {
            self.hist.unlog(key(u));
        }
    }

    /// Whether completed read `u` is checked (a read back of a logged
    /// write, or of the pattern of a job that only reads).
    #[inline]
    pub(crate) fn checks(&self, u: &Unit) -> bool {
        u.ver_list || self.check_reads
    }

    /// Check completed read `u` (unit `t`) of file `path`, its data in
    /// `buf`, against what was written. Returns the errno of a failed
    /// check (0 when it passed).
    pub(crate) fn check(
        &mut self,
        t: u32,
        u: &Unit,
        buf: &mut [u8],
        path: &Path,
        log: &dyn Log,
    ) -> i32 {
        let numberio = (u.ver_list && self.check_numberio).then_some(u.numberio);
        let mut flags = F_IN_CUR_DEPTH;
        if u.ver_list && !self.exp {
            flags |= F_VER_LIST;
        }
        let name = path.display().to_string();
        let rb = ReadBack {
            file: &name,
            offset: u.offset0,
            numberio,
            rand_seed: u.ver_list.then_some(u.rand_seed),
            flags,
            time: (u.start_ns / 1_000_000_000, u.start_ns % 1_000_000_000),
            trimmed: u.trimmed,
        };
        let err = self.verifier.check(buf, &rb, log);
        dprint!(
            Cat::Verify,
            "verify io_u {t}: off=0x{:x},len=0x{:x},file={name}: {}\n",
            u.offset0,
            u.len,
            if err == 0 { "ok" } else { "bad" }
        );
        err
    }

    /// fio's `verify_state_should_stop` for a read back of `offset` in
    /// file `file`, of the write numbered `seq` (only with
    /// `verify_state_load`, the job's `loaded`).
    #[inline]
    pub(crate) fn state_stops(
        &self,
        loaded: &LoadedState,
        file: usize,
        offset: u64,
        seq: u64,
    ) -> StateStop {
        loaded.should_stop(self.reads_done, seq, file as u64, offset)
    }

    /// A read of the pattern the loaded state let through is issued: the
    /// next one is fio's `io_issues[DDIR_READ]` more.
    #[inline]
    pub(crate) fn read_issued(&mut self) {
        self.read_issues += 1;
    }
}

/// The log of the written blocks of `job` (empty unless it `logs` them),
/// with room for its trim list when it `trims` `percentage` of them.
fn history(job: &Prepared<'_>, logs: bool, trims: bool, percentage: u32) -> History {
    let spec = job.spec;
    let p = job.pattern();
    // fio 3.33 keeps the blocks in write order when the job has a random
    // map, else sorted by offset with overwritten blocks dropped; 3.40
    // sorts them only when offsets may overlap.
    let randommap = p.random && !spec.norandommap && spec.seeds.generator != Generator::Lfsr;
    let sorted = match spec.verify.as_ref().map(|v| v.log_order) {
        Some(LogOrder::Written) => false,
        Some(LogOrder::Sorted) => true,
        Some(LogOrder::UnlessRandomMap) | None => !randommap,
    };
    let min_write = spec.bs[1].0.max(1);
    let capacity = if logs {
        let mut n = job.pass_bytes / min_write + 1;
        if sorted {
            let region: u64 = job.files.iter().map(|f| f.len).sum();
            n = n.min(region / min_write + 1);
        }
        n.min(1 << 20) as usize
    } else {
        0
    };
    let trim_capacity = if trims {
        capacity * percentage as usize / 100 + 1
    } else {
        0
    };
    History::new(sorted, capacity, trim_capacity)
}

/// The log key of the write of unit `u`.
fn key(u: &Unit) -> Key {
    Key {
        file: u.file as u32,
        offset: u.offset0,
        seq: u.piece - 1,
    }
}

/// fio's verify state file as the job ends (`verify_state_save`, on by
/// default, for a writing job that verifies), `write_issues` writes
/// issued, its offset generator `rand`; and of every job a trigger
/// stopped (`stopped`, without completions when they were not kept).
pub(crate) fn save_state(
    verify: Option<&Verify>,
    job: &Prepared<'_>,
    write_issues: u64,
    rand: [u8; 56],
    stopped: bool,
    log: &dyn Log,
) {
    let comps = verify.and_then(|v| v.comps.as_ref());
    if comps.is_none() && !stopped {
        return;
    }
    let files = job.files.len();
    if let Err(e) = crate::workload::verify::save_state(job.spec, files, write_issues, rand, comps)
    {
        log.err(&e.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::clock::Clock;
    use crate::workload::exec::testing::{fake_clock, Lines};

    const BS: u64 = 4096;

    fn spec(more: &[&str]) -> crate::plan::spec::JobSpec {
        let mut argv = vec![
            "--name=v",
            "--ioengine=null",
            "--size=64k",
            "--bs=4k",
            "--verify=crc32c",
            "--verify_state_save=0",
        ];
        argv.extend_from_slice(more);
        crate::plan::testing::job(&argv)
    }

    /// Issue (and fill) a write of block `i` at `now`: its unit and data.
    fn write(v: &mut Verify, i: u64, now: u64) -> (Unit, Vec<u8>) {
        let mut u = Unit::of(Ddir::Write, 0, i * BS, BS);
        u.numberio = i as u16;
        u.start_ns = now;
        u.piece = v.on_write_issued(0, i * BS, BS, u.numberio);
        let mut b = vec![0u8; BS as usize];
        let start = (now / 1_000_000_000, now % 1_000_000_000);
        v.verifier.populate(&mut b, i * BS, i, start);
        (u, b)
    }

    /// Read block `p` back and check it against `b`.
    fn read_back(v: &mut Verify, p: &Piece, b: &mut [u8], lines: &Lines) -> i32 {
        v.on_verify_read(p);
        let mut r = Unit::of(Ddir::Read, 0, p.offset, u64::from(p.len));
        r.ver_list = true;
        r.numberio = p.numberio;
        assert!(v.checks(&r));
        let e = v.check(0, &r, b, Path::new("f"), lines);
        assert!(v.on_complete(&r), "a read back is verifying");
        e
    }

    /// On the clock: with `verify_backlog=4`, once 4 writes are logged
    /// (and the last I/O was no read) the hook hands out their read backs,
    /// a batch of 4 in the log's order, each checked against what was
    /// written; a write still in flight is read back once it lands; a
    /// failed write is forgotten.
    #[test]
    fn logged_writes_are_queued_for_reading_back_and_checked() {
        let spec = spec(&["--rw=write", "--verify_backlog=4"]);
        let job = Prepared::new(&spec).unwrap();
        let mut v = Verify::new(&job, false).expect("the job verifies");
        assert!(v.backlog_on() && v.logs_writes());
        let (time, clock) = fake_clock();
        let mut data = Vec::new();
        for i in 0..3 {
            time.advance(1000);
            let (u, b) = write(&mut v, i, clock.now());
            assert_eq!(v.check_get_verify(), None, "{i}: not yet");
            assert!(!v.on_complete(&u), "writes are not verifying");
            data.push(b);
        }
        let (in_flight, mut last) = write(&mut v, 3, clock.now());
        let lines = Lines::default();
        v.set_verifying(true);
        for (i, b) in data.iter_mut().enumerate() {
            let p = v.check_get_verify().expect("a read back");
            assert_eq!((p.offset, p.numberio), (i as u64 * BS, i as u16));
            assert_eq!(read_back(&mut v, &p, b, &lines), 0, "{i}");
        }
        assert_eq!(v.bytes_verified, 3 * BS);
        assert_eq!(v.check_get_verify(), None, "block 3 is in flight");
        v.set_verifying(false);
        assert!(!v.on_complete(&in_flight));
        let p = v.check_get_verify().expect("block 3 landed");
        assert_eq!((p.offset, p.numberio), (3 * BS, 3));
        v.set_verifying(true);
        assert_eq!(read_back(&mut v, &p, &mut last, &lines), 0);
        assert_eq!(v.bytes_verified, 4 * BS);
        assert!(lines.is_empty());
        // A write that fails is not read back.
        let (failed, _) = write(&mut v, 4, clock.now());
        v.on_failed(&failed);
        assert_eq!((v.check_get_verify(), v.next_piece()), (None, None));
    }

    /// `trim_backlog=2` over 4 logged writes, every one on the trim list
    /// (`trim_verify_zero` keeps trimmed blocks logged): fio 3.33 counts a
    /// batch down before its trims (3 of them), then starts the next batch
    /// after that trim, as after anything but a read: 4 trims in a row.
    /// fio 3.40 on: a batch of 2, and none after a trim.
    #[test]
    fn a_trim_batch_follows_a_write_from_3_40() {
        let trims = |release: &str| {
            let mut argv = vec![
                "--name=v",
                "--ioengine=null",
                "--size=64k",
                "--bs=4k",
                "--verify=crc32c",
                "--verify_state_save=0",
            ];
            argv.extend([
                "--rw=trimwrite",
                "--trim_percentage=100",
                "--trim_backlog=2",
            ]);
            let spec = crate::plan::testing::job_as(release, &argv);
            let job = Prepared::new(&spec).unwrap();
            let mut v = Verify::new(&job, false).expect("the job verifies");
            for i in 0..4 {
                let (u, _) = write(&mut v, i, 0);
                v.on_complete(&u);
            }
            let mut n = 0;
            while let Some(p) = v.check_get_trim() {
                let t = Unit::of(Ddir::Trim, 0, p.offset, u64::from(p.len));
                v.on_complete(&t);
                n += 1;
                assert!(n <= 4, "{release}: more trims than blocks");
            }
            n
        };
        assert_eq!(trims("3.33"), 4);
        assert_eq!(trims("3.39"), 4);
        assert_eq!(trims("3.40"), 2);
        assert_eq!(trims("3.42"), 2);
    }

    /// A read back that finds other data fails its check with fio's
    /// error (a bad header), and says why.
    #[test]
    fn a_bad_read_back_fails_its_check() {
        let spec = spec(&["--rw=write"]);
        let job = Prepared::new(&spec).unwrap();
        let mut v = Verify::new(&job, false).unwrap();
        let (u, mut b) = write(&mut v, 0, 0);
        v.on_complete(&u);
        let p = v.next_piece().expect("logged");
        v.on_verify_read(&p);
        let mut r = Unit::of(Ddir::Read, 0, p.offset, BS);
        r.ver_list = true;
        b[0] ^= 0xff;
        let lines = Lines::default();
        assert_ne!(v.check(0, &r, &mut b, Path::new("f"), &lines), 0);
        assert!(!lines.is_empty());
    }

    /// A job without verify has no hook; one that only reads checks the
    /// reads of its pattern, and its runstate follows them.
    #[test]
    fn no_verify_no_hook_and_a_reader_checks_its_pattern() {
        let plain = crate::plan::testing::job(&["--name=v", "--ioengine=null", "--size=64k"]);
        assert!(Verify::new(&Prepared::new(&plain).unwrap(), false).is_none());
        let spec = spec(&["--rw=read"]);
        let job = Prepared::new(&spec).unwrap();
        let mut v = Verify::new(&job, false).unwrap();
        assert!(!v.logs_writes() && !v.backlog_on());
        let read = job.take_gen().next_io(None, 0).unwrap();
        assert!(v.pattern_io(&read));
        assert!(v.checks(&Unit::of(Ddir::Read, 0, 0, BS)));
        assert!(v.on_complete(&Unit::of(Ddir::Read, 0, 0, BS)));
    }
}
