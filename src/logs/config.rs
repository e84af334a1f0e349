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

/// What a windowed log line holds (`log_window_value`, fio 3.37; before
/// it the boolean `log_max_value`: avg or max).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum WindowValue {
    /// The window's mean, rounded.
    #[default]
    Avg,
    /// The window's largest value.
    Max,
    /// Both, the mean then the max: every line of every log of the job
    /// gets the second value column (0 on a line that is not a window).
    Both,
}

/// The log settings of one job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogConfig {
    /// The logs to write, with their file prefix.
    pub(crate) logs: Vec<(LogKind, String)>,
    pub(crate) avg_msec: u64,
    /// The window of the bandwidth and IOPS logs with `log_avg_msec`:
    /// `bwavgtime`/`iopsavgtime` when set and smaller, else `log_avg_msec`
    /// (fio's `add_job`).
    pub(crate) bw_avg_msec: u64,
    pub(crate) iops_avg_msec: u64,
    pub(crate) window: WindowValue,
    pub(crate) offset: bool,
    pub(crate) prio: bool,
    /// `log_issue_time` (fio 3.38): a last column, the I/O's issue time in
    /// ns since the job's start (clat and slat lines; 0 on the others).
    pub(crate) issue_time: bool,
    pub(crate) per_job: bool,
    pub(crate) hist_msec: u64,
    pub(crate) hist_coarseness: u32,
    /// `log_unix_epoch` or `log_alternate_epoch`: times count from the
    /// epoch of this clock (`log_alternate_epoch_clock_id`, 0 the Unix
    /// epoch), read when the job starts.
    pub(crate) epoch_clock: Option<i32>,
    /// The job's global thread number (the `.N` of the file names).
    pub(crate) thread_number: u32,
    /// `log_entries`: the samples of the first in-memory array.
    pub(crate) entries: usize,
    /// `log_compression`: compress full arrays on a thread as the job runs.
    pub(crate) compress: bool,
    /// `log_compression_cpus`: that thread's CPUs.
    pub(crate) compress_cpus: Option<Vec<usize>>,
    /// `log_store_compressed`: write `.log.fz` files of zlib streams.
    pub(crate) store_compressed: bool,
}

impl LogConfig {
    /// Whether the job writes a log of `kind`.
    pub(crate) fn has(&self, kind: LogKind) -> bool {
        self.logs.iter().any(|(k, _)| *k == kind)
    }

    /// The file a log of `kind` with `prefix` goes to (`.log.fz` when
    /// stored compressed).
    pub(crate) fn path(&self, kind: LogKind, prefix: &str) -> PathBuf {
        let suffix = if self.store_compressed {
            "log.fz"
        } else {
            "log"
        };
        if self.per_job {
            PathBuf::from(format!(
                "{prefix}_{}.{}.{suffix}",
                kind.name(),
                self.thread_number
            ))
        } else {
            PathBuf::from(format!("{prefix}_{}.{suffix}", kind.name()))
        }
    }

    /// The averaging window of the log of `kind`, ms (0: a line per I/O).
    pub(crate) fn window_msec(&self, kind: LogKind) -> u64 {
        match kind {
            _ if self.avg_msec == 0 => 0,
            LogKind::Bw => self.bw_avg_msec,
            LogKind::Iops => self.iops_avg_msec,
            _ => self.avg_msec,
        }
    }

    /// Whether the log of `kind` is kept in memory as fio's sample records
    /// (compressed or stored compressed). Histogram logs never are: fio
    /// 3.33 stores memory addresses in place of their rows there.
    pub(crate) fn packed(&self, kind: LogKind) -> bool {
        kind != LogKind::ClatHist && (self.compress || self.store_compressed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(kinds: &[LogKind], avg: u64) -> LogConfig {
        LogConfig {
            logs: kinds.iter().map(|k| (*k, "t".to_string())).collect(),
            avg_msec: avg,
            bw_avg_msec: avg,
            iops_avg_msec: avg,
            window: WindowValue::Avg,
            offset: false,
            prio: false,
            issue_time: false,
            per_job: true,
            hist_msec: 0,
            hist_coarseness: 0,
            epoch_clock: None,
            thread_number: 3,
            entries: 1024,
            compress: false,
            compress_cpus: None,
            store_compressed: false,
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
        c.store_compressed = true;
        assert_eq!(c.path(LogKind::Iops, "a"), PathBuf::from("a_iops.log.fz"));
        c.per_job = true;
        assert_eq!(c.path(LogKind::Bw, "a"), PathBuf::from("a_bw.3.log.fz"));
        assert!(c.packed(LogKind::Bw) && !c.packed(LogKind::ClatHist));
    }
}
