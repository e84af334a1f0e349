//! When the loop stops (fio's `keep_running`, the checks in `do_io`):
//! the job's time line (ramp, runtime, the I/O time of its passes), what a
//! pass and the job may issue, and whether another pass follows. Plain
//! values and arithmetic: the loop gives the time.

use super::super::job::Prepared;

/// The job's time, in ns on the loop's clock (0: the job's I/O began).
#[derive(Debug, Clone, Copy)]
pub(super) struct Timeline {
    /// When the statistics started (the end of `ramp_time`); `None` while
    /// ramping.
    stats_from: Option<u64>,
    ramp_ns: u64,
    /// `ramp_size` (fio 3.42): the ramp lasts until this many bytes were
    /// moved (0: none).
    ramp_bytes: u64,
    /// ns between the checks that end the ramp (fio 3.42's helper
    /// thread; 0: none, the first I/O past `ramp_ns` ends it).
    check_ns: u64,
    /// While ramping, when [`Timeline::ramp_ends`] next asks: the end of
    /// `ramp_ns`, or the next check.
    ramp_at: u64,
    /// `runtime`, 0 for none.
    runtime_ns: u64,
    /// When the current pass started.
    pass_start: u64,
    /// µs of I/O time with the statistics on, over the passes before.
    elapsed_us: u64,
}

impl Timeline {
    pub(super) fn new(ramp_ns: u64, runtime_ns: u64) -> Timeline {
        Timeline {
            stats_from: None,
            ramp_ns,
            ramp_bytes: 0,
            check_ns: 0,
            ramp_at: ramp_ns,
            runtime_ns,
            pass_start: 0,
            elapsed_us: 0,
        }
    }

    /// fio 3.42's ramp: it may last until `bytes` were moved (0: no such
    /// ramp), and it ends only at a check, every `check_ns` (0: at the
    /// first I/O past `ramp_ns`, as 3.33).
    pub(super) fn with_ramp_checks(self, bytes: u64, check_ns: u64) -> Timeline {
        Timeline {
            ramp_bytes: bytes,
            check_ns,
            ..self
        }
    }

    /// The job's I/O begins at 0, `phase_ns` after the checks began (the
    /// run's start, when fio's helper thread starts its timers): the
    /// statistics start with it unless it ramps first. Returns whether
    /// they started.
    pub(super) fn begin(&mut self, phase_ns: u64) -> bool {
        if self.check_ns > 0 {
            // The first check after 0: they fall every check_ns from
            // phase_ns before it.
            self.ramp_at = self.check_ns - phase_ns % self.check_ns;
        }
        if self.ramp_ns == 0 && self.ramp_bytes == 0 {
            self.stats_from = Some(0);
        }
        self.stats_from.is_some()
    }

    /// When the statistics started, if they have.
    #[inline]
    pub(super) fn stats_from(&self) -> Option<u64> {
        self.stats_from
    }

    /// Whether the statistics are on (the ramp is over).
    #[inline]
    pub(super) fn recording(&self) -> bool {
        self.stats_from.is_some()
    }

    /// Whether the ramp is still on and `now` may end it (past
    /// `ramp_time`, or past a check): [`Timeline::ramp_over`] says.
    #[inline]
    pub(super) fn ramp_ends(&self, now: u64) -> bool {
        self.stats_from.is_none() && now >= self.ramp_at
    }

    /// After [`Timeline::ramp_ends`] at `now`, with `moved` bytes moved
    /// in the ramp: whether it is over. With checks (fio 3.42's
    /// `ramp_period_check`), the last check up to `now` decides, from the
    /// time it fell at (`ramp_time`) or the bytes moved (`ramp_size`);
    /// the next check is asked then.
    pub(super) fn ramp_over(&mut self, now: u64, moved: u64) -> bool {
        if self.check_ns == 0 {
            return true;
        }
        let check = self.ramp_at + (now - self.ramp_at) / self.check_ns * self.check_ns;
        self.ramp_at = check + self.check_ns;
        (self.ramp_ns > 0 && check >= self.ramp_ns)
            || (self.ramp_bytes > 0 && moved >= self.ramp_bytes)
    }

