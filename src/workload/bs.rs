//! The block size of each I/O (fio's `get_next_buflen`).
//!
//! - `bs=`: a fixed size per direction.
//! - `bsrange=lo-hi`: fio draws `lo + hi * u` (`u` uniform in `[0, 1)`,
//!   note `hi`, not `hi - lo`), rounds down to a multiple of `lo` (unless
//!   `bs_unaligned`) and clamps to `hi`; so the largest size is drawn about
//!   `lo/hi` of the time more than a uniform draw would give. It draws again
//!   until the I/O fits before the end of the file region.
//! - `bssplit=`: entries sorted by ascending percentage (fio's `qsort`,
//!   stable), empty percentages share what the others leave (the plan
//!   fills them in: `plan::resolve::bs`); a draw `r`
//!   takes the first entry whose cumulative percentage `p` satisfies
//!   `r / p <= max / 100` and that fits.
//! - `bs_is_seq_rand=1`: the read sizes serve sequential I/O and the write
//!   sizes random I/O, whatever the direction.
//!
//! Each direction has its own generator seeded like fio's `bsrange_state`
//! (write and trim share the read seed with `verify`, trim takes the write
//! seed with trimwrite), so sizes match fio's draw for draw.

use crate::ddir::Ddir;
pub(crate) use crate::plan::resolve::bs::Split;
use crate::plan::spec::JobSpec;
use crate::rand::{FioRand, Seeds, Slot};

/// The block size generator of one job.
#[derive(Debug, Clone)]
pub struct BsGen {
    min: [u64; 3],
    max: [u64; 3],
    /// Per direction, sorted by percentage; empty when no `bssplit`.
    split: [Vec<Split>; 3],
    /// fio's `bsrange_state[dir]`.
    state: [FioRand; 3],
    unaligned: bool,
    seq_rand: bool,
    /// Seeds to restore at each loop with `randrepeat`.
    seeds: [u64; 3],
    use64: bool,
}

impl BsGen {
    pub fn new(spec: &JobSpec, seeds: &Seeds) -> BsGen {
        let split = spec.block.split.clone();
        let mut min = [0; 3];
        let mut max = [0; 3];
        for d in 0..3 {
            min[d] = spec.bs[d].0.max(1);
            max[d] = spec.bs[d].1.max(min[d]);
        }
        let read_seed = seeds.get(Slot::BsRead);
        let mut write_seed = seeds.get(Slot::BsWrite);
        let mut trim_seed = seeds.get(Slot::BsTrim);
        if spec.block.verify_seeds {
            write_seed = read_seed;
        }
        if spec.pattern.write && spec.pattern.trim {
            trim_seed = write_seed;
        }
        let use64 = seeds.generator.use64();
        let all = [read_seed, write_seed, trim_seed];
        BsGen {
            min,
            max,
            split,
            state: all.map(|s| FioRand::new(s, use64)),
            unaligned: spec.block.unaligned,
            seq_rand: spec.block.seq_rand,
            seeds: all,
            use64,
        }
    }

    /// Re-seed for a new loop (fio re-seeds with `randrepeat`).
    pub(crate) fn reset(&mut self, seeds: &Seeds) {
        if seeds.repeatable {
            self.state = self.seeds.map(|s| FioRand::new(s, self.use64));
        }
    }

    /// Smallest block size of `dir` (fio's `min_bs[dir]`).
    pub fn min(&self, dir: Ddir) -> u64 {
        self.min[dir.index()]
    }

    /// Largest block size of `dir` (fio's `max_bs[dir]`).
    pub fn max(&self, dir: Ddir) -> u64 {
        self.max[dir.index()]
    }

    /// The `bssplit` of `dir` as fio uses it (sorted, filled in).
    pub fn split(&self, dir: Ddir) -> &[Split] {
        &self.split[dir.index()]
    }

    /// The size of the next I/O of `dir` at absolute `offset`, where the
    /// file's I/O region ends at absolute `end`; 0 when not even the
    /// smallest size fits (fio then ends the file). `is_random` is what
    /// the offset generator said of this I/O. Allocation free.
    #[inline]
    pub fn next_len(&mut self, dir: Ddir, is_random: bool, offset: u64, end: u64) -> u64 {
        let d = if self.seq_rand {
            if is_random {
                Ddir::Write.index()
            } else {
                Ddir::Read.index()
            }
        } else {
            dir.index()
        };
        let (minbs, maxbs) = (self.min[d], self.max[d]);
        if minbs == maxbs {
            return minbs;
        }
        let fits = |len: u64| offset.saturating_add(len) <= end;
        if !fits(minbs) {
            return 0;
        }
        let state = &mut self.state[d];
        let frand_max = state.max();
        loop {
            let r = state.next_u64();
            let mut buflen = 0;
            if self.split[d].is_empty() {
                let frac = match state {
                    FioRand::T32(_) => r as f64 / 4_294_967_296.0,
                    FioRand::T64(_) => r as f64 / 18_446_744_073_709_551_616.0,
                };
                buflen = minbs + (maxbs as f64 * frac) as u64;
            } else {
                let mut perc = 0u64;
                for e in &self.split[d] {
                    if e.pct == 0 {
                        continue;
                    }
                    buflen = e.bs;
                    perc += u64::from(e.pct);
                    if r / perc <= frand_max / 100 && fits(buflen) {
                        break;
                    }
                }
            }
            if !self.unaligned {
                if minbs.is_power_of_two() {
                    buflen &= !(minbs - 1);
                } else {
                    buflen -= buflen % minbs;
                }
            }
            if buflen > maxbs {
                buflen = maxbs;
            }
            if fits(buflen) {
                return buflen;
            }
        }
    }
}
