//! Statistics: per-thread accumulators filled in the I/O loop
//! ([`ThreadStats`]), each job's results ([`JobReport`], with the job's
//! report settings, [`JobInfo`], that the plan resolved), the immutable
//! [`RunReport`] built from them after the threads are joined, and the
//! [`Summary`] the output formats print (jobs merged by `group_reporting`,
//! group totals).
//!
//! The report and every type in it derive serde's `Serialize` and
//! `Deserialize` (fio's client/server protocol ships a report; a latency
//! histogram is written as its counters with a count): a report read back
//! is equal to the one written, and prints the same.
//!
//! Statistics read no option and no plan: the plan hands them resolved
//! settings ([`StatsConfig`], [`JobInfo`]). A job's per-I/O logs are fed
//! through the [`IoLog`] trait, which `crate::logs` implements.
//!
//! Files, each depending only on those before it: `config`, `info`,
//! `lat`, `hist`, `dist`, `cpu`, `disk`, `prio`, `completion`, `blocks`
//! (`block_error_percentiles`); `thread`
//! (the accumulators); `job` (a job's results); `snapshot` (a running
//! job's); `summary` (entries and groups); `repeat` (`--repeat`'s runs summed
//! up); `report` (the run).

pub(crate) mod blocks;
pub(crate) mod clients;
pub(crate) mod completion;
pub(crate) mod config;
pub(crate) mod cpu;
pub(crate) mod disk;
pub(crate) mod dist;
pub(crate) mod hist;
pub(crate) mod idle;
mod info;
mod job;
mod lat;
mod prio;
pub mod repeat;
mod report;
pub(crate) mod snapshot;
mod steadystate;
pub(crate) mod summary;
mod thread;
pub mod verdict;

pub use blocks::{BlockInfos, BlockTracker};
pub use completion::{Completion, NO_SLAT};
pub(crate) use completion::{IoLog, LogError, LoggedIo, Rate, Timing};
pub(crate) use config::StatsConfig;
pub use config::Unified;
pub(crate) use disk::{DiskUtil, DiskWatch};
pub use hist::LatHist;
pub(crate) use idle::{IdleMode, IdleReport};
pub use info::JobInfo;
pub(crate) use info::OptionList;
pub(crate) use job::Layout;
pub use job::{DirReport, JobReport, SyncReport};
pub use lat::LatAccum;
pub(crate) use lat::LatSummary;
pub use prio::ClatPrio;
pub use report::RunReport;
pub use steadystate::SteadyStateReport;
pub use summary::Summary;
pub use thread::ThreadStats;
