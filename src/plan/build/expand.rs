//! Sections into jobs, one at a time: `numjobs` clones, groups,
//! `wait_for`, files, and the cross-option rules fio enforces as it adds
//! each job.

use std::collections::HashMap;
use std::sync::Arc;

use super::{MAX_FILES, MAX_JOBS};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::jobfile::{JobFile, Mode};
use crate::options::jobopts::JobOptions;
use crate::options::Value;
use crate::plan::files;
use crate::plan::input::Input;
use crate::plan::resolve::job::{self as resolve, Resolved};
use crate::plan::resolve::read::Opts;
use crate::plan::spec::{JobSpec, Plan};

/// A section on its way to becoming jobs.
pub(super) struct Pending<'a> {
    pub(super) section_name: &'a str,
    /// Where the section's own settings start in `options`.
    pub(super) own_options: usize,
    /// The job's name: `name=` in the section itself, else the section's
    /// name (fio names each job after its section; a `name=` in
    /// `[global]` renames none).
    pub(super) name: String,
    pub(super) span: Span,
    pub(super) options: Arc<JobOptions>,
    pub(super) implicit_stonewall: bool,
}

/// Turns sections into jobs, one section at a time: numjobs clones, groups,
/// wait_for, files.
///
/// With `--parse-only` nothing runs the plan: every job is checked and
/// dropped (the plan stays empty, and fio's limit on the number of jobs,
/// which fio does not apply there either, does not apply), and `numjobs`
/// clones, which differ only in their number, are checked up to
/// [`MAX_JOBS`] in all.
pub(super) struct Expander<'a> {
    pub(super) input: &'a Input,
    keep: bool,
    pub(super) plan: Plan,
    pub(super) diags: Diagnostics,
    group_id: u32,
    group_jobs: u32,
    total_files: usize,
    /// Jobs made so far.
    count: usize,
    /// The first job of each name, kept when some option line may set
    /// `wait_for`.
    waits: bool,
    first_named: HashMap<String, usize>,
    /// The `ramp_size`s of the jobs added so far, by group: the first
    /// one, and whether another differed (fio 3.42's td_ramp_period_init
    /// compares a ramping job's with every other job's of its group). A
    /// summary, not a list: the check costs the same for the last of
    /// 100,000 jobs as for the first.
    ramp_sizes: HashMap<u32, (u64, bool)>,
    /// Past a limit: later sections make no jobs.
    stopped: bool,
    /// `--compat=fio`: fio's first refusal while adding the jobs.
    pub(super) refusal: Option<(usize, String)>,
    /// `--compat=fio`: fio's refusal while it reads the command line
    /// (an engine it cannot load), after that many jobs; nothing after it
    /// is read.
    pub(super) read_refusal: Option<(usize, String)>,
}

impl<'a> Expander<'a> {
    pub(super) fn new(input: &'a Input, job_files: &[JobFile]) -> Expander<'a> {
        // memchr for '$' and '_' first: most lines have neither.
        let may_wait = |text: &str| {
            let b = text.as_bytes();
            b.contains(&b'$') || (b.contains(&b'_') && text.contains("wait_for"))
        };
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
            ramp_sizes: HashMap::new(),
            stopped: false,
            refusal: None,
            read_refusal: None,
        }
    }

