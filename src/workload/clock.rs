//! The job clock: nanoseconds since a job's I/O started (fio's
//! `clocksource`), and the loop's waits on it.
//!
//! The I/O loop is generic over [`Clock`] (monomorphised: no dynamic
//! dispatch per I/O). [`RealClock`] is the one jobs run on. fio's default
//! on x86-64 is `clocksource=cpu`: the time stamp counter, calibrated
//! against the system clock once, when the CPU says its TSC is invariant
//! (ticks at a constant rate and never stops). A TSC read costs a few
//! nanoseconds where `clock_gettime` costs tens, and the loop reads the
//! clock two or three times per I/O. `clocksource=clock_gettime` (and
//! `gettimeofday`, which rfio serves from the same monotonic clock) use
//! the system clock; so does every machine without a usable TSC.
//!
//! Tests run the loop on `FakeClock` (test builds only): its time moves
//! only by what the loop sleeps, spins and pauses, and by what the test
//! (or a test engine) adds, so that a run is exact and instant.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::stop::Stop;
use super::think;

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

#[cfg(target_arch = "x86_64")]
fn calibrate() -> Option<Tsc> {
    let flags = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = flags.lines().find(|l| l.starts_with("flags"))?;
    let has = |f: &str| line.split_whitespace().any(|w| w == f);
    if !(has("constant_tsc") && has("nonstop_tsc")) {
        return None;
    }
    // Ticks over the window of the monotonic clock, from the first reading
    // (a constant, nonstop TSC counts on while the process sleeps or
    // moves between CPUs).
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

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn rdtsc() -> u64 {
    0
}

/// What the loop reads the time from and waits on. Times are ns since
/// the clock (re)started.
pub(crate) trait Clock {
    /// Time 0 is now.
    fn restart(&mut self);

    /// Nanoseconds since the clock started.
    fn now(&self) -> u64;

    /// Sleep `ns` (a rate limit's wait, a start delay), waking early once
    /// `stop` is requested.
    fn sleep(&self, ns: u64, stop: &Stop);

    /// A think time's sleep of `us` µs, as fio's `usec_sleep` (see
    /// [`think::pause`]); returns at once when `stop` is requested.
    fn pause(&self, us: u64, stop: &Stop);

    /// Busy-wait `us` µs (`thinktime_spin`).
    fn spin(&self, us: u64);
}

/// The clock of `clocksource=`, started at a point in time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RealClock {
    source: Source,
    base: Instant,
    read: Read,
}

/// Where a [`RealClock`] reads the time.
#[derive(Debug, Clone, Copy)]
enum Read {
    /// The time stamp counter, from this count.
    Tsc(Tsc, u64),
    /// The monotonic clock (`base`).
    System,
    /// `gtod_cpu`'s time thread, from this time of day in µs.
    TimeThread(u64),
}

impl RealClock {
    /// A clock from `source`, starting now.
    pub(crate) fn start(source: Source) -> RealClock {
        let read = match source {
            Source::System => Read::System,
            Source::Auto | Source::Cpu => tsc().map_or(Read::System, |t| Read::Tsc(t, rdtsc())),
        };
        RealClock {
            source,
            base: Instant::now(),
            read,
        }
    }

    /// A clock that reads `gtod_cpu`'s time thread when it runs (fio's
    /// `fio_gettime` then reads only what that thread published), else
    /// one from `source`.
    pub(crate) fn start_on_time_thread(source: Source) -> RealClock {
        let mut c = RealClock::start(source);
        if super::gtod::active() {
            c.read = Read::TimeThread(super::gtod::now_us());
        }
        c
    }
}

impl Clock for RealClock {
    fn restart(&mut self) {
        let read = self.read;
        *self = RealClock::start(self.source);
        if let Read::TimeThread(_) = read {
            self.read = Read::TimeThread(super::gtod::now_us());
        }
    }

    #[inline]
    fn now(&self) -> u64 {
        match self.read {
            Read::Tsc(t, base) => {
                ((u128::from(rdtsc().wrapping_sub(base)) * u128::from(t.mult)) >> 32) as u64
            }
            Read::System => self.base.elapsed().as_nanos() as u64,
            Read::TimeThread(base) => super::gtod::now_us().saturating_sub(base) * 1000,
        }
    }

    fn sleep(&self, ns: u64, stop: &Stop) {
        if ns > 0 {
            think::sleep_unless(stop, Duration::from_nanos(ns));
        }
    }

    fn pause(&self, us: u64, stop: &Stop) {
        think::pause(stop, us);
    }

