//! fio's normal (human) output, fio 3.33 layout (`stat.c`
//! `show_thread_status_normal`, `show_ddir_status`, `show_group_stats`,
//! `print_disk_util`; banner from `init.c`, `Starting` from `backend.c`).

use std::fmt::Write;

use super::cfmt::{fw, to_c_int};
use super::num2str::{num2str, Unit};
use crate::options::Value;
use crate::plan::spec::{JobSpec, Plan};
use crate::stats::dist::{dist_pct, lat_pct};
use crate::stats::summary::{reported_prios, ClatPrio, Entry, GroupRun, Summary};
use crate::stats::{DirReport, DiskUtil, LatHist, LatSummary, RunReport, Unified};

/// fio's `significant_figures` default.
const SIG_FIGS: usize = 4;
const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];
const GROUP_LABELS: [&str; 3] = ["   READ", "  WRITE", "   TRIM"];
/// Labels of the latency classes (exclusive upper bounds).
const LAT_LABELS: [&str; 12] = [
    "2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000=", "2000=", ">=2000=",
];

/// The whole normal output of a run of `plan` that produced `report`:
/// banners, version, `Starting …` and the results.
pub fn render(report: &RunReport, plan: &Plan) -> String {
    let mut out = String::new();
    out.push_str(&banners(plan));
    out.push_str("fio-3.33\n");
    out.push_str(&starting(plan));
    out.push_str(&layout_lines(report));
    out.push_str(&results(report, &Summary::new(&report.jobs)));
    out
}

/// `<job>: Laying out IO file (1 file / 8MiB)` for each job that created
/// or extended files (a run prints each as its layout starts).
pub fn layout_lines(report: &RunReport) -> String {
    report
        .jobs
        .iter()
        .filter_map(|j| j.layout.map(|l| l.line(j.name())))
        .collect()
}

/// The final report: a blank line, one block per entry, the group totals
/// and the disk stats.
pub fn results(report: &RunReport, summary: &Summary) -> String {
    let mut out = String::from("\n");
    for e in &summary.entries {
        entry_block(&mut out, e, summary, report);
    }
    for g in &summary.groups {
        group_block(&mut out, g);
    }
    disk_block(&mut out, &report.disks);
    out
}

/// The per-job banners printed while jobs are added (`init.c` `add_job`);
/// `numjobs` clones collapse into one `...` line.
pub fn banners(plan: &Plan) -> String {
    banners_within(plan, usize::MAX)
}

/// The description lines fio prints before it refuses a run of more than
/// `max_jobs` jobs: fio prints a section's line as it adds the section's
/// first job, and its `...` once every clone of it has been added, so the
/// section that reaches the limit gets its line and no `...`, and the
/// sections after it nothing.
pub fn banners_within(plan: &Plan, max_jobs: usize) -> String {
    let mut out = String::new();
    for (i, j) in plan.jobs.iter().enumerate().take(max_jobs) {
        if j.subjob != 0 {
            continue;
        }
        let pow2 = kb_base(j) != 1000;
        let bs = |d: usize| {
            let (lo, hi) = j.bs[d];
            format!(
                "{}-{}",
                num2str(lo, SIG_FIGS, pow2, Unit::Byte),
                num2str(hi, SIG_FIGS, pow2, Unit::Byte)
            )
        };
        let _ = writeln!(
            out,
            "{}: (g={}): rw={}, bs=(R) {}, (W) {}, (T) {}, ioengine={}, iodepth={}",
            j.name,
            j.group_id,
            j.pattern.name(),
            bs(0),
            bs(1),
            bs(2),
            j.ioengine,
            j.iodepth
        );
        let end = plan.jobs[i + 1..]
            .iter()
            .position(|n| n.subjob == 0)
            .map_or(plan.jobs.len(), |k| i + 1 + k);
        if end > i + 1 && end <= max_jobs {
            out.push_str("...\n");
        }
    }
    out
}

/// `Starting N process(es)` / `N thread(s)` / both (`backend.c`).
pub fn starting(plan: &Plan) -> String {
    let threads = plan.jobs.iter().filter(|j| is_thread(j)).count();
    let procs = plan.jobs.len() - threads;
    let mut s = String::from("Starting ");
    if threads > 0 {
        let _ = write!(s, "{threads} thread{}", if threads > 1 { "s" } else { "" });
    }
    if procs > 0 {
        if threads > 0 {
            s.push_str(" and ");
        }
        let _ = write!(s, "{procs} process{}", if procs > 1 { "es" } else { "" });
    }
    s.push('\n');
    s
}

