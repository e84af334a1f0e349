//! `buffered-io`: buffered I/O on less data than twice the RAM measures the
//! page cache.

use super::{at, existing_len, human, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "buffered-io",
    summary: "direct=0 on files smaller than twice RAM",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    if !cx.file_job || job.direct {
        return None;
    }
    // Without a size, the job works on the existing files whole.
    let size = cx.size.or_else(|| existing_len(job).filter(|&n| n > 0))?;
    let mem = cx.host.mem_total()?;
    (size < mem.saturating_mul(2)).then(|| Hit {
        target: None,
        jobs: Vec::new(),
        span: at(job, &["direct", "buffered"]),
        message: format!(
            "direct=0 on {} of data, less than twice RAM ({}): the page cache \
             serves the I/O and the results measure memory, not the device",
            human(size),
            human(mem)
        ),
        fix: "set direct=1, or a size of at least twice RAM",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn buffered_small_files_measure_the_page_cache() {
        assert_eq!(
            with(&["--ioengine=psync", "--iodepth=1", "--direct=0", "--size=1g"]),
            ["buffered-io"]
        );
        // Twice RAM or more: the device is reached.
        assert_eq!(
            with(&[
                "--ioengine=psync",
                "--iodepth=1",
                "--direct=0",
                "--size=32g"
            ]),
            Vec::<&str>::new()
        );
    }
}