    fn spin(&self, us: u64) {
        let t0 = Instant::now();
        while (t0.elapsed().as_micros() as u64) < us {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
pub(crate) use fake::{FakeClock, FakeTime};

#[cfg(test)]
mod fake {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::Arc;

    use super::{Clock, Stop};

    /// The time a [`FakeClock`] reads, shared with whoever else moves it
    /// (a test engine that takes time per I/O), and what was waited.
    /// Atomic, so that an engine holding it is `Send`; one thread uses it.
    #[derive(Debug, Default)]
    pub(crate) struct FakeTime {
        now: AtomicU64,
        slept_ns: AtomicU64,
        sleeps: AtomicU64,
        paused_us: AtomicU64,
        spun_us: AtomicU64,
    }

    impl FakeTime {
        /// ns since the fake time began (not since a clock restarted).
        pub(crate) fn now(&self) -> u64 {
            self.now.load(Relaxed)
        }

        /// Time moves on by `ns`.
        pub(crate) fn advance(&self, ns: u64) {
            self.now.fetch_add(ns, Relaxed);
        }

        /// ns asked for by [`Clock::sleep`], in all, and how many sleeps.
        pub(crate) fn slept(&self) -> (u64, u64) {
            (self.slept_ns.load(Relaxed), self.sleeps.load(Relaxed))
        }

        /// µs of [`Clock::pause`] and of [`Clock::spin`], in all.
        pub(crate) fn thought(&self) -> (u64, u64) {
            (self.paused_us.load(Relaxed), self.spun_us.load(Relaxed))
        }
    }

    /// A clock on a [`FakeTime`]: it moves only when something advances
    /// it; its waits advance it by what they were asked, at once.
    #[derive(Debug, Clone)]
    pub(crate) struct FakeClock {
        time: Arc<FakeTime>,
        base: u64,
    }

    impl FakeClock {
        pub(crate) fn new(time: Arc<FakeTime>) -> FakeClock {
            let base = time.now();
            FakeClock { time, base }
        }
    }

    impl Clock for FakeClock {
        fn restart(&mut self) {
            self.base = self.time.now();
        }

        fn now(&self) -> u64 {
            self.time.now() - self.base
        }

        fn sleep(&self, ns: u64, stop: &Stop) {
            if ns > 0 && !stop.requested() {
                self.time.slept_ns.fetch_add(ns, Relaxed);
                self.time.sleeps.fetch_add(1, Relaxed);
                self.time.advance(ns);
            }
        }

        fn pause(&self, us: u64, stop: &Stop) {
            if !stop.requested() {
                self.time.paused_us.fetch_add(us, Relaxed);
                self.time.advance(us * 1000);
            }
        }

        fn spin(&self, us: u64) {
            self.time.spun_us.fetch_add(us, Relaxed);
            self.time.advance(us * 1000);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_clocks_follow_real_time() {
        for source in [Source::System, Source::Auto] {
            let before = Instant::now();
            let c = RealClock::start(source);
            let t0 = Instant::now();
            // The span of real time measured (its length does not matter:
            // the reading is bracketed by Instant's below).
            std::thread::sleep(Duration::from_millis(20));
            let lo = t0.elapsed().as_nanos() as i64;
            let got = c.now() as i64;
            let hi = before.elapsed().as_nanos() as i64;
            // Between the two Instant readings around it, within 5% for
            // the calibration error, however long the thread was preempted.
            assert!(
                got > lo - lo / 20 && got < hi + hi / 20,
                "{source:?}: {got} not in [{lo}, {hi}]"
            );
        }
    }

    /// The calibration (a 3 ms window, mostly slept) converts ticks to
    /// nanoseconds within 0.2% of the monotonic clock over a longer span.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_calibration_holds_over_time() {
        let Some(t) = tsc() else {
            return; // no invariant TSC: every clock reads the system clock
        };
        let (t0, c0) = pair();
        std::thread::sleep(Duration::from_millis(50));
        let (t1, c1) = pair();
        let real = t1.duration_since(t0).as_nanos() as f64;
        let got = ((u128::from(c1 - c0) * u128::from(t.mult)) >> 32) as f64;
        assert!((got - real).abs() < real * 0.002, "{got} ns vs {real} ns");
    }

    #[test]
    fn monotonic() {
        let c = RealClock::start(Source::Auto);
        let mut last = 0;
        for _ in 0..10_000 {
            let n = c.now();
            assert!(n >= last);
            last = n;
        }
    }

    #[test]
    fn a_fake_clock_moves_only_when_told() {
        let time = std::sync::Arc::new(FakeTime::default());
        time.advance(5);
        let mut c = FakeClock::new(time.clone());
        assert_eq!(c.now(), 0);
        let stop = Stop::new();
        c.sleep(1000, &stop);
        c.sleep(0, &stop);
        c.spin(2);
        c.pause(3, &stop);
        assert_eq!((c.now(), time.now()), (6000, 6005));
        assert_eq!((time.slept(), time.thought()), ((1000, 1), (3, 2)));
        stop.request();
        c.sleep(1000, &stop);
        c.pause(1000, &stop);
        assert_eq!(c.now(), 6000, "a stop ends the waits at once");
        c.restart();
        assert_eq!(c.now(), 0);
    }
}
