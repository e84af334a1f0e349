//! What a job records and how it is reported (fio's `thread_options` as
//! `stat.c` and `io_u.c` consult them). The plan resolves these from the
//! job's options (`plan::report::stats_config`); statistics and outputs read
//! only this.

use serde::{Deserialize, Serialize};

/// fio's default `percentile_list`.
pub(crate) const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// At most this many percentiles are kept (`FIO_IO_U_LIST_MAX_LEN`).
pub(crate) const MAX_PERCENTILES: usize = 20;

/// `unified_rw_reporting`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Unified {
    #[default]
    None,
    /// Directions summed into one `mixed` block, in place of read/write/trim.
    Mixed,
    /// Directions as usual, followed by a `mixed` block.
    Both,
}

/// Which latencies get percentiles, and which percentiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Percentiles {
    pub(crate) slat: bool,
    pub(crate) clat: bool,
    pub(crate) lat: bool,
    /// Sorted ascending, at most [`MAX_PERCENTILES`] entries.
    pub(crate) list: Vec<f64>,
    /// Decimals shown in the normal output (`percentile_precision`).
    pub(crate) precision: usize,
}

impl Default for Percentiles {
    fn default() -> Percentiles {
        Percentiles {
            slat: false,
            clat: true,
            lat: false,
            list: DEFAULT_PERCENTILES.to_vec(),
            precision: 2,
        }
    }
}

/// The statistics settings of one job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatsConfig {
    /// `stats=0` leaves the job out of every report.
    pub(crate) stats: bool,
    /// The directions the job can move data in (read also for a writing
    /// job, which may verify): only these get latency histograms.
    pub(crate) dirs: [bool; 3],
    /// `disable_slat`, `disable_clat`, `disable_lat` (all set by
    /// `gtod_reduce`), inverted.
    pub(crate) slat: bool,
    pub(crate) clat: bool,
    pub(crate) lat: bool,
    /// `disable_bw_measurement` (also set by `gtod_reduce`): no per-I/O
    /// bandwidth samples for a per-I/O bandwidth log.
    pub(crate) disable_bw: bool,
    /// `gtod_reduce` in effect (fio also skips per-I/O IOPS samples).
    pub(crate) gtod_reduce: bool,
    pub(crate) percentiles: Percentiles,
    /// Summary bandwidth and IOPS sampling intervals in ms (`bwavgtime`,
    /// `iopsavgtime`, lowered to `log_avg_msec` when that log is averaged).
    pub(crate) bw_avg_ms: u64,
    pub(crate) iops_avg_ms: u64,
    /// A bandwidth / IOPS log without `log_avg_msec`: the summary samples
    /// are per I/O instead of per interval (a fio quirk scripts see).
    pub(crate) bw_per_io: bool,
    pub(crate) iops_per_io: bool,
    pub(crate) unified: Unified,
    /// `kb_base` (1024 or 1000) and `unit_base` (8 bytes, 1 bits).
    pub(crate) kb_base: u32,
    pub(crate) unit_base: u32,
    /// `significant_figures`.
    pub(crate) sig_figs: usize,
    pub(crate) description: Option<String>,
    /// `continue_on_error` is not `none`.
    pub(crate) continue_on_error: bool,
    /// `latency_target` (ns), `latency_window` (µs), `latency_percentile`.
    pub(crate) latency_target_ns: u64,
    pub(crate) latency_window_us: u64,
    pub(crate) latency_percentile: f64,
    /// fio's `count_zone_resets`: `zonemode=zbd` with writes or trims (fio
    /// 3.42 reports zone resets only then; 3.33 on every write line).
    #[serde(default)]
    pub(crate) count_zone_resets: bool,
}

impl Default for StatsConfig {
    fn default() -> StatsConfig {
        StatsConfig {
            stats: true,
            dirs: [true; 3],
            slat: true,
            clat: true,
            lat: true,
            disable_bw: false,
            gtod_reduce: false,
            percentiles: Percentiles::default(),
            bw_avg_ms: 500,
            iops_avg_ms: 500,
            bw_per_io: false,
            iops_per_io: false,
            unified: Unified::None,
            kb_base: 1024,
            unit_base: 8,
            sig_figs: 4,
            description: None,
            continue_on_error: false,
            latency_target_ns: 0,
            latency_window_us: 0,
            latency_percentile: 100.0,
            count_zone_resets: false,
        }
    }
}
