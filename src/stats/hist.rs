//! Latency histograms: hdrhistogram at 3 significant digits for the
//! percentiles rfio reports, and fio's log-linear bucket layout
//! (`stat.h`: 29 groups of 64 buckets) for JSON+ `bins` and histogram logs.
//!
//! fio computes its percentiles from its own buckets, which are up to ~0.8%
//! off the exact value. rfio reports the percentile from the hdrhistogram
//! (the midpoint of a bucket at most 0.1% wide), with fio's rank rule: the
//! p-th percentile is the smallest recorded value whose cumulative count is
//! at least `p/100 * N`. Every hdrhistogram bucket of values below 2^40 ns
//! lies inside one fio bucket, so fio's bucket counts are derived exactly
//! from the hdrhistogram without a second per-I/O recording.

use hdrhistogram::Histogram;

/// Bits of fio's bucket index within a group (`FIO_IO_U_PLAT_BITS`).
const PLAT_BITS: u32 = 6;
/// Buckets per group (`FIO_IO_U_PLAT_VAL`).
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// fio's bucket count (`FIO_IO_U_PLAT_NR` = 29 groups × 64).
pub const PLAT_NR: usize = 29 * PLAT_VAL as usize;

/// Largest latency tracked exactly (about 18 minutes); longer latencies are
/// recorded as this value (min/max/mean stay exact, and percentiles are
/// clamped to the exact maximum anyway).
const HIGHEST_NS: u64 = 1 << 40;

