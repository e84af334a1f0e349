//! The job's files in the loop (fio's `td_io_open_file` at the start of a
//! pass, `close_files` at its end): opened through the engine, with the
//! cache invalidation, `fadvise_hint` and `write_hint` fio applies on
//! open.
//!
//! With `openfiles` below the number of files, nothing is opened when the
//! pass starts: the file service opens a file when it first picks it and
//! closes it when it is done (see `offsets::open_limit`); the loop
//! carries those opens and closes out on the engine
//! ([`Exec::file_events`]) before the I/O that needed them.

use super::super::clock::Clock;
use super::super::errno::verror;
use super::super::offsets::open_limit::FileEvent;
use super::hooks::replay::Replayer;
use super::sync::SyncError;
use super::Exec;
use crate::ddir::Ddir;
use crate::ioengine::{FileId, FileTarget, OpenFlags};
use crate::release::places::Site;

/// The job's files on the engine.
pub(super) struct OpenFiles {
    /// The engine's id of each file.
    pub(super) ids: Box<[FileId]>,
    /// Per file: how long opening it took (the file-operation engines),
    /// and whether that time is still to be recorded.
    op_ns: Box<[u64]>,
    op_pending: Box<[bool]>,
    /// Files the engine has open (the status line's count).
    pub(super) count: u32,
    /// A file with nothing to do failed to open: the job's error is set,
    /// and the job stops after its next I/O (fio's file service skips
    /// the file, and `do_io` stops on the error once that I/O is out).
    pub(super) failed: bool,
    /// The file-operation engines: the files that failed to open as the
    /// pass opened them all, with the job's error each would set (fio
    /// finds out when its file service first picks the file).
    broken: Vec<(usize, i32, String)>,
}

impl OpenFiles {
    /// `n` files, none open.
    pub(super) fn new(n: usize) -> OpenFiles {
        OpenFiles {
            ids: vec![FileId(0); n].into_boxed_slice(),
            op_ns: vec![0; n].into_boxed_slice(),
            op_pending: vec![false; n].into_boxed_slice(),
            count: 0,
            failed: false,
            broken: Vec::new(),
        }
    }

    /// File `i` opened; that took `ns`.
    fn opened(&mut self, i: usize, ns: u64) {
        self.count += 1;
        self.op_ns[i] = ns;
        self.op_pending[i] = true;
    }

    /// The time file `i` took to open, once per open (a file operation's
    /// time, recorded with its first completion).
    #[inline]
    pub(super) fn take_open_ns(&mut self, i: usize) -> Option<u64> {
        std::mem::take(&mut self.op_pending[i]).then(|| self.op_ns[i])
    }
}

impl<C: Clock> Exec<'_, '_, C> {
    /// Open (and invalidate) every file, or, with `openfiles`, none yet;
    /// false when one fails.
    pub(super) fn open_files(&mut self) -> bool {
        let job = self.job;
        let lazy = self.gen.select.limit.is_some();
        self.open.count = 0;
        self.open.broken.clear();
        self.gen.select.clear_broken();
        if !lazy {
            for i in 0..job.files.len() {
                if !self.open_file(i) {
                    return false;
                }
            }
        }
        self.open_ignored();
        let started = self.engine.post_init();
        while let Some(note) = self.engine.notice() {
            self.log.note(&note);
        }
        if let Err(e) = started {
            self.engine.close_all();
            // io_uring opens its registered files here.
            self.fail_with(e.errno, job.open_verror(&e));
            return false;
        }
        self.progress.set_files_open(self.open.count);
        if !lazy && crate::debug::on(crate::debug::Cat::File) {
            self.trace_files("fd open");
        }
        true
    }

    /// Open the job's files that have nothing to do (fio opens them as its
    /// file service first picks them): a writer creates them; a failure
    /// is the job's error, which stops it after its next I/O.
    fn open_ignored(&mut self) {
        let job = self.job;
        for path in &job.ignored {
            let target = FileTarget {
                path: path.clone(),
                flags: self.open_flags(),
                region_end: 0,
            };
            match self.engine.open(&target) {
                Ok(_) => self.open.count += 1,
                Err(e) => {
                    if job.spec.explain {
                        self.log.err(&format!(
                            "rfio: {}: job '{}': file {} has no size, so it gets no I/O, \
                             but the job opens it and that failed ({}): the job stops with \
                             error {} after its first I/O, as fio's does (give the job a \
                             size= or filesize=, or drop the file from filename=)\n",
                            job.spec.span,
                            crate::diag::quote(&job.spec.name, 80),
                            crate::diag::quote(&path.display().to_string(), 200),
                            std::io::Error::from_raw_os_error(e.errno),
                            e.errno
                        ));
                    }
                    if self.ts.error == 0 {
                        self.ts.error = e.errno;
                        self.ts.error_msg = Some(job.open_verror(&e));
                    }
                    self.open.failed = true;
                }
            }
        }
    }

