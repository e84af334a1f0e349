//! `read-unwritten`: reads of an existing file whose blocks were never
//! written: unwritten extents (`fallocate`) or holes (`truncate`, a sparse
//! copy). fio lays out a file it creates, or one too short for the job,
//! but reads an existing file as it is; the file system answers those
//! reads with zeroes without reading the device (fio 3.33, 4 KiB random
//! reads at depth 8, ext4 on virtio: 101k IOPS from a fallocated file,
//! 22.3k from a written one).

use super::{human, same_target, Ctx, Hit, Rule};
use std::path::Path;

pub(super) const RULE: Rule = Rule {
    name: "read-unwritten",
    summary: "reads of a file with unwritten (fallocated) or sparse extents",
    check,
};

/// At least this share (in percent) of what the job reads has no data.
const MIN_PERCENT: u64 = 1;

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    if !job.pattern.read || !cx.file_job || cx.blockdev {
        return None;
    }
    // A file an earlier job writes is written by the time this one reads.
    let written_before: Vec<_> = cx.plan.jobs[..cx.index]
        .iter()
        .filter(|j| j.pattern.write)
        .flat_map(|j| j.files.iter().map(|f| same_target(&f.path)))
        .collect();
    let (f, start, len, u) = job
        .files
        .iter()
        .filter(|f| !written_before.contains(&same_target(&f.path)))
        .find_map(|f| {
            let (start, len) = read_range(job.offset, &f.path, f.size)?;
            let u = cx.host.unwritten(&f.path, start, len)?;
            let empty = u.holes + u.unwritten;
            (empty > 0 && empty * 100 >= len * MIN_PERCENT).then_some((f, start, len, u))
        })?;
    let mut parts = Vec::new();
    if u.unwritten > 0 {
        parts.push(format!("{} unwritten (fallocated)", human(u.unwritten)));
    }
    if u.holes > 0 {
        parts.push(format!("{} in holes (sparse)", human(u.holes)));
    }
    Some(Hit {
        span: super::at(job, &["filename", "directory"]),
        message: format!(
            "{} exists with {} of the {} the job reads (from offset {start}): fio reads \
             an existing file as it is, and the file system returns zeroes for those \
             blocks without reading the device: the reads measure nothing",
            f.path.display(),
            parts.join(" and "),
            human(len)
        ),
        fix: "write the file first (a write job before this one, with stonewall, or \
              dd from /dev/urandom), or delete it so that fio lays it out",
        target: Some(same_target(&f.path)),
        jobs: Vec::new(),
    })
}

/// The bytes of `f` the job reads, when the file exists, is a regular
/// file and is long enough that fio does not lay it out again.
fn read_range(offset: u64, path: &Path, size: Option<u64>) -> Option<(u64, u64)> {
    let m = std::fs::metadata(path).ok()?;
    if !m.is_file() {
        return None;
    }
    let len = match size {
        Some(s) if offset.saturating_add(s) <= m.len() => s,
        // Shorter than the job's size: fio extends (writes) it.
        Some(_) => return None,
        None => m.len().checked_sub(offset)?,
    };
    (len > 0).then_some((offset, len))
}

#[cfg(test)]
mod tests {
    use super::super::super::Unwritten;
    use super::super::testing::{findings, with_host, Fake, CLEAN};

    #[test]
    fn reads_of_unwritten_extents_and_holes() {
        // The rule looks only at files that exist and are long enough.
        let dir = std::env::temp_dir().join(format!("rfio-lint-ru-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        std::fs::File::create(&file)
            .unwrap()
            .set_len(1 << 20)
            .unwrap();
        let name = format!("--filename={}", file.display());
        let mut host = Fake {
            unwritten: Some(Unwritten {
                holes: 0,
                unwritten: 1 << 20,
            }),
            ..Fake::default()
        };
        let run = |host: &Fake, extra: &[&str]| {
            let mut a = vec!["--name=j", &name];
            a.extend(CLEAN.iter().filter(|o| !o.starts_with("--size")));
            a.extend_from_slice(extra);
            let found = findings(host, &a);
            found.into_iter().map(|(r, _)| r).collect::<Vec<_>>()
        };
        assert_eq!(run(&host, &[]), ["read-unwritten"]);
        assert_eq!(run(&host, &["--size=1m"]), ["read-unwritten"]);
        // Longer than the file: fio lays it out first.
        assert_eq!(run(&host, &["--size=2m"]), Vec::<&str>::new());
        // Writes read nothing.
        assert_eq!(
            run(&host, &["--rw=randwrite", "--refill_buffers=1"]),
            Vec::<&str>::new()
        );
        host.unwritten = Some(Unwritten::default());
        assert_eq!(run(&host, &[]), Vec::<&str>::new());
        // A file that does not exist is laid out by fio.
        assert_eq!(with_host(&host, &[]), Vec::<&str>::new());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
