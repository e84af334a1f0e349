//! fio's normal (human) output, fio 3.33 layout (`stat.c`
//! `show_thread_status_normal`, `show_group_stats`; banner from `init.c`).
//!
//! Printed so far: job banners, version, `Starting …`, `Laying out …`, the
//! per-job block (IOPS/BW line and clat line per direction) and the group
//! summaries. Not yet: slat/lat lines, percentiles, bw/iops samples, latency
//! buckets, cpu, IO depths, issued counts, disk stats, group_reporting.

use std::fmt::Write;

use super::num2str::{num2str, Unit};
use crate::options::Value;
use crate::plan::spec::{JobSpec, Plan};
use crate::stats::{DirReport, LatSummary, RunReport};

/// fio's `significant_figures` default.
const SIG_FIGS: usize = 4;
const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];
const GROUP_LABELS: [&str; 3] = ["   READ", "  WRITE", "   TRIM"];

/// The whole normal output of a run of `plan` that produced `report`.
pub fn render(report: &RunReport, plan: &Plan) -> String {
    let mut out = String::new();
    out.push_str(&banners(plan));
    out.push_str("fio-3.33\n");
    out.push_str(&starting(plan));
    out.push_str(&render_results(report));
    out
}

/// What fio prints once the jobs have run: file layout lines, one block per
/// job and the group summaries.
pub fn render_results(report: &RunReport) -> String {
    let mut out = String::new();
    for j in &report.jobs {
        if let Some(l) = j.layout {
            let s = if l.files > 1 { "s" } else { "" };
            let total = if l.files > 1 { "total " } else { "" };
            let _ = writeln!(
                out,
                "{}: Laying out IO file{s} ({} file{s} / {total}{}MiB)",
                j.name,
                l.files,
                l.bytes >> 20
            );
        }
    }
    out.push('\n');
    for j in report.jobs.iter().filter(|j| j.did_io()) {
        let members = 1;
        let _ = write!(
            out,
            "{}: (groupid={}, jobs={members}): err={:2}",
            j.name, j.group_id, j.error
        );
        if j.error != 0 {
            let msg = j.error_msg.as_deref().unwrap_or("");
            let _ = write!(out, " ({msg})");
        }
        let _ = writeln!(out, ": pid={}: {}", j.pid, ctime(report.finished_at));
        for (d, r) in j.dirs.iter().enumerate() {
            if r.bytes > 0 {
                dir_block(&mut out, d, r);
            }
        }
    }
    for g in &report.groups {
        let _ = writeln!(out, "\nRun status group {} (all jobs):", g.id);
        for (d, gd) in g.dirs.iter().enumerate() {
            let Some(gd) = gd else { continue };
            let bw = |n| num2str(n, SIG_FIGS, true, Unit::BytePerSec);
            let bw_alt = |n| num2str(n, SIG_FIGS, false, Unit::BytePerSec);
            let _ = writeln!(
                out,
                "{}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
                GROUP_LABELS[d],
                bw(gd.agg_bw),
                bw_alt(gd.agg_bw),
                bw(gd.min_bw),
                bw(gd.max_bw),
                bw_alt(gd.min_bw),
                bw_alt(gd.max_bw),
                num2str(gd.bytes, SIG_FIGS, true, Unit::Byte),
                num2str(gd.bytes, SIG_FIGS, false, Unit::Byte),
                gd.min_run_ms,
                gd.max_run_ms
            );
        }
    }
    out
}

/// The per-job banners printed while jobs are added (`init.c` `add_job`);
/// `numjobs` clones collapse into one `...` line.
pub fn banners(plan: &Plan) -> String {
    let mut out = String::new();
    for (i, j) in plan.jobs.iter().enumerate() {
        if j.subjob != 0 {
            continue;
        }
        let bs = |d: usize| {
            let (lo, hi) = j.bs[d];
            format!(
                "{}-{}",
                num2str(lo, SIG_FIGS, true, Unit::Byte),
                num2str(hi, SIG_FIGS, true, Unit::Byte)
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
        if plan.jobs.get(i + 1).is_some_and(|n| n.subjob != 0) {
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

/// One direction's lines of a job block (`show_ddir_status`).
fn dir_block(out: &mut String, d: usize, r: &DirReport) {
    let suffix = if d == 1 { "; 0 zone resets" } else { "" };
    let _ = writeln!(
        out,
        "  {}: IOPS={}, BW={} ({})({}/{}msec){suffix}",
        DIR_NAMES[d],
        num2str(r.iops, SIG_FIGS, false, Unit::None),
        num2str(r.bw, SIG_FIGS, true, Unit::BytePerSec),
        num2str(r.bw, SIG_FIGS, false, Unit::BytePerSec),
        num2str(r.bytes, SIG_FIGS, true, Unit::Byte),
        r.runtime_ms
    );
    if let Some(c) = &r.clat {
        out.push_str(&lat_line("    clat", c));
    }
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
        "{name} ({unit}): min={}, max={}, avg={:5.02}, stdev={:5.02}\n",
        num2str(s.min / div, 6, false, Unit::None),
        num2str(s.max / div, 6, false, Unit::None),
        s.mean / div as f64,
        s.stddev / div as f64
    )
}

/// `ctime(3)` without the newline, in local time: `Sun Nov 29 22:07:43 2026`.
fn ctime(secs: i64) -> String {
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
}
