//! What fio's client gathers from its servers for the report it prints at
//! the end (client.c): every statistics block a server sent, as the
//! [`Entry`] and group totals it decoded to, with the server it came from;
//! the servers' global options and disks; and the "All clients"
//! aggregate, summed as fio's `sum_thread_stats`/`sum_group_stats` do.

use super::config::Percentiles;
use super::disk::{DiskAgg, DiskUtil};
use super::info::OptionList;
use super::summary::{merge_dir, merge_hist, Entry, GroupDirRun, GroupRun};
use super::{StatsConfig, Unified};

/// Who sent a block: the host as given to `--client` and its port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    pub(crate) host: String,
    pub(crate) port: u16,
}

/// One statistics block (a TS): a job, or a server's group_reporting
/// group, or the "All clients" aggregate.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClientStat {
    pub(crate) entry: Entry,
    /// The totals of its group, as sent with it.
    pub(crate) group: GroupRun,
    /// Its `job options` (`None`: the key is left out, as for "All
    /// clients").
    pub(crate) options: Option<OptionList>,
    pub(crate) origin: Origin,
}

/// One disk a server reported.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClientDisk {
    pub(crate) disk: DiskUtil,
    /// Its slaves' aggregate, as sent.
    pub(crate) agg: Option<DiskAgg>,
    pub(crate) origin: Origin,
}

/// A moment as fio's client prints it: seconds since the epoch, and the
/// local time zone's offset from UTC then (seconds east).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Stamp {
    pub(crate) secs: i64,
    pub(crate) utc_offset: i64,
}

impl Stamp {
    /// `secs` since the epoch, in the local time zone.
    pub(crate) fn local(secs: i64) -> Stamp {
        Stamp {
            secs,
            utc_offset: super::report::local_utc_offset(secs),
        }
    }
}

/// Everything the JSON document of a client run holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ClientsReport {
    /// When the jobs were started (RUN sent).
    pub(crate) started: Stamp,
    /// Every server's global options, in arrival order (fio 3.33 puts
    /// them all in one object: several servers give duplicate keys).
    pub(crate) global_options: OptionList,
    /// From fio 3.39, with several servers: each server's global options
    /// instead (those that sent any), in the order of their first block.
    pub(crate) per_server: Option<Vec<(Origin, OptionList)>>,
    /// In arrival order; "All clients" where it was completed.
    pub(crate) stats: Vec<ClientStat>,
    pub(crate) disks: Vec<ClientDisk>,
    /// The fio release the client behaves as.
    pub(crate) release: crate::release::Release,
}

/// The name of the aggregate.
pub(crate) const ALL_CLIENTS: &str = "All clients";

/// The "All clients" sum (fio's `client_ts` and `client_gs`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AllClients {
    pub(crate) entry: Entry,
    pub(crate) group: GroupRun,
}

impl AllClients {
    /// fio's `init_thread_stat` and `init_group_run_stat`: all zero, no
    /// unit, no percentile.
    pub(crate) fn new() -> AllClients {
        let cfg = StatsConfig {
            kb_base: 0,
            unit_base: 0,
            sig_figs: 0,
            percentiles: Percentiles {
                slat: false,
                clat: false,
                lat: false,
                list: Vec::new(),
                precision: 0,
            },
            latency_percentile: 0.0,
            ..StatsConfig::default()
        };
        AllClients {
            entry: Entry::empty(ALL_CLIENTS.to_string(), u32::MAX, cfg),
            group: GroupRun {
                id: 0,
                dirs: [None; 3],
                kb_base: 0,
                unit_base: 0,
                sig_figs: 0,
                unified_bits: 0,
            },
        }
    }

    /// Add one block, as fio's `handle_ts`: the statistics summed, one more
    /// member (whatever the block's own count), and the block's thread
    /// number, group, reporting mode and significant figures taken.
    pub(crate) fn add(&mut self, e: &Entry, g: &GroupRun) {
        let dst = &mut self.entry;
        let mixed = dst.cfg.unified == Unified::Mixed;
        for (l, src) in e.dirs.iter().enumerate() {
            merge_dir(&mut dst.dirs[if mixed { 0 } else { l }], src);
        }
        dst.sync.ios = dst.sync.ios.wrapping_add(e.sync.ios);
        dst.sync.lat.merge(&e.sync.lat);
        merge_hist(&mut dst.sync.hist, &e.sync.hist);
        dst.cpu.merge(&e.cpu);
        dst.depth.merge(&e.depth);
        dst.lat_buckets.merge(&e.lat_buckets);
        dst.run_ms = dst.run_ms.wrapping_add(e.run_ms);
        dst.zone_resets = dst.zone_resets.wrapping_add(e.zone_resets);
        dst.members = dst.members.wrapping_add(1);
        dst.thread_number = e.thread_number;
        dst.group_id = e.group_id;
        dst.cfg.unified = e.cfg.unified;
        dst.cfg.sig_figs = e.cfg.sig_figs;
        sum_group(&mut self.group, g);
    }

    /// From fio 3.39, before the first block is summed: its percentile
    /// switches and list (not its precision), as fio's `handle_ts`.
    pub(crate) fn take_percentiles(&mut self, first: &Entry) {
        if self.entry.members != 0 {
            return;
        }
        let (dst, src) = (&mut self.entry.cfg.percentiles, &first.cfg.percentiles);
        dst.slat = src.slat;
        dst.clat = src.clat;
        dst.lat = src.lat;
        dst.list = src.list.clone();
    }

