//! Think time between I/Os (fio 3.33's `handle_thinktime`).
//!
//! Only with `thinktime` set (fio ignores `thinktime_spin` and the others
//! otherwise). After each read or write, when `thinktime_blocks` more I/Os
//! have completed (`thinktime_blocks_type=complete`, default) or been
//! issued (`issue`) since the last pause, or when `thinktime_iotime` of I/O
//! time has passed since it, the job first completes what is in flight,
//! then busy-spins `thinktime_spin` µs and sleeps the rest of `thinktime`,
//! both capped by the runtime left. With `thinktime_iotime` and no
//! `thinktime_blocks`, only the time triggers a pause.
//!
//! How the I/O loop uses it: after each read/write I/O,
//! `if let Some(p) = think.check(issued, completed, now_ns)`: quiesce,
//! spin `p.spin(left)` µs, sleep `p.sleep(spun, left)` µs (`left`: the
//! runtime left, if any), then `think.done(now_ns)`; with a rate limiter, also
//! `rate.after_think(dir, total_us)`.

use std::time::{Duration, Instant};

use super::stop::Stop;
use crate::plan::spec::JobSpec;

/// The last µs of a pause are busy-waited rather than slept: a sleep ends
/// late by the timer slack (50 µs by default), and fio (whose `usec_sleep` sleeps all but its
/// measured timer granularity and spins the rest) does not drift by that.
pub(crate) const SPIN_TAIL_US: u64 = 50;

/// The longest single sleep of a pause: a stop request (runtime over,
/// Ctrl-C) is noticed within this.
const SLEEP_SLICE: Duration = Duration::from_millis(100);

/// Pauses `us` µs the way fio's `usec_sleep` does: one sleep until
/// [`SPIN_TAIL_US`] before the end (in slices of at most 100 ms, to notice
/// `stop`), then a busy wait to the end. Every wake-up of a sleep can
/// be late on a loaded machine, so a pause is as few sleeps as possible.
/// Returns at once when `stop` is requested.
pub(crate) fn pause(stop: &Stop, us: u64) {
    if us == 0 {
        return;
    }
    let start = Instant::now();
    let end = start + Duration::from_micros(us);
    let sleep_until = end - Duration::from_micros(us.min(SPIN_TAIL_US));
    while !stop.requested() {
        let now = Instant::now();
        if now >= sleep_until {
            break;
        }
        std::thread::sleep((sleep_until - now).min(SLEEP_SLICE));
    }
    while Instant::now() < end && !stop.requested() {
        std::hint::spin_loop();
    }
}

/// Sleep for `d`, waking early when `stop` is requested.
pub(super) fn sleep_unless(stop: &Stop, d: Duration) {
    let end = Instant::now() + d;
    while !stop.requested() {
        let now = Instant::now();
        if now >= end {
            break;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(10)));
    }
}

/// The pause due after an I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pause {
    /// µs to busy-spin first (`thinktime_spin`, capped by runtime left).
    pub(crate) spin_us: u64,
    /// `thinktime` in µs: the spin and the sleep together.
    pub(crate) total_us: u64,
    /// The runtime left caps the spin and the sleep (fio 3.34 on; 3.33
    /// paused in full, past the runtime).
    pub(crate) within_runtime: bool,
}

impl Pause {
    /// µs to spin, capped by the runtime left (`None`: no `runtime`).
    pub fn spin(&self, runtime_left_us: Option<u64>) -> u64 {
        match runtime_left_us.filter(|_| self.within_runtime) {
            Some(l) => self.spin_us.min(l),
            None => self.spin_us,
        }
    }

    /// µs to sleep after having spun `spun_us`: `thinktime - spun` (never
    /// negative), capped by the runtime left at that point.
    pub fn sleep(&self, spun_us: u64, runtime_left_us: Option<u64>) -> u64 {
        let left = self.total_us.saturating_sub(spun_us);
        match runtime_left_us.filter(|_| self.within_runtime) {
            Some(l) => left.min(l),
            None => left,
        }
    }
}

/// The think-time state of one job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThinkTime {
    think_us: u64,
    spin_us: u64,
    blocks: u64,
    blocks_set: bool,
    /// `thinktime_blocks_type=issue`: count issued instead of completed.
    on_issue: bool,
    iotime_us: u64,
    /// fio's `last_thinktime_blocks`.
    last_blocks: u64,
    /// fio's `last_thinktime` (ns since the epoch).
    last_think_ns: u64,
    /// fio 3.34's think time: capped by the runtime, `thinktime_iotime`
    /// counted from the end of the last pause (3.33: from the check that
    /// started it, and reached only after `thinktime_iotime + thinktime`).
    within_runtime: bool,
    /// When the last check that paused ran (3.33's `last_thinktime`).
    checked_ns: u64,
}

impl ThinkTime {
    /// The think time of `spec`, `None` without `thinktime` (fio checks
    /// `td->o.thinktime` before anything else).
    pub fn new(spec: &JobSpec) -> Option<ThinkTime> {
        let t = spec.think.time?;
        Some(ThinkTime {
            think_us: t.think_us,
            spin_us: t.spin_us,
            blocks: t.blocks.unwrap_or(1),
            blocks_set: t.blocks.is_some(),
            on_issue: t.on_issue,
            iotime_us: t.iotime_us,
            last_blocks: 0,
            last_think_ns: 0,
            within_runtime: t.within_runtime,
            checked_ns: 0,
        })
    }

    /// After an I/O: whether to pause now, given the read+write I/Os
    /// `issued` and `completed` so far in this loop and `now_ns` since the
    /// epoch. Records the block count as fio does when it pauses.
    #[inline]
    pub fn check(&mut self, issued: u64, completed: u64, now_ns: u64) -> Option<Pause> {
        let mut stall = false;
        if self.iotime_us > 0 {
            let due_us = if self.within_runtime {
                self.iotime_us
            } else {
                self.iotime_us + self.think_us
            };
            if now_ns.saturating_sub(self.last_think_ns) / 1000 >= due_us {
                stall = true;
            } else if !self.blocks_set {
                return None;
            }
        }
        let b = if self.on_issue { issued } else { completed };
        if b >= self.last_blocks + self.blocks {
            stall = true;
        }
        if !stall {
            return None;
        }
        self.last_blocks = b;
        self.checked_ns = now_ns;
        Some(Pause {
            spin_us: self.spin_us,
            total_us: self.think_us,
            within_runtime: self.within_runtime,
        })
    }

    /// The pause ended at `now_ns` (starts the next `thinktime_iotime`).
    pub fn done(&mut self, now_ns: u64) {
        if self.iotime_us > 0 {
            self.last_think_ns = if self.within_runtime {
                now_ns
            } else {
                self.checked_ns
            };
        }
    }

    /// Start a new loop (fio's `init_thinktime`).
    pub(crate) fn reset(&mut self, now_ns: u64) {
        self.last_blocks = 0;
        self.last_think_ns = now_ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_lasts_at_least_its_time_and_stops_on_request() {
        let go = Stop::new();
        for us in [50, 3_000] {
            let t0 = Instant::now();
            pause(&go, us);
            assert!(t0.elapsed() >= Duration::from_micros(us), "{us} µs");
        }
        // A stop request ends even a minute's pause at once.
        let stop = Stop::new();
        stop.request();
        let t0 = Instant::now();
        pause(&stop, 60_000_000);
        assert!(t0.elapsed() < Duration::from_secs(30));
    }
}