    /// While ramping, when the ramp will end (`None`: it ends by bytes,
    /// at no known time).
    fn ramp_end_ns(&self) -> Option<u64> {
        if self.ramp_bytes > 0 {
            return None;
        }
        if self.check_ns == 0 {
            return Some(self.ramp_ns);
        }
        if self.ramp_at >= self.ramp_ns {
            return Some(self.ramp_at);
        }
        let checks = (self.ramp_ns - self.ramp_at).div_ceil(self.check_ns);
        Some(self.ramp_at + checks * self.check_ns)
    }

    /// The statistics start at `now` (the end of the ramp), forgetting
    /// the time of the passes inside the ramp.
    pub(super) fn start_stats(&mut self, now: u64) {
        self.elapsed_us = 0;
        self.stats_from = Some(now);
    }

    /// The statistics start again at `now`, forgetting the I/O time so far
    /// (the latency target's final window).
    pub(super) fn restart(&mut self, now: u64) {
        self.elapsed_us = 0;
        self.stats_from = Some(now);
        self.pass_start = now;
    }

    /// Whether `runtime` has passed at `now` (never while ramping).
    #[inline]
    pub(super) fn runtime_over(&self, now: u64) -> bool {
        match self.stats_from {
            Some(from) => self.runtime_ns > 0 && now.saturating_sub(from) >= self.runtime_ns,
            None => false,
        }
    }

    /// µs of `runtime` left at `now` (`None`: no runtime, or ramping).
    pub(super) fn runtime_left_us(&self, now: u64) -> Option<u64> {
        let from = self.stats_from?;
        (self.runtime_ns > 0)
            .then(|| self.runtime_ns.saturating_sub(now.saturating_sub(from)) / 1000)
    }

    /// ns of `runtime` left at `now` (`None`: no runtime, or ramping).
    pub(super) fn runtime_left_ns(&self, now: u64) -> Option<u64> {
        let from = self.stats_from?;
        (self.runtime_ns > 0).then(|| self.runtime_ns.saturating_sub(now.saturating_sub(from)))
    }

    /// ns from `now` to the end of the ramp and the runtime after it
    /// (`None`: no runtime).
    pub(super) fn deadline_left_ns(&self, now: u64) -> Option<u64> {
        match self.stats_from {
            Some(_) => self.runtime_left_ns(now),
            None => match self.ramp_end_ns() {
                Some(end) if self.runtime_ns > 0 => {
                    Some(end.saturating_sub(now).saturating_add(self.runtime_ns))
                }
                _ => None,
            },
        }
    }

    /// A pass starts at `at`.
    pub(super) fn pass_starts(&mut self, at: u64) {
        self.pass_start = at;
    }

    /// The current pass ended at `end`: its time with the statistics on
    /// joins the I/O time (while ramping, all of it: a job that ends
    /// inside its ramp reports that time, as fio never resets its clock).
    pub(super) fn pass_ends(&mut self, end: u64) {
        let from = self.stats_from.unwrap_or(0);
        self.elapsed_us += end.saturating_sub(from.max(self.pass_start)) / 1000;
    }

    /// µs of I/O time with the statistics on: the passes before, and the
    /// current one up to `now`.
    pub(super) fn elapsed_us_at(&self, now: u64) -> u64 {
        self.stats_from.map_or(0, |from| {
            self.elapsed_us + now.saturating_sub(from.max(self.pass_start)) / 1000
        })
    }

    /// µs of I/O time with the statistics on, over the passes ended (or
    /// of all of them, if the ramp never ended).
    pub(super) fn elapsed_us(&self) -> u64 {
        self.elapsed_us
    }
}

/// What the job has issued and completed, over all its passes (and in
/// the current one).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counters {
    pub(super) issued_bytes: u64,
    pub(super) issued_ios: u64,
    pub(super) done_bytes: u64,
    /// Writes issued (fio's `io_issues[DDIR_WRITE]`, the next `numberio`).
    pub(super) write_issues: u64,
    /// Bytes completed in this pass while not verifying, per direction
    /// (fio's `bytes_done` of one `do_io`).
    pub(super) pass_done: [u64; 3],
    /// Reads and writes issued and completed in this pass (think time).
    pub(super) pass_issued_ios: u64,
    pub(super) pass_completed_ios: u64,
    /// Per direction: bytes and I/Os completed inside the ramp (fio counts
    /// them, and resets them as the ramp ends: a job that ends inside its
    /// ramp reports them, without latencies).
    pub(super) ramp_io: [(u64, u64); 3],
}

