//! `--baseline-save=FILE` and `--baseline-compare=FILE` (rfio's own), and
//! the flags that change a run beyond fio's ([`beyond`]: `--repeat`, whose
//! runs `run::run_repeated` makes and `stats::repeat` sums up).
//!
//! A baseline is a JSON file ([`Baseline`], `"format": "rfio-baseline/2"`):
//! rfio's version, the command line, the job files' exact text with its
//! SHA-256 (a record), the resolved jobs ([`work::SavedJob`]: each job's
//! name and the options in force for it, as written and as understood), the
//! machine ([`probe::HostInfo`]), each job's target (engine, and for each
//! file its mount, file system, free space and block device,
//! [`probe::FileTarget`]), and the results: the `--repeat` summary, or a
//! single run's values as a summary of one run.
//!
//! Comparing first checks that the work is the same **by meaning**
//! ([`work`]: the resolved jobs, whatever the order, comments or section
//! the options were written in; the targets): otherwise rfio refuses, runs
//! nothing, names the first option that differs (`job randread: bs 4k →
//! 8k`) and exits [`REFUSED_STATUS`]. A baseline of format
//! `rfio-baseline/1` (which compared text) is refused the same way, with
//! the command that saves it again. Pacing options (`rate*`, `thinktime*`)
//! and the host are not the work: a difference is a warning.
//!
//! After the run, each metric is `better`, `worse` or `within` its band
//! ([`compare`]: the threshold, or the saved run-to-run variance when the
//! baseline has one; a single run against a repeated baseline is taken to
//! vary as the baseline did; both sides single: the threshold alone). The
//! metrics of `--baseline-metrics` (default `iops,bw,p99`) are gated: a
//! worse one makes the exit status [`REGRESSED_STATUS`] (unless a job
//! failed or a signal came, whose statuses win); the others are reported.
//! The verdicts go into the report ([`crate::stats::verdict::Comparison`])
//! for the outputs to print: a summary line and a line per metric in the
//! normal output, a `"baseline"` object in JSON.

pub(crate) mod beyond;
mod check;
mod compare;
mod error;
mod probe;
mod work;

pub(crate) use check::parse;
pub(crate) use error::Error;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::plan::Plan;
use crate::run::Invocation;
use crate::stats::repeat::{self, RepeatSummary};
use crate::stats::verdict::Comparison;
use crate::stats::RunReport;
use beyond::Beyond;
use probe::{FileTarget, HostInfo, Probe};

/// The `format` of the files this rfio writes and reads.
pub(crate) const FORMAT: &str = "rfio-baseline/2";
/// Earlier formats, refused with the command that saves them again.
pub(crate) const OLD_FORMATS: &[&str] = &["rfio-baseline/1"];
/// Exit status: the baseline cannot be read, or the work differs (nothing
/// ran).
pub(crate) const REFUSED_STATUS: i32 = 2;
/// Exit status: a metric got worse beyond the band.
pub(crate) const REGRESSED_STATUS: i32 = 3;

/// A job file as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SavedText {
    /// As given on the command line.
    pub(crate) name: String,
    /// SHA-256 of the exact bytes, hex.
    pub(crate) sha256: String,
    /// The bytes (as UTF-8; invalid sequences replaced: the hash is of
    /// the bytes).
    pub(crate) text: String,
}

/// A job's target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct JobTarget {
    pub(crate) job: String,
    pub(crate) engine: String,
    /// The job's files (none for engines that do no file I/O).
    pub(crate) files: Vec<FileTarget>,
}

/// The baseline file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Baseline {
    pub(crate) format: String,
    pub(crate) rfio_version: String,
    /// Seconds since the epoch.
    pub(crate) created: u64,
    pub(crate) command_line: Vec<String>,
    /// A record: what is compared is [`Baseline::jobs`].
    pub(crate) job_files: Vec<SavedText>,
    /// The command-line job options, as written (`--bs=4k`; a record).
    pub(crate) job_options: Vec<String>,
    /// The resolved jobs: what is compared.
    pub(crate) jobs: Vec<work::SavedJob>,
    pub(crate) host: HostInfo,
    pub(crate) targets: Vec<JobTarget>,
    pub(crate) results: RepeatSummary,
}

/// What identifies the work of this invocation.
pub(crate) struct Work {
    job_files: Vec<SavedText>,
    job_options: Vec<String>,
    jobs: Vec<work::SavedJob>,
    host: HostInfo,
    targets: Vec<JobTarget>,
    command_line: Vec<String>,
}

/// Ready to save or compare once the jobs have run.
pub(crate) struct Prepared {
    work: Work,
    save: Option<PathBuf>,
    /// The baseline compared with, and its file.
    compare: Option<(PathBuf, Baseline)>,
    /// What differs but is compared anyway (the pacing options).
    warnings: Vec<String>,
    threshold_pct: f64,
    metrics: Vec<crate::stats::verdict::Metric>,
}

/// SHA-256 of `bytes`, lower-case hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Before the run: what identifies the work (its plan built from `inv`),
/// and for a compare, the baseline read and checked against it.
/// `Ok(None)`: neither flag, or jobs that do not build (the run reports
/// why). `Err`: refused, nothing to run (its [`Error::status`]).
pub(crate) fn prepare(
    beyond: &Beyond,
    cmd: CommandLine<'_>,
    inv: &Invocation,
) -> Result<Option<Prepared>, Error> {
    if beyond.save.is_none() && beyond.compare.is_none() {
        return Ok(None);
    }
    let Ok(front) = crate::run::plan_only(inv) else {
        return Ok(None);
    };
    let work = work_of(cmd, &front.fe.plan)?;
    let mut warnings = Vec::new();
    let compare = match &beyond.compare {
        None => None,
        Some(path) => {
            let saved = check::read(path)?;
            let (mut why, pacing) = work::differences(&saved.jobs, &work.jobs);
            warnings = pacing;
            let targets = compare::target_differences(&saved.targets, &work.targets);
            why.extend(targets.iter().map(|t| format!("target differs: {t}")));
            if !why.is_empty() {
                let name = path.display().to_string();
                return Err(Error::CannotCompare { name, why });
            }
            Some((path.clone(), saved))
        }
    };
    Ok(Some(Prepared {
        work,
        save: beyond.save.clone(),
        compare,
        warnings,
        threshold_pct: beyond.threshold_pct,
        metrics: beyond.metrics.clone(),
    }))
}