    /// How the job opens its files (fio's `generic_open_file` flags).
    fn open_flags(&self) -> OpenFlags {
        let job = self.job;
        let spec = job.spec;
        let p = job.pattern();
        let allow = spec.file.allow_create;
        OpenFlags {
            direct: spec.direct,
            write: p.writes(),
            sync: job.set.o_sync,
            dsync: job.set.o_dsync,
            // fio's generic_open_file: O_CREAT for a job that writes, and
            // never without allow_file_create.
            create: allow && (job.set.create_on_open || p.write),
            create_on_open: allow && job.set.create_on_open,
            readonly: spec.readonly,
            atomic: spec.file.atomic,
        }
    }

    /// Open file `i` through the engine and apply what fio applies on
    /// open; false (the job failed) when that fails.
    fn open_file(&mut self, i: usize) -> bool {
        let job = self.job;
        let spec = job.spec;
        let f = &job.files[i];
        let target = FileTarget {
            path: f.path.clone(),
            flags: self.open_flags(),
            region_end: f.end(),
        };
        let t0 = self.now();
        match self.engine.open(&target) {
            Ok(id) => self.open.ids[i] = id,
            Err(e) if self.caps.file_op => {
                self.file_op_failed(i, &e);
                return true;
            }
            Err(e) => {
                // fio prints no line of its own for it (the job's
                // `err=` line says it).
                self.engine.close_all();
                if let Some(note) = job.open_failure_note(&f.path) {
                    self.log.err(&note);
                }
                if e.errno == libc::EMFILE {
                    // fio's td_io_open_file (which goes on to the next file
                    // and says it again for each).
                    self.log.err(&format!(
                        "fio: try reducing/setting openfiles (failed at {} of {})\n",
                        self.open.count,
                        job.files.len()
                    ));
                }
                self.fail_with(e.errno, job.open_verror(&e));
                return false;
            }
        }
        let took = self.now().saturating_sub(t0);
        self.open.opened(i, took);
        if self.caps.needs_files && !self.caps.file_op {
            if job.set.invalidate && !spec.direct {
                let _ = self.engine.invalidate(self.open.ids[i]);
            }
            if let Some(advice) = job.set.fadvise {
                let _ = self
                    .engine
                    .fadvise(self.open.ids[i], f.start, f.len, advice);
            }
            if let Some(hint) = spec.file.write_hint {
                let fd = self.engine.raw_fd(self.open.ids[i]);
                let r = fd.map_or(Ok(()), |fd| {
                    crate::ioengine::set_write_hint(fd, spec.direct, hint.0)
                });
                if let Err(errno) = r {
                    self.engine.close_all();
                    self.fail_with(
                        errno,
                        verror(self.place(Site::FcntlWriteHint), "fcntl write hint", errno),
                    );
                    return false;
                }
            }
        }
        true
    }

    /// A file-operation engine's open (its operation) of file `i` failed.
    /// fio's file service goes on to the next file: the job's error is
    /// set (the first one is reported) and the job stops after its next
    /// I/O. With `openfiles` the file was just picked, and the loop draws
    /// again; else the pass is opening every file, and the file service
    /// finds out when it first picks this one ([`Exec::broken_picked`]).
    #[cold]
    fn file_op_failed(&mut self, i: usize, e: &crate::ioengine::EngineError) {
        let job = self.job;
        if e.errno == libc::EMFILE {
            self.log.err(&format!(
                "fio: try reducing/setting openfiles (failed at {} of {})\n",
                self.open.count,
                job.files.len()
            ));
        }
        let msg = job.open_verror(e);
        if self.gen.select.limit.is_some() {
            self.gen.select.open_failed(i);
            self.set_open_error(e.errno, msg);
        } else {
            self.gen.select.set_broken(i);
            self.open.broken.push((i, e.errno, msg));
        }
    }

