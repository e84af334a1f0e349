//! Where each field of fio's `thread_stat` sits in a TS body, per wire
//! version, derived from one table of field sizes (fio's `stat.h` is a
//! packed struct with one 8-aligned member, `sync_stat`, which also makes
//! the struct's size a multiple of 8).
//!
//! | versions | fio | change |
//! |---|---|---|
//! | 97..=100 | 3.33–3.35 | the 3.33 struct |
//! | 101..=113 | 3.36–3.41 | `job_start` (u64) after `groupid` |
//! | 114 | (development) | `nr_zone_resets` moved after `unit_base`, `count_zone_resets` |
//! | 115..=120 | 3.42 | a third steady-state ring (`ss_lat_data_offset`) |
//!
//! IOLOG headers and samples change at other versions ([`IologLayout`]).

/// One field of `thread_stat` (the order of the table, not its offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum F {
    Name,
    Verror,
    Error,
    ThreadNumber,
    GroupId,
    JobStart,
    Pid,
    Description,
    Members,
    UnifiedRwRep,
    DisablePrioStat,
    SyncStat,
    ClatStat,
    SlatStat,
    LatStat,
    BwStat,
    IopsStat,
    UsrTime,
    SysTime,
    Ctx,
    Minf,
    Majf,
    ClatPercentiles,
    LatPercentiles,
    SlatPercentiles,
    PercentilePrecision,
    PercentileList,
    IoUMap,
    IoUSubmit,
    IoUComplete,
    IoULatN,
    IoULatU,
    IoULatM,
    IoUPlat,
    IoUSyncPlat,
    TotalIoU,
    ShortIoU,
    DropIoU,
    TotalSubmit,
    TotalComplete,
    IoBytes,
    Runtime,
    TotalRunTime,
    ContinueOnError,
    FirstError,
    TotalErrCount,
    NrZoneResets,
    NrBlockInfos,
    BlockInfos,
    KbBase,
    UnitBase,
    CountZoneResets,
    LatencyDepth,
    LatencyTarget,
    LatencyPercentile,
    LatencyWindow,
    SigFigs,
    SsDur,
    SsState,
    SsHead,
    SsLimit,
    SsSlope,
    SsDeviation,
    SsCriterion,
    Ioprio,
    SsIopsOffset,
    SsBwOffset,
    SsLatOffset,
    ClatPrioOffset,
    NrClatPrio,
    Cachehit,
    Cachemiss,
    /// Padding (never read).
    Pad,
    /// Padding up to the next multiple of 8 (before `sync_stat`).
    Align8,
}

const NF: usize = F::Align8 as usize + 1;

/// fio's `io_stat`: max, min, samples (u64), mean, S (16-byte floats).
pub(crate) const IO_STAT: usize = 56;
/// fio's `FIO_IO_U_PLAT_NR` buckets of a latency histogram.
pub(crate) const PLAT_NR: usize = crate::stats::hist::PLAT_NR;
/// `MAX_NR_BLOCK_INFOS`.
pub(crate) const MAX_BLOCK_INFOS: usize = 8192;
/// `group_run_stats`.
pub(crate) const GS_LEN: usize = 164;
/// One `clat_prio_stat` record of the TS extension: histogram, `io_stat`,
/// `ioprio`, padding.
pub(crate) const CLAT_PRIO_LEN: usize = PLAT_NR * 8 + IO_STAT + 8;

/// The layouts of `thread_stat`, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// 97..=100 (fio 3.33–3.35).
    V97,
    /// 101..=113 (fio 3.36–3.41).
    V101,
    /// 114 (between 3.41 and 3.42).
    V114,
    /// 115..=120 (fio 3.42).
    V115,
}

/// Which families a table row belongs to.
#[derive(Clone, Copy)]
enum In {
    All,
    Since101,
    Before114,
    Since114,
    Since115,
}

