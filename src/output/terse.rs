//! fio's terse ("minimal") output, versions 2 to 5 (`stat.c`
//! `show_thread_status_terse_all`, `show_ddir_status_terse`,
//! `print_disk_util`), one `;`-separated line per reported entry.
//!
//! Field layout (fio 3.33; `$N` as awk counts them, v3):
//!
//! | fields | content |
//! |---|---|
//! | header | v2: `2;name;groupid;error` (4); v3-v5: `ver;fio-3.33;name;groupid;error` (5) |
//! | per direction | read, write (not with `unified_rw_reporting=mixed`), trim (v2, v4, v5 only), then `mixed` with `=both` |
//! | direction block (41; v5 47) | `io_kbytes;bw_KiB/s;iops;runtime_ms`, `slat min;max;mean;stddev` (µs), `clat min;max;mean;stddev`, 20 percentile slots `p%=µs` (unused `0%=0`), `lat min;max;mean;stddev`, `bw min;max;agg%;mean;stddev`; v5 adds `bw_samples;iops min;max;mean;stddev;samples` |
//! | cpu (5) | `usr%;sys%;ctx;majf;minf` |
//! | IO depths (7) | `1;2;4;8;16;32;>=64` (`%3.1f%%`) |
//! | latency µs (10) | `2;4;10;20;50;100;250;500;750;1000` (`%3.2f%%`; the first also holds every sub-µs completion) |
//! | latency ms (12) | `2;4;10;20;50;100;250;500;750;1000;2000;>=2000` |
//! | per disk (v3+, 9) | `name;read_ios;write_ios;read_merges;write_merges;read_ticks;write_ticks;in_queue;util%` (+9 `slaves;…` for dm/md) |
//! | `continue_on_error` (2) | `total_err;first_error` |
//! | description (1) | the job's description (v2: on a second line starting with `;`) |
//!
//! So v3 has 121 fields plus 9 per disk (130 with one disk); v2 161, v4
//! 162, v5 180 (plus disks for v4/v5).
//!
//! A pure function of the [`RunReport`]: its summary's entries, one line
//! each ([`write()`]).

use crate::release::Release;
use std::io::{self, Write};

use super::cfmt::f;
use crate::stats::config::MAX_PERCENTILES;
use crate::stats::disk::DiskAgg;
use crate::stats::dist::{dist_pct, lat_pct, lat_pct_terse_us};
use crate::stats::summary::{Entry, GroupRun};
use crate::stats::{DirReport, DiskUtil, LatAccum, RunReport, Unified};

/// Names of the fields of one direction block, in order (`dir_` prefix
/// added by [`field_names`]).
fn dir_field_names(version: u8) -> Vec<String> {
    let mut v: Vec<String> = [
        "io_kbytes",
        "bw",
        "iops",
        "runtime_ms",
        "slat_min_us",
        "slat_max_us",
        "slat_mean_us",
        "slat_stddev_us",
        "clat_min_us",
        "clat_max_us",
        "clat_mean_us",
        "clat_stddev_us",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for i in 1..=MAX_PERCENTILES {
        v.push(format!("clat_pct{i:02}"));
    }
    for s in [
        "lat_min_us",
        "lat_max_us",
        "lat_mean_us",
        "lat_stddev_us",
        "bw_min",
        "bw_max",
        "bw_agg_pct",
        "bw_mean",
        "bw_stddev",
    ] {
        v.push(s.to_string());
    }
    if version == 5 {
        for s in [
            "bw_samples",
            "iops_min",
            "iops_max",
            "iops_mean",
            "iops_stddev",
            "iops_samples",
        ] {
            v.push(s.to_string());
        }
    }
    v
}

/// The names of every field of a terse line, by position: `version`, the
/// reporting mode, the number of disks (and which have slaves), and
/// whether `continue_on_error` and a description add fields.
pub fn field_names(
    version: u8,
    unified: Unified,
    disk_slaves: &[bool],
    continue_on_error: bool,
    description: bool,
) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    if version == 2 {
        v.extend(["terse_version", "jobname", "groupid", "error"].map(String::from));
    } else {
        v.extend(
            [
                "terse_version",
                "fio_version",
                "jobname",
                "groupid",
                "error",
            ]
            .map(String::from),
        );
    }
    let mut dirs: Vec<&str> = vec![];
    if unified == Unified::Mixed {
        dirs.push("mixed");
    } else {
        dirs.push("read");
        dirs.push("write");
        if version != 3 {
            dirs.push("trim");
        }
        if unified == Unified::Both {
            dirs.push("mixed");
        }
    }
    for d in dirs {
        v.extend(dir_field_names(version).iter().map(|n| format!("{d}_{n}")));
    }
    v.extend(["cpu_usr", "cpu_sys", "cpu_ctx", "cpu_majf", "cpu_minf"].map(String::from));
    for l in ["1", "2", "4", "8", "16", "32", ">=64"] {
        v.push(format!("iodepth_{l}"));
    }
    for l in [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
    ] {
        v.push(format!("lat_us_{l}"));
    }
    for l in [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ] {
        v.push(format!("lat_ms_{l}"));
    }
    if version >= 3 {
        for (i, slaves) in disk_slaves.iter().enumerate() {
            let n = i + 1;
            for s in [
                "name",
                "read_ios",
                "write_ios",
                "read_merges",
                "write_merges",
                "read_ticks",
                "write_ticks",
                "in_queue",
                "util",
            ] {
                v.push(format!("disk{n}_{s}"));
            }
            if *slaves {
                for s in [
                    "slaves",
                    "aggr_read_ios",
                    "aggr_write_ios",
                    "aggr_read_merges",
                    "aggr_write_merges",
                    "aggr_read_ticks",
                    "aggr_write_ticks",
                    "aggr_in_queue",
                    "aggr_util",
                ] {
                    v.push(format!("disk{n}_{s}"));
                }
            }
        }
    }
    if continue_on_error {
        v.push("total_err".into());
        v.push("first_error".into());
    }
    if description {
        v.push("description".into());
    }
    v
}

