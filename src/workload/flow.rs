//! Flows (fio 3.33's `flow.c`): jobs with a `flow` weight and the same
//! `flow_id` share one counter of the I/Os they issue. Before each I/O a
//! job compares its own count's share of the flow's counter with its
//! weight's share of the flow's weights; while it is ahead it is held back
//! (it sleeps `flow_sleep` µs after its I/O in flight completed, or looks
//! again at once), else both counters count the I/O.
//!
//! As in fio:
//!
//! - every job of the run joins its flow when the run starts (fio's
//!   `add_job`), in job order, whether its group runs first or last: a
//!   job of a later group weighs on the jobs running before it;
//! - a job leaves its flow when it is over (fio's `reap_threads`): its
//!   count and weight are taken off, and the others' shares change;
//! - the flow's counter starts at 1, a job's at 0;
//! - the weights add up in 32 bits, and the shares are compared in double
//!   precision.
//!
//! Counters are atomics read and added to without locks (fio's
//! `atomic_load_relaxed`/`atomic_add`); joining and leaving take the
//! flow's lock. Nothing here reads the clock or sleeps.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::plan::resolve::flow::FlowOptions;
use crate::plan::spec::JobSpec;

/// One flow: the jobs of one `flow_id`.
#[derive(Debug)]
pub(crate) struct Flow {
    id: u32,
    /// fio's `flow->flow_counter`: 1 plus the I/Os counted by its jobs.
    counter: AtomicU64,
    /// fio's `flow->total_weight` (wraps at 32 bits, as fio's).
    total_weight: AtomicU32,
    /// Joining and leaving (fio's `flow_lock`).
    lock: Mutex<()>,
}

impl Flow {
    fn new(id: u32) -> Flow {
        Flow {
            id,
            counter: AtomicU64::new(1),
            total_weight: AtomicU32::new(0),
            lock: Mutex::new(()),
        }
    }

    /// The flow's counter now.
    #[cfg(test)]
    pub(crate) fn counter(&self) -> u64 {
        self.counter.load(Ordering::Relaxed)
    }

    /// The sum of its members' weights now.
    #[cfg(test)]
    pub(crate) fn total_weight(&self) -> u32 {
        self.total_weight.load(Ordering::Relaxed)
    }
}

/// One job's membership of its flow (fio's `td->flow` and
/// `td->flow_counter`).
#[derive(Debug)]
pub(crate) struct FlowSeat {
    flow: Arc<Flow>,
    weight: u32,
    /// `flow_sleep` in ns.
    sleep_ns: u64,
    /// fio's `td->flow_counter`: the I/Os this job counted. Only the job's
    /// thread adds to it.
    own: AtomicU64,
    left: AtomicBool,
}

impl FlowSeat {
    /// Join `flow` with `weight` (fio's `flow_init_job`).
    fn join(flow: Arc<Flow>, o: &FlowOptions) -> FlowSeat {
        {
            let _g = flow.lock.lock().unwrap_or_else(|e| e.into_inner());
            flow.total_weight.fetch_add(o.weight, Ordering::Relaxed);
        }
        FlowSeat {
            flow,
            weight: o.weight,
            sleep_ns: o.sleep_us.saturating_mul(1000),
            own: AtomicU64::new(0),
            left: AtomicBool::new(false),
        }
    }

    /// fio's `flow_threshold_exceeded` without its sleep: whether the job
    /// is ahead of its share and must wait; when it is not, the I/O it is
    /// about to issue is counted (in the flow and in its own count).
    #[inline]
    pub(crate) fn held_back(&self) -> bool {
        let own = self.own.load(Ordering::Relaxed);
        let counter_share = own as f64 / self.flow.counter.load(Ordering::Relaxed) as f64;
        let weight_share =
            f64::from(self.weight) / f64::from(self.flow.total_weight.load(Ordering::Relaxed));
        if counter_share > weight_share {
            return true;
        }
        self.flow.counter.fetch_add(1, Ordering::Relaxed);
        self.own.store(own + 1, Ordering::Relaxed);
        false
    }

    /// How long a held-back job sleeps before it looks again (0: it looks
    /// again at once).
    #[inline]
    pub(crate) fn sleep_ns(&self) -> u64 {
        self.sleep_ns
    }

    /// The I/Os this job counted in its flow.
    #[cfg(test)]
    pub(crate) fn counted(&self) -> u64 {
        self.own.load(Ordering::Relaxed)
    }

    /// The job's flow.
    #[cfg(test)]
    pub(crate) fn flow(&self) -> &Flow {
        &self.flow
    }

    /// The job is over: its count and weight leave the flow (fio's
    /// `flow_exit_job`). Only the first call counts.
    pub(crate) fn leave(&self) {
        if self.left.swap(true, Ordering::Relaxed) {
            return;
        }
        let flow = &self.flow;
        let _g = flow.lock.lock().unwrap_or_else(|e| e.into_inner());
        flow.counter
            .fetch_sub(self.own.load(Ordering::Relaxed), Ordering::Relaxed);
        flow.total_weight.fetch_sub(self.weight, Ordering::Relaxed);
    }
}

