//! A job's report while it still runs (fio's `__show_running_run_stats`):
//! what its [`ThreadStats`] hold so far, with the runtime and rates of the
//! time it has run, the way the final report is built at its end.

use super::cpu::RusageMark;
use super::info::JobInfo;
use super::job::JobReport;
use super::thread::ThreadStats;

/// The report of a job that has run `elapsed_us` microseconds with stats
/// on, from what `ts` holds now. Called on the job's own thread: the CPU
/// usage is the thread's since it started (fio's interim `usr_cpu` and
/// `sys_cpu` count from the job's start too). The job's settings
/// ([`JobReport::info`]) are left default for the caller, who knows them. Allocates (the histograms are
/// copied).
pub(crate) fn running_report(ts: &ThreadStats, elapsed_us: u64) -> JobReport {
    let pid = thread_id();
    let mut r = JobReport::new(JobInfo::default(), pid, None, ts);
    set_runtime(&mut r, elapsed_us);
    if r.cpu == Default::default() {
        r.cpu = RusageMark::default().until(&RusageMark::now());
    }
    r
}

/// Give `r` the runtime `elapsed_us` (the final report takes it from
/// `ThreadStats::elapsed_us`, which is set only when the job ends): each
/// direction that moved data ran that long, rounded up to milliseconds,
/// and its rates follow (as `JobReport::new` computes them).
pub(crate) fn set_runtime(r: &mut JobReport, elapsed_us: u64) {
    for d in &mut r.dirs {
        d.runtime_ms = if d.bytes > 0 {
            elapsed_us.div_ceil(1000).max(1)
        } else {
            0
        };
        let per_sec = |n: u64| {
            n.saturating_mul(1000)
                .checked_div(d.runtime_ms)
                .unwrap_or(0)
        };
        d.bw = per_sec(d.bytes);
        d.iops = per_sec(d.ios);
    }
    r.run_ms = elapsed_us / 1000;
}

/// The calling thread's id (fio's `pid=` of a job).
fn thread_id() -> u32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() as u32 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Completion, NO_SLAT};

    #[test]
    fn rates_follow_the_time_run_so_far() {
        let mut ts = ThreadStats::default();
        ts.job_started();
        for i in 0..1000u64 {
            ts.complete(&Completion {
                bytes: 4096,
                slat_ns: NO_SLAT,
                clat_ns: 1000,
                at_ns: i * 1_000_000,
                ..Completion::default()
            });
        }
        let r = running_report(&ts, 999_500);
        assert_eq!(r.dirs[0].bytes, 4096 * 1000);
        assert_eq!(r.dirs[0].ios, 1000);
        assert_eq!(r.dirs[0].runtime_ms, 1000);
        assert_eq!(r.dirs[0].iops, 1000);
        assert_eq!(r.dirs[0].bw, 4096 * 1000);
        assert_eq!(r.dirs[1].runtime_ms, 0, "no writes");
        assert_eq!(r.run_ms, 999);
        assert_eq!(r.dirs[0].clat.samples(), 1000);
        assert!(r.pid > 0);
    }

    #[test]
    fn nothing_done_is_an_empty_report() {
        let ts = ThreadStats::default();
        let r = running_report(&ts, 0);
        assert!(!r.did_io());
        assert_eq!(r.run_ms, 0);
    }
}
