//! Latency histograms: hdrhistogram's layout at 3 significant digits for
//! the percentiles rfio reports, and fio's log-linear bucket layout
//! (`stat.h`: 29 groups of 64 buckets) for JSON+ `bins` and histogram logs.
//!
//! fio computes its percentiles from its own buckets, which are up to ~0.8%
//! off the exact value. rfio reports the percentile from a bucket at most
//! 0.1% wide (its midpoint), with fio's rank rule: the p-th percentile is
//! the smallest recorded value whose cumulative count is at least
//! `p/100 * N`. Every bucket of values below 2^40 ns lies inside one fio
//! bucket, so fio's bucket counts are derived exactly from it without a
//! second per-I/O recording.
//!
//! The buckets are hdrhistogram's (`Histogram::new_with_bounds(1, 2^40, 3)`:
//! 2048 sub-buckets, each power of two above the first holding 1024), but
//! the counts are kept in chunks of `CHUNK` allocated the first time a
//! latency falls in them: the whole range is 256 KiB of counters, and a
//! job's latencies usually touch a few KiB of it. A job with a thousand
//! clones pays for what its latencies use, not for the range.

use serde::{Deserialize, Serialize};

/// Bits of fio's bucket index within a group (`FIO_IO_U_PLAT_BITS`).
const PLAT_BITS: u32 = 6;
/// Buckets per group (`FIO_IO_U_PLAT_VAL`).
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// fio's bucket count (`FIO_IO_U_PLAT_NR` = 29 groups × 64).
pub(crate) const PLAT_NR: usize = 29 * PLAT_VAL as usize;

/// The histogram's upper bound (about 18 minutes): its buckets reach on to
/// [`BEYOND_NS`], and a longer latency is recorded as this value (min/max/
/// mean stay exact, and percentiles are clamped to the exact maximum
/// anyway).
const HIGHEST_NS: u64 = 1 << 40;
/// The first value past the last bucket (hdrhistogram covers the whole
/// power of two the upper bound starts).
const BEYOND_NS: u64 = 1 << 41;

/// log2 of the sub-buckets of the first power of two (3 significant
/// digits: the smallest power of two above 2 × 10^3).
const SUB_BITS: u32 = 11;
/// Sub-buckets in the upper half of a power of two.
const HALF: usize = 1 << (SUB_BITS - 1);
/// Counters per lazily allocated chunk.
const CHUNK: usize = 256;
/// Buckets (counter indexes) of the values below [`BEYOND_NS`].
const BUCKETS: usize = bucket_of(BEYOND_NS - 1) + 1;
const CHUNKS: usize = BUCKETS.div_ceil(CHUNK);

/// The counter of `ns` (below [`BEYOND_NS`]): hdrhistogram's
/// `index_for` with a lowest discernible value of 1.
const fn bucket_of(ns: u64) -> usize {
    let mask = (1u64 << SUB_BITS) - 1;
    let power = (64 - SUB_BITS) - (ns | mask).leading_zeros();
    let sub = (ns >> power) as usize;
    ((power as usize + 1) << (SUB_BITS - 1)) + sub - HALF
}

/// The lowest value of counter `idx` and the width of its range.
fn bucket_range(idx: usize) -> (u64, u64) {
    let power = (idx >> (SUB_BITS - 1)) as i64 - 1;
    let sub = (idx & (HALF - 1)) as u64;
    if power < 0 {
        (sub, 1)
    } else {
        ((sub + HALF as u64) << power, 1 << power)
    }
}

/// fio's `plat_val_to_idx`: the bucket of a value in nanoseconds.
pub(crate) fn fio_bucket(ns: u64) -> usize {
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
pub(crate) fn fio_bucket_value(idx: usize) -> u64 {
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

/// A latency histogram in nanoseconds. Serialized as its total and the
/// counters that have a count (`(index, count)`, ascending).
#[derive(Clone, Serialize, Deserialize)]
#[serde(into = "HistWire", try_from = "HistWire")]
pub struct LatHist {
    /// Counters, [`CHUNK`] to a chunk; a chunk no latency fell in is absent.
    chunks: Box<[Option<Box<[u64; CHUNK]>>]>,
    total: u64,
}

impl Default for LatHist {
    fn default() -> LatHist {
        LatHist::new()
    }
}

impl std::fmt::Debug for LatHist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LatHist")
            .field("total", &self.total)
            .field("chunks", &self.chunks.iter().flatten().count())
            .finish()
    }
}

