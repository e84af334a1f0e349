//! `no-room`: the file system lacks the job's size plus 10% (block
//! devices aside).

use super::{at, existing_len, human, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "no-room",
    summary: "the file system lacks room for the job's size + 10%",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let (size, (path, info)) = (cx.size?, cx.fs.first()?);
    if cx.blockdev {
        return None;
    }
    let existing = existing_len(cx.job).unwrap_or(0);
    let need = size.saturating_add(size / 10);
    (info.avail.saturating_add(existing) < need).then(|| Hit {
        target: Some(super::same_target(path)),
        jobs: Vec::new(),
        span: at(cx.job, &["size", "filesize"]),
        message: format!(
            "the job needs {} (+10% headroom) on the file system of {}, which \
             has {} free: the layout or the writes fail with ENOSPC part way",
            human(size),
            path.display(),
            human(info.avail)
        ),
        fix: "free space, lower size, or use another file system",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{with_host, Fake};

    #[test]
    fn no_room_counts_ten_percent_headroom() {
        let mut host = Fake::default();
        host.fs.avail = 70 << 30;
        assert_eq!(with_host(&host, &[]), ["no-room"]);
        host.fs.avail = 71 << 30;
        assert_eq!(with_host(&host, &[]), Vec::<&str>::new());
    }
}
