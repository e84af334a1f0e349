//! `--cpuclock-test`: fio 3.33's test of the CPU clock (`gettime.c`
//! `fio_monotonic_clocktest` with its debug output), on x86-64 the TSC.
//!
//! 1. `cs: reliable_tsc: yes|no`: whether CPUID says the TSC runs at a
//!    constant rate on every core (the invariant TSC bit, as fio reads it
//!    for Intel and AMD CPUs: `workload::tsc`, the detection the job
//!    clock uses too).
//! 2. The calibration, as fio's `calibrate_cpu_clock` prints it in its
//!    `time` debug lines: 50 measures of TSC cycles per millisecond
//!    against `CLOCK_MONOTONIC`, their mean, spread and trimmed mean, and
//!    the shifts and multipliers fio derives from them.
//! 3. `cs: Testing N CPUs` (the CPUs configured), then one thread pinned
//!    to each CPU rfio may run on: each takes 100,000 numbers from one
//!    shared sequence (compare-and-swap) and reads the TSC with each, and
//!    says `cs: cpu  N: C clocks seen, first F` when done.
//! 4. Sorted by sequence number, every TSC reading must be at least the
//!    one before it: each one that is not is a `cs: CPU clock mismatch`
//!    (with both readings), and the test ends with `cs: Failed: N`
//!    (status 1) or `cs: Pass!` (status 0).
//!
//! Everything is on stdout, as fio's `log_info`. Elsewhere than x86-64
//! rfio says `cs: current platform does not support CPU clocks` (status
//! 1), fio's line for a platform without a CPU clock it can test.

use std::io::{self, Write};

/// Run the test; the exit status.
pub(crate) fn run(out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    imp::run(out, err)
}

/// fio's `time` debug line (`dprint(FD_TIME, ...)`), from the main
/// thread.
fn time_line(msg: std::fmt::Arguments<'_>) -> String {
    let pid = i64::from(std::process::id());
    crate::debug::line(crate::debug::Cat::Time, pid, msg)
}

/// What fio's `calibrate_cpu_clock` derives from 50 measures of cycles
/// per millisecond, with its debug lines.
#[derive(Debug, Clone, PartialEq)]
struct Calibration {
    lines: Vec<String>,
}

/// fio's `MAX_CLOCK_SEC`.
const MAX_CLOCK_SEC: u64 = 60 * 60;

