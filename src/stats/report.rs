//! The immutable report of a run: every job's results and report settings,
//! the run's timestamps (with the time zone they are printed in) and disks,
//! and the [`Summary`] the output formats print, computed once when the
//! report is built.

use serde::{Deserialize, Serialize};

use super::disk::DiskUtil;
use super::idle::IdleReport;
use super::info::OptionList;
use super::job::JobReport;
use super::repeat::RepeatSummary;
use super::summary::Summary;
use crate::release::Release;

/// One direction of a reporting group ("Run status group"), each job on
/// its own (see `stats::summary` for group_reporting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupDir {
    pub bytes: u64,
    /// Aggregate bandwidth: `1000 * bytes / max_run` B/s.
    pub(crate) agg_bw: u64,
    /// Slowest and fastest member's own bandwidth.
    pub(crate) min_bw: u64,
    pub(crate) max_bw: u64,
    pub(crate) min_run_ms: u64,
    pub(crate) max_run_ms: u64,
}

/// One reporting group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupReport {
    pub(crate) id: u32,
    /// Per direction; `None` when no member ran it.
    pub dirs: [Option<GroupDir>; 3],
}

impl GroupReport {
    /// Fold the members' reports, as fio's `__show_run_stats`.
    pub(crate) fn from_jobs<'a>(
        id: u32,
        jobs: impl Iterator<Item = &'a JobReport> + Clone,
    ) -> GroupReport {
        let dirs = std::array::from_fn(|d| {
            let mut g: Option<GroupDir> = None;
            for j in jobs.clone() {
                let r = &j.dirs[d];
                if r.runtime_ms == 0 {
                    continue;
                }
                let e = g.get_or_insert(GroupDir {
                    bytes: 0,
                    agg_bw: 0,
                    min_bw: u64::MAX,
                    max_bw: 0,
                    min_run_ms: u64::MAX,
                    max_run_ms: 0,
                });
                e.bytes += r.bytes;
                e.min_bw = e.min_bw.min(r.bw);
                e.max_bw = e.max_bw.max(r.bw);
                e.min_run_ms = e.min_run_ms.min(r.runtime_ms);
                e.max_run_ms = e.max_run_ms.max(r.runtime_ms);
            }
            if let Some(e) = g.as_mut() {
                e.agg_bw = e.bytes.saturating_mul(1000) / e.max_run_ms;
            }
            g
        });
        GroupReport { id, dirs }
    }
}

/// Everything a run produced, and everything its outputs print: they are
/// pure functions of it. Built once the jobs have run (or, for a report
/// while they run, from their snapshots) and not changed after: the
/// [`Summary`] and the groups are computed from the jobs when it is built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// In plan order (one per job of the plan), each with its report
    /// settings ([`JobReport::info`]).
    pub jobs: Vec<JobReport>,
    /// JSON `global options`: the global options the jobs inherited, in
    /// the order applied, as `(name, value as written)`.
    pub(crate) global_options: OptionList,
    /// In group-id order, one per group of the jobs, each job on its own.
    pub groups: Vec<GroupReport>,
    /// What is printed: the jobs merged by `group_reporting`, the groups'
    /// run totals, and the notices fio prints while merging.
    pub summary: Summary,
    /// When the run ended, seconds since the epoch (the job header date).
    pub finished_at: i64,
    /// The local time zone's offset from UTC at `finished_at`, seconds
    /// east (the job header date is local time).
    pub utc_offset: i64,
    /// The same instant in milliseconds (JSON `timestamp_ms`).
    pub(crate) finished_ms: u64,
    /// Milliseconds from rfio's start to the end of the run (JSON
    /// `elapsed`, rounded up to seconds).
    pub(crate) elapsed_ms: u64,
    /// The devices under the jobs' files (empty: no disk section).
    pub(crate) disks: Vec<DiskUtil>,
    /// The jobs' ETA in seconds for a report taken while they run
    /// (`--status-interval`, SIGUSR1); `None` once the run is over.
    pub(crate) eta_sec: Option<u64>,
    /// `--idle-prof`: how idle the CPUs were while the jobs ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) idle: Option<IdleReport>,
    /// `--repeat=N` (rfio's own): the runs summed up; the rest of the
    /// report is the median run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<RepeatSummary>,
    /// `--baseline-compare=FILE` (rfio's own): the verdicts, printed after
    /// the report (and the repeat block).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<super::verdict::Comparison>,
    /// The fio release the run behaved as: its name heads the outputs.
    #[serde(default)]
    pub(crate) release: Release,
}

