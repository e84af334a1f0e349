//! `latency_target` and `max_latency` in the loop (fio's checks in
//! `account_io_completion` and its `lat_target_check` after reaping): the
//! search itself is [`LatTarget`]; here is what the loop keeps for it and
//! does on its [`Step`]s.

use super::super::clock::Clock;
use super::super::errno::verror;
use super::super::lat_target::{too_slow, LatTarget, Step};
use super::{Exec, Halt};
use crate::ddir::Ddir;
use crate::plan::spec::JobSpec;

/// `latency_target` and its companions, read once.
#[derive(Debug, Clone, Copy)]
struct LatCfg {
    target_ns: u64,
    window_us: u64,
    percentile: f64,
    keep_running: bool,
}

/// The latency checks of one job.
#[derive(Debug, Clone)]
pub(super) struct Latency {
    /// The search, set up again at each pass; `None` without a target.
    search: Option<LatTarget>,
    cfg: Option<LatCfg>,
    /// Reads and writes completed with the statistics on (fio's
    /// `io_blocks`).
    ios: u64,
    /// The search lowered the depth: let what is in flight finish first.
    quiesce: bool,
    /// `max_latency` per direction, in ns (0: none).
    max_ns: [u64; 3],
}

impl Latency {
    pub(super) fn new(spec: &JobSpec) -> Latency {
        let c = &spec.report.stats;
        Latency {
            search: None,
            cfg: (c.latency_target_ns > 0).then_some(LatCfg {
                target_ns: c.latency_target_ns,
                window_us: c.latency_window_us,
                percentile: c.latency_percentile,
                keep_running: spec.exec.latency_run,
            }),
            ios: 0,
            quiesce: false,
            max_ns: spec.exec.max_latency_ns,
        }
    }

    /// A pass starts at `now` (fio's `lat_target_init` at the start of
    /// `do_io`): the search starts again at depth 1.
    pub(super) fn start_pass(&mut self, iodepth: u32, now: u64) {
        self.search = self.cfg.map(|c| {
            LatTarget::new(
                c.target_ns,
                c.window_us,
                c.percentile,
                c.keep_running,
                iodepth,
                now,
                self.ios,
            )
        });
    }

    /// Whether a depth search runs.
    #[inline]
    pub(super) fn searching(&self) -> bool {
        self.search.is_some()
    }

    /// The most I/Os the search lets the job have in flight, if it runs.
    #[inline]
    pub(super) fn depth(&self) -> Option<u32> {
        self.search.as_ref().map(LatTarget::depth)
    }

    /// A read, write or trim completed with the statistics on; returns
    /// whether its latency is to be checked ([`Latency::completed`]).
    #[inline]
    pub(super) fn counted(&mut self, dir: Ddir) -> bool {
        if dir != Ddir::Trim {
            self.ios += 1;
        }
        self.max_ns[dir.index()] > 0 || self.search.is_some()
    }

    /// An I/O of `dir` completed at `now` after `lat_ns`: the limit it
    /// went over (`max_latency`, or the target at depth 1), if any.
    pub(super) fn completed(&mut self, dir: Ddir, lat_ns: u64, now: u64) -> Option<u64> {
        let mut over = None;
        let max = self.max_ns[dir.index()];
        if max > 0 && lat_ns > max {
            over = Some(max);
        }
        if let Some(l) = self.search.as_mut() {
            match l.completed(lat_ns, now, self.ios) {
                Step::Fatal => over = over.or(Some(self.cfg.map_or(0, |c| c.target_ns))),
                Step::Quiesce => self.quiesce = true,
                _ => {}
            }
        }
        over
    }
}

impl<C: Clock> Exec<'_, '_, C> {
    /// `max_latency` and `latency_target` on unit `t`, completed at `now`
    /// after `lat_ns` in all.
    pub(super) fn check_latency(&mut self, t: u32, lat_ns: u64, now: u64) {
        let u = *self.units.get(t);
        if let Some(max) = self.lat.completed(u.io.dir, lat_ns, now) {
            self.log.err(&too_slow(
                lat_ns,
                max,
                &self.job.files[u.file].path.display().to_string(),
                u.io.dir.name(),
                u.offset0,
                u.len,
            ));
            self.fail_with(
                libc::ETIMEDOUT,
                verror("io_u.c:1432", "max latency exceeded", libc::ETIMEDOUT),
            );
        }
    }

    /// After completions: fio's `lat_target_check` (outside the ramp), and
    /// the quiesce a lowered depth asked for.
    pub(super) fn lat_target_check(&mut self) {
        if std::mem::take(&mut self.lat.quiesce) {
            self.drain();
        }
        if !self.time.recording() {
            return;
        }
        let now = self.now();
        let ios = self.lat.ios;
        let Some(search) = self.lat.search.as_mut() else {
            return;
        };
        match search.check(now, ios) {
            Step::Continue | Step::Fatal => {}
            Step::Quiesce => self.drain(),
            Step::FinalRun => {
                // Complete what is in flight, then the statistics start
                // again for the final window (fio's reset_all_stats).
                self.drain();
                let now = self.now();
                self.restart_stats(now);
            }
            Step::Done => self.halt = Halt::Done,
        }
    }

    /// The statistics start again at `now` (fio's `reset_all_stats` when
    /// the latency target settles).
    fn restart_stats(&mut self, now: u64) {
        self.ts.restart();
        self.time.restart(now);
        self.publish_deadline(now);
        self.progress.mark_epoch();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latency(max_ns: [u64; 3]) -> Latency {
        Latency {
            search: None,
            cfg: None,
            ios: 0,
            quiesce: false,
            max_ns,
        }
    }

    #[test]
    fn max_latency_is_per_direction() {
        let mut l = latency([0, 1000, 0]);
        assert!(!l.counted(Ddir::Read) && l.counted(Ddir::Write));
        assert_eq!(l.completed(Ddir::Write, 1000, 0), None);
        assert_eq!(l.completed(Ddir::Write, 1001, 0), Some(1000));
        assert_eq!(l.completed(Ddir::Read, 1_000_000, 0), None);
        assert_eq!((l.ios, l.depth()), (2, None));
    }

    #[test]
    fn a_slow_io_at_depth_one_fails_on_the_target() {
        let mut l = latency([0; 3]);
        l.cfg = Some(LatCfg {
            target_ns: 500,
            window_us: 1000,
            percentile: 100.0,
            keep_running: false,
        });
        l.start_pass(8, 0);
        assert_eq!(l.depth(), Some(1));
        assert!(l.counted(Ddir::Trim) && l.ios == 0, "trims do not count");
        assert_eq!(l.completed(Ddir::Read, 400, 10), None);
        assert_eq!(l.completed(Ddir::Read, 600, 20), Some(500));
    }
}
