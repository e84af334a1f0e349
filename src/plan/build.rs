//! From parsed sections to the plan, in fio's order.
//!
//! fio reads the command-line jobs first, then each job file. The global
//! options of the command line apply to the command-line jobs and to the
//! first job file only; each later file starts from the defaults, and its
//! first job starts a new group (an implicit `stonewall`). Inside a file a
//! `[global]` section changes the defaults of the jobs after it.

use std::collections::HashMap;
use std::sync::Arc;

use super::files;
use super::input::{CmdSection, Input};
use super::resolve::job::{self as resolve, Resolved};
use super::resolve::read::Opts;
use super::spec::{JobSpec, Plan};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::jobfile::subst::Keywords;
use crate::jobfile::{JobFile, Mode};
use crate::options::jobopts::{apply, JobOptions, OptionError, Origin};
use crate::options::Value;

/// What happened to one section: the options as `--showcmd` prints them,
/// and what went wrong.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SectionOutcome {
    /// Index into the job files; `None` for command-line sections.
    pub(crate) file: Option<usize>,
    pub(crate) name: String,
    pub(crate) global: bool,
    /// The options in force after this section, in the order applied: the
    /// first `dump_to` settings. Global sections of one file share one list
    /// (each later global section only adds to it), so that many `[global]`
    /// sections cost no copy of it each. Job-file sections keep them only
    /// for `--showcmd`, which prints them; otherwise they are empty and
    /// `dump` shows nothing (a job's options live on in its [`JobSpec`]).
    pub(crate) options: Arc<JobOptions>,
    /// Where this section's own options start in `options` (0 for a global
    /// section: fio prints every global option in force again).
    pub(crate) dump_from: usize,
    /// Where the options in force after this section end in `options`.
    pub(crate) dump_to: usize,
    pub(crate) errors: Vec<OptionError>,
}

impl SectionOutcome {
    /// `(option, value)` as `--showcmd` prints them.
    pub(crate) fn dump(&self) -> impl Iterator<Item = (&'static str, Option<&str>)> + '_ {
        self.options
            .settings
            .iter()
            .take(self.dump_to)
            .skip(self.dump_from)
            .map(|s| (s.def.name, s.text.as_deref()))
    }
}

/// Everything the front end produced.
#[derive(Debug, Clone, Default)]
pub struct Frontend {
    pub(crate) sections: Vec<SectionOutcome>,
    pub plan: Plan,
    pub diags: Diagnostics,
    /// What fio prints on stderr while it reads the job files and options
    /// (`--compat=fio` only: `iodepth: min value out of range: -4 (1
    /// min)`), in fio's words and order.
    pub warnings: Vec<String>,
    /// `--compat=fio`: fio's refusal of a job while it adds the jobs to
    /// run (`b: waitee job nosuch unknown.`), after that many jobs; only
    /// a run meets it (`--parse-only` and `--showcmd` pass, as in fio).
    pub(crate) refusal: Option<(usize, String)>,
}

/// rfio runs a thread per job; past this many jobs a plan is a mistake
/// (fio 3.33 itself starts to fail in its shared-memory setup).
pub(crate) const MAX_JOBS: usize = 65_536;
/// Files of all jobs together.
pub(crate) const MAX_FILES: usize = 1 << 22;

/// A section on its way to becoming jobs.
struct Pending<'a> {
    section_name: &'a str,
    /// Where the section's own settings start in `options`.
    own_options: usize,
    /// The job's name: `name=` in the section itself, else the section's
    /// name (fio names each job after its section; a `name=` in
    /// `[global]` renames none).
    name: String,
    span: Span,
    options: Arc<JobOptions>,
    implicit_stonewall: bool,
}

