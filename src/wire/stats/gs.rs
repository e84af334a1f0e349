//! GS: fio's `group_run_stats` (164 bytes, packed, the same in every
//! version), a group's run totals ↔ [`GroupRun`]. The TS body ends with
//! one too (its job's group).

use super::layout::GS_LEN;
use super::units;
use crate::stats::summary::{GroupDirRun, GroupRun};
use crate::wire::{BodyError, Le, Put};

/// GS body of `g`.
pub(crate) fn encode_gs(g: &GroupRun) -> Vec<u8> {
    let mut p = Put::zeroed(GS_LEN);
    put_gs(&mut p, 0, g);
    p.b
}

/// The group of a GS body.
pub(crate) fn decode_gs(b: &[u8]) -> Result<GroupRun, BodyError> {
    read_gs(&Le::new("GS", b, GS_LEN)?, 0)
}

/// A direction no entry of the group ran: fio leaves min_run and min_bw
/// at `~0`, everything else 0.
fn unused(max_run: u64, min_run: u64, max_bw: u64, min_bw: u64, bytes: u64, agg: u64) -> bool {
    (max_run, min_run, max_bw, min_bw, bytes, agg) == (0, u64::MAX, 0, u64::MAX, 0, 0)
}

pub(super) fn put_gs(p: &mut Put, at: usize, g: &GroupRun) {
    for d in 0..3 {
        let r = g.dirs[d].unwrap_or(GroupDirRun {
            min_run: u64::MAX,
            min_bw: u64::MAX,
            ..GroupDirRun::default()
        });
        let o = at + d * 8;
        p.u64(o, r.max_run);
        p.u64(o + 24, r.min_run);
        p.u64(o + 48, r.max_bw);
        p.u64(o + 72, r.min_bw);
        p.u64(o + 96, r.bytes);
        p.u64(o + 120, r.agg);
    }
    p.u32(at + 144, g.kb_base);
    p.u32(at + 148, units::unit_base_to_fio(g.unit_base));
    p.u32(at + 152, g.sig_figs.min(u32::MAX as usize) as u32);
    p.u32(at + 156, g.id);
    p.u32(at + 160, u32::from(g.unified_bits));
}

pub(super) fn read_gs(r: &Le, at: usize) -> Result<GroupRun, BodyError> {
    let dirs = std::array::from_fn(|d| {
        let o = at + d * 8;
        let (max_run, min_run, max_bw, min_bw, bytes, agg) = (
            r.u64(o),
            r.u64(o + 24),
            r.u64(o + 48),
            r.u64(o + 72),
            r.u64(o + 96),
            r.u64(o + 120),
        );
        if unused(max_run, min_run, max_bw, min_bw, bytes, agg) {
            None
        } else {
            Some(GroupDirRun {
                bytes,
                agg,
                min_bw,
                max_bw,
                min_run,
                max_run,
            })
        }
    });
    let unified = r.u32(at + 160);
    let unified_bits = u8::try_from(unified).map_err(|_| BodyError::Bad {
        what: "GS",
        why: format!("unified_rw_rep {unified}"),
    })?;
    Ok(GroupRun {
        id: r.u32(at + 156),
        dirs,
        kb_base: r.u32(at + 144),
        unit_base: units::unit_base_from_fio(r.u32(at + 148)),
        sig_figs: r.u32(at + 152) as usize,
        unified_bits,
    })
}
