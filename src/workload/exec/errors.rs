//! The loop's error policy (fio's `io_u.c` `io_completed` error path,
//! `td_non_fatal_error`, `continue_on_error` and `ignore_error`): an I/O
//! or verify error the job's settings cover is counted and the job goes
//! on; any other ends the job with fio's messages, the first error being
//! the one reported.

use super::super::clock::Clock;
use super::super::errno::{engine_verror, strerror, verify_site, verror};
use super::hooks::verify::Verify;
use super::hooks::Fail;
use super::{Exec, Halt};
use crate::ddir::Ddir;
use crate::ioengine::QueueError;
use crate::plan::resolve::io::{ERR_READ, ERR_VERIFY, ERR_WRITE};
use crate::release::places::Site;

impl<C: Clock> Exec<'_, '_, C> {
    /// An I/O failed with `errno`: go on if `continue_on_error` allows it,
    /// else stop the job with fio's messages.
    #[cold]
    pub(super) fn io_error(&mut self, errno: i32, dir: Ddir, fi: usize, offset: u64, len: usize) {
        if dir.is_data() && self.time.recording() {
            self.ts.io_failed(dir.index());
        }
        let bit = if dir == Ddir::Read {
            ERR_READ
        } else {
            ERR_WRITE
        };
        let dump = || {
            format!(
                "fio: io_u error on file {}: {}: {} offset={offset}, buflen={len}\n",
                crate::diag::show_path(&self.job.files[fi].path),
                strerror(errno),
                dir.name(),
            )
        };
        if self.job.set.non_fatal(bit, errno) {
            if self.job.spec.host.error_dump {
                // `error_dump`: fio prints the errors it lets through too.
                self.log.err(&dump());
            }
            // As for verify errors: reported as the first error, not fatal.
            self.ts.io_error(errno);
            if self.ts.error_msg.is_none() {
                self.ts.error_msg = Some(verror(self.place(Site::IoUError), "io_u error", errno));
            }
            return;
        }
        self.log.err(&dump());
        self.fail_with(
            errno,
            verror(self.place(Site::IoUError), "io_u error", errno),
        );
    }

    /// Unit `t` failed in the engine's `queue` with an error the engine
    /// reports its own way ([`crate::ioengine::IoEngine::queue_error`]):
    /// fio's `io_queue_event` drops the I/O (`clear_io_u`), and the job
    /// ends unless `continue_on_error` covers the error.
    #[cold]
    pub(super) fn queue_failed(&mut self, t: u32, q: QueueError) {
        let u = *self.units.get(t);
        self.units.give_back(t);
        if let Some(v) = self.hooks.verify.as_mut() {
            v.on_failed(&u);
        }
        self.queue_error(u.io.dir, q);
    }

    /// An I/O of direction `dir` failed in `queue` with `q` (see
    /// [`Exec::queue_failed`]; a sync, whose unit its caller keeps).
    #[cold]
    pub(super) fn queue_error(&mut self, dir: Ddir, q: QueueError) {
        if let Some(log) = &q.log {
            self.log.err(log);
        }
        let errno = q.error.errno;
        if dir.is_data() && self.time.recording() {
            self.ts.io_failed(dir.index());
        }
        let bit = if dir == Ddir::Read {
            ERR_READ
        } else {
            ERR_WRITE
        };
        // fio's `td_io_queue` (an engine's error it reports no other way):
        // the job's release's place.
        let place = (q.error.func == "td_io_queue").then(|| self.place(Site::TdIoQueue));
        let msg = engine_verror(&q.error, place);
        if self.job.set.non_fatal(bit, errno) {
            self.ts.io_error(errno);
            if self.ts.error_msg.is_none() {
                self.ts.error_msg = Some(msg);
            }
            return;
        }
        self.fail_with(errno, msg);
    }

    /// A read failed its check: fio's error of the completion path, unless
    /// `continue_on_error` covers verify errors.
    #[cold]
    pub(super) fn verify_failed(&mut self, errno: i32) {
        let (src, func) = verify_site(self.caps.is_sync, self.job.spec.release);
        if self.job.set.non_fatal(ERR_VERIFY, errno) {
            // fio sets the error and clears it again (td_clear_error): the
            // report shows the first one, the job does not count as failed.
            self.ts.io_error(errno);
            if self.ts.error_msg.is_none() {
                self.ts.error_msg = Some(verror(src, func, errno));
            }
            if self.hooks.verify.as_ref().is_some_and(Verify::fatal) {
                // verify_fatal: fio marks the job to terminate.
                self.halt = Halt::Failed;
            }
            return;
        }
        self.fail_with(errno, verror(src, func, errno));
    }

    /// The job fails as a hook said (`f`: after the line it says, if any).
    #[cold]
    pub(super) fn fail(&mut self, f: Fail) {
        if let Some(line) = &f.say {
            self.log.err(line);
        }
        self.fail_with(f.errno, f.msg);
    }

    /// Where the job's release reports `site` (`io_u.c:1876`).
    pub(super) fn place(&self, site: Site) -> &'static str {
        self.job.spec.release.place(site)
    }

    /// The job fails with `errno` (the first error is the one reported)
    /// and stops issuing.
    #[cold]
    pub(super) fn fail_with(&mut self, errno: i32, msg: String) {
        if self.ts.error == 0 {
            self.ts.error = errno;
            self.ts.error_msg = Some(msg);
        }
        self.halt = Halt::Failed;
    }
}
