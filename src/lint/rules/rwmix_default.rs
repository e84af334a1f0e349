//! `rwmix-default`: a mixed workload left at the default 50/50 mix.

use super::{at, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "rwmix-default",
    summary: "a mixed workload with rwmixread left at 50",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    let mixed = job.pattern.read && job.pattern.write;
    let unset = job.options.get("rwmixread").is_none() && job.options.get("rwmixwrite").is_none();
    (mixed && unset).then(|| Hit {
        target: None,
        jobs: Vec::new(),
        span: at(job, &["rw", "readwrite"]),
        message: format!(
            "rw={} with rwmixread left at its default of 50: a 50/50 mix is rarely \
             the workload meant, and the default hides the choice",
            job.pattern.name()
        ),
        fix: "set rwmixread (e.g. rwmixread=70) to the mix you mean",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn mixes_left_at_fifty_fifty() {
        assert_eq!(with(&["--rw=randrw"]), ["rwmix-default"]);
        assert_eq!(
            with(&["--rw=randrw", "--rwmixwrite=30"]),
            Vec::<&str>::new()
        );
    }
}
