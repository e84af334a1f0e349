//! TS: fio's `cmd_ts_pdu` (`thread_stat` + the job's `group_run_stats`),
//! one report entry ↔ [`Entry`] + [`GroupRun`], for every layout of
//! [`super::layout`], with the extension fio appends after the struct
//! (per-priority latencies, steady-state rings).
//!
//! What rfio does not keep travels as fio sends it for a job without it:
//! `block_infos` (count 0), `cachehit`/`cachemiss` (0). `job_start` is an
//! argument of [`encode_ts`] (read back by the tests).

use super::gs::{put_gs, read_gs};
use super::layout::{layout, Layout, CLAT_PRIO_LEN, F, IO_STAT, MAX_BLOCK_INFOS, PLAT_NR};
use super::units;
use crate::stats::config::{Unified, MAX_PERCENTILES};
use crate::stats::cpu::CpuUsage;
use crate::stats::dist::{DepthMaps, LatBuckets, LAT_M_NR, LAT_N_NR, LAT_U_NR, MAP_NR};
use crate::stats::hist::{fio_bucket_value, LatHist};
use crate::stats::summary::{ClatPrio, Entry, GroupRun};
use crate::stats::{DirReport, LatAccum, StatsConfig, SteadyStateReport, SyncReport};
use crate::wire::{BodyError, Le, Put};

/// fio's `FIO_SS_*` bits of `ss_state`.
const SS_IOPS: u32 = 1;
const SS_BW: u32 = 2;
const SS_SLOPE: u32 = 4;
const SS_ATTAINED: u32 = 8;
const SS_DATA: u32 = 32;
const SS_PCT: u32 = 64;
const SS_BUFFER_FULL: u32 = 128;
/// fio's `ERROR_TYPE_ANY`: `continue_on_error=all` (rfio keeps a flag).
const ERROR_TYPE_ANY: u16 = 0xffff;
/// `io_u_plat`'s first index: slat, clat, lat.
const PLAT_SLAT: usize = 0;
const PLAT_CLAT: usize = 1;
const PLAT_LAT: usize = 2;

fn unknown(version: u16) -> BodyError {
    BodyError::Bad {
        what: "TS",
        why: format!("no thread_stat layout for wire version {version}"),
    }
}

fn bad(why: String) -> BodyError {
    BodyError::Bad { what: "TS", why }
}

fn put_stat(p: &mut Put, at: usize, s: &LatAccum) {
    let (samples, min, max, mean, m2) = s.raw();
    p.u64(at, max);
    p.u64(at + 8, min);
    p.u64(at + 16, samples);
    p.fp64(at + 24, mean);
    p.fp64(at + 40, m2);
}

fn read_stat(r: &Le, at: usize) -> LatAccum {
    LatAccum::from_raw(
        r.u64(at + 16),
        r.u64(at + 8),
        r.u64(at),
        r.fp64(at + 24),
        r.fp64(at + 40),
    )
}

fn put_hist(p: &mut Put, at: usize, h: Option<&LatHist>) {
    let Some(h) = h else { return };
    let mut buckets = [0u64; PLAT_NR];
    h.fio_buckets(&mut buckets);
    for (k, n) in buckets.iter().enumerate() {
        p.u64(at + k * 8, *n);
    }
}

/// fio's buckets at `at` as a histogram (each count at its bucket's
/// value); `None` when all are zero.
fn read_hist(r: &Le, at: usize) -> Option<Box<LatHist>> {
    let mut h: Option<Box<LatHist>> = None;
    for k in 0..PLAT_NR {
        let n = r.u64(at + k * 8);
        if n > 0 {
            h.get_or_insert_with(Box::default)
                .record_n(fio_bucket_value(k), n);
        }
    }
    h
}

fn put_u64s(p: &mut Put, at: usize, v: &[u64]) {
    for (i, x) in v.iter().enumerate() {
        p.u64(at + i * 8, *x);
    }
}