fn is_thread(j: &JobSpec) -> bool {
    matches!(
        j.opt("thread"),
        Some(Value::Bool(true)) | Some(Value::Int(1..))
    )
}

fn kb_base(j: &JobSpec) -> u32 {
    j.options.parse_ctx().kb_base
}

/// The num2str unit of a bandwidth for `unit_base` (8 bytes, 1 bits, 0 the
/// unset value fio leaves in its "mixed" copy: no unit at all).
fn rate_unit(unit_base: u32) -> Unit {
    match unit_base {
        1 => Unit::BitPerSec,
        8 => Unit::BytePerSec,
        _ => Unit::None,
    }
}

/// `show_thread_status_normal`.
fn entry_block(out: &mut String, e: &Entry, summary: &Summary, report: &RunReport) {
    if !e.did_io() {
        return;
    }
    let _ = write!(
        out,
        "{}: (groupid={}, jobs={}): err={:2}",
        e.name, e.group_id, e.members, e.error
    );
    if e.error != 0 {
        let _ = write!(out, " ({})", e.verror);
    }
    let _ = writeln!(out, ": pid={}: {}", e.pid, ctime(report.finished_at));
    if let Some(d) = &e.cfg.description {
        let _ = writeln!(out, "  Description  : [{d}]");
    }
    let g = summary.group_of(e);
    for (d, dir) in e.dirs.iter().enumerate() {
        if dir.bytes > 0 {
            let name = if e.cfg.unified == Unified::Mixed {
                "mixed"
            } else {
                DIR_NAMES[d]
            };
            let suffix = if d == 1 && e.cfg.unified != Unified::Mixed {
                "; 0 zone resets"
            } else {
                ""
            };
            dir_block(out, e, g, d, dir, &e.prios[d], name, suffix, false);
        }
    }
    if e.cfg.unified == Unified::Both {
        dir_block(
            out,
            e,
            g,
            0,
            &e.mixed(),
            &e.mixed_prios(),
            "mixed",
            "",
            true,
        );
    }
    lat_buckets(out, e);
    if e.sync.lat.samples() > 0 {
        out.push_str("  fsync/fdatasync/sync_file_range:\n");
        if let Some(s) = e.sync.lat.summary() {
            out.push_str(&lat_line("    sync", &s));
        }
        percentiles(out, e, "sync", e.sync.hist.as_deref(), e.sync.lat.summary());
    }
    let (usr, sys) = e.cpu_pct();
    let _ = writeln!(
        out,
        "  cpu          : usr={}%, sys={}%, ctx={}, majf={}, minf={}",
        fw(usr, 3, 2),
        fw(sys, 3, 2),
        e.cpu.ctx,
        e.cpu.majf,
        e.cpu.minf
    );
    let total = e.total_ios();
    let d = dist_pct(&e.depth.depth, total);
    let _ = writeln!(
        out,
        "  IO depths    : 1={}%, 2={}%, 4={}%, 8={}%, 16={}%, 32={}%, >=64={}%",
        p1(d[0]),
        p1(d[1]),
        p1(d[2]),
        p1(d[3]),
        p1(d[4]),
        p1(d[5]),
        p1(d[6])
    );
    for (label, map, n) in [
        ("submit  ", &e.depth.submit, e.depth.total_submit),
        ("complete", &e.depth.complete, e.depth.total_complete),
    ] {
        let d = dist_pct(map, n);
        let _ = writeln!(
            out,
            "     {label}  : 0={}%, 4={}%, 8={}%, 16={}%, 32={}%, 64={}%, >=64={}%",
            p1(d[0]),
            p1(d[1]),
            p1(d[2]),
            p1(d[3]),
            p1(d[4]),
            p1(d[5]),
            p1(d[6])
        );
    }
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped={},{},{},0",
        e.dirs[0].ios,
        e.dirs[1].ios,
        e.dirs[2].ios,
        e.sync.ios,
        e.dirs[0].short_ios,
        e.dirs[1].short_ios,
        e.dirs[2].short_ios,
        e.dirs[0].drop_ios,
        e.dirs[1].drop_ios,
        e.dirs[2].drop_ios
    );
    if e.cfg.continue_on_error {
        let _ = writeln!(
            out,
            "     errors    : total={}, first_error={}/<{}>",
            e.total_err,
            e.first_error,
            strerror(e.first_error)
        );
    }
    if e.latency_depth != 0 {
        let _ = writeln!(
            out,
            "     latency   : target={}, window={}, percentile={}%, depth={}",
            e.cfg.latency_target_ns,
            e.cfg.latency_window_us,
            fw(e.cfg.latency_percentile, 0, 2),
            e.latency_depth
        );
    }
}

