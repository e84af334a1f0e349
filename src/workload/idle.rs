//! `--idle-prof=system|percpu|calibrate`: fio 3.33's idle profiling
//! (`idletime.c`), which the run starts before its jobs and stops after
//! them when the caller asks for it (`run::Invocation::idle_prof`), the
//! profile going into the run's report; `calibrate` is a tool
//! (`tools::idle`) that only starts and stops it.
//!
//! Before the jobs start, one thread per CPU configured is pinned to its
//! CPU and times a unit of work (writing each byte of a page once): the
//! fastest of 10 runs of 1,000 units, per unit. It then drops to
//! `SCHED_IDLE`, so that it runs only when nothing else wants the CPU, and
//! counts units until the jobs are over. A CPU's idleness is the time
//! those units would have taken at the calibrated speed (the mean over
//! the CPUs), over the time the jobs ran. The report ([`IdleReport`]) adds
//! fio's `CPU idleness` section to the normal output and `cpu_idleness`
//! to the JSON document.
//!
//! `calibrate` only calibrates, prints the unit's mean and standard
//! deviation and exits (status 0), when the command line is read
//! (`tools::idle`).
//!
//! If any thread cannot be pinned or made idle (fio's messages on
//! stderr), fio's profiling aborts: every figure is then 0. None of this
//! touches the jobs' threads: the profiler runs beside them.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use super::{Log, StdLog};
use crate::stats::{IdleMode, IdleReport, RunReport};

/// fio's `CALIBRATE_RUNS` and `CALIBRATE_SCALE`.
const CALIBRATE_RUNS: usize = 10;
const CALIBRATE_SCALE: usize = 1000;

/// Where the profiling stands (fio's `ipc.status`).
const RUN: u8 = 0;
const CALI_STOP: u8 = 1;
const PROF_STOP: u8 = 2;
const ABORT: u8 = 3;

/// What one CPU's thread measured.
#[derive(Debug, Default, Clone, Copy)]
struct Measure {
    /// Microseconds per unit of work (calibration).
    cali_us: f64,
    /// Units done while profiling.
    loops: f64,
    /// Microseconds it profiled.
    runt_us: u64,
    /// It could not be pinned or made idle.
    failed: bool,
}

/// The running profiler: one thread per CPU.
pub(crate) struct Profiler {
    mode: IdleMode,
    status: Arc<AtomicU8>,
    threads: Vec<JoinHandle<()>>,
    measures: Arc<Mutex<Vec<Measure>>>,
    /// Released to start profiling.
    start: Arc<Barrier>,
    started: bool,
}

