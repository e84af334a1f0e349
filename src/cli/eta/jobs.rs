//! What the status line reads of the jobs: each job's options
//! ([`JobInfo`]), its published numbers at one moment ([`JobSnap`], from
//! `workload::progress`), and the settings over all jobs that shape the
//! numbers ([`Units`]); fio's `thread_data` fields that `eta.c` reads.

use std::time::Instant;

use super::states::running_letter;
use crate::plan::spec::{JobSpec, Plan};
use crate::stats::Unified;
use crate::workload::progress::{JobState, Progress};

/// What the line needs to know of a job, from its options.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JobInfo {
    /// The state letter while it runs.
    pub(crate) letter: char,
    /// Directions it does: read, write, trim.
    pub(crate) dirs: [bool; 3],
    pub(crate) time_based: bool,
    pub(crate) runtime_us: u64,
    pub(crate) ramp_us: u64,
    pub(crate) start_delay_us: u64,
    /// `rate`, `rate_min` (bytes/s), `rate_iops`, `rate_iops_min`, per
    /// direction.
    pub(crate) rate: [u64; 3],
    pub(crate) rate_min: [u64; 3],
    pub(crate) rate_iops: [u64; 3],
    pub(crate) rate_iops_min: [u64; 3],
    pub(crate) stonewall: bool,
}

impl JobInfo {
    pub(crate) fn from_spec(spec: &JobSpec) -> JobInfo {
        let p = spec.pattern;
        JobInfo {
            letter: running_letter(spec),
            dirs: [p.read, p.write, p.trim],
            time_based: spec.time_based,
            runtime_us: spec.runtime_us,
            ramp_us: spec.ramp_time_us,
            start_delay_us: spec.startdelay_us.0,
            rate: spec.rate.bytes,
            rate_min: spec.rate.min_bytes,
            rate_iops: spec.rate.iops,
            rate_iops_min: spec.rate.min_iops,
            stonewall: spec.stonewall,
        }
    }
}

/// One job's published numbers at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JobSnap {
    pub(crate) state: JobState,
    pub(crate) files_open: u32,
    /// Milliseconds since the job's epoch, once its I/O started.
    pub(crate) epoch_ms: Option<u64>,
    pub(crate) bytes: [u64; 3],
    pub(crate) ios: [u64; 3],
    pub(crate) total_bytes: u64,
}

/// Settings over all jobs that shape the numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Units {
    /// Some job has a power-of-2 `kb_base`.
    pub(crate) pow2: bool,
    /// The last job's `unit_base=1` (bits).
    pub(crate) bits: bool,
    /// The last job's `significant_figures`.
    pub(crate) sig_figs: usize,
    /// Some job has `unified_rw_reporting`.
    pub(crate) unified: bool,
    /// Some job has `exitall`: the first to finish ends the others.
    pub(crate) exitall: bool,
}

impl Default for Units {
    fn default() -> Units {
        Units {
            pow2: true,
            bits: false,
            sig_figs: 4,
            unified: false,
            exitall: false,
        }
    }
}

impl Units {
    /// The units over all jobs of `plan`: a power-of-2 `kb_base` or
    /// `unified_rw_reporting` or `exitall` in any job; the last job's
    /// `unit_base` and `significant_figures`.
    pub(crate) fn from_plan(plan: &Plan) -> Units {
        let mut units = Units {
            pow2: false,
            ..Units::default()
        };
        for spec in &plan.jobs {
            let c = &spec.report.stats;
            units.pow2 |= c.kb_base == 1024;
            units.bits = c.unit_base == 1;
            units.sig_figs = c.sig_figs;
            units.unified |= c.unified != Unified::None;
            units.exitall |= spec.io.exitall;
        }
        units
    }
}

/// The jobs' state at `now`, as the ETA reads it.
pub(crate) fn snapshots(progress: &Progress, now: Instant) -> Vec<JobSnap> {
    progress
        .jobs()
        .iter()
        .map(|j| JobSnap {
            state: j.state(),
            files_open: j.files_open(),
            epoch_ms: j
                .epoch()
                .map(|e| now.saturating_duration_since(e).as_millis() as u64),
            bytes: j.bytes(),
            ios: j.ios(),
            total_bytes: j.total_bytes(),
        })
        .collect()
}

/// The jobs of the unit tests of the line's parts.
#[cfg(test)]
pub(super) mod fixtures {
    use super::{JobInfo, JobSnap};
    use crate::workload::progress::JobState;

    pub(crate) fn job(letter: char) -> JobInfo {
        JobInfo {
            letter,
            dirs: [true, false, false],
            time_based: true,
            runtime_us: 6_000_000,
            ramp_us: 0,
            start_delay_us: 0,
            rate: [0; 3],
            rate_min: [0; 3],
            rate_iops: [0; 3],
            rate_iops_min: [0; 3],
            stonewall: false,
        }
    }

    pub(crate) fn running(epoch_ms: u64, bytes: u64, ios: u64) -> JobSnap {
        JobSnap {
            state: JobState::Running,
            files_open: 1,
            epoch_ms: Some(epoch_ms),
            bytes: [bytes, 0, 0],
            ios: [ios, 0, 0],
            total_bytes: 1 << 30,
        }
    }
}
