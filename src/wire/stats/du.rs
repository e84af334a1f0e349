//! DU: fio's `cmd_du_pdu` (256 bytes, the same in every version): one
//! disk's counters over the run and, for a dm/md device, its slaves'
//! aggregate.

use crate::stats::disk::{DiskAgg, DiskCounters, DiskUtil};
use crate::wire::{BodyError, Le, Put};

/// fio's `disk_util_agg`: the slaves' sums (fio prints them divided by
/// `slavecount`) and their highest utilization.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct DuAgg {
    pub(crate) ios: [u64; 2],
    pub(crate) merges: [u64; 2],
    pub(crate) sectors: [u64; 2],
    pub(crate) ticks: [u64; 2],
    /// fio never fills it (0).
    pub(crate) io_ticks: u64,
    pub(crate) time_in_queue: u64,
    pub(crate) slavecount: u32,
    pub(crate) max_util: f64,
}

/// One DU body: the disk (without slaves: the wire has only their
/// aggregate) and the aggregate.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Du {
    pub(crate) disk: DiskUtil,
    pub(crate) agg: DuAgg,
}

impl Du {
    pub(crate) const LEN: usize = 256;

    /// The DU of `d`, its aggregate computed from its slaves as fio does.
    pub(crate) fn of(d: &DiskUtil) -> Du {
        let agg = d.aggregate().map_or(DuAgg::default(), |a| DuAgg {
            ios: a.ios,
            merges: a.merges,
            sectors: a.sectors,
            ticks: a.ticks,
            io_ticks: 0,
            time_in_queue: a.time_in_queue,
            slavecount: a.slaves.min(u64::from(u32::MAX)) as u32,
            max_util: a.max_util,
        });
        Du {
            disk: DiskUtil {
                slaves: Vec::new(),
                ..d.clone()
            },
            agg,
        }
    }

    /// The aggregate as rfio's printers take it; `None` without slaves.
    pub(crate) fn aggregate(&self) -> Option<DiskAgg> {
        let a = &self.agg;
        (a.slavecount > 0).then_some(DiskAgg {
            slaves: u64::from(a.slavecount),
            ios: a.ios,
            merges: a.merges,
            sectors: a.sectors,
            ticks: a.ticks,
            time_in_queue: a.time_in_queue,
            max_util: a.max_util,
        })
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut p = Put::zeroed(Self::LEN);
        let s = &self.disk.stats;
        p.cstr(0, 64, &self.disk.name);
        put_counters(&mut p, 64, s.ios, s.merges, s.sectors, s.ticks);
        p.u64(128, s.io_ticks);
        p.u64(136, s.time_in_queue);
        p.u64(144, self.disk.msec);
        let a = &self.agg;
        put_counters(&mut p, 152, a.ios, a.merges, a.sectors, a.ticks);
        p.u64(216, a.io_ticks);
        p.u64(224, a.time_in_queue);
        p.u32(232, a.slavecount);
        p.fp64(240, a.max_util);
        p.b
    }

    pub(crate) fn decode(b: &[u8]) -> Result<Du, BodyError> {
        let r = Le::new("DU", b, Self::LEN)?;
        let two = |at: usize| [r.u64(at), r.u64(at + 8)];
        Ok(Du {
            disk: DiskUtil {
                name: r.cstr(0, 64),
                stats: DiskCounters {
                    ios: two(64),
                    merges: two(80),
                    sectors: two(96),
                    ticks: two(112),
                    io_ticks: r.u64(128),
                    time_in_queue: r.u64(136),
                },
                msec: r.u64(144),
                slaves: Vec::new(),
            },
            agg: DuAgg {
                ios: two(152),
                merges: two(168),
                sectors: two(184),
                ticks: two(200),
                io_ticks: r.u64(216),
                time_in_queue: r.u64(224),
                slavecount: r.u32(232),
                max_util: r.fp64(240),
            },
        })
    }
}

fn put_counters(
    p: &mut Put,
    at: usize,
    ios: [u64; 2],
    merges: [u64; 2],
    sectors: [u64; 2],
    ticks: [u64; 2],
) {
    for (i, v) in [ios, merges, sectors, ticks].iter().enumerate() {
        p.u64(at + i * 16, v[0]);
        p.u64(at + i * 16 + 8, v[1]);
    }
}