fn page_size() -> usize {
    // SAFETY: sysconf has no memory preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

fn cpus_configured() -> usize {
    // SAFETY: sysconf has no memory preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
    n.max(1) as usize
}

/// Pin the calling thread to `cpu`.
fn pin(cpu: usize) -> bool {
    // SAFETY: the set is a plain bitmap, zeroed then one bit set; the call
    // only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// Make the calling thread `SCHED_IDLE` (fio's `fio_set_sched_idle`).
fn sched_idle() -> bool {
    let p = libc::sched_param { sched_priority: 0 };
    // SAFETY: `p` is a valid sched_param for the duration of the call.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &p) == 0 }
}

/// One unit of work on `data` (shifted by `j`), fio's loop body; false
/// once `status` says stop, with the bytes done in `k`.
#[inline]
fn unit(data: &mut [u8], j: usize, status: &AtomicU8, k: &mut usize) -> bool {
    let n = data.len();
    for i in 0..n {
        data[(i + j) % n] = (i % 256) as u8;
        if status.load(Ordering::Relaxed) == PROF_STOP {
            *k = i;
            return false;
        }
    }
    std::hint::black_box(&mut *data);
    true
}

/// fio's `calibrate_unit`: the fastest of the runs, per unit, in µs.
fn calibrate_unit(data: &mut [u8], status: &AtomicU8) -> f64 {
    let mut best = 0.0;
    let mut k = 0;
    for run in 0..CALIBRATE_RUNS {
        let t = Instant::now();
        for j in 0..CALIBRATE_SCALE {
            if !unit(data, j, status, &mut k) {
                return 0.0;
            }
        }
        let us = t.elapsed().as_micros() as u64;
        if us == 0 {
            continue;
        }
        if run == 0 || (us as f64) < best {
            best = us as f64;
        }
    }
    best / CALIBRATE_SCALE as f64
}

/// One CPU's thread (fio's `idle_prof_thread_fn`).
fn thread_fn(
    cpu: usize,
    status: &AtomicU8,
    measures: &Mutex<Vec<Measure>>,
    calibrated: &Barrier,
    start: &Barrier,
) {
    let mut data = vec![0u8; page_size()];
    let mut m = Measure::default();
    let record = |m: Measure| {
        if let Ok(mut all) = measures.lock() {
            all[cpu] = m;
        }
    };
    if !pin(cpu) {
        StdLog.err("fio: fio_setaffinity failed\n");
        m.failed = true;
    } else {
        m.cali_us = calibrate_unit(&mut data, status);
        if !sched_idle() {
            StdLog.err("fio: fio_set_sched_idle failed\n");
            m.failed = true;
        }
    }
    record(m);
    calibrated.wait();
    start.wait();
    if m.failed || status.load(Ordering::SeqCst) != RUN {
        return;
    }
    let t = Instant::now();
    let (mut j, mut k) = (0usize, 0usize);
    while unit(&mut data, j, status, &mut k) {
        j += 1;
    }
    m.runt_us = t.elapsed().as_micros() as u64;
    m.loops = j as f64 + k as f64 / data.len() as f64;
    record(m);
}

impl Profiler {
    /// Start the threads, wait until each has calibrated (fio's
    /// `fio_idle_prof_init`), and let them count (`fio_idle_prof_start`);
    /// `None` without `--idle-prof`.
    pub(crate) fn start(mode: Option<IdleMode>) -> Option<Profiler> {
        let mode = mode?;
        let n = cpus_configured();
        let status = Arc::new(AtomicU8::new(RUN));
        let measures = Arc::new(Mutex::new(vec![Measure::default(); n]));
        let calibrated = Arc::new(Barrier::new(n + 1));
        let start = Arc::new(Barrier::new(n + 1));
        let mut threads = Vec::with_capacity(n);
        for cpu in 0..n {
            let (st, me, ca, go) = (
                Arc::clone(&status),
                Arc::clone(&measures),
                Arc::clone(&calibrated),
                Arc::clone(&start),
            );
            let spawned = std::thread::Builder::new()
                .name(format!("idle-prof-{cpu}"))
                .spawn(move || thread_fn(cpu, &st, &me, &ca, &go));
            match spawned {
                Ok(h) => threads.push(h),
                Err(e) => {
                    // The threads started wait at the barriers for ones
                    // that never come: profiling cannot go on.
                    StdLog.err(&format!("fio: pthread_create {e}\n"));
                    std::process::exit(1);
                }
            }
        }
        calibrated.wait();
        let failed = measures
            .lock()
            .map(|m| m.iter().any(|x| x.failed))
            .unwrap_or(true);
        if failed {
            status.store(ABORT, Ordering::SeqCst);
        } else if mode == IdleMode::Calibrate {
            status.store(CALI_STOP, Ordering::SeqCst);
        }
        let mut p = Profiler {
            mode,
            status,
            threads,
            measures,
            start,
            started: false,
        };
        p.go();
        Some(p)
    }

    /// Release the threads: they count, or (calibration only, or a thread
    /// failed) end.
    fn go(&mut self) {
        if !self.started {
            self.started = true;
            self.start.wait();
        }
    }

    /// The jobs are over: stop counting and say how idle the CPUs were
    /// (fio's `fio_idle_prof_stop` and `calibration_stats`).
    pub(crate) fn finish(mut self) -> IdleReport {
        if self.status.load(Ordering::SeqCst) == RUN {
            self.status.store(PROF_STOP, Ordering::SeqCst);
        }
        self.go();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        let measures = self.measures.lock().map(|m| m.clone()).unwrap_or_default();
        report(
            self.mode,
            &measures,
            self.status.load(Ordering::SeqCst) == ABORT,
        )
    }
}

impl Drop for Profiler {
    fn drop(&mut self) {
        // Never leave threads spinning (a run that ended in an error).
        self.status.store(PROF_STOP, Ordering::SeqCst);
        if !self.started {
            self.started = true;
            self.start.wait();
        }
    }
}

/// fio's figures from what each CPU's thread measured; `aborted`: a thread
/// failed, and every figure is 0.
fn report(mode: IdleMode, m: &[Measure], aborted: bool) -> IdleReport {
    let n = m.len().max(1) as f64;
    let (mean, stddev) = if aborted {
        (0.0, 0.0)
    } else {
        let mean = m.iter().map(|x| x.cali_us).sum::<f64>() / n;
        let var: f64 = m.iter().map(|x| (x.cali_us - mean).powi(2)).sum();
        (mean, (var / (n - 1.0)).sqrt())
    };
    let percpu = m
        .iter()
        .map(|x| {
            if mean == 0.0 || x.runt_us == 0 || mode == IdleMode::Calibrate {
                0.0
            } else {
                x.loops * mean / x.runt_us as f64 * 100.0
            }
        })
        .collect();
    IdleReport {
        mode,
        percpu,
        unit_mean: mean,
        unit_stddev: stddev,
    }
}

/// Add the profile to the report of the run (a failed run has none).
pub(crate) fn attach<E>(
    profiler: Option<Profiler>,
    result: Result<RunReport, E>,
) -> Result<RunReport, E> {
    let idle = profiler.map(Profiler::finish);
    result.map(|mut r| {
        r.idle = idle;
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idleness_is_units_done_over_units_possible() {
        let m = |cali_us, loops, runt_us| Measure {
            cali_us,
            loops,
            runt_us,
            failed: false,
        };
        // Calibrated at 10 and 20 µs a unit (mean 15, stddev 7.07): the
        // first CPU did 500 units in 10 ms (75%), the second none.
        let r = report(
            IdleMode::Percpu,
            &[m(10.0, 500.0, 10_000), m(20.0, 0.0, 10_000)],
            false,
        );
        assert_eq!(r.unit_mean, 15.0);
        assert!((r.unit_stddev - 50f64.sqrt()).abs() < 1e-12);
        assert_eq!(r.percpu, [75.0, 0.0]);
        assert_eq!(r.system(), 37.5);
        let r = report(IdleMode::System, &[m(10.0, 500.0, 10_000)], true);
        assert_eq!((r.unit_mean, r.unit_stddev, r.percpu[0]), (0.0, 0.0, 0.0));
    }

    #[test]
    fn a_unit_stops_when_asked() {
        let status = AtomicU8::new(PROF_STOP);
        let mut data = vec![0u8; 64];
        let mut k = 99;
        assert!(!unit(&mut data, 3, &status, &mut k));
        assert_eq!(k, 0);
        let status = AtomicU8::new(RUN);
        assert!(unit(&mut data, 3, &status, &mut k));
        assert_eq!(data[3], 0);
        assert_eq!(data[4], 1);
        assert_eq!(data[2], 63);
    }
}
