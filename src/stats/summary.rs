//! What the output formats print: fio's "thread stats" (one per job, or one
//! per reporting group with `group_reporting`) and its per-group run
//! totals, as `__show_run_stats` builds them from the jobs' results and
//! report settings ([`JobReport::info`]).

use serde::{Deserialize, Serialize};

use super::config::{StatsConfig, Unified};
use super::cpu::CpuUsage;
use super::dist::{DepthMaps, LatBuckets};
use super::hist::LatHist;
use super::job::{DirReport, JobReport, SyncReport};
use super::lat::LatAccum;
pub(crate) use super::prio::{reported_prios, ClatPrio};
use super::steadystate::SteadyStateReport;

/// The group id of an entry fio counts but never fills (its `-1`).
pub(crate) const PLACEHOLDER_GROUP: u32 = u32::MAX;

/// The run totals of a group no job belongs to: what a placeholder entry
/// is printed against.
static NO_GROUP: GroupRun = GroupRun {
    id: PLACEHOLDER_GROUP,
    dirs: [None; 3],
    kb_base: 1024,
    unit_base: 8,
    sig_figs: 4,
    unified_bits: 0,
};

/// fio's `clat_prio_stat_add_samples`: add samples of priority `ioprio`
/// to `dst`, in the entry of that priority (appended when new); nothing
/// without samples.
fn add_prio_samples(dst: &mut Vec<ClatPrio>, ioprio: u16, lat: &LatAccum, hist: Option<&LatHist>) {
    if lat.samples() == 0 {
        return;
    }
    let i = match dst.iter().position(|p| p.ioprio == ioprio) {
        Some(i) => i,
        None => {
            dst.push(ClatPrio::new(ioprio));
            dst.len() - 1
        }
    };
    let p = &mut dst[i];
    p.lat.merge(lat);
    if let Some(h) = hist {
        match p.hist.as_mut() {
            Some(d) => d.merge(h),
            None => p.hist = Some(Box::new(h.clone())),
        }
    }
}

/// fio's `sum_clat_prio_stats` for one direction: the per-priority
/// latencies of a member (`src`, empty when it has none: then all its I/Os
/// are of its own priority `ioprio`, and its direction's latencies
/// `all`/`all_hist` count for that priority) added into `dst`.
fn sum_prios(
    dst: &mut Vec<ClatPrio>,
    src: &[ClatPrio],
    ioprio: u16,
    all: &LatAccum,
    all_hist: Option<&LatHist>,
) {
    if src.is_empty() {
        add_prio_samples(dst, ioprio, all, all_hist);
    } else if dst.is_empty() {
        // fio copies the member's whole table when there is none yet
        // (entries without samples included, which keeps their order).
        dst.extend_from_slice(src);
    } else {
        for p in src {
            add_prio_samples(dst, p.ioprio, &p.lat, p.hist.as_deref());
        }
    }
}

/// The latencies a direction's per-priority statistics count when it has
/// no table: total latencies with `lat_percentiles`, else completion ones.
fn prio_source(d: &DirReport, lat_percentiles: bool) -> (&LatAccum, Option<&LatHist>) {
    if lat_percentiles {
        (&d.lat, d.lat_hist.as_deref())
    } else {
        (&d.clat, d.clat_hist.as_deref())
    }
}

