//! One unit per metric across a page: every chart of a latency (clat,
//! lat, slat) and of bandwidth is in the unit fio would print the
//! largest value of that metric over all the page's series in, so that
//! read and write, or two runs, never read in different units.

use std::collections::BTreeMap;

use super::axis::{bw_unit, lat_unit};

/// The largest value seen per metric: latencies in ns by kind, bandwidth
/// in KiB/s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Units {
    lat_ns: BTreeMap<String, f64>,
    bw_kib: f64,
}

impl Units {
    /// A latency of `kind` (`clat`, `lat`, `slat`) of `ns`.
    pub fn see_lat(&mut self, kind: &str, ns: f64) {
        let top = self.lat_ns.entry(kind.to_string()).or_insert(0.0);
        *top = top.max(ns);
    }

    pub fn see_bw(&mut self, kib: f64) {
        self.bw_kib = self.bw_kib.max(kib);
    }

    /// The unit of latencies of `kind` and its size in ns.
    pub fn lat(&self, kind: &str) -> (&'static str, f64) {
        lat_unit(self.lat_ns.get(kind).copied().unwrap_or(0.0))
    }

    /// The unit of bandwidths and its size in KiB/s.
    pub fn bw(&self) -> (&'static str, f64) {
        bw_unit(self.bw_kib)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_value_picks_the_unit() {
        let mut u = Units::default();
        u.see_lat("clat", 20_000.0);
        u.see_lat("clat", 30e6);
        u.see_lat("slat", 900.0);
        u.see_bw(2000.0);
        assert_eq!(u.lat("clat"), ("msec", 1e6));
        assert_eq!(u.lat("slat"), ("nsec", 1.0));
        assert_eq!(u.lat("lat"), ("nsec", 1.0));
        assert_eq!(u.bw(), ("KiB/s", 1.0));
    }
}