fn read_u64s<const N: usize>(r: &Le, at: usize) -> [u64; N] {
    std::array::from_fn(|i| r.u64(at + i * 8))
}

/// TS body of `entry` (with its group's totals `group`) for wire
/// `version`, `job_start_ms` the job's start (epoch ms, sent from 101 on).
/// `None` for a version without a known layout.
pub(crate) fn encode_ts(
    e: &Entry,
    group: &GroupRun,
    version: u16,
    job_start_ms: u64,
) -> Option<Vec<u8>> {
    let l = layout(version)?;
    let nprio: usize = e.prios.iter().map(Vec::len).sum();
    let ss = e.steadystate.as_ref();
    let ss_data = ss.is_some_and(|s| !s.bw_data.is_empty() || !s.iops_data.is_empty());
    let ss_dur = ss.map_or(0, |s| s.duration as usize);
    let ring_len = if ss_data { ss_dur * 8 } else { 0 };
    let mut p = Put::zeroed(l.body_len + nprio * CLAT_PRIO_LEN + l.ss_rings * ring_len);
    p.cstr(l.at(F::Name), 128, &e.name);
    p.cstr(l.at(F::Verror), 128, &e.verror);
    p.u32(l.at(F::Error), e.error as u32);
    p.u32(l.at(F::ThreadNumber), e.thread_number);
    p.u32(l.at(F::GroupId), e.group_id);
    p.u64(l.at(F::JobStart), job_start_ms);
    p.u32(l.at(F::Pid), e.pid);
    let cfg = &e.cfg;
    p.cstr(
        l.at(F::Description),
        256,
        cfg.description.as_deref().unwrap_or(""),
    );
    p.u32(l.at(F::Members), e.members);
    p.u32(l.at(F::UnifiedRwRep), unified_code(cfg.unified));
    let keep_prios = e.prios.iter().any(|v| !v.is_empty());
    p.u32(l.at(F::DisablePrioStat), u32::from(!keep_prios));
    put_stat(&mut p, l.at(F::SyncStat), &e.sync.lat);
    for (d, dir) in e.dirs.iter().enumerate() {
        let o = d * IO_STAT;
        put_stat(&mut p, l.at(F::ClatStat) + o, &dir.clat);
        put_stat(&mut p, l.at(F::SlatStat) + o, &dir.slat);
        put_stat(&mut p, l.at(F::LatStat) + o, &dir.lat);
        put_stat(&mut p, l.at(F::BwStat) + o, &dir.bw_samples);
        put_stat(&mut p, l.at(F::IopsStat) + o, &dir.iops_samples);
        for (which, h) in [
            (PLAT_SLAT, &dir.slat_hist),
            (PLAT_CLAT, &dir.clat_hist),
            (PLAT_LAT, &dir.lat_hist),
        ] {
            put_hist(&mut p, plat_at(&l, which, d), h.as_deref());
        }
        p.u64(l.at(F::TotalIoU) + d * 8, dir.ios);
        p.u64(l.at(F::ShortIoU) + d * 8, dir.short_ios);
        p.u64(l.at(F::DropIoU) + d * 8, dir.drop_ios);
        p.u64(l.at(F::IoBytes) + d * 8, dir.bytes);
        p.u64(l.at(F::Runtime) + d * 8, dir.runtime_ms);
    }
    put_hist(&mut p, l.at(F::IoUSyncPlat), e.sync.hist.as_deref());
    p.u64(l.at(F::TotalIoU) + 24, e.sync.ios);
    let c = &e.cpu;
    p.u64(l.at(F::UsrTime), c.usr_ms);
    p.u64(l.at(F::SysTime), c.sys_ms);
    p.u64(l.at(F::Ctx), c.ctx);
    p.u64(l.at(F::Minf), c.minf);
    p.u64(l.at(F::Majf), c.majf);
    let pc = &cfg.percentiles;
    p.u32(l.at(F::ClatPercentiles), u32::from(pc.clat));
    p.u32(l.at(F::LatPercentiles), u32::from(pc.lat));
    p.u32(l.at(F::SlatPercentiles), u32::from(pc.slat));
    p.u64(l.at(F::PercentilePrecision), pc.precision as u64);
    for (i, v) in pc.list.iter().take(MAX_PERCENTILES).enumerate() {
        p.fp64(l.at(F::PercentileList) + i * 16, *v);
    }
    let dm = &e.depth;
    put_u64s(&mut p, l.at(F::IoUMap), &dm.depth);
    put_u64s(&mut p, l.at(F::IoUSubmit), &dm.submit);
    put_u64s(&mut p, l.at(F::IoUComplete), &dm.complete);
    p.u64(l.at(F::TotalSubmit), dm.total_submit);
    p.u64(l.at(F::TotalComplete), dm.total_complete);
    put_u64s(&mut p, l.at(F::IoULatN), &e.lat_buckets.n);
    put_u64s(&mut p, l.at(F::IoULatU), &e.lat_buckets.u);
    put_u64s(&mut p, l.at(F::IoULatM), &e.lat_buckets.m);
    p.u64(l.at(F::TotalRunTime), e.run_ms);
    let coe = if cfg.continue_on_error {
        ERROR_TYPE_ANY
    } else {
        0
    };
    p.u16(l.at(F::ContinueOnError), coe);
    p.u32(l.at(F::FirstError), e.first_error as u32);
    p.u64(l.at(F::TotalErrCount), e.total_err);
    p.u64(l.at(F::NrZoneResets), e.zone_resets);
    p.u16(l.at(F::CountZoneResets), u16::from(cfg.count_zone_resets));
    p.u32(l.at(F::KbBase), cfg.kb_base);
    p.u32(l.at(F::UnitBase), units::unit_base_to_fio(cfg.unit_base));
    p.u32(l.at(F::LatencyDepth), e.latency_depth);
    p.u64(l.at(F::LatencyTarget), cfg.latency_target_ns);
    p.fp64(l.at(F::LatencyPercentile), cfg.latency_percentile);
    p.u64(l.at(F::LatencyWindow), cfg.latency_window_us);
    p.u32(l.at(F::SigFigs), cfg.sig_figs.min(u32::MAX as usize) as u32);
    p.u32(l.at(F::Ioprio), u32::from(e.ioprio));
    put_gs(&mut p, l.gs_at, group);
    // The extension: priorities per direction, then the rings.
    let mut at = l.body_len;
    for (d, prios) in e.prios.iter().enumerate() {
        if prios.is_empty() {
            continue;
        }
        p.u64(l.at(F::ClatPrioOffset) + d * 8, at as u64);
        p.u32(l.at(F::NrClatPrio) + d * 4, prios.len() as u32);
        for c in prios {
            put_hist(&mut p, at, c.hist.as_deref());
            put_stat(&mut p, at + PLAT_NR * 8, &c.lat);
            p.u32(at + PLAT_NR * 8 + IO_STAT, u32::from(c.ioprio));
            at += CLAT_PRIO_LEN;
        }
    }
    if let Some(s) = ss {
        put_ss(&mut p, &l, s, ss_data, at);
    }
    Some(p.b)
}

