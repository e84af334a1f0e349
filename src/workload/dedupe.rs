//! Dedupe working sets (fio's `dedupe.c`): which earlier buffers a
//! `dedupe_mode=working_set` job repeats.
//!
//! - `dedupe_percentage=D` makes D% of the write buffers copies of an
//!   earlier one. `dedupe_mode=repeat` (default) copies the previous
//!   buffer; `working_set` one of a fixed set of unique buffers, drawn
//!   uniformly ([`super::buffers`] does the drawing).
//! - The set holds the generator states that produce its buffers: the
//!   job's own buffer generator (`buf_state`) as it is before the first
//!   buffer, then advanced once per buffer (once per
//!   `buffer_compress_chunk` piece of a buffer), for
//!   `size * dedupe_working_set_percentage / 100 / bs` buffers (fio's
//!   `num_unique_pages`; `dedupe_working_set_percentage` defaults to 5).
//!   As in fio, a working set needs `size`, one file per job, and
//!   `dedupe_percentage + dedupe_working_set_percentage <= 100`; the job
//!   is refused before any I/O otherwise, in fio's words.
//! - `dedupe_global=1` (fio's `init_global_dedupe_working_set_seeds`):
//!   the set is cut into runs of `pages / number of jobs` entries; the
//!   first run follows the job's own generator, each further run starts
//!   again from the initial buffer generator of the next job in the plan
//!   (wrapping to the first). So every job with `dedupe_global=1` holds
//!   entries that regenerate other jobs' buffers, and files written by
//!   different jobs share blocks. Nothing is shared while the jobs run:
//!   the sets are computed from the initial states before any job starts,
//!   each job draws from its own copy, and the bytes each job writes do
//!   not depend on thread scheduling (no lock, nothing shared on the I/O
//!   path). The runner hands every job the initial states of all jobs
//!   ([`DedupePeers::of`] the plan) before the jobs start
//!   ([`super::buffers::BufferFiller::share_working_set`]).
//!   With `dedupe_mode=repeat`, `dedupe_global` changes nothing, as in
//!   fio.

use crate::plan::spec::JobSpec;
use crate::rand::{FioRand, Slot};

/// The initial buffer generator (`td->buf_state`) of every job of the
/// plan, in thread order (`thread_number - 1`): what a `dedupe_global`
/// working set is built from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DedupePeers {
    states: Vec<FioRand>,
}

impl DedupePeers {
    /// The initial buffer generators of all jobs, in thread order.
    pub(crate) fn new(states: Vec<FioRand>) -> DedupePeers {
        DedupePeers { states }
    }

    /// The initial buffer generators of `jobs` (the plan's jobs, in
    /// order), from the seeds the plan drew for each job
    /// ([`JobSpec::seeds`]).
    pub fn of(jobs: &[JobSpec]) -> DedupePeers {
        DedupePeers::new(
            jobs.iter()
                .map(|spec| {
                    let seeds = &spec.seeds;
                    seeds.rand(Slot::Buf, seeds.generator.use64())
                })
                .collect(),
        )
    }

    /// The number of jobs (fio's global `thread_number`).
    pub(crate) fn len(&self) -> usize {
        self.states.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.states.is_empty()
    }
}

/// The dedupe settings of a job that keeps a working set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WorkingSet {
    /// Entries in the set (fio's `num_unique_pages`).
    pub(crate) pages: u64,
    /// Generator steps per buffer (`bs / min(bs, buffer_compress_chunk)`).
    pub(crate) advance: u64,
    /// `dedupe_global=1`.
    pub(crate) global: bool,
}

/// Why a job's dedupe working set cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DedupeError {
    /// The plan refused it: its words.
    #[error("{0}")]
    Refused(String),
    /// fio's malloc of the set failing.
    #[error("could not allocate dedupe working set ({pages} pages)")]
    NoMemory { pages: u64 },
}

