//! fio's normal (human) output, fio 3.33 layout (`stat.c`
//! `show_thread_status_normal`, `show_ddir_status`, `show_group_stats`,
//! `print_disk_util`; banner from `init.c`, `Starting` from `backend.c`).
//!
//! Every function is a pure function of the [`RunReport`] (or, for what is
//! printed before the jobs run, of their [`JobInfo`]s): the date of the job
//! headers is the report's, in the time zone it was taken in.

mod lat;

use crate::release::{Change, Release};
use std::io::{self, Write};

use self::lat::{lat_buckets, lat_line, percentiles};
use super::cfmt::{fw, scaled_ns, to_c_int};
use super::num2str::{num2str, Unit};
use crate::stats::disk::DiskAgg;
use crate::stats::dist::dist_pct;
use crate::stats::summary::{reported_prios, ClatPrio, Entry, GroupDirRun, GroupRun, Summary};
use crate::stats::{DirReport, DiskUtil, JobInfo, LatSummary, RunReport, Unified};

/// fio's `significant_figures` default.
const SIG_FIGS: usize = 4;
const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];
const GROUP_LABELS: [&str; 3] = ["   READ", "  WRITE", "   TRIM"];

/// The whole normal output of a run: banners, version, `Starting …`, the
/// layout lines and the results.
pub(crate) fn write(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let jobs = || report.jobs.iter().map(|j| &j.info);
    out.write_all(banners(jobs()).as_bytes())?;
    writeln!(out, "{}", report.release.name())?;
    out.write_all(starting(jobs()).as_bytes())?;
    out.write_all(layout_lines(report).as_bytes())?;
    write_results(report, out)
}

/// [`write()`] into a string.
pub fn render(report: &RunReport) -> String {
    super::written(|out| write(report, out))
}

/// `<job>: Laying out IO file (1 file / 8MiB)` for each job that created
/// or extended files (a run prints each as its layout starts).
pub(crate) fn layout_lines(report: &RunReport) -> String {
    report
        .jobs
        .iter()
        .filter_map(|j| j.layout.map(|l| l.line(j.name())))
        .collect()
}

/// The final report: a blank line, one block per entry, the group totals
/// and the disk stats.
pub(crate) fn write_results(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let summary = &report.summary;
    out.write_all(b"\n")?;
    for e in &summary.entries {
        entry_block(out, e, summary, report)?;
    }
    for g in &summary.groups {
        group_block(out, g)?;
    }
    disk_block(out, &report.disks, report.release)?;
    if let Some(idle) = &report.idle {
        out.write_all(super::idle::normal(idle).as_bytes())?;
    }
    Ok(())
}

/// [`write_results`] into a string.
pub fn results(report: &RunReport) -> String {
    super::written(|out| write_results(report, out))
}

/// The per-job banners printed while jobs are added (`init.c` `add_job`);
/// `numjobs` clones collapse into one `...` line.
pub fn banners<'a>(jobs: impl IntoIterator<Item = &'a JobInfo>) -> String {
    banners_within(jobs, usize::MAX)
}

/// The description lines fio prints before it refuses a run of more than
/// `max_jobs` jobs: fio prints a section's line as it adds the section's
/// first job, and its `...` once every clone of it has been added, so the
/// section that reaches the limit gets its line and no `...`, and the
/// sections after it nothing.
pub(crate) fn banners_within<'a>(
    jobs: impl IntoIterator<Item = &'a JobInfo>,
    max_jobs: usize,
) -> String {
    let jobs: Vec<&JobInfo> = jobs.into_iter().collect();
    let mut out = String::new();
    for (i, j) in jobs.iter().enumerate().take(max_jobs) {
        if j.subjob != 0 {
            continue;
        }
        let pow2 = j.stats.kb_base != 1000;
        let bs = |d: usize| {
            let (lo, hi) = j.bs[d];
            format!(
                "{}-{}",
                num2str(lo, SIG_FIGS, pow2, Unit::Byte),
                num2str(hi, SIG_FIGS, pow2, Unit::Byte)
            )
        };
        // fio's add_job describes no job of an engine without I/O (but
        // prints the `...` of its clones).
        if !j.no_io {
            out.push_str(&format!(
                "{}: (g={}): rw={}, bs=(R) {}, (W) {}, (T) {}, ioengine={}, iodepth={}\n",
                j.name,
                j.group_id,
                j.rw,
                bs(0),
                bs(1),
                bs(2),
                j.ioengine,
                j.iodepth
            ));
        }
        let end = jobs[i + 1..]
            .iter()
            .position(|n| n.subjob == 0)
            .map_or(jobs.len(), |k| i + 1 + k);
        if end > i + 1 && end <= max_jobs {
            out.push_str("...\n");
        }
    }
    out
}

