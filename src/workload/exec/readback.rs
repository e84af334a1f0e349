//! The verify hook's I/O in the loop (fio's `get_next_verify`,
//! `get_next_trim` and `verify_io_u` as `do_io` uses them): the
//! `verify_backlog` read or `trim_backlog` trim the hook hands out before
//! the pattern's next I/O, the units it reads back on, and the check of
//! each completed read. What to read back, and how a read is checked,
//! is the hook's ([`super::hooks::verify`]).

use super::super::clock::Clock;
use super::super::offsets::Io as NextIo;
use super::Exec;
use crate::ddir::Ddir;
use crate::workload::verify::Piece;

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
        let Some(v) = self.hooks.verify.as_mut() else {
            self.units.give_back(t);
            return Turn::Pattern;
        };
        let (piece, read) = match v.check_get_verify() {
            Some(p) => (p, true),
            None => match v.check_get_trim() {
                Some(p) => (p, false),
                None => {
                    self.units.give_back(t);
                    return Turn::Pattern;
                }
            },
        };
        if read {
            if self.state_stops(piece.file as usize, piece.offset, None) {
                self.units.give_back(t);
                return Turn::Stop;
            }
            self.setup_verify_read(t, piece, now);
        } else {
            self.setup_unit(t, Ddir::Trim, &piece, now);
        }
        if let Some(v) = self.hooks.verify.as_mut() {
            v.set_verifying(read);
        }
        self.count.issued_ios += 1;
        let queued = self.submit(t, polling);
        Turn::Issued(if queued { u64::from(piece.len) } else { 0 })
    }

    /// The pattern's next I/O is about to be issued: fio's runstate
    /// follows it (a read the job checks is verifying). Returns whether a
    /// loaded state ends the pass before that read.
    #[inline]
    pub(super) fn pattern_io_stops(&mut self, next: &NextIo) -> bool {
        let checked = self
            .hooks
            .verify
            .as_mut()
            .is_some_and(|v| v.pattern_io(next));
        checked && self.state_stops(next.file, next.offset, None)
    }

    /// fio's `verify_state_should_stop` for a read back of `offset` in
    /// file `file` (only with `verify_state_load`), of the write numbered
    /// `seq`; `None`: a read the job issues, numbered by the reads issued
    /// before it (fio's `io_issues[DDIR_READ]`). Says why it stops where
    /// the release does.
    #[inline]
    pub(super) fn state_stops(&mut self, file: usize, offset: u64, seq: Option<u64>) -> bool {
        let (Some(loaded), Some(v)) = (self.job.verify_state.as_ref(), self.hooks.verify.as_mut())
        else {
            return false;
        };
        let stop = v.state_stops(loaded, file, offset, seq.unwrap_or(v.read_issues));
        if !stop.stops() {
            if seq.is_none() {
                v.read_issued();
            }
            return false;
        }
        v.state_stopped = true;
        let name = self.job.files.get(file).map(|f| f.path.to_string_lossy());
        if let Some(line) = stop.line(name.as_deref().unwrap_or("")) {
            self.log.info(&line);
        }
        true
    }

    /// Set unit `t` up to read back `piece` (fio's `get_next_verify`; in
    /// the experimental verify phase, a replayed write or trim).
    pub(super) fn setup_verify_read(&mut self, t: u32, piece: Piece, now: u64) {
        let seed = self
            .hooks
            .verify
            .as_mut()
            .map_or(0, |v| v.on_verify_read(&piece));
        self.setup_unit(t, Ddir::Read, &piece, now);
        let u = self.units.get_mut(t);
        u.rand_seed = seed;
        u.ver_list = true;
        u.trimmed = piece.trimmed;
    }

    /// Set unit `t` up for an I/O of `dir` over `piece` at `now` (a read
    /// back, or fio's `get_next_trim`).
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

    /// Complete: the verify hook checks the read of unit `t` against what
    /// was written; a failed check is the job's error (as
    /// `continue_on_error` says).
    pub(super) fn check_read(&mut self, t: u32) {
        let Some(v) = self.hooks.verify.as_mut() else {
            return;
        };
        let u = *self.units.get(t);
        if self.caps.fake_io || !v.checks(&u) {
            return;
        }
        // SAFETY: the unit completed and is not queued again before this
        // returns; its buffer holds `unit >= len` bytes.
        let b = unsafe { std::slice::from_raw_parts_mut(self.units.buf(t), u.len as usize) };
        let e = v.check(t, &u, b, &self.job.files[u.file].path, self.log);
        if e != 0 {
            self.verify_failed(e);
        }
    }
}
