//! `--baseline-compare=FILE` (rfio's own): what a comparison with a saved
//! baseline found, carried in the [`super::RunReport`] so that every output
//! format prints the same verdicts (the normal block, JSON's `"baseline"`).
//! `baseline::compare` makes it; nothing here formats.

use serde::{Deserialize, Serialize};

/// A metric of one direction of one reported entry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Metric {
    Iops,
    /// Bytes per second.
    Bw,
    /// The mean completion latency, ns.
    ClatMean,
    /// A completion-latency percentile of the job's `percentile_list`, ns.
    ClatPercentile(f64),
}

impl Metric {
    /// Its name in `--baseline-metrics` and JSON: `iops`, `bw`, `mean`,
    /// `p99`, `p99.9`.
    pub fn key(self) -> String {
        match self {
            Metric::Iops => "iops".into(),
            Metric::Bw => "bw".into(),
            Metric::ClatMean => "mean".into(),
            Metric::ClatPercentile(p) => format!("p{p}"),
        }
    }

    /// Higher is better (IOPS, bandwidth); lower is better (latencies).
    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Iops | Metric::Bw)
    }

    /// The same metric (a percentile to within rounding).
    pub fn same(self, other: Metric) -> bool {
        match (self, other) {
            (Metric::ClatPercentile(a), Metric::ClatPercentile(b)) => (a - b).abs() < 1e-9,
            (a, b) => a == b,
        }
    }
}

/// What a metric did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Better,
    Worse,
    Within,
    /// Saved, but this run has no such job, direction or percentile.
    Missing,
}

impl Verdict {
    /// Its name in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Within => "within",
            Verdict::Missing => "not measured",
        }
    }

    /// Fails a gated metric.
    pub fn regressed(self) -> bool {
        matches!(self, Verdict::Worse | Verdict::Missing)
    }
}

/// Where a metric's band came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BandFrom {
    /// `--baseline-threshold` (neither side measured a variance, or the
    /// variance is smaller).
    Threshold,
    /// The runs' variance (`2·√(cv_saved² + cv_now²)`).
    Variance,
}

impl BandFrom {
    pub fn as_str(self) -> &'static str {
        match self {
            BandFrom::Threshold => "threshold",
            BandFrom::Variance => "variance",
        }
    }
}

/// One metric of one entry and direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricVerdict {
    pub job: String,
    /// `read`, `write`, `trim` or `mixed`.
    pub ddir: String,
    pub metric: Metric,
    /// Chosen by `--baseline-metrics`: its verdict decides the exit status.
    pub gated: bool,
    /// The baseline's median.
    pub saved: f64,
    /// This run's median (its value for a single run); `None`: not measured.
    pub now: Option<f64>,
    /// `(now - saved) / saved`, percent; `None` without a value or from 0.
    pub change_pct: Option<f64>,
    /// A change within ± this many percent is noise.
    pub band_pct: f64,
    pub band_from: BandFrom,
    pub verdict: Verdict,
}

impl MetricVerdict {
    /// Gated and worse (or gone).
    pub fn fails(&self) -> bool {
        self.gated && self.verdict.regressed()
    }
}

/// A comparison with a baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The baseline file, as given.
    pub file: String,
    /// `--baseline-threshold`, percent.
    pub threshold_pct: f64,
    /// `--baseline-metrics`, as keys (`iops`, `bw`, `p99`).
    pub gated: Vec<String>,
    /// The runs behind the baseline and behind this run (`--repeat`).
    pub saved_runs: u32,
    pub runs: u32,
    /// What differs but does not stop the comparison (the host, the pacing
    /// options), one sentence each.
    pub warnings: Vec<String>,
    pub metrics: Vec<MetricVerdict>,
}

impl Comparison {
    /// A gated metric got worse: the exit status is the baseline's
    /// regression status.
    pub fn failed(&self) -> bool {
        self.metrics.iter().any(MetricVerdict::fails)
    }

    /// The gated metrics with verdict `v`.
    pub fn gated_count(&self, v: Verdict) -> usize {
        self.metrics
            .iter()
            .filter(|m| m.gated && m.verdict == v)
            .count()
    }
}
