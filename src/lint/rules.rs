//! The lint rules: each looks at one job of the plan (and the machine,
//! through [`Host`]) and says what misleads in its results. Each rule is
//! one [`Rule`] in its own file under `rules/` (its name, summary, check,
//! message, fix and tests); [`RULES`] lists them in the order their
//! findings are reported.

use std::path::{Path, PathBuf};

use super::{Finding, FsInfo, Host};
use crate::diag::Span;
use crate::options::Value;
use crate::plan::{JobSpec, Plan};

mod async_without_direct;
mod buffered_io;
mod concurrent_workloads;
mod depth_over_nr_requests;
mod direct_bs_alignment;
mod gtod_reduce_percentiles;
mod log_every_io;
mod no_ramp_random_write;
mod no_room;
mod numjobs_shared_file;
mod raw_device_write;
mod read_unwritten;
mod root_fs_target;
mod rwmix_default;
mod short_runtime_log_avg;
mod steadystate_size_bound;
mod sync_engine_depth;
#[cfg(test)]
pub(super) mod testing;
mod time_based_no_runtime;
mod tmpfs_target;
mod zero_buffers;

/// One rule: what `--lint` documents of it, and its check of a job.
pub(crate) struct Rule {
    pub(crate) name: &'static str,
    /// What it finds, in a line: the warning printed before a run
    /// (README's table of rules says it at length).
    pub(crate) summary: &'static str,
    check: fn(&Ctx) -> Option<Hit>,
}

/// What a rule found: where, why the result misleads, and the fix.
struct Hit {
    span: Span,
    message: String,
    fix: &'static str,
    /// The file or device the problem is about, when it is one: the jobs
    /// that share it get one finding (else one per rule and line).
    target: Option<PathBuf>,
    /// Every job the problem is about, in the plan's order, when it is
    /// about more than the one checked.
    jobs: Vec<String>,
}

/// Every rule, in the order of their findings.
pub(crate) const RULES: &[Rule] = &[
    buffered_io::RULE,
    async_without_direct::RULE,
    sync_engine_depth::RULE,
    zero_buffers::RULE,
    tmpfs_target::RULE,
    root_fs_target::RULE,
    no_room::RULE,
    raw_device_write::RULE,
    no_ramp_random_write::RULE,
    gtod_reduce_percentiles::RULE,
    rwmix_default::RULE,
    short_runtime_log_avg::RULE,
    direct_bs_alignment::RULE,
    depth_over_nr_requests::RULE,
    concurrent_workloads::RULE,
    numjobs_shared_file::RULE,
    read_unwritten::RULE,
    time_based_no_runtime::RULE,
    log_every_io::RULE,
    steadystate_size_bound::RULE,
];

/// `statfs` `f_type` of tmpfs.
const TMPFS_MAGIC: i64 = 0x0102_1994;

/// What the rules look at: the job, the machine, and what follows from
/// them that several rules ask.
struct Ctx<'a> {
    job: &'a JobSpec,
    /// The whole plan, and the job's index in it (rules about jobs that
    /// run together).
    plan: &'a Plan,
    index: usize,
    host: &'a dyn Host,
    /// The engine fakes its I/O or does none (no data reaches a device).
    fake_io: bool,
    /// The engine completes each I/O before the next is issued.
    is_sync: bool,
    /// The job does I/O to files (not a fake, no-I/O or file-op engine).
    file_job: bool,
    /// [`job_size`].
    size: Option<u64>,
    /// One of the job's files is a block device.
    blockdev: bool,
    /// The file system of each target, for a [`Ctx::file_job`].
    fs: Vec<(&'a Path, FsInfo)>,
}

impl<'a> Ctx<'a> {
    fn new(plan: &'a Plan, index: usize, host: &'a dyn Host) -> Ctx<'a> {
        let job = &plan.jobs[index];
        let caps = crate::plan::engine::caps(job);
        let is_sync = caps.as_ref().is_some_and(|c| c.is_sync);
        let file_job = caps
            .as_ref()
            .is_some_and(|c| c.needs_files && !c.fake_io && !c.no_io && !c.file_op);
        let fs = match file_job {
            true => job
                .files
                .iter()
                .filter_map(|f| host.fs(&f.path).map(|i| (f.path.as_path(), i)))
                .collect(),
            false => Vec::new(),
        };
        Ctx {
            job,
            plan,
            index,
            host,
            fake_io: caps.as_ref().is_some_and(|c| c.fake_io || c.no_io),
            is_sync,
            file_job,
            size: job_size(job),
            blockdev: job.files.iter().any(|f| host.is_block_device(&f.path)),
            fs,
        }
    }
}

