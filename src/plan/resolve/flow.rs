//! Flows: `flow_id`, `flow`, `flow_sleep` (fio 3.33's `flow.c`). Jobs
//! with a `flow` weight and the same `flow_id` share a counter of the I/Os
//! they issue; each is held back while its share of that counter is above
//! its share of the flow's weights. `flow_watermark` is soft-deprecated in
//! fio 3.33 (read and ignored, as here).
//!
//! fio 3.33's weights are non-negative (0 to 1000; 0: not in a flow). Before
//! fio 3.23 the sign of `flow` told the side of a two-job flow; fio 3.33
//! reads `flow=-8` as two values split at the `-` and keeps the first, an
//! empty one: weight 0, no flow. rfio refuses the negative value instead
//! (the option parser's rule for every negative number fio misreads).

use super::read::Opts;

/// A job's place in a flow (`JobSpec::flow`); `None` without a weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FlowOptions {
    /// `flow_id` (fio compares the ids as unsigned 32-bit numbers).
    pub(crate) id: u32,
    /// `flow`: the job's weight, 1 to 1000.
    pub(crate) weight: u32,
    /// `flow_sleep` in µs: how long a held-back job sleeps (after its I/O
    /// in flight completed) before it looks again; 0: it looks again at
    /// once.
    pub(crate) sleep_us: u64,
}

/// `None` when `flow` is 0 or unset (fio's `flow_init_job` joins a flow
/// only with a weight).
pub(super) fn resolve(o: Opts<'_>) -> Option<FlowOptions> {
    let weight = o.int_or_default("flow");
    if weight <= 0 {
        return None;
    }
    Some(FlowOptions {
        id: o.int_or_default("flow_id") as u32,
        weight: weight.min(i64::from(u32::MAX)) as u32,
        sleep_us: o.int_or_default("flow_sleep").max(0) as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::FlowOptions;
    use crate::plan::testing::{frontend, job};

    fn flow(args: &[&str]) -> Option<FlowOptions> {
        let mut a = vec!["--name=f", "--ioengine=null", "--size=1m"];
        a.extend_from_slice(args);
        job(&a).flow
    }

    #[test]
    fn a_weight_puts_the_job_in_its_flow() {
        assert_eq!(flow(&[]), None);
        assert_eq!(flow(&["--flow_id=3", "--flow_sleep=100"]), None);
        assert_eq!(flow(&["--flow=0"]), None);
        assert_eq!(
            flow(&["--flow=8"]),
            Some(FlowOptions {
                id: 0,
                weight: 8,
                sleep_us: 0
            })
        );
        assert_eq!(
            flow(&["--flow_id=7", "--flow=1000", "--flow_sleep=250"]),
            Some(FlowOptions {
                id: 7,
                weight: 1000,
                sleep_us: 250
            })
        );
        // Ignored, as in fio 3.33.
        assert!(flow(&["--flow=2", "--flow_watermark=100"]).is_some());
    }

    /// fio's range is 0..=1000; rfio also refuses the negative weights of
    /// fio before 3.23, which fio 3.33 silently reads as 0.
    #[test]
    fn weights_out_of_range_are_refused() {
        // Above the range: the option table's check; a negative weight: the
        // strict reader's refusal of a value fio misreads.
        for (bad, says) in [
            ("--flow=1001", "bad value for option 'flow'"),
            ("--flow=-8", "flow=-8: fio reads this as"),
        ] {
            let fe = frontend(&["--name=f", "--ioengine=null", "--size=1m", bad]);
            assert!(fe.diags.to_string().contains(says), "{bad}: {}", fe.diags);
        }
    }
}
