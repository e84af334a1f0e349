//! The execution plan: jobs with global options inherited, `numjobs`
//! clones, groups and files resolved, and what each job records, logs and
//! reports (`report`). `--parse-only` and `--showcmd` stop here.

pub mod build;
pub mod files;
pub mod report;
pub mod spec;
#[cfg(test)]
pub(crate) mod testing;

pub use build::{build, Frontend, SectionOutcome};
pub use spec::{Dir, FileSpec, JobSpec, Pattern, Plan};
