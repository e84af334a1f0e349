//! `tmpfs-target`: the I/O goes to RAM. (A block device's node lives on
//! devtmpfs, its I/O goes to the device.)

use std::path::Path;

use super::{at, Ctx, Hit, Rule, TMPFS_MAGIC};

pub(super) const RULE: Rule = Rule {
    name: "tmpfs-target",
    summary: "the target is on tmpfs",
    check,
};

/// The first target on tmpfs (block devices aside).
pub(super) fn on_tmpfs<'a>(cx: &Ctx<'a>) -> Option<&'a Path> {
    cx.fs
        .iter()
        .find(|(p, i)| i.fs_type == TMPFS_MAGIC && !cx.host.is_block_device(p))
        .map(|(p, _)| *p)
}

fn check(cx: &Ctx) -> Option<Hit> {
    let path = on_tmpfs(cx)?;
    Some(Hit {
        target: Some(super::same_target(path)),
        jobs: Vec::new(),
        span: at(cx.job, &["filename", "directory"]),
        message: format!(
            "{} is on tmpfs: the I/O goes to RAM, no device is measured",
            path.display()
        ),
        fix: "point filename/directory at the file system of the device to test",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{with_host, Fake};
    use super::TMPFS_MAGIC;

    #[test]
    fn tmpfs_and_root_targets() {
        let mut host = Fake::default();
        host.fs.fs_type = TMPFS_MAGIC;
        assert_eq!(with_host(&host, &[]), ["tmpfs-target"]);
        // On a tmpfs that is `/`, the tmpfs is what misleads.
        host.fs.is_root = true;
        assert_eq!(with_host(&host, &[]), ["tmpfs-target"]);
    }
}
