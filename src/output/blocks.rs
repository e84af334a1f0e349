//! `block_error_percentiles` in the normal and JSON outputs (fio's
//! `show_block_infos` and the `block` object of `show_thread_status_json`):
//! a job's (or a group's last member's) block trim counts at each
//! percentile, and its blocks per state. See [`crate::stats::blocks`].

use std::io::{self, Write};

use super::cfmt::fw;
use super::jsonw::Obj;
use crate::stats::blocks::STATE_NAMES;
use crate::stats::summary::Entry;
use crate::stats::RunReport;

/// fio's `LINE_LENGTH`: where the percentile line wraps.
const LINE_LENGTH: usize = 75;

/// The block words of entry `e`: its last member's (fio copies each
/// member's over the group's in turn).
fn blocks<'a>(report: &'a RunReport, e: &Entry) -> Option<&'a crate::stats::BlockInfos> {
    report.jobs.get(e.last_job)?.blocks.as_ref()
}

/// The normal output's lines, after the `latency` line: fio prints the
/// heading and the states even when no block was trimmed.
pub(crate) fn normal(out: &mut dyn Write, report: &RunReport, e: &Entry) -> io::Result<()> {
    let Some(b) = blocks(report, e) else {
        return Ok(());
    };
    let list = &e.cfg.percentiles.list;
    let p = b.percentiles(list);
    out.write_all(b"  block lifetime percentiles :\n   |")?;
    let mut pos = 0;
    for (i, (pct, trims)) in list.iter().zip(&p.trims).enumerate() {
        let end = if i + 1 == p.trims.len() { '\n' } else { ',' };
        let item = format!(" {}th={trims}{end}", fw(*pct, 3, 2));
        if pos + item.len() > LINE_LENGTH {
            pos = 0;
            out.write_all(b"\n   |")?;
        }
        out.write_all(item.as_bytes())?;
        pos += item.len();
    }
    out.write_all(b"        states               :")?;
    for (i, (name, n)) in STATE_NAMES.iter().zip(p.states).enumerate() {
        let end = if i + 1 == STATE_NAMES.len() {
            '\n'
        } else {
            ','
        };
        write!(out, " {name}={n}{end}")?;
    }
    Ok(())
}

/// The JSON `block` object, when some block was trimmed.
pub(crate) fn json(report: &RunReport, e: &Entry) -> Option<Obj<'static>> {
    let b = blocks(report, e)?;
    let list = &e.cfg.percentiles.list;
    let p = b.percentiles(list);
    if p.trims.is_empty() {
        return None;
    }
    let mut pct = Obj::new();
    for (v, trims) in list.iter().zip(&p.trims) {
        pct.int(format!("{v:.6}"), *trims);
    }
    let mut states = Obj::new();
    for (name, n) in STATE_NAMES.iter().zip(p.states) {
        states.int(*name, n);
    }
    let mut block = Obj::new();
    block.obj("percentiles", pct).obj("states", states);
    Some(block)
}
