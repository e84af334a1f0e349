//! The time stamp counter: reading it, whether it can be trusted, and the
//! run's calibration of it, once per process. The job clock
//! (`workload::clock`, `clocksource=cpu`, fio's default on x86-64) and
//! `--cpuclock-test` (`tools::cpuclock`) both use this module.
//!
//! Whether the TSC is usable is fio's `tsc_reliable` (`arch_init`), read
//! from CPUID: on Intel a TSC whose invariant bit (leaf 0x8000_0007, EDX
//! bit 8) is set, on AMD and Hygon the invariant bit where the leaf
//! exists, on any other vendor no. The run used to read the `flags` line
//! of `/proc/cpuinfo` instead (`constant_tsc` and `nonstop_tsc`, which
//! Linux sets from the same invariant bit on these vendors). CPUID is the
//! faster of the two (a few instructions, trapped at worst by a
//! hypervisor, against the kernel formatting a page of text per CPU: on a
//! 2-CPU KVM guest where CPUID traps, 32-68 µs a check against 75-144 µs
//! for reading and searching `/proc/cpuinfo`, December 2026) and is the
//! one fio and `--cpuclock-test` read, so it is the one kept: the
//! job clock now falls back to the system clock exactly where
//! `--cpuclock-test` says `reliable_tsc: no`. The results of
//! `--cpuclock-test` are unchanged.
//!
//! The run's calibration ([`calibrated`]) is its own: one 3 ms window
//! against `CLOCK_MONOTONIC`, as a multiplier, opened at process start
//! ([`anchor`]) so that start-up work counts towards it and the rest is
//! slept, not spun. The test
//! prints fio's own (`calibrate_cpu_clock`: 50 windows of 1.28 ms and its
//! statistics), which it computes from [`rdtsc`] itself.

use std::sync::OnceLock;
#[cfg(target_arch = "x86_64")]
use std::time::{Duration, Instant};

/// TSC ticks to nanoseconds: `ns = (ticks * mult) >> 32`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tsc {
    mult: u64,
}

impl Tsc {
    /// `ticks` of the TSC in nanoseconds.
    #[inline]
    pub(crate) fn ns(self, ticks: u64) -> u64 {
        ((u128::from(ticks) * u128::from(self.mult)) >> 32) as u64
    }

    /// ns from the count `base` to the count `now`. A count below `base`
    /// reads 0: the thread read `base` on one CPU and `now` on another
    /// whose counter lags it, however little. Wrapped around, that reading
    /// would be centuries, and a job whose ramp ended on it would never
    /// see its runtime pass (its statistics would start centuries ahead
    /// of every later reading): it would run until killed.
    #[inline]
    pub(crate) fn ns_since(self, base: u64, now: u64) -> u64 {
        self.ns(now.saturating_sub(base))
    }
}

/// The calibration, made once per process: `None` where the TSC is not
/// reliable ([`reliable`]) or not there.
pub(crate) fn calibrated() -> Option<Tsc> {
    static CAL: OnceLock<Option<Tsc>> = OnceLock::new();
    *CAL.get_or_init(|| if reliable() { calibrate() } else { None })
}

/// The TSC now (0 where there is none).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn rdtsc() -> u64 {
    // SAFETY: RDTSC exists on every x86-64 CPU and has no preconditions.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// The TSC now (0 where there is none).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) fn rdtsc() -> u64 {
    0
}

/// CPUID leaf `leaf`: (eax, ebx, ecx, edx).
#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)]
fn cpuid(leaf: u32) -> (u32, u32, u32, u32) {
    // SAFETY: CPUID exists on every x86-64 CPU and has no preconditions
    // (it is a safe function in newer Rust).
    let r = unsafe { core::arch::x86_64::__cpuid_count(leaf, 0) };
    (r.eax, r.ebx, r.ecx, r.edx)
}

/// fio's `tsc_reliable` (`arch_init`): on Intel, a TSC whose invariant bit
/// is set; on AMD and Hygon, the invariant bit when the leaf exists; on
/// other vendors, and off x86-64, no.
#[cfg(target_arch = "x86_64")]
pub(crate) fn reliable() -> bool {
    let (_, b, c, d) = cpuid(0);
    let mut vendor = Vec::with_capacity(12);
    for w in [b, d, c] {
        vendor.extend_from_slice(&w.to_le_bytes());
    }
    let invariant = || cpuid(0x8000_0007).3 & (1 << 8) != 0;
    match &vendor[..] {
        b"GenuineIntel" => cpuid(1).3 & (1 << 4) != 0 && invariant(),
        b"AuthenticAMD" | b"HygonGenuine" => cpuid(0x8000_0000).0 >= 0x8000_0007 && invariant(),
        _ => false,
    }
}

