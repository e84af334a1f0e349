//! What the I/O loop does besides issuing the pattern: `latency_run`,
//! `max_latency`, `serialize_overlap` (read only by `workload::exec`,
//! fio's `backend.c` `do_io` and `io_u.c`).

use super::read::Opts;
use crate::options::Value;

/// The loop's own options (`JobSpec::exec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ExecOptions {
    /// `latency_run`: keep searching for the queue depth of
    /// `latency_target` after it is found.
    pub(crate) latency_run: bool,
    /// `max_latency` per direction, in ns (0: none): an I/O slower than
    /// this ends the job with `ETIMEDOUT`.
    pub(crate) max_latency_ns: [u64; 3],
    /// `serialize_overlap`: an I/O waits for the in-flight I/Os it
    /// overlaps (the loop applies it only with more than one in flight).
    pub(crate) serialize_overlap: bool,
}

pub(super) fn resolve(o: Opts<'_>) -> ExecOptions {
    ExecOptions {
        latency_run: o.is("latency_run"),
        max_latency_ns: match o.value("max_latency") {
            Some(Value::PerDir(d)) => std::array::from_fn(|i| match d.get(i) {
                Some(Some(Value::Micros(us))) => us.saturating_mul(1000),
                _ => 0,
            }),
            _ => [0; 3],
        },
        serialize_overlap: o.is("serialize_overlap"),
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::testing::job;

    #[test]
    fn loop_options() {
        assert_eq!(
            job(&["--name=x", "--size=1m"]).exec,
            super::ExecOptions::default()
        );
        let e = job(&[
            "--name=x",
            "--size=1m",
            "--latency_run=1",
            "--max_latency=2ms,,3s",
            "--serialize_overlap=1",
        ])
        .exec;
        assert!(e.latency_run && e.serialize_overlap);
        assert_eq!(e.max_latency_ns, [2_000_000, 0, 3_000_000_000]);
    }
}