impl PartialEq for LatHist {
    fn eq(&self, other: &LatHist) -> bool {
        self.total == other.total && self.recorded().eq(other.recorded())
    }
}

/// [`LatHist`] as serialized.
#[derive(Serialize, Deserialize)]
struct HistWire {
    total: u64,
    counts: Vec<(u32, u64)>,
}

impl From<LatHist> for HistWire {
    fn from(h: LatHist) -> HistWire {
        let counts = h
            .chunks
            .iter()
            .enumerate()
            .filter_map(|(ci, c)| c.as_ref().map(|c| (ci, c)))
            .flat_map(|(ci, c)| {
                c.iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(move |(i, &n)| ((ci * CHUNK + i) as u32, n))
            })
            .collect();
        HistWire {
            total: h.total,
            counts,
        }
    }
}

impl TryFrom<HistWire> for LatHist {
    type Error = String;

    fn try_from(w: HistWire) -> Result<LatHist, String> {
        let mut h = LatHist::new();
        let mut sum = 0u64;
        for (idx, n) in w.counts {
            let idx = idx as usize;
            let Some(slot) = h.chunks.get_mut(idx / CHUNK) else {
                return Err(format!("latency histogram: no counter {idx}"));
            };
            let chunk = slot.get_or_insert_with(|| Box::new([0; CHUNK]));
            chunk[idx % CHUNK] = chunk[idx % CHUNK].saturating_add(n);
            sum = sum.saturating_add(n);
        }
        if sum != w.total {
            return Err(format!(
                "latency histogram: counters sum to {sum}, total {}",
                w.total
            ));
        }
        h.total = w.total;
        Ok(h)
    }
}

impl LatHist {
    /// An empty histogram covering 0 ns to about 18 minutes at 3
    /// significant digits. Recording allocates a chunk of counters the
    /// first time a latency falls in it (a bounded number of times over a
    /// job, never more than `CHUNKS`).
    pub fn new() -> LatHist {
        LatHist {
            chunks: (0..CHUNKS).map(|_| None).collect(),
            total: 0,
        }
    }

    /// Record one latency.
    #[inline(always)]
    pub fn record(&mut self, ns: u64) {
        self.record_n(ns, 1);
    }

    /// Record `n` latencies of the same value.
    #[inline(always)]
    pub fn record_n(&mut self, ns: u64, n: u64) {
        let idx = bucket_of(if ns < BEYOND_NS { ns } else { HIGHEST_NS });
        let chunk = self.chunks[idx / CHUNK].get_or_insert_with(|| Box::new([0; CHUNK]));
        let c = &mut chunk[idx % CHUNK];
        *c = c.saturating_add(n);
        self.total = self.total.saturating_add(n);
    }