fn plat_at(l: &Layout, which: usize, d: usize) -> usize {
    l.at(F::IoUPlat) + (which * 3 + d) * PLAT_NR * 8
}

fn unified_code(u: Unified) -> u32 {
    match u {
        Unified::None => 0,
        Unified::Mixed => 1,
        Unified::Both => 2,
    }
}

fn put_ss(p: &mut Put, l: &Layout, s: &SteadyStateReport, data: bool, mut at: usize) {
    let mut state = if s.iops { SS_IOPS } else { SS_BW };
    for (on, bit) in [
        (s.slope, SS_SLOPE),
        (s.attained, SS_ATTAINED),
        (data, SS_DATA),
        (s.pct, SS_PCT),
        (s.buffer_full, SS_BUFFER_FULL),
    ] {
        if on {
            state |= bit;
        }
    }
    p.u64(l.at(F::SsDur), s.duration);
    p.u32(l.at(F::SsState), state);
    p.u32(l.at(F::SsHead), s.head);
    p.fp64(l.at(F::SsLimit), s.limit);
    p.fp64(l.at(F::SsSlope), s.slope_value);
    p.fp64(l.at(F::SsDeviation), s.deviation);
    p.fp64(l.at(F::SsCriterion), s.criterion);
    if !data {
        return;
    }
    let dur = s.duration as usize;
    let empty: Vec<u64> = Vec::new();
    for (f, ring) in [
        (F::SsIopsOffset, &s.iops_data),
        (F::SsBwOffset, &s.bw_data),
        (F::SsLatOffset, &empty),
    ] {
        if !l.has(f) {
            continue;
        }
        p.u64(l.at(f), at as u64);
        for i in 0..dur {
            p.u64(at + i * 8, ring.get(i).copied().unwrap_or(0));
        }
        at += dur * 8;
    }
}

