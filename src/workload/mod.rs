//! The workload: one OS thread per job, groups one after another.

mod job;
mod layout;
mod rng;
mod runner;

pub use runner::{run, RunError};