/// Build the plan from `input` (the command line's job sections and
/// flags) and the (already loaded) job files.
///
/// Each job section becomes jobs as soon as it is read (so that a file of
/// many jobs never holds all their options at once under `--parse-only`);
/// the problems found then are reported after those of every section's
/// options, as before.
pub fn build(input: impl Into<Input>, job_files: &[JobFile], keywords: &Keywords) -> Frontend {
    let input = &input.into();
    let mut fe = Frontend::default();
    let sections = job_files.iter().map(|jf| jf.sections.len()).sum::<usize>();
    fe.sections
        .reserve_exact(input.cmd_sections.len() + sections);
    let mut jobs = Expander::new(input, job_files);
    let mut globals = JobOptions::default();
    for cs in &input.cmd_sections {
        command_line_section(&mut fe, &mut jobs, &mut globals, cs, keywords);
    }
    let cmdline_globals = globals.clone();
    for (idx, jf) in job_files.iter().enumerate() {
        let globals = if idx == 0 {
            cmdline_globals.clone()
        } else {
            JobOptions::default()
        };
        file_sections(&mut fe, &mut jobs, globals, idx, jf, input, keywords);
    }
    // `--profile=NAME`: fio adds the profile's jobs as the run starts,
    // after all others, with the command line's globals (none in a dry run).
    if let Some((name, span)) = &input.profile {
        let cmd = fe.sections.iter().filter(|s| s.file.is_none());
        let settings = cmd
            .flat_map(|s| s.options.settings.iter().take(s.dump_to).skip(s.dump_from))
            .chain(
                jobs.plan
                    .jobs
                    .iter()
                    .filter(|j| matches!(j.span, Span::File { .. }))
                    .flat_map(|j| j.options.settings.iter()),
            );
        match super::profile::expand(name, span, settings, keywords) {
            Err(d) => fe.diags.push(d),
            Ok(profile) if input.runs() => {
                let first = jobs.plan.jobs.len();
                let mut globals = cmdline_globals.clone();
                for cs in &profile.sections {
                    command_line_section(&mut fe, &mut jobs, &mut globals, cs, keywords);
                }
                profile.mark(&mut jobs.plan.jobs[first..]);
                jobs.plan.profile_jobs = jobs.plan.jobs.len() - first;
            }
            Ok(_) => {}
        }
    }
    fe.plan = jobs.plan;
    super::resolve::host::whole_run(fe.plan.jobs.iter_mut().map(|j| &mut j.host));
    fe.diags.extend(jobs.diags);
    fe.refusal = jobs.refusal;
    fe
}

/// The sections of job file number `idx`, `globals` in force at its start.
///
/// A `[global]` section adds its options to `globals` in place (they are
/// taken back off when the section fails), and every global section of the
/// file shows a prefix of that one list, shared once the file is read.
/// Each job section starts from the globals in force, sharing them.
fn file_sections(
    fe: &mut Frontend,
    jobs: &mut Expander,
    mut globals: JobOptions,
    idx: usize,
    jf: &JobFile,
    input: &Input,
    keywords: &Keywords,
) {
    let mut first_job = true;
    // `--compat=fio`: a failed include in a `[global]` section fails
    // every later job of the file (fio copies its error into them).
    let mut global_include_error = None;
    // The outcomes of this file's global sections: they get `globals`.
    let mut global_outcomes = Vec::new();
    let global_entries = jf
        .sections
        .iter()
        .filter(|s| s.is_global())
        .map(|s| s.entries.len());
    globals.reserve(global_entries.sum());
    // What they hold until then, and what job sections hold without
    // `--showcmd` (one for all: they are many).
    let unset = Arc::new(JobOptions::default());
    for section in &jf.sections {
        if !section.is_global()
            && !input.sections.is_empty()
            && !input.sections.contains(&section.name)
        {
            continue;
        }
        fe.warnings.extend(section.warnings.iter().cloned());
        if section.is_global() {
            let before = globals.settings.len();
            let errors = apply(
                &mut globals,
                &section.entries,
                Origin::JobFile,
                keywords,
                input.reading(),
                &mut fe.warnings,
            );
            report(&mut fe.diags, &section.name, &errors);
            if !errors.is_empty() {
                // A failed section changes nothing; fio prints none of it.
                globals.truncate(before);
            }
            if section.include_error.is_some() && errors.is_empty() {
                // fio's global section is where every later job starts from.
                global_include_error.clone_from(&section.include_error);
            }
            global_outcomes.push(fe.sections.len());
            fe.sections.push(SectionOutcome {
                file: Some(idx),
                name: section.name.clone(),
                global: true,
                options: Arc::clone(&unset),
                dump_from: 0,
                dump_to: globals.settings.len(),
                errors,
            });
            continue;
        }
        let mut scope = globals.share();
        let start = scope.settings.len();
        let errors = apply(
            &mut scope,
            &section.entries,
            Origin::JobFile,
            keywords,
            input.reading(),
            &mut fe.warnings,
        );
        report(&mut fe.diags, &section.name, &errors);
        let failed = !errors.is_empty();
        scope.shrink_to_fit();
        let scope = Arc::new(scope);
        let (options, dump_from, dump_to) = match input.showcmd {
            true => (Arc::clone(&scope), start, scope.settings.len()),
            false => (Arc::clone(&unset), 0, 0),
        };
        fe.sections.push(SectionOutcome {
            file: Some(idx),
            name: section.name.clone(),
            global: false,
            options,
            dump_from,
            dump_to,
            errors,
        });
        if failed {
            continue;
        }
        if let Some(e) = section
            .include_error
            .as_ref()
            .or(global_include_error.as_ref())
        {
            include_failed(fe, jobs, e);
        }
        jobs.add(Pending {
            section_name: &section.name,
            name: own_name(&scope, start).unwrap_or_else(|| section.name.clone()),
            own_options: start,
            span: section.span.clone(),
            options: scope,
            implicit_stonewall: idx > 0 && first_job && !input.files_share_group,
        });
        first_job = false;
    }
    let globals = Arc::new(globals);
    for i in global_outcomes {
        match input.showcmd {
            true => fe.sections[i].options = Arc::clone(&globals),
            false => fe.sections[i].dump_to = 0,
        }
    }
}

