//! `steadystate-size-bound`: steady-state detection on a job bound by its
//! size. The HOWTO (under `steadystate`): "most jobs should include the
//! time_based and runtime options or the loops option so that fio does not
//! stop running after it has covered the full size": the job may end
//! before the detection window has filled, and steady state is never
//! judged.

use super::{at, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "steadystate-size-bound",
    summary: "steadystate on a job that ends with its size (no time_based, no loops)",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    let ss = job.steadystate.as_ref()?;
    if job.time_based || job.loops > 1 {
        return None;
    }
    Some(Hit {
        span: at(job, &["steadystate", "steadystate_duration"]),
        message: format!(
            "steady-state detection over {} s on a job that stops once it has covered \
             its size (no time_based, no loops): it may end before the window has \
             filled, and then steady state is never judged",
            ss.dur_s
        ),
        fix: "add time_based and a runtime longer than ss_dur (or loops)",
        target: None,
        jobs: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn steady_state_needs_time() {
        let ss = ["--ss=iops:2%", "--ss_dur=30"];
        assert_eq!(with(&ss), ["steadystate-size-bound"]);
        let mut timed = ss.to_vec();
        timed.extend(["--time_based", "--runtime=60", "--ramp_time=5"]);
        assert_eq!(with(&timed), Vec::<&str>::new());
        let mut looped = ss.to_vec();
        looped.push("--loops=10");
        assert_eq!(with(&looped), Vec::<&str>::new());
    }
}