/// fio's arithmetic over `cycles` (cycles per millisecond, 50 measures),
/// ending with the cycle counter read by `now`. `None`: the clock
/// returned zeros (fio's calibration fails).
fn calibrate(cycles: &[u64], now: impl FnOnce() -> u64) -> Option<Calibration> {
    let n = cycles.len();
    let (mut mean, mut s) = (0.0f64, 0.0f64);
    for (i, &c) in cycles.iter().enumerate() {
        let delta = c as f64 - mean;
        if delta != 0.0 {
            mean += delta / (i as f64 + 1.0);
            s += delta * (c as f64 - mean);
        }
    }
    if cycles.first() == Some(&0) && cycles.last() == Some(&0) {
        return None;
    }
    s = (s / (n as f64 - 1.0)).sqrt();
    let (mut minc, mut maxc, mut samples, mut avg) = (u64::MAX, 0u64, 0u64, 0u64);
    for &c in cycles {
        let this = c as f64;
        minc = minc.min(c);
        maxc = maxc.max(c);
        if this.max(mean) - this.min(mean) > s {
            continue;
        }
        samples += 1;
        avg = (avg as f64 + this) as u64;
    }
    s /= n as f64;
    let mut lines: Vec<String> = cycles
        .iter()
        .enumerate()
        .map(|(i, c)| time_line(format_args!("cycles[{i}]={c}\n")))
        .collect();
    let per_msec = avg.checked_div(samples).unwrap_or(0).max(1);
    lines.push(time_line(format_args!(
        "min={minc}, max={maxc}, mean={mean:.6}, S={s:.6}, N={n}\n"
    )));
    lines.push(time_line(format_args!(
        "trimmed mean={per_msec}, N={samples}\n"
    )));
    let max_ticks = MAX_CLOCK_SEC * per_msec * 1000;
    let max_mult = u64::MAX / max_ticks;
    lines.push(time_line(format_args!(
        "max_ticks={max_ticks}, __builtin_clzll={}, max_mult={max_mult}\n",
        max_ticks.leading_zeros()
    )));
    let mut tmp = max_mult.wrapping_mul(per_msec) / 1_000_000;
    let mut sft = 0u32;
    while tmp > 1 {
        tmp >>= 1;
        sft += 1;
        lines.push(time_line(format_args!("tmp={tmp}, sft={sft}\n")));
    }
    let clock_mult = (1u64 << sft) * 1_000_000 / per_msec;
    lines.push(time_line(format_args!(
        "clock_shift={sft}, clock_mult={clock_mult}\n"
    )));
    let mut shift = 0u32;
    let mut tmp = MAX_CLOCK_SEC * 1000 * per_msec;
    lines.push(time_line(format_args!(
        "tmp={tmp}, max_cycles_shift={shift}\n"
    )));
    while tmp > 1 {
        tmp >>= 1;
        shift += 1;
        lines.push(time_line(format_args!(
            "tmp={tmp}, max_cycles_shift={shift}\n"
        )));
    }
    let nsecs = (1u64 << shift).wrapping_mul(clock_mult) >> sft;
    let mask = (1u64 << shift) - 1;
    lines.push(time_line(format_args!(
        "max_cycles_shift={shift}, 2^max_cycles_shift={}, nsecs_for_max_cycles={nsecs}, \
         max_cycles_mask={mask:016x}\n",
        1u64 << shift
    )));
    lines.push(time_line(format_args!("cycles_start={}\n", now())));
    Some(Calibration { lines })
}

/// One reading of a clock thread: its number in the shared sequence, its
/// CPU and the TSC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    seq: u32,
    cpu: u32,
    tsc: u64,
}

