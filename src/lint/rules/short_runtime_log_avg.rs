//! `short-runtime-log-avg`: a runtime too short for one averaged log
//! sample.

use super::{at, num, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "short-runtime-log-avg",
    summary: "runtime shorter than 2x log_avg_msec",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    let log_avg_ms = job.options.value("log_avg_msec").and_then(num).unwrap_or(0);
    let short = job.runtime_us > 0 && job.runtime_us < 2 * log_avg_ms * 1000;
    (log_avg_ms > 0 && short).then(|| Hit {
        target: None,
        jobs: Vec::new(),
        span: at(job, &["runtime"]),
        message: format!(
            "runtime ({} ms) is shorter than twice log_avg_msec ({log_avg_ms} ms): the \
             logs hold one or no averaged sample",
            job.runtime_us / 1000
        ),
        fix: "raise runtime, or lower log_avg_msec",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn runtime_against_log_avg() {
        let args = [
            "--time_based",
            "--runtime=1",
            "--write_bw_log=x",
            "--log_avg_msec=1000",
        ];
        assert_eq!(with(&args), ["short-runtime-log-avg"]);
        assert_eq!(
            with(&[&args[..3], &["--log_avg_msec=500"]].concat()),
            Vec::<&str>::new()
        );
    }
}
