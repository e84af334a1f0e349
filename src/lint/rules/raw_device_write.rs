//! `raw-device-write`: writes destroy what is on a block device.

use super::{at, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "raw-device-write",
    summary: "writes to a block device",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    if !job.pattern.writes() {
        return None;
    }
    let f = job
        .files
        .iter()
        .find(|f| cx.host.is_block_device(&f.path))?;
    Some(Hit {
        target: Some(super::same_target(&f.path)),
        jobs: Vec::new(),
        span: at(job, &["filename", "rw"]),
        message: format!(
            "rw={} writes to the block device {}: whatever is on it (a file \
             system, a partition table) is destroyed",
            job.pattern.name(),
            f.path.display()
        ),
        fix: "make sure the device holds nothing you need, then add `# rfio: allow \
              raw-device-write`",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{with_host, Fake};
    use super::super::TMPFS_MAGIC;

    #[test]
    fn writes_to_a_block_device() {
        let host = Fake {
            block: true,
            ..Fake::default()
        };
        assert_eq!(with_host(&host, &["--rw=randwrite"]), ["raw-device-write"]);
        assert_eq!(with_host(&host, &[]), Vec::<&str>::new());
        // The device node is on devtmpfs (tmpfs's magic): the I/O is not.
        let mut host = host;
        host.fs.fs_type = TMPFS_MAGIC;
        assert_eq!(with_host(&host, &[]), Vec::<&str>::new());
    }
}