/// fio's `plat_val_to_idx`: the bucket of a value in nanoseconds.
pub fn fio_bucket(ns: u64) -> usize {
    let msb = if ns == 0 { 0 } else { 63 - ns.leading_zeros() };
    if msb <= PLAT_BITS {
        return ns as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = (u64::from(error_bits) + 1) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (ns >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

/// fio's `plat_idx_to_val`: the value a bucket stands for (its midpoint).
pub fn fio_bucket_value(idx: usize) -> u64 {
    let idx = idx as u64;
    if idx < (PLAT_VAL << 1) {
        return idx;
    }
    let error_bits = (idx >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + u64::from(PLAT_BITS));
    let k = idx % PLAT_VAL;
    // fio computes `base + (k + 0.5) * (1 << error_bits)` in floating point.
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

/// A latency histogram in nanoseconds.
#[derive(Debug, Clone)]
pub struct LatHist {
    h: Histogram<u64>,
}

impl Default for LatHist {
    fn default() -> LatHist {
        LatHist::new()
    }
}

impl PartialEq for LatHist {
    fn eq(&self, other: &LatHist) -> bool {
        self.h == other.h
    }
}

impl LatHist {
    /// An empty histogram covering 0 ns to about 18 minutes at 3
    /// significant digits (allocates once; recording never allocates).
    pub fn new() -> LatHist {
        let mut h = Histogram::new_with_bounds(1, HIGHEST_NS, 3)
            .expect("constant bounds are valid for hdrhistogram");
        h.auto(false);
        LatHist { h }
    }

    /// Record one latency.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.h.saturating_record(ns);
    }

    /// Record `n` latencies of the same value (hand-built reports).
    pub fn record_n(&mut self, ns: u64, n: u64) {
        self.h.saturating_record_n(ns, n);
    }

    /// Number of recorded latencies.
    pub fn len(&self) -> u64 {
        self.h.len()
    }

    pub fn is_empty(&self) -> bool {
        self.h.is_empty()
    }

    /// Add another histogram's counts (group_reporting, mixed directions).
    pub fn merge(&mut self, other: &LatHist) {
        // Same bounds on both sides: adding cannot fail.
        let _ = self.h.add(&other.h);
    }

    /// The percentiles of `list` (each in (0, 100]) by fio's rank rule,
    /// clamped to `[min, max]`, the exact extremes. Empty without samples.
    pub fn percentiles(&self, list: &[f64], min: u64, max: u64) -> Vec<u64> {
        let n = self.h.len();
        if n == 0 || list.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(list.len());
        let mut want = list.iter().copied().peekable();
        let mut cum = 0u64;
        for v in self.h.iter_recorded() {
            cum += v.count_since_last_iteration();
            let value = self.h.median_equivalent(v.value_iterated_to());
            while let Some(&p) = want.peek() {
                if cum as f64 >= p / 100.0 * n as f64 {
                    out.push(value.clamp(min, max.max(min)));
                    want.next();
                } else {
                    break;
                }
            }
            if want.peek().is_none() {
                break;
            }
        }
        // Rounding can leave p=100 just above the total: the maximum.
        out.extend(want.map(|_| max));
        out
    }

    /// Counts in fio's bucket layout, every bucket (for histogram logs).
    pub fn fio_buckets(&self, into: &mut [u64; PLAT_NR]) {
        into.fill(0);
        for v in self.h.iter_recorded() {
            let lo = self.h.lowest_equivalent(v.value_iterated_to());
            into[fio_bucket(lo)] += v.count_at_value();
        }
    }

    /// JSON+ `bins`: `(bucket value in ns, count)` for every non-empty fio
    /// bucket, in ascending order.
    pub fn fio_bins(&self) -> Vec<(u64, u64)> {
        let mut bins: Vec<(u64, u64)> = Vec::new();
        let mut last_idx = usize::MAX;
        for v in self.h.iter_recorded() {
            let idx = fio_bucket(self.h.lowest_equivalent(v.value_iterated_to()));
            if idx == last_idx {
                if let Some(b) = bins.last_mut() {
                    b.1 += v.count_at_value();
                }
            } else {
                bins.push((fio_bucket_value(idx), v.count_at_value()));
                last_idx = idx;
            }
        }
        bins
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_bucket_math_matches_stat_c() {
        // json.md: 36608 → msb 15, e 9, index 647 → 36608.
        assert_eq!(fio_bucket(36608), 647);
        assert_eq!(fio_bucket_value(647), 36608);
        assert_eq!(fio_bucket(127), 127);
        assert_eq!(fio_bucket_value(127), 127);
        // 5778 ns was reported by fio as bin "5792".
        assert_eq!(fio_bucket_value(fio_bucket(5778)), 5792);
        assert_eq!(fio_bucket(u64::MAX), PLAT_NR - 1);
        // Buckets are monotonic and cover every value.
        let mut last = 0;
        for v in (0..1_000_000u64).step_by(7) {
            let i = fio_bucket(v);
            assert!(i >= last);
            last = i;
        }
    }

    #[test]
    fn percentiles_follow_the_rank_rule_and_clamp() {
        let mut h = LatHist::new();
        for v in 1..=1000u64 {
            h.record(v * 1000);
        }
        let p = h.percentiles(&[1.0, 50.0, 99.0, 99.99, 100.0], 1000, 1_000_000);
        // Nearest rank: ceil(p * N / 100)-th value, within 0.1%.
        let exact = [10_000u64, 500_000, 990_000, 1_000_000, 1_000_000];
        for (got, want) in p.iter().zip(exact) {
            let err = (*got as f64 - want as f64).abs() / want as f64;
            assert!(err <= 0.001, "{got} vs {want}");
        }
        assert!(p[4] <= 1_000_000, "clamped to the maximum");
        assert!(h.percentiles(&[50.0], 0, 0).len() == 1);
        assert!(LatHist::new().percentiles(&[50.0], 0, 0).is_empty());
    }

    #[test]
    fn percentiles_are_within_a_thousandth_of_the_exact_rank() {
        // Latencies from 10 ns to ~10 s, log-uniform.
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut vals = Vec::new();
        let mut h = LatHist::new();
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let exp = (x % 30) as u32;
            let v = 10 + ((x >> 8) % (1u64 << exp).max(1)) * ((x >> 40) % 10 + 1);
            vals.push(v);
            h.record(v);
        }
        vals.sort_unstable();
        let (min, max) = (vals[0], vals[vals.len() - 1]);
        let list = [1.0, 5.0, 10.0, 50.0, 90.0, 99.0, 99.5, 99.9, 99.99, 100.0];
        for (p, got) in list.iter().zip(h.percentiles(&list, min, max)) {
            let rank = ((p / 100.0 * vals.len() as f64).ceil() as usize).max(1);
            let exact = vals[rank - 1];
            let err = (got as f64 - exact as f64).abs() / exact as f64;
            assert!(err <= 0.001, "p{p}: {got} vs exact {exact}");
        }
    }

    #[test]
    fn bins_are_fio_buckets() {
        let mut h = LatHist::new();
        for v in [0u64, 1, 1, 9, 10, 10, 5778, 36600, 36700] {
            h.record(v);
        }
        assert_eq!(
            h.fio_bins(),
            vec![(0, 1), (1, 2), (9, 1), (10, 2), (5792, 1), (36608, 2)]
        );
        let mut all = [0u64; PLAT_NR];
        h.fio_buckets(&mut all);
        assert_eq!(all.iter().sum::<u64>(), 9);
        assert_eq!(all[647], 2);
    }
}
