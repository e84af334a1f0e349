//! `no-ramp-random-write`: timed random writes counted from the device's
//! fresh state. Not for an engine that fakes its I/O or does none (null,
//! ...): no device, no fresh state.

use super::{at, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "no-ramp-random-write",
    summary: "time_based random writes without ramp_time",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    let timed = job.time_based && !job.time_based_dropped;
    (timed && !cx.fake_io && job.pattern.random && job.pattern.write && job.ramp_time_us == 0).then(
        || Hit {
            target: None,
            jobs: Vec::new(),
            span: at(job, &["time_based"]),
            message: "time_based random writes without ramp_time: the first seconds run at the \
                  device's fresh (cache, empty-FTL) speed and inflate the average"
                .into(),
            fix: "set ramp_time (e.g. ramp_time=30s), or precondition the device",
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn timed_random_writes_want_a_ramp() {
        let timed = ["--rw=randwrite", "--time_based", "--runtime=10"];
        assert_eq!(with(&timed), ["no-ramp-random-write"]);
        assert_eq!(
            with(&[&timed[..], &["--ramp_time=2"]].concat()),
            Vec::<&str>::new()
        );
        // The null engine writes to no device.
        assert_eq!(
            with(&[&timed[..], &["--ioengine=null"]].concat()),
            Vec::<&str>::new()
        );
    }
}