/// Write the terse lines of a run, `version` 2 to 5.
pub(crate) fn write(report: &RunReport, version: u8, out: &mut dyn Write) -> io::Result<()> {
    let summary = &report.summary;
    for e in &summary.entries {
        let g = summary.group_of(e);
        let fields = entry_fields(&report.disks, e, g, version, report.release);
        write_line(out, &fields, e, version)?;
    }
    Ok(())
}

/// One entry's line.
fn write_line(out: &mut dyn Write, fields: &[String], e: &Entry, version: u8) -> io::Result<()> {
    let last = fields.len().saturating_sub(1);
    for (i, v) in fields.iter().enumerate() {
        if i > 0 {
            // v2 puts the description on a line of its own.
            if version == 2 && i == last && e.cfg.description.is_some() {
                out.write_all(b"\n")?;
            }
            out.write_all(b";")?;
        }
        out.write_all(v.as_bytes())?;
    }
    out.write_all(b"\n")
}

/// The line of a statistics block a server sent, as fio's client prints
/// it: the client has no disk of its own, so none follows.
pub(crate) fn client_entry(
    out: &mut dyn Write,
    e: &Entry,
    g: &GroupRun,
    version: u8,
    release: Release,
) -> io::Result<()> {
    write_line(out, &entry_fields(&[], e, g, version, release), e, version)
}

/// A disk a server sent, on a line of its own (terse version 3 and up):
/// `;vda;ios;...;util%`.
pub(crate) fn client_disk(
    out: &mut dyn Write,
    d: &DiskUtil,
    agg: Option<DiskAgg>,
) -> io::Result<()> {
    let mut v = Vec::new();
    disk_fields(&mut v, d, agg);
    writeln!(out, ";{}", v.join(";"))
}

/// The terse lines of a run, `version` 2 to 5.
pub fn render(report: &RunReport, version: u8) -> String {
    super::written(|out| write(report, version, out))
}

/// The values of one entry's line, in field order (see [`field_names`]).
pub(crate) fn entry_fields(
    disks: &[DiskUtil],
    e: &Entry,
    g: &GroupRun,
    version: u8,
    release: Release,
) -> Vec<String> {
    let mut v: Vec<String> = Vec::with_capacity(200);
    if version != 2 {
        v.push(version.to_string());
        v.push(release.name().into());
    } else {
        v.push("2".into());
    }
    v.push(e.name.clone());
    // fio prints the group id with `%d`: a placeholder's is -1.
    v.push((e.group_id as i32).to_string());
    v.push(e.error.to_string());
    dir_fields(&mut v, e, g, &e.dirs[0], 0, version);
    if e.cfg.unified != Unified::Mixed {
        dir_fields(&mut v, e, g, &e.dirs[1], 1, version);
        if version != 3 {
            dir_fields(&mut v, e, g, &e.dirs[2], 2, version);
        }
    }
    if e.cfg.unified == Unified::Both {
        dir_fields(&mut v, e, g, &e.mixed(), 0, version);
    }
    let (usr, sys) = e.cpu_pct();
    v.push(format!("{}%", f(usr, 6)));
    v.push(format!("{}%", f(sys, 6)));
    v.push(e.cpu.ctx.to_string());
    v.push(e.cpu.majf.to_string());
    v.push(e.cpu.minf.to_string());
    let total = e.total_ios();
    for p in dist_pct(&e.depth.depth, total) {
        v.push(format!("{}%", super::cfmt::fw(p, 3, 1)));
    }
    for p in lat_pct_terse_us(&e.lat_buckets, total) {
        v.push(format!("{}%", super::cfmt::fw(p, 3, 2)));
    }
    for p in lat_pct(&e.lat_buckets.m, total) {
        v.push(format!("{}%", super::cfmt::fw(p, 3, 2)));
    }
    if version >= 3 {
        for d in disks {
            disk_fields(&mut v, d, d.aggregate());
        }
    }
    if e.cfg.continue_on_error {
        v.push(e.total_err.to_string());
        v.push(e.first_error.to_string());
    }
    if let Some(d) = &e.cfg.description {
        v.push(d.clone());
    }
    v
}

