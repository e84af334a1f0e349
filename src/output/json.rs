//! fio's JSON and JSON+ output (`stat.c` `__show_run_stats`,
//! `show_thread_status_json`, `add_ddir_status_json`, `add_ddir_lat_json`,
//! `json_array_add_disk_util`), fio 3.33 key names and order.
//!
//! JSON+ adds, to every latency object that has percentiles, the `bins`
//! of fio's log-linear histogram (bucket value in ns → count).
//!
//! A pure function of the [`RunReport`]: the `global options` and each
//! job's `job options` are the `(name, value)` pairs the plan put in it.

use std::io::{self, Write};

use super::jsonw::{Json, Obj};
use super::normal::{agg_percent, ctime};
use crate::release::{Change, Release};
use crate::stats::disk::DiskAgg;
use crate::stats::dist::{dist_pct, lat_pct};
use crate::stats::summary::{reported_prios, ClatPrio, Entry, GroupRun};
use crate::stats::{DirReport, DiskUtil, LatAccum, LatHist, OptionList, RunReport, Unified};

/// Write the JSON document (`plus`: JSON+) of a run.
pub(crate) fn write(report: &RunReport, plus: bool, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(render(report, plus).as_bytes())
}

/// The JSON document (`plus`: JSON+) of a run.
pub fn render(report: &RunReport, plus: bool) -> String {
    let summary = &report.summary;
    let mut root = Obj::new();
    root.str("fio version", report.release.name())
        .int("timestamp", report.finished_at)
        .int("timestamp_ms", report.finished_ms)
        .str("time", ctime(report.finished_at, report.utc_offset));
    if !report.global_options.is_empty() {
        root.obj("global options", options_obj(&report.global_options));
    }
    let jobs = summary
        .entries
        .iter()
        .map(|e| {
            let g = summary.group_of(e);
            Json::Obj(job_obj(report, e, g, plus))
        })
        .collect();
    root.arr("jobs", jobs);
    if !report.disks.is_empty() {
        root.arr(
            "disk_util",
            report
                .disks
                .iter()
                .map(|d| Json::Obj(disk_obj_with(d, d.aggregate(), report.release)))
                .collect(),
        );
    }
    if let Some(idle) = &report.idle {
        root.obj("cpu_idleness", super::idle::json(idle));
    }
    // `--repeat` (rfio's own): after fio's keys.
    if let Some(r) = &report.repeat {
        root.obj("repeat", super::repeat::json(r));
    }
    // `--baseline-compare` (rfio's own): the verdicts, last.
    if let Some(c) = &report.baseline {
        root.obj("baseline", super::baseline::json(c));
    }
    root.to_document_with(report.release.has(Change::JsonEmptyStrings))
}

pub(crate) fn options_obj(opts: &OptionList) -> Obj<'_> {
    let mut o = Obj::new();
    for (name, value) in opts.iter() {
        o.str(name, value);
    }
    o
}

/// The `eta` fio reports once every job has ended (a report taken while
/// they run carries theirs, [`RunReport::eta_sec`]): its ETA computation
/// (`calc_thread_status`) leaves INT_MAX until `elapsed` (whole seconds
/// since start, rounded up) reaches 3, and then asks each job, which says 0
/// once it has exited.
fn eta_after_run(elapsed_sec: u64) -> i64 {
    if elapsed_sec >= 3 {
        0
    } else {
        i32::MAX.into()
    }
}

fn job_obj<'a>(report: &'a RunReport, e: &'a Entry, g: &GroupRun, plus: bool) -> Obj<'a> {
    let elapsed = report.elapsed_ms.div_ceil(1000);
    let mut o = Obj::new();
    o.str("jobname", &e.name).int("groupid", e.group_id);
    if report.release.has(Change::JsonJobStart) {
        o.int("job_start", e.job_start_ms);
    }
    o.int("error", e.error)
        .int(
            "eta",
            report
                .eta_sec
                .map_or(i128::from(eta_after_run(elapsed)), i128::from),
        )
        .int("elapsed", elapsed);
    if let Some(job) = report.jobs.get(e.last_job) {
        if !job.info.options.is_empty() {
            o.obj("job options", options_obj(&job.info.options));
        }
    }
    let block = super::blocks::json(report, e);
    entry_body(&mut o, e, g, plus, block, report.release);
    o
}

/// A statistics block as fio's client prints one a server sent
/// (`client_stats`): no `eta` and `elapsed` (the client runs no job), its
/// `job options` when given, no block states.
pub(crate) fn client_entry<'a>(
    e: &'a Entry,
    g: &GroupRun,
    options: Option<&'a OptionList>,
    plus: bool,
    release: Release,
) -> Obj<'a> {
    let mut o = Obj::new();
    o.str("jobname", &e.name).int("groupid", e.group_id);
    if release.has(Change::JsonJobStart) {
        o.int("job_start", e.job_start_ms);
    }
    o.int("error", e.error);
    if let Some(opts) = options.filter(|o| !o.is_empty()) {
        o.obj("job options", options_obj(opts));
    }
    entry_body(&mut o, e, g, plus, None, release);
    o
}

