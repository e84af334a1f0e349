//! The loop's side of `io_submit_mode=offload`: an offloaded I/O counts
//! as its worker submits and completes it, at the workers' times (see
//! [`crate::workload::offload`]).

use super::super::clock::Clock;
use super::Exec;

impl<C: Clock> Exec<'_, '_, C> {
    /// An I/O was handed to the submit workers: it is accounted as its
    /// worker, at depth 1, submits and completes it (fio sums the workers'
    /// depth, submission and completion counts into the job's).
    pub(super) fn offload_queued(&mut self) {
        let Some(stamps) = self.offload.as_deref() else {
            return;
        };
        if self.time.recording() {
            let (submit, complete) = stamps.marks();
            self.ts.io_submitted(1);
            if submit {
                self.ts.io_submit_batch(1);
            }
            if complete {
                self.ts.io_complete_batch(1);
            }
        }
    }

    /// An offloaded I/O of unit `t` completed: its issue time (set on the
    /// unit) and its completion time (returned), as its worker took them,
    /// on the loop's clock, which reads `now` at the stamps' time `mono`.
    /// Neither comes before the unit was filled.
    pub(super) fn offload_landed(&mut self, t: u32, now: u64, mono: u64) -> u64 {
        let Some(stamps) = self.offload.as_deref() else {
            return now;
        };
        let (issued, done) = stamps.times(t, now, mono);
        let u = self.units.get_mut(t);
        u.issue_ns = issued.max(u.start_ns);
        done.max(u.issue_ns)
    }
}
