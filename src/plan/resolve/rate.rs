//! Rate limits: `rate`, `rate_iops`, `rate_min`, `rate_iops_min` per
//! direction, `rate_cycle`, `rate_process`, `rate_ignore_thinktime`.

use super::bs::BlockOptions;
use super::read::Opts;
use crate::release::{Change, Release};

/// A job's rate options (`JobSpec::rate`); all zero when none is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RateOptions {
    /// `rate=` bytes/s per direction (0: none).
    pub(crate) bytes: [u64; 3],
    /// `rate_iops=` per direction (0: none).
    pub(crate) iops: [u64; 3],
    /// `rate_min=` bytes/s per direction.
    pub(crate) min_bytes: [u64; 3],
    /// `rate_iops_min=` per direction.
    pub(crate) min_iops: [u64; 3],
    /// `rate_cycle` in ms (default 1000).
    pub(crate) cycle_ms: u64,
    /// `rate_process=poisson`.
    pub(crate) poisson: bool,
    /// `rate_ignore_thinktime`.
    pub(crate) ignore_think: bool,
    /// Per direction: `rate_iops` (no `rate`) with a `bssplit`, so the
    /// linear process spaces the I/Os `1 / rate_iops` s apart whatever
    /// their sizes (fio 3.42, `Change::RateIopsBssplit`); otherwise the
    /// I/O count becomes bytes/s of the smallest block, as fio 3.33 has it.
    pub(crate) iops_paced: [bool; 3],
}

impl RateOptions {
    /// Whether any rate option limits or checks the job.
    pub(crate) fn any(&self) -> bool {
        let any = |a: &[u64; 3]| a.iter().any(|&v| v > 0);
        any(&self.bytes) || any(&self.iops) || any(&self.min_bytes) || any(&self.min_iops)
    }

    /// The directions (0 read, 1 write, 2 trim) whose minimum rate is above
    /// the rate: `rate_min` above a `rate`, or `rate_iops_min` above a
    /// `rate_iops`, of the same direction. fio 3.33 refuses such a job
    /// when the run starts, before any job runs (`--parse-only` still
    /// exits 0): see `workload::refusal_when_added`.
    pub(crate) fn min_above_rate(&self) -> Vec<usize> {
        (0..3)
            .filter(|&d| {
                (self.bytes[d] > 0 && self.bytes[d] < self.min_bytes[d])
                    || (self.iops[d] > 0 && self.iops[d] < self.min_iops[d])
            })
            .collect()
    }
}

pub(super) fn resolve(o: Opts<'_>, release: Release, block: &BlockOptions) -> RateOptions {
    let bytes = o.per_dir("rate");
    let paced = release.has(Change::RateIopsBssplit);
    RateOptions {
        iops_paced: std::array::from_fn(|d| paced && bytes[d] == 0 && !block.split[d].is_empty()),
        bytes,
        iops: o.per_dir("rate_iops"),
        min_bytes: o.per_dir("rate_min"),
        min_iops: o.per_dir("rate_iops_min"),
        cycle_ms: o.int_or_default("rate_cycle").max(0) as u64,
        poisson: o.choice("rate_process") == Some("poisson"),
        ignore_think: o.is("rate_ignore_thinktime"),
    }
}

#[cfg(test)]
mod tests {
    fn min_above_rate(args: &[&str]) -> Vec<usize> {
        let mut a = vec!["--name=r", "--ioengine=null", "--size=64k"];
        a.extend_from_slice(args);
        crate::plan::testing::job(&a).rate.min_above_rate()
    }

    /// As fio 3.33 decides (measured: `fio --minimal` exit 1 and one
    /// `minimum rate exceeds rate, ddir N` line per direction, or exit 0).
    #[test]
    fn minimum_rates_above_the_rate() {
        for (args, dirs) in [
            (&["--rate=1m", "--rate_min=2m"][..], vec![0, 1, 2]),
            (&["--rate=1m,", "--rate_min=2m"], vec![0]),
            (&["--rate=1m,2m", "--rate_min=2m,1m"], vec![0]),
            (&["--rate_iops=100", "--rate_iops_min=200"], vec![0, 1, 2]),
            (&["--rate_min=2m"], vec![]),
            (&["--rate=1m", "--rate_min=1m"], vec![]),
            (&["--rate=1m", "--rate_iops_min=200000"], vec![]),
            (&["--rate_iops=10", "--rate_min=1m"], vec![]),
        ] {
            assert_eq!(min_above_rate(args), dirs, "{args:?}");
        }
    }

    fn iops_paced(release: &str, args: &[&str]) -> [bool; 3] {
        let mut a = vec!["--name=r", "--ioengine=null", "--size=64k"];
        a.extend_from_slice(args);
        crate::plan::testing::job_as(release, &a).rate.iops_paced
    }

    /// fio 3.42's `usec_for_io` counts I/Os where the direction has a
    /// `bssplit` and no `rate`; fio 3.33 never does.
    #[test]
    fn rate_iops_with_bssplit_paces_ios_from_3_42() {
        let split = "--bssplit=4k/50:64k/50";
        for (release, args, paced) in [
            ("3.42", &["--rate_iops=200", split][..], [true; 3]),
            ("3.33", &["--rate_iops=200", split], [false; 3]),
            ("3.42", &["--rate_iops=200"], [false; 3]),
            ("3.42", &["--rate_iops=200", "--bs=4k-64k"], [false; 3]),
            ("3.42", &["--rate=1m", split], [false; 3]),
            (
                "3.42",
                &["--rate_iops=200", "--bssplit=4k/50:64k/50,"],
                [true, false, false],
            ),
        ] {
            assert_eq!(iops_paced(release, args), paced, "{release} {args:?}");
        }
    }
}
