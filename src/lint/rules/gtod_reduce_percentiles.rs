//! `gtod-reduce-percentiles`: percentiles asked for while `gtod_reduce`
//! turns latency measurement off.

use super::{at, truthy, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "gtod-reduce-percentiles",
    summary: "gtod_reduce=1 with percentiles asked",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    if !truthy(job, "gtod_reduce") {
        return None;
    }
    let name = ["clat_percentiles", "lat_percentiles", "percentile_list"]
        .into_iter()
        .find(|n| job.options.get(n).is_some() && (truthy(job, n) || *n == "percentile_list"))?;
    Some(Hit {
        target: None,
        jobs: Vec::new(),
        span: at(job, &["gtod_reduce"]),
        message: format!(
            "gtod_reduce=1 turns latency measurement off, but {name} asks for \
             latency percentiles: they come out empty or from a partial measurement"
        ),
        fix: "remove gtod_reduce, or the percentile options",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn gtod_reduce_and_percentiles() {
        assert_eq!(
            with(&["--gtod_reduce=1", "--clat_percentiles=1"]),
            ["gtod-reduce-percentiles"]
        );
        assert_eq!(with(&["--gtod_reduce=1"]), Vec::<&str>::new());
    }
}