/// The findings of the plan's job `index`, in [`RULES`]' order.
pub(crate) fn check(plan: &Plan, index: usize, host: &dyn Host) -> Vec<Finding> {
    let cx = Ctx::new(plan, index, host);
    RULES
        .iter()
        .filter_map(|rule| {
            (rule.check)(&cx).map(|hit| Finding {
                rule: rule.name,
                summary: rule.summary,
                job: cx.job.name.clone(),
                jobs: match hit.jobs.is_empty() {
                    true => vec![cx.job.name.clone()],
                    false => hit.jobs,
                },
                span: hit.span,
                message: hit.message,
                fix: hit.fix.to_string(),
                target: hit.target,
            })
        })
        .collect()
}

/// A target path as the jobs that share it name it alike: resolved
/// (links, `..`) when it exists, else made absolute.
fn same_target(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| match path.is_absolute() {
        true => path.to_path_buf(),
        false => std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf()),
    })
}

/// The job's files, as [`same_target`] names them.
fn targets(job: &JobSpec) -> Vec<PathBuf> {
    job.files.iter().map(|f| same_target(&f.path)).collect()
}

/// The `numjobs` clones of the plan's job `index` (an original).
fn clones(plan: &Plan, index: usize) -> impl Iterator<Item = &JobSpec> {
    plan.jobs[index + 1..].iter().take_while(|j| j.subjob != 0)
}

/// The job's bytes over all its files, when known.
fn job_size(job: &JobSpec) -> Option<u64> {
    job.size.or_else(|| {
        let sizes: Option<Vec<u64>> = job.files.iter().map(|f| f.size).collect();
        sizes.map(|s| s.iter().sum()).filter(|&s| s > 0)
    })
}

/// The bytes of the job's files that exist (regular files only).
fn existing_len(job: &JobSpec) -> Option<u64> {
    let lens = job
        .files
        .iter()
        .filter_map(|f| std::fs::metadata(&f.path).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len());
    lens.reduce(|a, b| a.saturating_add(b))
}

/// The span of the first of `names` set for the job, else the job's.
fn at(job: &JobSpec, names: &[&str]) -> Span {
    names
        .iter()
        .find_map(|n| job.options.get(n).map(|s| s.span.clone()))
        .unwrap_or_else(|| job.span.clone())
}

fn truthy(job: &JobSpec, name: &str) -> bool {
    job.options
        .value(name)
        .and_then(num)
        .is_some_and(|v| v != 0)
}

fn num(v: &Value) -> Option<u64> {
    match v {
        Value::Bool(b) => Some(u64::from(*b)),
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::Bytes(b) | Value::Micros(b) => Some(*b),
        _ => None,
    }
}

/// A size in fio's binary units (`4.0 GiB`).
fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    match u {
        0 => format!("{bytes} B"),
        _ => format!("{v:.1} {}", UNITS[u]),
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{rules_on, Fake, CLEAN};
    use super::RULES;

    #[test]
    fn a_well_set_job_has_no_finding() {
        assert_eq!(rules_on(&Fake::default(), CLEAN), Vec::<&str>::new());
    }

    #[test]
    fn each_rule_has_its_own_name() {
        let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RULES.len());
    }

    /// README's table of rules has a row for each, and each says in its
    /// summary what it finds.
    #[test]
    fn each_rule_is_documented() {
        let readme = include_str!("../../README.md");
        for r in RULES {
            let name = format!("`{}`", r.name);
            // A row's first cell names one rule or several (`a`, `b`).
            let row = readme
                .lines()
                .filter_map(|l| l.strip_prefix("| ")?.split(" | ").next())
                .any(|cell| cell.split(", ").any(|n| n == name));
            assert!(row, "README has no row for {name}");
            assert!(!r.summary.is_empty(), "{}", r.name);
        }
    }
}