impl RunReport {
    /// The report of a run of `jobs` that inherited `global_options`,
    /// started at `started_ms` and finished at `finished_ms` (milliseconds
    /// since the Unix epoch). Merges the jobs into the summary, and takes
    /// the local time zone's offset at `finished_ms`.
    pub fn new(
        jobs: Vec<JobReport>,
        global_options: OptionList,
        started_ms: u64,
        finished_ms: u64,
        disks: Vec<DiskUtil>,
    ) -> RunReport {
        let ngroups = jobs.iter().map(|j| j.info.group_id + 1).max().unwrap_or(0);
        let groups = (0..ngroups)
            .map(|g| GroupReport::from_jobs(g, jobs.iter().filter(move |j| j.info.group_id == g)))
            .collect();
        let summary = Summary::new(&jobs);
        let finished_at = (finished_ms / 1000) as i64;
        RunReport {
            jobs,
            global_options,
            groups,
            summary,
            finished_at,
            utc_offset: local_utc_offset(finished_at),
            finished_ms,
            elapsed_ms: finished_ms.saturating_sub(started_ms),
            disks,
            eta_sec: None,
            idle: None,
            repeat: None,
            baseline: None,
            release: Release::DEFAULT,
        }
    }

    /// The same report, of a run that behaved as `release` (a plan's:
    /// what the tests render of reports they build).
    pub fn of_release(mut self, release: Release) -> RunReport {
        self.release = release;
        self
    }
}

/// The local time zone's offset from UTC at `secs` since the epoch, in
/// seconds east (`localtime_r`'s `tm_gmtoff`); 0 when unknown.
pub(crate) fn local_utc_offset(secs: i64) -> i64 {
    let t = secs as libc::time_t;
    // SAFETY: an all-zero `tm` is a valid value (plain integers and a null
    // zone pointer), and localtime_r only writes into the `tm` we pass.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the duration of the call.
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        return 0;
    }
    tm.tm_gmtoff as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{
        Completion, JobInfo, LatAccum, LatHist, ThreadStats, Timing, Unified, NO_SLAT,
    };

    /// Two jobs of one group, reported together, with percentiles and a
    /// disk.
    fn hand_built() -> RunReport {
        let jobs = (0..2u32)
            .map(|i| {
                let mut info = JobInfo::named("j", 0);
                info.group_reporting = true;
                info.thread_number = i + 1;
                info.stats.unified = Unified::Both;
                info.stats.percentiles.lat = true;
                info.options = [("rw", "randrw")].into_iter().collect();
                let mut ts = ThreadStats::new(&info.stats);
                ts.job_started();
                for k in 1..=500u64 {
                    ts.complete(&Completion {
                        dir: crate::ddir::Ddir::DATA[(k % 2) as usize],
                        bytes: 4096,
                        slat_ns: if k % 3 == 0 { NO_SLAT } else { 500 + k },
                        clat_ns: 1_000 + k * 37,
                        at_ns: k * 3_000_000,
                        offset: k * 4096,
                        prio_slot: 0,
                        timing: Timing::Io,
                    });
                }
                ts.sync_done(12_345);
                ts.elapsed_us = 1_500_123;
                let mut j = JobReport::new(info, 100 + i, None, &ts);
                j.dirs[2].bw_samples = LatAccum::from_parts(3, 1, 9, 4.2, 0.1);
                j
            })
            .collect();
        let disk = DiskUtil {
            name: "vda".into(),
            msec: 1_500,
            ..DiskUtil::default()
        };
        let globals = [("ioengine", "null")].into_iter().collect();
        let mut r = RunReport::new(jobs, globals, 1_000, 2_600_000, vec![disk]);
        r.eta_sec = Some(3);
        r
    }

    #[test]
    fn a_report_survives_serde() {
        let r = hand_built();
        assert_eq!(r.summary.entries.len(), 1);
        let text = serde_json::to_string(&r).unwrap();
        let back: RunReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
        let hist: &LatHist = back.summary.entries[0].dirs[0].lat_hist.as_deref().unwrap();
        assert_eq!(hist.len(), 250 * 2);
    }
}
