//! `sync-engine-depth`: a synchronous engine's depth is 1 whatever
//! `iodepth` says.

use super::{at, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "sync-engine-depth",
    summary: "iodepth > 1 with a synchronous engine",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    (cx.is_sync && job.iodepth > 1).then(|| Hit {
        target: None,
        jobs: Vec::new(),
        span: at(job, &["iodepth"]),
        message: format!(
            "iodepth={} with the synchronous engine {}: each I/O completes before \
             the next is issued, so the depth is 1 whatever it says",
            job.iodepth, job.ioengine
        ),
        fix: "use an asynchronous engine (libaio, io_uring) with direct=1, or iodepth=1",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn sync_engines_ignore_the_depth() {
        assert_eq!(with(&["--ioengine=psync"]), ["sync-engine-depth"]);
        assert_eq!(
            with(&["--ioengine=psync", "--iodepth=1"]),
            Vec::<&str>::new()
        );
    }
}
