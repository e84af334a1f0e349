//! Statistics: per-thread accumulators filled in the I/O loop
//! ([`ThreadStats`]), the immutable [`RunReport`] built from them after the
//! threads are joined, and the [`Summary`] the output formats print (jobs
//! merged by `group_reporting`, group totals).

pub mod config;
pub mod cpu;
pub mod disk;
pub mod dist;
pub mod hist;
mod lat;
mod report;
pub mod snapshot;
pub mod summary;
mod thread;

pub use config::{Percentiles, StatsConfig, Unified};
pub use disk::{DiskUtil, DiskWatch};
pub use hist::LatHist;
pub use lat::{LatAccum, LatSummary};
pub use report::{DirReport, GroupDir, GroupReport, JobReport, Layout, RunReport, SyncReport};
pub use summary::{Entry, GroupRun, Summary};
pub use thread::{ThreadStats, NO_SLAT};
