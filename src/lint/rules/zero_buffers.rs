//! `zero-buffers`: writes of zeroes, or of the same buffer again, that a
//! compressing or deduplicating device does not store.

use super::{at, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "zero-buffers",
    summary: "writes of zeroes or of unvaried buffers",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    if !job.pattern.write || cx.fake_io {
        return None;
    }
    let b = &job.buffers;
    if b.zero {
        Some(Hit {
            target: None,
            jobs: Vec::new(),
            span: at(job, &["zero_buffers"]),
            message: "zero_buffers=1 writes zeroes: a compressing or deduplicating device \
                      stores nothing and reports speeds no real data gets"
                .into(),
            fix: "remove zero_buffers (or set refill_buffers=1)",
        })
    } else if !b.scramble && !b.refill && b.compress_perc == 0 && b.dedupe_perc == 0 {
        Some(Hit {
            target: None,
            jobs: Vec::new(),
            span: at(job, &["scramble_buffers", "buffer_pattern"]),
            message: "writes reuse the same buffer contents (scramble_buffers=0, no \
                      refill_buffers): a deduplicating device stores one copy"
                .into(),
            fix: "set refill_buffers=1, or keep scramble_buffers=1",
        })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn zeroes_and_unvaried_buffers() {
        assert_eq!(
            with(&["--rw=randrw", "--rwmixread=70", "--zero_buffers=1"]),
            ["zero-buffers"]
        );
        assert_eq!(
            with(&["--rw=write", "--scramble_buffers=0"]),
            ["zero-buffers"]
        );
        assert_eq!(
            with(&["--rw=write", "--scramble_buffers=0", "--refill_buffers=1"]),
            Vec::<&str>::new()
        );
        // Reads write no buffer.
        assert_eq!(with(&["--zero_buffers=1"]), Vec::<&str>::new());
    }
}