/// One reported entry: a job, or the members of a group merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The first member's name, group, pid and thread number.
    pub(crate) name: String,
    pub(crate) group_id: u32,
    pub(crate) pid: u32,
    /// The first member's `job_start` (ms since the Unix epoch).
    pub(crate) job_start_ms: u64,
    pub(crate) thread_number: u32,
    pub(crate) members: u32,
    /// The first member's error (or first nonzero one) and its text.
    pub(crate) error: i32,
    pub(crate) verror: String,
    /// Settings: units, reporting mode and description of the first
    /// member; percentile settings of the last (as fio).
    pub(crate) cfg: StatsConfig,
    /// Read, write, trim (with `unified_rw_reporting=mixed` all in `[0]`).
    pub(crate) dirs: [DirReport; 3],
    pub(crate) sync: SyncReport,
    pub(crate) lat_buckets: LatBuckets,
    pub(crate) depth: DepthMaps,
    pub(crate) cpu: CpuUsage,
    /// Sum of the members' run times, ms (`job_runtime`).
    pub(crate) run_ms: u64,
    pub(crate) total_err: u64,
    pub(crate) first_error: i32,
    /// The last member's latency target settings and depth.
    pub(crate) latency_depth: u32,
    /// Index in the report's jobs of the last member (its `job options`
    /// in JSON); `usize::MAX` for a placeholder, which has none.
    pub(crate) last_job: usize,
    /// The first member's own I/O priority (fio's `ts->ioprio`).
    pub(crate) ioprio: u16,
    /// Per direction (as [`Entry::dirs`]): latencies per I/O priority, in
    /// fio's order. Kept when a member used command priorities or the
    /// members' own priorities differ (fio's `!ts->disable_prio_stat`);
    /// reported when at least two priorities have samples
    /// ([`reported_prios`]).
    pub prios: [Vec<ClatPrio>; 3],
    /// The last member's steady state (fio copies each member's over the
    /// entry's: with `group_reporting` the last member's holds the
    /// group's measurements).
    pub(crate) steadystate: Option<SteadyStateReport>,
    /// Zones the members reset (`zonemode=zbd`).
    pub(crate) zone_resets: u64,
}

impl Entry {
    fn start(j: &JobReport, index: usize) -> Entry {
        Entry {
            name: j.info.name.clone(),
            group_id: j.info.group_id,
            pid: j.pid,
            job_start_ms: j.job_start_ms,
            thread_number: j.info.thread_number,
            members: 0,
            error: 0,
            verror: String::new(),
            cfg: j.info.stats.clone(),
            dirs: Default::default(),
            sync: SyncReport::default(),
            lat_buckets: LatBuckets::default(),
            depth: DepthMaps::default(),
            cpu: CpuUsage::default(),
            run_ms: 0,
            total_err: 0,
            first_error: 0,
            latency_depth: 0,
            last_job: index,
            ioprio: j.ioprio,
            prios: Default::default(),
            steadystate: None,
            zone_resets: 0,
        }
    }

    /// Add one member (fio's loop body of `__show_run_stats` and
    /// `sum_thread_stats`).
    fn add(&mut self, j: &JobReport, index: usize) {
        let cfg = &j.info.stats;
        self.cfg.percentiles = cfg.percentiles.clone();
        self.cfg.continue_on_error = cfg.continue_on_error;
        self.cfg.latency_target_ns = cfg.latency_target_ns;
        self.cfg.latency_window_us = cfg.latency_window_us;
        self.cfg.latency_percentile = cfg.latency_percentile;
        self.cfg.count_zone_resets |= cfg.count_zone_resets;
        self.last_job = index;
        self.total_err += j.total_err;
        self.first_error = j.first_error;
        if self.error == 0 {
            if j.error == 0 && cfg.continue_on_error && j.first_error != 0 {
                self.error = j.first_error;
                self.verror = j.error_msg.clone().unwrap_or_default();
            } else if j.error != 0 {
                self.error = j.error;
                self.verror = j.error_msg.clone().unwrap_or_default();
            }
        }
        self.latency_depth = j.latency_depth.unwrap_or(j.info.iodepth);
        let mixed = self.cfg.unified == Unified::Mixed;
        for (l, src) in j.dirs.iter().enumerate() {
            let dst = &mut self.dirs[if mixed { 0 } else { l }];
            merge_dir(dst, src);
        }
        self.sync.ios += j.sync.ios;
        self.sync.lat.merge(&j.sync.lat);
        merge_hist(&mut self.sync.hist, &j.sync.hist);
        self.cpu.merge(&j.cpu);
        self.depth.merge(&j.depth);
        self.lat_buckets.merge(&j.lat_buckets);
        self.run_ms += j.run_ms;
        self.zone_resets += j.zone_resets;
        self.members += 1;
        self.steadystate.clone_from(&j.steadystate);
    }