/// `job_start` (epoch ms) of a TS body of wire `version`; `None` before
/// 101 (and for a body too short or an unknown version).
#[cfg(test)]
pub(crate) fn ts_job_start(b: &[u8], version: u16) -> Option<u64> {
    let l = layout(version)?;
    if !l.has(F::JobStart) || b.len() < l.body_len {
        return None;
    }
    Some(Le { b }.u64(l.at(F::JobStart)))
}

/// The entry and its group's totals in a TS body of wire `version`.
/// [`Entry::last_job`] has no wire form: it is `usize::MAX`, for the
/// caller to set. Settings the TS does not carry are
/// [`StatsConfig::default`]'s.
pub(crate) fn decode_ts(b: &[u8], version: u16) -> Result<(Entry, GroupRun), BodyError> {
    let l = layout(version).ok_or_else(|| unknown(version))?;
    let r = Le::new("TS", b, l.body_len)?;
    let blocks = r.u64(l.at(F::NrBlockInfos));
    if blocks > MAX_BLOCK_INFOS as u64 {
        return Err(bad(format!("nr_block_infos {blocks} > {MAX_BLOCK_INFOS}")));
    }
    let unified = match r.u32(l.at(F::UnifiedRwRep)) {
        0 => Unified::None,
        1 => Unified::Mixed,
        2 => Unified::Both,
        n => return Err(bad(format!("unified_rw_rep {n}"))),
    };
    let ioprio = r.u32(l.at(F::Ioprio));
    let ioprio = u16::try_from(ioprio).map_err(|_| bad(format!("ioprio {ioprio:#x}")))?;
    let mut cfg = StatsConfig::default();
    let description = r.cstr(l.at(F::Description), 256);
    cfg.description = (!description.is_empty()).then_some(description);
    cfg.unified = unified;
    cfg.percentiles.clat = r.u32(l.at(F::ClatPercentiles)) != 0;
    cfg.percentiles.lat = r.u32(l.at(F::LatPercentiles)) != 0;
    cfg.percentiles.slat = r.u32(l.at(F::SlatPercentiles)) != 0;
    // Printed as a width: a peer's huge value must not reach the printers.
    cfg.percentiles.precision = r.u64(l.at(F::PercentilePrecision)).min(16) as usize;
    cfg.percentiles.list = (0..MAX_PERCENTILES)
        .map(|i| r.fp64(l.at(F::PercentileList) + i * 16))
        .take_while(|v| *v != 0.0)
        .collect();
    cfg.kb_base = r.u32(l.at(F::KbBase));
    cfg.unit_base = units::unit_base_from_fio(r.u32(l.at(F::UnitBase)));
    cfg.sig_figs = r.u32(l.at(F::SigFigs)) as usize;
    cfg.continue_on_error = r.u16(l.at(F::ContinueOnError)) != 0;
    cfg.latency_target_ns = r.u64(l.at(F::LatencyTarget));
    cfg.latency_window_us = r.u64(l.at(F::LatencyWindow));
    cfg.latency_percentile = r.fp64(l.at(F::LatencyPercentile));
    cfg.count_zone_resets = l.has(F::CountZoneResets) && r.u16(l.at(F::CountZoneResets)) != 0;
    let dirs = std::array::from_fn(|d| read_dir(&r, &l, d));
    let sync = SyncReport {
        ios: r.u64(l.at(F::TotalIoU) + 24),
        lat: read_stat(&r, l.at(F::SyncStat)),
        hist: read_hist(&r, l.at(F::IoUSyncPlat)),
    };
    let depth = DepthMaps {
        depth: read_u64s::<MAP_NR>(&r, l.at(F::IoUMap)),
        submit: read_u64s::<MAP_NR>(&r, l.at(F::IoUSubmit)),
        total_submit: r.u64(l.at(F::TotalSubmit)),
        complete: read_u64s::<MAP_NR>(&r, l.at(F::IoUComplete)),
        total_complete: r.u64(l.at(F::TotalComplete)),
    };
    let lat_buckets = LatBuckets {
        n: read_u64s::<LAT_N_NR>(&r, l.at(F::IoULatN)),
        u: read_u64s::<LAT_U_NR>(&r, l.at(F::IoULatU)),
        m: read_u64s::<LAT_M_NR>(&r, l.at(F::IoULatM)),
    };
    let cpu = CpuUsage {
        usr_ms: r.u64(l.at(F::UsrTime)),
        sys_ms: r.u64(l.at(F::SysTime)),
        ctx: r.u64(l.at(F::Ctx)),
        majf: r.u64(l.at(F::Majf)),
        minf: r.u64(l.at(F::Minf)),
    };
    let prios = read_prios(&r, &l)?;
    let steadystate = read_ss(&r, &l)?;
    let entry = Entry {
        name: r.cstr(l.at(F::Name), 128),
        group_id: r.u32(l.at(F::GroupId)),
        pid: r.u32(l.at(F::Pid)),
        job_start_ms: match l.has(F::JobStart) {
            true => r.u64(l.at(F::JobStart)),
            false => 0,
        },
        thread_number: r.u32(l.at(F::ThreadNumber)),
        members: r.u32(l.at(F::Members)),
        error: r.u32(l.at(F::Error)) as i32,
        verror: r.cstr(l.at(F::Verror), 128),
        cfg,
        dirs,
        sync,
        lat_buckets,
        depth,
        cpu,
        run_ms: r.u64(l.at(F::TotalRunTime)),
        total_err: r.u64(l.at(F::TotalErrCount)),
        first_error: r.u32(l.at(F::FirstError)) as i32,
        latency_depth: r.u32(l.at(F::LatencyDepth)),
        last_job: usize::MAX,
        ioprio,
        prios,
        steadystate,
        zone_resets: r.u64(l.at(F::NrZoneResets)),
    };
    let group = read_gs(&r, l.gs_at)?;
    Ok((entry, group))
}

