//! The loop's side of flows and of `io_submit_mode=offload`: the flow
//! check before each I/O (fio's `flow_threshold_exceeded` in `do_io` and
//! `do_verify`), and the workers' times of an offloaded I/O (see
//! [`crate::workload::offload`]).

use super::super::clock::Clock;
use super::Exec;

impl<C: Clock> Exec<'_, '_, C> {
    /// Whether the job is ahead of its share of its flow and must look
    /// again before its next I/O; it waited meanwhile (`flow_sleep` after
    /// its I/O in flight completed, or a yield of its CPU). When it is not,
    /// the I/O to come is counted in the flow.
    #[inline]
    pub(super) fn flow_held_back(&mut self) -> bool {
        let Some(seat) = self.flow.as_deref() else {
            return false;
        };
        if !seat.held_back() {
            return false;
        }
        let sleep_ns = seat.sleep_ns();
        self.flow_wait(sleep_ns);
        true
    }

    #[cold]
    fn flow_wait(&mut self, sleep_ns: u64) {
        if sleep_ns > 0 {
            // fio's io_u_quiesce, then usleep(flow_sleep).
            self.drain();
            self.clock.sleep(sleep_ns, self.stop);
        } else {
            // fio looks again at once; letting the other jobs of the flow
            // run first (there may be more of them than CPUs) changes
            // nothing but how soon they catch up.
            std::thread::yield_now();
        }
    }

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
