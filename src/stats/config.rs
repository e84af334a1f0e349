//! What a job records and how it is reported, read from its options once
//! (fio's `thread_options` as `stat.c` and `io_u.c` consult them).

use crate::options::Value;
use crate::plan::spec::JobSpec;

/// fio's default `percentile_list`.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// At most this many percentiles are kept (`FIO_IO_U_LIST_MAX_LEN`).
pub const MAX_PERCENTILES: usize = 20;

/// `unified_rw_reporting`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unified {
    #[default]
    None,
    /// Directions summed into one `mixed` block, in place of read/write/trim.
    Mixed,
    /// Directions as usual, followed by a `mixed` block.
    Both,
}

/// Which latencies get percentiles, and which percentiles.
#[derive(Debug, Clone, PartialEq)]
pub struct Percentiles {
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
    /// Sorted ascending, at most [`MAX_PERCENTILES`] entries.
    pub list: Vec<f64>,
    /// Decimals shown in the normal output (`percentile_precision`).
    pub precision: usize,
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
#[derive(Debug, Clone, PartialEq)]
pub struct StatsConfig {
    /// `stats=0` leaves the job out of every report.
    pub stats: bool,
    /// The directions the job can move data in (read also for a writing
    /// job, which may verify): only these get latency histograms.
    pub dirs: [bool; 3],
    /// `disable_slat`, `disable_clat`, `disable_lat` (all set by
    /// `gtod_reduce`), inverted.
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
    /// `disable_bw_measurement` (also set by `gtod_reduce`): no per-I/O
    /// bandwidth samples for a per-I/O bandwidth log.
    pub disable_bw: bool,
    /// `gtod_reduce` in effect (fio also skips per-I/O IOPS samples).
    pub gtod_reduce: bool,
    pub percentiles: Percentiles,
    /// Summary bandwidth and IOPS sampling intervals in ms (`bwavgtime`,
    /// `iopsavgtime`, lowered to `log_avg_msec` when that log is averaged).
    pub bw_avg_ms: u64,
    pub iops_avg_ms: u64,
    /// A bandwidth / IOPS log without `log_avg_msec`: the summary samples
    /// are per I/O instead of per interval (a fio quirk scripts see).
    pub bw_per_io: bool,
    pub iops_per_io: bool,
    pub unified: Unified,
    /// `kb_base` (1024 or 1000) and `unit_base` (8 bytes, 1 bits).
    pub kb_base: u32,
    pub unit_base: u32,
    /// `significant_figures`.
    pub sig_figs: usize,
    pub description: Option<String>,
    /// `continue_on_error` is not `none`.
    pub continue_on_error: bool,
    /// `latency_target` (ns), `latency_window` (µs), `latency_percentile`.
    pub latency_target_ns: u64,
    pub latency_window_us: u64,
    pub latency_percentile: f64,
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
        }
    }
}

