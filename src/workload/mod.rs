//! The workload: one OS thread per job, groups one after another.
//!
//! The options come resolved in each job's `JobSpec` (`plan::resolve`):
//! nothing here looks an option up by name.
//!
//! `iolog` writes the I/O logs of `write_iolog` and reads the logs jobs
//! replay (`read_iolog`). `runner` runs the plan's groups and checks what must hold before
//! anything is written (`safety`); `job` is one job made ready to run
//! (`regions`: its files sized), `thread` its thread, `exec` its I/O loop
//! (and, in `exec::hooks`, what verify, the latency target, the I/O logs,
//! zones, flows and act add to it), `layout` how its files are laid out,
//! `clock` its time base (a trait: tests run the loop on a fake clock).
//! `steadystate` stops a job whose IOPS or bandwidth have settled
//! (`ss_dur`). `progress` is what the jobs publish while they run (the status
//! line's numbers); `stop` the request that stops them, which the runner
//! is given and hands down (rfio's signal handler raises it). `links` is
//! what the jobs of a run share: their flows (`flow`) and, for offloaded
//! jobs, the I/O ranges in flight; `offload` is `io_submit_mode=offload`'s
//! pool of submit workers.
//! The generators the loop calls per I/O are public:
//! `offsets` (with `bs`, `ddir`) says what the next I/O is, `rate` and
//! `think` when, `buffers` what a write carries; they draw from fio's
//! random number generators ([`crate::rand`]).

mod act;
pub(crate) mod agg;
pub mod bs;
pub mod buffers;
mod clock;
mod cpus;
pub(crate) mod ddir;
pub mod dedupe;
mod errno;
mod error;
mod exec;
mod flow;
mod gtod;
mod host;
pub(crate) mod idle;
pub(crate) mod iolog;
mod iosched;
mod job;
mod lat_target;
mod layout;
mod links;
mod lock;
mod log;
mod offload;
pub mod offsets;
mod placement;
pub(crate) mod progress;
pub mod rate;
mod regions;
mod runner;
mod safety;
mod steadystate;
mod stop;
pub mod think;
mod thread;
pub(crate) mod tsc;
mod verify;
pub mod zbd;
pub(crate) mod zones;

pub use error::RunError;
pub use log::Log;
pub(crate) use log::StdLog;
pub(crate) use progress::Progress;
pub(crate) use runner::refusal_when_added;
pub(crate) use runner::run_with_progress;
pub use runner::{run, run_with_log};
pub(crate) use stop::Stop;
pub(crate) use tsc::anchor as anchor_clock;
pub(crate) use verify::checksum;