/// `Starting N process(es)` / `N thread(s)` / both (`backend.c`).
pub fn starting<'a>(jobs: impl IntoIterator<Item = &'a JobInfo>) -> String {
    let (mut threads, mut procs) = (0usize, 0usize);
    for j in jobs {
        if j.thread {
            threads += 1;
        } else {
            procs += 1;
        }
    }
    let mut s = String::from("Starting ");
    if threads > 0 {
        s.push_str(&format!(
            "{threads} thread{}",
            if threads > 1 { "s" } else { "" }
        ));
    }
    if procs > 0 {
        if threads > 0 {
            s.push_str(" and ");
        }
        s.push_str(&format!(
            "{procs} process{}",
            if procs > 1 { "es" } else { "" }
        ));
    }
    s.push('\n');
    s
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
fn entry_block(
    out: &mut dyn Write,
    e: &Entry,
    summary: &Summary,
    report: &RunReport,
) -> io::Result<()> {
    let date = ctime(report.finished_at, report.utc_offset);
    entry_text(
        out,
        e,
        summary.group_of(e),
        &date,
        Some(report),
        report.release,
    )
}

/// A statistics block a server sent, as fio's client prints it: dated
/// `date`, with the group totals `g` sent with it, no block states.
pub(crate) fn client_entry(
    out: &mut dyn Write,
    e: &Entry,
    g: &GroupRun,
    date: &str,
    release: Release,
) -> io::Result<()> {
    entry_text(out, e, g, date, None, release)
}

/// One entry's block, dated `date`; the block states of `report`'s jobs
/// when given.
fn entry_text(
    out: &mut dyn Write,
    e: &Entry,
    g: &GroupRun,
    date: &str,
    report: Option<&RunReport>,
    release: Release,
) -> io::Result<()> {
    if !e.did_io() {
        return Ok(());
    }
    write!(
        out,
        "{}: (groupid={}, jobs={}): err={:2}",
        e.name, e.group_id, e.members, e.error
    )?;
    if e.error != 0 {
        write!(out, " ({})", e.verror)?;
    }
    writeln!(out, ": pid={}: {date}", e.pid)?;
    if let Some(d) = &e.cfg.description {
        writeln!(out, "  Description  : [{d}]")?;
    }
    for (d, dir) in e.dirs.iter().enumerate() {
        if dir.bytes > 0 {
            let name = if e.cfg.unified == Unified::Mixed {
                "mixed"
            } else {
                DIR_NAMES[d]
            };
            // fio 3.33 gives every write line its zone resets; 3.42 every
            // line of a job that counts them (zonemode=zbd).
            let counted = match release.has(Change::ZoneResetsOnlyZbd) {
                true => e.cfg.count_zone_resets,
                false => d == 1 && e.cfg.unified != Unified::Mixed,
            };
            let resets;
            let suffix = if counted {
                resets = format!("; {} zone resets", e.zone_resets);
                resets.as_str()
            } else {
                ""
            };
            let block = DirBlock {
                d,
                r: dir,
                prios: &e.prios[d],
                name,
                suffix,
                mixed: false,
            };
            dir_block(out, e, g, &block)?;
        }
    }
    if e.cfg.unified == Unified::Both {
        let (r, prios) = (e.mixed(), e.mixed_prios());
        let block = DirBlock {
            d: 0,
            r: &r,
            prios: &prios,
            name: "mixed",
            suffix: "",
            mixed: true,
        };
        dir_block(out, e, g, &block)?;
    }
    lat_buckets(out, e)?;
    if e.sync.lat.samples() > 0 {
        out.write_all(b"  fsync/fdatasync/sync_file_range:\n")?;
        if let Some(s) = e.sync.lat.summary() {
            out.write_all(lat_line("    sync", &s).as_bytes())?;
        }
        percentiles(out, e, "sync", e.sync.hist.as_deref(), e.sync.lat.summary())?;
    }
    let (usr, sys) = e.cpu_pct();
    writeln!(
        out,
        "  cpu          : usr={}%, sys={}%, ctx={}, majf={}, minf={}",
        fw(usr, 3, 2),
        fw(sys, 3, 2),
        e.cpu.ctx,
        e.cpu.majf,
        e.cpu.minf
    )?;
    let total = e.total_ios();
    let d = dist_pct(&e.depth.depth, total);
    writeln!(
        out,
        "  IO depths    : 1={}%, 2={}%, 4={}%, 8={}%, 16={}%, 32={}%, >=64={}%",
        p1(d[0]),
        p1(d[1]),
        p1(d[2]),
        p1(d[3]),
        p1(d[4]),
        p1(d[5]),
        p1(d[6])
    )?;
    for (label, map, n) in [
        ("submit  ", &e.depth.submit, e.depth.total_submit),
        ("complete", &e.depth.complete, e.depth.total_complete),
    ] {
        let d = dist_pct(map, n);
        writeln!(
            out,
            "     {label}  : 0={}%, 4={}%, 8={}%, 16={}%, 32={}%, 64={}%, >=64={}%",
            p1(d[0]),
            p1(d[1]),
            p1(d[2]),
            p1(d[3]),
            p1(d[4]),
            p1(d[5]),
            p1(d[6])
        )?;
    }
    writeln!(
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
    )?;
    if e.cfg.continue_on_error {
        writeln!(
            out,
            "     errors    : total={}, first_error={}/<{}>",
            e.total_err,
            e.first_error,
            strerror(e.first_error)
        )?;
    }
    if e.latency_depth != 0 {
        let (target, window) = match release.has(Change::LatencyTargetUnits) {
            // fio 3.42: each scaled to the unit that keeps it above 2.
            true => (
                scaled_ns(e.cfg.latency_target_ns),
                scaled_ns(e.cfg.latency_window_us.saturating_mul(1000)),
            ),
            false => (
                e.cfg.latency_target_ns.to_string(),
                e.cfg.latency_window_us.to_string(),
            ),
        };
        writeln!(
            out,
            "     latency   : target={target}, window={window}, percentile={}%, depth={}",
            fw(e.cfg.latency_percentile, 0, 2),
            e.latency_depth
        )?;
    }
    // fio: the block histogram, then steady state.
    if let Some(report) = report {
        super::blocks::normal(out, report, e)?;
    }
    if let Some(line) = super::steadystate::normal_line(e) {
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// `%3.1f`.
fn p1(v: f64) -> String {
    fw(v, 3, 1)
}

/// One direction block of an entry: direction `d` (of the group totals),
/// its results `r` and per-priority latencies, its label and the suffix of
/// its first line; `mixed` for the `unified_rw_reporting=both` sum.
struct DirBlock<'a> {
    d: usize,
    r: &'a DirReport,
    prios: &'a [ClatPrio],
    name: &'a str,
    suffix: &'a str,
    mixed: bool,
}

/// `show_ddir_status` for one direction (or the `mixed` sum).
fn dir_block(out: &mut dyn Write, e: &Entry, g: &GroupRun, b: &DirBlock<'_>) -> io::Result<()> {
    let DirBlock {
        d,
        r,
        prios,
        name,
        suffix,
        mixed,
    } = *b;
    if r.runtime_ms == 0 {
        return Ok(());
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
    writeln!(
        out,
        "  {name}: IOPS={}, BW={} ({})({}/{}msec){suffix}",
        num2str(iops, sig, false, Unit::None),
        num2str(bw, sig, pow2, unit),
        num2str(bw, sig, !pow2, unit),
        num2str(bytes, sig, pow2, Unit::Byte),
        r.runtime_ms
    )?;
    for (label, acc) in [
        ("    slat", &r.slat),
        ("    clat", &r.clat),
        ("     lat", &r.lat),
    ] {
        if let Some(s) = acc.summary() {
            out.write_all(lat_line(label, &s).as_bytes())?;
        }
    }
    let p = &e.cfg.percentiles;
    // Per priority: completion latencies, or total ones with
    // lat_percentiles (fio's `clat_type`).
    let prio_type = if p.lat { "lat" } else { "clat" };
    for prio in reported_prios(prios) {
        if let Some(s) = prio.lat.summary() {
            let label = format!("    {prio_type} prio {}/{}", prio.class(), prio.level());
            out.write_all(lat_line(&label, &s).as_bytes())?;
        }
    }
    if p.slat {
        percentiles(out, e, "slat", r.slat_hist.as_deref(), r.slat.summary())?;
    }
    if p.clat {
        percentiles(out, e, "clat", r.clat_hist.as_deref(), r.clat.summary())?;
    }
    if p.lat {
        percentiles(out, e, "lat", r.lat_hist.as_deref(), r.lat.summary())?;
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
            percentiles(out, e, &pre, prio.hist.as_deref(), prio.lat.summary())?;
        }
    }
    if let Some(s) = r.bw_samples.summary() {
        bw_line(out, g, d, &s)?;
    }
    if let Some(s) = r.iops_samples.summary() {
        writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={}, stdev={}, samples={}",
            s.min,
            s.max,
            fw(s.mean, 5, 2),
            fw(s.stddev, 5, 2),
            s.samples
        )?;
    }
    Ok(())
}

/// The `bw (KiB/s)` line. fio 3.33 labels it by kb_base only (`KiB` or
/// `kB`; the samples are KiB/s either way, and `unit_base` is ignored
/// here), and above kb_base² KiB/s divides by kb_base and says `MiB`.
fn bw_line(out: &mut dyn Write, g: &GroupRun, d: usize, s: &LatSummary) -> io::Result<()> {
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
    writeln!(
        out,
        "   bw ({unit:>5}/s): min={min:5}, max={max:5}, per={}%, avg={}, stdev={}, samples={}",
        fw(per, 3, 2),
        fw(mean, 5, 2),
        fw(dev, 5, 2),
        s.samples
    )
}

/// fio's `convert_agg_kbytes_percent`: the mean (passed as a C `int`) as a
/// percentage of the group's aggregate KiB/s, at most 100.
pub(crate) fn agg_percent(g: &GroupRun, d: usize, mean: f64) -> f64 {
    let agg = g.agg(d);
    if agg <= 1024 {
        return 100.0;
    }
    let p = f64::from(to_c_int(mean)) * 100.0 / (agg as f64 / 1024.0);
    p.min(100.0)
}

/// `show_group_stats`.
pub(crate) fn group_block(out: &mut dyn Write, g: &GroupRun) -> io::Result<()> {
    writeln!(out, "\nRun status group {} (all jobs):", g.id)?;
    let pow2 = g.kb_base != 1000;
    let unit = rate_unit(g.unit_base);
    let sig = g.sig_figs;
    let line = |out: &mut dyn Write, label: &str, gd: &GroupDirRun| {
        writeln!(
            out,
            "{label}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            num2str(gd.agg, sig, pow2, unit),
            num2str(gd.agg, sig, !pow2, unit),
            num2str(gd.min_bw, sig, pow2, unit),
            num2str(gd.max_bw, sig, pow2, unit),
            num2str(gd.min_bw, sig, !pow2, unit),
            num2str(gd.max_bw, sig, !pow2, unit),
            num2str(gd.bytes, sig, pow2, Unit::Byte),
            num2str(gd.bytes, sig, !pow2, Unit::Byte),
            gd.min_run,
            gd.max_run
        )
    };
    for (d, gd) in g.dirs.iter().enumerate() {
        let Some(gd) = gd else { continue };
        let label = if g.unified_bits == 1 {
            "  MIXED"
        } else {
            GROUP_LABELS[d]
        };
        line(out, label, gd)?;
    }
    if g.unified_bits == 2 {
        let mut m = GroupDirRun {
            min_bw: u64::MAX,
            min_run: u64::MAX,
            ..GroupDirRun::default()
        };
        for gd in g.dirs.iter().flatten() {
            m.bytes += gd.bytes;
            m.agg += gd.agg;
            m.min_bw = m.min_bw.min(gd.min_bw);
            m.max_bw = m.max_bw.max(gd.max_bw);
            m.min_run = m.min_run.min(gd.min_run);
            m.max_run = m.max_run.max(gd.max_run);
        }
        line(out, "  MIXED", &m)?;
    }
    Ok(())
}

/// `Disk stats (read/write):`, one line per device.
fn disk_block(out: &mut dyn Write, disks: &[DiskUtil], release: Release) -> io::Result<()> {
    if disks.is_empty() {
        return Ok(());
    }
    out.write_all(b"\nDisk stats (read/write):\n")?;
    for d in disks {
        disk_line(out, d, d.aggregate(), release)?;
    }
    Ok(())
}

/// A disk a server sent, under a heading of its own (as fio's client
/// prints each), with the aggregate `agg` of its slaves.
pub(crate) fn client_disk(
    out: &mut dyn Write,
    d: &DiskUtil,
    agg: Option<DiskAgg>,
    release: Release,
) -> io::Result<()> {
    out.write_all(b"\nDisk stats (read/write):\n")?;
    disk_line(out, d, agg, release)
}

/// One disk's line, as `release` prints it (3.36 on: with its sectors).
fn disk_line(
    out: &mut dyn Write,
    d: &DiskUtil,
    agg: Option<DiskAgg>,
    release: Release,
) -> io::Result<()> {
    if agg.is_some() {
        out.write_all(b"  ")?;
    }
    let s = &d.stats;
    let sectors = release.has(Change::DiskSectors);
    write!(out, "  {}: ios={}/{}, ", d.name, s.ios[0], s.ios[1])?;
    if sectors {
        write!(out, "sectors={}/{}, ", s.sectors[0], s.sectors[1])?;
    }
    write!(
        out,
        "merge={}/{}, ticks={}/{}, in_queue={}, util={}%",
        s.merges[0],
        s.merges[1],
        s.ticks[0],
        s.ticks[1],
        s.time_in_queue,
        fw(d.util(), 3, 2)
    )?;
    if let Some(a) = agg {
        let n = a.slaves;
        write!(out, ", aggrios={}/{}, ", a.ios[0] / n, a.ios[1] / n)?;
        if sectors {
            write!(
                out,
                "aggsectors={}/{}, ",
                a.sectors[0] / n,
                a.sectors[1] / n
            )?;
        }
        write!(
            out,
            "aggrmerge={}/{}, aggrticks={}/{}, aggrin_queue={}, aggrutil={}%",
            a.merges[0] / n,
            a.merges[1] / n,
            a.ticks[0] / n,
            a.ticks[1] / n,
            a.time_in_queue / n,
            fw(a.max_util, 3, 2)
        )?;
    }
    out.write_all(b"\n")
}

/// `strerror(3)`.
pub(crate) fn strerror(errno: i32) -> String {
    crate::diag::io_reason(&std::io::Error::from_raw_os_error(errno))
}

/// `ctime(3)` without the newline, of `secs` since the epoch in a time
/// zone `utc_offset` seconds east of UTC: `Sun Nov 29 22:07:43 2026`.
pub(crate) fn ctime(secs: i64, utc_offset: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let local = secs.saturating_add(utc_offset);
    let (days, sod) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    // 1970-01-01 was a Thursday.
    let wday = (days + 4).rem_euclid(7) as usize;
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[wday],
        MONTHS[(month - 1) as usize],
        day,
        sod / 3600,
        sod % 3600 / 60,
        sod % 60,
        year
    )
}

