//! `io_submit_mode`: whether the job thread submits its I/O itself
//! (`inline`, the default) or hands each I/O to a pool of submit workers
//! (`offload`, fio 3.33's `rate-submit.c`).

use super::read::Opts;

/// How a job submits its I/O (`JobSpec::submit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct SubmitOptions {
    /// `io_submit_mode=offload`.
    pub(crate) offload: bool,
    /// The engine cannot be offloaded (fio's `FIO_NO_OFFLOAD`: io_uring
    /// and io_uring_cmd): fio refuses such a job while it adds it, before
    /// any job runs.
    pub(crate) engine_refuses: bool,
}

pub(super) fn resolve(o: Opts<'_>) -> SubmitOptions {
    let offload = o.choice("io_submit_mode") == Some("offload");
    SubmitOptions {
        offload,
        engine_refuses: offload
            && o.text("ioengine")
                .and_then(crate::ioengine::flags)
                .is_some_and(|f| f.no_offload),
    }
}

#[cfg(test)]
mod tests {
    use super::SubmitOptions;
    use crate::plan::testing::job;

    fn submit(args: &[&str]) -> SubmitOptions {
        let mut a = vec!["--name=s", "--size=1m"];
        a.extend_from_slice(args);
        job(&a).submit
    }

    #[test]
    fn offload_and_the_engines_that_refuse_it() {
        assert_eq!(submit(&[]), SubmitOptions::default());
        assert_eq!(
            submit(&["--io_submit_mode=inline"]),
            SubmitOptions::default()
        );
        let s = submit(&["--io_submit_mode=offload"]);
        assert!(s.offload && !s.engine_refuses);
        let s = submit(&["--io_submit_mode=offload", "--ioengine=libaio"]);
        assert!(s.offload && !s.engine_refuses);
        let s = submit(&["--io_submit_mode=offload", "--ioengine=io_uring"]);
        assert!(s.offload && s.engine_refuses);
        assert!(!submit(&["--ioengine=io_uring"]).engine_refuses);
    }
}
