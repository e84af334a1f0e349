//! A latency accumulator: exact min/max, and mean/variance by Welford's
//! method (as fio's `add_stat_sample`), without allocation.

/// Latency samples in nanoseconds, accumulated one at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
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

impl LatAccum {
    /// Record one sample.
    #[inline]
    pub fn add(&mut self, ns: u64) {
        self.samples += 1;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        let v = ns as f64;
        let delta = v - self.mean;
        self.mean += delta / self.samples as f64;
        self.m2 += delta * (v - self.mean);
    }

    /// The summary, or `None` without samples.
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
    pub mean: f64,
    /// Sample standard deviation (n-1), 0 for one sample.
    pub stddev: f64,
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
}