/// `%3.1f`.
fn p1(v: f64) -> String {
    fw(v, 3, 1)
}

/// `show_ddir_status` for one direction (or the `mixed` sum, `mixed` set).
#[allow(clippy::too_many_arguments)]
fn dir_block(
    out: &mut String,
    e: &Entry,
    g: &GroupRun,
    d: usize,
    r: &DirReport,
    prios: &[ClatPrio],
    name: &str,
    suffix: &str,
    mixed: bool,
) {
    if r.runtime_ms == 0 {
        return;
    }
    let sig = e.cfg.sig_figs;
    let pow2 = g.kb_base != 1000;
    // fio 3.33 prints the `unified_rw_reporting=both` mixed line from a
    // copy without I/O counts and without a unit: `IOPS=0, BW=0 (0)(0B/..)`.
    let (bytes, ios, unit) = if mixed {
        (0, 0, Unit::None)
    } else {
        (r.bytes, r.ios, rate_unit(e.cfg.unit_base))
    };
    let bw = bytes.saturating_mul(1000) / r.runtime_ms;
    let iops = ios.saturating_mul(1000) / r.runtime_ms;
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={} ({})({}/{}msec){suffix}",
        num2str(iops, sig, false, Unit::None),
        num2str(bw, sig, pow2, unit),
        num2str(bw, sig, !pow2, unit),
        num2str(bytes, sig, pow2, Unit::Byte),
        r.runtime_ms
    );
    for (label, acc) in [
        ("    slat", &r.slat),
        ("    clat", &r.clat),
        ("     lat", &r.lat),
    ] {
        if let Some(s) = acc.summary() {
            out.push_str(&lat_line(label, &s));
        }
    }
    let p = &e.cfg.percentiles;
    // Per priority: completion latencies, or total ones with
    // lat_percentiles (fio's `clat_type`).
    let prio_type = if p.lat { "lat" } else { "clat" };
    for prio in reported_prios(prios) {
        if let Some(s) = prio.lat.summary() {
            let label = format!("    {prio_type} prio {}/{}", prio.class(), prio.level());
            out.push_str(&lat_line(&label, &s));
        }
    }
    if p.slat {
        percentiles(out, e, "slat", r.slat_hist.as_deref(), r.slat.summary());
    }
    if p.clat {
        percentiles(out, e, "clat", r.clat_hist.as_deref(), r.clat.summary());
    }
    if p.lat {
        percentiles(out, e, "lat", r.lat_hist.as_deref(), r.lat.summary());
    }
    if p.clat || p.lat {
        let all = if p.lat {
            r.lat.samples()
        } else {
            r.clat.samples()
        };
        for prio in reported_prios(prios) {
            let share = 100.0 * prio.lat.samples() as f64 / all as f64;
            let pre = format!(
                "{prio_type} prio {}/{} ({}% of IOs)",
                prio.class(),
                prio.level(),
                fw(share, 0, 2)
            );
            percentiles(out, e, &pre, prio.hist.as_deref(), prio.lat.summary());
        }
    }
    if let Some(s) = r.bw_samples.summary() {
        bw_line(out, g, d, &s);
    }
    if let Some(s) = r.iops_samples.summary() {
        let _ = writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={}, stdev={}, samples={}",
            s.min,
            s.max,
            fw(s.mean, 5, 2),
            fw(s.stddev, 5, 2),
            s.samples
        );
    }
}

/// The `bw (KiB/s)` line. fio 3.33 labels it by kb_base only (`KiB` or
/// `kB`; the samples are KiB/s either way, and `unit_base` is ignored
/// here), and above kb_base² KiB/s divides by kb_base and says `MiB`.
fn bw_line(out: &mut String, g: &GroupRun, d: usize, s: &LatSummary) {
    let kb = f64::from(g.kb_base);
    let mut unit = if g.kb_base == 1000 { "kB" } else { "KiB" };
    let per = agg_percent(g, d, s.mean);
    let (mut min, mut max, mut mean, mut dev) = (s.min, s.max, s.mean, s.stddev);
    if mean > kb * kb {
        min = (min as f64 / kb) as u64;
        max = (max as f64 / kb) as u64;
        mean /= kb;
        dev /= kb;
        unit = "MiB";
    }
    let _ = writeln!(
        out,
        "   bw ({unit:>5}/s): min={min:5}, max={max:5}, per={}%, avg={}, stdev={}, samples={}",
        fw(per, 3, 2),
        fw(mean, 5, 2),
        fw(dev, 5, 2),
        s.samples
    );
}

