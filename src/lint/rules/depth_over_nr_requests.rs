//! `depth-over-nr-requests`: more I/O in flight than the device's queue
//! takes; the excess waits in the block layer.

use super::{at, num, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "depth-over-nr-requests",
    summary: "numjobs x iodepth above the device's nr_requests",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    let numjobs = job
        .options
        .value("numjobs")
        .and_then(num)
        .unwrap_or(1)
        .max(1);
    let depth = if cx.is_sync {
        1
    } else {
        u64::from(job.iodepth)
    };
    let nr = cx.fs.iter().find_map(|(_, i)| i.nr_requests)?;
    (numjobs * depth > nr).then(|| Hit {
        target: None,
        jobs: Vec::new(),
        span: at(job, &["iodepth", "numjobs"]),
        message: format!(
            "numjobs x iodepth = {} is above the device's nr_requests ({nr}): the \
             excess waits in the block layer and adds latency the device never sees",
            numjobs * depth
        ),
        fix: "lower numjobs or iodepth, or raise the queue's nr_requests",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn depth_against_nr_requests() {
        assert_eq!(
            with(&["--iodepth=32", "--numjobs=4"]),
            ["depth-over-nr-requests"]
        );
        assert_eq!(with(&["--iodepth=16", "--numjobs=4"]), Vec::<&str>::new());
    }
}
