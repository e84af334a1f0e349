//! One invocation of rfio as a library call: [`run`] takes an
//! [`Invocation`] (job files and command-line jobs, read by `cli` from
//! argv) through the whole pipeline — load, plan, checks, the jobs — and
//! returns the [`Outcome`] or the one [`Error`] that stopped it. It prints
//! nothing: `cli` prints the outcome, the error, and what a [`Watch`] is
//! handed while the jobs run (the banner, the status line, live messages).

use std::mem::ManuallyDrop;
use std::path::PathBuf;

use crate::diag::{Diagnostic, Diagnostics};
use crate::jobfile::subst::Keywords;
use crate::jobfile::{load_partial, parse_partial, JobFile};
use crate::options::jobopts::Setting;
use crate::options::Support;
use crate::plan::{build, filesystem_checks, Frontend, Input, Plan};
use crate::stats::repeat::{self, Stopped};
use crate::stats::{IdleMode, RunReport};
use crate::workload::agg::{self, BandwidthLog};
use crate::workload::{self, Log, Progress, RunError, Stop};

/// What to run: the job files in order, and what the command line adds
/// (its job sections, `--readonly`, `--section`, `--parse-only`,
/// `--showcmd`).
pub(crate) struct Invocation<'a> {
    pub(crate) job_files: Vec<PathBuf>,
    /// Job files given as text (a server's client sent them), read after
    /// `job_files`, each with the name its diagnostics show.
    pub(crate) job_texts: Vec<(PathBuf, Vec<u8>)>,
    pub(crate) input: Input,
    /// `$pagesize`, `$mb_memory`, `$ncpus` for the job files.
    pub(crate) keywords: Keywords,
    /// Raised to stop every job (rfio's signal handler raises it).
    pub(crate) stop: &'a Stop,
    /// `--bandwidth-log`: the run samples the aggregate bandwidth and
    /// writes fio's `agg-*_bw.log` files (`workload::agg`).
    pub(crate) bandwidth_log: Option<BandwidthLog>,
    /// `--idle-prof=system|percpu`: the run profiles the CPUs' idleness
    /// beside its jobs (`workload::idle`), the profile in its report.
    pub(crate) idle_prof: Option<IdleMode>,
}

/// The front end's result: the job files read and the plan built from
/// them, with the warnings the loader gave.
pub(crate) struct Front {
    /// Kept until the process ends: freeing 10,000 jobs' options one by
    /// one (tens of milliseconds) is wasted work at exit.
    pub(crate) files: ManuallyDrop<Vec<JobFile>>,
    pub(crate) fe: ManuallyDrop<Frontend>,
    /// What loading the files found (the plan's own are in `fe.diags`).
    pub(crate) load_diags: Diagnostics,
}

impl Front {
    /// Every diagnostic of the front end: the loader's, then the plan's.
    pub(crate) fn diags(&self) -> Diagnostics {
        let mut d = self.load_diags.clone();
        d.extend(self.fe.diags.clone());
        d
    }
}

/// How a run ended without an [`Error`].
pub(crate) enum Outcome {
    /// `--parse-only`: the plan was built without a diagnostic.
    Parsed,
    /// `--showcmd`: the front end, to be printed as command lines (with
    /// its diagnostics, if any).
    ShowCmd(Box<Front>),
    /// The jobs ran: their report.
    Ran(Box<RunReport>),
}

/// Why a run stopped before its report.
pub(crate) enum Error {
    /// A job file could not be read.
    Load(Diagnostics),
    /// The job files or the command line are wrong: the front end, with
    /// its diagnostics ([`Front::diags`]) and the failed sections whose
    /// valid values fio prints.
    Invalid(Box<Front>),
    /// No job to run; `job_sections`: there were job sections, but they
    /// made no job (`numjobs=0`).
    NoJobs { job_sections: bool },
    /// Options rfio cannot run yet, one diagnostic per setting.
    Unsupported(Diagnostics),
    /// fio's refusal while it adds the jobs, after `added` of them (the
    /// front end, for their description lines).
    Refused {
        front: Box<Front>,
        added: usize,
        refusal: RunError,
    },
    /// The jobs could not run.
    Run(RunError),
    /// The caller's output failed.
    Io(std::io::Error),
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Io(e)
    }
}

/// What the caller does around the jobs.
pub(crate) trait Watch {
    /// The plan passed every check; its jobs start next (fio prints its
    /// banner here).
    fn starting(&mut self, plan: &Plan) -> std::io::Result<()>;