/// Everything of a job object after its name, group, error, ETA and
/// options: the directions, CPU, depths, latency classes, and the rest.
fn entry_body<'a>(
    o: &mut Obj<'a>,
    e: &'a Entry,
    g: &GroupRun,
    plus: bool,
    block: Option<Obj<'static>>,
    release: Release,
) {
    let p = &e.cfg.percentiles;
    if e.cfg.unified == Unified::Mixed {
        o.obj(
            "mixed",
            dir_obj(e, g, &e.dirs[0], &e.prios[0], 0, plus, release),
        );
    } else {
        for (d, name) in ["read", "write", "trim"].iter().enumerate() {
            o.obj(
                *name,
                dir_obj(e, g, &e.dirs[d], &e.prios[d], d, plus, release),
            );
        }
        let mut sync = Obj::new();
        sync.int("total_ios", e.sync.ios).obj(
            "lat_ns",
            lat_obj(
                &e.sync.lat,
                e.sync.hist.as_deref(),
                p.lat || p.clat,
                e,
                plus,
            ),
        );
        o.obj("sync", sync);
        if e.cfg.unified == Unified::Both {
            o.obj(
                "mixed",
                dir_obj(e, g, &e.mixed(), &e.mixed_prios(), 0, plus, release),
            );
        }
    }
    let (usr, sys) = e.cpu_pct();
    o.int("job_runtime", e.run_ms)
        .float("usr_cpu", usr)
        .float("sys_cpu", sys)
        .int("ctx", e.cpu.ctx)
        .int("majf", e.cpu.majf)
        .int("minf", e.cpu.minf);
    let total = e.total_ios();
    let pct_obj = |keys: &[&'static str], vals: Vec<f64>| {
        let mut m = Obj::new();
        for (k, v) in keys.iter().zip(vals) {
            m.float(*k, v);
        }
        m
    };
    let depth_keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let batch_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    o.obj(
        "iodepth_level",
        pct_obj(&depth_keys, dist_pct(&e.depth.depth, total)),
    );
    o.obj(
        "iodepth_submit",
        pct_obj(&batch_keys, dist_pct(&e.depth.submit, e.depth.total_submit)),
    );
    o.obj(
        "iodepth_complete",
        pct_obj(
            &batch_keys,
            dist_pct(&e.depth.complete, e.depth.total_complete),
        ),
    );
    let lat_keys = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    o.obj(
        "latency_ns",
        pct_obj(&lat_keys[..10], lat_pct(&e.lat_buckets.n, total)),
    );
    o.obj(
        "latency_us",
        pct_obj(&lat_keys[..10], lat_pct(&e.lat_buckets.u, total)),
    );
    o.obj(
        "latency_ms",
        pct_obj(&lat_keys, lat_pct(&e.lat_buckets.m, total)),
    );
    if e.cfg.continue_on_error {
        o.int("total_err", e.total_err)
            .int("first_error", e.first_error);
    }
    if e.latency_depth != 0 {
        // 3.42 repeats the target and window under names with their units.
        let units = release.has(Change::LatencyTargetUnits);
        o.int("latency_depth", e.latency_depth)
            .int("latency_target", e.cfg.latency_target_ns);
        if units {
            o.int("latency_target_ns", e.cfg.latency_target_ns);
        }
        o.float("latency_percentile", e.cfg.latency_percentile)
            .int("latency_window", e.cfg.latency_window_us);
        if units {
            o.int("latency_window_us", e.cfg.latency_window_us);
        }
    }
    if let Some(d) = &e.cfg.description {
        o.str("desc", d);
    }
    if let Some(b) = block {
        o.obj("block", b);
    }
    super::steadystate::add_json(o, e);
    if release.has(Change::ZoneResetsOnlyZbd) && e.cfg.count_zone_resets {
        o.int("zone_resets", e.zone_resets);
    }
}