    /// The directions summed into one (`unified_rw_reporting=both`'s extra
    /// `mixed` block, fio's `gen_mixed_ddir_stats_from_ts`).
    pub(crate) fn mixed(&self) -> DirReport {
        let mut m = DirReport::default();
        for d in &self.dirs {
            merge_dir(&mut m, d);
        }
        m
    }

    /// The per-priority latencies of [`Entry::mixed`] (fio's
    /// `gen_mixed_ddir_stats_from_ts`, which sums them whether or not the
    /// entry keeps them: an entry without them gives one priority, which
    /// is not reported).
    pub fn mixed_prios(&self) -> Vec<ClatPrio> {
        let mut m = Vec::new();
        for (d, prios) in self.dirs.iter().zip(&self.prios) {
            let (all, hist) = prio_source(d, self.cfg.percentiles.lat);
            sum_prios(&mut m, prios, self.ioprio, all, hist);
        }
        m
    }

    /// fio's `sum_clat_prio_stats` of member `j` (whose own
    /// `lat_percentiles` is `lat_percentiles`) into this entry.
    fn add_prios(&mut self, j: &JobReport, lat_percentiles: bool) {
        let mixed = self.cfg.unified == Unified::Mixed;
        for (l, d) in j.dirs.iter().enumerate() {
            let src = j.prios.get(l).map_or(&[][..], |p| &p[..]);
            let (all, hist) = prio_source(d, lat_percentiles);
            let dst = &mut self.prios[if mixed { 0 } else { l }];
            sum_prios(dst, src, j.ioprio, all, hist);
        }
    }

    /// Completed I/Os over read, write and trim (fio's `ddir_rw_sum` of
    /// `total_io_u`, the denominator of the distributions).
    pub(crate) fn total_ios(&self) -> u64 {
        self.dirs.iter().map(|d| d.ios).sum()
    }

    /// One of the entries fio counts but never fills (see
    /// [`Summary::new`]): no name, group id `-1` (printed as 4294967295 in
    /// JSON, -1 in terse), all counters zero, no percentile list.
    fn placeholder() -> Entry {
        let mut cfg = StatsConfig::default();
        cfg.percentiles.slat = false;
        cfg.percentiles.clat = false;
        cfg.percentiles.lat = false;
        cfg.percentiles.list.clear();
        Entry::empty(String::new(), PLACEHOLDER_GROUP, cfg)
    }

    /// An entry named `name` of group `group_id` with settings `cfg`, every
    /// counter zero and no member yet.
    pub(crate) fn empty(name: String, group_id: u32, cfg: StatsConfig) -> Entry {
        Entry {
            name,
            group_id,
            pid: 0,
            job_start_ms: 0,
            thread_number: 0,
            members: 0,
            error: 0,
            verror: String::new(),
            cfg,
            dirs: Default::default(),
            sync: SyncReport::default(),
            lat_buckets: LatBuckets::default(),
            depth: DepthMaps::default(),
            cpu: CpuUsage::default(),
            run_ms: 0,
            total_err: 0,
            first_error: 0,
            latency_depth: 0,
            last_job: usize::MAX,
            ioprio: 0,
            prios: Default::default(),
            steadystate: None,
            zone_resets: 0,
        }
    }

    /// Whether this is an entry fio counts but never fills.
    pub(crate) fn is_placeholder(&self) -> bool {
        self.group_id == PLACEHOLDER_GROUP
    }

    /// Whether the entry moved anything (fio prints no normal block
    /// otherwise).
    pub(crate) fn did_io(&self) -> bool {
        self.dirs.iter().any(|d| d.bytes > 0 || d.ios > 0)
    }

    /// usr and sys CPU as a percentage of the run time.
    pub(crate) fn cpu_pct(&self) -> (f64, f64) {
        if self.run_ms == 0 {
            return (0.0, 0.0);
        }
        let r = self.run_ms as f64;
        (
            self.cpu.usr_ms as f64 * 100.0 / r,
            self.cpu.sys_ms as f64 * 100.0 / r,
        )
    }
}

