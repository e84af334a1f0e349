//! The execution plan: jobs with global options inherited, `numjobs`
//! clones, groups and files resolved, and every option a job runs with
//! resolved into typed parts of its [`JobSpec`] (`resolve`, `engine`,
//! `report`). `--parse-only` and `--showcmd` stop here.

pub mod build;
pub(crate) mod engine;
pub mod files;
pub mod input;
pub mod report;
pub mod resolve;
pub mod spec;
#[cfg(test)]
pub(crate) mod testing;

pub use build::{build, Frontend, SectionOutcome};
pub use input::{CmdSection, Input};
pub use resolve::Refusal;
pub use spec::{Dir, FileSpec, JobSpec, Pattern, Plan};