/// Direction `d`, its bandwidth and IOPS as fio's client computes them
/// (`1000 * io_bytes / runtime`).
fn read_dir(r: &Le, l: &Layout, d: usize) -> DirReport {
    let bytes = r.u64(l.at(F::IoBytes) + d * 8);
    let ios = r.u64(l.at(F::TotalIoU) + d * 8);
    let runtime_ms = r.u64(l.at(F::Runtime) + d * 8);
    let per_sec = |n: u64| n.saturating_mul(1000).checked_div(runtime_ms).unwrap_or(0);
    let o = d * IO_STAT;
    DirReport {
        bytes,
        ios,
        short_ios: r.u64(l.at(F::ShortIoU) + d * 8),
        drop_ios: r.u64(l.at(F::DropIoU) + d * 8),
        runtime_ms,
        bw: per_sec(bytes),
        iops: per_sec(ios),
        slat: read_stat(r, l.at(F::SlatStat) + o),
        clat: read_stat(r, l.at(F::ClatStat) + o),
        lat: read_stat(r, l.at(F::LatStat) + o),
        slat_hist: read_hist(r, plat_at(l, PLAT_SLAT, d)),
        clat_hist: read_hist(r, plat_at(l, PLAT_CLAT, d)),
        lat_hist: read_hist(r, plat_at(l, PLAT_LAT, d)),
        bw_samples: read_stat(r, l.at(F::BwStat) + o),
        iops_samples: read_stat(r, l.at(F::IopsStat) + o),
    }
}

