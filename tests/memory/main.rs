//! The tests that measure the peak memory of an rfio process, in a binary
//! of their own.
//!
//! A forked child starts with its parent's RSS high-water mark, and Linux
//! keeps it through `exec` (`ru_maxrss` of the child is at least what its
//! parent had resident when it forked). In the one big test binary
//! (`tests/it`) other tests make the parent large, so these measurements
//! run from this small process instead.

#[path = "../it/common/mod.rs"]
mod common;

mod buffer_memory;
mod inflate_log;
mod parse_scale;
mod repeat;
mod run_scale;
