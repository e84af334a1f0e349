//! The execution plan: jobs with global options inherited, `numjobs`
//! clones, groups and files resolved. `--parse-only` and `--showcmd` stop
//! here.

pub mod build;
pub(crate) mod engine;
pub mod files;
pub mod spec;
#[cfg(test)]
pub(crate) mod testing;

pub use build::{build, Frontend, SectionOutcome};
pub use spec::{Dir, FileSpec, JobSpec, Pattern, Plan};
