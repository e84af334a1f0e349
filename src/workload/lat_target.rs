//! `latency_target`: find the deepest queue that keeps the latency under a
//! target (fio's `lat_target_*` in `io_u.c`), and `max_latency`.
//!
//! The search starts at depth 1. Every `latency_window` the share of I/Os
//! whose total latency stayed under the target is compared with
//! `latency_percentile`: above it the depth doubles (bisects towards the
//! lowest failing depth once one failed), below it the depth bisects down.
//! With `latency_percentile=100` a single slow I/O lowers the depth at
//! once, and a slow I/O at depth 1 ends the job (`ETIMEDOUT`). When the
//! depth stops changing, the statistics restart for one final window at
//! that depth (fio's `latency_end_run`) and the job ends after it, unless
//! `latency_run` keeps it searching for the whole run.
//!
//! Pure state: the I/O loop feeds it completions and the time, and does
//! what the returned [`Step`] says. `--debug=rate` shows the search
//! (fio's lines).

use crate::debug::{dprint, Cat};

/// What the I/O loop must do after an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Continue,
    /// The depth went down: let the I/Os in flight complete first (fio's
    /// `io_u_quiesce`), so they do not count against the new depth.
    Quiesce,
    /// The depth settled: complete what is in flight and restart the
    /// statistics for the final window.
    FinalRun,
    /// The final window passed: the job is over.
    Done,
    /// Too slow even at depth 1: fail with `ETIMEDOUT`.
    Fatal,
}

#[derive(Debug, Clone)]
pub(crate) struct LatTarget {
    target_ns: u64,
    window_ns: u64,
    percentile: f64,
    keep_running: bool,
    iodepth: u32,
    qd: u32,
    qd_low: u32,
    qd_high: u32,
    cycle_start_ns: u64,
    cycle_ios: u64,
    failed: u64,
    end_run: bool,
}

impl LatTarget {
    /// The search for a job of `iodepth`, starting at `now_ns` with `ios`
    /// I/Os completed so far (fio's `lat_target_init`).
    pub(crate) fn new(
        target_ns: u64,
        window_us: u64,
        percentile: f64,
        keep_running: bool,
        iodepth: u32,
        now_ns: u64,
        ios: u64,
    ) -> LatTarget {
        dprint!(Cat::Rate, "Latency target={target_ns}\n");
        LatTarget {
            target_ns,
            window_ns: window_us.saturating_mul(1000),
            percentile,
            keep_running,
            iodepth: iodepth.max(1),
            qd: 1,
            qd_low: 1,
            qd_high: iodepth.max(1),
            cycle_start_ns: now_ns,
            cycle_ios: ios,
            failed: 0,
            end_run: false,
        }
    }

    /// The most I/Os the job may have in flight now.
    #[inline]
    pub(crate) fn depth(&self) -> u32 {
        self.qd
    }

    /// One I/O completed with total latency `lat_ns`, at `now_ns` with
    /// `ios` I/Os completed in all.
    #[inline]
    pub(crate) fn completed(&mut self, lat_ns: u64, now_ns: u64, ios: u64) -> Step {
        if lat_ns <= self.target_ns {
            return Step::Continue;
        }
        if self.percentile == 100.0 {
            self.failed_now(now_ns, ios)
        } else {
            self.failed += 1;
            Step::Continue
        }
    }

    /// After completions were reaped: at the end of a window, move the
    /// depth (fio's `lat_target_check`).
    pub(crate) fn check(&mut self, now_ns: u64, ios: u64) -> Step {
        if now_ns.saturating_sub(self.cycle_start_ns) < self.window_ns {
            return Step::Continue;
        }
        let done = ios.saturating_sub(self.cycle_ios);
        // As fio: no I/O in the window is 0/0, which never meets the
        // percentile.
        let success = (done.saturating_sub(self.failed)) as f64 / done as f64 * 100.0;
        dprint!(
            Cat::Rate,
            "Success rate: {success:.2}% (target {:.2}%)\n",
            self.percentile
        );
        if success >= self.percentile {
            self.succeeded(now_ns, ios)
        } else {
            match self.failed_now(now_ns, ios) {
                // fio ignores the verdict of a failed window at depth 1.
                Step::Fatal => Step::Continue,
                s => s,
            }
        }
    }

    fn new_cycle(&mut self, now_ns: u64, ios: u64) {
        self.cycle_start_ns = now_ns;
        self.cycle_ios = ios;
        self.failed = 0;
    }

    /// fio's `__lat_target_failed`.
    fn failed_now(&mut self, now_ns: u64, ios: u64) -> Step {
        if self.qd == 1 {
            return Step::Fatal;
        }
        self.qd_high = self.qd;
        if self.qd == self.qd_low {
            self.qd_low -= 1;
        }
        self.qd = (self.qd + self.qd_low) / 2;
        dprint!(
            Cat::Rate,
            "Ramped down: {} {} {}\n",
            self.qd_low,
            self.qd,
            self.qd_high
        );
        self.new_cycle(now_ns, ios);
        Step::Quiesce
    }

