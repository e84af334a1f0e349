//! `block_error_percentiles`: fio's per-block trim counts (`stat.h`'s
//! block infos, `stat.c` `calc_block_percentiles` and `show_block_infos`).
//!
//! A job with one file keeps one 32-bit word per trim-sized block of it:
//! the block's state in the top 3 bits (unwritten, trimmed, written, trim
//! failure, write failure) and how many times it was trimmed below. The
//! report gives, for each percentile of the job's `percentile_list`, the
//! trim count of the block at that rank among the blocks that are not
//! unwritten, and how many blocks are in each state.
//!
//! fio 3.33 sorts the words with a comparison that reads them as 64-bit
//! values (two words at a time), so that any job that trimmed aborts on an
//! assertion when it prints its report; a job that never trimmed prints an
//! empty list. rfio sorts them as fio means to (by state category, trims,
//! state), and prints the real percentiles in fio's layout. The blocks are
//! marked only as trims complete: fio's failure states come from its
//! verify log and requeue paths, which rfio does not have.

use serde::{Deserialize, Serialize};

/// fio's `MAX_NR_BLOCK_INFOS`.
pub(crate) const MAX_BLOCKS: u64 = 8192;
const STATE_SHIFT: u32 = 29;
const TRIMS_MASK: u32 = (1 << STATE_SHIFT) - 1;
/// `BLOCK_STATE_TRIMMED`.
const TRIMMED: u32 = 1;

/// fio's `block_state_names`, in state order.
pub(crate) const STATE_NAMES: [&str; 5] = [
    "unwritten",
    "trimmed",
    "written",
    "trim failure",
    "write failure",
];

fn state(info: u32) -> u32 {
    info >> STATE_SHIFT
}

fn trims(info: u32) -> u32 {
    info & TRIMS_MASK
}

/// `block_state_category`: unwritten, then trimmed or written, then failed.
fn category(state: u32) -> u32 {
    match state {
        0 => 0,
        1 | 2 => 1,
        _ => 2,
    }
}

/// The block words of one job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockInfos {
    infos: Vec<u32>,
}

/// What the report prints: per percentile, the trim count at that rank
/// (empty when every block is unwritten), and the blocks in each state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockPercentiles {
    pub(crate) trims: Vec<u32>,
    pub(crate) states: [u32; 5],
}

impl BlockInfos {
    /// `blocks` unwritten blocks.
    pub(crate) fn new(blocks: usize) -> BlockInfos {
        BlockInfos {
            infos: vec![0; blocks],
        }
    }

    /// Block `idx` was trimmed (fio's `trim_block_info`): counted unless it
    /// failed before. fio ignores where the I/O spans several blocks.
    #[inline]
    pub(crate) fn trimmed(&mut self, idx: u64) {
        if let Some(info) = usize::try_from(idx)
            .ok()
            .and_then(|i| self.infos.get_mut(i))
        {
            if state(*info) < 3 {
                *info = TRIMMED << STATE_SHIFT | (trims(*info) + 1) & TRIMS_MASK;
            }
        }
    }

    /// The percentiles of `list` (sorted ascending) and the state counts;
    /// `trims` is empty when no block left the unwritten state.
    pub(crate) fn percentiles(&self, list: &[f64]) -> BlockPercentiles {
        let mut sorted = self.infos.clone();
        sorted.sort_by_key(|&b| (category(state(b)), trims(b), state(b)));
        let n = sorted.len();
        let unwritten = sorted.iter().take_while(|&&b| state(b) == 0).count();
        let mut states = [0u32; 5];
        if unwritten == n {
            return BlockPercentiles {
                trims: Vec::new(),
                states,
            };
        }
        for &b in &sorted {
            if let Some(s) = states.get_mut(state(b) as usize) {
                *s += 1;
            }
        }
        // fio's list ends at a 0 percentile.
        let trims = list
            .iter()
            .take_while(|&&p| p != 0.0)
            .map(|&p| {
                // fio's index, which reaches one past the end at 100%.
                let idx = (p * (n - unwritten) as f64 / 100.0) as usize + unwritten;
                self::trims(sorted[idx.min(n - 1)])
            })
            .collect();
        BlockPercentiles { trims, states }
    }
}

/// The block words of a running job, with where its file region starts
/// and the trim block size.
#[derive(Debug, Clone)]
pub struct BlockTracker {
    pub(crate) infos: BlockInfos,
    base: u64,
    bs: u64,
}

impl BlockTracker {
    /// `blocks` blocks of `bs` bytes from offset `base`.
    pub fn new(blocks: usize, base: u64, bs: u64) -> BlockTracker {
        BlockTracker {
            infos: BlockInfos::new(blocks),
            base,
            bs: bs.max(1),
        }
    }

    /// A trim at `offset` completed.
    #[inline]
    pub(crate) fn trimmed_at(&mut self, offset: u64) {
        self.infos
            .trimmed(offset.saturating_sub(self.base) / self.bs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_blocks_have_no_percentiles() {
        let b = BlockInfos::new(16);
        assert_eq!(
            b.percentiles(&[50.0]),
            BlockPercentiles {
                trims: vec![],
                states: [0; 5]
            }
        );
    }

    #[test]
    fn trims_ranked_among_the_blocks_trimmed() {
        let mut b = BlockInfos::new(10);
        // Blocks 0..4 once, block 4 three times; 5..10 never.
        for i in 0..5 {
            b.trimmed(i);
        }
        b.trimmed(4);
        b.trimmed(4);
        b.trimmed(99);
        let p = b.percentiles(&[1.0, 50.0, 79.0, 80.0, 100.0]);
        assert_eq!(p.trims, [1, 1, 1, 3, 3]);
        assert_eq!(p.states, [5, 5, 0, 0, 0]);
    }
}