impl Counters {
    /// A new write is issued: its `numberio`.
    #[inline]
    pub(super) fn next_numberio(&mut self) -> u16 {
        let n = self.write_issues as u16;
        self.write_issues += 1;
        n
    }
}

/// How much a pass and the job may issue (from [`Prepared`]), and how
/// many passes the job makes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    /// Bytes one pass issues at most (fio's `total_bytes`).
    pass_bytes: u64,
    /// Bytes and I/Os the job issues at most, over all passes.
    total_bytes: u64,
    total_ios: u64,
    /// `io_size` or `size`, and the largest block size: a job whose
    /// `io_size` is beyond its `size` runs passes while a block is left.
    limit: u64,
    max_bs: u64,
    /// `loops` (at least 1).
    loops: u64,
    time_based: bool,
    /// `io_size` is set and `number_ios` is not.
    io_size_passes: bool,
}

impl Budget {
    pub(super) fn of(job: &Prepared<'_>) -> Budget {
        let spec = job.spec;
        Budget {
            pass_bytes: job.pass_bytes,
            // A replay ends when its log does (its total is for the
            // status line).
            total_bytes: if job.replay.is_some() {
                u64::MAX
            } else {
                job.total_bytes
            },
            total_ios: job.total_ios,
            limit: job.limit,
            max_bs: job.max_bs,
            loops: u64::from(spec.loops.max(1)),
            time_based: spec.time_based,
            io_size_passes: spec.number_ios == 0 && spec.io_size.is_some(),
        }
    }

    /// Whether the job has issued all it may (never for a time-based job).
    #[inline]
    pub(super) fn job_done(&self, c: &Counters) -> bool {
        !self.time_based && (c.issued_bytes >= self.total_bytes || c.issued_ios >= self.total_ios)
    }

    /// Whether the pass may issue no new I/O after `pass_issued` bytes
    /// (only what the engine queued counts: see `run_pass`). A time-based
    /// pass ends on its bytes only when it `verifies` them.
    #[inline]
    pub(super) fn pass_done(&self, pass_issued: u64, verifies: bool, c: &Counters) -> bool {
        self.pass_bytes_done(pass_issued, verifies) || self.job_done(c)
    }

    /// Whether the pass issued its bytes (the first half of `pass_done`):
    /// all that ends a pass while blocks wait on the trim list.
    #[inline]
    pub(super) fn pass_bytes_done(&self, pass_issued: u64, verifies: bool) -> bool {
        pass_issued >= self.pass_bytes && (!self.time_based || verifies)
    }

    /// fio's `keep_running` after `passes` passes that completed `done`
    /// bytes in all: time-based jobs run on, `loops` passes are made, and
    /// an `io_size` beyond `size` takes more passes while at least a block
    /// is left to do.
    pub(super) fn another_pass(&self, passes: u64, done: u64) -> bool {
        self.time_based || passes < self.loops || (self.io_size_passes && self.short_of_limit(done))
    }

