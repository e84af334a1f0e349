//! Statistics: per-thread accumulators filled in the I/O loop, merged after
//! the threads are joined into an immutable [`RunReport`].

mod lat;
mod report;

pub use lat::{LatAccum, LatSummary};
pub use report::{DirReport, GroupDir, GroupReport, JobReport, Layout, RunReport, ThreadStats};
