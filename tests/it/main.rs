//! The integration tests, in one binary (one link, one run; as ripgrep and
//! nextest do). Each module is one area; `common` holds their shared helpers.
//! The tests that measure an rfio process's peak memory live in
//! `tests/memory` (a child inherits its parent's RSS high-water mark).

mod common;

mod architecture;
mod baseline;
mod byte_paths;
mod cli;
mod client;
mod cmdhelp;
mod cmdprio;
mod compat;
mod conformance;
mod corpus_coverage;
mod dedupe;
mod engines;
mod engines_more;
mod engines_net2;
mod engines_stuck;
mod eta;
mod file_options;
mod fill_device;
mod fio_tools;
mod flags;
mod flow;
mod fuzz_corpus;
mod grammar;
mod harness;
mod iolog;
mod latency;
mod latency_stats;
mod lint;
mod log_compression;
mod ndjson;
mod offsets_passes;
mod open_errors;
mod output_errors;
mod output_golden;
mod output_layout;
mod output_logs;
mod output_replay;
mod patterns;
mod placement;
mod plan;
mod plot;
mod releases;
mod repeat;
mod report_entries;
mod report_fields;
mod report_serde;
mod run_basic;
mod safety;
mod server;
mod signals;
mod stats_options;
mod status_interval;
mod steadystate;
mod verify;
mod verify_trim;
mod zbd;
mod zones;