impl In {
    fn has(self, f: Family) -> bool {
        match self {
            In::All => true,
            In::Since101 => f != Family::V97,
            In::Before114 => matches!(f, Family::V97 | Family::V101),
            In::Since114 => matches!(f, Family::V114 | Family::V115),
            In::Since115 => f == Family::V115,
        }
    }
}

/// `thread_stat`, field by field: what, bytes, in which layouts.
const TS_FIELDS: &[(F, usize, In)] = &[
    (F::Name, 128, In::All),
    (F::Verror, 128, In::All),
    (F::Error, 4, In::All),
    (F::ThreadNumber, 4, In::All),
    (F::GroupId, 4, In::All),
    (F::JobStart, 8, In::Since101),
    (F::Pid, 4, In::All),
    (F::Description, 256, In::All),
    (F::Members, 4, In::All),
    (F::UnifiedRwRep, 4, In::All),
    (F::DisablePrioStat, 4, In::All),
    (F::Align8, 0, In::All),
    (F::SyncStat, IO_STAT, In::All),
    (F::ClatStat, 3 * IO_STAT, In::All),
    (F::SlatStat, 3 * IO_STAT, In::All),
    (F::LatStat, 3 * IO_STAT, In::All),
    (F::BwStat, 3 * IO_STAT, In::All),
    (F::IopsStat, 3 * IO_STAT, In::All),
    (F::UsrTime, 8, In::All),
    (F::SysTime, 8, In::All),
    (F::Ctx, 8, In::All),
    (F::Minf, 8, In::All),
    (F::Majf, 8, In::All),
    (F::ClatPercentiles, 4, In::All),
    (F::LatPercentiles, 4, In::All),
    (F::SlatPercentiles, 4, In::All),
    (F::Pad, 4, In::All),
    (F::PercentilePrecision, 8, In::All),
    (F::PercentileList, 20 * 16, In::All),
    (F::IoUMap, 7 * 8, In::All),
    (F::IoUSubmit, 7 * 8, In::All),
    (F::IoUComplete, 7 * 8, In::All),
    (F::IoULatN, 10 * 8, In::All),
    (F::IoULatU, 10 * 8, In::All),
    (F::IoULatM, 12 * 8, In::All),
    (F::IoUPlat, 3 * 3 * PLAT_NR * 8, In::All),
    (F::IoUSyncPlat, PLAT_NR * 8, In::All),
    (F::TotalIoU, 4 * 8, In::All),
    (F::ShortIoU, 3 * 8, In::All),
    (F::DropIoU, 3 * 8, In::All),
    (F::TotalSubmit, 8, In::All),
    (F::TotalComplete, 8, In::All),
    (F::IoBytes, 3 * 8, In::All),
    (F::Runtime, 3 * 8, In::All),
    (F::TotalRunTime, 8, In::All),
    // A u16 in a union with a u32.
    (F::ContinueOnError, 4, In::All),
    (F::FirstError, 4, In::All),
    (F::TotalErrCount, 8, In::All),
    (F::NrZoneResets, 8, In::Before114),
    (F::NrBlockInfos, 8, In::All),
    (F::BlockInfos, MAX_BLOCK_INFOS * 4, In::All),
    (F::KbBase, 4, In::All),
    (F::UnitBase, 4, In::All),
    (F::NrZoneResets, 8, In::Since114),
    (F::CountZoneResets, 2, In::Since114),
    (F::Pad, 2, In::Since114),
    (F::LatencyDepth, 4, In::All),
    (F::Pad, 4, In::Before114),
    (F::LatencyTarget, 8, In::All),
    (F::LatencyPercentile, 16, In::All),
    (F::LatencyWindow, 8, In::All),
    (F::SigFigs, 4, In::All),
    (F::SsDur, 8, In::All),
    (F::SsState, 4, In::All),
    (F::SsHead, 4, In::All),
    (F::SsLimit, 16, In::All),
    (F::SsSlope, 16, In::All),
    (F::SsDeviation, 16, In::All),
    (F::SsCriterion, 16, In::All),
    (F::Ioprio, 4, In::All),
    (F::SsIopsOffset, 8, In::All),
    (F::SsBwOffset, 8, In::All),
    (F::SsLatOffset, 8, In::Since115),
    (F::ClatPrioOffset, 3 * 8, In::All),
    (F::NrClatPrio, 3 * 4, In::All),
    (F::Cachehit, 8, In::All),
    (F::Cachemiss, 8, In::All),
];

