//! The workload: one OS thread per job, groups one after another.
//!
//! The options come resolved in each job's `JobSpec` (`plan::resolve`):
//! nothing here looks an option up by name.
//!
//! `runner` runs the plan's groups and checks what must hold before
//! anything is written (`safety`); `job` is one job's engine and I/O loop,
//! `exec` its I/O loop, `settings` what the loop reads beyond the spec's
//! plain fields, `layout` how its files are laid out, `clock` its time
//! base. `progress` is what the jobs publish while they
//! run (the status line's numbers) and the request that stops them all.
//! The generators the loop calls per I/O are public:
//! `offsets` (with `bs`, `ddir`) says what the next I/O is, `rate` and
//! `think` when, `buffers` what a write carries; they draw from fio's
//! random number generators ([`crate::rand`]).

pub mod bs;
pub mod buffers;
mod clock;
pub mod ddir;
pub mod dedupe;
mod errno;
mod error;
mod exec;
mod job;
mod lat_target;
mod layout;
mod log;
pub mod offsets;
mod placement;
pub mod progress;
pub mod rate;
mod runner;
mod safety;
pub mod think;
mod thread;
mod verify;
pub mod zones;

pub use error::RunError;
pub use job::SYNC_DEPTH_NOTE;
pub use log::{Log, StdLog};
pub use progress::Progress;
pub use runner::{refusal_when_added, run, run_with_log, run_with_progress, MAX_RUN_JOBS};
