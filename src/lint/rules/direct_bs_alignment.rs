//! `direct-bs-alignment`: direct I/O in blocks the device refuses.

use super::{at, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "direct-bs-alignment",
    summary: "direct=1 with bs not a multiple of the logical block size",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    if !job.direct || !cx.file_job {
        return None;
    }
    let lbs = cx
        .fs
        .iter()
        .find_map(|(_, i)| i.logical_block)
        .unwrap_or(512);
    let dirs = [job.pattern.read, job.pattern.write, job.pattern.trim];
    let bs = job
        .bs
        .iter()
        .zip(dirs)
        .filter(|(_, on)| *on)
        .flat_map(|((lo, hi), _)| [*lo, *hi])
        .find(|b| lbs > 0 && b % lbs != 0)?;
    Some(Hit {
        target: None,
        jobs: Vec::new(),
        span: at(job, &["bs", "blocksize", "bsrange", "bssplit"]),
        message: format!(
            "direct=1 with a block size of {bs} bytes, not a multiple of the \
             device's logical block size ({lbs}): the I/O fails with EINVAL"
        ),
        fix: "use a bs that is a multiple of the logical block size",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{with, with_host, Fake};

    #[test]
    fn direct_block_sizes_follow_the_logical_block() {
        assert_eq!(with(&["--bs=512"]), ["direct-bs-alignment"]);
        let mut host = Fake::default();
        host.fs.logical_block = None;
        assert_eq!(with_host(&host, &["--bs=512"]), Vec::<&str>::new());
    }
}
