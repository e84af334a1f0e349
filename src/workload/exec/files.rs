//! The job's files in the loop (fio's `td_io_open_file` at the start of a
//! pass, `close_files` at its end): opened through the engine, with the
//! cache invalidation and `fadvise_hint` fio does on open.

use super::super::clock::Clock;
use super::Exec;
use crate::ioengine::{FileTarget, OpenFlags};

impl<C: Clock> Exec<'_, '_, C> {
    /// Open (and invalidate) every file; false when one fails.
    pub(super) fn open_files(&mut self) -> bool {
        let job = self.job;
        let spec = job.spec;
        let p = job.pattern();
        let flags = OpenFlags {
            direct: spec.direct,
            write: p.writes(),
            sync: job.set.o_sync,
            dsync: job.set.o_dsync,
            // fio's generic_open_file: O_CREAT for a job that writes.
            create: job.set.create_on_open || p.write,
        };
        for (i, f) in job.files.iter().enumerate() {
            let target = FileTarget {
                path: f.path.clone(),
                flags,
                region_end: f.end(),
            };
            let t0 = self.now();
            match self.engine.open(&target) {
                Ok(id) => self.ids[i] = id,
                Err(e) => {
                    // fio prints no line of its own for it (the job's
                    // `err=` line says it).
                    self.engine.close_all();
                    if let Some(note) = job.open_failure_note(&f.path) {
                        self.log.err(&note);
                    }
                    self.fail_with(e.errno, job.open_verror(&e));
                    return false;
                }
            }
            self.op_ns[i] = self.now().saturating_sub(t0);
            self.op_pending[i] = true;
            if self.caps.needs_files && !self.caps.file_op {
                if job.set.invalidate && !spec.direct {
                    let _ = self.engine.invalidate(self.ids[i]);
                }
                if let Some(advice) = job.set.fadvise {
                    let _ = self.engine.fadvise(self.ids[i], f.start, f.len, advice);
                }
            }
        }
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
        self.progress.set_files_open(job.files.len() as u32);
        if crate::debug::on(crate::debug::Cat::File) {
            self.trace_files("fd open");
        }
        true
    }

    /// After a pass: close the files.
    pub(super) fn end_of_pass(&mut self) {
        if crate::debug::on(crate::debug::Cat::File) {
            self.trace_files("fd close");
        }
        if self.iolog.is_some() || self.replay.is_some() {
            self.iolog_pass_end();
        }
        self.engine.close_all();
        if let Some(e) = self.engine.close_error() {
            self.fail_with(e.errno, self.job.open_verror(&e));
        }
        let dropped = self.engine.take_dropped();
        if dropped > 0 && self.time.recording() {
            self.ts.drop_ios[0] += dropped;
        }
        self.progress.set_files_open(0);
    }
}