    /// The jobs of section `p`.
    pub(super) fn add(&mut self, p: Pending<'_>) {
        let Some((numjobs, made)) = self.admit(&p) else {
            return;
        };
        let o = Opts(&p.options, self.input.release);
        let stonewall = p.implicit_stonewall || o.is("stonewall");
        let new_group = o.is("new_group");
        let display = p.name.clone();
        let wait_for = self.wait_for(&p, &display);
        self.check_engine(&p);
        let mut resolved = Some(self.resolve(&p, &display));
        if (stonewall || new_group) && self.group_jobs > 0 {
            self.group_id += 1;
            self.group_jobs = 0;
        }
        // The original is jobnum 0; its clones follow it, numbered N-1 … 1.
        let subjobs = std::iter::once(0).chain((1..numjobs).rev());
        let count = made.max(1) as usize;
        for (k, subjob) in subjobs.take(count).enumerate() {
            if numjobs == 0 {
                break;
            }
            // The last job made takes the resolved options; the others
            // copy them.
            let r = match k + 1 == count {
                true => resolved.take(),
                false => resolved.clone(),
            };
            let Some(r) = r else { break };
            let job = job_spec(
                &p,
                r,
                &display,
                subjob,
                k == 0 && stonewall,
                wait_for,
                self.group_id,
                self.count,
                &mut self.diags,
            );
            if let Some(job) = job {
                self.push(job);
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

    /// Whether section `p` makes jobs at all: the jobs its `numjobs` asks
    /// for, and those made (checked) of them. None past a limit, or for a
    /// name fio refuses.
    fn admit(&mut self, p: &Pending<'_>) -> Option<(u32, u32)> {
        if self.stopped {
            return None;
        }
        if let Some(msg) = files::name_refusal(&p.name) {
            self.diags.push(Diagnostic::at(p.span.clone(), msg));
            return None;
        }
        let o = Opts(&p.options, self.input.release);
        let numjobs = o.int_or_default("numjobs").max(0) as u32;
        if self.keep && self.count + numjobs as usize > MAX_JOBS {
            self.diags.push(Diagnostic::at(
                p.span.clone(),
                format!(
                    "job '{}': numjobs={numjobs} makes more than {MAX_JOBS} jobs, one thread each",
                    p.section_name
                ),
            ));
            self.stopped = true;
            return None;
        }
        let made = if self.keep {
            numjobs
        } else {
            numjobs.min(MAX_JOBS.saturating_sub(self.count).max(1) as u32)
        };
        Some((numjobs, made))
    }

    /// The job section `p` waits for (`wait_for=`): the first job of that
    /// name made before it.
    fn wait_for(&mut self, p: &Pending<'_>, display: &str) -> Option<usize> {
        let o = Opts(&p.options, self.input.release);
        match o.value("wait_for") {
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
        }
    }

    /// `--compat=fio`: an engine fio cannot load.
    fn check_engine(&mut self, p: &Pending<'_>) {
        // fio loads the engine when it adds the job to run: one it does not
        // have refuses the run there, before any job starts. (Read strictly,
        // the engine's refusal names the job file's line instead: see
        // `plan::engine::refusal`.)
        if self.input.runs() {
            if let Some(msg) = self.unloadable(p.options.ioengine()) {
                self.refuse(msg);
            }
        }
    }

    /// `--compat=fio`: fio's refusal of `engine` when it cannot load it
    /// (as the run's release has its engines).
    fn unloadable(&self, engine: &str) -> Option<String> {
        (self.input.mode == Mode::Fio
            && !crate::options::engines::is_available(engine, self.input.release)
            && crate::options::engines::external_path(engine).is_none())
        .then(|| format!("fio: engine {engine} not loadable\nfio: failed to load engine"))
    }

    /// `--compat=fio`: a command-line section whose own settings (from
    /// `start` on) set an engine fio cannot load. fio loads the engine as
    /// soon as it reads `--ioengine` (to read the engine's own options),
    /// dry runs too (`--parse-only`, `--showcmd`), and stops there:
    /// returns whether it did.
    pub(super) fn refuse_when_read(&mut self, options: &JobOptions, start: usize) -> bool {
        let sets = options
            .settings
            .iter()
            .skip(start)
            .any(|s| s.def.name == "ioengine");
        match self.unloadable(options.ioengine()).filter(|_| sets) {
            Some(msg) => {
                self.read_refusal.get_or_insert((self.count, msg));
                true
            }
            None => false,
        }
    }

    /// The options of section `p` resolved, once for a job and its clones.
    fn resolve(&mut self, p: &Pending<'_>, display: &str) -> Resolved {
        let mut resolved = resolve::resolve(&p.options, self.input.readonly, self.input.release);
        if resolved.file.unique_filename {
            resolved
                .file
                .name_prefix
                .clone_from(&self.input.file_prefix);
        }
        if self.input.runs() {
            // fio scans opendir= as it reads the option (not in dry runs).
            if let Err(e) = files::resolve_opendir(&p.options, &mut resolved.file) {
                resolved.invalid.push(e.to_string());
            }
            // Once for a job and its clones: they share their options.
            for msg in &resolved.invalid {
                self.diags.push(Diagnostic::at(
                    p.span.clone(),
                    format!("job '{display}': {msg}"),
                ));
            }
        }
        resolved
    }

    /// Adds one job of a section (the original or a clone): what the
    /// whole run sets in it, the checks fio makes as it adds it, and its
    /// place in the plan.
    fn push(&mut self, mut job: JobSpec) {
        job.readonly = self.input.readonly;
        job.aux_path.clone_from(&self.input.aux_path);
        let fio = self.input.mode == Mode::Fio;
        job.explain = !fio;
        // What the reports and logs need of a job kept (a job only
        // checked, under `--parse-only`, has no report, and nothing in
        // it refuses a job: only a run checks the logs).
        if self.keep {
            crate::plan::report::resolve(&mut job);
        }
        if let Some(msg) = check_job(&job, self.input.runs(), fio, &mut self.diags) {
            self.refuse(msg);
        }
        let ramps = job.ramp_time_us > 0 || job.ramp_size > 0;
        let group = self.ramp_sizes.get(&job.group_id);
        // Two sizes among them: one differs from this job's, whatever it is.
        let differs = group.is_some_and(|&(first, two)| two || first != job.ramp_size);
        if ramps && differs {
            self.diags.push(Diagnostic::at(
                job.span.clone(),
                format!(
                    "job '{}': fio: file:time.c:242, func=job rejected: inconsistent ramp_size \
                     within reporting group, error=Invalid argument",
                    job.name
                ),
            ));
        }
        let seen = self
            .ramp_sizes
            .entry(job.group_id)
            .or_insert((job.ramp_size, false));
        seen.1 |= seen.0 != job.ramp_size;
        self.total_files += job.files.len();
        if self.waits && !self.first_named.contains_key(&job.name) {
            self.first_named.insert(job.name.clone(), self.count);
        }
        self.count += 1;
        if self.keep {
            self.plan.jobs.push(job);
        }
    }
}

impl Expander<'_> {
    /// `--compat=fio`: fio refuses the run when it adds the job being
    /// made (the first refusal counts).
    pub(super) fn refuse(&mut self, msg: String) {
        if self.refusal.is_none() {
            self.refusal = Some((self.count, msg));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn job_spec(
    p: &Pending<'_>,
    r: Resolved,
    display: &str,
    subjob: u32,
    stonewall: bool,
    wait_for: Option<usize>,
    group_id: u32,
    index: usize,
    diags: &mut Diagnostics,
) -> Option<JobSpec> {
    let o = Opts(&p.options, r.release);
    let (pattern, bs) = (r.pattern, r.bs);
    // fio's size=0 is no size: the files' own sizes (filesize=, or those
    // of the files there), as when size= is not given.
    let size = o.bytes("size").filter(|&s| s != 0);
    let files = match files::files(&p.options, &r.file, p.section_name, subjob, size) {
        Ok(f) => f,
        Err(e) => {
            diags.push(Diagnostic::at(
                p.span.clone(),
                format!("job '{display}': {e}"),
            ));
            return None;
        }
    };
    let buffers = r.buffers(size, files.len(), bs[1].0);
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
        release: r.release,
        pattern,
        ioengine: p.options.ioengine().to_string(),
        engine: Default::default(),
        iodepth: r.io.iodepth,
        bs,
        size,
        io_size: o.bytes("io_size"),
        offset: o.bytes_or_default("offset"),
        number_ios: o.int_or_default("number_ios").max(0) as u64,
        loops: o.int_or_default("loops").max(1) as u32,
        // fio 3.33's fixup_options: atomic implies O_DIRECT (3.38's atomic
        // writes do not, `FileOptions::atomic_writes`).
        direct: o.is("direct") || !o.flag_or_default("buffered") || r.file.atomic,
        // fio's fixup_options: time_based without a runtime is dropped
        // (the runner prints fio's warning), the job runs through its size.
        time_based: o.is("time_based") && o.micros("runtime") > 0,
        time_based_dropped: o.is("time_based") && o.micros("runtime") == 0,
        runtime_us: o.micros("runtime"),
        ramp_time_us: o.micros("ramp_time"),
        ramp_size: o.bytes_or_zero("ramp_size"),
        ramp_check_ns: if r.release.has(crate::release::Change::RampCheckedEachSecond) {
            1_000_000_000
        } else {
            0
        },
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
        io: r.io,
        placement: r.placement,
        rate: r.rate,
        think: r.think,
        block: r.block,
        buffers,
        zones: r.zones,
        norandommap: r.norandommap,
        seeds: r.seeds.seeds(index as u32 + 1),
        offsets: r.offsets,
        verify: r.verify,
        verify_state_load: r.verify_state_load,
        exec: r.exec,
        steadystate: r.steadystate,
        iolog: r.iolog,
        host: r.host.for_job(&p.span, subjob),
        flow: r.flow,
        submit: r.submit,
        directories: r.directories,
        file: r.file,
        files,
        report: Default::default(),
        logs: None,
    };
    files::draw_ranged_sizes(&mut job);
    job.engine = crate::plan::engine::resolve(&job, diags)?;
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
    if job.ramp_time_us > 0 && job.ramp_size > 0 {
        // fio 3.42's td_ramp_period_init, as it adds the job.
        fail(
            "fio: file:time.c:235, func=job rejected: cannot specify both ramp_time and \
             ramp_size, error=Invalid argument"
                .into(),
        );
    }
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
        for (msg, fio_says) in files::refusals(job) {
            match fio_says {
                // fio refuses it when it adds the job to run.
                Some(words) if fio => refusal = Some(words),
                _ => fail(msg),
            }
        }
    }
    // Data placement: fio's fixup_options, and its file setup asking the
    // engine for FDP's reclaim unit handles.
    if runs && first {
        let names: Vec<String> = job
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        if let Some((fio_says, why)) =
            crate::plan::resolve::dataplacement::refusal(job.opts(), &names, &job.ioengine)
        {
            if fio {
                refusal = Some(fio_says);
            } else {
                fail(why);
            }
        }
    }
    // fio 3.38's fixup_options: atomic writes need an engine with them.
    let atomic_engine = crate::plan::engine::flags(job).is_some_and(|f| f.atomic_writes);
    if runs && first && job.file.atomic_writes && !atomic_engine {
        if fio {
            refusal = Some("fio: engine does not support atomic writes".to_string());
        } else {
            fail(format!(
                "atomic=1 asks RWF_ATOMIC of each write, which ioengine={} cannot do \
                 (pvsync2, libaio and io_uring can)",
                job.ioengine
            ));
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
        crate::plan::report::check_logs(job, diags);
    }
    refusal
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
    let o = job.opts();
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
