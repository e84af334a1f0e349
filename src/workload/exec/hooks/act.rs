//! The `--profile=act` hook (fio's `profiles/act.c`, its `io_u_lat`
//! hook): on each completion with the statistics on, the I/O's total
//! latency goes to the job's slices ([`crate::workload::act`]); a slice
//! that fails ACT's criteria ends the job with fio's error (errno 1, from
//! the completion path, as fio's hook returns it).

use super::Fail;
use crate::plan::resolve::host::ActHooks;
use crate::release::Release;
use crate::workload::act::ActSlices;
use crate::workload::errno::{verify_site, verror};

/// An act job's slices, and where fio's error comes from.
pub(crate) struct Act {
    slices: ActSlices,
    /// Where fio's error comes from (the place in the job's release, the
    /// function): `io_u_sync_complete` for a synchronous engine, else
    /// `io_u_queued_complete`.
    site: (&'static str, &'static str),
}

impl Act {
    /// The hook of an act job (`hooks`: its profile's settings).
    pub(crate) fn new(hooks: Option<&ActHooks>, is_sync: bool, release: Release) -> Option<Act> {
        hooks.map(|h| Act {
            slices: ActSlices::new(h),
            site: verify_site(is_sync, release),
        })
    }

    /// An I/O of total latency `lat_ns` completed at `now`: the failure
    /// when the slice it closes fails ACT's criteria.
    #[inline]
    pub(crate) fn on_complete(&mut self, lat_ns: u64, now: u64) -> Result<(), Fail> {
        self.slices.record(lat_ns, now).map_err(|say| {
            let (src, func) = self.site;
            Fail {
                say: Some(say.to_string()),
                errno: libc::EPERM,
                msg: verror(src, func, libc::EPERM),
            }
        })
    }

    /// The job is over: its slices, for the run's table.
    pub(crate) fn into_slices(self) -> ActSlices {
        self.slices
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::clock::{Clock, FakeClock, FakeTime};
    use std::sync::Arc;

    const MS: u64 = 1_000_000;
    const HOUR: u64 = 3600 * 1000 * MS;

    fn act(prep: bool, is_sync: bool) -> Act {
        Act::new(Some(&ActHooks { slices: 2, prep }), is_sync, Release::V3_33).unwrap()
    }

    /// On the clock: an hour of I/Os 10% of which take over 1 ms closes
    /// the first slice over ACT's 5%: the job fails with fio's error of
    /// the completion path of its engine.
    #[test]
    fn a_slice_over_the_criteria_fails_the_job() {
        for (is_sync, func) in [
            (true, "io_u_sync_complete"),
            (false, "io_u_queued_complete"),
        ] {
            let time = Arc::new(FakeTime::default());
            let clock = FakeClock::new(time.clone());
            let mut a = act(false, is_sync);
            let mut result = Ok(());
            for i in 0..10 {
                time.advance(HOUR / 10);
                let lat = if i == 0 { 2 * MS } else { MS / 2 };
                result = a.on_complete(lat, clock.now());
                if result.is_err() {
                    break;
                }
            }
            let f = result.expect_err("the slice fails");
            assert_eq!(f.errno, libc::EPERM);
            assert!(f.msg.contains(func), "{}", f.msg);
            assert_eq!(
                f.say.as_deref(),
                Some("act: 10.000000% exceeds pass criteria of 5.000000%\n")
            );
        }
    }

    #[test]
    fn prep_counts_nothing_and_no_profile_no_hook() {
        let mut a = act(true, true);
        assert!(a.on_complete(100 * MS, 2 * HOUR).is_ok());
        assert!(Act::new(None, true, Release::V3_33).is_none());
    }
}
