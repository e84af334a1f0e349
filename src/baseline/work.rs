//! The work a baseline identifies: each job of the resolved plan, its name
//! and the options in force for it, by meaning (`bs=4k` and `bs=4096` are
//! the same; the order they were written in, comments, and whether an
//! option came from `[global]`, the section or the command line do not
//! matter; an option set to its default is the same as unset, and saved
//! with `"is_default": true` to be shown).
//!
//! Not the work, so never compared: the job's `description` and `name`
//! option, and what only measures or logs it (the table's "Measurements and
//! reporting" options but those that change what is reported:
//! `group_reporting`, `new_group`, `percentile_list`, `unified_rw_reporting`).
//! The pacing options (the table's "I/O rate": `rate*`, `thinktime*`) are
//! compared apart: a difference is a warning, as a different host is, and
//! the run is compared anyway (a slower `rate=` is then a regression, which
//! is what a throttled CI job wants to see).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::plan::in_force::in_force;
use crate::plan::Plan;

/// An option as saved: as written and as understood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SavedValue {
    /// As written (after `${VAR}` substitution); `null` for a bare flag.
    pub(crate) text: Option<String>,
    /// As rfio understood it; what is compared.
    pub(crate) value: String,
    /// The table's default: compared as if unset (kept to be shown).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) is_default: bool,
}

impl SavedValue {
    /// What is compared: the meaning, none for the default.
    fn meaning(&self) -> Option<&str> {
        (!self.is_default).then_some(self.value.as_str())
    }
}

/// A job of the plan as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SavedJob {
    pub(crate) name: String,
    /// The options that decide the work, by name.
    pub(crate) options: BTreeMap<String, SavedValue>,
    /// The pacing options (`rate*`, `thinktime*`), by name.
    pub(crate) pacing: BTreeMap<String, SavedValue>,
}

/// Options of "Measurements and reporting" that change what is reported.
const REPORTED: &[&str] = &[
    "group_reporting",
    "new_group",
    "percentile_list",
    "unified_rw_reporting",
];

/// The plan's jobs, as a baseline saves them.
pub(crate) fn of_plan(plan: &Plan) -> Vec<SavedJob> {
    plan.jobs
        .iter()
        .map(|job| {
            let mut options = BTreeMap::new();
            let mut pacing = BTreeMap::new();
            for o in in_force(job) {
                let measures =
                    o.category == "Measurements and reporting" && !REPORTED.contains(&o.name);
                if measures || ["description", "name"].contains(&o.name) {
                    continue;
                }
                let map = match o.category == "I/O rate" {
                    true => &mut pacing,
                    false => &mut options,
                };
                let saved = SavedValue {
                    text: o.text,
                    value: o.meaning,
                    is_default: o.is_default,
                };
                map.insert(o.name.to_string(), saved);
            }
            SavedJob {
                name: job.name.clone(),
                options,
                pacing,
            }
        })
        .collect()
}

/// A string from the baseline (or this run) as a message quotes it.
fn q(text: &str) -> String {
    crate::diag::quote(text, super::error::ECHO)
}

fn shown(v: Option<&SavedValue>) -> String {
    match v {
        // Unset, or set to its default.
        None => "(default)".into(),
        Some(SavedValue { text: None, .. }) => "(set)".into(),
        Some(SavedValue { text: Some(t), .. }) => q(t),
    }
}

/// The options of `a` and `b` that differ in meaning, in name order, as
/// `name old → new`.
fn option_differences(
    a: &BTreeMap<String, SavedValue>,
    b: &BTreeMap<String, SavedValue>,
) -> Vec<(String, String)> {
    let mut names: Vec<&String> = a.keys().chain(b.keys()).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|n| {
            a.get(*n).and_then(SavedValue::meaning) != b.get(*n).and_then(SavedValue::meaning)
        })
        .map(|n| {
            let (x, y) = (a.get(n), b.get(n));
            (n.clone(), format!("{} {} → {}", q(n), shown(x), shown(y)))
        })
        .collect()
}