/// fio's `convert_agg_kbytes_percent`: the mean (passed as a C `int`) as a
/// percentage of the group's aggregate KiB/s, at most 100.
pub fn agg_percent(g: &GroupRun, d: usize, mean: f64) -> f64 {
    let agg = g.agg(d);
    if agg <= 1024 {
        return 100.0;
    }
    let p = f64::from(to_c_int(mean)) * 100.0 / (agg as f64 / 1024.0);
    p.min(100.0)
}

/// A `display_lat` line: unit chosen from min/max/stdev, min/max integer
/// divided, avg/stdev float divided.
fn lat_line(name: &str, s: &LatSummary) -> String {
    let (unit, div) = if s.min > 2_000_000 && s.max > 99_999_999 && s.stddev > 1_000_000.0 {
        ("msec", 1_000_000u64)
    } else if s.min > 2000 && s.max > 99_999 && s.stddev > 1000.0 {
        ("usec", 1000)
    } else {
        ("nsec", 1)
    };
    format!(
        "{name} ({unit}): min={}, max={}, avg={}, stdev={}\n",
        num2str(s.min / div, 6, false, Unit::None),
        num2str(s.max / div, 6, false, Unit::None),
        fw(s.mean / div as f64, 5, 2),
        fw(s.stddev / div as f64, 5, 2)
    )
}

/// `show_clat_percentiles`: a table of the percentiles of `hist`.
fn percentiles(
    out: &mut String,
    e: &Entry,
    pre: &str,
    hist: Option<&LatHist>,
    s: Option<LatSummary>,
) {
    let (Some(hist), Some(s)) = (hist, s) else {
        return;
    };
    let list = &e.cfg.percentiles.list;
    let vals = hist.percentiles(list, s.min, s.max);
    if vals.is_empty() {
        return;
    }
    let minv = *vals.iter().min().unwrap_or(&0);
    let maxv = *vals.iter().max().unwrap_or(&0);
    let (unit, scale, divisor) = if minv > 2_000_000 && maxv > 99_999_999 {
        ("msec", 2, 1_000_000u64)
    } else if minv > 2000 && maxv > 99_999 {
        ("usec", 1, 1000)
    } else {
        ("nsec", 0, 1)
    };
    let _ = write!(out, "    {pre} percentiles ({unit}):\n     |");
    let prec = e.cfg.percentiles.precision;
    let q = maxv / divisor;
    let width = if q == 0 {
        5
    } else {
        5.max(q.ilog10() as usize + 1)
    };
    let per_line = (73 / (prec + 10 + width)).max(1);
    let last = vals.len() - 1;
    for (j, (p, v)) in list.iter().zip(&vals).enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let mut v = *v;
        for _ in 0..scale {
            v = v.div_ceil(1000);
        }
        let _ = write!(
            out,
            " {}th=[{v:>width$}]{}",
            fw(*p, prec + 3, prec),
            if j == last { '\n' } else { ',' }
        );
        if j == last {
            break;
        }
        if j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
}

/// The `lat (nsec/usec/msec)` lines: completion latencies by class.
fn lat_buckets(out: &mut String, e: &Entry) {
    let total = e.total_ios();
    let b = &e.lat_buckets;
    for (unit, map) in [("nsec", &b.n[..]), ("usec", &b.u[..]), ("msec", &b.m[..])] {
        let pct = lat_pct(map, total);
        let mut in_line = 0;
        let mut shown = false;
        for (i, v) in pct.iter().enumerate() {
            if *v <= 0.0 {
                continue;
            }
            if in_line == 0 {
                if shown {
                    out.push('\n');
                }
                let _ = write!(out, "  lat ({unit})   : ");
            } else {
                out.push_str(", ");
            }
            shown = true;
            let _ = write!(out, "{}{}%", LAT_LABELS[i], fw(*v, 3, 2));
            in_line = (in_line + 1) % 5;
        }
        if shown {
            out.push('\n');
        }
    }
}