/// The proleptic Gregorian date (year, month 1-12, day 1-31) of `days`
/// since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dm device over two slaves, as fio 3.33 and 3.36 print it (fio
    /// 3.36 adds `sectors=` and `aggsectors=`).
    #[test]
    fn disk_lines_by_release() {
        let counters = |ios: u64, sectors: u64| crate::stats::disk::DiskCounters {
            ios: [ios, 2 * ios],
            sectors: [sectors, 2 * sectors],
            io_ticks: 50,
            ..Default::default()
        };
        let slave = |name: &str, ios| DiskUtil {
            name: name.into(),
            stats: counters(ios, 8 * ios),
            msec: 100,
            slaves: Vec::new(),
        };
        let dm = DiskUtil {
            name: "dm-0".into(),
            stats: counters(10, 80),
            msec: 100,
            slaves: vec![slave("vda", 4), slave("vdb", 8)],
        };
        let line =
            |release| crate::output::written(|out| disk_line(out, &dm, dm.aggregate(), release));
        assert_eq!(
            line(Release::V3_33),
            "    dm-0: ios=10/20, merge=0/0, ticks=0/0, in_queue=0, util=50.00%, \
             aggrios=6/12, aggrmerge=0/0, aggrticks=0/0, aggrin_queue=0, aggrutil=50.00%\n"
        );
        assert_eq!(
            line(Release::V3_36),
            "    dm-0: ios=10/20, sectors=80/160, merge=0/0, ticks=0/0, in_queue=0, util=50.00%, \
             aggrios=6/12, aggsectors=48/96, aggrmerge=0/0, aggrticks=0/0, aggrin_queue=0, \
             aggrutil=50.00%\n"
        );
        let json = |release| {
            let o = crate::output::json::disk_obj_with(&dm, dm.aggregate(), release);
            let text = o.to_document();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            v.as_object().unwrap().keys().cloned().collect::<Vec<_>>()
        };
        let old = json(Release::V3_35);
        assert!(!old.iter().any(|k| k.contains("sectors")), "{old:?}");
        let new = json(Release::V3_42);
        assert_eq!(new[3..5], ["read_sectors", "write_sectors"]);
        assert_eq!(new.len(), old.len() + 4);
        assert!(new.contains(&"aggr_write_sectors".to_string()));
    }

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
    fn ctime_reads_as_the_c_library_in_any_zone() {
        // 2026-11-29 22:07:12 UTC, a Sunday.
        assert_eq!(ctime(1_795_990_032, 0), "Sun Nov 29 22:07:12 2026");
        assert_eq!(ctime(1_795_990_032, 3600), "Sun Nov 29 23:07:12 2026");
        assert_eq!(ctime(1_795_990_032, 7200), "Mon Nov 30 00:07:12 2026");
        assert_eq!(ctime(0, -5 * 3600), "Wed Dec 31 19:00:00 1969");
        assert_eq!(ctime(951_782_400, 0), "Tue Feb 29 00:00:00 2000");
        // What the C library says, in the zone it runs in.
        for secs in [0i64, 951_782_400, 1_795_990_032, 4_102_444_800] {
            let t = secs as libc::time_t;
            // SAFETY: an all-zero `tm` is valid, localtime_r writes only it.
            let mut tm: libc::tm = unsafe { std::mem::zeroed() };
            // SAFETY: both pointers are valid for the call.
            assert!(!unsafe { libc::localtime_r(&t, &mut tm) }.is_null());
            // SAFETY: ctime_r writes at most 26 bytes into the buffer.
            let mut buf = [0 as libc::c_char; 64];
            assert!(!unsafe { libc::ctime_r(&t, buf.as_mut_ptr()) }.is_null());
            // SAFETY: ctime_r wrote a NUL-terminated string.
            let c = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
            let c = c.to_string_lossy();
            assert_eq!(ctime(secs, tm.tm_gmtoff as i64), c.trim_end());
        }
    }

    #[test]
    fn strerror_is_the_c_text() {
        assert_eq!(strerror(2), "No such file or directory");
    }
}