/// `--compat=fio`: a job whose `include` fio could not open. fio keeps
/// the job with the error set: a dry run prints the error when it drops
/// the job, a real run fails it.
fn include_failed(fe: &mut Frontend, jobs: &mut Expander, (errno, reason): &(i32, String)) {
    let what = format!("file:init.c:1956, func=job file open, error={reason}");
    match jobs.input.runs() {
        true => jobs.refuse(format!("fio: pid=0, err={errno}/{what}")),
        false => fe.warnings.push(format!("fio: {what}")),
    }
}

fn command_line_section(
    fe: &mut Frontend,
    jobs: &mut Expander,
    globals: &mut JobOptions,
    cs: &CmdSection,
    keywords: &Keywords,
) {
    let name = cs.name.clone().unwrap_or_else(|| "global".to_string());
    let mut scope = globals.clone();
    let start = scope.settings.len();
    let reading = jobs.input.reading();
    let errors = apply(
        &mut scope,
        &cs.options,
        Origin::CommandLine,
        keywords,
        reading,
        &mut fe.warnings,
    );
    report(&mut fe.diags, &name, &errors);
    let failed = !errors.is_empty();
    let scope = Arc::new(scope);
    fe.sections.push(SectionOutcome {
        file: None,
        name,
        global: cs.is_global(),
        options: Arc::clone(&scope),
        dump_from: start,
        dump_to: scope.settings.len(),
        errors,
    });
    if failed {
        return;
    }
    if cs.is_global() {
        *globals = JobOptions::clone(&scope);
    } else {
        jobs.add(Pending {
            section_name: cs.name.as_deref().unwrap_or("global"),
            name: own_name(&scope, start)
                .or_else(|| cs.name.clone())
                .unwrap_or_else(|| "global".to_string()),
            own_options: start,
            span: cs.span.clone(),
            options: scope,
            implicit_stonewall: false,
        });
    }
}

/// The last `name=` among a section's own settings (those from `start`
/// on), if any.
fn own_name(scope: &JobOptions, start: usize) -> Option<String> {
    let own = scope.settings.iter().skip(start);
    own.filter(|s| s.def.name == "name")
        .last()
        .and_then(|s| match &s.value {
            Value::Text(n) => Some(n.clone()),
            _ => None,
        })
}

fn report(diags: &mut Diagnostics, section: &str, errors: &[OptionError]) {
    for e in errors {
        let mut d = e.diag.clone();
        d.message = format!("job '{}': {}", crate::diag::visible(section), d.message);
        diags.push(d);
    }
}