/// The command line as a baseline records it (`cli` reads it).
pub(crate) struct CommandLine<'a> {
    /// The job files named on it.
    pub(crate) job_files: &'a [PathBuf],
    /// Its job options (`--bs=4k`), each as written.
    pub(crate) job_options: Vec<String>,
    /// The whole of it (without the program name).
    pub(crate) argv: &'a [String],
}

fn work_of(cmd: CommandLine<'_>, plan: &Plan) -> Result<Work, Error> {
    let mut job_files = Vec::new();
    for path in cmd.job_files {
        if path.as_os_str() == "-" {
            return Err(Error::StandardInput);
        }
        let bytes = std::fs::read(path).map_err(|source| Error::JobFile {
            path: path.clone(),
            source,
        })?;
        job_files.push(SavedText {
            name: path.display().to_string(),
            sha256: sha256_hex(&bytes),
            text: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    let probe = Probe::system();
    let targets = plan
        .jobs
        .iter()
        .map(|job| {
            let file_job = crate::plan::engine::caps(job)
                .is_some_and(|c| c.needs_files && !c.fake_io && !c.no_io && !c.file_op);
            JobTarget {
                job: job.name.clone(),
                engine: job.ioengine.clone(),
                files: match file_job {
                    true => job.files.iter().map(|f| probe.file(&f.path)).collect(),
                    false => Vec::new(),
                },
            }
        })
        .collect();
    Ok(Work {
        job_files,
        job_options: cmd.job_options,
        jobs: work::of_plan(plan),
        host: probe.host(),
        targets,
        command_line: cmd.argv.to_vec(),
    })
}

/// What a run measured, as a baseline keeps it: the `--repeat` summary,
/// or the single run's figures as a summary of one run.
fn results_of(report: &RunReport) -> RepeatSummary {
    match &report.repeat {
        Some(r) => r.clone(),
        None => repeat::summarize(&[repeat::metrics(&report.summary)], 1, 0, None),
    }
}

impl Prepared {
    /// After the run, before its report is printed: the comparison with
    /// the baseline (`None` without `--baseline-compare`), for the report
    /// to carry.
    pub(crate) fn compare(&self, report: &RunReport) -> Option<Comparison> {
        let (path, saved) = self.compare.as_ref()?;
        let results = results_of(report);
        let mut warnings = Vec::new();
        if let Some(diffs) = host_differences(&saved.host, &self.work.host) {
            warnings.push(format!("host differs ({diffs}); compared anyway"));
        }
        warnings.extend(
            self.warnings
                .iter()
                .map(|w| format!("{w}; compared anyway")),
        );
        Some(Comparison {
            file: path.display().to_string(),
            threshold_pct: self.threshold_pct,
            gated: self.metrics.iter().map(|m| m.key()).collect(),
            saved_runs: saved.results.runs,
            runs: results.runs,
            warnings,
            metrics: compare::compare(&saved.results, &results, self.threshold_pct, &self.metrics),
        })
    }

    /// After the report is printed: save the baseline (`--baseline-save`).
    /// `ran_whole`: no job failed and no signal came (a partial run is
    /// never saved).
    pub(crate) fn save(self, report: &RunReport, ran_whole: bool) -> Result<(), Error> {
        let Some(path) = &self.save else {
            return Ok(());
        };
        if !ran_whole {
            return Err(Error::NotSaved { path: path.clone() });
        }
        let created = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let b = Baseline {
            format: FORMAT.into(),
            rfio_version: env!("CARGO_PKG_VERSION").into(),
            created,
            command_line: self.work.command_line,
            job_files: self.work.job_files,
            job_options: self.work.job_options,
            jobs: self.work.jobs,
            host: self.work.host,
            targets: self.work.targets,
            results: results_of(report),
        };
        let text = serde_json::to_string_pretty(&b).unwrap_or_default();
        if let Err(source) = std::fs::write(path, text + "\n") {
            let path = path.clone();
            return Err(Error::Write { path, source });
        }
        Ok(())
    }
}

/// What differs between two machines, or `None`.
fn host_differences(a: &HostInfo, b: &HostInfo) -> Option<String> {
    let mut d = Vec::new();
    let show = |v: &dyn std::fmt::Debug| crate::diag::quote(&format!("{v:?}"), error::ECHO);
    if a.cpu_model != b.cpu_model {
        d.push(format!(
            "cpu {} → {}",
            show(&a.cpu_model),
            show(&b.cpu_model)
        ));
    }
    if a.cpus != b.cpus {
        d.push(format!("cpus {} → {}", show(&a.cpus), show(&b.cpus)));
    }
    if a.kernel != b.kernel {
        d.push(format!("kernel {} → {}", show(&a.kernel), show(&b.kernel)));
    }
    if a.mem_bytes != b.mem_bytes {
        d.push(format!(
            "memory {} → {}",
            show(&a.mem_bytes),
            show(&b.mem_bytes)
        ));
    }
    (!d.is_empty()).then(|| d.join(", "))
}