    /// Number of recorded latencies.
    #[cfg(test)]
    pub(crate) fn len(&self) -> u64 {
        self.total
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Add another histogram's counts (group_reporting, mixed directions).
    pub fn merge(&mut self, other: &LatHist) {
        for (dst, src) in self.chunks.iter_mut().zip(other.chunks.iter()) {
            let Some(src) = src else { continue };
            let dst = dst.get_or_insert_with(|| Box::new([0; CHUNK]));
            for (d, s) in dst.iter_mut().zip(src.iter()) {
                *d = d.saturating_add(*s);
            }
        }
        self.total = self.total.saturating_add(other.total);
    }

    /// Every counter with a count, in ascending order: `(the lowest value
    /// of its range, the width of its range, count)`.
    fn recorded(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.chunks
            .iter()
            .enumerate()
            .filter_map(|(ci, c)| c.as_ref().map(|c| (ci, c)))
            .flat_map(|(ci, c)| {
                c.iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(move |(i, &n)| {
                        let (lo, width) = bucket_range(ci * CHUNK + i);
                        (lo, width, n)
                    })
            })
    }

    /// The percentiles of `list` (each in (0, 100]) by fio's rank rule,
    /// clamped to `[min, max]`, the exact extremes. Empty without samples.
    pub fn percentiles(&self, list: &[f64], min: u64, max: u64) -> Vec<u64> {
        let n = self.total;
        if n == 0 || list.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(list.len());
        let mut want = list.iter().copied().peekable();
        let mut cum = 0u64;
        for (lo, width, count) in self.recorded() {
            cum += count;
            // The middle of the counter's range (rounded up).
            let value = lo + (width >> 1);
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
    pub(crate) fn fio_buckets(&self, into: &mut [u64; PLAT_NR]) {
        into.fill(0);
        for (lo, _, count) in self.recorded() {
            into[fio_bucket(lo)] += count;
        }
    }

    /// JSON+ `bins`: `(bucket value in ns, count)` for every non-empty fio
    /// bucket, in ascending order.
    pub(crate) fn fio_bins(&self) -> Vec<(u64, u64)> {
        let mut bins: Vec<(u64, u64)> = Vec::new();
        let mut last_idx = usize::MAX;
        for (lo, _, count) in self.recorded() {
            let idx = fio_bucket(lo);
            if idx == last_idx {
                if let Some(b) = bins.last_mut() {
                    b.1 += count;
                }
            } else {
                bins.push((fio_bucket_value(idx), count));
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
    fn serialized_as_the_counters_with_a_count() {
        let mut h = LatHist::new();
        for ns in [0, 1, 999, 1_000, 123_456, 7_000_000_000, u64::MAX] {
            h.record_n(ns, ns % 5 + 1);
        }
        let text = serde_json::to_string(&h).unwrap();
        let back: LatHist = serde_json::from_str(&text).unwrap();
        assert_eq!(back, h);
        assert_eq!(back.fio_bins(), h.fio_bins());
        assert_eq!(back.len(), h.len());
        let bad = r#"{"total":3,"counts":[[1,1]]}"#;
        assert!(serde_json::from_str::<LatHist>(bad).is_err());
        let beyond = format!(r#"{{"total":1,"counts":[[{},1]]}}"#, u32::MAX);
        assert!(serde_json::from_str::<LatHist>(&beyond).is_err());
    }

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

    /// The old histogram: hdrhistogram with the same bounds.
    fn reference(vals: &[u64]) -> hdrhistogram::Histogram<u64> {
        let mut h = hdrhistogram::Histogram::new_with_bounds(1, HIGHEST_NS, 3).unwrap();
        h.auto(false);
        for &v in vals {
            h.saturating_record(v);
        }
        h
    }

    #[test]
    fn buckets_are_hdrhistograms() {
        // Every edge of every power of two, and values past the range.
        let mut vals = vec![0u64, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096];
        for p in 11..=41 {
            vals.extend([(1u64 << p) - 1, 1 << p, (1 << p) + 1, (3 << p) / 2]);
        }
        vals.extend([u64::MAX, u64::MAX / 3, HIGHEST_NS + 12345]);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..50_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.push(x >> (x % 60));
        }
        let r = reference(&vals);
        let mut h = LatHist::new();
        for &v in &vals {
            h.record(v);
        }
        assert_eq!(h.len(), r.len());
        let mine: Vec<_> = h.recorded().map(|(lo, w, n)| (lo, lo + w - 1, n)).collect();
        let theirs: Vec<_> = r
            .iter_recorded()
            .map(|v| {
                let hi = v.value_iterated_to();
                (r.lowest_equivalent(hi), hi, v.count_at_value())
            })
            .collect();
        assert_eq!(mine.len(), theirs.len());
        for (m, t) in mine.iter().zip(&theirs) {
            assert_eq!(m, t);
        }
        for v in r.iter_recorded() {
            let hi = v.value_iterated_to();
            let (lo, w) = bucket_range(bucket_of(hi));
            assert_eq!(lo + (w >> 1), r.median_equivalent(hi));
        }
        // A merge is the sum, whichever chunks each side has.
        let mut a = LatHist::new();
        let mut b = LatHist::new();
        for (i, &v) in vals.iter().enumerate() {
            if i % 3 == 0 {
                a.record(v)
            } else {
                b.record(v)
            }
        }
        a.merge(&b);
        assert_eq!(a, h);
        assert_ne!(a, b);
    }

    #[test]
    fn only_the_chunks_latencies_fall_in_are_allocated() {
        let mut h = LatHist::new();
        for v in 100_000..101_000u64 {
            h.record(v);
        }
        assert_eq!(h.chunks.iter().flatten().count(), 1);
        assert_eq!(h.clone().chunks.iter().flatten().count(), 1);
        assert_eq!(LatHist::new().chunks.len(), CHUNKS);
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