/// Add direction `src` into `dst`: counts and bytes summed, runtime the
/// longest, latencies pooled, bandwidth/IOPS samples summed field by field.
pub(crate) fn merge_dir(dst: &mut DirReport, src: &DirReport) {
    dst.bytes += src.bytes;
    dst.ios += src.ios;
    dst.short_ios += src.short_ios;
    dst.drop_ios += src.drop_ios;
    dst.runtime_ms = dst.runtime_ms.max(src.runtime_ms);
    let per_sec = |n: u64| {
        n.saturating_mul(1000)
            .checked_div(dst.runtime_ms)
            .unwrap_or(0)
    };
    dst.bw = per_sec(dst.bytes);
    dst.iops = per_sec(dst.ios);
    dst.slat.merge(&src.slat);
    dst.clat.merge(&src.clat);
    dst.lat.merge(&src.lat);
    merge_hist(&mut dst.slat_hist, &src.slat_hist);
    merge_hist(&mut dst.clat_hist, &src.clat_hist);
    merge_hist(&mut dst.lat_hist, &src.lat_hist);
    dst.bw_samples.sum(&src.bw_samples);
    dst.iops_samples.sum(&src.iops_samples);
}

pub(crate) fn merge_hist(dst: &mut Option<Box<LatHist>>, src: &Option<Box<LatHist>>) {
    if let Some(s) = src {
        match dst {
            Some(d) => d.merge(s),
            None => *dst = Some(s.clone()),
        }
    }
}

/// One direction of a group's run totals (fio's `group_run_stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(crate) struct GroupDirRun {
    pub(crate) bytes: u64,
    /// `bytes * 1000 / max_run` B/s.
    pub(crate) agg: u64,
    /// Slowest and fastest entry's bandwidth, B/s.
    pub(crate) min_bw: u64,
    pub(crate) max_bw: u64,
    pub(crate) min_run: u64,
    pub(crate) max_run: u64,
}

/// A reporting group's totals ("Run status group N").
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct GroupRun {
    pub(crate) id: u32,
    /// Per direction; `None` when no entry of the group ran it.
    pub(crate) dirs: [Option<GroupDirRun>; 3],
    /// Units of the group's last entry.
    pub(crate) kb_base: u32,
    pub(crate) unit_base: u32,
    pub(crate) sig_figs: usize,
    /// fio ORs the entries' `unified_rw_reporting` (1 mixed, 2 both).
    pub(crate) unified_bits: u8,
}

impl GroupRun {
    /// The aggregate bandwidth of direction `d`, 0 when not run.
    pub(crate) fn agg(&self, d: usize) -> u64 {
        self.dirs[d].map_or(0, |g| g.agg)
    }
}

/// Everything printed after a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub entries: Vec<Entry>,
    /// One per group id, 0 to the highest.
    pub(crate) groups: Vec<GroupRun>,
    /// Notices fio prints while summing (`fio: kb_base differs for jobs in
    /// group, ...`); fio puts them on stdout, rfio's caller on stderr.
    pub(crate) warnings: Vec<String>,
}

