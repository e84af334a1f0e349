//! The library's public surface, for the integration tests (`tests/it`)
//! and the benchmarks (`benches/compare.rs`): rfio is a program, not a
//! library with users to keep compatible. Besides this module the crate
//! exports only [`crate::cli::main`] (the binary's whole body) and
//! [`crate::front_end_check`] (the fuzz target's, and the replay of its
//! corpus). Every module but `cli` (for `main`) is private, and its items
//! are `pub(crate)` by default.
//!
//! Each re-export is here because a test or a benchmark drives that stage
//! of the pipeline directly (see the crate doc), to check its result
//! against fio without running the whole binary. Names that would clash
//! carry their stage (`render_json`, `lookup_engine`). The fields and
//! methods the tests use on these types are `pub`, and so are the types
//! those reach (a job's engine settings, its option settings, a report's
//! entries): public, but named nowhere outside the crate. Add to this
//! module only what a test or a benchmark needs.

// Command line (`crate::cli`): a plan from an argv, and the output formats
// it asks for.
pub use crate::cli::args::{parse as parse_args, Args};
pub use crate::cli::formats;

// Job files (`crate::jobfile`, `crate::diag`): the grammar and its spans
// (`tests/it/grammar.rs`), and the `$pagesize`-style keywords a front end
// substitutes.
pub use crate::diag::Span;
pub use crate::jobfile::subst::Keywords;
pub use crate::jobfile::{load, parse_bytes, JobFile};

// Options (`crate::options`): the table, and `--cmdhelp` / `--enghelp`,
// compared byte for byte with fio's (`tests/it/cmdhelp.rs`) and checked
// against the job-file corpus (`tests/it/corpus_coverage.rs`).
pub use crate::options::cmdhelp::{
    cmdhelp, cmdhelp_all, cmdhelp_output, enghelp, enghelp_cmd, enghelp_list, enghelp_output,
    valid_values, HelpOutput,
};
pub use crate::options::engines::ENGINES;
pub use crate::options::newest_table as newest_options;
pub use crate::options::table::OPTIONS;
pub use crate::options::{lookup as lookup_option, FioType, Support};

// The plan (`crate::plan`): the front end's result, each job's resolved
// settings, and the global options a report lists.
pub use crate::ddir::Ddir;
pub use crate::plan::report::global_options;
pub use crate::plan::{build as build_plan, Frontend, JobSpec, Plan};

// The run (`crate::workload`): a plan run in full (optionally with the
// live messages captured), and the per-job generators that
// `tests/it/patterns.rs` and `tests/it/dedupe.rs` step through I/O by I/O
// to compare their sequences with fio's.
pub use crate::workload::bs::BsGen;
pub use crate::workload::buffers::BufferFiller;
pub use crate::workload::dedupe::DedupePeers;
pub use crate::workload::offsets::{start_offset, FileRegion, IoGen};
pub use crate::workload::rate::RateLimiter;
pub use crate::workload::think::ThinkTime;
pub use crate::workload::{run, run_with_log, Log, RunError};

// Zoned block devices (`crate::workload::zbd`): a Linux block device's
// zone operations, tried on a loop device (`tests/it/zbd.rs`).
pub use crate::workload::zbd::blkzoned::BlkZoned;
pub use crate::workload::zbd::device::Emulated;
pub use crate::workload::zbd::types::{Model, Zone, ZoneCond, ZoneType};
pub use crate::workload::zbd::ZonedDevice;

// I/O engines (`crate::ioengine`): an engine started on its own, to probe
// what the kernel allows and to submit I/O by hand (`tests/it/engines.rs`,
// `tests/it/cmdprio.rs`).
pub use crate::ioengine::{
    flags as engine_flags, lookup as lookup_engine, names as engine_names, AlignedBuf,
    CommonOptions, EngineFlags, EngineSpec, FileTarget, Io, IoMem, OpenFlags, Queued,
};

// Statistics (`crate::stats`, `crate::logs`): a job's accumulators fed by
// hand, and the report types built from fio's own numbers, so that the
// printers can be compared with fio's text for the same results.
pub use crate::logs::sink as log_sink;
pub use crate::stats::cpu::CpuUsage;
pub use crate::stats::disk::{DiskCounters, DiskUtil};
pub use crate::stats::dist::{DepthMaps, LatBuckets};
pub use crate::stats::{
    ClatPrio, Completion, DirReport, JobInfo, JobReport, LatAccum, LatHist, RunReport, Summary,
    SyncReport, ThreadStats, Unified, NO_SLAT,
};

// Random numbers (`crate::rand`): fio's hash and zipf generator, checked
// against fio's sequences.
pub use crate::rand::{jhash, Zipf};

// Output (`crate::output`): each format rendered from a report.
pub use crate::output::json::render as render_json;
pub use crate::output::normal::{
    banners as normal_banners, render as render_normal, results as normal_results,
    starting as normal_starting,
};
pub use crate::output::terse::{field_names as terse_field_names, render as render_terse};
pub use crate::output::{notices, render_results, Formats};
