//! The loop's side of the I/O logs ([`crate::workload::iolog`]): a
//! replaying job takes its I/O from the log (fio's `read_iolog_get`:
//! file actions, waits and delays on the way, syncs issued in order),
//! and a job with `write_iolog` logs each I/O it queues and each file
//! its pass opens and closes (fio's `log_io_u`, `log_file`).

use super::super::clock::Clock;
use super::super::iolog::replay::INIT_VERROR;
use super::super::iolog::{Act, Cursor, IologWriter};
use super::super::offsets::Io as NextIo;
use super::{Exec, Halt};
use crate::ddir::Ddir;
use crate::diag::io_reason;

impl<C: Clock> Exec<'_, '_, C> {
    /// Set the logs up as the job's loop starts (fio's `init_iolog`):
    /// what reading the log said, the replay's cursor, the log written.
    pub(super) fn start_iolog(&mut self) {
        let job = self.job;
        if let Some(r) = &job.replay {
            for n in &r.notes {
                self.log.err(&format!("{n}\n"));
            }
            self.replay = Some(Cursor::new(r));
        }
        let o = &job.spec.iolog;
        if o.write_overridden && job.spec.subjob == 0 {
            self.log.err("fio: read iolog overrides write_iolog\n");
        }
        if let Some(path) = &o.write {
            let names = job.files.iter().map(|f| f.path.display().to_string());
            match IologWriter::open(path, names.collect()) {
                Ok(w) => {
                    self.iolog = Some(w);
                    self.gen.closed = Some(Vec::new());
                }
                Err(e) => {
                    self.log
                        .err(&format!("fopen write iolog: {path}: {}\n", io_reason(&e)));
                    self.fail_with(libc::EINVAL, INIT_VERROR.to_string());
                }
            }
        }
    }

    /// The replay's next I/O at `now` (moved on past the waits on the
    /// way); `None` when the pass is over. Syncs are issued here, file
    /// actions only keep their delays (the loop opens the log's files as
    /// the pass starts).
    pub(super) fn replay_next(&mut self, now: &mut u64) -> Option<NextIo> {
        let nfiles = self.job.files.len();
        let mut used = false;
        loop {
            if self.stop.requested() || self.halt != Halt::Running {
                return None;
            }
            let log = self.log;
            let cursor = self.replay.as_mut()?;
            let Some(e) = cursor.next(&mut |m| log.err(&format!("{m}\n"))) else {
                let issued = self.count.issued_bytes;
                cursor.ran_out(used, issued);
                return None;
            };
            used = true;
            let file = e.file as usize;
            match e.act {
                Act::Add => {}
                Act::Open | Act::Close => {
                    self.replay_delay(e.delay_us);
                    *now = self.replay_issue();
                }
                Act::Wait => {
                    // Version 2: until `offset` ms after the job began.
                    let until = e.offset.saturating_mul(1_000_000);
                    let t = self.now();
                    if until > t {
                        self.clock.sleep(until - t, self.stop);
                    }
                    *now = self.now();
                }
                Act::Sync(d) if file < nfiles => {
                    self.replay_delay(e.delay_us);
                    *now = self.replay_issue();
                    if let Err(e) = self.sync_file(file, d, true) {
                        self.sync_failed(e, d, file);
                    }
                }
                // fio's get_io_u fails on an I/O of no length: the pass
                // ends there (a next one goes on after it).
                Act::Io(_) if e.len == 0 => return None,
                Act::Io(dir) if file < nfiles => {
                    self.replay_delay(e.delay_us);
                    *now = self.replay_issue();
                    return Some(NextIo {
                        file,
                        dir,
                        offset: e.offset,
                        len: e.len,
                        is_random: false,
                        wait_ns: 0,
                        wrapped: false,
                    });
                }
                Act::Sync(_) | Act::Io(_) => {}
            }
        }
    }

    /// The replay issues something now: its time.
    fn replay_issue(&mut self) -> u64 {
        let now = self.now();
        if let Some(c) = self.replay.as_mut() {
            c.issued(now);
        }
        now
    }

    /// fio's `iolog_delay`: keep an entry `delay_us` after the last issue.
    fn replay_delay(&mut self, delay_us: u64) {
        if delay_us == 0 {
            return;
        }
        let t0 = self.now();
        let Some(c) = self.replay.as_mut() else {
            return;
        };
        let ns = c.sleep_ns(delay_us, t0);
        if ns == 0 {
            return;
        }
        self.clock.sleep(ns, self.stop);
        let slept = self.now().saturating_sub(t0);
        if let Some(c) = self.replay.as_mut() {
            c.slept(delay_us, slept);
        }
    }

    /// Whether the replay ran out with I/O in flight that fio never
    /// reaps (see [`Cursor::lost`]).
    #[inline]
    pub(super) fn replay_lost(&self) -> bool {
        self.replay.as_ref().is_some_and(|c| c.lost)
    }

    /// Unit `t` completed after its replay ran out: fio counts it as
    /// issued, nothing more.
    #[cold]
    pub(super) fn lose(&mut self, t: u32) {
        let dir = self.units.get(t).io.dir;
        self.units.give_back(t);
        if dir.is_data() && self.time.recording() {
            self.ts.io_failed(dir.index());
        }
    }

    /// `write_iolog`: unit `t` is queued.
    #[cold]
    pub(super) fn log_queued(&mut self, t: u32) {
        let now = self.now();
        let u = self.units.get(t);
        let (file, dir, offset, len) = (u.file, u.io.dir, u.io.offset, u.io.len as u64);
        if let Some(w) = self.iolog.as_mut() {
            w.io(now, file, dir, offset, len);
            w.unit_offset(t, offset);
        }
    }

    /// `write_iolog`: a sync of file `fi` goes out on unit `t` (fio logs
    /// the unit's last offset with it).
    #[cold]
    pub(super) fn log_sync(&mut self, t: u32, fi: usize, dir: Ddir) {
        let now = self.now();
        if let Some(w) = self.iolog.as_mut() {
            let offset = w.last_offset(t);
            w.io(now, fi, dir, offset, 0);
        }
    }

    /// The verify phase starts: fio closes the files first (and reaps
    /// again, whatever happened as the replay ended).
    #[cold]
    pub(super) fn iolog_before_verify(&mut self) {
        if self.iolog.is_some() {
            self.log_pass_over();
        }
        if let Some(c) = self.replay.as_mut() {
            c.lost = false;
        }
    }

    /// A pass is over: its log's files closed; a blktrace replay's depth
    /// is the one the report shows.
    #[cold]
    pub(super) fn iolog_pass_end(&mut self) {
        if self.iolog.is_some() {
            self.log_pass_over();
        }
        if let Some(d) = self.job.replay.as_ref().and_then(|r| r.depth) {
            self.ts.latency_depth = Some(d);
        }
    }

    /// `write_iolog`: the files that ran out are closed.
    pub(super) fn log_closed_files(&mut self) {
        if self.gen.closed.as_ref().is_none_or(Vec::is_empty) {
            return;
        }
        let now = self.now();
        let (Some(closed), Some(w)) = (self.gen.closed.as_mut(), self.iolog.as_mut()) else {
            return;
        };
        for f in closed.drain(..) {
            w.close(now, f);
        }
    }

    /// `write_iolog`: the pass is over, its files closed.
    #[cold]
    pub(super) fn log_pass_over(&mut self) {
        let now = self.now();
        if let Some(w) = self.iolog.as_mut() {
            w.pass_over(now);
        }
    }
}
