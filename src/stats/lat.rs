//! A latency accumulator: exact min/max, and mean/variance by Welford's
//! method (as fio's `add_stat_sample`), without allocation.

use serde::{Deserialize, Serialize};

/// Latency samples in nanoseconds, accumulated one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatAccum {
    samples: u64,
    min: u64,
    max: u64,
    mean: f64,
    /// Sum of squared differences from the mean.
    m2: f64,
}

impl Default for LatAccum {
    fn default() -> LatAccum {
        LatAccum {
            samples: 0,
            min: u64::MAX,
            max: 0,
            mean: 0.0,
            m2: 0.0,
        }
    }
}

/// `n as f64`, the same value: below 2^63 through the signed conversion,
/// one instruction where the unsigned one takes a dozen on x86-64.
#[inline(always)]
fn to_f64(n: u64) -> f64 {
    match i64::try_from(n) {
        Ok(i) => i as f64,
        Err(_) => n as f64,
    }
}

impl LatAccum {
    /// Record one sample.
    #[inline]
    pub(crate) fn add(&mut self, ns: u64) {
        self.samples += 1;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        let v = to_f64(ns);
        let delta = v - self.mean;
        if delta != 0.0 {
            self.mean += delta / to_f64(self.samples);
            self.m2 += delta * (v - self.mean);
        }
    }

    /// Number of samples.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Merge `other` as fio's `__sum_stat` does for latencies (pooled mean
    /// and variance, global min and max).
    pub(crate) fn merge(&mut self, other: &LatAccum) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *other;
            return;
        }
        let (n1, n2) = (self.samples as f64, other.samples as f64);
        let delta = other.mean - self.mean;
        let mean = (other.mean * n2 + self.mean * n1) / (n1 + n2);
        let m2 = other.m2 + self.m2 + delta * delta * (n1 * n2) / (n1 + n2);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.samples += other.samples;
        self.mean = mean;
        self.m2 = m2;
    }

    /// Sum `other` field by field, as fio's `sum_stat(.., pure_sum=true)`
    /// does for bandwidth and IOPS samples under group_reporting: min, max,
    /// mean and the sum of squares add up.
    pub(crate) fn sum(&mut self, other: &LatAccum) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *other;
            return;
        }
        self.min = self.min.saturating_add(other.min);
        self.max = self.max.saturating_add(other.max);
        self.samples += other.samples;
        self.mean += other.mean;
        self.m2 += other.m2;
    }

    /// An accumulator with the given summary values (hand-built reports).
    pub fn from_parts(samples: u64, min: u64, max: u64, mean: f64, stddev: f64) -> LatAccum {
        if samples == 0 {
            return LatAccum::default();
        }
        LatAccum {
            samples,
            min,
            max,
            mean,
            m2: if samples > 1 {
                stddev * stddev * (samples - 1) as f64
            } else {
                0.0
            },
        }
    }

    /// The summary, or `None` without samples.
    /// fio's `io_stat` as it is (a TS body): samples, min, max, mean and
    /// `S`, the sum of squared deviations, kept bit for bit.
    pub(crate) fn from_raw(samples: u64, min: u64, max: u64, mean: f64, m2: f64) -> LatAccum {
        LatAccum {
            samples,
            min,
            max,
            mean,
            m2,
        }
    }

    /// The fields [`LatAccum::from_raw`] takes: samples, min, max, mean, `S`.
    pub(crate) fn raw(&self) -> (u64, u64, u64, f64, f64) {
        (self.samples, self.min, self.max, self.mean, self.m2)
    }

    pub fn summary(&self) -> Option<LatSummary> {
        if self.samples == 0 {
            return None;
        }
        let stddev = if self.samples > 1 {
            (self.m2 / (self.samples - 1) as f64).sqrt()
        } else {
            0.0
        };
        Some(LatSummary {
            samples: self.samples,
            min: self.min,
            max: self.max,
            mean: self.mean,
            stddev,
        })
    }
}

/// Latency statistics of one direction, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatSummary {
    pub samples: u64,
    pub min: u64,
    pub max: u64,
    pub(crate) mean: f64,
    /// Sample standard deviation (n-1), 0 for one sample.
    pub(crate) stddev: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welford_matches_the_textbook() {
        let mut a = LatAccum::default();
        assert!(a.summary().is_none());
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            a.add(v);
        }
        let s = a.summary().unwrap();
        assert_eq!((s.samples, s.min, s.max), (8, 2, 9));
        assert!((s.mean - 5.0).abs() < 1e-12);
        assert!((s.stddev - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn merge_pools_mean_and_variance() {
        let (mut a, mut b, mut all) = (
            LatAccum::default(),
            LatAccum::default(),
            LatAccum::default(),
        );
        for v in [2, 4, 4, 4] {
            a.add(v);
            all.add(v);
        }
        for v in [5, 5, 7, 9] {
            b.add(v);
            all.add(v);
        }
        a.merge(&b);
        let (m, w) = (a.summary().unwrap(), all.summary().unwrap());
        assert_eq!((m.samples, m.min, m.max), (w.samples, w.min, w.max));
        assert!((m.mean - w.mean).abs() < 1e-12);
        assert!((m.stddev - w.stddev).abs() < 1e-12);
        let mut s = LatAccum::from_parts(2, 10, 20, 15.0, 1.0);
        s.sum(&LatAccum::from_parts(3, 1, 2, 1.5, 0.0));
        let s = s.summary().unwrap();
        assert_eq!((s.samples, s.min, s.max), (5, 11, 22));
        assert!((s.mean - 16.5).abs() < 1e-12);
    }
}