/// An offset no body reaches: reads of an absent field give 0, writes
/// are dropped (and `at + len` cannot overflow).
const ABSENT: usize = usize::MAX / 4;

/// The TS body of one wire version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) version: u16,
    pub(crate) family: Family,
    off: [usize; NF],
    /// `sizeof(struct thread_stat)`.
    pub(crate) ts_size: usize,
    /// Where the job's `group_run_stats` starts (= `ts_size`).
    pub(crate) gs_at: usize,
    /// The TS body without extensions (`sizeof(struct cmd_ts_pdu)`).
    pub(crate) body_len: usize,
    /// Steady-state rings in the extension (2, or 3 from 115).
    pub(crate) ss_rings: usize,
}

impl Layout {
    /// The offset of `f` ([`Layout::has`] says whether it exists).
    pub(crate) fn at(&self, f: F) -> usize {
        self.off[f as usize]
    }

    /// Whether this version's struct has `f`.
    pub(crate) fn has(&self, f: F) -> bool {
        self.off[f as usize] != ABSENT
    }
}

/// The family of wire `version`, if rfio knows its `thread_stat`.
pub(crate) fn family(version: u16) -> Option<Family> {
    match version {
        97..=100 => Some(Family::V97),
        101..=113 => Some(Family::V101),
        114 => Some(Family::V114),
        115..=120 => Some(Family::V115),
        _ => None,
    }
}

/// The TS layout of wire `version` (97 to 120).
pub(crate) fn layout(version: u16) -> Option<Layout> {
    let family = family(version)?;
    let mut off = [ABSENT; NF];
    let mut at = 0usize;
    for &(f, size, when) in TS_FIELDS {
        if !when.has(family) {
            continue;
        }
        if f == F::Align8 {
            at = at.next_multiple_of(8);
        }
        // A field in two places in the table is in one of them per family.
        if f != F::Pad && f != F::Align8 {
            off[f as usize] = at;
        }
        at += size;
    }
    let ts_size = at.next_multiple_of(8);
    Some(Layout {
        version,
        family,
        off,
        ts_size,
        gs_at: ts_size,
        body_len: (ts_size + GS_LEN).next_multiple_of(8),
        ss_rings: if family == Family::V115 { 3 } else { 2 },
    })
}

/// The IOLOG header and sample records of one wire version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IologLayout {
    /// `sizeof(struct cmd_iolog_pdu)`.
    pub(crate) header: usize,
    /// `log_issue_time` (107+).
    pub(crate) issue_time_at: Option<usize>,
    pub(crate) coarseness_at: usize,
    /// `per_job_logs` (102+).
    pub(crate) per_job_logs_at: Option<usize>,
    pub(crate) name_at: usize,
    /// A sample without its optional words: 32 bytes, or 40 with the
    /// value pair (avg, max) from 102 on.
    pub(crate) sample: usize,
}

