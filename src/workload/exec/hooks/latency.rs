//! The latency hook: `max_latency` and `latency_target` (fio's checks in
//! `account_io_completion`, its `lat_target_init` as `do_io` starts and
//! its `lat_target_check` after each reap). The search itself is
//! [`LatTarget`]; here is what the loop keeps for it: the count of I/Os
//! it judges windows by, a quiesce the search asked for, and the limits
//! per direction.
//!
//! Call points: [`Latency::pass_starts`]; [`Latency::depth`] wherever
//! the loop asks whether its queue is full; [`Latency::on_complete`] for
//! each completion with the statistics on; [`Latency::take_quiesce`] and
//! [`Latency::after_issue`] after each I/O is submitted, whose
//! [`Step`] the loop carries out.

use crate::release::places::Site;
use std::path::Path;

use super::super::units::Unit;
use super::Fail;
use crate::ddir::Ddir;
use crate::plan::spec::JobSpec;
use crate::workload::errno::verror;
use crate::workload::lat_target::{too_slow, LatTarget, Step};

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
pub(crate) struct Latency {
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
    /// Where the job's release reports `max_latency` exceeded.
    max_place: &'static str,
}

impl Latency {
    /// The hook of `spec`; `None` when it sets neither `latency_target`
    /// nor `max_latency`.
    pub(crate) fn new(spec: &JobSpec) -> Option<Latency> {
        let c = &spec.report.stats;
        let cfg = (c.latency_target_ns > 0).then_some(LatCfg {
            target_ns: c.latency_target_ns,
            window_us: c.latency_window_us,
            percentile: c.latency_percentile,
            keep_running: spec.exec.latency_run,
        });
        let max_ns = spec.exec.max_latency_ns;
        (cfg.is_some() || max_ns.iter().any(|&m| m > 0)).then_some(Latency {
            search: None,
            cfg,
            ios: 0,
            quiesce: false,
            max_ns,
            max_place: spec.release.place(Site::MaxLatency),
        })
    }

