//! `time-based-no-runtime`: `time_based` without `runtime`. fio (3.33 and
//! 3.42 alike) prints `fio: time_based requires a runtime/timeout
//! setting`, drops `time_based`, and runs the job once through its size:
//! not the timed run meant, and the warning scrolls by with the output.

use super::{at, human, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "time-based-no-runtime",
    summary: "time_based without runtime: fio drops time_based",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    if !job.time_based_dropped {
        return None;
    }
    let through = match cx.size {
        Some(s) => format!("once through its size ({})", human(s)),
        None => "once through its files".to_string(),
    };
    Some(Hit {
        span: at(job, &["time_based"]),
        message: format!(
            "time_based with no runtime: fio warns `time_based requires a \
             runtime/timeout setting`, turns time_based off and runs the job {through}, \
             for however long that takes"
        ),
        fix: "set runtime (e.g. runtime=60), or remove time_based",
        target: None,
        jobs: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn time_based_needs_a_runtime() {
        assert_eq!(with(&["--time_based"]), ["time-based-no-runtime"]);
        assert_eq!(
            with(&["--time_based", "--runtime=10", "--ramp_time=1"]),
            Vec::<&str>::new()
        );
    }
}
