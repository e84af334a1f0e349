//! What the jobs of one run share: their flows ([`super::flow`]) and the
//! in-flight I/O of the offloaded jobs with `serialize_overlap`
//! ([`super::offload::Overlaps`]). The runner makes one [`RunLinks`] per
//! run and gives each job its [`Links`].

use std::sync::Arc;

use super::flow::{FlowSeat, Flows};
use super::offload::Overlaps;
use crate::plan::spec::JobSpec;

/// A job's share of what the run's jobs share.
#[derive(Debug, Clone, Default)]
pub(crate) struct Links {
    /// Its seat in its flow, if it has a `flow` weight.
    pub(crate) flow: Option<Arc<FlowSeat>>,
    /// The run's in-flight ranges, for an offloaded job with
    /// `serialize_overlap`.
    pub(crate) overlap: Option<Arc<Overlaps>>,
}

/// What the jobs of one run share.
#[derive(Debug, Default)]
pub(crate) struct RunLinks {
    flows: Flows,
    overlap: Arc<Overlaps>,
}

impl RunLinks {
    /// The links of a run of `jobs`: each job with a weight joins its flow
    /// now (fio's `add_job`), in order.
    pub(crate) fn new(jobs: &[JobSpec]) -> RunLinks {
        RunLinks {
            flows: Flows::join(jobs),
            overlap: Arc::default(),
        }
    }

    /// Job `i`'s links.
    pub(crate) fn of(&self, i: usize, spec: &JobSpec) -> Links {
        Links {
            flow: self.flows.seat(i),
            overlap: (spec.submit.offload && spec.exec.serialize_overlap)
                .then(|| Arc::clone(&self.overlap)),
        }
    }

    /// Job `i` is over: it leaves its flow (fio's `flow_exit_job` when
    /// it reaps the job).
    pub(crate) fn job_over(&self, i: usize) {
        self.flows.leave(i);
    }
}
