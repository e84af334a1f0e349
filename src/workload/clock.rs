//! The job clock: nanoseconds since a job's I/O started (fio's
//! `clocksource`).
//!
//! fio's default on x86-64 is `clocksource=cpu`: the time stamp counter,
//! calibrated against the system clock once, when the CPU says its TSC is
//! invariant (ticks at a constant rate and never stops). A TSC read costs
//! a few nanoseconds where `clock_gettime` costs tens, and the loop reads
//! the clock two or three times per I/O. `clocksource=clock_gettime` (and
//! `gettimeofday`, which rfio serves from the same monotonic clock) use
//! the system clock; so does every machine without a usable TSC.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// `clocksource=`, as the plan resolves it.
pub(crate) use crate::plan::resolve::io::ClockSource as Source;

/// TSC to nanoseconds: `ns = (ticks * mult) >> 32`.
#[derive(Debug, Clone, Copy)]
struct Tsc {
    mult: u64,
}

/// The calibration, made once per process.
fn tsc() -> Option<Tsc> {
    static CAL: OnceLock<Option<Tsc>> = OnceLock::new();
    *CAL.get_or_init(calibrate)
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn rdtsc() -> u64 {
    // SAFETY: RDTSC has no preconditions on x86-64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(target_arch = "x86_64")]
fn calibrate() -> Option<Tsc> {
    let flags = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = flags.lines().find(|l| l.starts_with("flags"))?;
    let has = |f: &str| line.split_whitespace().any(|w| w == f);
    if !(has("constant_tsc") && has("nonstop_tsc")) {
        return None;
    }
    // Ticks over a few milliseconds of the monotonic clock; the best of
    // three rounds (the shortest read window) is kept.
    let mut best: Option<(u64, u64)> = None;
    for _ in 0..3 {
        let (t0, c0) = (Instant::now(), rdtsc());
        while t0.elapsed() < Duration::from_millis(3) {
            std::hint::spin_loop();
        }
        let c1 = rdtsc();
        let ns = t0.elapsed().as_nanos() as u64;
        let ticks = c1.wrapping_sub(c0);
        if ticks == 0 || ns == 0 {
            return None;
        }
        let mult = ((u128::from(ns) << 32) / u128::from(ticks)) as u64;
        if best.is_none_or(|(_, n)| ns < n) {
            best = Some((mult, ns));
        }
    }
    best.map(|(mult, _)| Tsc { mult })
}

#[cfg(not(target_arch = "x86_64"))]
fn calibrate() -> Option<Tsc> {
    None
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn rdtsc() -> u64 {
    0
}

/// A clock started at a point in time; [`Clock::now`] is nanoseconds
/// since then.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    base: Instant,
    tsc: Option<(Tsc, u64)>,
}

impl Clock {
    /// A clock from `source`, starting now.
    pub fn start(source: Source) -> Clock {
        let tsc = match source {
            Source::System => None,
            Source::Auto | Source::Cpu => tsc().map(|t| (t, rdtsc())),
        };
        Clock {
            base: Instant::now(),
            tsc,
        }
    }

    /// Nanoseconds since the clock started.
    #[inline]
    pub fn now(&self) -> u64 {
        match self.tsc {
            Some((t, base)) => {
                ((u128::from(rdtsc().wrapping_sub(base)) * u128::from(t.mult)) >> 32) as u64
            }
            None => self.base.elapsed().as_nanos() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_clocks_follow_real_time() {
        for source in [Source::System, Source::Auto] {
            let c = Clock::start(source);
            let t0 = Instant::now();
            std::thread::sleep(Duration::from_millis(20));
            let want = t0.elapsed().as_nanos() as i64;
            let got = c.now() as i64;
            // Within 5%: calibration error and the two clocks' start gap.
            assert!(
                (got - want).abs() < want / 20,
                "{source:?}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn monotonic() {
        let c = Clock::start(Source::Auto);
        let mut last = 0;
        for _ in 0..10_000 {
            let n = c.now();
            assert!(n >= last);
            last = n;
        }
    }
}
