//! Syncs of the loop: `fsync=N`/`fdatasync=N` after every N writes (fio's
//! `should_fsync` and `td->fsync_blocks` in `do_io`), `sync_file_range`
//! every N writes (fio's `get_rw_ddir`: when the job's write count is a
//! multiple of N and the last I/O was no sync), and `end_fsync`/
//! `fsync_on_close` at the end of a pass. A sync goes through the engine
//! as an I/O of its own, after everything in flight; a
//! `sync_file_range(2)` is made on the engine's descriptor of the file,
//! over the range written since the file's last sync.

use super::super::clock::Clock;
use super::{Exec, Halt};
use crate::ddir::Ddir;
use crate::ioengine::{QueueError, Queued};
use crate::plan::resolve::files::SyncRange;
use crate::plan::resolve::io::IoOptions;

/// A sync the loop issues: `fsync`/`fdatasync` (as `Ddir::Sync` and
/// `Ddir::DataSync`), or `sync_file_range`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Due {
    Sync(Ddir),
    Range(SyncRange),
}

/// When the next sync of `fsync=N`, `fdatasync=N` or `sync_file_range`
/// is due, and of which file (fio's `get_rw_ddir`: a sync is due when the
/// job's count of issued writes is a multiple of N and the last I/O was
/// not a sync; `fsync` goes first, `sync_file_range` last).
#[derive(Debug, Clone)]
pub(super) struct Cadence {
    fsync_blocks: u64,
    fdatasync_blocks: u64,
    range: Option<SyncRange>,
    /// Writes issued (fio's `io_issues[WRITE]`, over the whole job).
    writes: u64,
    /// The last I/O was a sync (fio's `last_was_sync`; 3.38's
    /// `ddir_sync(last_ddir_issued)`).
    last_was_sync: bool,
    /// A sync is due only right after a write was issued, and a new pass
    /// keeps what was issued last (fio 3.38's `last_ddir_issued`;
    /// `IoOptions::sync_after_writes_only`).
    after_writes_only: bool,
    /// The last I/O issued was a write.
    last_write: bool,
    /// The file of the last write, which a due sync syncs.
    last_file: usize,
    /// Per file, with `sync_file_range`: the range written since its last
    /// sync (fio's `first_write`, `last_write`; empty without it).
    written: Box<[Option<(u64, u64)>]>,
}

impl Cadence {
    pub(super) fn new(set: &IoOptions) -> Cadence {
        Cadence {
            fsync_blocks: set.fsync_blocks,
            fdatasync_blocks: set.fdatasync_blocks,
            range: None,
            writes: 0,
            last_was_sync: false,
            after_writes_only: set.sync_after_writes_only,
            last_write: false,
            last_file: 0,
            written: Box::default(),
        }
    }

    /// The same with `sync_file_range` (if any) over `nfiles` files.
    pub(super) fn with_range(self, range: Option<SyncRange>, nfiles: usize) -> Cadence {
        Cadence {
            range,
            written: match range {
                Some(_) => vec![None; nfiles].into_boxed_slice(),
                None => Box::default(),
            },
            ..self
        }
    }

    /// An I/O of direction `dir`, `len` bytes at `offset` of file `fi`,
    /// was issued.
    #[inline]
    pub(super) fn issued(&mut self, dir: Ddir, fi: usize, offset: u64, len: u64) {
        self.last_was_sync = false;
        self.last_write = dir == Ddir::Write;
        if dir != Ddir::Write {
            return;
        }
        self.writes += 1;
        self.last_file = fi;
        if self.range.is_some() {
            let end = offset + len;
            self.written[fi] = Some(match self.written[fi] {
                Some((lo, hi)) => (lo.min(offset), hi.max(end)),
                None => (offset, end),
            });
        }
    }

    /// A new pass (fio's `reset_io_counters`).
    pub(super) fn new_pass(&mut self) {
        if !self.after_writes_only {
            self.last_was_sync = false;
        }
    }

    /// Whether the job's writes are at a multiple of `n` (0: never).
    #[inline]
    fn at(&self, n: u64) -> bool {
        n > 0 && self.writes % n == 0
    }

