//! From parsed sections to the plan, in fio's order.
//!
//! fio reads the command-line jobs first, then each job file. The global
//! options of the command line apply to the command-line jobs and to the
//! first job file only; each later file starts from the defaults, and its
//! first job starts a new group (an implicit `stonewall`). Inside a file a
//! `[global]` section changes the defaults of the jobs after it.

mod expand;

use std::sync::Arc;

use self::expand::{Expander, Pending};
use super::input::{CmdSection, Input};
use super::spec::Plan;
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::jobfile::subst::Keywords;
use crate::jobfile::JobFile;
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
    /// `dump` shows nothing (a job's options live on in its
    /// [`JobSpec`](super::JobSpec)).
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

    /// fio's notices (`Option NAME is deprecated`) for the options of
    /// [`SectionOutcome::dump`] that it ignores with one, in order.
    pub(crate) fn deprecated_notices(&self) -> String {
        let settings = self.options.settings.iter();
        let shown = settings.take(self.dump_to).skip(self.dump_from);
        shown
            .filter(|s| s.def.fio_type == crate::options::FioType::SoftDeprecated)
            .map(|s| format!("Option {} is deprecated\n", s.def.name))
            .collect()
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
    /// `--compat=fio`: fio's refusal while it reads the command line
    /// (`--ioengine=` naming an engine it cannot load), after that many
    /// jobs; dry runs meet it too, and nothing after it was read.
    pub(crate) refused_when_read: Option<(usize, String)>,
}

/// rfio runs a thread per job; past this many jobs a plan is a mistake
/// (fio 3.33 itself starts to fail in its shared-memory setup).
pub(crate) const MAX_JOBS: usize = 65_536;
/// Files of all jobs together.
pub(crate) const MAX_FILES: usize = 1 << 22;

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
        if jobs.read_refusal.is_some() {
            break;
        }
        command_line_section(&mut fe, &mut jobs, &mut globals, cs, keywords);
    }
    let cmdline_globals = globals.clone();
    // fio stops reading where it refused the command line.
    let files = if jobs.read_refusal.is_some() {
        &[]
    } else {
        job_files
    };
    for (idx, jf) in files.iter().enumerate() {
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
    fe.refused_when_read = jobs.read_refusal;
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
            note_deprecated(jobs, &globals, before);
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
        note_deprecated(jobs, &scope, start);
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
    let place = jobs
        .input
        .release
        .place(crate::release::places::Site::JobFileOpen);
    let what = format!("file:{place}, func=job file open, error={reason}");
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
    note_deprecated(jobs, &scope, start);
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
    // fio loads the engine as it reads `--ioengine`: a failed load ends it
    // before the options after it are checked.
    if jobs.refuse_when_read(&scope, start) || failed {
        return;
    }
    if cs.is_global() {
        *globals = JobOptions::clone(&scope);
    } else {
        let first = jobs.plan.jobs.len();
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
        if let Some(described) = cs.described {
            let added = first..jobs.plan.jobs.len();
            jobs.plan.described.push((added, described));
        }
    }
}

/// The soft-deprecated options among `scope`'s settings from `start` on,
/// into the plan's [`Plan::deprecated`](super::Plan::deprecated) (those of
/// a section that failed too: fio read them before it refused it).
fn note_deprecated(jobs: &mut Expander, scope: &JobOptions, start: usize) {
    let own = scope.settings.iter().skip(start);
    let soft = own.filter(|s| s.def.fio_type == crate::options::FioType::SoftDeprecated);
    let jobs_before = jobs.plan.jobs.len();
    for s in soft {
        jobs.plan.deprecated.push(super::spec::Deprecated {
            name: s.def.name,
            span: s.span.clone(),
            jobs_before,
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
