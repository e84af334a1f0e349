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
//! `lat`, `hist`, `dist`, `cpu`, `disk`, `prio`, `completion`; `thread`
//! (the accumulators); `job` (a job's results); `snapshot` (a running
//! job's); `summary` (entries and groups); `report` (the run).

pub mod completion;
pub mod config;
pub mod cpu;
pub mod disk;
pub mod dist;
pub mod hist;
mod info;
mod job;
mod lat;
mod prio;
mod report;
pub mod snapshot;
pub mod summary;
mod thread;

pub use completion::{Completion, IoLog, LoggedIo, Rate, Timing, NO_SLAT};
pub use config::{Percentiles, StatsConfig, Unified};
pub use disk::{DiskUtil, DiskWatch};
pub use hist::LatHist;
pub use info::{JobInfo, OptionList};
pub use job::{DirReport, JobReport, Layout, SyncReport};
pub use lat::{LatAccum, LatSummary};
pub use prio::{reported_prios, ClatPrio};
pub use report::{GroupDir, GroupReport, RunReport};
pub use summary::{Entry, GroupRun, Summary};
pub use thread::ThreadStats;
