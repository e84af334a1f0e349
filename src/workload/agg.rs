//! `--bandwidth-log`: the aggregate bandwidth samples of a run
//! (`logs::agg`), taken beside the jobs and written when they are over,
//! so that every caller of the run gets fio's three `agg-*_bw.log` files.
//!
//! fio takes the samples in its helper thread as it computes the status
//! line (`calc_thread_status`), on the thread's wake-ups: every 250 ms
//! (`DISK_UTIL_MSEC`) and every `--eta-interval`, counted from before the
//! files are laid out; only where the line is computed at all (a terminal,
//! `--eta=always`), so the files are empty otherwise. The caller says
//! which ([`BandwidthLog`]); the sampler wakes as that thread would, and
//! stops sampling once the run is asked to stop (fio's helper thread stops
//! computing the line when a signal comes).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::progress::{JobState, Progress};
use super::stop::Stop;
use super::{Log, StdLog};
use crate::logs::agg::{AggLog, AggSampler};
use crate::plan::spec::Plan;
use crate::stats::Unified;

/// fio's helper thread wakes every 250 ms (`DISK_UTIL_MSEC`) besides its
/// `eta_interval` timer.
const HELPER_TICK_MS: u64 = 250;

/// `--bandwidth-log`, as the caller asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BandwidthLog {
    /// The status line is computed (shown), so samples are taken; without
    /// it the files are written empty, as fio's.
    pub(crate) sampled: bool,
    /// `--eta-interval`, in ms: the helper thread's other timer.
    pub(crate) interval_ms: u64,
}

/// Run `jobs`, sampling the aggregate bandwidth of `plan`'s jobs beside
/// them when `request` asks for it, and write the three files into the
/// working directory once they are over (a failure is fio's line on
/// stderr); `jobs`' result.
pub(crate) fn logged<R>(
    request: Option<BandwidthLog>,
    plan: &Plan,
    progress: &Progress,
    stop: &Stop,
    jobs: impl FnOnce() -> R,
) -> R {
    let Some(request) = request else {
        return jobs();
    };
    let done = AtomicBool::new(false);
    let (result, log) = std::thread::scope(|s| {
        let done = &done;
        let sampler = request
            .sampled
            .then(|| s.spawn(move || sample(plan, progress, stop, request.interval_ms, done)));
        let result = {
            let _over = Over(done, sampler.as_ref().map(|t| t.thread().clone()));
            jobs()
        };
        let log = sampler.map(|t| t.join().unwrap_or_default());
        (result, log)
    });
    let log = log.unwrap_or_default();
    if let Err(e) = log.write_to(Path::new(".")) {
        StdLog.err(&format!(
            "fio: failed to write aggregate bandwidth log: {e}\n"
        ));
    }
    result
}

/// Sets the sampler's `done` flag and wakes it when dropped (a panic of
/// the jobs included).
struct Over<'a>(&'a AtomicBool, Option<std::thread::Thread>);

impl Drop for Over<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
        if let Some(t) = &self.1 {
            t.unpark();
        }
    }
}

/// The sampler's thread: a sample due at each wake-up once the jobs have
/// started, until `done`.
fn sample(
    plan: &Plan,
    progress: &Progress,
    stop: &Stop,
    interval_ms: u64,
    done: &AtomicBool,
) -> AggLog {
    let bw_avg = plan
        .jobs
        .iter()
        .map(|j| j.report.stats.bw_avg_ms)
        .min()
        .unwrap_or(500);
    let unified = plan
        .jobs
        .iter()
        .any(|j| j.report.stats.unified != Unified::None);
    let mut agg = AggSampler::new(bw_avg);
    let origin = progress.origin();
    let mut next_ms = next_wake(0, interval_ms);
    while !done.load(Ordering::Acquire) {
        let now = Instant::now();
        let tick_ms = now.saturating_duration_since(origin).as_millis() as u64;
        if tick_ms >= next_ms && !stop.requested() {
            if let Some(genesis) = progress.genesis() {
                let at_ms = now.saturating_duration_since(genesis).as_millis() as u64;
                let (bytes, ramping) = io_bytes(progress, unified);
                agg.wake(at_ms, bytes, ramping);
            }
            next_ms = next_wake(tick_ms, interval_ms);
        }
        let tick_ms = origin.elapsed().as_millis() as u64;
        std::thread::park_timeout(Duration::from_millis(next_ms.saturating_sub(tick_ms)));
    }
    agg.into_log()
}

/// The bytes the jobs that have started did so far, by direction (all in
/// the first with `unified_rw_reporting`), and whether any job ramps.
fn io_bytes(progress: &Progress, unified: bool) -> ([u64; 3], bool) {
    let mut bytes = [0u64; 3];
    let mut ramping = false;
    for j in progress.jobs() {
        let state = j.state();
        ramping |= state == JobState::Ramp;
        if state >= JobState::Running {
            let b = j.bytes();
            for (d, n) in b.iter().enumerate() {
                bytes[if unified { 0 } else { d }] += n;
            }
        }
    }
    (bytes, ramping)
}

/// When fio's helper thread wakes next after `at_ms` (from its start): on
/// its 250 ms timer or its `eta_interval` timer.
fn next_wake(at_ms: u64, interval_ms: u64) -> u64 {
    let after = |step: u64| (at_ms / step + 1) * step;
    after(HELPER_TICK_MS).min(after(interval_ms.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wake_ups_are_the_helper_threads() {
        assert_eq!(next_wake(0, 1000), 250);
        assert_eq!(next_wake(250, 1000), 500);
        assert_eq!(next_wake(260, 100), 300);
        assert_eq!(next_wake(999, 1000), 1000);
    }
}
