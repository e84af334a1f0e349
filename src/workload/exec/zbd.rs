//! The loop's part in `zonemode=zbd` ([`crate::workload::zbd`]): before
//! the next I/O is drawn, writes that fill their zone complete first (fio
//! quiesces before it opens or resets a zone); after it, the zone resets
//! are counted and a placement that fails the job fails it; a trim of a
//! sequential zone resets the zone instead of reaching the engine; a
//! completed write that filled its zone closes it. Without zones each of
//! these is one test of an `Option`.

use super::super::clock::Clock;
use super::super::offsets::Io as NextIo;
use super::super::zbd::{Refused, ZbdJob};
use super::units::Unit;
use super::Exec;
use crate::ddir::Ddir;
use crate::ioengine::IoResult;

impl<C: Clock> Exec<'_, '_, C> {
    /// The pattern's next I/O drawn at `now` (the generators' `next_io`,
    /// with the zones' turn before and after).
    #[inline]
    pub(super) fn next_io(&mut self, now: u64) -> Option<NextIo> {
        if self.gen.zbd.is_none() {
            return self.gen.next_io(self.rate.as_mut(), now);
        }
        if self.units.in_flight() > 0 && self.gen.zbd.as_ref().is_some_and(ZbdJob::wants_quiesce) {
            self.drain();
        }
        let next = self.gen.next_io(self.rate.as_mut(), now);
        self.zbd_account();
        next
    }

    /// A new pass: the zones of each file as fio resets them when it opens
    /// the file.
    pub(super) fn zbd_pass_starts(&mut self) {
        if let Some(z) = self.gen.zbd.as_mut() {
            z.pass_starts();
        }
        self.zbd_account();
    }

    /// Count the resets since the last look; fail the job if an I/O could
    /// not be placed in a way fio calls an error.
    fn zbd_account(&mut self) {
        let Some(z) = self.gen.zbd.as_mut() else {
            return;
        };
        self.ts.zone_resets += z.take_resets();
        if let Some(r) = z.take_failure() {
            self.zbd_lines(&r);
            if let Some((errno, verror)) = r.error {
                self.fail_with(errno, verror);
            }
        }
    }

    /// The lines fio logs about a failed placement: on stderr (rfio keeps
    /// stdout for the report).
    fn zbd_lines(&self, r: &Refused) {
        for (_, line) in &r.lines {
            self.log.err(line);
        }
    }

    /// fio's `zbd_do_io_u_trim` for unit `t`: a trim of a sequential zone
    /// resets it and completes at once (`None`: the engine trims).
    pub(super) fn zbd_trim(&mut self, t: u32) -> Option<IoResult> {
        let u = self.units.get(t);
        if u.io.dir != Ddir::Trim {
            return None;
        }
        let (fi, offset, len) = (u.file, u.io.offset, u.io.len);
        let r = self.gen.zbd.as_mut()?.trim(fi, offset)?;
        let result = match r {
            Ok(()) => Ok(len),
            Err(r) => {
                self.zbd_lines(&r);
                Err(r.error.map_or(libc::EINVAL, |e| e.0))
            }
        };
        self.zbd_account();
        Some(result)
    }

    /// Unit `u` completed (or failed): a write that filled its zone closes
    /// it.
    #[inline]
    pub(super) fn zbd_completed(&mut self, u: &Unit) {
        if let Some(z) = self.gen.zbd.as_mut() {
            z.completed(u.file, u.io.dir, u.io.offset, u.io.len as u64);
        }
    }
}