/// Turns sections into jobs, one section at a time: numjobs clones, groups,
/// wait_for, files.
///
/// With `--parse-only` nothing runs the plan: every job is checked and
/// dropped (the plan stays empty, and fio's limit on the number of jobs,
/// which fio does not apply there either, does not apply), and `numjobs`
/// clones, which differ only in their number, are checked up to
/// [`MAX_JOBS`] in all.
struct Expander<'a> {
    input: &'a Input,
    keep: bool,
    plan: Plan,
    diags: Diagnostics,
    group_id: u32,
    group_jobs: u32,
    total_files: usize,
    /// Jobs made so far.
    count: usize,
    /// The first job of each name, kept when some option line may set
    /// `wait_for`.
    waits: bool,
    first_named: HashMap<String, usize>,
    /// Past a limit: later sections make no jobs.
    stopped: bool,
    /// `--compat=fio`: fio's first refusal while adding the jobs.
    refusal: Option<(usize, String)>,
}

impl<'a> Expander<'a> {
    fn new(input: &'a Input, job_files: &[JobFile]) -> Expander<'a> {
        let may_wait = |text: &str| text.contains("wait_for") || text.contains('$');
        let waits = input
            .cmd_sections
            .iter()
            .flat_map(|cs| &cs.options)
            .chain(
                job_files
                    .iter()
                    .flat_map(|jf| &jf.sections)
                    .flat_map(|s| &s.entries),
            )
            .any(|e| may_wait(&e.text));
        Expander {
            input,
            keep: !input.parse_only,
            plan: Plan::of(input.release),
            diags: Diagnostics::default(),
            group_id: 0,
            group_jobs: 0,
            total_files: 0,
            count: 0,
            waits,
            first_named: HashMap::new(),
            stopped: false,
            refusal: None,
        }
    }

    /// The jobs of section `p`.
    fn add(&mut self, p: Pending<'_>) {
        if self.stopped {
            return;
        }
        if let Some(msg) = super::files::name_refusal(&p.name) {
            self.diags.push(Diagnostic::at(p.span.clone(), msg));
            return;
        }
        let o = Opts(&p.options);
        let numjobs = o.int("numjobs").unwrap_or(1).max(0) as u32;
        if self.keep && self.count + numjobs as usize > MAX_JOBS {
            self.diags.push(Diagnostic::at(
                p.span.clone(),
                format!(
                    "job '{}': numjobs={numjobs} makes more than {MAX_JOBS} jobs, one thread each",
                    p.section_name
                ),
            ));
            self.stopped = true;
            return;
        }
        let made = if self.keep {
            numjobs
        } else {
            numjobs.min(MAX_JOBS.saturating_sub(self.count).max(1) as u32)
        };
        let stonewall = p.implicit_stonewall || o.is("stonewall");
        let new_group = o.is("new_group");
        let display = p.name.clone();
        let wait_for = match o.value("wait_for") {
            Some(Value::Text(w)) => match self.first_named.get(w) {
                Some(i) => Some(*i),
                None if self.input.mode == Mode::Fio => {
                    // fio finds it while adding the jobs to run.
                    let msg = match w == p.section_name {
                        true => format!(
                            "{}: a job cannot wait for itself (wait_for={w}).",
                            p.section_name
                        ),
                        false => format!("{}: waitee job {w} unknown.", p.section_name),
                    };
                    self.refuse(msg);
                    None
                }
                None => {
                    let fio = match w == p.section_name {
                        true => format!(
                            "{}: a job cannot wait for itself (wait_for={w}).",
                            p.section_name
                        ),
                        false => format!("{}: waitee job {w} unknown.", p.section_name),
                    };
                    self.diags.push(Diagnostic::at(
                        p.span.clone(),
                        format!(
                            "job '{display}': wait_for='{w}': no job of that name is defined before this one; \
                             fio finds this only when it runs the jobs ('{fio}', exit 1), not with \
                             --parse-only or --showcmd; name a job defined before this one, \
                             {}",
                            crate::jobfile::mode::COMPAT_HINT
                        ),
                    ));
                    None
                }
            },
            _ => None,
        };
        // fio loads the engine when it adds the job to run: one it does not
        // have refuses the run there, before any job starts. (Read strictly,
        // the engine's refusal names the job file's line instead: see
        // `plan::engine::refusal`.)
        let engine = p.options.ioengine();
        if self.input.runs()
            && self.input.mode == Mode::Fio
            && !crate::options::engines::is_available(engine)
            && crate::options::engines::external_path(engine).is_none()
        {
            self.refuse(format!(
                "fio: engine {engine} not loadable\nfio: failed to load engine"
            ));
        }
        let mut resolved = resolve::resolve(&p.options, self.input.readonly, self.input.release);
        if resolved.file.unique_filename {
            resolved
                .file
                .name_prefix
                .clone_from(&self.input.file_prefix);
        }
        if self.input.runs() {
            // fio scans opendir= as it reads the option (not in dry runs).
            if let Err(msg) = files::resolve_opendir(&p.options, &mut resolved.file) {
                resolved.invalid.push(msg);
            }
            // Once for a job and its clones: they share their options.
            for msg in &resolved.invalid {
                self.diags.push(Diagnostic::at(
                    p.span.clone(),
                    format!("job '{display}': {msg}"),
                ));
            }
        }
        if (stonewall || new_group) && self.group_jobs > 0 {
            self.group_id += 1;
            self.group_jobs = 0;
        }
        // The original is jobnum 0; its clones follow it, numbered N-1 … 1.
        let subjobs = std::iter::once(0).chain((1..numjobs).rev());
        for (k, subjob) in subjobs.take(made.max(1) as usize).enumerate() {
            if numjobs == 0 {
                break;
            }
            let job = job_spec(
                &p,
                &resolved,
                &display,
                subjob,
                k == 0 && stonewall,
                wait_for,
                self.group_id,
                self.count,
                &mut self.diags,
            );
            if let Some(mut job) = job {
                job.readonly = self.input.readonly;
                job.aux_path.clone_from(&self.input.aux_path);
                let fio = self.input.mode == Mode::Fio;
                job.explain = !fio;
                if let Some(msg) = check_job(&job, self.input.runs(), fio, &mut self.diags) {
                    self.refuse(msg);
                }
                self.total_files += job.files.len();
                if self.waits && !self.first_named.contains_key(&job.name) {
                    self.first_named.insert(job.name.clone(), self.count);
                }
                self.count += 1;
                if self.keep {
                    self.plan.jobs.push(job);
                }
            }
            if self.total_files > MAX_FILES {
                self.diags.push(Diagnostic::at(
                    p.span.clone(),
                    format!("job '{display}': the jobs so far use more than {MAX_FILES} files"),
                ));
                self.stopped = true;
                return;
            }
            self.group_jobs += 1;
        }
    }
}

impl Expander<'_> {
    /// `--compat=fio`: fio refuses the run when it adds the job being
    /// made (the first refusal counts).
    fn refuse(&mut self, msg: String) {
        if self.refusal.is_none() {
            self.refusal = Some((self.count, msg));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn job_spec(
    p: &Pending<'_>,
    r: &Resolved,
    display: &str,
    subjob: u32,
    stonewall: bool,
    wait_for: Option<usize>,
    group_id: u32,
    index: usize,
    diags: &mut Diagnostics,
) -> Option<JobSpec> {
    let o = Opts(&p.options);
    let (pattern, bs) = (r.pattern, r.bs);
    let size = o.bytes("size");
    let files = match files::files(&p.options, &r.file, p.section_name, subjob, size) {
        Ok(f) => f,
        Err(msg) => {
            diags.push(Diagnostic::at(
                p.span.clone(),
                format!("job '{display}': {msg}"),
            ));
            return None;
        }
    };
    let mut job = JobSpec {
        name: display.to_string(),
        thread_number: index as u32 + 1,
        subjob,
        group_id,
        stonewall,
        wait_for,
        span: p.span.clone(),
        options: Arc::clone(&p.options),
        own_options: p.own_options,
        pattern,
        ioengine: p.options.ioengine().to_string(),
        engine: Default::default(),
        iodepth: r.io.iodepth,
        bs,
        size,
        io_size: o.bytes("io_size"),
        offset: o.bytes("offset").unwrap_or(0),
        number_ios: o.int("number_ios").unwrap_or(0).max(0) as u64,
        loops: o.int("loops").unwrap_or(1).max(1) as u32,
        // fio's fixup_options: atomic implies O_DIRECT.
        direct: o.is("direct") || o.flag("buffered") == Some(false) || r.file.atomic,
        // fio's fixup_options: time_based without a runtime is dropped
        // (the runner prints fio's warning), the job runs through its size.
        time_based: o.is("time_based") && o.micros("runtime") > 0,
        time_based_dropped: o.is("time_based") && o.micros("runtime") == 0,
        runtime_us: o.micros("runtime"),
        ramp_time_us: o.micros("ramp_time"),
        startdelay_us: match o.value("startdelay") {
            Some(Value::Ranges(r)) => r.first().copied().flatten().unwrap_or((0, 0)),
            _ => (o.micros("startdelay"), o.micros("startdelay")),
        },
        rwmixread: match (o.int("rwmixread"), o.int("rwmixwrite")) {
            (Some(r), _) => r.clamp(0, 100) as u32,
            (None, Some(w)) => 100 - w.clamp(0, 100) as u32,
            (None, None) => 50,
        },
        group_reporting: o.is("group_reporting"),
        readonly: false,
        explain: false,
        aux_path: None,
        io: r.io.clone(),
        placement: r.placement.clone(),
        rate: r.rate,
        think: r.think,
        block: r.block.clone(),
        buffers: r.buffers(size, files.len(), bs[1].0),
        zones: r.zones.clone(),
        norandommap: r.norandommap,
        seeds: r.seeds.seeds(index as u32 + 1),
        offsets: r.offsets.clone(),
        verify: r.verify.clone(),
        verify_state_load: r.verify_state_load,
        exec: r.exec,
        steadystate: r.steadystate,
        iolog: r.iolog.clone(),
        host: r.host.for_job(&p.span, subjob),
        flow: r.flow,
        submit: r.submit,
        directories: r.directories.clone(),
        file: r.file.clone(),
        files,
        report: Default::default(),
        logs: None,
    };
    files::draw_ranged_sizes(&mut job);
    job.engine = super::engine::resolve(&job, diags)?;
    super::report::resolve(&mut job);
    Some(job)
}

/// Cross-option rules fio enforces when it adds a job; with `runs`, also
/// those a dry run skips. With `fio` (`--compat=fio`), what fio finds
/// only when it adds the job to run comes back, in fio's words, to be
/// refused then.
fn check_job(job: &JobSpec, runs: bool, fio: bool, diags: &mut Diagnostics) -> Option<String> {
    let mut fail = |msg: String| {
        diags.push(Diagnostic::at(
            job.span.clone(),
            format!("job '{}': {msg}", job.name),
        ))
    };
    // A clone has its original's options: one report for them all.
    let first = job.subjob == 0;
    if job.readonly && first {
        for what in readonly_refusals(job) {
            fail(format!("{what}, and --readonly forbids every write"));
        }
    }
    let set = |n: &str| job.options.get(n).is_some();
    if (set("rate") && set("rate_iops")) || (set("rate_min") && set("rate_iops_min")) {
        fail("rate and rate_iops are mutually exclusive".into());
    }
    // fill_device without a size writes until ENOSPC (fio's size of -1).
    let fills = job.io.fill_device && job.size.is_none();
    if runs && first && fills && job.pattern.random && !job.norandommap {
        fail(
            "fill_device=1 without a size needs norandommap for a random pattern \
             (fio fails to allocate its random map)"
                .into(),
        );
    }
    let mut refusal = None;
    if runs && first {
        for (msg, fio_says) in super::files::refusals(job) {
            match fio_says {
                // fio refuses it when it adds the job to run.
                Some(words) if fio => refusal = Some(words),
                _ => fail(msg),
            }
        }
    }
    let min_bs = job.bs.iter().map(|b| b.0).min().unwrap_or(4096);
    if let Some(size) = job.size {
        if size > 0 && size < min_bs {
            let fio_says = format!(
                "size too small, must not be less than minimum block size: {size} < {min_bs}"
            );
            if fio {
                refusal = runs.then(|| format!("fio: {fio_says}"));
            } else {
                fail(format!(
                    "{fio_says}; fio finds this only when it runs the jobs (exit 1), not with \
                 --parse-only or --showcmd; give a larger size, {}",
                    crate::jobfile::mode::COMPAT_HINT
                ));
            }
        }
    }
    if runs && first {
        super::report::check_logs(job, diags);
    }
    refusal
}

/// What the plan's jobs need of the file system before any of them
/// starts: fio checks `directory=` when it reads the option for a run
/// (with lstat: a symbolic link is refused too) and drops the job, so
/// rfio refuses the run before its banner, naming the job's file:line.
pub(crate) fn filesystem_checks(plan: &Plan) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for job in plan.jobs.iter().filter(|j| j.subjob == 0) {
        for dir in &job.directories {
            if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
                diags.push(Diagnostic::at(
                    job.span.clone(),
                    format!(
                        "job '{}': {dir} is not a directory (fio: failed parsing directory={dir})",
                        job.name,
                        dir = crate::diag::show_path(dir),
                    ),
                ));
            }
        }
    }
    diags
}

/// What in `job` would write under `--readonly`, each as the reason given.
///
/// fio refuses only `rw=` patterns that write or trim; it runs the engines
/// above, `unlink` and `mem=mmap:FILE` under `--readonly` (deleting files),
/// and lays files out after a warning. rfio refuses every one before
/// anything is opened.
fn readonly_refusals(job: &JobSpec) -> Vec<String> {
    let mut out = Vec::new();
    if job.pattern.writes() {
        out.push(format!("rw={} writes", job.pattern.name()));
    }
    // Engines that change files whatever the I/O direction (falloc
    // allocates and creates, ftruncate truncates, filecreate creates,
    // filedelete deletes).
    if crate::ioengine::lookup(&job.ioengine).is_some_and(|d| d.flags.changes_files) {
        out.push(format!(
            "ioengine={} changes files whatever it is asked to do",
            job.ioengine
        ));
    }
    let o = Opts(&job.options);
    for opt in ["unlink", "unlink_each_loop"] {
        if o.is(opt) {
            out.push(format!("{opt}=1 deletes the job's files"));
        }
    }
    if job.io.fill_device {
        out.push("fill_device=1 lays out files to fill the device".to_string());
    }
    if let Some(file) = o.choice_modifier("mem") {
        out.push(format!("mem=...:{file} creates and sizes {file}"));
    }
    out
}

#[cfg(test)]
mod tests {
    fn refusals(argv: &[&str]) -> (Vec<bool>, String) {
        let fe = crate::plan::testing::frontend(argv);
        let ro = fe.plan.jobs.iter().map(|j| j.readonly).collect();
        (ro, fe.diags.to_string())
    }

