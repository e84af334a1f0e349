//! The execution plan: jobs with global options inherited, `numjobs`
//! clones, groups and files resolved, and every option a job runs with
//! resolved into typed parts of its [`JobSpec`] (`resolve`, `engine`,
//! `report`). `--parse-only` and `--showcmd` stop here.

pub(crate) mod build;
pub(crate) mod engine;
pub(crate) mod error;
pub(crate) mod files;
pub(crate) mod in_force;
pub(crate) mod input;
pub(crate) mod profile;
pub(crate) mod report;
pub(crate) mod resolve;
pub(crate) mod spec;
#[cfg(test)]
pub(crate) mod testing;
pub(crate) mod warnings;

pub(crate) use build::filesystem_checks;
pub(crate) use build::SectionOutcome;
pub use build::{build, Frontend};
pub(crate) use input::Input;
pub(crate) use spec::Deprecated;
pub use spec::{JobSpec, Plan};
