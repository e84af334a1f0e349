//! `--repeat=N` (rfio's own): what the runs of one invocation measured,
//! summed up. Pure: each run's [`Summary`] gives its [`RunMetrics`]
//! (per reported entry and direction: IOPS, bandwidth, the mean and the
//! percentiles of the completion latency), and the runs' metrics give the
//! [`RepeatSummary`] the outputs print beside the median run's report (carried in the
//! [`super::RunReport`]).
//!
//! - The run printed as fio prints a run is the **median run**: the run
//!   whose total bandwidth (every entry, every direction) is the median,
//!   the lower one of the two middle runs for an even count, runs of equal
//!   bandwidth in run order ([`median_run`]).
//! - The runs are summed up as they come ([`Runs`], a few numbers per run
//!   and entry, not the run's report), and at most [`KEPT_REPORTS`] reports
//!   are held to print the median run's ([`Kept`]; see `repeat/runs.rs`).
//! - Each metric's [`Spread`]: the median of the runs' values (again the
//!   lower median for an even count), the minimum, the maximum and the
//!   coefficient of variation, the sample standard deviation (n - 1) over
//!   the mean, in percent (`None` for fewer than two runs: one run has no
//!   variance to measure; 0 for a zero mean), and each run's value in run
//!   order.

use serde::{Deserialize, Serialize};

use super::config::Unified;
use super::summary::{Entry, Summary};

mod runs;
pub use runs::{Kept, Runs, KEPT_REPORTS};

/// The median, minimum, maximum and coefficient of variation of one
/// metric over the runs, and each run's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation over the mean, in percent; `None` for
    /// fewer than two runs.
    pub cv_pct: Option<f64>,
    /// The value of each run (in which the metric was measured), in run
    /// order.
    #[serde(default)]
    pub runs: Vec<f64>,
}

impl Spread {
    /// The spread of `values` (at least one).
    pub fn of(values: &[f64]) -> Spread {
        let n = values.len();
        if n == 0 {
            return Spread {
                median: 0.0,
                min: 0.0,
                max: 0.0,
                cv_pct: None,
                runs: Vec::new(),
            };
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mean = values.iter().sum::<f64>() / n as f64;
        let cv_pct = if n < 2 {
            None
        } else if mean == 0.0 {
            Some(0.0)
        } else {
            let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            Some(100.0 * var.sqrt() / mean.abs())
        };
        Spread {
            median: sorted[(n - 1) / 2],
            min: sorted[0],
            max: sorted[n - 1],
            cv_pct,
            runs: values.to_vec(),
        }
    }
}

/// One direction of one reported entry in one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirMetrics {
    /// I/Os per second over the direction's runtime (JSON `iops`).
    pub iops: f64,
    /// Bytes per second (JSON `bw_bytes`).
    pub bw_bytes: f64,
    /// Mean completion latency, ns.
    pub clat_mean_ns: f64,
    /// The completion-latency percentiles of the job's `percentile_list`,
    /// `(percentile, ns)`; empty without a completion-latency histogram.
    pub clat_percentiles: Vec<(f64, u64)>,
}

/// One reported entry (a job, or a group merged by `group_reporting`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobMetrics {
    pub jobname: String,
    pub groupid: u32,
    /// Read, write, trim (`mixed` in the first with
    /// `unified_rw_reporting=mixed`); `None` where nothing moved.
    pub dirs: [Option<DirMetrics>; 3],
    /// The first direction is fio's `mixed`.
    pub mixed: bool,
}

/// What one run measured, entry by entry in report order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    pub jobs: Vec<JobMetrics>,
}

impl RunMetrics {
    /// The bandwidth of every entry and direction together, bytes/s.
    pub fn total_bw(&self) -> f64 {
        self.jobs
            .iter()
            .flat_map(|j| j.dirs.iter().flatten())
            .map(|d| d.bw_bytes)
            .sum()
    }
}

/// The metrics of a run's reported entries (its report's summary; fio's
/// placeholders left out).
pub fn metrics(summary: &Summary) -> RunMetrics {
    let jobs = summary
        .entries
        .iter()
        .filter(|e| !e.is_placeholder())
        .map(entry_metrics)
        .collect();
    RunMetrics { jobs }
}

fn entry_metrics(e: &Entry) -> JobMetrics {
    let dirs = std::array::from_fn(|d| {
        let r = &e.dirs[d];
        if r.ios == 0 && r.bytes == 0 {
            return None;
        }
        let per_sec = |n: u64| match r.runtime_ms {
            0 => 0.0,
            ms => n as f64 * 1000.0 / ms as f64,
        };
        let summary = r.clat.summary();
        let clat_percentiles = match (r.clat_hist.as_deref(), summary) {
            (Some(h), Some(s)) if !h.is_empty() => {
                let list = &e.cfg.percentiles.list;
                list.iter()
                    .copied()
                    .zip(h.percentiles(list, s.min, s.max))
                    .collect()
            }
            _ => Vec::new(),
        };
        Some(DirMetrics {
            iops: per_sec(r.ios),
            // As fio's JSON: whole bytes per second.
            bw_bytes: (r.bytes.saturating_mul(1000))
                .checked_div(r.runtime_ms)
                .unwrap_or(0) as f64,
            clat_mean_ns: summary.map_or(0.0, |s| s.mean),
            clat_percentiles,
        })
    });
    JobMetrics {
        jobname: e.name.clone(),
        groupid: e.group_id,
        dirs,
        mixed: e.cfg.unified == Unified::Mixed,
    }
}

/// Which run of `runs` (0-based) is the median run: the lower median of
/// the total bandwidths, runs of equal bandwidth in run order.
#[cfg(test)]
pub fn median_run(runs: &[RunMetrics]) -> usize {
    let mut all = Runs::new();
    for r in runs {
        all.add(r);
    }
    all.median().map_or(0, |(i, _)| i)
}

