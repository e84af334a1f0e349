//! One job's results, built from its thread's [`ThreadStats`] when it ends
//! (or while it runs, `super::snapshot`), with the job's report settings
//! ([`JobInfo`]) beside them.

use serde::{Deserialize, Serialize};

use super::cpu::CpuUsage;
use super::dist::{DepthMaps, LatBuckets};
use super::hist::LatHist;
use super::info::JobInfo;
use super::lat::LatAccum;
use super::prio::ClatPrio;
use super::steadystate::SteadyStateReport;
use super::thread::ThreadStats;

/// Files laid out before a job started ("Laying out IO file").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    pub files: u32,
    pub bytes: u64,
}

impl Layout {
    /// fio's line for job `job` laying these files out (`setup_files`),
    /// newline included: `j: Laying out IO file (1 file / 8MiB)`, or
    /// `j: Laying out IO files (2 files / total 3MiB)`.
    pub(crate) fn line(&self, job: &str) -> String {
        let (s, total) = if self.files > 1 {
            ("s", "total ")
        } else {
            ("", "")
        };
        format!(
            "{job}: Laying out IO file{s} ({} file{s} / {total}{}MiB)\n",
            self.files,
            self.bytes >> 20
        )
    }
}

/// One direction of one job.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DirReport {
    pub bytes: u64,
    pub ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    /// fio's runtime: elapsed microseconds rounded up to milliseconds; 0
    /// when the direction moved nothing.
    pub runtime_ms: u64,
    /// Bytes per second, `1000 * bytes / runtime_ms` (integer, as fio).
    pub bw: u64,
    /// I/Os per second, `1000 * ios / runtime_ms`.
    pub iops: u64,
    pub slat: LatAccum,
    pub clat: LatAccum,
    pub lat: LatAccum,
    pub slat_hist: Option<Box<LatHist>>,
    pub clat_hist: Option<Box<LatHist>>,
    pub lat_hist: Option<Box<LatHist>>,
    /// Bandwidth samples (KiB/s) and IOPS samples.
    pub bw_samples: LatAccum,
    pub iops_samples: LatAccum,
}

/// Sync calls of one job.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SyncReport {
    pub ios: u64,
    pub lat: LatAccum,
    pub hist: Option<Box<LatHist>>,
}

/// One job's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobReport {
    /// Who the job is and how it is reported (from the plan).
    pub(crate) info: JobInfo,
    /// The job's thread id (fio prints it as `pid=`).
    pub(crate) pid: u32,
    /// When the job's statistics started, ms since the Unix epoch (JSON
    /// `job_start`, fio 3.36 on).
    #[serde(default)]
    pub(crate) job_start_ms: u64,
    /// Per direction (read, write, trim).
    pub dirs: [DirReport; 3],
    pub sync: SyncReport,
    pub lat_buckets: LatBuckets,
    pub depth: DepthMaps,
    pub cpu: CpuUsage,
    /// fio's `total_run_time`: whole milliseconds the job ran.
    pub run_ms: u64,
    /// errno of the first error, 0 if none.
    pub error: i32,
    pub error_msg: Option<String>,
    /// Errors `continue_on_error` let through, and the first one.
    pub total_err: u64,
    pub first_error: i32,
    /// The depth `latency_target` found; `None`: the job's iodepth.
    pub latency_depth: Option<u32>,
    pub layout: Option<Layout>,
    /// The job's own I/O priority (fio's `td->ioprio`, 0: none).
    pub ioprio: u16,
    /// Reads and writes with command priorities: latencies per priority
    /// (see [`ThreadStats::prios`]); empty for a direction without them.
    pub prios: [Vec<ClatPrio>; 2],
    /// Steady-state detection, for a job with `ss_dur` (set by the runner
    /// once the job is over).
    pub steadystate: Option<SteadyStateReport>,
    /// The job failed before it started without an error of its own (a
    /// `verify_state_load` that could not load): it counts as failed for
    /// the exit status, as fio counts the jobs it reaps unstarted.
    #[serde(default)]
    pub setup_failed: bool,
    /// `block_error_percentiles`: the blocks of the job's file.
    #[serde(default)]
    pub blocks: Option<super::blocks::BlockInfos>,
    /// Zones reset (`zonemode=zbd`; fio's `nr_zone_resets`).
    #[serde(default)]
    pub zone_resets: u64,
    /// A log of the job that could not be written, naming it (`cannot
    /// write the log x_bw.1.log: ...`): rfio's cli says so and exits
    /// non-zero; fio says nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_error: Option<String>,
}

