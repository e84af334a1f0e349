//! Runs a plan: each reporting group's jobs concurrently, groups in order.

use std::time::{SystemTime, UNIX_EPOCH};

use super::job;
use crate::plan::spec::Plan;
use crate::stats::{GroupReport, JobReport, RunReport};

/// Why a run could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("fio: engine {engine} not loadable (job {job})")]
    UnknownEngine { job: String, engine: String },
    #[error("fio: job {job}: no size given and no file size to use")]
    NoSize { job: String },
    #[error("fio: job {job}: no files to do I/O on")]
    NoFiles { job: String },
}

/// Run every job of `plan` and collect the results.
///
/// Groups run one after another in group-id order (so a `stonewall` job
/// waits for all earlier ones); within a group, one OS thread per job.
/// I/O errors of a job end that job and are recorded in its report; only
/// problems found before any I/O are returned as [`RunError`].
pub fn run(plan: &Plan) -> Result<RunReport, RunError> {
    let prepared = plan
        .jobs
        .iter()
        .map(job::Prepared::new)
        .collect::<Result<Vec<_>, _>>()?;
    let mut jobs: Vec<Option<JobReport>> = vec![None; plan.jobs.len()];
    for g in 0..plan.groups() {
        let members: Vec<usize> = (0..plan.jobs.len())
            .filter(|&i| plan.jobs[i].group_id == g)
            .collect();
        std::thread::scope(|s| {
            let handles: Vec<_> = members
                .iter()
                .map(|&i| {
                    let p = &prepared[i];
                    (i, s.spawn(move || p.run()))
                })
                .collect();
            for (i, h) in handles {
                jobs[i] = Some(h.join().expect("job thread panicked"));
            }
        });
    }
    let jobs: Vec<JobReport> = jobs.into_iter().flatten().collect();
    let groups = (0..plan.groups())
        .map(|g| GroupReport::from_jobs(g, jobs.iter().filter(move |j| j.group_id == g)))
        .collect();
    let finished_at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    Ok(RunReport {
        jobs,
        groups,
        finished_at,
    })
}
