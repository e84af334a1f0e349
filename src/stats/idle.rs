//! The result of fio's idle profiling (`--idle-prof`, fio's
//! `idletime.c`): how much CPU time the jobs left unused, measured by a
//! low-priority thread per CPU that counts units of work while the jobs
//! run, against the time one unit took when calibrated.

use serde::{Deserialize, Serialize};

/// What `--idle-prof` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IdleMode {
    /// `calibrate`: the unit of work only, no jobs.
    Calibrate,
    /// `system`: the idleness of the whole system.
    System,
    /// `percpu`: that of each CPU too.
    Percpu,
}

/// Idleness as fio reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleReport {
    pub(crate) mode: IdleMode,
    /// Per CPU (by number, every CPU configured), in percent.
    pub(crate) percpu: Vec<f64>,
    /// Microseconds one unit of work took, mean and standard deviation
    /// over the CPUs (0 when a CPU's thread could not run: fio then
    /// reports no idleness).
    pub(crate) unit_mean: f64,
    pub(crate) unit_stddev: f64,
}

impl IdleReport {
    /// The whole system's idleness in percent: the CPUs' mean (fio's
    /// `fio_idle_prof_cpu_stat(-1)`).
    pub(crate) fn system(&self) -> f64 {
        if self.percpu.is_empty() {
            return 0.0;
        }
        self.percpu.iter().sum::<f64>() / self.percpu.len() as f64
    }
}
