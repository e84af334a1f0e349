//! `root-fs-target`: the target shares the device of `/` (unless it is on
//! tmpfs: then [`super::tmpfs_target`] says what misleads).

use super::{at, tmpfs_target, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "root-fs-target",
    summary: "the target is on the file system holding /",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    if tmpfs_target::on_tmpfs(cx).is_some() {
        return None;
    }
    let (path, _) = cx
        .fs
        .iter()
        .find(|(p, i)| i.is_root && !cx.host.is_block_device(p))?;
    Some(Hit {
        target: Some(super::same_target(path)),
        jobs: Vec::new(),
        span: at(cx.job, &["filename", "directory"]),
        message: format!(
            "{} is on the file system that holds /: the system's own I/O shares the \
             device and disturbs the results (and filling it harms the system)",
            path.display()
        ),
        fix: "point filename/directory at a dedicated file system or device",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{with_host, Fake};

    #[test]
    fn a_target_on_the_root_file_system() {
        let mut host = Fake::default();
        host.fs.is_root = true;
        assert_eq!(with_host(&host, &[]), ["root-fs-target"]);
    }
}