    /// The sync due now, if any, and the file to sync.
    #[inline]
    pub(super) fn due(&mut self) -> Option<(Due, usize)> {
        if self.last_was_sync || self.writes == 0 || (self.after_writes_only && !self.last_write) {
            return None;
        }
        let due = if self.at(self.fsync_blocks) {
            Due::Sync(Ddir::Sync)
        } else if self.at(self.fdatasync_blocks) {
            Due::Sync(Ddir::DataSync)
        } else {
            match self.range {
                Some(r) if self.at(r.every) => Due::Range(r),
                _ => return None,
            }
        };
        self.last_was_sync = true;
        self.last_write = false;
        Some((due, self.last_file))
    }

    /// File `fi` was synced: what it had written is on its way (fio
    /// forgets the file's written range at any sync).
    fn synced(&mut self, fi: usize) {
        if let Some(w) = self.written.get_mut(fi) {
            *w = None;
        }
    }
}

impl<C: Clock> Exec<'_, '_, C> {
    /// `fsync=N`/`fdatasync=N`: sync the last written file after every N
    /// writes. Returns whether a sync was issued.
    pub(super) fn sync_due(&mut self) -> bool {
        let Some((due, fi)) = self.sync.due() else {
            return false;
        };
        match due {
            Due::Sync(dir) => {
                if let Err(e) = self.sync_any(fi, dir, true) {
                    self.sync_failed(e, dir, fi);
                }
            }
            Due::Range(r) => {
                if let Err(e) = self.sync_range(fi, r) {
                    self.io_error(e, Ddir::Sync, fi, 0, 0);
                }
            }
        }
        self.sync.synced(fi);
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

    /// `sync_file_range(2)` of what file `fi` wrote since its last sync,
    /// after everything in flight. fio issues it as an I/O of direction
    /// `DDIR_SYNC_FILE_RANGE`, which its statistics count in the slot
    /// after `sync`'s: its latency is a sync latency, and the call is
    /// counted among the writes' short I/Os (`total_io_u[5]` is
    /// `short_io_u[1]`), not the syncs' total.
    fn sync_range(&mut self, fi: usize, r: SyncRange) -> Result<(), i32> {
        self.drain();
        let reopened = !self.file_open(fi);
        if reopened {
            if let Some(l) = self.gen.select.limit.as_mut() {
                l.open(fi);
            }
            if !self.file_events() {
                return Err(self.ts.error);
            }
        }
        let (lo, hi) = self
            .sync
            .written
            .get(fi)
            .copied()
            .flatten()
            .unwrap_or((0, 0));
        let t0 = self.now();
        let result = match self.engine.raw_fd(self.open.ids[fi]) {
            Some(fd) => crate::ioengine::sync_range(fd, lo, hi - lo, r.flags),
            None => Ok(0),
        };
        if result.is_ok() && self.time.recording() {
            let lat = self.now().saturating_sub(t0);
            self.ts.io_submitted(1);
            self.ts.sync_in_short_slot(1, lat);
        }
        if reopened {
            if let Some(l) = self.gen.select.limit.as_mut() {
                l.close(fi);
            }
            self.file_events();
        }
        result.map(|_| ())
    }

    /// At the end of a pass (inside its time, as fio's `do_io`):
    /// `end_fsync`/`fsync_on_close` for a writing job.
    pub(super) fn final_syncs(&mut self) {
        let job = self.job;
        // fio's should_fsync: not right after a sync.
        if self.halt != Halt::Failed
            && !self.sync.last_was_sync
            && job.pattern().write
            && (job.set.end_fsync || job.set.end_syncfs || job.set.fsync_on_close)
        {
            if job.set.end_syncfs {
                // fio 3.42: one syncfs(2) per file system, and no fsync.
                self.sync_file_systems();
                return;
            }
            for i in 0..job.files.len() {
                if self.sync_any(i, Ddir::Sync, false).is_err() {
                    self.log.err(&format!(
                        "fio: end_fsync failed for file {}\n",
                        job.files[i].path.display()
                    ));
                }
            }
        }
    }

    /// `end_syncfs` (fio 3.42's `fio_syncfs`): syncfs(2) of each file
    /// system holding a regular file of the job (the directory of the
    /// first such file of each, by its `st_dev`), after everything in
    /// flight. Counted nowhere, as `end_fsync`; an engine without files
    /// (null) syncs nothing, as fio's queues its sync as a no-op.
    fn sync_file_systems(&mut self) {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        use std::path::Path;
        let job = self.job;
        self.drain();
        let assumed = job.spec.file.filetype;
        let mut seen: Vec<u64> = Vec::new();
        for f in job.files.iter() {
            // fio's add_file_fs: regular files only, by the type stat(2)
            // gave (or `filetype` says).
            let regular = match assumed {
                Some(t) => t == crate::plan::resolve::files::FileType::File,
                None => std::fs::metadata(&f.path).map_or(true, |m| m.is_file()),
            };
            if !regular {
                continue;
            }
            let dir = match f.path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            let Ok(meta) = std::fs::metadata(dir) else {
                self.log.err(&format!(
                    "fio: failed to get dir {} information\n",
                    dir.display()
                ));
                continue;
            };
            if seen.contains(&meta.dev()) {
                continue;
            }
            seen.push(meta.dev());
            crate::debug::dprint!(crate::debug::Cat::Io, "sync FS {}\n", dir.display());
            if !self.caps.needs_files {
                continue;
            }
            let Ok(d) = std::fs::File::open(dir) else {
                self.log
                    .err(&format!("open {} for syncfs failed\n", dir.display()));
                continue;
            };
            // SAFETY: syncfs(2) takes a descriptor, open for the call.
            if unsafe { libc::syncfs(d.as_raw_fd()) } != 0 {
                self.log.err(&format!("syncfs {} failed\n", dir.display()));
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
        if let Some(l) = self.hooks.iolog.as_mut() {
            l.on_sync(self.clock.now(), t, fi, dir);
        }
        let file = self.open.ids[fi];
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
            if self.engine.done() {
                // The engine gave up on its peer (the job was stopped, or
                // its time is up, with the peer silent): no sync, no error.
                self.units.give_back(t);
                self.halt = Halt::Done;
                return Ok(());
            }
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
            match dir {
                Ddir::DataSync => self.ts.sync_in_short_slot(0, lat),
                _ => self.ts.sync_done(lat),
            }
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
        let set = IoOptions {
            fsync_blocks: fsync,
            fdatasync_blocks: fdatasync,
            ..crate::plan::testing::job(&["--name=x", "--size=1m"]).io
        };
        Cadence::new(&set)
    }

    fn write(c: &mut Cadence, fi: usize) {
        c.issued(Ddir::Write, fi, 0, 4096);
    }

    #[test]
    fn a_sync_every_n_writes_of_the_last_file_written() {
        let mut c = cadence(3, 0);
        write(&mut c, 0);
        write(&mut c, 1);
        assert_eq!(c.due(), None);
        write(&mut c, 2);
        assert_eq!(c.due(), Some((Due::Sync(Ddir::Sync), 2)));
        assert_eq!(c.due(), None, "never right after a sync");
        assert_eq!(cadence(0, 0).due(), None);
    }

    #[test]
    fn fsync_goes_first_and_a_read_allows_another_sync() {
        let mut c = cadence(2, 2);
        write(&mut c, 0);
        write(&mut c, 0);
        assert_eq!(c.due(), Some((Due::Sync(Ddir::Sync), 0)));
        assert_eq!(c.due(), None, "fio: no fdatasync right after the fsync");
        // A read between: the write count is still a multiple, fio syncs
        // again (its get_rw_ddir).
        c.issued(Ddir::Read, 0, 0, 4096);
        assert_eq!(c.due(), Some((Due::Sync(Ddir::Sync), 0)));
        write(&mut c, 0);
        assert_eq!(c.due(), None);
        let mut d = cadence(0, 2);
        write(&mut d, 1);
        write(&mut d, 1);
        assert_eq!(d.due(), Some((Due::Sync(Ddir::DataSync), 1)));
    }

    #[test]
    fn sync_file_range_every_n_writes_after_fsync() {
        let r = SyncRange {
            flags: libc::SYNC_FILE_RANGE_WRITE,
            every: 2,
        };
        let mut c = cadence(4, 0).with_range(Some(r), 2);
        c.issued(Ddir::Write, 1, 8192, 4096);
        assert_eq!(c.due(), None);
        c.issued(Ddir::Write, 1, 0, 4096);
        assert_eq!(c.due(), Some((Due::Range(r), 1)));
        assert_eq!(c.written[1], Some((0, 12288)), "the range written");
        c.synced(1);
        assert_eq!(c.written[1], None);
        write(&mut c, 0);
        write(&mut c, 0);
        // Write 4: fsync=4 goes first; the range sync is not right after.
        assert_eq!(c.due(), Some((Due::Sync(Ddir::Sync), 0)));
        assert_eq!(c.due(), None);
    }
}