fn dir_obj(
    e: &Entry,
    g: &GroupRun,
    r: &DirReport,
    prios: &[ClatPrio],
    gd: usize,
    plus: bool,
    release: Release,
) -> Obj<'static> {
    let bw_bytes = r
        .bytes
        .saturating_mul(1000)
        .checked_div(r.runtime_ms)
        .unwrap_or(0);
    let iops = match r.runtime_ms {
        0 => 0.0,
        ms => 1000.0 * r.ios as f64 / ms as f64,
    };
    let p = &e.cfg.percentiles;
    let mut o = Obj::new();
    o.int("io_bytes", r.bytes)
        .int("io_kbytes", r.bytes >> 10)
        .int("bw_bytes", bw_bytes)
        .int("bw", bw_bytes / 1024)
        .float("iops", iops)
        .int("runtime", r.runtime_ms)
        .int("total_ios", r.ios)
        .int("short_ios", r.short_ios)
        .int("drop_ios", r.drop_ios)
        .obj(
            "slat_ns",
            lat_obj(&r.slat, r.slat_hist.as_deref(), p.slat, e, plus),
        )
        .obj(
            "clat_ns",
            lat_obj(&r.clat, r.clat_hist.as_deref(), p.clat, e, plus),
        )
        .obj(
            "lat_ns",
            lat_obj(&r.lat, r.lat_hist.as_deref(), p.lat, e, plus),
        );
    // Per priority, when at least two had I/O: completion latencies, or
    // total ones with lat_percentiles.
    if reported_prios(prios).next().is_some() {
        let name = if p.lat { "lat_ns" } else { "clat_ns" };
        let list = reported_prios(prios)
            .map(|prio| {
                let mut po = Obj::new();
                po.int("prioclass", prio.class()).int("prio", prio.level());
                if release.has(Change::PrioHint) {
                    po.int("priohint", prio.hint());
                }
                po.obj(
                    name,
                    lat_obj(&prio.lat, prio.hist.as_deref(), p.clat || p.lat, e, plus),
                );
                Json::Obj(po)
            })
            .collect();
        o.arr("prios", list);
    }
    match r.bw_samples.summary() {
        Some(s) => {
            o.int("bw_min", s.min)
                .int("bw_max", s.max)
                .float("bw_agg", agg_percent(g, gd, s.mean))
                .float("bw_mean", s.mean)
                .float("bw_dev", s.stddev)
                .int("bw_samples", s.samples);
        }
        None => {
            o.int("bw_min", 0)
                .int("bw_max", 0)
                .float("bw_agg", 0.0)
                .float("bw_mean", 0.0)
                .float("bw_dev", 0.0)
                .int("bw_samples", 0);
        }
    }
    let s = r.iops_samples.summary();
    o.int("iops_min", s.map_or(0, |s| s.min))
        .int("iops_max", s.map_or(0, |s| s.max))
        .float("iops_mean", s.map_or(0.0, |s| s.mean))
        .float("iops_stddev", s.map_or(0.0, |s| s.stddev))
        .int("iops_samples", s.map_or(0, |s| s.samples));
    o
}

/// `add_ddir_lat_json`: min, max, mean, stddev, N, and with percentiles
/// enabled and samples present the `percentile` map (and JSON+ `bins`).
fn lat_obj(a: &LatAccum, hist: Option<&LatHist>, pct: bool, e: &Entry, plus: bool) -> Obj<'static> {
    let mut o = Obj::new();
    let s = a.summary();
    o.int("min", s.map_or(0, |s| s.min))
        .int("max", s.map_or(0, |s| s.max))
        .float("mean", s.map_or(0.0, |s| s.mean))
        .float("stddev", s.map_or(0.0, |s| s.stddev))
        .int("N", a.samples());
    if let (true, Some(s)) = (pct, s) {
        let list = &e.cfg.percentiles.list;
        let vals = match hist {
            Some(h) if !h.is_empty() => h.percentiles(list, s.min, s.max),
            _ => vec![0; list.len()],
        };
        let mut m = Obj::new();
        for (p, v) in list.iter().zip(vals) {
            m.int(format!("{p:.6}"), v);
        }
        o.obj("percentile", m);
        if plus {
            let mut b = Obj::new();
            if let Some(h) = hist {
                for (value, count) in h.fio_bins() {
                    b.int(value.to_string(), count);
                }
            }
            o.obj("bins", b);
        }
    }
    o
}

/// A disk's object, with its slaves' aggregate `agg` (a client has the
/// aggregate a server sent, not the slaves), as `release` prints it.
pub(crate) fn disk_obj_with(d: &DiskUtil, agg: Option<DiskAgg>, release: Release) -> Obj<'_> {
    let s = &d.stats;
    let sectors = release.has(Change::DiskSectors);
    let mut o = Obj::new();
    o.str("name", &d.name)
        .int("read_ios", s.ios[0])
        .int("write_ios", s.ios[1]);
    if sectors {
        o.int("read_sectors", s.sectors[0])
            .int("write_sectors", s.sectors[1]);
    }
    o.int("read_merges", s.merges[0])
        .int("write_merges", s.merges[1])
        .int("read_ticks", s.ticks[0])
        .int("write_ticks", s.ticks[1])
        .int("in_queue", s.time_in_queue)
        .float("util", d.util());
    if let Some(a) = agg {
        let n = a.slaves;
        o.int("aggr_read_ios", a.ios[0] / n)
            .int("aggr_write_ios", a.ios[1] / n);
        if sectors {
            o.int("aggr_read_sectors", a.sectors[0] / n)
                .int("aggr_write_sectors", a.sectors[1] / n);
        }
        o.int("aggr_read_merges", a.merges[0] / n)
            .int("aggr_write_merge", a.merges[1] / n)
            .int("aggr_read_ticks", a.ticks[0] / n)
            .int("aggr_write_ticks", a.ticks[1] / n)
            .int("aggr_in_queue", a.time_in_queue / n)
            .float("aggr_util", a.max_util);
    }
    o
}