/// fio's check of the readings of every thread, sorted by sequence
/// number: the lines for each reading below the one before it, and how
/// many there were.
fn mismatches(entries: &mut [Entry]) -> (Vec<String>, u64) {
    entries.sort_by_key(|e| e.seq);
    let mut lines = Vec::new();
    let mut failed = 0u64;
    for w in entries.windows(2) {
        let (prev, this) = (w[0], w[1]);
        if prev.tsc > this.tsc {
            lines.push(format!(
                "cs: CPU clock mismatch (diff={}):\n\
                 \t CPU{:3}: TSC={}, SEQ={}\n\
                 \t CPU{:3}: TSC={}, SEQ={}\n",
                prev.tsc - this.tsc,
                prev.cpu,
                prev.tsc,
                prev.seq,
                this.cpu,
                this.tsc,
                this.seq
            ));
            failed += 1;
        }
    }
    (lines, failed)
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use std::io::{self, Write};
    use std::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicUsize, Ordering};
    use std::time::Instant;

    use super::{calibrate, mismatches, Entry};
    use crate::workload::tsc::{rdtsc, reliable as tsc_reliable};

    /// fio's `CLOCK_ENTRIES_DEBUG`: readings per thread.
    const ENTRIES: usize = 100_000;
    /// fio's `NR_TIME_ITERS`.
    const NR_TIME_ITERS: usize = 50;

    /// fio's `get_cycles_per_msec`: TSC cycles over at least 1.28 ms of
    /// the monotonic clock, per millisecond.
    fn cycles_per_msec() -> u64 {
        let s = Instant::now();
        let c_s = rdtsc();
        loop {
            let elapsed = s.elapsed().as_nanos() as u64;
            let c_e = rdtsc();
            if elapsed >= 1_280_000 {
                return c_e.wrapping_sub(c_s).saturating_mul(1_000_000) / elapsed;
            }
        }
    }

    /// The CPUs this thread may run on.
    fn allowed_cpus() -> Vec<usize> {
        // SAFETY: an all-zero cpu_set_t is an empty set; the call writes
        // at most size_of::<cpu_set_t>() bytes into it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
                return Vec::new();
            }
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect()
        }
    }

    /// Pin the calling thread to `cpu`.
    fn pin(cpu: usize) -> io::Result<()> {
        // SAFETY: the set is a plain bitmap, zeroed then one bit set; the
        // call only reads it.
        let rc = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// What one clock thread did: its readings, its line, and where it
    /// finished among the threads.
    struct ThreadResult {
        entries: Vec<Entry>,
        line: String,
        order: usize,
        failed: bool,
    }

    /// The threads' start: each says it is ready, then spins until the
    /// main thread lets them all go at once.
    struct Start {
        ready: AtomicUsize,
        go: AtomicBool,
    }

    /// fio's `clock_thread_fn`, on CPU `cpu`.
    fn clock_thread(
        cpu: usize,
        seq: &AtomicU32,
        start: &Start,
        done: &AtomicUsize,
    ) -> ThreadResult {
        let pinned = pin(cpu);
        start.ready.fetch_add(1, Ordering::SeqCst);
        while !start.go.load(Ordering::SeqCst) {
            std::hint::spin_loop();
        }
        if let Err(e) = pinned {
            let order = done.fetch_add(1, Ordering::SeqCst);
            return ThreadResult {
                entries: Vec::new(),
                line: format!("clock setaffinity failed: {e}\n"),
                order,
                failed: true,
            };
        }
        let first = rdtsc();
        let mut entries = Vec::with_capacity(ENTRIES);
        for _ in 0..ENTRIES {
            let (s, tsc) = loop {
                let s = seq.load(Ordering::SeqCst);
                if s == u32::MAX {
                    break (s, 0);
                }
                fence(Ordering::SeqCst);
                let tsc = rdtsc();
                if seq
                    .compare_exchange(s, s + 1, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
                {
                    break (s, tsc);
                }
            };
            if s == u32::MAX {
                break;
            }
            entries.push(Entry {
                seq: s,
                cpu: cpu as u32,
                tsc,
            });
        }
        let clocks = match (entries.first(), entries.last()) {
            (Some(a), Some(b)) => b.tsc.wrapping_sub(a.tsc),
            _ => 0,
        };
        let line = format!("cs: cpu{cpu:3}: {clocks} clocks seen, first {first}\n");
        // The most common platform clock breakage: zeros throughout.
        let zeros = entries.len() > 1
            && entries.first().is_some_and(|e| e.tsc == 0)
            && entries.last().is_some_and(|e| e.tsc == 0);
        ThreadResult {
            entries,
            line,
            order: done.fetch_add(1, Ordering::SeqCst),
            failed: zeros,
        }
    }

    pub(super) fn run(out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
        let reliable = if tsc_reliable() { "yes" } else { "no" };
        writeln!(out, "cs: reliable_tsc: {reliable}")?;
        out.flush()?;
        let mut cycles = [0u64; NR_TIME_ITERS];
        cycles[0] = cycles_per_msec();
        for c in cycles.iter_mut() {
            *c = cycles_per_msec();
        }
        if let Some(cal) = calibrate(&cycles, rdtsc) {
            write!(out, "{}", cal.lines.concat())?;
        }
        // SAFETY: sysconf has no memory preconditions.
        let configured = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.max(1) as usize;
        writeln!(out, "cs: Testing {configured} CPUs")?;
        out.flush()?;
        let cpus: Vec<usize> = allowed_cpus()
            .into_iter()
            .filter(|&c| c < configured)
            .collect();
        let seq = AtomicU32::new(0);
        let start = Start {
            ready: AtomicUsize::new(0),
            go: AtomicBool::new(false),
        };
        let done = AtomicUsize::new(0);
        let mut results: Vec<ThreadResult> = std::thread::scope(|s| {
            let handles: Vec<_> = cpus
                .iter()
                .map(|&cpu| {
                    let (seq, start, done) = (&seq, &start, &done);
                    s.spawn(move || clock_thread(cpu, seq, start, done))
                })
                .collect();
            let n = handles.len();
            while start.ready.load(Ordering::SeqCst) < n {
                std::thread::yield_now();
            }
            start.go.store(true, Ordering::SeqCst);
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        results.sort_by_key(|r| r.order);
        let mut failed_threads = 0u64;
        for r in &results {
            if r.line.starts_with("clock ") {
                write!(err, "{}", r.line)?;
            } else {
                write!(out, "{}", r.line)?;
            }
            failed_threads += u64::from(r.failed);
        }
        if failed_threads > 0 || results.len() < cpus.len() {
            let n = failed_threads.max((cpus.len() - results.len()) as u64);
            out.flush()?;
            writeln!(err, "Clocksource test: {n} threads failed")?;
            return Ok(1);
        }
        let mut entries: Vec<Entry> = results.into_iter().flat_map(|r| r.entries).collect();
        let (lines, failed) = mismatches(&mut entries);
        write!(out, "{}", lines.concat())?;
        if failed > 0 {
            writeln!(out, "cs: Failed: {failed}")?;
        } else {
            writeln!(out, "cs: Pass!")?;
        }
        Ok(i32::from(failed > 0))
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    use std::io::{self, Write};

    pub(super) fn run(out: &mut dyn Write, _err: &mut dyn Write) -> io::Result<i32> {
        writeln!(out, "cs: current platform does not support CPU clocks")?;
        Ok(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's numbers for the measures it printed in one run of
    /// `fio --cpuclock-test` (2,596,098 cycles per msec).
    #[test]
    fn calibration_is_fios_arithmetic() {
        let mut cycles = [2_596_098u64; 50];
        for (i, c) in [
            (0, 2_596_097),
            (3, 2_596_097),
            (13, 2_596_104),
            (14, 2_596_203),
            (34, 2_596_078),
            (35, 2_596_078),
        ] {
            cycles[i] = c;
        }
        let cal = calibrate(&cycles, || 57_896_340_566_077).expect("a clock");
        let text: Vec<String> = cal
            .lines
            .iter()
            .map(|l| {
                l.split_once(' ')
                    .map(|x| x.1.trim_start())
                    .unwrap()
                    .split_once(' ')
                    .unwrap()
                    .1
                    .trim_start()
                    .to_string()
            })
            .collect();
        assert_eq!(text[0], "cycles[0]=2596097\n");
        assert_eq!(
            text[50],
            "min=2596078, max=2596203, mean=2596099.380000, S=0.309941, N=50\n"
        );
        assert_eq!(text[51], "trimmed mean=2596098, N=47\n");
        assert_eq!(
            text[52],
            "max_ticks=9345952800000, __builtin_clzll=20, max_mult=1973768\n"
        );
        assert_eq!(text[53], "tmp=2562047, sft=1\n");
        assert_eq!(text[75], "clock_shift=22, clock_mult=1615618\n");
        assert_eq!(text[76], "tmp=9345952800000, max_cycles_shift=0\n");
        assert_eq!(
            text[120],
            "max_cycles_shift=43, 2^max_cycles_shift=8796093022208, \
             nsecs_for_max_cycles=3388196519936, max_cycles_mask=000007ffffffffff\n"
        );
        assert_eq!(text[121], "cycles_start=57896340566077\n");
        assert_eq!(cal.lines.len(), 122);
        assert!(cal.lines[0].starts_with("time     "));
    }

    #[test]
    fn a_clock_of_zeros_fails_calibration() {
        assert!(calibrate(&[0; 50], || 0).is_none());
    }

    #[test]
    fn readings_out_of_order_are_fios_mismatches() {
        let e = |seq, cpu, tsc| Entry { seq, cpu, tsc };
        let mut entries = vec![e(2, 1, 30), e(0, 0, 10), e(1, 0, 31), e(3, 0, 40)];
        let (lines, failed) = mismatches(&mut entries);
        assert_eq!(failed, 1);
        assert_eq!(
            lines,
            ["cs: CPU clock mismatch (diff=1):\n\t CPU  0: TSC=31, SEQ=1\n\t CPU  1: TSC=30, SEQ=2\n"]
        );
    }
}