/// Off x86-64 there is no TSC.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn reliable() -> bool {
    false
}

/// Both clocks read together: the monotonic clock between two TSC reads,
/// the TSC taken as their midpoint. Of a few tries the tightest is kept
/// (one the scheduler did not cut into).
#[cfg(target_arch = "x86_64")]
fn pair() -> (Instant, u64) {
    let mut best: Option<(Instant, u64, u64)> = None;
    for _ in 0..5 {
        let c0 = rdtsc();
        let t = Instant::now();
        let span = rdtsc().wrapping_sub(c0);
        if best.is_none_or(|(_, _, s)| span < s) {
            best = Some((t, c0.wrapping_add(span / 2), span));
        }
    }
    best.map_or_else(|| (Instant::now(), rdtsc()), |(t, c, _)| (t, c))
}

/// The first reading of both clocks, the start of the calibration window.
#[cfg(target_arch = "x86_64")]
fn first_pair() -> (Instant, u64) {
    static FIRST: OnceLock<(Instant, u64)> = OnceLock::new();
    *FIRST.get_or_init(pair)
}

/// Start the TSC's calibration window now (at process start): the work
/// before the first job starts then counts towards it, and what is left of
/// it is slept, not spun.
pub(crate) fn anchor() {
    #[cfg(target_arch = "x86_64")]
    first_pair();
}

/// How long the calibration window is: over 3 ms, two clock reads a few
/// tens of nanoseconds apart make an error of about 10 ppm.
#[cfg(target_arch = "x86_64")]
const WINDOW: Duration = Duration::from_millis(3);

/// Ticks over the window of the monotonic clock, from the first reading
/// ([`anchor`], else the first call): a constant, nonstop TSC counts on
/// while the process sleeps or moves between CPUs, so what is left of the
/// window is slept.
#[cfg(target_arch = "x86_64")]
fn calibrate() -> Option<Tsc> {
    let (t0, c0) = first_pair();
    if let Some(left) = WINDOW.checked_sub(t0.elapsed()) {
        std::thread::sleep(left);
    }
    let (t1, c1) = pair();
    let ns = t1.duration_since(t0).as_nanos() as u64;
    let ticks = c1.wrapping_sub(c0);
    if ticks == 0 || ns == 0 {
        return None;
    }
    let mult = ((u128::from(ns) << 32) / u128::from(ticks)) as u64;
    Some(Tsc { mult })
}

#[cfg(not(target_arch = "x86_64"))]
fn calibrate() -> Option<Tsc> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calibration (a 3 ms window, mostly slept) converts ticks to
    /// nanoseconds within 0.2% of the monotonic clock over a longer span;
    /// where the TSC is not reliable there is none, and every job clock
    /// reads the system clock.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_calibration_holds_over_time() {
        let Some(t) = calibrated() else {
            assert!(!reliable(), "a reliable TSC is calibrated");
            return;
        };
        let (t0, c0) = pair();
        std::thread::sleep(Duration::from_millis(50));
        let (t1, c1) = pair();
        let real = t1.duration_since(t0).as_nanos() as f64;
        let got = t.ns(c1 - c0) as f64;
        assert!((got - real).abs() < real * 0.002, "{got} ns vs {real} ns");
    }

    /// A count read on a CPU whose counter lags the one the clock started
    /// on reads as the start, not as a wrapped-around count (centuries:
    /// a ramp ending there would start the statistics past every later
    /// reading, and a time-based job would never end).
    #[test]
    fn a_count_below_the_start_reads_zero() {
        // 0.4 ns a tick (2.5 GHz).
        let t = Tsc {
            mult: (2u64 << 32) / 5,
        };
        let base = 1_000_000_000_000;
        assert_eq!(t.ns_since(base, base - 1), 0);
        assert_eq!(t.ns_since(base, base - 2_500_000_000), 0);
        assert_eq!(t.ns_since(base, base), 0);
        // 2.5e9 ticks later: one second (less a few ns of rounding).
        let s = t.ns_since(base, base + 2_500_000_000);
        assert!((999_999_990..=1_000_000_000).contains(&s), "{s}");
    }

    #[test]
    fn a_multiplier_scales_ticks() {
        // 2 ticks a nanosecond (a 2 GHz TSC): mult = 2^31.
        let t = Tsc { mult: 1 << 31 };
        assert_eq!(t.ns(2_000_000), 1_000_000);
        assert_eq!(t.ns(0), 0);
    }

    #[test]
    fn the_calibration_follows_the_detection() {
        assert_eq!(calibrated().is_some(), reliable() && rdtsc() != 0);
    }
}
