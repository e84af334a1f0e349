//! What the report knows about a job besides its results: who it is, how
//! it is summed with others and printed, and the options the JSON output
//! lists for it. The plan fills a [`JobInfo`] for each job
//! (`plan::report::job_info`); the report and every output read it instead
//! of the plan.

use serde::{Deserialize, Serialize};

use super::config::StatsConfig;

/// One job's resolved report settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobInfo {
    /// The reported name (`name=`, else the section name).
    pub name: String,
    /// Reporting group (`g=`).
    pub group_id: u32,
    /// 1-based creation order over all jobs and `numjobs` clones.
    pub thread_number: u32,
    /// 0 for a section's first job, else a `numjobs` clone (no banner).
    pub subjob: u32,
    pub group_reporting: bool,
    /// `iodepth`: the depth reported when `latency_target` found none.
    pub iodepth: u32,
    /// `thread`: counted as a thread in `Starting N threads`.
    pub thread: bool,
    /// The banner: `rw=` name, block size ranges (read, write, trim) and
    /// the ioengine.
    pub rw: String,
    pub bs: [(u64, u64); 3],
    pub ioengine: String,
    /// What the job records and how it is printed.
    pub stats: StatsConfig,
    /// JSON `job options`: the options of the job's own section, in the
    /// order applied, as `(name, value as written)` (`""` when bare).
    pub options: Vec<(String, String)>,
}

impl Default for JobInfo {
    fn default() -> JobInfo {
        JobInfo::named("", 0)
    }
}

impl JobInfo {
    /// A job named `name` in group `group_id` with fio's defaults (reports
    /// built by hand, a running job's snapshot).
    pub fn named(name: &str, group_id: u32) -> JobInfo {
        JobInfo {
            name: name.to_string(),
            group_id,
            thread_number: 0,
            subjob: 0,
            group_reporting: false,
            iodepth: 1,
            thread: false,
            rw: "read".to_string(),
            bs: [(4096, 4096); 3],
            ioengine: "psync".to_string(),
            stats: StatsConfig::default(),
            options: Vec::new(),
        }
    }
}
