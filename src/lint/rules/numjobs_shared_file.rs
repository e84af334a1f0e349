//! `numjobs-shared-file`: `numjobs` > 1 writing one file named by
//! `filename=` with no `offset_increment`: every clone writes the same
//! offsets of the same file, each over the others' blocks (and the file
//! holds a fraction of the data the report counts).

use super::{at, clones, num, same_target, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "numjobs-shared-file",
    summary: "numjobs > 1 write one shared file over the same offsets",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    if !job.pattern.writes() || !cx.file_job || job.options.get("filename").is_none() {
        return None;
    }
    let spread = job
        .options
        .value("offset_increment")
        .and_then(num)
        .is_some_and(|v| v > 0);
    if spread {
        return None;
    }
    // A clone on a file of the original's: `filename=` named it alike for
    // all (no `$jobnum` in it).
    let mine: Vec<_> = job.files.iter().map(|f| same_target(&f.path)).collect();
    let mut shared = clones(cx.plan, cx.index).filter_map(|c| {
        c.files
            .iter()
            .map(|f| same_target(&f.path))
            .find(|p| mine.contains(p))
    });
    let path = shared.next()?;
    let n = 1 + clones(cx.plan, cx.index).count();
    Some(Hit {
        span: at(job, &["numjobs"]),
        message: format!(
            "numjobs={n} write {} at the same offsets ({} from the same start, no \
             offset_increment): each job overwrites the others' blocks, and the device \
             sees rewrites of one region, not {n} jobs' data",
            path.display(),
            job.pattern.name()
        ),
        fix: "set offset_increment (e.g. to the size) so that each job writes its own \
              region, or drop filename= so that fio gives each job its own file \
              (fio does not expand $jobnum in filename=, only in filename_format)",
        target: Some(path),
        jobs: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{findings, with, Fake};

    #[test]
    fn clones_writing_one_file() {
        let w = ["--rw=randwrite", "--refill_buffers=1", "--numjobs=4"];
        assert_eq!(with(&w), ["numjobs-shared-file"]);
        let mut spread = w.to_vec();
        spread.push("--offset_increment=16g");
        assert_eq!(with(&spread), Vec::<&str>::new());
        // Reads of one file, a file per job: nothing overwritten.
        assert_eq!(with(&["--numjobs=4"]), Vec::<&str>::new());
        let own = [
            "--name=j",
            "--ioengine=libaio",
            "--direct=1",
            "--numjobs=4",
            "--rw=write",
            "--size=1m",
        ];
        assert_eq!(findings(&Fake::default(), &own), []);
    }
}
