//! The loop's side of `--profile=act` ([`crate::workload::act`]): each
//! I/O's total latency goes to the job's slices, and a slice that fails
//! ACT's criteria ends the job with fio's error (errno 1, from the
//! completion path, as fio's `io_u_lat` hook returns it).

use super::super::act::ActSlices;
use super::super::clock::Clock;
use super::super::errno::verror;
use super::Exec;

impl<C: Clock> Exec<'_, '_, C> {
    /// An I/O of total latency `lat_ns` completed at `now`.
    #[inline]
    pub(super) fn act_latency(&mut self, lat_ns: u64, now: u64) {
        let Some(act) = self.act.as_mut() else {
            return;
        };
        if let Err(msg) = act.record(lat_ns, now) {
            self.log.err(&msg);
            let (src, func) = if self.caps.is_sync {
                ("io_u.c:2152", "io_u_sync_complete")
            } else {
                ("io_u.c:2190", "io_u_queued_complete")
            };
            self.fail_with(libc::EPERM, verror(src, func, libc::EPERM));
        }
    }

    /// The job's act slices, when it is an act job, for the run's table.
    pub(crate) fn take_act(&mut self) -> Option<ActSlices> {
        self.act.take()
    }
}