impl Summary {
    /// Merge `jobs` (a run's, in plan order) as fio does: a job with
    /// `group_reporting` joins the previous entry when that one is of the
    /// same group; jobs with `stats=0` are left out. Each job's settings
    /// are its [`JobReport::info`].
    ///
    /// fio sizes its array of entries before merging, by a count that
    /// disagrees with the merge: it counts every job without
    /// `group_reporting` (`stats=0` ones too), and a `group_reporting` job
    /// joining a job without it. The entries it never fills are printed
    /// anyway, empty, after the others (terse and JSON show them; the normal
    /// output skips them, as every entry without I/O); so does rfio.
    pub fn new(jobs: &[JobReport]) -> Summary {
        let mut entries: Vec<Entry> = Vec::new();
        // The indices of each entry's members.
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut warnings: Vec<String> = Vec::new();
        let mut last_group: Option<u32> = None;
        for (i, j) in jobs.iter().enumerate() {
            if !j.info.stats.stats {
                continue;
            }
            let group_id = j.info.group_id;
            let join =
                !entries.is_empty() && j.info.group_reporting && last_group == Some(group_id);
            last_group = Some(group_id);
            if !join {
                entries.push(Entry::start(j, i));
                members.push(Vec::new());
            }
            if let Some(m) = members.last_mut() {
                m.push(i);
            }
            let Some(e) = entries.last_mut() else {
                continue;
            };
            if join {
                let c = &j.info.stats;
                for (what, ours, theirs) in [
                    ("kb_base", e.cfg.kb_base, c.kb_base),
                    ("unit_base", e.cfg.unit_base, c.unit_base),
                ] {
                    let msg =
                        format!("fio: {what} differs for jobs in group, using {ours} as the base");
                    if ours != theirs && !warnings.contains(&msg) {
                        warnings.push(msg);
                    }
                }
            }
            e.add(j, i);
        }
        // fio's init_per_prio_stats, then sum_clat_prio_stats per member.
        for (e, m) in entries.iter_mut().zip(&members) {
            let members = || m.iter().map(|&i| &jobs[i]);
            let keep = members().any(|j| j.ioprio != e.ioprio)
                || members().any(|j| j.prios.iter().any(|p| !p.is_empty()));
            if !keep {
                continue;
            }
            for j in members() {
                e.add_prios(j, j.info.stats.percentiles.lat);
            }
        }
        let unfilled = fio_entry_count(jobs).saturating_sub(entries.len());
        entries.extend((0..unfilled).map(|_| Entry::placeholder()));
        let ngroups = jobs.iter().map(|j| j.info.group_id + 1).max().unwrap_or(0);
        let mut groups: Vec<GroupRun> = (0..ngroups)
            .map(|id| GroupRun {
                id,
                kb_base: 1024,
                unit_base: 8,
                sig_figs: 4,
                ..GroupRun::default()
            })
            .collect();
        for e in entries.iter().filter(|e| !e.is_placeholder()) {
            let g = &mut groups[e.group_id as usize];
            g.kb_base = e.cfg.kb_base;
            g.unit_base = e.cfg.unit_base;
            g.sig_figs = e.cfg.sig_figs;
            g.unified_bits |= match e.cfg.unified {
                Unified::None => 0,
                Unified::Mixed => 1,
                Unified::Both => 2,
            };
            for (d, dir) in e.dirs.iter().enumerate() {
                if dir.runtime_ms == 0 {
                    continue;
                }
                let gd = g.dirs[d].get_or_insert(GroupDirRun {
                    min_bw: u64::MAX,
                    min_run: u64::MAX,
                    ..GroupDirRun::default()
                });
                gd.min_run = gd.min_run.min(dir.runtime_ms);
                gd.max_run = gd.max_run.max(dir.runtime_ms);
                let bw = dir.bytes.saturating_mul(1000) / dir.runtime_ms;
                gd.min_bw = gd.min_bw.min(bw);
                gd.max_bw = gd.max_bw.max(bw);
                gd.bytes += dir.bytes;
            }
        }
        for g in &mut groups {
            for gd in g.dirs.iter_mut().flatten() {
                gd.agg = gd.bytes.saturating_mul(1000) / gd.max_run;
            }
        }
        Summary {
            entries,
            groups,
            warnings,
        }
    }

    /// The run totals of `e`'s group (empty ones for a placeholder).
    pub(crate) fn group_of(&self, e: &Entry) -> &GroupRun {
        self.groups.get(e.group_id as usize).unwrap_or(&NO_GROUP)
    }
}

/// How many entries fio allocates (`nr_ts` in `__show_run_stats`): one
/// per job without `group_reporting`, whatever its `stats`; one per group
/// for its `group_reporting` jobs with `stats=1`, whatever jobs without
/// `group_reporting` come between them.
fn fio_entry_count(jobs: &[JobReport]) -> usize {
    let mut n = 0;
    let mut last_group: Option<u32> = None;
    for job in jobs.iter().map(|j| &j.info) {
        if !job.group_reporting {
            n += 1;
        } else if last_group != Some(job.group_id) && job.stats.stats {
            last_group = Some(job.group_id);
            n += 1;
        }
    }
    n
}
