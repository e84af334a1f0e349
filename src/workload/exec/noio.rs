//! The loop of an engine that does no I/O (fio's `FIO_NOIO` engines,
//! cpuio and exec, through `do_io`): each turn queues a read of nothing,
//! in which the engine does its work, accounts it as fio does (an I/O of
//! no bytes: counted, with its latency), then sleeps the think time the
//! engine asks for (fio's `handle_thinktime` with the `thinktime` the
//! engine set, one block, no spin), cut short by the runtime. The job has
//! no size: it runs until its runtime is over, it is stopped, or the
//! engine (or cpuio's `exit_on_io_done`) says it is done.

use super::super::clock::Clock;
use super::{Exec, Halt};
use crate::ddir::Ddir;

impl<C: Clock> Exec<'_, '_, C> {
    /// The pass of a `no_io` engine.
    pub(super) fn run_noio(&mut self) {
        let exits_when_io_is_done = self.job.spec.engine.exits_when_io_is_done();
        while self.halt == Halt::Running && !self.stop.requested() {
            let now = self.now();
            self.check_ramp(now);
            if self.count.issued_ios > 0 && self.time.runtime_over(now) {
                break;
            }
            if self.progress.snapshot_due() {
                self.serve_snapshot(now);
            }
            // fio's cpuio answers FIO_Q_BUSY and sets td->done: the I/O it
            // was handed is not counted.
            if self.engine.done() || (exits_when_io_is_done && !self.progress.io_jobs_running()) {
                break;
            }
            let Some(t) = self.units.take() else {
                self.reap(1);
                continue;
            };
            let buf = self.units.buf(t);
            let file = self
                .open
                .ids
                .first()
                .copied()
                .unwrap_or(crate::ioengine::FileId(0));
            let u = self.units.get_mut(t);
            u.io.file = file;
            u.io.dir = Ddir::Read;
            u.io.offset = 0;
            u.io.len = 0;
            u.io.buf = buf;
            u.file = 0;
            u.len = 0;
            u.start_ns = now;
            u.offset0 = 0;
            u.numberio = 0;
            u.ver_list = false;
            self.count.issued_ios += 1;
            self.submit(t, false);
            while let Some(note) = self.engine.notice() {
                self.log.note(&note);
            }
            let think_us = self.engine.think_us();
            if think_us > 0 {
                let at = self.now();
                let us = self
                    .time
                    .runtime_left_us(at)
                    .map_or(think_us, |left| think_us.min(left));
                self.clock.pause(us, self.stop);
            }
            self.just_done_ns = None;
        }
        self.drain();
    }
}
