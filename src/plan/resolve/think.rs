//! Think time: `thinktime`, `thinktime_spin`, `thinktime_blocks`,
//! `thinktime_blocks_type`, `thinktime_iotime` (fio 3.33's
//! `handle_thinktime` reads them only with `thinktime` set), and
//! `thinkcycles` (fio 3.37), which spins with or without them.

use super::read::Opts;
use crate::release::{Change, Release};

/// What a job does between its I/Os (`JobSpec::think`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ThinkOptions {
    /// The pause after I/Os; `None` without `thinktime`.
    pub(crate) time: Option<ThinkTimeOptions>,
    /// `thinkcycles` (fio 3.37): spins of the CPU's pause instruction
    /// after each read or write, before any think time (fio's
    /// `cycles_spin`; an unsigned int in fio: a negative value wraps).
    pub(crate) cycles: u32,
}

/// A job's think time (`ThinkOptions::time`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ThinkTimeOptions {
    /// `thinktime` in µs (never 0).
    pub(crate) think_us: u64,
    /// `thinktime_spin` in µs.
    pub(crate) spin_us: u64,
    /// `thinktime_blocks` (at least 1), if set.
    pub(crate) blocks: Option<u64>,
    /// `thinktime_blocks_type=issue`: count issued instead of completed.
    pub(crate) on_issue: bool,
    /// `thinktime_iotime` in µs.
    pub(crate) iotime_us: u64,
    /// The pause ends with the runtime, `thinktime_iotime` counts from its
    /// end ([`Change::ThinkWithinRuntime`], fio 3.34).
    pub(crate) within_runtime: bool,
}

pub(super) fn resolve(o: Opts<'_>, release: Release) -> ThinkOptions {
    ThinkOptions {
        time: time(o, release),
        cycles: o.int_or_default("thinkcycles") as u32,
    }
}

/// `None` without `thinktime` (fio checks `td->o.thinktime` before
/// anything else).
fn time(o: Opts<'_>, release: Release) -> Option<ThinkTimeOptions> {
    let think_us = o.micros("thinktime");
    if think_us == 0 {
        return None;
    }
    Some(ThinkTimeOptions {
        think_us,
        spin_us: o.micros("thinktime_spin"),
        blocks: o.int("thinktime_blocks").map(|n| n.max(1) as u64),
        on_issue: o.choice("thinktime_blocks_type") == Some("issue"),
        iotime_us: o.micros("thinktime_iotime"),
        within_runtime: release.has(Change::ThinkWithinRuntime),
    })
}
