//! The flags that run one of fio's self-tests instead of jobs, and exit:
//! `--crctest`, `--memcpytest`, `--cpuclock-test` and
//! `--idle-prof=calibrate`. fio runs the first such flag as soon as its
//! command-line parser meets it, and exits with the test's status.
//! Also the idle profiler that `--idle-prof=system|percpu` runs beside
//! the jobs ([`idle`]).

mod cpuclock;
mod crctest;
pub(crate) mod idle;
mod memcpytest;

use std::io::{self, Write};

/// What the tools refuse: each text is fio's, less its `fio: ` (the
/// command line prefixes it as it prefixes its own).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `--idle-prof=VALUE`, none of `calibrate`, `system`, `percpu`.
    #[error("incorrect idle-prof option: {0}")]
    IdleProfMode(String),
}

/// A self-test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tool {
    /// `--crctest[=LIST]`.
    CrcTest(Option<String>),
    /// `--memcpytest[=LIST]`.
    MemcpyTest(Option<String>),
    /// `--cpuclock-test`.
    CpuClockTest,
    /// `--idle-prof=calibrate`.
    IdleCalibrate,
}

/// Run `tool`; its exit status.
pub(crate) fn run(tool: &Tool, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let status = match tool {
        Tool::CrcTest(list) => crctest::run(list.as_deref(), out, err)?,
        Tool::MemcpyTest(list) => memcpytest::run(list.as_deref(), out, err)?,
        Tool::CpuClockTest => cpuclock::run(out, err)?,
        Tool::IdleCalibrate => idle::calibrate_only(out)?,
    };
    out.flush()?;
    Ok(status)
}