    /// The file service passed over a file that failed to open (see
    /// [`Exec::file_op_failed`]): its error is the job's, which stops
    /// after its next I/O, or now when there is none (`more` false).
    #[cold]
    pub(super) fn broken_picked(&mut self, i: usize, more: bool) {
        let Some(k) = self.open.broken.iter().position(|b| b.0 == i) else {
            return;
        };
        let (_, errno, msg) = self.open.broken.swap_remove(k);
        self.set_open_error(errno, msg);
        if !more {
            self.halt = super::Halt::Failed;
        }
    }

    /// A failed open is the job's error (unless one is already), and the
    /// job stops after its next I/O.
    fn set_open_error(&mut self, errno: i32, msg: String) {
        if self.ts.error == 0 {
            self.ts.error = errno;
            self.ts.error_msg = Some(msg);
        }
        self.open.failed = true;
    }

    /// Carry out the opens and closes the file service decided (with
    /// `openfiles`); false when an open failed (the job failed).
    pub(super) fn file_events(&mut self) -> bool {
        loop {
            let Some(ev) = self.gen.select.limit.as_mut().and_then(|l| l.next_event()) else {
                return true;
            };
            match ev {
                FileEvent::Open(i) => {
                    if !self.open_file(i) {
                        return false;
                    }
                }
                FileEvent::Close(i) => {
                    if self.job.set.fsync_on_close && self.job.spec.pattern.write {
                        // fio's put_file: fsync_on_close syncs at each close.
                        let _ = self.sync_file(i, Ddir::Sync, false);
                    }
                    self.engine.close_file(self.open.ids[i]);
                    self.open.count = self.open.count.saturating_sub(1);
                }
            }
            self.progress.set_files_open(self.open.count);
        }
    }

    /// The engine's id of file `fi` for an I/O outside the file service
    /// (a verify read): with `openfiles`, a closed file is opened first,
    /// whatever the limit (as fio's verify path), and the I/O holds it
    /// open until it completes.
    pub(super) fn file_id(&mut self, fi: usize) -> FileId {
        if self.gen.select.limit.is_some() {
            self.gen.select.open_outside(fi);
            self.file_events();
        }
        self.open.ids[fi]
    }

    /// Whether file `fi` is open on the engine (always, without
    /// `openfiles`).
    pub(super) fn file_open(&self, fi: usize) -> bool {
        self.gen.select.limit.as_ref().is_none_or(|l| l.is_open(fi))
    }

    /// A data I/O of file `fi` is over (completed, failed, or given up):
    /// with `openfiles`, a file closing waits for it.
    #[inline]
    pub(super) fn file_io_done(&mut self, fi: usize) {
        if let Some(l) = self.gen.select.limit.as_mut() {
            l.put(fi);
        }
    }

    /// The file service refused a pick (`openfiles`): reap one I/O, after
    /// which it may pick again.
    pub(super) fn file_busy(&mut self) -> bool {
        if !self.gen.select.take_busy() {
            return false;
        }
        self.reap(1);
        true
    }

    /// Sync file `fi` as [`Exec::sync_file`] does, first opening it when
    /// `openfiles` closed it, and closing it again after (fio's
    /// `fio_file_fsync`).
    pub(super) fn sync_any(&mut self, fi: usize, dir: Ddir, record: bool) -> Result<(), SyncError> {
        if self.file_open(fi) {
            return self.sync_file(fi, dir, record);
        }
        if let Some(l) = self.gen.select.limit.as_mut() {
            l.open(fi);
        }
        if !self.file_events() {
            return Err(SyncError::Io(self.ts.error));
        }
        let r = self.sync_file(fi, dir, record);
        if let Some(l) = self.gen.select.limit.as_mut() {
            l.close(fi);
        }
        self.file_events();
        r
    }

    /// After a pass: close the files.
    pub(super) fn end_of_pass(&mut self) {
        if crate::debug::on(crate::debug::Cat::File) {
            self.trace_files("fd close");
        }
        // Pass end: the iolog hook logs the files closed; a blktrace
        // replay's depth is the one the report shows.
        if let Some(l) = self.hooks.iolog.as_mut() {
            l.pass_ends(self.clock.now());
        }
        if let Some(d) = self.hooks.replay.as_ref().and_then(Replayer::depth) {
            self.ts.latency_depth = Some(d);
        }
        self.engine.close_all();
        if let Some(e) = self.engine.close_error() {
            self.fail_with(e.errno, self.job.open_verror(&e));
        }
        let dropped = self.engine.take_dropped();
        if dropped > 0 && self.time.recording() {
            self.ts.drop_ios[0] += dropped;
        }
        self.open.count = 0;
        self.progress.set_files_open(0);
    }
}