impl StatsConfig {
    /// Read the job's options. Settings are applied in the order written,
    /// so `gtod_reduce=1` followed by `clat_percentiles=1` turns the
    /// percentiles back on, as in fio.
    pub fn from_spec(spec: &JobSpec) -> StatsConfig {
        let mut c = StatsConfig::default();
        let p = spec.pattern;
        c.dirs = [p.read || p.write || p.trim, p.write, p.trim];
        let (mut slat_pct, mut clat_pct, mut lat_pct) = (false, true, false);
        let mut log_avg = 0u64;
        for s in &spec.options.settings {
            let v = &s.value;
            match s.def.name {
                "stats" => c.stats = truthy(v),
                "gtod_reduce" if truthy(v) => {
                    c.slat = false;
                    c.clat = false;
                    c.lat = false;
                    c.disable_bw = true;
                    c.gtod_reduce = true;
                    slat_pct = false;
                    clat_pct = false;
                    lat_pct = false;
                }
                "gtod_reduce" => c.gtod_reduce = false,
                "disable_slat" => c.slat = !truthy(v),
                "disable_clat" => c.clat = !truthy(v),
                "disable_lat" => c.lat = !truthy(v),
                "disable_bw_measurement" => c.disable_bw = truthy(v),
                "slat_percentiles" => slat_pct = truthy(v),
                "clat_percentiles" => clat_pct = truthy(v),
                "lat_percentiles" => lat_pct = truthy(v),
                "percentile_list" => {
                    if let Value::Floats(f) = v {
                        let mut list: Vec<f64> = f
                            .iter()
                            .copied()
                            .filter(|p| *p > 0.0 && *p <= 100.0)
                            .take(MAX_PERCENTILES)
                            .collect();
                        list.sort_by(f64::total_cmp);
                        c.percentiles.list = list;
                        c.percentiles.precision = s.text.as_deref().map_or(2, precision_of);
                    }
                }
                "bwavgtime" => c.bw_avg_ms = int(v).unwrap_or(500).max(1),
                "iopsavgtime" => c.iops_avg_ms = int(v).unwrap_or(500).max(1),
                "log_avg_msec" => log_avg = int(v).unwrap_or(0),
                "unified_rw_reporting" => {
                    c.unified = match choice(s) {
                        Some("mixed" | "1") => Unified::Mixed,
                        Some("both" | "2") => Unified::Both,
                        _ => Unified::None,
                    }
                }
                "kb_base" => {
                    c.kb_base = if choice(s) == Some("1000") {
                        1000
                    } else {
                        1024
                    }
                }
                "unit_base" => c.unit_base = if choice(s) == Some("1") { 1 } else { 8 },
                "significant_figures" => {
                    c.sig_figs = int(v).unwrap_or(4).clamp(1, 10) as usize;
                }
                "description" => {
                    c.description = match v {
                        Value::Text(t) if !t.is_empty() => Some(t.clone()),
                        _ => None,
                    }
                }
                "continue_on_error" => {
                    c.continue_on_error = !matches!(choice(s), None | Some("none" | "0"));
                }
                "latency_target" => c.latency_target_ns = micros(v).saturating_mul(1000),
                "latency_window" => c.latency_window_us = micros(v),
                "latency_percentile" => {
                    if let Value::Floats(f) = v {
                        c.latency_percentile = f.first().copied().unwrap_or(100.0);
                    }
                }
                _ => {}
            }
        }
        c.percentiles.slat = slat_pct && c.slat;
        c.percentiles.clat = clat_pct && c.clat;
        c.percentiles.lat = lat_pct && c.lat;
        let has = |n: &str| spec.options.get(n).is_some();
        if has("write_bw_log") {
            if log_avg == 0 {
                c.bw_per_io = true;
            } else {
                c.bw_avg_ms = c.bw_avg_ms.min(log_avg);
            }
        }
        if has("write_iops_log") {
            if log_avg == 0 {
                c.iops_per_io = true;
            } else {
                c.iops_avg_ms = c.iops_avg_ms.min(log_avg);
            }
        }
        c
    }
}

/// fio's `percentile_precision`: the most digits after a `.` in the list.
fn precision_of(text: &str) -> usize {
    text.split(':')
        .map(|e| {
            e.split_once('.').map_or(0, |(_, frac)| {
                frac.chars().take_while(char::is_ascii_digit).count()
            })
        })
        .max()
        .unwrap_or(0)
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Int(n) => *n != 0,
        _ => false,
    }
}

fn int(v: &Value) -> Option<u64> {
    match v {
        Value::Int(n) => u64::try_from(*n).ok(),
        Value::Bytes(n) => Some(*n),
        Value::Micros(n) => Some(*n),
        _ => None,
    }
}

fn micros(v: &Value) -> u64 {
    match v {
        Value::Micros(n) | Value::Bytes(n) => *n,
        Value::Int(n) => u64::try_from(*n).unwrap_or(0),
        _ => 0,
    }
}

fn choice(s: &crate::options::jobopts::Setting) -> Option<&'static str> {
    match &s.value {
        Value::Choice { index, .. } => s.def.posvals.get(*index).map(|p| p.value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_counts_decimals_as_fio() {
        assert_eq!(precision_of("1:5:10:99.5:99.99"), 2);
        assert_eq!(precision_of("50:99.999:25.5"), 3);
        assert_eq!(precision_of("90:50"), 0);
    }
}
