//! The `zonemode=zbd` hook (fio's `zbd.c` hooks in `do_io`, `td_io_queue`
//! and `io_completed`). The zones are the generator's
//! ([`crate::workload::offsets::IoGen`]'s `zbd`, which places each I/O on
//! them, as fio's `zbd_adjust_block` in `fill_io_u`); the hook is what the
//! loop does with them around each I/O:
//!
//! - before the pattern's next I/O is drawn, the writes that fill their
//!   zone complete first ([`before_draw`]: fio quiesces before it opens
//!   or resets a zone);
//! - after the draw, as a pass starts and after a trim, the zone resets
//!   are counted and a placement that fails the job fails it
//!   ([`account`]);
//! - a trim of a sequential zone resets the zone instead of reaching the
//!   engine ([`on_queue`]);
//! - a completed write that filled its zone closes it ([`on_complete`]).
//!
//! Without zones each of these is one test of an `Option`.

use super::super::units::Unit;
use super::Fail;
use crate::ddir::Ddir;
use crate::ioengine::IoResult;
use crate::workload::log::Log;
use crate::workload::zbd::{Refused, ZbdJob};

/// Before the pattern's next I/O is drawn with `in_flight` I/Os out:
/// whether the loop completes them first.
#[inline]
pub(crate) fn before_draw(z: &ZbdJob, in_flight: usize) -> bool {
    in_flight > 0 && z.wants_quiesce()
}

/// The resets since the last look, added to `resets`; a placement that
/// failed says its lines (on stderr: rfio keeps stdout for the report),
/// and the failure when fio calls it an error.
pub(crate) fn account(z: &mut ZbdJob, resets: &mut u64, log: &dyn Log) -> Result<(), Fail> {
    *resets += z.take_resets();
    match z.take_failure() {
        Some(r) => refused(&r, log),
        None => Ok(()),
    }
}

/// The lines of refusal `r` said; its error, if it has one.
#[cold]
fn refused(r: &Refused, log: &dyn Log) -> Result<(), Fail> {
    for (_, line) in &r.lines {
        log.err(line);
    }
    match &r.error {
        Some((errno, msg)) => Err(Fail {
            say: None,
            errno: *errno,
            msg: msg.clone(),
        }),
        None => Ok(()),
    }
}

/// Unit `u` is about to be queued (fio's `zbd_do_io_u_trim`): a trim of a
/// sequential zone resets it and completes at once, with this result
/// (the resets counted into `resets`); `None`: the engine does the I/O.
pub(crate) fn on_queue(
    z: &mut ZbdJob,
    u: &Unit,
    resets: &mut u64,
    log: &dyn Log,
) -> Option<(IoResult, Result<(), Fail>)> {
    if u.io.dir != Ddir::Trim {
        return None;
    }
    let result = match z.trim(u.file, u.io.offset)? {
        Ok(()) => Ok(u.io.len),
        Err(r) => {
            for (_, line) in &r.lines {
                log.err(line);
            }
            Err(r.error.map_or(libc::EINVAL, |e| e.0))
        }
    };
    Some((result, account(z, resets, log)))
}

/// Unit `u` completed (or failed): a write that filled its zone closes it.
#[inline]
pub(crate) fn on_complete(z: &mut ZbdJob, u: &Unit) {
    z.completed(u.file, u.io.dir, u.io.offset, u.io.len as u64);
}
