//! A job's steady-state detection as it ended (fio's `steadystate_data`
//! copied into its `thread_stat`): the criterion, whether it was attained,
//! and the last `duration` measurements of IOPS and bandwidth.

use serde::{Deserialize, Serialize};

/// What the output formats print of a job's steady state.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SteadyStateReport {
    /// The criterion measures IOPS (else bandwidth, or latency).
    pub(crate) iops: bool,
    /// The criterion measures the mean completion latency (fio 3.42).
    #[serde(default)]
    pub(crate) lat: bool,
    /// A slope criterion (else the largest deviation from the mean).
    pub(crate) slope: bool,
    /// The limit and the criterion are percentages of the mean.
    pub(crate) pct: bool,
    pub(crate) limit: f64,
    /// Seconds of measurements kept (`ss_dur`).
    pub(crate) duration: u64,
    pub(crate) attained: bool,
    /// Every slot of the ring has held a measurement.
    pub(crate) buffer_full: bool,
    /// The ring's head (fio's `ss->head`).
    pub(crate) head: u32,
    /// The last slope and largest deviation computed, and the criterion
    /// compared with the limit (either, or a percentage of the mean).
    pub(crate) slope_value: f64,
    pub(crate) deviation: f64,
    pub(crate) criterion: f64,
    /// The ring of measurements, bytes/s and IOPS (`duration` slots).
    pub(crate) bw_data: Vec<u64>,
    pub(crate) iops_data: Vec<u64>,
    /// The mean completion latency (ns) of each slot, with `lat` only.
    #[serde(default)]
    pub(crate) lat_data: Vec<u64>,
}

impl SteadyStateReport {
    /// fio's `steadystate_bw_mean`: the integer mean of the slots.
    pub(crate) fn bw_mean(&self) -> u64 {
        mean(&self.bw_data)
    }

    /// fio's `steadystate_iops_mean`.
    pub(crate) fn iops_mean(&self) -> u64 {
        mean(&self.iops_data)
    }

    /// fio's `steadystate_lat_mean` (ns).
    pub(crate) fn lat_mean(&self) -> u64 {
        mean(&self.lat_data)
    }

    /// The slots oldest first, `(bw, iops, lat)`.
    pub(crate) fn in_order3(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.order().map(move |k| {
            let at = |v: &[u64]| v.get(k).copied().unwrap_or(0);
            (at(&self.bw_data), at(&self.iops_data), at(&self.lat_data))
        })
    }

    /// The slots oldest first, `(bw, iops)`, as fio's JSON lists them: the
    /// head is the oldest when the criterion was met or the ring never
    /// filled, else the slot before it.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn in_order(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.in_order3().map(|(b, i, _)| (b, i))
    }

    /// The ring's slots oldest first (fio's `intervals` of them: the
    /// ring's length; a job without a ring lists `duration` zeros).
    fn order(&self) -> impl Iterator<Item = usize> {
        let dur = match self.bw_data.len() {
            0 => self.duration as usize,
            n => n,
        };
        let head = self.head as usize;
        let first = if self.attained || !self.buffer_full {
            head
        } else if head == 0 {
            dur.saturating_sub(1)
        } else {
            head - 1
        };
        (0..dur).map(move |l| (first + l) % dur)
    }

    /// The criterion's name as fio's JSON `ss` gives it, with its limit
    /// (`iops_slope:0.010000%`; fio prints the limit as a C float).
    pub(crate) fn spec(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            self.measure(),
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.pct { "%" } else { "" }
        )
    }
}

impl SteadyStateReport {
    /// What the criterion measures: `iops`, `lat` or `bw`.
    pub(crate) fn measure(&self) -> &'static str {
        match (self.iops, self.lat) {
            (true, _) => "iops",
            (false, true) => "lat",
            _ => "bw",
        }
    }
}

/// The integer mean of the slots of `data` (0 without any).
fn mean(data: &[u64]) -> u64 {
    if data.is_empty() {
        return 0;
    }
    let sum = data.iter().fold(0u64, |s, v| s.wrapping_add(*v));
    sum / data.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(head: u32, attained: bool, full: bool) -> SteadyStateReport {
        SteadyStateReport {
            duration: 3,
            head,
            attained,
            buffer_full: full,
            bw_data: vec![10, 20, 30],
            iops_data: vec![1, 2, 3],
            ..Default::default()
        }
    }

    #[test]
    fn slots_come_oldest_first_as_fio_lists_them() {
        let order = |r: &SteadyStateReport| r.in_order().map(|(b, _)| b).collect::<Vec<_>>();
        assert_eq!(order(&ring(0, false, false)), [10, 20, 30]);
        assert_eq!(order(&ring(1, true, true)), [20, 30, 10]);
        // Full and not attained: the head moved one past the oldest.
        assert_eq!(order(&ring(1, false, true)), [10, 20, 30]);
        assert_eq!(order(&ring(0, false, true)), [30, 10, 20]);
    }

    #[test]
    fn means_and_the_spec_read_as_fio() {
        let r = ring(0, false, false);
        assert_eq!((r.bw_mean(), r.iops_mean()), (20, 2));
        let r = SteadyStateReport {
            iops: true,
            slope: true,
            pct: true,
            limit: 0.01,
            ..Default::default()
        };
        assert_eq!(r.spec(), "iops_slope:0.010000%");
        assert_eq!(r.bw_mean(), 0);
        let r = SteadyStateReport {
            limit: 1048576.0,
            ..Default::default()
        };
        assert_eq!(r.spec(), "bw:1048576.000000");
    }
}