/// `count` records of `len` bytes at `at`, inside the body and not
/// overlapping the struct.
fn ext_range(
    r: &Le,
    l: &Layout,
    what: &str,
    at: u64,
    count: u64,
    len: usize,
) -> Result<usize, BodyError> {
    let end = count
        .checked_mul(len as u64)
        .and_then(|n| n.checked_add(at));
    match end {
        Some(end) if at >= l.body_len as u64 && end <= r.b.len() as u64 => Ok(at as usize),
        _ => Err(bad(format!(
            "{what}: {count} × {len} bytes at {at} outside the body ({} bytes)",
            r.b.len()
        ))),
    }
}

fn read_prios(r: &Le, l: &Layout) -> Result<[Vec<ClatPrio>; 3], BodyError> {
    let mut out: [Vec<ClatPrio>; 3] = Default::default();
    for (d, v) in out.iter_mut().enumerate() {
        let n = r.u32(l.at(F::NrClatPrio) + d * 4);
        if n == 0 {
            continue;
        }
        let off = r.u64(l.at(F::ClatPrioOffset) + d * 8);
        let mut at = ext_range(r, l, "clat_prio", off, u64::from(n), CLAT_PRIO_LEN)?;
        for _ in 0..n {
            let prio = r.u32(at + PLAT_NR * 8 + IO_STAT);
            v.push(ClatPrio {
                ioprio: u16::try_from(prio)
                    .map_err(|_| bad(format!("clat_prio ioprio {prio:#x}")))?,
                lat: read_stat(r, at + PLAT_NR * 8),
                hist: read_hist(r, at),
            });
            at += CLAT_PRIO_LEN;
        }
    }
    Ok(out)
}

fn read_ss(r: &Le, l: &Layout) -> Result<Option<SteadyStateReport>, BodyError> {
    let state = r.u32(l.at(F::SsState));
    let dur = r.u64(l.at(F::SsDur));
    if state == 0 && dur == 0 {
        return Ok(None);
    }
    let ring = |f: F| -> Result<Vec<u64>, BodyError> {
        if state & SS_DATA == 0 {
            return Ok(Vec::new());
        }
        let at = ext_range(r, l, "steady-state ring", r.u64(l.at(f)), dur, 8)?;
        Ok((0..dur as usize).map(|i| r.u64(at + i * 8)).collect())
    };
    Ok(Some(SteadyStateReport {
        iops: state & SS_IOPS != 0,
        slope: state & SS_SLOPE != 0,
        pct: state & SS_PCT != 0,
        limit: r.fp64(l.at(F::SsLimit)),
        duration: dur,
        attained: state & SS_ATTAINED != 0,
        buffer_full: state & SS_BUFFER_FULL != 0,
        head: r.u32(l.at(F::SsHead)),
        slope_value: r.fp64(l.at(F::SsSlope)),
        deviation: r.fp64(l.at(F::SsDeviation)),
        criterion: r.fp64(l.at(F::SsCriterion)),
        bw_data: ring(F::SsBwOffset)?,
        iops_data: ring(F::SsIopsOffset)?,
        // rfio's server speaks fio 3.33's layout, which has no latency ring.
        ..SteadyStateReport::default()
    }))
}
