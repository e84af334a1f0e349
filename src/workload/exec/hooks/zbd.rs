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
//! - a completed write that filled its zone closes it ([`on_complete`]);
//!   a write that failed in a sync engine moves no write pointer
//!   ([`on_failed_sync_write`]).
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

/// Write `u` failed inside a sync engine's `queue`: its zone's write
/// pointer goes back, and with `recover_zbd_write_error` fio's lines of
/// the recovery it tries are said.
#[cold]
pub(crate) fn on_failed_sync_write(z: &mut ZbdJob, u: &Unit, log: &dyn Log) {
    for (stdout, line) in z.sync_write_failed(u.file, u.io.offset, u.io.len as u64) {
        // fio's log_info goes to its stdout; rfio keeps that for the
        // report, so it goes with the normal output's notes.
        if stdout {
            log.note(&line);
        } else {
            log.err(&line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::clock::Clock;
    use crate::workload::exec::testing::{fake_clock, Lines};
    use crate::workload::job::Prepared;

    const KIB: u64 = 1024;

    /// A regular file of 512 KiB in zones of 128 KiB (emulated, as fio's
    /// on a file), written in 64 KiB blocks: the job and its zones, drawn
    /// as the loop draws them.
    fn with_zones(tag: &str, rw: &str, f: impl FnOnce(&mut crate::workload::offsets::IoGen)) {
        let dir = std::env::temp_dir().join(format!("rfio-hook-zbd-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("z");
        std::fs::write(&path, vec![0u8; 512 * KIB as usize]).unwrap();
        let name = format!("--filename={}", path.display());
        let rw = format!("--rw={rw}");
        let spec = crate::plan::testing::job(&[
            "--name=z",
            "--ioengine=null",
            &name,
            "--zonemode=zbd",
            "--size=512k",
            "--zonesize=128k",
            "--bs=64k",
            &rw,
        ]);
        let job = Prepared::new(&spec).expect("a zoned job");
        let mut gen = job.take_gen();
        f(&mut gen);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn unit(io: &crate::workload::offsets::Io) -> Unit {
        Unit::of(io.dir, io.file, io.offset, io.len)
    }

    /// A write that fills its zone asks for a quiesce before the next
    /// draw until it completes; the next pass finds the zones written and
    /// resets them, which the hook counts.
    #[test]
    fn a_write_filling_its_zone_quiesces_and_the_next_pass_resets() {
        with_zones("fill", "write", |gen| {
            let (time, clock) = fake_clock();
            let lines = Lines::default();
            let mut resets = 0;
            let first = gen.next_io(None, clock.now()).unwrap();
            assert_eq!((first.offset, first.len), (0, 64 * KIB));
            assert!(
                !before_draw(gen.zbd.as_ref().unwrap(), 1),
                "the zone has room"
            );
            let second = gen.next_io(None, clock.now()).unwrap();
            let z = gen.zbd.as_mut().unwrap();
            assert!(before_draw(z, 2), "the zone is full once it lands");
            assert!(!before_draw(z, 0), "nothing in flight: nothing to wait for");
            on_complete(z, &unit(&first));
            assert!(before_draw(z, 1));
            time.advance(1000);
            on_complete(z, &unit(&second));
            assert!(!before_draw(z, 1), "the zone closed");
            assert!(account(z, &mut resets, &lines).is_ok());
            assert_eq!(resets, 0);
            while let Some(io) = gen.next_io(None, clock.now()) {
                on_complete(gen.zbd.as_mut().unwrap(), &unit(&io));
            }
            // The next pass: its first write finds its zone full and
            // resets it (fio resets a zone as a write opens it).
            gen.reset();
            let z = gen.zbd.as_mut().unwrap();
            z.pass_starts();
            assert!(account(z, &mut resets, &lines).is_ok());
            assert_eq!(resets, 0, "no verify: nothing reset as the pass starts");
            let again = gen.next_io(None, clock.now()).unwrap();
            assert_eq!(again.offset, 0);
            assert!(account(gen.zbd.as_mut().unwrap(), &mut resets, &lines).is_ok());
            assert_eq!(resets, 1, "the written zone is reset");
            assert!(lines.is_empty());
        });
    }

    /// A trim of a sequential zone resets it and never reaches the
    /// engine; one that does not start its zone fails with fio's line;
    /// other I/O is the engine's.
    #[test]
    fn a_trim_resets_its_zone() {
        with_zones("trim", "write", |gen| {
            let lines = Lines::default();
            let mut resets = 0;
            let w = gen.next_io(None, 0).unwrap();
            let z = gen.zbd.as_mut().unwrap();
            on_complete(z, &unit(&w));
            assert!(on_queue(z, &unit(&w), &mut resets, &lines).is_none());
            let trim = Unit::of(Ddir::Trim, 0, 0, 128 * KIB);
            let (r, counted) = on_queue(z, &trim, &mut resets, &lines).expect("the zone's");
            assert_eq!(r, Ok(128 * KIB as usize));
            assert!(counted.is_ok());
            assert_eq!(resets, 1);
            let off = Unit::of(Ddir::Trim, 0, 64 * KIB, 64 * KIB);
            let (r, _) = on_queue(z, &off, &mut resets, &lines).expect("the zone's");
            assert_eq!(r, Err(libc::EINVAL));
            assert_eq!(lines.seen(), ["Trim offset not at zone start (65536)\n"]);
        });
    }
}