/// A disk's fields: name, counters, utilization, and its slaves'.
fn disk_fields(v: &mut Vec<String>, d: &DiskUtil, agg: Option<DiskAgg>) {
    let s = &d.stats;
    v.push(d.name.clone());
    for n in [
        s.ios[0],
        s.ios[1],
        s.merges[0],
        s.merges[1],
        s.ticks[0],
        s.ticks[1],
        s.time_in_queue,
    ] {
        v.push(n.to_string());
    }
    v.push(format!("{}%", super::cfmt::fw(d.util(), 3, 2)));
    if let Some(a) = agg {
        let n = a.slaves;
        v.push("slaves".into());
        for x in [
            a.ios[0],
            a.ios[1],
            a.merges[0],
            a.merges[1],
            a.ticks[0],
            a.ticks[1],
            a.time_in_queue,
        ] {
            v.push((x / n).to_string());
        }
        v.push(format!("{}%", super::cfmt::fw(a.max_util, 3, 2)));
    }
}

/// `min/1000;max/1000;mean/1000;dev/1000`, or zeros without samples.
fn lat_fields(v: &mut Vec<String>, a: &LatAccum) {
    match a.summary() {
        Some(s) => {
            v.push((s.min / 1000).to_string());
            v.push((s.max / 1000).to_string());
            v.push(f(s.mean / 1000.0, 6));
            v.push(f(s.stddev / 1000.0, 6));
        }
        None => {
            v.extend(["0", "0", "0.000000", "0.000000"].map(String::from));
        }
    }
}

/// `show_ddir_status_terse`: one direction block; `gd` is the direction of
/// the group totals the bandwidth share is taken from.
fn dir_fields(v: &mut Vec<String>, e: &Entry, g: &GroupRun, r: &DirReport, gd: usize, version: u8) {
    let per_sec = |n: u64| {
        n.saturating_mul(1000)
            .checked_div(r.runtime_ms)
            .unwrap_or(0)
    };
    let (bw, iops) = (per_sec(r.bytes) / 1024, per_sec(r.ios));
    v.push((r.bytes >> 10).to_string());
    v.push(bw.to_string());
    v.push(iops.to_string());
    v.push(r.runtime_ms.to_string());
    lat_fields(v, &r.slat);
    lat_fields(v, &r.clat);
    let p = &e.cfg.percentiles;
    let (hist, acc) = if p.lat {
        (Some(r.lat_hist.as_deref()), &r.lat)
    } else if p.clat {
        (Some(r.clat_hist.as_deref()), &r.clat)
    } else {
        (None, &r.clat)
    };
    let vals: Vec<u64> = match (hist, acc.summary()) {
        (Some(Some(h)), Some(s)) => h.percentiles(&p.list, s.min, s.max),
        (Some(_), _) => vec![0; p.list.len()],
        (None, _) => Vec::new(),
    };
    for i in 0..MAX_PERCENTILES {
        match vals.get(i) {
            Some(val) => v.push(format!("{}%={}", f(p.list[i], 6), val / 1000)),
            None => v.push("0%=0".into()),
        }
    }
    lat_fields(v, &r.lat);
    let bw_stat = r.bw_samples.summary();
    match bw_stat {
        Some(s) => {
            let agg = g.agg(gd);
            let mut per = 100.0;
            if agg != 0 {
                // fio divides the aggregate by 1024 in integers here.
                per = s.mean * 100.0 / (agg / 1024) as f64;
                if per > 100.0 {
                    per = 100.0;
                }
            }
            v.push(s.min.to_string());
            v.push(s.max.to_string());
            v.push(format!("{}%", f(per, 6)));
            v.push(f(s.mean, 6));
            v.push(f(s.stddev, 6));
        }
        None => v.extend(["0", "0", "0.000000%", "0.000000", "0.000000"].map(String::from)),
    }
    if version == 5 {
        v.push(bw_stat.map_or(0, |s| s.samples).to_string());
        match r.iops_samples.summary() {
            Some(s) => {
                v.push(s.min.to_string());
                v.push(s.max.to_string());
                v.push(f(s.mean, 6));
                v.push(f(s.stddev, 6));
                v.push(s.samples.to_string());
            }
            None => v.extend(["0", "0", "0.000000", "0.000000", "0"].map(String::from)),
        }
    }
}
