//! Per-thread stats and the immutable report built from them.

use super::lat::{LatAccum, LatSummary};

/// What one job thread accumulated; owned by that thread, no locking.
#[derive(Debug, Clone, Default)]
pub struct ThreadStats {
    /// Per direction (read, write, trim).
    pub bytes: [u64; 3],
    pub ios: [u64; 3],
    pub clat: [LatAccum; 3],
    /// Microseconds from the start of I/O to the end of the job.
    pub elapsed_us: u64,
    /// First error: errno (0 if none) and its description.
    pub error: i32,
    pub error_msg: Option<String>,
}

impl ThreadStats {
    /// One I/O completed: `bytes` moved in direction `dir` (0 read, 1
    /// write, 2 trim); `slat_ns` from issue to submission, `clat_ns` from
    /// submission to completion; `at_ns` is when it completed, counted from
    /// the start of the job's I/O (for bw/iops samples and logs). This is
    /// the one call the workload makes per I/O: it must not allocate.
    pub fn io_done(&mut self, dir: usize, bytes: u64, slat_ns: u64, clat_ns: u64, at_ns: u64) {
        let _ = (slat_ns, at_ns);
        self.bytes[dir] += bytes;
        self.ios[dir] += 1;
        self.clat[dir].add(clat_ns);
    }

    /// An I/O was submitted with `depth` I/Os in flight (itself included).
    pub fn io_submitted(&mut self, depth: u32) {
        let _ = depth;
    }

    /// The job thread starts its I/O (after layout and startdelay).
    pub fn job_started(&mut self) {}

    /// The job thread has finished its I/O.
    pub fn job_finished(&mut self) {}
}

/// Files laid out before a job started ("Laying out IO file").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub files: u32,
    pub bytes: u64,
}

/// One direction of one job.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DirReport {
    pub bytes: u64,
    pub ios: u64,
    /// fio's runtime: elapsed microseconds rounded up to milliseconds; 0
    /// when the direction moved nothing.
    pub runtime_ms: u64,
    /// Bytes per second, `1000 * bytes / runtime_ms` (integer, as fio).
    pub bw: u64,
    /// I/Os per second, `1000 * ios / runtime_ms`.
    pub iops: u64,
    pub clat: Option<LatSummary>,
}

/// One job's results.
#[derive(Debug, Clone, PartialEq)]
pub struct JobReport {
    pub name: String,
    pub group_id: u32,
    /// The job's thread id (fio prints it as `pid=`).
    pub pid: u32,
    /// Per direction (read, write, trim).
    pub dirs: [DirReport; 3],
    /// errno of the first error, 0 if none.
    pub error: i32,
    pub error_msg: Option<String>,
    pub layout: Option<Layout>,
}

impl JobReport {
    /// Build from what the thread accumulated.
    pub fn new(
        name: String,
        group_id: u32,
        pid: u32,
        layout: Option<Layout>,
        ts: &ThreadStats,
    ) -> JobReport {
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
                runtime_ms,
                bw: per_sec(bytes),
                iops: per_sec(ios),
                clat: ts.clat[d].summary(),
            }
        });
        JobReport {
            name,
            group_id,
            pid,
            dirs,
            error: ts.error,
            error_msg: ts.error_msg.clone(),
            layout,
        }
    }

    /// Whether the job moved any data (fio skips the job block otherwise).
    pub fn did_io(&self) -> bool {
        self.dirs.iter().any(|d| d.bytes > 0 || d.ios > 0)
    }
}

/// One direction of a reporting group ("Run status group").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupDir {
    pub bytes: u64,
    /// Aggregate bandwidth: `1000 * bytes / max_run` B/s.
    pub agg_bw: u64,
    /// Slowest and fastest member's own bandwidth.
    pub min_bw: u64,
    pub max_bw: u64,
    pub min_run_ms: u64,
    pub max_run_ms: u64,
}

/// One reporting group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupReport {
    pub id: u32,
    /// Per direction; `None` when no member ran it.
    pub dirs: [Option<GroupDir>; 3],
}

impl GroupReport {
    /// Fold the members' reports, as fio's `__show_run_stats`.
    pub fn from_jobs<'a>(
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

/// Everything a run produced; output formats are pure functions of it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// In plan order.
    pub jobs: Vec<JobReport>,
    /// In group-id order, one per group of the plan.
    pub groups: Vec<GroupReport>,
    /// When the run ended, seconds since the epoch (the job header date).
    pub finished_at: i64,
}
