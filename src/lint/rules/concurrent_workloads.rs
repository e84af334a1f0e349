//! `concurrent-workloads`: sections meant as separate workloads (each its
//! own `rw`, no `group_reporting`) that run at the same time on one file
//! or device, because nothing between them (`stonewall`, `wait_for`,
//! `new_group`) says otherwise: each measures its share of a target the
//! others load (four sections randread/randwrite/read/write on one file,
//! fio 3.33: randread made 22.5k IOPS alone, 12.6k beside the others).

use std::path::PathBuf;

use super::{targets, Ctx, Hit, Rule};
use crate::plan::JobSpec;

pub(super) const RULE: Rule = Rule {
    name: "concurrent-workloads",
    summary: "sections with different rw run at once on one target (no stonewall)",
    check,
};

/// Jobs `a` and `b` (sections, `a` first; `between` the jobs after `a` up
/// to `b`) run at the same time as separate workloads.
fn together(a: &JobSpec, b: &JobSpec, between: &[JobSpec]) -> bool {
    let serialized = between.iter().any(|j| j.stonewall) || b.wait_for.is_some();
    // A new group (`new_group`: fio still runs them together, but reports
    // them apart on purpose), `group_reporting` or a start delay says that
    // running together is meant.
    let meant = a.group_id != b.group_id
        || a.group_reporting
        || b.group_reporting
        || b.startdelay_us.1 > 0
        || a.startdelay_us.1 > 0;
    !serialized && !meant && a.pattern.name() != b.pattern.name()
}

fn check(cx: &Ctx) -> Option<Hit> {
    if !cx.file_job {
        return None;
    }
    let (jobs, i) = (&cx.plan.jobs, cx.index);
    let mine = targets(cx.job);
    let shares = |j: &JobSpec| -> Option<PathBuf> {
        let theirs = targets(j);
        mine.iter().find(|t| theirs.contains(t)).cloned()
    };
    let io = |j: &JobSpec| {
        crate::plan::engine::caps(j).is_some_and(|c| c.needs_files && !c.fake_io && !c.no_io)
    };
    // An earlier section that runs with this one on a target of both.
    let target = (0..i)
        .filter(|&k| jobs[k].subjob == 0 && io(&jobs[k]))
        .filter(|&k| together(&jobs[k], cx.job, &jobs[k + 1..=i]))
        .find_map(|k| shares(&jobs[k]))?;
    // Every section that runs with it there, for the message.
    let all: Vec<&JobSpec> = (0..jobs.len())
        .filter(|&k| jobs[k].subjob == 0 && io(&jobs[k]))
        .filter(|&k| {
            k == i
                || match k < i {
                    true => together(&jobs[k], cx.job, &jobs[k + 1..=i]),
                    false => together(cx.job, &jobs[k], &jobs[i + 1..=k]),
                }
        })
        .map(|k| &jobs[k])
        .filter(|j| targets(j).contains(&target))
        .collect();
    let names: Vec<String> = all
        .iter()
        .map(|j| format!("'{}' ({})", j.name, j.pattern.name()))
        .collect();
    Some(Hit {
        span: cx.job.span.clone(),
        message: format!(
            "sections {} run at the same time on {} (no stonewall, wait_for or \
             new_group between them, no group_reporting): each measures its share of \
             a target the others load, not the workload it names",
            names.join(", "),
            target.display()
        ),
        fix: "add stonewall to each section after the first (or group_reporting if \
              one mixed workload is meant)",
        target: Some(target),
        jobs: all.iter().map(|j| j.name.clone()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{findings, Fake};

    fn sections(extra: &[&str]) -> Vec<(&'static str, Vec<String>)> {
        let mut argv = vec![];
        for (i, rw) in ["randread", "randwrite", "read", "write"]
            .iter()
            .enumerate()
        {
            let (name, rw) = (format!("--name={rw}"), format!("--rw={rw}"));
            argv.push(name);
            argv.push(rw);
            argv.push("--filename=/x/f".into());
            argv.push("--ioengine=libaio".into());
            argv.push("--direct=1".into());
            argv.push("--iodepth=8".into());
            argv.push("--size=64g".into());
            argv.push("--refill_buffers=1".into());
            if i > 0 {
                argv.extend(extra.iter().map(|s| s.to_string()));
            }
        }
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        findings(&Fake::default(), &argv)
            .into_iter()
            .filter(|(r, _)| *r == "concurrent-workloads")
            .collect()
    }

    #[test]
    fn four_workloads_on_one_file_are_one_finding() {
        let all = ["randread", "randwrite", "read", "write"].map(String::from);
        // Said once, naming the four.
        assert_eq!(sections(&[]), [("concurrent-workloads", all.to_vec())]);
        assert_eq!(sections(&["--stonewall"]), []);
        assert_eq!(sections(&["--new_group"]), []);
        assert_eq!(sections(&["--group_reporting"]), []);
    }
}