    /// At least a block is left of `io_size` (or `size`) after `done`
    /// bytes.
    pub(super) fn short_of_limit(&self, done: u64) -> bool {
        done < self.limit && self.limit - done >= self.max_bs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn the_runtime_counts_from_the_end_of_the_ramp() {
        let mut t = Timeline::new(500 * MS, 1000 * MS);
        assert!(!t.begin(0), "ramping");
        assert!(!t.runtime_over(5000 * MS), "no runtime while ramping");
        assert!(!t.ramp_ends(499 * MS));
        assert!(t.ramp_ends(501 * MS));
        t.start_stats(501 * MS);
        assert!(!t.ramp_ends(600 * MS), "once");
        assert_eq!(t.runtime_left_us(1001 * MS), Some(500_000));
        assert!(!t.runtime_over(1500 * MS));
        assert!(t.runtime_over(1501 * MS));
        assert_eq!(t.runtime_left_us(9000 * MS), Some(0));
        // Without a ramp the statistics start at once.
        let mut t = Timeline::new(0, 0);
        assert!(t.begin(0) && t.recording());
        assert!(!t.runtime_over(u64::MAX), "no runtime");
        assert_eq!(t.runtime_left_us(MS), None);
    }

    #[test]
    fn with_checks_the_ramp_ends_at_the_first_check_past_it() {
        const S: u64 = 1000 * MS;
        // fio 3.42: ramp_time=1s, the job's I/O began 5 ms after the
        // run: the check at 995 ms finds 995 ms, the one at 1995 ms ends
        // the ramp.
        let mut t = Timeline::new(S, 0).with_ramp_checks(0, S);
        assert!(!t.begin(5 * MS));
        assert!(!t.ramp_ends(994 * MS));
        assert!(t.ramp_ends(995 * MS));
        assert!(!t.ramp_over(996 * MS, 0), "995 ms < 1 s");
        assert!(!t.ramp_ends(1994 * MS));
        assert!(t.ramp_ends(2000 * MS) && t.ramp_over(2000 * MS, 0));
        // ramp_size=64k: the bytes moved at the first check decide; an
        // I/O that waited past two checks is decided by the last.
        let mut t = Timeline::new(0, 0).with_ramp_checks(65536, S);
        assert!(!t.begin(0), "ramping by bytes");
        assert!(!t.ramp_ends(999 * MS));
        assert!(!t.ramp_over(S, 4096));
        assert!(t.ramp_ends(3500 * MS));
        assert!(t.ramp_over(3500 * MS, 65536));
        // Without checks (3.33) the first I/O past ramp_time ends it.
        let mut t = Timeline::new(100 * MS, 0).with_ramp_checks(0, 0);
        t.begin(5 * MS);
        assert!(t.ramp_ends(100 * MS) && t.ramp_over(100 * MS, 0));
    }

    #[test]
    fn io_time_adds_up_over_passes_without_the_ramp() {
        let mut t = Timeline::new(100 * MS, 0);
        t.begin(0);
        t.start_stats(100 * MS);
        // The first pass started at 0, inside the ramp.
        assert_eq!(t.elapsed_us_at(250 * MS), 150_000);
        t.pass_ends(300 * MS);
        assert_eq!(t.elapsed_us(), 200_000);
        t.pass_starts(400 * MS);
        t.pass_ends(450 * MS);
        assert_eq!(t.elapsed_us(), 250_000);
        t.restart(500 * MS);
        assert_eq!((t.elapsed_us(), t.elapsed_us_at(600 * MS)), (0, 100_000));
    }

    #[test]
    fn a_job_ending_inside_its_ramp_has_the_time_of_its_passes() {
        let mut t = Timeline::new(1000 * MS, 0);
        assert!(!t.begin(0));
        t.pass_ends(300 * MS);
        t.pass_starts(400 * MS);
        t.pass_ends(450 * MS);
        assert_eq!(t.elapsed_us(), 350_000);
        // The ramp ends in the next pass: only its time from then counts.
        t.pass_starts(500 * MS);
        t.start_stats(1000 * MS);
        t.pass_ends(1200 * MS);
        assert_eq!(t.elapsed_us(), 200_000);
    }

    fn budget(loops: u64, time_based: bool, io_size_passes: bool) -> Budget {
        Budget {
            pass_bytes: 1 << 20,
            total_bytes: loops << 20,
            total_ios: u64::MAX,
            limit: 3 << 20,
            max_bs: 4096,
            loops,
            time_based,
            io_size_passes,
        }
    }

    #[test]
    fn passes_end_on_their_bytes_and_jobs_on_theirs() {
        let b = budget(2, false, false);
        let mut c = Counters::default();
        assert!(!b.pass_done((1 << 20) - 1, false, &c));
        assert!(b.pass_done(1 << 20, false, &c));
        c.issued_bytes = 2 << 20;
        assert!(b.job_done(&c) && b.pass_done(0, false, &c));
        // Time-based: neither, unless the pass verifies what it wrote.
        let b = budget(2, true, false);
        assert!(!b.job_done(&c) && !b.pass_done(1 << 20, false, &c));
        assert!(b.pass_done(1 << 20, true, &c));
    }

    #[test]
    fn loops_time_and_io_size_decide_another_pass() {
        let b = budget(3, false, false);
        assert!(b.another_pass(1, 0) && b.another_pass(2, 0));
        assert!(!b.another_pass(3, 0));
        assert!(budget(1, true, false).another_pass(100, 0));
        // io_size=3m over size=1m: passes while a block is left.
        let b = budget(1, false, true);
        assert!(b.another_pass(1, 1 << 20));
        assert!(b.another_pass(2, (3 << 20) - 4096));
        assert!(!b.another_pass(3, (3 << 20) - 4095));
    }
}
