//! Which logs a job writes, and their file names: resolved from the job's
//! options by the plan (`plan::report::log_config`).

use std::path::PathBuf;

/// The kinds of per-job log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogKind {
    Bw = 0,
    Iops = 1,
    Lat = 2,
    Slat = 3,
    Clat = 4,
    ClatHist = 5,
}

impl LogKind {
    pub(crate) const ALL: [LogKind; 6] = [
        LogKind::Bw,
        LogKind::Iops,
        LogKind::Lat,
        LogKind::Slat,
        LogKind::Clat,
        LogKind::ClatHist,
    ];

    /// The type part of the file name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
            LogKind::Lat => "lat",
            LogKind::Slat => "slat",
            LogKind::Clat => "clat",
            LogKind::ClatHist => "clat_hist",
        }
    }

    /// Logs fed from the periodic bandwidth/IOPS sampler (fio's non-inline
    /// logs, which close a window with 1 ms of slack).
    pub(crate) fn sampled(self) -> bool {
        matches!(self, LogKind::Bw | LogKind::Iops)
    }
}

/// The log settings of one job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogConfig {
    /// The logs to write, with their file prefix.
    pub(crate) logs: Vec<(LogKind, String)>,
    pub(crate) avg_msec: u64,
    pub(crate) max_value: bool,
    pub(crate) offset: bool,
    pub(crate) prio: bool,
    pub(crate) per_job: bool,
    pub(crate) hist_msec: u64,
    pub(crate) hist_coarseness: u32,
    pub(crate) unix_epoch: bool,
    /// The job's global thread number (the `.N` of the file names).
    pub(crate) thread_number: u32,
}

impl LogConfig {
    /// Whether the job writes a log of `kind`.
    pub(crate) fn has(&self, kind: LogKind) -> bool {
        self.logs.iter().any(|(k, _)| *k == kind)
    }

    /// The file a log of `kind` with `prefix` goes to.
    pub(crate) fn path(&self, kind: LogKind, prefix: &str) -> PathBuf {
        if self.per_job {
            PathBuf::from(format!(
                "{prefix}_{}.{}.log",
                kind.name(),
                self.thread_number
            ))
        } else {
            PathBuf::from(format!("{prefix}_{}.log", kind.name()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(kinds: &[LogKind], avg: u64) -> LogConfig {
        LogConfig {
            logs: kinds.iter().map(|k| (*k, "t".to_string())).collect(),
            avg_msec: avg,
            max_value: false,
            offset: false,
            prio: false,
            per_job: true,
            hist_msec: 0,
            hist_coarseness: 0,
            unix_epoch: false,
            thread_number: 3,
        }
    }

    #[test]
    fn names_follow_fio() {
        let c = cfg(&[LogKind::ClatHist], 0);
        assert_eq!(
            c.path(LogKind::ClatHist, "h"),
            PathBuf::from("h_clat_hist.3.log")
        );
        let mut c = cfg(&[LogKind::Iops], 0);
        c.per_job = false;
        assert_eq!(c.path(LogKind::Iops, "a"), PathBuf::from("a_iops.log"));
    }
}