    #[test]
    fn readonly_is_in_every_job_and_refuses_what_writes() {
        let (ro, diags) = refusals(&["--readonly", "--name=a", "--size=1m", "--numjobs=3"]);
        assert_eq!(ro, [true, true, true]);
        assert_eq!(diags, "");
        let (ro, _) = refusals(&["--name=a", "--size=1m"]);
        assert_eq!(ro, [false]);
        for (opt, why) in [
            ("--rw=randwrite", "rw=randwrite writes"),
            ("--ioengine=falloc", "ioengine=falloc changes files"),
            ("--ioengine=ftruncate", "ioengine=ftruncate changes files"),
            ("--ioengine=filecreate", "ioengine=filecreate changes files"),
            ("--ioengine=filedelete", "ioengine=filedelete changes files"),
            ("--unlink=1", "unlink=1 deletes"),
            ("--unlink_each_loop=1", "unlink_each_loop=1 deletes"),
            ("--fill_device=1", "fill_device=1 lays out"),
            ("--mem=mmap:f", "mem=...:f creates and sizes f"),
        ] {
            let (_, diags) = refusals(&["--readonly", "--name=a", "--size=1m", "--numjobs=2", opt]);
            assert_eq!(
                diags.matches("--readonly forbids every write").count(),
                1,
                "{opt}: once for a job and its clones: {diags}"
            );
            assert!(diags.contains(why), "{opt}: {diags}");
            let (_, diags) = refusals(&["--name=a", "--size=1m", opt]);
            assert!(!diags.contains("--readonly"), "{opt}: {diags}");
        }
        for fine in [
            "--ioengine=filestat",
            "--ioengine=mmap",
            "--pre_read=1",
            "--unlink=0",
        ] {
            let (_, diags) = refusals(&["--readonly", "--name=a", "--size=1m", fine]);
            assert_eq!(diags, "", "{fine}");
        }
    }
}