    /// A pass starts at `now` (fio's `lat_target_init` at the start of
    /// `do_io`): the search starts again at depth 1.
    pub(crate) fn pass_starts(&mut self, iodepth: u32, now: u64) {
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
    pub(crate) fn searching(&self) -> bool {
        self.search.is_some()
    }

    /// The most I/Os the search lets the job have in flight, if it runs.
    #[inline]
    pub(crate) fn depth(&self) -> Option<u32> {
        self.search.as_ref().map(LatTarget::depth)
    }

    /// Unit `u`, a read, write or trim of file `path`, completed at `now`
    /// with the statistics on, `lat_ns` after it was filled: the failure
    /// when it went over a limit (`max_latency`, or the target at depth
    /// 1).
    #[inline]
    pub(crate) fn on_complete(
        &mut self,
        u: &Unit,
        lat_ns: u64,
        now: u64,
        path: &Path,
    ) -> Result<(), Fail> {
        let dir = u.io.dir;
        if dir != Ddir::Trim {
            self.ios += 1;
        }
        let max = self.max_ns[dir.index()];
        if max == 0 && self.search.is_none() {
            return Ok(());
        }
        let mut over = (max > 0 && lat_ns > max).then_some(max);
        if let Some(l) = self.search.as_mut() {
            match l.completed(lat_ns, now, self.ios) {
                Step::Fatal => over = over.or(Some(self.cfg.map_or(0, |c| c.target_ns))),
                Step::Quiesce => self.quiesce = true,
                _ => {}
            }
        }
        match over {
            None => Ok(()),
            Some(max) => Err(Fail {
                say: Some(too_slow(
                    lat_ns,
                    max,
                    &path.display().to_string(),
                    dir.name(),
                    u.offset0,
                    u.len,
                )),
                errno: libc::ETIMEDOUT,
                msg: verror(self.max_place, "max latency exceeded", libc::ETIMEDOUT),
            }),
        }
    }

    /// After an I/O was submitted: whether the search lowered the depth
    /// since, and the loop lets what is in flight finish first.
    #[inline]
    pub(crate) fn take_quiesce(&mut self) -> bool {
        std::mem::take(&mut self.quiesce)
    }

    /// After an I/O was submitted and the quiesce, with the statistics on
    /// (fio's `lat_target_check` outside the ramp), at `now`: what the
    /// loop does (`Quiesce`: complete what is in flight; `FinalRun`: that,
    /// then the statistics start again; `Done`: the job is over).
    pub(crate) fn after_issue(&mut self, now: u64) -> Step {
        let ios = self.ios;
        match self.search.as_mut() {
            Some(s) => s.check(now, ios),
            None => Step::Continue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::clock::{Clock, FakeClock, FakeTime};
    use std::sync::Arc;

    const MS: u64 = 1_000_000;

    fn hook(args: &[&str]) -> Option<Latency> {
        let mut argv = vec!["--name=t", "--ioengine=null", "--size=1m"];
        argv.extend_from_slice(args);
        Latency::new(&crate::plan::testing::job(&argv))
    }

    fn read() -> Unit {
        Unit::of(Ddir::Read, 0, 4096, 4096)
    }

    #[test]
    fn no_limit_no_hook() {
        assert!(hook(&[]).is_none());
        assert!(hook(&["--max_latency=1ms"]).is_some());
        assert!(hook(&["--latency_target=1ms"]).is_some());
    }

    #[test]
    fn max_latency_is_per_direction_and_fails_with_fios_lines() {
        let mut l = hook(&["--max_latency=,1ms"]).unwrap();
        let write = Unit::of(Ddir::Write, 0, 8192, 4096);
        let p = Path::new("f");
        assert!(l.on_complete(&write, MS, 0, p).is_ok());
        assert!(l.on_complete(&read(), 100 * MS, 0, p).is_ok());
        let f = l.on_complete(&write, MS + 1, 0, p).unwrap_err();
        assert_eq!(f.errno, libc::ETIMEDOUT);
        assert_eq!(
            f.say.as_deref(),
            Some("fio: latency of 1000001 nsec exceeds specified max (1000000 nsec): f write 8192 4096\n")
        );
        assert_eq!(
            f.msg,
            "file:io_u.c:1432, func=max latency exceeded, error=Connection timed out"
        );
        assert_eq!((l.ios, l.depth()), (3, None), "no search");
    }

    /// On the clock: windows of fast I/Os double the depth, 1 → 2 → 4; a
    /// window in which half of them are slow bisects it back down (and
    /// asks for a quiesce), 4 → 3.
    #[test]
    fn the_target_raises_the_depth_and_a_slow_window_lowers_it() {
        let time = Arc::new(FakeTime::default());
        let clock = FakeClock::new(time.clone());
        let mut l = hook(&[
            "--iodepth=8",
            "--latency_target=1ms",
            "--latency_window=10ms",
            "--latency_percentile=90",
        ])
        .unwrap();
        l.pass_starts(8, clock.now());
        assert_eq!(l.depth(), Some(1));
        let p = Path::new("f");
        let window = |l: &mut Latency, slow_every: u64| {
            for i in 0..10 {
                time.advance(MS);
                let lat = if slow_every > 0 && i % slow_every == 0 {
                    2 * MS
                } else {
                    MS / 2
                };
                assert!(l.on_complete(&read(), lat, clock.now(), p).is_ok());
            }
            assert!(!l.take_quiesce(), "percentile < 100: no quiesce per I/O");
            l.after_issue(clock.now())
        };
        assert_eq!(window(&mut l, 0), Step::Continue);
        assert_eq!(l.depth(), Some(2));
        assert_eq!(window(&mut l, 0), Step::Continue);
        assert_eq!(l.depth(), Some(4));
        assert_eq!(window(&mut l, 2), Step::Quiesce);
        assert_eq!(l.depth(), Some(3));
        // Inside a window nothing moves.
        time.advance(MS);
        assert_eq!(l.after_issue(clock.now()), Step::Continue);
        assert_eq!(l.depth(), Some(3));
    }

    /// With `latency_percentile=100` one slow I/O lowers the depth at
    /// once (the loop quiesces after it); at depth 1 it fails the job.
    #[test]
    fn at_100_percent_one_slow_io_moves_the_depth() {
        let mut l = hook(&["--iodepth=4", "--latency_target=1ms"]).unwrap();
        l.pass_starts(4, 0);
        let p = Path::new("f");
        let f = l.on_complete(&read(), 2 * MS, 10, p).unwrap_err();
        assert_eq!(f.errno, libc::ETIMEDOUT);
        // A window of fast I/Os at depth 1 doubles it; then one slow I/O.
        assert!(l.on_complete(&read(), MS / 2, 10, p).is_ok());
        assert_eq!(l.after_issue(10 * 1000 * MS), Step::Continue);
        assert_eq!(l.depth(), Some(2));
        assert!(l.on_complete(&read(), 2 * MS, 20, p).is_ok());
        assert!(l.take_quiesce() && !l.take_quiesce());
        assert_eq!(l.depth(), Some(1));
    }
}
