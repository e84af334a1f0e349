//! Options of fio's built-in profiles (`--profile=tiobench`, `--profile=act`).
//!
//! fio 3.33 registers them at start-up, so every job file may set them
//! (`threads=1` in the Debian examples `steadystate.fio` and `waitfor.fio`)
//! and `--showcmd` prints them, although they only matter to a profile run.
//! `--cmdhelp` does not list them. rfio accepts and ignores them. tiobench's
//! `size` is left out: the core `size` answers to that name.

use super::def::{FioType, OptionDef, Split, Support, TimeUnit, ValueKind};

const fn profile(
    name: &'static str,
    fio_type: FioType,
    kind: ValueKind,
    default: Option<&'static str>,
    category: &'static str,
    help: &'static str,
) -> OptionDef {
    OptionDef {
        name,
        aliases: &[],
        fio_type,
        kind,
        time_unit: TimeUnit::Seconds,
        split: Split::One,
        default,
        min: None,
        max: None,
        posvals: &[],
        prio: 0,
        parent: None,
        category,
        help,
        engines: &[],
        support: Support::Ignored,
    }
}

const TIOBENCH: &str = "Tiobench profile options";
const ACT: &str = "Act profile options";

pub(crate) static PROFILE_OPTIONS: &[OptionDef] = &[
    profile(
        "block",
        FioType::Int,
        ValueKind::Int,
        Some("4096"),
        TIOBENCH,
        "Block size in bytes",
    ),
    profile(
        "numruns",
        FioType::Int,
        ValueKind::Int,
        None,
        TIOBENCH,
        "Number of runs",
    ),
    profile(
        "dir",
        FioType::StrStore,
        ValueKind::Text,
        None,
        TIOBENCH,
        "Test directory",
    ),
    profile(
        "threads",
        FioType::Int,
        ValueKind::Int,
        None,
        TIOBENCH,
        "Number of threads",
    ),
    profile(
        "device-names",
        FioType::StrStore,
        ValueKind::Text,
        None,
        ACT,
        "Devices to use",
    ),
    profile(
        "load",
        FioType::Int,
        ValueKind::Int,
        Some("1"),
        ACT,
        "ACT load multiplier",
    ),
    profile(
        "test-duration",
        FioType::StrValTime,
        ValueKind::Time,
        Some("24h"),
        ACT,
        "How long the test runs",
    ),
    profile(
        "threads-per-queue",
        FioType::Int,
        ValueKind::Int,
        Some("8"),
        ACT,
        "Read threads per device",
    ),
    profile(
        "read-req-num-512-blocks",
        FioType::Int,
        ValueKind::Int,
        Some("3"),
        ACT,
        "Read size in 512b blocks",
    ),
    profile(
        "large-block-op-kbytes",
        FioType::Int,
        ValueKind::Int,
        Some("131072"),
        ACT,
        "Large block write size in KiB",
    ),
    profile(
        "prep",
        FioType::StrSet,
        ValueKind::Flag,
        None,
        ACT,
        "Run the ACT preparation phase",
    ),
];
