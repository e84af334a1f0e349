//! Syncs of the loop: `fsync=N`/`fdatasync=N` after every N writes (fio's
//! `should_fsync` and `td->fsync_blocks` in `do_io`), and `end_fsync`/
//! `fsync_on_close` at the end of a pass. A sync goes through the engine
//! as an I/O of its own, after everything in flight.

use super::super::clock::Clock;
use super::{Exec, Halt};
use crate::ddir::Ddir;
use crate::ioengine::{QueueError, Queued};
use crate::plan::resolve::io::IoOptions;

/// When the next sync of `fsync=N`/`fdatasync=N` is due, and of which file.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cadence {
    fsync_blocks: u64,
    fdatasync_blocks: u64,
    since_fsync: u64,
    since_fdatasync: u64,
    /// The file of the last write, which a due sync syncs.
    last_file: usize,
}

impl Cadence {
    pub(super) fn new(set: &IoOptions) -> Cadence {
        Cadence {
            fsync_blocks: set.fsync_blocks,
            fdatasync_blocks: set.fdatasync_blocks,
            since_fsync: 0,
            since_fdatasync: 0,
            last_file: 0,
        }
    }

    /// A write to file `fi` was issued.
    #[inline]
    pub(super) fn wrote(&mut self, fi: usize) {
        self.since_fsync += 1;
        self.since_fdatasync += 1;
        self.last_file = fi;
    }

    /// The sync due now, if any, and the file to sync; its count starts
    /// again. `fsync` goes first when both are due.
    #[inline]
    pub(super) fn due(&mut self) -> Option<(Ddir, usize)> {
        if self.fsync_blocks > 0 && self.since_fsync >= self.fsync_blocks {
            self.since_fsync = 0;
            Some((Ddir::Sync, self.last_file))
        } else if self.fdatasync_blocks > 0 && self.since_fdatasync >= self.fdatasync_blocks {
            self.since_fdatasync = 0;
            Some((Ddir::DataSync, self.last_file))
        } else {
            None
        }
    }
}

impl<C: Clock> Exec<'_, '_, C> {
    /// `fsync=N`/`fdatasync=N`: sync the last written file after every N
    /// writes. Returns whether a sync was issued.
    pub(super) fn sync_due(&mut self) -> bool {
        let Some((dir, fi)) = self.sync.due() else {
            return false;
        };
        if let Err(e) = self.sync_file(fi, dir, true) {
            self.sync_failed(e, dir, fi);
        }
        true
    }

    /// A sync of direction `dir` on file `fi` failed with `e`: the job's
    /// error, as fio reports it.
    pub(super) fn sync_failed(&mut self, e: SyncError, dir: Ddir, fi: usize) {
        match e {
            SyncError::Queue(q) => self.queue_error(dir, *q),
            SyncError::Io(errno) => self.io_error(errno, dir, fi, 0, 0),
        }
    }

    /// At the end of a pass (inside its time, as fio's `do_io`):
    /// `end_fsync`/`fsync_on_close` for a writing job.
    pub(super) fn final_syncs(&mut self) {
        let job = self.job;
        if self.halt != Halt::Failed
            && job.pattern().write
            && (job.set.end_fsync || job.set.fsync_on_close)
        {
            for i in 0..job.files.len() {
                if self.sync_file(i, Ddir::Sync, false).is_err() {
                    self.log.err(&format!(
                        "fio: end_fsync failed for file {}\n",
                        job.files[i].path.display()
                    ));
                }
            }
        }
    }

    /// Sync file `fi` through the engine, after everything in flight.
    /// `record`: count it in the stats, as fio does for `fsync=N` and
    /// `fdatasync=N` (its IO depths and sync latency) but not for
    /// `end_fsync`/`fsync_on_close`.
    pub(super) fn sync_file(
        &mut self,
        fi: usize,
        dir: Ddir,
        record: bool,
    ) -> Result<(), SyncError> {
        self.drain();
        let Some(t) = self.units.take() else {
            return Err(SyncError::Io(libc::EBUSY));
        };
        if self.iolog.is_some() {
            self.log_sync(t, fi, dir);
        }
        let file = self.ids[fi];
        let u = self.units.get_mut(t);
        u.io.file = file;
        u.io.dir = dir;
        u.io.offset = 0;
        u.io.len = 0;
        u.file = fi;
        u.len = 0;
        let t0 = self.now();
        let mut queued_error = None;
        let result = loop {
            // SAFETY: nothing is in flight (drained above) and unit `t`
            // came from the free list; a sync moves no data (`len` 0).
            match unsafe { self.engine.queue(&self.units.get(t).io) } {
                Queued::Completed(r) => {
                    if let Err(e) = r {
                        queued_error = self.engine.queue_error(e);
                    }
                    break r;
                }
                Queued::Queued => {
                    if let Err(e) = self.engine.commit() {
                        break Err(e);
                    }
                    match self.engine.getevents(1, 1, None) {
                        Ok(n) if n >= 1 => break self.engine.event(0).result,
                        Ok(_) => continue,
                        Err(e) => break Err(e),
                    }
                }
                Queued::Busy => {
                    if let Err(e) = self.engine.commit() {
                        break Err(e);
                    }
                }
            }
        };
        self.units.give_back(t);
        if record && result.is_ok() && self.time.recording() {
            let lat = self.now().saturating_sub(t0);
            self.ts.io_submitted(1);
            self.ts.sync_done(lat);
        }
        result.map(|_| ()).map_err(|e| match queued_error {
            Some(q) => SyncError::Queue(Box::new(q)),
            None => SyncError::Io(e),
        })
    }
}

/// Why a sync failed: an I/O error, or an error of the engine's `queue`
/// that it reports its own way ([`crate::ioengine::IoEngine::queue_error`]).
pub(super) enum SyncError {
    Io(i32),
    Queue(Box<QueueError>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cadence(fsync: u64, fdatasync: u64) -> Cadence {
        Cadence {
            fsync_blocks: fsync,
            fdatasync_blocks: fdatasync,
            since_fsync: 0,
            since_fdatasync: 0,
            last_file: 0,
        }
    }

    #[test]
    fn a_sync_every_n_writes_of_the_last_file_written() {
        let mut c = cadence(3, 0);
        c.wrote(0);
        c.wrote(1);
        assert_eq!(c.due(), None);
        c.wrote(2);
        assert_eq!(c.due(), Some((Ddir::Sync, 2)));
        assert_eq!(c.due(), None, "the count starts again");
        assert_eq!(cadence(0, 0).due(), None);
    }

    #[test]
    fn fsync_goes_before_fdatasync() {
        let mut c = cadence(2, 2);
        c.wrote(0);
        c.wrote(0);
        assert_eq!(c.due(), Some((Ddir::Sync, 0)));
        assert_eq!(c.due(), Some((Ddir::DataSync, 0)));
        assert_eq!(c.due(), None);
    }
}
