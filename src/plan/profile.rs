//! `--profile=NAME`: the jobs of fio's built-in profiles (`profiles/
//! tiobench.c`, `profiles/act.c`).
//!
//! fio adds a profile's jobs when the run starts (`fio_backend`'s
//! `load_profile`), after every job of the command line and the job files,
//! parsing them as command-line jobs whose globals are the command line's
//! global options; its values go through the job-file substitutions
//! (`$mb_memory`). A dry run (`--parse-only`, `--showcmd`) adds none, but
//! still refuses a profile that cannot be prepared (an unknown one, act
//! without `device-names`). A profile's own options (`device-names`,
//! `test-duration`, ...) may be set anywhere; the last setting counts.
//!
//! The act profile's jobs carry [`ActHooks`]: each I/O's latency is
//! counted per hour-long slice, and the table of slices is printed when
//! the last of them ends (`workload::act`).

use super::input::CmdSection;
use super::resolve::host::ActHooks;
use super::spec::JobSpec;
use crate::diag::{Diagnostic, Span};
use crate::jobfile::ast::Entry;
use crate::jobfile::subst::{substitute, Keywords, Substituted};
use crate::options::jobopts::Setting;
use crate::options::profiles::{self, ActSettings, Profile};

/// A profile's jobs, ready to be added.
pub(crate) struct Expansion {
    pub(crate) sections: Vec<CmdSection>,
    act: Option<ActHooks>,
}

impl Expansion {
    /// Give the profile's jobs (`jobs`, made from [`Expansion::sections`])
    /// what the profile does while they run.
    pub(crate) fn mark(&self, jobs: &mut [JobSpec]) {
        for j in jobs {
            j.host.act = self.act.clone();
        }
    }
}

/// The jobs of profile `name` (given at `span`), with the profile's
/// options as `settings` (every setting read, in fio's order) set them.
pub(crate) fn expand<'a>(
    name: &str,
    span: &Span,
    settings: impl Iterator<Item = &'a Setting>,
    keywords: &Keywords,
) -> Result<Expansion, Diagnostic> {
    let fail = |msg: String| Diagnostic::at(span.clone(), msg);
    let Some(profile) = Profile::find(name) else {
        return Err(fail(format!(
            "--profile={name}: no such profile (fio: profile '{name}' not found); \
             fio 3.33 has tiobench and act"
        )));
    };
    let (list, act) = match profile {
        Profile::Tiobench => (profiles::tiobench(), None),
        Profile::Act => {
            let mut a = ActSettings::default();
            for s in settings.filter(|s| profile.owns(s.def)) {
                a.set(s.def.name, &s.value);
            }
            let list = profiles::act(&a).map_err(|e| fail(format!("--profile=act: {e}")))?;
            let hooks = ActHooks {
                slices: a.slices(),
                prep: a.prep,
            };
            (list, Some(hooks))
        }
    };
    let mut sections = Vec::with_capacity(list.len());
    for s in list {
        let mut options = Vec::with_capacity(s.options.len());
        for text in s.options {
            let text = match substitute(&text, |v| std::env::var(v).ok(), keywords) {
                Substituted::Text(t) => t,
                Substituted::BadExpression { expr, reason } => {
                    return Err(fail(format!(
                        "--profile={name}: cannot evaluate '{expr}': {reason}"
                    )))
                }
            };
            options.push(Entry {
                text,
                span: span.clone(),
            });
        }
        sections.push(CmdSection {
            name: s.name,
            span: span.clone(),
            options,
            described: None,
        });
    }
    Ok(Expansion { sections, act })
}

#[cfg(test)]
mod tests {
    use crate::plan::testing::frontend;

    fn names(fe: &crate::plan::Frontend) -> Vec<(String, u32)> {
        fe.plan
            .jobs
            .iter()
            .map(|j| (j.name.clone(), j.group_id))
            .collect()
    }

    /// tiobench's four jobs follow the others, each in its own group,
    /// with `$mb_memory` substituted (the test keywords say 1024 MiB).
    #[test]
    fn tiobench_jobs_come_last() {
        let fe = frontend(&[
            "--profile=tiobench",
            "--name=mine",
            "--ioengine=null",
            "--size=4k",
        ]);
        assert!(fe.diags.is_empty(), "{}", fe.diags);
        assert_eq!(
            names(&fe),
            [
                ("mine".to_string(), 0),
                ("seqwrite".into(), 0),
                ("randwrite".into(), 1),
                ("seqread".into(), 2),
                ("randread".into(), 3)
            ]
        );
        assert_eq!(fe.plan.profile_jobs, 4);
        let j = &fe.plan.jobs[1];
        assert_eq!(j.size, Some(4 * 1024 * 1024));
        assert_eq!(j.files.len(), 4);
        assert!(j.host.act.is_none());
    }

    #[test]
    fn act_takes_its_options_and_refuses_without_devices() {
        let fe = frontend(&["--profile=act"]);
        assert_eq!(
            fe.diags.0[0].message,
            "--profile=act: act: you need to set IO target(s) with the device-names option."
        );
        let fe = frontend(&[
            "--profile=act",
            "--device-names=/tmp/d",
            "--threads-per-queue=2",
            "--test-duration=3us",
        ]);
        assert!(fe.diags.is_empty(), "{}", fe.diags);
        let n: Vec<_> = fe.plan.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(
            n,
            ["act-read-/tmp/d", "act-read-/tmp/d", "act-write-/tmp/d"]
        );
        let r = &fe.plan.jobs[0];
        assert_eq!((r.runtime_us, r.bs[0]), (3_000_000, (1536, 1536)));
        assert_eq!(r.host.act.as_ref().map(|a| a.slices), Some(1));
        let fe = frontend(&["--profile=nope"]);
        assert!(fe.diags.0[0].message.contains("profile 'nope' not found"));
    }

    /// A dry run adds no profile job, but still refuses what fio's
    /// profile preparation refuses.
    #[test]
    fn dry_runs_add_none() {
        let fe = frontend(&["--parse-only", "--profile=tiobench"]);
        assert!(fe.diags.is_empty() && fe.plan.jobs.is_empty());
        let fe = frontend(&["--showcmd", "--profile=act"]);
        assert_eq!(fe.diags.0.len(), 1);
    }
}