/// How the saved jobs and this run's differ: the refusals (other work, one
/// sentence per job: its first option that differs, and the names of the
/// others) and the pacing warnings.
pub(crate) fn differences(saved: &[SavedJob], now: &[SavedJob]) -> (Vec<String>, Vec<String>) {
    let names = |jobs: &[SavedJob]| {
        jobs.iter()
            .map(|j| q(&j.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if saved.len() != now.len() {
        let why = format!(
            "jobs {} → {} ({} → {})",
            saved.len(),
            now.len(),
            names(saved),
            names(now)
        );
        return (vec![why], Vec::new());
    }
    let (mut refused, mut pacing) = (Vec::new(), Vec::new());
    for (i, (s, n)) in saved.iter().zip(now).enumerate() {
        if s.name != n.name {
            refused.push(format!(
                "job {}: name {} → {}",
                i + 1,
                q(&s.name),
                q(&n.name)
            ));
            continue;
        }
        let job = q(&n.name);
        let d = option_differences(&s.options, &n.options);
        if let Some((_, first)) = d.first() {
            let more = match d.len() {
                1 => String::new(),
                _ => {
                    let rest: Vec<&str> = d[1..].iter().map(|(n, _)| n.as_str()).collect();
                    format!("; also {}", rest.join(", "))
                }
            };
            refused.push(format!("job {job}: {first}{more}"));
        }
        for (_, p) in option_differences(&s.pacing, &n.pacing) {
            pacing.push(format!("pacing differs: job {job}: {p}"));
        }
    }
    (refused, pacing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, opts: &[(&str, &str, &str)], pace: &[(&str, &str, &str)]) -> SavedJob {
        let map = |o: &[(&str, &str, &str)]| {
            o.iter()
                .map(|(k, t, v)| {
                    let saved = SavedValue {
                        text: Some(t.to_string()),
                        value: v.to_string(),
                        is_default: *v == "D",
                    };
                    (k.to_string(), saved)
                })
                .collect()
        };
        SavedJob {
            name: name.into(),
            options: map(opts),
            pacing: map(pace),
        }
    }

    #[test]
    fn differences_name_the_first_option_in_words() {
        let a = [job(
            "randread",
            &[("bs", "4k", "Bytes(4096)"), ("rw", "randread", "Choice(3)")],
            &[("rate", "4m", "B")],
        )];
        let same_meaning = [job(
            "randread",
            &[
                ("rw", "randread", "Choice(3)"),
                ("bs", "4096", "Bytes(4096)"),
            ],
            &[("rate", "4m", "B")],
        )];
        assert_eq!(differences(&a, &same_meaning), (vec![], vec![]));
        // Set to its default ("D") or unset: the same.
        let default = [job(
            "randread",
            &[
                ("bs", "4k", "Bytes(4096)"),
                ("rw", "randread", "Choice(3)"),
                ("iodepth", "1", "D"),
            ],
            &[("rate", "4m", "B")],
        )];
        assert_eq!(differences(&a, &default), (vec![], vec![]));
        let b = [job(
            "randread",
            &[
                ("bs", "8k", "Bytes(8192)"),
                ("iodepth", "8", "Int(8)"),
                ("rw", "randread", "Choice(3)"),
            ],
            &[("rate", "2m", "A")],
        )];
        let (refused, pacing) = differences(&a, &b);
        assert_eq!(refused, ["job randread: bs 4k → 8k; also iodepth"]);
        assert_eq!(pacing, ["pacing differs: job randread: rate 4m → 2m"]);
        let c = [job("randread", &[("rw", "randread", "Choice(3)")], &[])];
        let (refused, pacing) = differences(&a, &c);
        assert_eq!(refused, ["job randread: bs 4k → (default)"]);
        assert_eq!(
            pacing,
            ["pacing differs: job randread: rate 4m → (default)"]
        );
        let two = [job("randread", &[], &[]), job("w", &[], &[])];
        assert_eq!(
            differences(&a, &two).0,
            ["jobs 1 → 2 (randread → randread, w)"]
        );
        assert_eq!(
            differences(&a, &[job("x", &[], &[])]).0,
            ["job 1: name randread → x"]
        );
    }
}