    /// What fio 3.33 leaves unset in the aggregate and rfio fills in: the
    /// units (fio prints `BW=16.5Mi (17.3M)` without `/s`) and the
    /// percentile settings, both from `like` (the last block's).
    pub(crate) fn fix_units_and_percentiles(&mut self, like: &StatsConfig) {
        let cfg = &mut self.entry.cfg;
        cfg.kb_base = like.kb_base;
        cfg.unit_base = like.unit_base;
        cfg.percentiles = like.percentiles.clone();
    }
}

/// fio's `sum_group_stats`: run times and bandwidths widened, bytes and
/// aggregate bandwidth summed, units taken from the first that has them.
pub(crate) fn sum_group(dst: &mut GroupRun, src: &GroupRun) {
    for (d, s) in dst.dirs.iter_mut().zip(&src.dirs) {
        let Some(s) = s else { continue };
        let d = d.get_or_insert(GroupDirRun {
            min_bw: u64::MAX,
            min_run: u64::MAX,
            ..GroupDirRun::default()
        });
        d.max_run = d.max_run.max(s.max_run);
        d.min_run = d.min_run.min(s.min_run);
        d.max_bw = d.max_bw.max(s.max_bw);
        d.min_bw = d.min_bw.min(s.min_bw);
        d.bytes = d.bytes.wrapping_add(s.bytes);
        d.agg = d.agg.wrapping_add(s.agg);
    }
    if dst.kb_base == 0 {
        dst.kb_base = src.kb_base;
    }
    if dst.unit_base == 0 {
        dst.unit_base = src.unit_base;
    }
    if dst.sig_figs == 0 {
        dst.sig_figs = src.sig_figs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{DirReport, LatAccum};

    fn block(read: u64, write: u64, members: u32) -> (Entry, GroupRun) {
        let mut all = AllClients::new();
        let e = &mut all.entry;
        e.name = "j".into();
        e.group_id = 0;
        e.members = members;
        e.cfg = StatsConfig::default();
        e.cfg.sig_figs = 4;
        let dir = |bytes: u64, clat: &[u64]| {
            let mut d = DirReport {
                bytes,
                ios: bytes / 4096,
                runtime_ms: if bytes > 0 { 10 } else { 0 },
                ..DirReport::default()
            };
            let mut a = LatAccum::default();
            for &v in clat {
                a.add(v);
            }
            d.clat = a;
            d
        };
        e.dirs[0] = dir(read, &[100, 300]);
        e.dirs[1] = dir(write, &[1000]);
        e.run_ms = 10;
        e.cpu.ctx = 3;
        let mut g = GroupRun {
            kb_base: 1024,
            unit_base: 8,
            sig_figs: 4,
            ..GroupRun::default()
        };
        for (d, bytes) in [(0, read), (1, write)] {
            if bytes > 0 {
                g.dirs[d] = Some(GroupDirRun {
                    bytes,
                    agg: bytes * 100,
                    min_bw: bytes * 100,
                    max_bw: bytes * 100,
                    min_run: 10,
                    max_run: 10,
                });
            }
        }
        (all.entry, g)
    }

    #[test]
    fn the_aggregate_sums_as_fio() {
        let mut all = AllClients::new();
        let (a, ga) = block(8192, 0, 4);
        let (b, gb) = block(4096, 4096, 1);
        all.add(&a, &ga);
        all.add(&b, &gb);
        let e = &all.entry;
        assert_eq!(e.name, ALL_CLIENTS);
        // One member per block, whatever the block's own count.
        assert_eq!(e.members, 2);
        assert_eq!(e.dirs[0].bytes, 12288);
        assert_eq!(e.dirs[0].ios, 3);
        assert_eq!(e.dirs[1].bytes, 4096);
        assert_eq!(e.dirs[0].clat.samples(), 4);
        assert_eq!(e.dirs[0].clat.summary().unwrap().mean, 200.0);
        assert_eq!(e.cpu.ctx, 6);
        assert_eq!(e.run_ms, 20);
        assert_eq!(e.pid, 0);
        assert_eq!(e.group_id, 0);
        // fio 3.33 copies no units and no percentile list.
        assert_eq!((e.cfg.kb_base, e.cfg.unit_base), (0, 0));
        assert!(!e.cfg.percentiles.clat && e.cfg.percentiles.list.is_empty());
        assert_eq!(e.cfg.sig_figs, 4);
        let g = &all.group;
        assert_eq!((g.kb_base, g.unit_base, g.sig_figs), (1024, 8, 4));
        let r = g.dirs[0].unwrap();
        assert_eq!(
            (r.bytes, r.agg, r.min_run, r.max_run),
            (12288, 1228800, 10, 10)
        );
        assert_eq!(g.dirs[1].unwrap().bytes, 4096);
        assert!(g.dirs[2].is_none());
        all.fix_units_and_percentiles(&b.cfg);
        assert_eq!((all.entry.cfg.kb_base, all.entry.cfg.unit_base), (1024, 8));
        assert!(all.entry.cfg.percentiles.clat);
    }
}
