//! What the jobs of one run share: their flows ([`super::flow`]) and the
//! in-flight I/O of the offloaded jobs with `serialize_overlap`
//! ([`Overlaps`], which their submit workers wait on, see
//! [`super::offload`]). The runner makes one [`RunLinks`] per run and
//! gives each job its [`Links`].

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::flow::{FlowSeat, Flows};
use crate::plan::spec::JobSpec;

/// A job's share of what the run's jobs share.
#[derive(Debug, Clone, Default)]
pub(crate) struct Links {
    /// Its seat in its flow, if it has a `flow` weight.
    pub(crate) flow: Option<Arc<FlowSeat>>,
    /// The run's in-flight ranges, for an offloaded job with
    /// `serialize_overlap`.
    pub(crate) overlap: Option<Arc<Overlaps>>,
}

/// What the jobs of one run share.
#[derive(Debug, Default)]
pub(crate) struct RunLinks {
    flows: Flows,
    overlap: Arc<Overlaps>,
}

impl RunLinks {
    /// The links of a run of `jobs`: each job with a weight joins its flow
    /// now (fio's `add_job`), in order.
    pub(crate) fn new(jobs: &[JobSpec]) -> RunLinks {
        RunLinks {
            flows: Flows::join(jobs),
            overlap: Arc::default(),
        }
    }

    /// Job `i`'s links.
    pub(crate) fn of(&self, i: usize, spec: &JobSpec) -> Links {
        Links {
            flow: self.flows.seat(i),
            overlap: (spec.submit.offload && spec.exec.serialize_overlap)
                .then(|| Arc::clone(&self.overlap)),
        }
    }

    /// Job `i` is over: it leaves its flow (fio's `flow_exit_job` when
    /// it reaps the job).
    pub(crate) fn job_over(&self, i: usize) {
        self.flows.leave(i);
    }
}

/// The in-flight I/O ranges of the run's offloaded jobs with
/// `serialize_overlap` (fio's `overlap_check` lock over their `io_u`s).
#[derive(Debug, Default)]
pub(crate) struct Overlaps {
    flight: Mutex<Vec<(u64, u64)>>,
    cv: Condvar,
    /// How many times an `enter` found its range overlapping and waited
    /// (the tests' proof that a waiter is held, not merely slow).
    #[cfg(test)]
    waits: std::sync::atomic::AtomicUsize,
}

impl Overlaps {
    /// Wait until `[start, end)` overlaps no range in flight, then put it
    /// in flight.
    pub(crate) fn enter(&self, start: u64, end: u64) {
        let mut f = lock(&self.flight);
        while f.iter().any(|&(s, e)| start < e && s < end) {
            #[cfg(test)]
            self.waits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            f = self.cv.wait(f).unwrap_or_else(|e| e.into_inner());
        }
        f.push((start, end));
    }

    /// `[start, end)` is no longer in flight.
    pub(crate) fn leave(&self, start: u64, end: u64) {
        let mut f = lock(&self.flight);
        if let Some(i) = f.iter().position(|&r| r == (start, end)) {
            f.swap_remove(i);
        }
        drop(f);
        self.cv.notify_all();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    /// A range waits while an overlapping one is in flight, and goes when
    /// it leaves; ranges that only touch do not wait.
    #[test]
    fn overlapping_ranges_wait_for_each_other() {
        let o = Arc::new(Overlaps::default());
        o.enter(0, 4096);
        o.enter(4096, 8192);
        let entered = Arc::new(AtomicBool::new(false));
        let waiter = {
            let (o, entered) = (Arc::clone(&o), Arc::clone(&entered));
            std::thread::spawn(move || {
                o.enter(2048, 3072);
                entered.store(true, Ordering::SeqCst);
                o.leave(2048, 3072);
            })
        };
        // Held: it found [0, 4096) in flight and waits on the condvar.
        let deadline = Instant::now() + Duration::from_secs(10);
        while o.waits.load(Ordering::SeqCst) == 0 {
            assert!(Instant::now() < deadline, "the waiter never waited");
            std::thread::yield_now();
        }
        assert!(!entered.load(Ordering::SeqCst), "it overlaps [0, 4096)");
        o.leave(0, 4096);
        waiter.join().unwrap();
        assert!(entered.load(Ordering::SeqCst));
        o.leave(4096, 8192);
        assert!(lock(&o.flight).is_empty());
    }

    /// Only offloaded jobs with `serialize_overlap` share the run's
    /// ranges; jobs with a weight have a seat in their flow.
    #[test]
    fn each_job_gets_what_it_shares() {
        let p = crate::plan::testing::plan(&[
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--io_submit_mode=offload",
            "--serialize_overlap=1",
            "--name=b",
            "--serialize_overlap=1",
            "--flow=2",
            "--name=c",
            "--io_submit_mode=offload",
        ]);
        let links = RunLinks::new(&p.jobs);
        let l: Vec<Links> = (0..3).map(|i| links.of(i, &p.jobs[i])).collect();
        assert!(l[0].overlap.is_some() && l[0].flow.is_none());
        assert!(l[1].overlap.is_none() && l[1].flow.is_some());
        assert!(l[2].overlap.is_none() && l[2].flow.is_none());
        links.job_over(1);
    }
}
