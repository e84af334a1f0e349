//! fio's distributions: I/O depth, submission and completion batch sizes
//! (`io_u_mark_depth`, `io_u_mark_submit`, `io_u_mark_complete`) and the
//! coarse completion-latency buckets (`io_u_mark_latency`), with the
//! percentage rule of `stat_calc_dist` / `stat_calc_lat`.

use serde::{Deserialize, Serialize};

/// Number of depth / batch classes (`FIO_IO_U_MAP_NR`).
pub(crate) const MAP_NR: usize = 7;
/// Nanosecond, microsecond and millisecond latency classes.
pub(crate) const LAT_N_NR: usize = 10;
pub(crate) const LAT_U_NR: usize = 10;
pub(crate) const LAT_M_NR: usize = 12;

/// Depth of the queue when an I/O was submitted: 1, 2-3, 4-7, 8-15, 16-31,
/// 32-63, >=64.
#[inline]
pub(crate) fn depth_class(depth: u32) -> usize {
    match depth {
        0 | 1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// Size of a submission or completion batch: 0, 1-4, 5-8, 9-16, 17-32,
/// 33-64, more.
#[inline]
pub(crate) fn batch_class(n: u32) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// The class of a value below 1000 in the 2, 4, 10, 20, 50, 100, 250, 500,
/// 750, 1000 ladder (each label the exclusive upper bound).
#[inline]
fn ladder(v: u64) -> usize {
    match v {
        0..=1 => 0,
        2..=3 => 1,
        4..=9 => 2,
        10..=19 => 3,
        20..=49 => 4,
        50..=99 => 5,
        100..=249 => 6,
        250..=499 => 7,
        500..=749 => 8,
        750..=999 => 9,
        1000..=1999 => 10,
        _ => 11,
    }
}

/// Completion latencies counted in fio's coarse classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LatBuckets {
    pub n: [u64; LAT_N_NR],
    pub u: [u64; LAT_U_NR],
    pub m: [u64; LAT_M_NR],
}

impl LatBuckets {
    /// Count one completion latency.
    #[inline]
    pub(crate) fn add(&mut self, ns: u64) {
        if ns < 1000 {
            self.n[ladder(ns)] += 1;
        } else if ns < 1_000_000 {
            self.u[ladder(ns / 1000)] += 1;
        } else {
            self.m[ladder(ns / 1_000_000)] += 1;
        }
    }

    pub(crate) fn merge(&mut self, o: &LatBuckets) {
        for (a, b) in self.n.iter_mut().zip(o.n) {
            *a += b;
        }
        for (a, b) in self.u.iter_mut().zip(o.u) {
            *a += b;
        }
        for (a, b) in self.m.iter_mut().zip(o.m) {
            *a += b;
        }
    }
}

/// Depth, submission and completion distributions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DepthMaps {
    /// I/Os by queue depth at submission.
    pub depth: [u64; MAP_NR],
    /// Submission calls by batch size, and their number.
    pub submit: [u64; MAP_NR],
    pub total_submit: u64,
    /// Completion calls (reaps) by batch size, and their number.
    pub complete: [u64; MAP_NR],
    pub total_complete: u64,
}

impl DepthMaps {
    pub(crate) fn merge(&mut self, o: &DepthMaps) {
        for i in 0..MAP_NR {
            self.depth[i] += o.depth[i];
            self.submit[i] += o.submit[i];
            self.complete[i] += o.complete[i];
        }
        self.total_submit += o.total_submit;
        self.total_complete += o.total_complete;
    }
}

/// `stat_calc_dist`: percentages of `total`, a non-zero share below 0.1
/// shown as 0.1, all 0 when `total` is 0.
pub(crate) fn dist_pct(map: &[u64], total: u64) -> Vec<f64> {
    map.iter()
        .map(|&c| {
            if total == 0 {
                return 0.0;
            }
            let p = c as f64 / total as f64 * 100.0;
            if p < 0.1 && c > 0 {
                0.1
            } else {
                p
            }
        })
        .collect()
}

/// `stat_calc_lat`: like [`dist_pct`] with a floor of 0.01.
pub(crate) fn lat_pct(map: &[u64], total: u64) -> Vec<f64> {
    map.iter()
        .map(|&c| {
            if total == 0 {
                return 0.0;
            }
            let p = c as f64 / total as f64 * 100.0;
            if p < 0.01 && c > 0 {
                0.01
            } else {
                p
            }
        })
        .collect()
}

/// `stat_calc_lat_nu` (terse only): the microsecond classes with every
/// sub-microsecond completion added to the first, `100*n/total` (NaN when
/// nothing completed, printed `-nan` by fio).
pub(crate) fn lat_pct_terse_us(b: &LatBuckets, total: u64) -> Vec<f64> {
    let mut v = lat_pct(&b.u, total);
    let ntotal: u64 = b.n.iter().sum();
    v[0] += 100.0 * ntotal as f64 / total as f64;
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_match_fio() {
        let mut b = LatBuckets::default();
        for ns in [
            0,
            1,
            9,
            10,
            19,
            20,
            999,
            1000,
            1999,
            999_999,
            1_000_000,
            2_500_000_000,
        ] {
            b.add(ns);
        }
        assert_eq!(b.n, [2, 0, 1, 2, 1, 0, 0, 0, 0, 1]);
        assert_eq!(b.u, [2, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(b.m[0], 1);
        assert_eq!(b.m[11], 1);
        assert_eq!(depth_class(1), 0);
        assert_eq!(depth_class(8), 3);
        assert_eq!(depth_class(64), 6);
        assert_eq!(batch_class(1), 1);
        assert_eq!(batch_class(65), 6);
    }

    #[test]
    fn percentages_have_floors() {
        assert_eq!(dist_pct(&[1, 9999], 10000), vec![0.1, 99.99]);
        assert_eq!(lat_pct(&[1, 0], 100_000), vec![0.01, 0.0]);
        assert_eq!(dist_pct(&[0, 0], 0), vec![0.0, 0.0]);
        let b = LatBuckets::default();
        assert!(lat_pct_terse_us(&b, 0)[0].is_nan());
    }
}
