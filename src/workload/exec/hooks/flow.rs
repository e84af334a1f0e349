//! The flow hook (fio's `flow_threshold_exceeded` at the top of `do_io`'s
//! and `do_verify`'s loops): before each I/O the job looks at its share of
//! its flow ([`crate::workload::flow`]); ahead of it, the job waits
//! (`flow_sleep` once its I/O in flight completed, or a yield of its CPU)
//! and looks again.

use std::sync::Arc;

use crate::workload::clock::Clock;
use crate::workload::flow::FlowSeat;
use crate::workload::stop::Stop;

/// The job's seat in its flow.
pub(crate) struct Flow {
    seat: Arc<FlowSeat>,
}

impl Flow {
    /// The hook of a job with a seat in a flow.
    pub(crate) fn new(seat: Option<Arc<FlowSeat>>) -> Option<Flow> {
        seat.map(|seat| Flow { seat })
    }

    /// Before an I/O: `None` when the job may go on (the I/O to come is
    /// counted in the flow), else how long it sleeps before it looks
    /// again, after its I/O in flight completed (0: it yields its CPU and
    /// looks again at once).
    #[inline]
    pub(crate) fn before_issue(&self) -> Option<u64> {
        self.seat.held_back().then(|| self.seat.sleep_ns())
    }

    /// The wait of a held-back job, `sleep_ns` from
    /// [`Flow::before_issue`], on `clock` (fio's `usleep(flow_sleep)`).
    #[cold]
    pub(crate) fn wait<C: Clock>(sleep_ns: u64, clock: &C, stop: &Stop) {
        if sleep_ns > 0 {
            clock.sleep(sleep_ns, stop);
        } else {
            // fio looks again at once; letting the other jobs of the flow
            // run first (there may be more of them than CPUs) changes
            // nothing but how soon they catch up.
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::clock::{FakeClock, FakeTime};
    use crate::workload::flow::Flows;

    fn flows(a: &[&str], b: &[&str]) -> Flows {
        let mut argv = vec!["--ioengine=null", "--size=1m", "--name=a"];
        argv.extend_from_slice(a);
        argv.push("--name=b");
        argv.extend_from_slice(b);
        Flows::join(&crate::plan::testing::plan(&argv).jobs)
    }

    /// Weights 1 and 3, the heavier job idle: `a` goes once (fio's
    /// counter starts at 1: 0/1 <= 1/4), then is held back with its
    /// `flow_sleep`, which its wait sleeps on the clock.
    #[test]
    fn a_job_ahead_of_its_share_waits_its_flow_sleep() {
        let f = flows(&["--flow=1", "--flow_sleep=250"], &["--flow=3"]);
        let hook = Flow::new(f.seat(0)).expect("a has a seat");
        let time = Arc::new(FakeTime::default());
        let clock = FakeClock::new(time.clone());
        let stop = Stop::new();
        assert_eq!(hook.before_issue(), None);
        for _ in 0..3 {
            let ns = hook.before_issue().expect("held back");
            assert_eq!(ns, 250_000);
            Flow::wait(ns, &clock, &stop);
        }
        assert_eq!(time.slept(), (750_000, 3));
        // Once b has issued its share, a goes again.
        let b = f.seat(1).unwrap();
        for _ in 0..3 {
            assert!(!b.held_back());
        }
        assert_eq!(hook.before_issue(), None);
        // Without flow_sleep the wait is a yield: no time passes.
        Flow::wait(0, &clock, &stop);
        assert_eq!(time.slept(), (750_000, 3));
    }

    #[test]
    fn a_job_without_a_flow_has_no_hook() {
        let f = flows(&[], &["--flow=2"]);
        assert!(Flow::new(f.seat(0)).is_none());
        assert!(Flow::new(f.seat(1)).is_some());
    }
}
