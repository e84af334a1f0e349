//! The static option table (placeholder; generated in a later commit).

use super::def::*;

pub static OPTIONS: &[OptionDef] = &[OptionDef {
    name: "name",
    aliases: &[],
    fio_type: FioType::StrStore,
    kind: ValueKind::Text,
    time_unit: TimeUnit::Seconds,
    split: Split::One,
    default: None,
    min: None,
    max: None,
    posvals: &[],
    prio: 0,
    parent: None,
    category: "Job description",
    help: "Name of this job",
    engines: &[],
    support: Support::Yes,
}];