/// Why the repetition ended before the runs asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stopped {
    /// SIGINT/SIGTERM: the interrupted run is left out (unless it was the
    /// first).
    Signal,
    /// A job of the last run ended with an error: that run is the one
    /// reported.
    JobError,
}

impl Stopped {
    pub fn as_str(self) -> &'static str {
        match self {
            Stopped::Signal => "signal",
            Stopped::JobError => "job error",
        }
    }
}

/// One direction of an entry over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirRepeat {
    /// `read`, `write`, `trim` or `mixed`.
    pub ddir: String,
    /// The runs in which the direction moved data.
    pub runs: u32,
    pub iops: Spread,
    pub bw_bytes: Spread,
    pub clat_mean_ns: Spread,
    /// Per percentile of the list, in its order.
    pub clat_percentiles: Vec<(f64, Spread)>,
}

/// One reported entry over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRepeat {
    pub jobname: String,
    pub groupid: u32,
    pub dirs: Vec<DirRepeat>,
}

/// The runs of a `--repeat` invocation, summed up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatSummary {
    /// `--repeat=N`.
    pub requested: u32,
    /// The runs summed up here.
    pub runs: u32,
    /// The run whose report is printed, 1-based.
    pub median_run: u32,
    pub stopped: Option<Stopped>,
    pub jobs: Vec<JobRepeat>,
}

pub(super) const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];

/// Sum up `runs` (in run order), of which the run at index `reported` is
/// printed.
pub fn summarize(
    runs: &[RunMetrics],
    requested: u32,
    reported: usize,
    stopped: Option<Stopped>,
) -> RepeatSummary {
    let mut all = Runs::new();
    for r in runs {
        all.add(r);
    }
    let empty = RunMetrics { jobs: Vec::new() };
    let shape = runs.get(reported).or(runs.first()).unwrap_or(&empty);
    all.summarize(requested, reported, shape, stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(bw: f64, iops: f64, p99: u64) -> RunMetrics {
        let d = DirMetrics {
            iops,
            bw_bytes: bw,
            clat_mean_ns: iops / 10.0,
            clat_percentiles: vec![(50.0, p99 / 2), (99.0, p99)],
        };
        RunMetrics {
            jobs: vec![JobMetrics {
                jobname: "j".into(),
                groupid: 0,
                dirs: [Some(d), None, None],
                mixed: false,
            }],
        }
    }

    #[test]
    fn spread_takes_the_lower_median_and_the_sample_cv() {
        let s = Spread::of(&[4.0, 2.0, 6.0, 8.0]);
        assert_eq!((s.median, s.min, s.max), (4.0, 2.0, 8.0));
        // mean 5, sample variance 20/3.
        let want = 100.0 * (20.0f64 / 3.0).sqrt() / 5.0;
        assert!((s.cv_pct.unwrap() - want).abs() < 1e-9, "{:?}", s.cv_pct);
        assert_eq!(s.runs, [4.0, 2.0, 6.0, 8.0], "in run order");
        let one = Spread::of(&[3.0]);
        assert_eq!(
            (one.median, one.min, one.max, one.cv_pct),
            (3.0, 3.0, 3.0, None),
            "one run has no variance"
        );
        assert_eq!(Spread::of(&[0.0, 0.0]).cv_pct, Some(0.0));
        assert_eq!(Spread::of(&[5.0, 5.0, 5.0]).cv_pct, Some(0.0));
    }

    #[test]
    fn the_median_run_is_the_lower_median_of_total_bandwidth() {
        let runs = [run(30.0, 1.0, 1), run(10.0, 1.0, 1), run(20.0, 1.0, 1)];
        assert_eq!(median_run(&runs), 2);
        let even = [
            run(40.0, 1.0, 1),
            run(10.0, 1.0, 1),
            run(30.0, 1.0, 1),
            run(20.0, 1.0, 1),
        ];
        assert_eq!(median_run(&even), 3, "the lower of 20 and 30");
        let tie = [run(5.0, 1.0, 1), run(5.0, 1.0, 1), run(5.0, 1.0, 1)];
        assert_eq!(median_run(&tie), 1);
        assert_eq!(median_run(&[run(1.0, 1.0, 1)]), 0);
    }

    #[test]
    fn summary_has_every_metric_per_direction() {
        let runs = [
            run(300.0, 30.0, 900),
            run(100.0, 10.0, 100),
            run(200.0, 20.0, 500),
        ];
        let s = summarize(&runs, 5, median_run(&runs), Some(Stopped::Signal));
        assert_eq!((s.requested, s.runs, s.median_run), (5, 3, 3));
        assert_eq!(s.stopped, Some(Stopped::Signal));
        let d = &s.jobs[0].dirs;
        assert_eq!(d.len(), 1, "only read moved data");
        assert_eq!(d[0].ddir, "read");
        assert_eq!(d[0].runs, 3);
        assert_eq!((d[0].bw_bytes.median, d[0].bw_bytes.min), (200.0, 100.0));
        assert_eq!(d[0].iops.max, 30.0);
        assert_eq!(d[0].clat_mean_ns.median, 2.0);
        let p: Vec<f64> = d[0].clat_percentiles.iter().map(|x| x.0).collect();
        assert_eq!(p, [50.0, 99.0]);
        assert_eq!(d[0].clat_percentiles[1].1.median, 500.0);
        assert_eq!(d[0].clat_percentiles[1].1.min, 100.0);
        assert!((d[0].bw_bytes.cv_pct.unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(d[0].iops.runs, [30.0, 10.0, 20.0]);
    }
}
