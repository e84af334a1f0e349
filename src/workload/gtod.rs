//! `gtod_cpu`: fio's time-keeping thread (`gettime-thread.c`).
//!
//! When any job of a run sets `gtod_cpu`, one thread is pinned to the CPUs
//! named (every job's `gtod_cpu`) and does nothing but read the time of
//! day, in microseconds, into a shared location, for as long as the run
//! lasts. Every job's clock then reads that location instead of the
//! clock (see [`now_us`] and `clock::RealClock`): time has microsecond
//! steps, and what takes less than one reads 0, as in fio.
//!
//! A thread that cannot pin itself prints fio's `gtod: setaffinity
//! failed` and exits. fio's clock then stays at 0 for the whole run (and a
//! time-based job never ends); rfio's jobs keep their own clocks.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::log::Log;

/// The time of day in µs, as the time thread last read it.
static NOW_US: AtomicU64 = AtomicU64::new(0);
/// Runs using the time thread now (a count: runs in one process may
/// overlap).
static USERS: AtomicU64 = AtomicU64::new(0);

/// Whether jobs read their time from the time thread.
#[inline]
pub(crate) fn active() -> bool {
    USERS.load(Ordering::Relaxed) > 0
}

/// The time of day in µs, as the time thread published it.
#[inline]
pub(crate) fn now_us() -> u64 {
    NOW_US.load(Ordering::Relaxed)
}

/// The running time thread; stopped when dropped.
pub(crate) struct GtodThread {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    pinned: bool,
}

/// The time of day in µs (`gettimeofday`).
fn time_of_day_us() -> u64 {
    let mut tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    // SAFETY: `tv` is a valid timeval; a null time zone is allowed.
    unsafe { libc::gettimeofday(&mut tv, std::ptr::null_mut()) };
    (tv.tv_sec as u64).saturating_mul(1_000_000) + tv.tv_usec as u64
}

impl GtodThread {
    /// Start the time thread on `cpus`; it has pinned itself (or failed
    /// to, and said so on `log`) when this returns.
    pub(crate) fn start(cpus: &[usize], log: &dyn Log) -> Option<GtodThread> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel::<bool>();
        let mask = cpus.to_vec();
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("rfio-gtod".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                let pinned = super::cpus::set_affinity(&mask).is_ok();
                if pinned {
                    NOW_US.store(time_of_day_us(), Ordering::Relaxed);
                }
                let _ = tx.send(pinned);
                if !pinned {
                    return;
                }
                while !flag.load(Ordering::Relaxed) {
                    NOW_US.store(time_of_day_us(), Ordering::Relaxed);
                    std::hint::spin_loop();
                }
            })
            .ok()?;
        let pinned = rx.recv().unwrap_or(false);
        if !pinned {
            log.err("gtod: setaffinity failed\n");
        } else {
            USERS.fetch_add(1, Ordering::Relaxed);
        }
        Some(GtodThread {
            stop,
            handle: Some(handle),
            pinned,
        })
    }
}

impl Drop for GtodThread {
    fn drop(&mut self) {
        if self.pinned {
            USERS.fetch_sub(1, Ordering::Relaxed);
        }
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::log::Log;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Errs(Mutex<String>);
    impl Log for Errs {
        fn info(&self, _: &str) {}
        fn err(&self, t: &str) {
            self.0.lock().unwrap().push_str(t);
        }
        fn layout(&self, _: &str) {}
    }

    /// The thread pins itself to the CPU, publishes the time of day in µs
    /// while it runs, and jobs read it only while it runs.
    #[test]
    fn publishes_the_time_from_its_cpu() {
        let log = Errs::default();
        let t = GtodThread::start(&[0], &log).expect("thread");
        assert_eq!(*log.0.lock().unwrap(), "");
        assert!(active());
        let a = now_us();
        let wall = time_of_day_us();
        assert!(a <= wall && wall - a < 1_000_000, "{a} {wall}");
        // The clock moves on while the thread runs: wait for it to publish
        // again (on a loaded machine the pinned thread can wait for CPU 0),
        // bounded by a deadline rather than proven by one sleep.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while now_us() <= a {
            assert!(std::time::Instant::now() < deadline, "the time stood still");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // The thread runs on CPU 0 only.
        let tid = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .flatten()
            .find(|e| {
                std::fs::read_to_string(e.path().join("comm"))
                    .is_ok_and(|c| c.trim() == "rfio-gtod")
            })
            .expect("the time thread");
        let status = std::fs::read_to_string(tid.path().join("status")).unwrap();
        assert!(status.contains("Cpus_allowed_list:\t0\n"), "{status}");
        drop(t);
    }

    #[test]
    fn a_cpu_it_cannot_have_is_said() {
        let log = Errs::default();
        let t = GtodThread::start(&[libc::CPU_SETSIZE as usize + 1], &log).expect("thread");
        assert_eq!(*log.0.lock().unwrap(), "gtod: setaffinity failed\n");
        assert!(!t.pinned);
    }
}
