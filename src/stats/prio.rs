//! Latencies per I/O priority (fio's `struct clat_prio_stat`), kept by a
//! job with command priorities (`cmdprio_*`) and by a group whose members'
//! priorities differ.

use serde::{Deserialize, Serialize};

use super::hist::LatHist;
use super::lat::LatAccum;

/// The latencies of the I/Os of one priority: completion latencies, or
/// total latencies when the job reports `lat_percentiles` (the report then
/// says `lat prio`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClatPrio {
    /// The I/O priority: class << 13 | level.
    pub ioprio: u16,
    pub lat: LatAccum,
    /// For the percentiles (when the job reports clat or lat ones).
    pub hist: Option<Box<LatHist>>,
}

impl ClatPrio {
    /// No samples yet of priority `ioprio`.
    pub(crate) fn new(ioprio: u16) -> ClatPrio {
        ClatPrio {
            ioprio,
            lat: LatAccum::default(),
            hist: None,
        }
    }

    /// The priority class (fio's `ioprio_class`): 0 none, 1 real-time, 2
    /// best-effort, 3 idle.
    pub fn class(&self) -> u16 {
        self.ioprio >> 13
    }

    /// The level within the class (fio's `ioprio`).
    pub fn level(&self) -> u16 {
        self.ioprio & 7
    }

    /// The priority hint (fio's `ioprio_hint`: bits 3 to 12).
    pub fn hint(&self) -> u16 {
        (self.ioprio >> 3) & 0x3ff
    }
}

/// The priorities of `prios` that fio reports: those with samples, when
/// there are at least two of them (fio's `get_nr_prios_with_samples(..) >=
/// 2`); none otherwise.
pub(crate) fn reported_prios(prios: &[ClatPrio]) -> impl Iterator<Item = &ClatPrio> {
    let with_samples = prios.iter().filter(|p| p.lat.samples() > 0);
    let shown = with_samples.clone().count() >= 2;
    with_samples.filter(move |_| shown)
}