    /// What fio prints on stderr while it reads the job files and the
    /// options (`--compat=fio`), before anything else happens.
    fn warnings(&mut self, _lines: &[String]) -> std::io::Result<()> {
        Ok(())
    }

    /// The options of `plan` that fio ignores with a notice
    /// ([`Plan::deprecated`](crate::plan::Plan)), once it is read.
    fn deprecated(&mut self, _plan: &Plan) -> std::io::Result<()> {
        Ok(())
    }

    /// Run `jobs` (which runs every job, its live messages going to the
    /// log it is given) while watching `progress`, and return its result.
    fn running(
        &mut self,
        plan: &Plan,
        progress: &Progress,
        jobs: &mut dyn FnMut(&dyn Log) -> Result<RunReport, RunError>,
    ) -> std::io::Result<Result<RunReport, RunError>>;
}

/// Run `inv` from its job files to its report.
pub(crate) fn run(inv: Invocation, watch: &mut dyn Watch) -> Result<Outcome, Error> {
    run_repeated(inv, 1, watch)
}

/// [`run`], the jobs run `repeat` times over (`--repeat=N`, rfio's own;
/// 1 or 0: once, a plain run). The plan is built and checked once, the
/// banner printed once (`Watch::starting`); each run lays out its files
/// as fio would (what a run left is reused by the next, as by a second
/// fio invocation). A stop request (SIGINT) ends the repetition: the
/// interrupted run is left out unless it is the first. A run in which a
/// job fails ends it too, and is the run reported. Otherwise the report
/// is the median run's ([`repeat::median_run`]), with every run summed up
/// in [`RunReport::repeat`].
pub(crate) fn run_repeated(
    inv: Invocation,
    repeat: u32,
    watch: &mut dyn Watch,
) -> Result<Outcome, Error> {
    let front = Box::new(front_end(&inv)?);
    watch.warnings(&front.fe.warnings)?;
    watch.deprecated(&front.fe.plan)?;
    if let Some((added, msg)) = front.fe.refused_when_read.clone() {
        // `--compat=fio`: what fio refuses as it reads the command line,
        // dry runs too.
        return Err(Error::Refused {
            front,
            added,
            refusal: RunError::Refused {
                job: String::new(),
                msg,
            },
        });
    }
    if inv.input.showcmd {
        return Ok(Outcome::ShowCmd(front));
    }
    if !(front.load_diags.is_empty() && front.fe.diags.is_empty()) {
        return Err(Error::Invalid(front));
    }
    if inv.input.parse_only {
        return Ok(Outcome::Parsed);
    }
    if let Some((added, msg)) = front.fe.refusal.clone() {
        // `--compat=fio`: what fio finds while adding the jobs to run.
        let job = match front.fe.plan.jobs.get(added) {
            Some(j) => j.name.clone(),
            None => String::new(),
        };
        return Err(Error::Refused {
            front,
            added,
            refusal: RunError::Refused { job, msg },
        });
    }
    let plan = &front.fe.plan;
    if plan.jobs.is_empty() {
        return Err(Error::NoJobs {
            job_sections: front.fe.sections.iter().any(|s| !s.global),
        });
    }
    let unsupported = unsupported_options(&front.fe);
    if !unsupported.is_empty() {
        return Err(Error::Unsupported(unsupported));
    }
    // What the jobs need of the file system, as fio checks it for a run.
    let missing = filesystem_checks(plan);
    if !missing.is_empty() {
        return Err(Error::Unsupported(missing));
    }
    if let Err((added, refusal)) = workload::refusal_when_added(plan) {
        return Err(Error::Refused {
            front,
            added,
            refusal,
        });
    }
    if inv.input.warnings_fatal {
        // fio refuses the first job it warns about.
        if let Some((added, msg)) = crate::plan::warnings::first_fatal(plan) {
            let job = plan.jobs[added].name.clone();
            return Err(Error::Refused {
                front,
                added,
                refusal: RunError::Refused { job, msg },
            });
        }
    }
    watch.starting(plan)?;
    let stop = inv.stop;
    // The runs summed up as they come, and the reports near the median
    // (every one up to KEPT_REPORTS runs): constant memory per run.
    let mut runs = repeat::Runs::new();
    let mut kept = repeat::Kept::new(repeat::KEPT_REPORTS, repeat);
    let mut failed_run = None;
    let mut stopped = None;
    for _ in 0..repeat.max(1) {
        let progress = Progress::new(plan.jobs.len());
        let idle = workload::idle::Profiler::start(inv.idle_prof);
        let result = watch.running(plan, &progress, &mut |log| {
            agg::logged(inv.bandwidth_log, plan, &progress, stop, || {
                workload::run_with_progress(plan, log, &progress, stop)
            })
        });
        let result = workload::idle::attach(idle, result?);
        let report = result.map_err(Error::Run)?;
        if repeat <= 1 {
            return Ok(Outcome::Ran(Box::new(report)));
        }
        if stop.requested() {
            stopped = Some(Stopped::Signal);
            if runs.is_empty() {
                offer(&mut runs, &mut kept, report);
            }
            break;
        }
        if report.jobs.iter().any(|j| j.error != 0 || j.setup_failed) {
            // The failed run is the one reported.
            stopped = Some(Stopped::JobError);
            let m = repeat::metrics(&report.summary);
            failed_run = Some((runs.add(&m), report));
            break;
        }
        offer(&mut runs, &mut kept, report);
    }
    let (pick, mut report) = match failed_run {
        Some(failed) => failed,
        None => {
            let (median, bw) = runs.median().expect("at least one run");
            kept.take(median, bw).expect("a report held")
        }
    };
    let shape = repeat::metrics(&report.summary);
    report.repeat = Some(runs.summarize(repeat, pick, &shape, stopped));
    Ok(Outcome::Ran(Box::new(report)))
}