/// `show_group_stats`.
fn group_block(out: &mut String, g: &GroupRun) {
    let _ = writeln!(out, "\nRun status group {} (all jobs):", g.id);
    let pow2 = g.kb_base != 1000;
    let unit = rate_unit(g.unit_base);
    let sig = g.sig_figs;
    let line =
        |out: &mut String, label: &str, agg: u64, min: u64, max: u64, io: u64, r: (u64, u64)| {
            let _ = writeln!(
                out,
                "{label}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
                num2str(agg, sig, pow2, unit),
                num2str(agg, sig, !pow2, unit),
                num2str(min, sig, pow2, unit),
                num2str(max, sig, pow2, unit),
                num2str(min, sig, !pow2, unit),
                num2str(max, sig, !pow2, unit),
                num2str(io, sig, pow2, Unit::Byte),
                num2str(io, sig, !pow2, Unit::Byte),
                r.0,
                r.1
            );
        };
    for (d, gd) in g.dirs.iter().enumerate() {
        let Some(gd) = gd else { continue };
        let label = if g.unified_bits == 1 {
            "  MIXED"
        } else {
            GROUP_LABELS[d]
        };
        line(
            out,
            label,
            gd.agg,
            gd.min_bw,
            gd.max_bw,
            gd.bytes,
            (gd.min_run, gd.max_run),
        );
    }
    if g.unified_bits == 2 {
        let (mut io, mut agg, mut min, mut max) = (0u64, 0u64, u64::MAX, 0u64);
        let (mut min_run, mut max_run) = (u64::MAX, 0u64);
        for gd in g.dirs.iter().flatten() {
            io += gd.bytes;
            agg += gd.agg;
            min = min.min(gd.min_bw);
            max = max.max(gd.max_bw);
            min_run = min_run.min(gd.min_run);
            max_run = max_run.max(gd.max_run);
        }
        line(out, "  MIXED", agg, min, max, io, (min_run, max_run));
    }
}

/// `Disk stats (read/write):`, one line per device.
fn disk_block(out: &mut String, disks: &[DiskUtil]) {
    if disks.is_empty() {
        return;
    }
    out.push_str("\nDisk stats (read/write):\n");
    for d in disks {
        let agg = d.aggregate();
        if agg.is_some() {
            out.push_str("  ");
        }
        let s = &d.stats;
        let _ = write!(
            out,
            "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={}%",
            d.name,
            s.ios[0],
            s.ios[1],
            s.merges[0],
            s.merges[1],
            s.ticks[0],
            s.ticks[1],
            s.time_in_queue,
            fw(d.util(), 3, 2)
        );
        if let Some(a) = agg {
            let n = a.slaves;
            let _ = write!(
                out,
                ", aggrios={}/{}, aggrmerge={}/{}, aggrticks={}/{}, aggrin_queue={}, aggrutil={}%",
                a.ios[0] / n,
                a.ios[1] / n,
                a.merges[0] / n,
                a.merges[1] / n,
                a.ticks[0] / n,
                a.ticks[1] / n,
                a.time_in_queue / n,
                fw(a.max_util, 3, 2)
            );
        }
        out.push('\n');
    }
}

/// `strerror(3)`.
pub fn strerror(errno: i32) -> String {
    std::io::Error::from_raw_os_error(errno)
        .to_string()
        .split(" (os error")
        .next()
        .unwrap_or_default()
        .to_string()
}

/// `ctime(3)` without the newline, in local time: `Sun Nov 29 22:07:43 2026`.
pub fn ctime(secs: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let t = secs as libc::time_t;
    // SAFETY: an all-zero `tm` is a valid value (plain integers and a null
    // zone pointer), and localtime_r only writes into the `tm` we pass.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the duration of the call.
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        return String::new();
    }
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[tm.tm_wday.rem_euclid(7) as usize],
        MONTHS[tm.tm_mon.rem_euclid(12) as usize],
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        tm.tm_year + 1900
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lat_units_follow_fio() {
        let s = LatSummary {
            samples: 2,
            min: 910,
            max: 1_401_500,
            mean: 10086.41,
            stddev: 53956.58,
        };
        assert_eq!(
            lat_line("    clat", &s),
            "    clat (nsec): min=910, max=1401.5k, avg=10086.41, stdev=53956.58\n"
        );
        let s = LatSummary {
            samples: 2,
            min: 10_500,
            max: 234_000,
            mean: 27_140.0,
            stddev: 39_550.0,
        };
        assert_eq!(
            lat_line("    clat", &s),
            "    clat (usec): min=10, max=234, avg=27.14, stdev=39.55\n"
        );
    }

    #[test]
    fn strerror_is_the_c_text() {
        assert_eq!(strerror(2), "No such file or directory");
    }
}