    /// fio's `lat_target_success`.
    fn succeeded(&mut self, now_ns: u64, ios: u64) -> Step {
        let qd = self.qd;
        self.qd_low = self.qd;
        self.qd = if self.qd_high != self.iodepth {
            (self.qd + self.qd_high) / 2
        } else {
            self.qd.saturating_mul(2)
        }
        .min(self.iodepth);
        dprint!(
            Cat::Rate,
            "Ramped up: {} {} {}\n",
            self.qd_low,
            self.qd,
            self.qd_high
        );
        let mut step = Step::Continue;
        if !self.keep_running && self.qd == qd {
            if self.end_run {
                dprint!(Cat::Rate, "We are done\n");
                step = Step::Done;
            } else {
                dprint!(Cat::Rate, "Quiesce and final run\n");
                self.end_run = true;
                step = Step::FinalRun;
            }
        }
        self.new_cycle(now_ns, ios);
        step
    }
}

/// fio's message when an I/O (of `dir` on `file`) is slower than
/// `max_latency` (or than `latency_target` at depth 1).
pub(crate) fn too_slow(
    lat_ns: u64,
    max_ns: u64,
    file: &str,
    dir: &str,
    offset: u64,
    len: u64,
) -> String {
    format!(
        "fio: latency of {lat_ns} nsec exceeds specified max ({max_ns} nsec): {file} {dir} {offset} {len}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Windows of 100 ms, each with 100 I/Os and `slow` of them over the
    /// target; the depths the search goes through and its last step.
    fn walk(t: &mut LatTarget, slow: &dyn Fn(u32) -> u64, windows: usize) -> (Vec<u32>, Step) {
        let (mut now, mut ios) = (0, 0);
        let mut depths = vec![t.depth()];
        let mut last = Step::Continue;
        for _ in 0..windows {
            let s = slow(t.depth());
            for i in 0..100 {
                ios += 1;
                let lat = if i < s { 2 * MS } else { MS / 2 };
                if t.completed(lat, now, ios) == Step::Fatal {
                    return (depths, Step::Fatal);
                }
            }
            now += 100 * MS;
            last = t.check(now, ios);
            depths.push(t.depth());
            if last == Step::Done {
                break;
            }
        }
        (depths, last)
    }

    #[test]
    fn fast_device_doubles_to_iodepth_then_runs_one_final_window() {
        let mut t = LatTarget::new(MS, 100_000, 100.0, false, 8, 0, 0);
        let (depths, last) = walk(&mut t, &|_| 0, 20);
        assert_eq!(depths, [1, 2, 4, 8, 8, 8]);
        assert_eq!(last, Step::Done);
        assert!(t.end_run);
    }

    #[test]
    fn slow_beyond_depth_four_settles_on_four() {
        // Under percentile 90, depths above 4 see 20% slow I/Os.
        let mut t = LatTarget::new(MS, 100_000, 90.0, false, 16, 0, 0);
        let (depths, last) = walk(&mut t, &|qd| if qd > 4 { 20 } else { 0 }, 30);
        assert_eq!(last, Step::Done);
        assert_eq!(t.depth(), 4, "{depths:?}");
        assert_eq!(&depths[..5], &[1, 2, 4, 8, 6]);
    }

    #[test]
    fn one_slow_io_at_depth_one_is_fatal_with_percentile_100() {
        let mut t = LatTarget::new(MS, 100_000, 100.0, false, 4, 0, 0);
        assert_eq!(t.completed(2 * MS, 1, 1), Step::Fatal);
        // Below 100%, slow I/Os are only counted.
        let mut t = LatTarget::new(MS, 100_000, 99.0, false, 4, 0, 0);
        assert_eq!(t.completed(2 * MS, 1, 1), Step::Continue);
    }

    #[test]
    fn latency_run_keeps_searching() {
        let mut t = LatTarget::new(MS, 100_000, 100.0, true, 4, 0, 0);
        let (depths, last) = walk(&mut t, &|_| 0, 6);
        assert_eq!(last, Step::Continue);
        assert_eq!(depths, [1, 2, 4, 4, 4, 4, 4]);
    }

    #[test]
    fn an_empty_window_counts_as_failed() {
        let mut t = LatTarget::new(MS, 100_000, 100.0, false, 4, 0, 0);
        assert_eq!(t.check(200 * MS, 0), Step::Continue); // depth 1: ignored
        assert_eq!(t.depth(), 1);
    }

    #[test]
    fn message_is_fios() {
        assert_eq!(
            too_slow(36164, 1000, "ml.dat", "write", 0, 4096),
            "fio: latency of 36164 nsec exceeds specified max (1000 nsec): ml.dat write 0 4096\n"
        );
    }
}