/// Add the run of `report` to `runs`, and its report to `kept` if it is
/// near the median.
fn offer(runs: &mut repeat::Runs, kept: &mut repeat::Kept<RunReport>, report: RunReport) {
    let m = repeat::metrics(&report.summary);
    let run = runs.add(&m);
    kept.offer(run, m.total_bw(), runs, report);
}

/// Load the job files and build the plan, without running it: the front
/// end, or why it failed.
pub(crate) fn plan_only(inv: &Invocation) -> Result<Box<Front>, Error> {
    let front = Box::new(front_end(inv)?);
    if !(front.load_diags.is_empty() && front.fe.diags.is_empty()) {
        return Err(Error::Invalid(front));
    }
    Ok(front)
}

/// Load the job files and build the plan.
fn front_end(inv: &Invocation) -> Result<Front, Error> {
    let mut files: Vec<JobFile> = Vec::with_capacity(inv.job_files.len() + inv.job_texts.len());
    let mut load_diags = Diagnostics::default();
    for path in &inv.job_files {
        let (file, diags) = load_partial(path, inv.input.mode).map_err(Error::Load)?;
        files.push(file);
        load_diags.extend(diags);
    }
    for (name, text) in &inv.job_texts {
        let (file, diags) = parse_partial(name.as_path().into(), text, inv.input.mode);
        files.push(file);
        load_diags.extend(diags);
    }
    let fe = build(inv.input.clone(), &files, &inv.keywords);
    Ok(Front {
        files: ManuallyDrop::new(files),
        fe: ManuallyDrop::new(fe),
        load_diags,
    })
}

/// One diagnostic per option setting that rfio cannot execute yet (once,
/// however many `numjobs` clones share it).
fn unsupported_options(fe: &Frontend) -> Diagnostics {
    let mut d = Diagnostics::default();
    let mut seen = std::collections::HashSet::new();
    for job in &fe.plan.jobs {
        // An engine rfio cannot run (plan::engine::refusal), once per
        // section; that says it all about the engine's own options.
        let refused = crate::plan::engine::refusal(job, fe.plan.release);
        if let Some(why) = refused.as_ref().filter(|_| job.subjob == 0) {
            let span = crate::plan::engine::engine_span(job);
            d.push(Diagnostic::at(span, format!("job '{}': {why}", job.name)));
        }
        for s in job.options.settings.iter().filter(|s| {
            s.def.support == Support::NotYet
                && !is_default(s)
                && !(refused.is_some() && s.def.is_engine_option())
        }) {
            if seen.insert((s.span.clone(), s.def.name)) {
                let why = crate::options::later::refusal(s.def);
                d.push(Diagnostic::at(
                    s.span.clone(),
                    format!("job '{}': {why}", job.name),
                ));
            }
        }
    }
    d
}

/// Whether a setting only restates its option's default
/// (`io_submit_mode=inline`, `fill_device=0`): rfio runs that as fio does
/// even where it cannot run the option's other values.
fn is_default(s: &Setting) -> bool {
    s.def.default.is_some_and(|d| {
        crate::options::value::parse_value(s.def, Some(d), &Default::default())
            .is_ok_and(|v| v == s.value)
    })
}
