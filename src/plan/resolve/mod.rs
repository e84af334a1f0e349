//! Options resolved once, into the typed parts of a [`JobSpec`]: what the
//! workload reads instead of looking options up by name. Each part has
//! its file, with fio's defaults and fix-ups (`init.c` `fixup_options`):
//!
//! - `io`: queue depth and batching, syncs, file handling, error policy,
//!   `exitall`, `clocksource` ([`IoOptions`]);
//! - `placement`: CPUs, priorities, locked and buffer memory, pre- and
//!   post-run commands ([`PlacementOptions`]);
//! - `rate`, `think`: when the next I/O may go ([`RateOptions`],
//!   [`ThinkOptions`]);
//! - `bs`: how block sizes are drawn ([`BlockOptions`]);
//! - `buffers`: what writes carry, dedupe working sets
//!   ([`BufferOptions`](buffers::BufferOptions));
//! - `zones`: strided zones and zoned block devices ([`ZoneMode`]);
//! - `random`: how the job's generators are seeded ([`SeedOptions`]; each
//!   job's seed table is `JobSpec::seeds`);
//! - `offsets`: where the I/O goes, the random distribution, the next
//!   file ([`OffsetOptions`]);
//! - `verify`: what a verifying job writes and checks ([`VerifyOptions`]);
//! - `exec`: what the I/O loop does besides the pattern ([`ExecOptions`]);
//! - `steadystate`: when a job stops on settled IOPS or bandwidth
//!   ([`SteadyStateOptions`](steadystate::SteadyStateOptions));
//! - `iolog`: I/O logs written and replayed
//!   ([`IologOptions`](iolog::IologOptions));
//! - `host`: user and group, `gtod_cpu`, NUMA (node lists read in `numa`),
//!   cgroup, `error_dump`, `block_error_percentiles`
//!   ([`HostOptions`](host::HostOptions));
//! - `sprandom`: SSD preconditioning writes and their fix-ups
//!   ([`sprandom::SprandomOptions`], in `OffsetOptions::sprandom`);
//! - `flow`, `submit`: flows shared between jobs ([`flow::FlowOptions`]),
//!   `io_submit_mode` ([`submit::SubmitOptions`]).
//!
//! A value rfio refuses in its own words is a plan error at the job's
//! span, raised only when the plan is to run: fio's dry runs
//! (`--parse-only`, `--showcmd`) skip the option callbacks that refuse
//! such values. A setting fio refuses when the job is set up, in fio's
//! words, is kept as a [`Refusal`] in its part, for the run to report as
//! fio does.
//!
//! [`JobSpec`]: crate::plan::JobSpec

pub(crate) mod bs;
pub(crate) mod buffers;
pub(crate) mod dataplacement;
pub(crate) mod defaults;
pub(crate) mod exec;
pub(crate) mod files;
pub(crate) mod flow;
pub(crate) mod host;
pub(crate) mod io;
pub(crate) mod iolog;
pub(crate) mod job;
pub(crate) mod numa;
pub(crate) mod offsets;
pub(crate) mod placement;
pub(crate) mod random;
pub(crate) mod rate;
pub(crate) mod read;
pub(crate) mod sprandom;
pub(crate) mod steadystate;
pub(crate) mod submit;
pub(crate) mod think;
pub(crate) mod verify;
pub(crate) mod zones;

pub(crate) use bs::BlockOptions;
pub(crate) use exec::ExecOptions;
pub(crate) use files::FileOptions;
pub(crate) use io::IoOptions;
pub(crate) use offsets::OffsetOptions;
pub(crate) use placement::PlacementOptions;
pub(crate) use random::SeedOptions;
pub(crate) use rate::RateOptions;
pub(crate) use think::ThinkOptions;
pub(crate) use verify::VerifyOptions;
pub(crate) use zones::ZoneMode;

/// A setting fio refuses when the job is set up: the message in fio's
/// words, without fio's `fio: ` (the run adds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal(pub(crate) String);