/// The flows of one run, and each job's seat in its flow.
#[derive(Debug, Default)]
pub(crate) struct Flows {
    seats: Vec<Option<Arc<FlowSeat>>>,
}

impl Flows {
    /// Every job of `jobs` with a weight joins its flow, in order.
    pub(crate) fn join(jobs: &[JobSpec]) -> Flows {
        let mut flows: Vec<Arc<Flow>> = Vec::new();
        let seats = jobs
            .iter()
            .map(|spec| {
                let o = spec.flow.as_ref()?;
                let flow = match flows.iter().find(|f| f.id == o.id) {
                    Some(f) => Arc::clone(f),
                    None => {
                        let f = Arc::new(Flow::new(o.id));
                        flows.push(Arc::clone(&f));
                        f
                    }
                };
                Some(Arc::new(FlowSeat::join(flow, o)))
            })
            .collect();
        Flows { seats }
    }

    /// Job `i`'s seat, if it is in a flow.
    pub(crate) fn seat(&self, i: usize) -> Option<Arc<FlowSeat>> {
        self.seats.get(i).cloned().flatten()
    }

    /// Job `i` is over: it leaves its flow.
    pub(crate) fn leave(&self, i: usize) {
        if let Some(Some(seat)) = self.seats.get(i) {
            seat.leave();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(args: &[&str]) -> crate::plan::spec::Plan {
        crate::plan::testing::plan(args)
    }

    /// Two jobs of weights 1 and 3 that try one I/O each in turn: the
    /// heavier one is never held back, the lighter one is held to a quarter
    /// of the flow (within one I/O).
    #[test]
    fn shares_follow_the_weights() {
        let p = plan(&[
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--flow=1",
            "--name=b",
            "--flow=3",
        ]);
        let flows = Flows::join(&p.jobs);
        let (a, b) = (flows.seat(0).unwrap(), flows.seat(1).unwrap());
        assert_eq!(a.flow().total_weight(), 4);
        assert!(Arc::ptr_eq(&a.flow, &b.flow));
        for _ in 0..3000 {
            a.held_back();
            assert!(!b.held_back());
        }
        let (na, nb) = (a.counted(), b.counted());
        assert_eq!(na + nb + 1, a.flow().counter());
        assert_eq!(nb, 3000);
        assert!(na.abs_diff(1000) <= 1, "{na}");
    }

    /// fio's arithmetic, step by step: the flow's counter starts at 1, a
    /// job is held back once its share of it is above its share of the
    /// weights, and ties go through.
    #[test]
    fn the_first_steps_are_fios() {
        let p = plan(&[
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--flow=1",
            "--name=b",
            "--flow=1",
        ]);
        let flows = Flows::join(&p.jobs);
        let (a, b) = (flows.seat(0).unwrap(), flows.seat(1).unwrap());
        // 0/1 <= 1/2: counted (a 1, flow 2); 1/2 <= 1/2: counted (a 2,
        // flow 3); 2/3 > 1/2: held back.
        assert!(!a.held_back());
        assert!(!a.held_back());
        assert!(a.held_back());
        assert_eq!((a.counted(), a.flow().counter()), (2, 3));
        // b: 0/3, 1/4, 2/5 go; 3/6 goes (a tie); 4/7 is held back.
        for _ in 0..4 {
            assert!(!b.held_back());
        }
        assert!(b.held_back());
        assert!(!a.held_back(), "a's share fell to 2/7");
    }

    /// Flows are per id; a job without a weight has no seat; a job that
    /// leaves takes its count and weight with it, once.
    #[test]
    fn ids_seats_and_leaving() {
        let p = plan(&[
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--flow=2",
            "--flow_id=1",
            "--name=b",
            "--flow=5",
            "--flow_id=2",
            "--name=c",
            "--name=d",
            "--flow=1",
            "--flow_id=1",
            "--flow_sleep=50",
        ]);
        let flows = Flows::join(&p.jobs);
        let (a, b, d) = (
            flows.seat(0).unwrap(),
            flows.seat(1).unwrap(),
            flows.seat(3).unwrap(),
        );
        assert!(flows.seat(2).is_none());
        assert!(Arc::ptr_eq(&a.flow, &d.flow) && !Arc::ptr_eq(&a.flow, &b.flow));
        assert_eq!((a.flow().total_weight(), b.flow().total_weight()), (3, 5));
        assert_eq!((a.sleep_ns(), d.sleep_ns()), (0, 50_000));
        for _ in 0..10 {
            a.held_back();
        }
        let counted = a.counted();
        assert!(counted > 0);
        let before = a.flow().counter();
        flows.leave(0);
        flows.leave(0);
        assert_eq!(d.flow().counter(), before - counted);
        assert_eq!(d.flow().total_weight(), 1);
        flows.leave(2);
        flows.leave(9);
    }

    /// A lone job is never held back: its share of the counter stays
    /// below 1 (the counter starts at 1).
    #[test]
    fn a_lone_job_is_never_held_back() {
        let p = plan(&["--name=a", "--ioengine=null", "--size=1m", "--flow=7"]);
        let flows = Flows::join(&p.jobs);
        let a = flows.seat(0).unwrap();
        assert!((0..10_000).all(|_| !a.held_back()));
    }
}
