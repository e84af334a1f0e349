//! A request to stop (fio's `fio_terminate_threads`): raised once, by a
//! signal handler, the status thread, another job's `exitall` or the end
//! of a group; read by the I/O loop before every I/O and by whatever
//! sleeps or lays files out. Whoever runs the jobs hands it down: nothing
//! in the workload keeps a stop request of its own in a global.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The stop request of a run, or of one group's jobs; with it, whether
/// each job is to save its verify state as it stops (a trigger's), and
/// when a job's runtime ends (for its engine's waits: a peer that never
/// answers holds the job no longer than that).
#[derive(Debug)]
pub(crate) struct Stop(AtomicBool, AtomicBool, AtomicU64);

impl Default for Stop {
    fn default() -> Stop {
        Stop::new()
    }
}

impl Stop {
    /// Not requested, no deadline.
    pub(crate) const fn new() -> Stop {
        Stop(
            AtomicBool::new(false),
            AtomicBool::new(false),
            AtomicU64::new(u64::MAX),
        )
    }

    /// The job's runtime ends `left` ns from now (`None`: it has none).
    pub(crate) fn set_deadline_in(&self, left: Option<u64>) {
        let at = left.map_or(u64::MAX, |l| crate::ioengine::mono_ns().saturating_add(l));
        self.2.store(at, Ordering::Relaxed);
    }

    /// The deadline itself, for an engine's waits
    /// ([`crate::ioengine::StopFlag`]).
    pub(crate) fn deadline(&self) -> &AtomicU64 {
        &self.2
    }

    /// Ask to stop, every job saving its verify state file as it does,
    /// whatever its options (fio's trigger: `verify_save_state` for every
    /// job, then `fio_terminate_threads`).
    pub(crate) fn request_saving_state(&self) {
        self.1.store(true, Ordering::SeqCst);
        self.request();
    }

    /// Whether the stop asks every job to save its verify state.
    pub(crate) fn saves_state(&self) -> bool {
        self.1.load(Ordering::SeqCst)
    }

    /// Ask to stop. Async-signal-safe: one atomic store.
    pub(crate) fn request(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was asked for: one relaxed load (the loop checks
    /// before every I/O).
    #[inline]
    pub(crate) fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for an engine's long waits
    /// ([`crate::ioengine::StopFlag`]).
    pub(crate) fn flag(&self) -> &AtomicBool {
        &self.0
    }

    /// Forget an earlier request (before a new run).
    pub(crate) fn clear(&self) {
        self.2.store(u64::MAX, Ordering::SeqCst);
        self.1.store(false, Ordering::SeqCst);
        self.0.store(false, Ordering::SeqCst);
    }
}

/// The stop requests of one group's jobs, one per job of the plan (fio's
/// `td->terminate`): a request to the group raises every job's (the run's
/// stop, `exitall`), the steady-state monitor raises one job's.
#[derive(Debug)]
pub(crate) struct JobStops(Box<[Stop]>);

impl JobStops {
    /// `jobs` requests, none raised.
    pub(crate) fn new(jobs: usize) -> JobStops {
        JobStops((0..jobs).map(|_| Stop::new()).collect())
    }

    /// Stop every job.
    pub(crate) fn request(&self) {
        for s in self.0.iter() {
            s.request();
        }
    }

    /// Stop every job, as the run's `stop` asks (saving their verify state
    /// if it says so).
    pub(crate) fn request_as(&self, stop: &Stop) {
        for s in self.0.iter() {
            if stop.saves_state() {
                s.request_saving_state();
            } else {
                s.request();
            }
        }
    }

    /// The stop request job `i` obeys.
    pub(crate) fn job(&self, i: usize) -> &Stop {
        &self.0[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_holds_until_cleared() {
        static S: Stop = Stop::new();
        assert!(!S.requested());
        S.request();
        S.request();
        assert!(S.requested());
        S.clear();
        assert!(!S.requested());
    }

    #[test]
    fn a_group_request_reaches_every_job_a_job_request_one() {
        let stops = JobStops::new(3);
        stops.job(1).request();
        assert!(!stops.job(0).requested() && stops.job(1).requested());
        stops.request();
        assert!((0..3).all(|i| stops.job(i).requested()));
    }
}