impl WorkingSet {
    /// The working set `spec` asks for, if any (`dedupe_percentage > 0`
    /// with `dedupe_mode=working_set`, sized by the plan); an error in
    /// fio's words when the plan refused it, or when it cannot be held.
    pub(crate) fn of(spec: &JobSpec) -> Result<Option<WorkingSet>, DedupeError> {
        let ws = match &spec.buffers.working_set {
            Err(refusal) => return Err(DedupeError::Refused(refusal.0.clone())),
            Ok(None) => return Ok(None),
            Ok(Some(ws)) => ws,
        };
        let pages = ws.pages;
        // fio's malloc of the set failing: an error, not an abort.
        let fits = usize::try_from(pages)
            .is_ok_and(|n| Vec::<FioRand>::new().try_reserve_exact(n).is_ok());
        if !fits {
            return Err(DedupeError::NoMemory { pages });
        }
        Ok(Some(WorkingSet {
            pages,
            advance: ws.advance,
            global: ws.global,
        }))
    }

    /// The generator states of the set (fio's
    /// `init_dedupe_working_set_seeds`), from the job's initial buffer
    /// generator `own`. `peers` (all jobs, for `dedupe_global`) and
    /// `thread_number` (the job's, 1-based) rotate the set through the
    /// other jobs' generators; without peers the set is the job's own.
    pub(crate) fn states(
        &self,
        own: FioRand,
        thread_number: u32,
        peers: Option<&DedupePeers>,
    ) -> Vec<FioRand> {
        let peers = peers.filter(|p| self.global && !p.is_empty());
        let njobs = peers.map_or(1, |p| p.len() as u64);
        let per_run = (self.pages / njobs).max(1);
        let mut next_job = u64::from(thread_number.max(1)) - 1;
        let mut state = own;
        let mut states = Vec::with_capacity(self.pages as usize);
        for i in 0..self.pages {
            if i > 0 {
                for _ in 0..self.advance {
                    state.next_seed();
                }
                if let Some(p) = peers.filter(|_| i % per_run == 0) {
                    next_job = (next_job + 1) % njobs;
                    state = p.states[next_job as usize];
                }
            }
            states.push(state);
        }
        states
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(seed: u64) -> FioRand {
        FioRand::new(seed, false)
    }

    #[test]
    fn a_refused_working_set_keeps_the_plans_words() {
        let spec = crate::plan::testing::job(&[
            "--name=d",
            "--size=1m",
            "--nrfiles=2",
            "--dedupe_percentage=50",
            "--dedupe_mode=working_set",
        ]);
        let e = WorkingSet::of(&spec).unwrap_err();
        assert_eq!(
            e,
            DedupeError::Refused(
                "dedupe working set mode supported with single file per job, but 2 files \
                 provided"
                    .into()
            )
        );
        assert_eq!(
            DedupeError::NoMemory { pages: 9 }.to_string(),
            "could not allocate dedupe working set (9 pages)"
        );
    }

    #[test]
    fn own_set_follows_the_buffer_generator() {
        let ws = WorkingSet {
            pages: 4,
            advance: 2,
            global: false,
        };
        let states = ws.states(gen(7), 1, None);
        let mut s = gen(7);
        for st in &states {
            assert_eq!(*st, s);
            s.next_seed();
            s.next_seed();
        }
    }

    #[test]
    fn global_set_rotates_through_the_jobs() {
        let peers = DedupePeers::new(vec![gen(1), gen(2), gen(3)]);
        let ws = WorkingSet {
            pages: 7,
            advance: 1,
            global: true,
        };
        // Job 2: 7 / 3 = 2 entries per run: own, own+1, job 3, job 3+1,
        // job 1, job 1+1, job 2 again.
        let states = ws.states(gen(2), 2, Some(&peers));
        let step = |mut s: FioRand| {
            s.next_seed();
            s
        };
        assert_eq!(
            states,
            vec![
                gen(2),
                step(gen(2)),
                gen(3),
                step(gen(3)),
                gen(1),
                step(gen(1)),
                gen(2)
            ]
        );
        // Without dedupe_global the peers are not used.
        let own = WorkingSet {
            global: false,
            ..ws
        };
        assert_eq!(
            own.states(gen(2), 2, Some(&peers)),
            own.states(gen(2), 2, None)
        );
    }
}