impl JobReport {
    /// Build from what the thread of job `info` accumulated.
    pub fn new(info: JobInfo, pid: u32, layout: Option<Layout>, ts: &ThreadStats) -> JobReport {
        let dirs = std::array::from_fn(|d| {
            let (bytes, ios) = (ts.bytes[d], ts.ios[d]);
            // fio's update_runtime: only directions that moved data, ms
            // rounded up (at least 1 here, so a direction never vanishes).
            let runtime_ms = if bytes > 0 {
                ts.elapsed_us.div_ceil(1000).max(1)
            } else {
                0
            };
            let per_sec = |n: u64| n.saturating_mul(1000).checked_div(runtime_ms).unwrap_or(0);
            DirReport {
                bytes,
                ios,
                short_ios: ts.short_ios[d],
                drop_ios: ts.drop_ios[d],
                runtime_ms,
                bw: per_sec(bytes),
                iops: per_sec(ios),
                slat: ts.slat[d],
                clat: ts.clat[d],
                lat: ts.lat[d],
                slat_hist: ts.slat_hist[d].clone(),
                clat_hist: ts.clat_hist[d].clone(),
                lat_hist: ts.lat_hist[d].clone(),
                bw_samples: ts.bw[d],
                iops_samples: ts.iops[d],
            }
        });
        JobReport {
            info,
            pid,
            job_start_ms: ts.job_start_ms,
            dirs,
            sync: SyncReport {
                ios: ts.sync_ios,
                lat: ts.sync,
                hist: ts.sync_hist.clone(),
            },
            lat_buckets: ts.lat_buckets,
            depth: ts.depth,
            cpu: ts.cpu,
            run_ms: ts.elapsed_us / 1000,
            error: ts.error,
            error_msg: ts.error_msg.clone(),
            total_err: ts.total_err,
            first_error: ts.first_error,
            latency_depth: ts.latency_depth,
            layout,
            ioprio: ts.ioprio,
            prios: ts.prios.clone(),
            steadystate: None,
            setup_failed: false,
            blocks: ts.blocks.as_ref().map(|b| b.infos.clone()),
            zone_resets: ts.zone_resets,
            log_error: ts.log_error.clone(),
        }
    }

    /// An empty report of job `info` (a job that did nothing), to fill in
    /// by hand.
    pub fn empty(info: JobInfo, pid: u32) -> JobReport {
        JobReport::new(info, pid, None, &ThreadStats::default())
    }

    /// The job's name.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The job's reporting group.
    pub fn group_id(&self) -> u32 {
        self.info.group_id
    }

    /// Whether the job moved any data (fio skips the job block otherwise).
    #[cfg(test)]
    pub(crate) fn did_io(&self) -> bool {
        self.dirs.iter().any(|d| d.bytes > 0 || d.ios > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::Layout;

    #[test]
    fn layout_lines_read_as_fios() {
        let two = Layout {
            files: 2,
            bytes: 3 << 20,
        };
        assert_eq!(
            two.line("j"),
            "j: Laying out IO files (2 files / total 3MiB)\n"
        );
        let fill = Layout {
            files: 1,
            bytes: u64::MAX,
        };
        assert_eq!(
            fill.line("fill"),
            "fill: Laying out IO file (1 file / 17592186044415MiB)\n"
        );
    }
}