/// The IOLOG layout of wire `version` (97 to 120): 3.33–3.36 (97..=101)
/// 288-byte header and 32-byte samples; 3.37 (102..=106) adds
/// `per_job_logs` and the value pair; 3.38+ (107..) `log_issue_time`.
pub(crate) fn iolog_layout(version: u16) -> Option<IologLayout> {
    match version {
        97..=101 => Some(IologLayout {
            header: 288,
            issue_time_at: None,
            coarseness_at: 28,
            per_job_logs_at: None,
            name_at: 32,
            sample: 32,
        }),
        102..=106 => Some(IologLayout {
            header: 296,
            issue_time_at: None,
            coarseness_at: 28,
            per_job_logs_at: Some(32),
            name_at: 36,
            sample: 40,
        }),
        107..=120 => Some(IologLayout {
            header: 296,
            issue_time_at: Some(28),
            coarseness_at: 32,
            per_job_logs_at: Some(36),
            name_at: 40,
            sample: 40,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_the_notes() {
        let l = layout(97).unwrap();
        assert_eq!((l.ts_size, l.body_len), (183_888, 184_056));
        assert!(!l.has(F::JobStart));
        for (f, at) in [
            (F::Pid, 268),
            (F::Description, 272),
            (F::Members, 528),
            (F::DisablePrioStat, 536),
            (F::SyncStat, 544),
            (F::ClatStat, 600),
            (F::BwStat, 1104),
            (F::PercentileList, 1504),
            (F::IoUPlat, 2248),
            (F::IoUSyncPlat, 135_880),
            (F::TotalIoU, 150_728),
            (F::IoBytes, 150_824),
            (F::ContinueOnError, 150_880),
            (F::NrZoneResets, 150_896),
            (F::BlockInfos, 150_912),
            (F::KbBase, 183_680),
            (F::LatencyDepth, 183_688),
            (F::SigFigs, 183_728),
            (F::SsDur, 183_732),
            (F::Ioprio, 183_812),
            (F::SsIopsOffset, 183_816),
            (F::ClatPrioOffset, 183_832),
            (F::NrClatPrio, 183_856),
            (F::Cachehit, 183_868),
            (F::Cachemiss, 183_876),
        ] {
            assert_eq!(l.at(f), at, "{f:?}");
        }
        let l = layout(101).unwrap();
        assert_eq!((l.ts_size, l.body_len), (183_896, 184_064));
        for (f, at) in [
            (F::JobStart, 268),
            (F::Pid, 276),
            (F::Description, 280),
            (F::Members, 536),
            (F::SyncStat, 552),
            (F::ClatStat, 608),
            (F::IoUPlat, 2256),
            (F::IoBytes, 150_832),
            (F::NrZoneResets, 150_904),
            (F::BlockInfos, 150_920),
            (F::KbBase, 183_688),
            (F::LatencyDepth, 183_696),
            (F::SsIopsOffset, 183_824),
            (F::ClatPrioOffset, 183_840),
            (F::NrClatPrio, 183_864),
            (F::Cachehit, 183_876),
            (F::Cachemiss, 183_884),
        ] {
            assert_eq!(l.at(f), at, "{f:?}");
        }
        let l = layout(120).unwrap();
        assert_eq!((l.ts_size, l.body_len, l.ss_rings), (183_904, 184_072, 3));
        for (f, at) in [
            (F::JobStart, 268),
            (F::IoBytes, 150_832),
            (F::TotalErrCount, 150_896),
            (F::NrBlockInfos, 150_904),
            (F::KbBase, 183_680),
            (F::NrZoneResets, 183_688),
            (F::CountZoneResets, 183_696),
            (F::LatencyDepth, 183_700),
            (F::SsIopsOffset, 183_824),
            (F::SsBwOffset, 183_832),
            (F::SsLatOffset, 183_840),
            (F::ClatPrioOffset, 183_848),
            (F::NrClatPrio, 183_872),
            (F::Cachehit, 183_884),
        ] {
            assert_eq!(l.at(f), at, "{f:?}");
        }
        let l = layout(114).unwrap();
        assert!(!l.has(F::SsLatOffset));
        assert_eq!(l.body_len, 184_064);
        for v in [97, 99, 100, 101, 103, 107, 111, 113, 120] {
            assert!(layout(v).is_some() && iolog_layout(v).is_some(), "{v}");
        }
        assert!(layout(96).is_none() && layout(121).is_none());
        assert_eq!(iolog_layout(103).unwrap().name_at, 36);
        assert_eq!(iolog_layout(120).unwrap().name_at, 40);
    }
}
