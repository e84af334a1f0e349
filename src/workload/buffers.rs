//! What write buffers contain (fio's `fill_io_buffer`, `lib/rand.c`
//! `fill_random_buf*`, `small_content_scramble`, `lib/pattern.c`).
//!
//! - Default: pseudo-random bytes from fio's `buf_state` generator
//!   (incompressible), filled once when the buffer is set up; before each
//!   write fio then only "scrambles" it (`scramble_buffers=1`, default): it
//!   writes the offset and the issue time into every 512-byte block, so
//!   that blocks differ without the cost of a refill.
//! - `refill_buffers`: new random contents before every write (also what a
//!   file layout with `refill_buffers` uses: incompressible).
//! - `zero_buffers`: zeros; `buffer_pattern=`: the pattern repeated (hex
//!   `0x…` as written, decimal numbers little-endian in the fewest bytes,
//!   `"strings"`, `'file'` contents, concatenated).
//! - `buffer_compress_percentage=P` (with `buffer_compress_chunk=C`): each
//!   chunk of `C` bytes is `100-P`% random bytes then zeros (or the
//!   pattern), so compressors shrink it by about P%; 100 means all zeros;
//!   fio turns `refill_buffers` on for it unless set.
//! - `dedupe_percentage=D`: D% of the write buffers repeat an earlier
//!   buffer's contents (`dedupe_mode=repeat`: the previous one;
//!   `working_set`: one of a set of `dedupe_working_set_percentage`% of the
//!   job's size, shared between jobs with `dedupe_global`: see
//!   [`super::dedupe`]).
//!
//! The random bytes follow fio's algorithm and seeding. fio's build
//! chooses the number of seed buckets (`CONFIG_SEED_BUCKETS`); rfio uses 4,
//! as Debian's fio 3.33 on x86-64 does: with fixed seeds the files rfio
//! writes are byte for byte those fio writes (tests/it/dedupe.rs compares
//! them), on another build the properties (random, compressible by P%, D%
//! duplicates) still hold.

use super::dedupe::{DedupePeers, WorkingSet};
use super::offsets::SetupError;
use crate::plan::spec::JobSpec;
use crate::rand::{hash_u64, FioRand, Seeds, Slot};

/// fio's `CONFIG_SEED_BUCKETS` as rfio uses it.
const SEED_BUCKETS: usize = 4;

/// Which generator state fills the next buffer (fio's `get_buf_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    Main,
    Ret,
}

/// The buffer-content policy of one job.
#[derive(Debug, Clone)]
pub struct BufferFiller {
    zero: bool,
    pattern: Vec<u8>,
    compress_perc: u32,
    compress_chunk: u64,
    dedupe_perc: u32,
    /// `dedupe_mode=working_set`: how the set is built.
    ws: Option<WorkingSet>,
    /// `dedupe_mode=working_set`: the saved states of the unique pages.
    working_set: Vec<FioRand>,
    /// The job's `thread_number` (a global working set starts with it).
    thread_number: u32,
    /// `buf_state` before the first buffer (what other jobs' global
    /// working sets start from).
    initial_buf_state: FioRand,
    refill: bool,
    scramble: bool,
    min_write: u64,
    buf_state: FioRand,
    buf_state_prev: FioRand,
    buf_state_ret: FioRand,
    dedupe_state: FioRand,
    ws_index_state: FioRand,
}

impl BufferFiller {
    /// The buffer policy of `spec`, drawing from the job's `seeds`.
    pub fn new(spec: &JobSpec, seeds: &Seeds) -> Result<BufferFiller, SetupError> {
        let b = &spec.buffers;
        let use64 = seeds.generator.use64();
        let buf_state = seeds.rand(Slot::Buf, use64);
        let min_write = spec.bs[1].0.max(1);
        let ws = WorkingSet::of(spec).map_err(|e| SetupError::Invalid(e.to_string()))?;
        let working_set =
            ws.map_or_else(Vec::new, |w| w.states(buf_state, spec.thread_number, None));
        Ok(BufferFiller {
            zero: b.zero,
            pattern: b.pattern.clone(),
            compress_perc: b.compress_perc,
            compress_chunk: b.compress_chunk,
            dedupe_perc: b.dedupe_perc,
            ws,
            working_set,
            thread_number: spec.thread_number,
            initial_buf_state: buf_state,
            refill: b.refill,
            scramble: b.scramble,
            min_write,
            buf_state,
            buf_state_prev: buf_state,
            buf_state_ret: buf_state,
            dedupe_state: seeds.rand(Slot::Dedupe, false),
            ws_index_state: seeds.rand(Slot::DedupeWorkingSet, use64),
        })
    }

    /// The buffer generator before the first buffer (fio's `buf_state`
    /// when the jobs are set up): what [`DedupePeers`] collects.
    pub fn initial_buf_state(&self) -> FioRand {
        self.initial_buf_state
    }

    /// `dedupe_global=1`: rebuild the working set from the initial buffer
    /// generators of every job of the plan (fio's
    /// `init_global_dedupe_working_set_seeds`); nothing for other jobs.
    /// Called once for each job before any job starts.
    pub fn share_working_set(&mut self, peers: &DedupePeers) {
        if let Some(ws) = self.ws.filter(|w| w.global) {
            self.working_set = ws.states(self.initial_buf_state, self.thread_number, Some(peers));
        }
    }

    /// Whether every write gets new contents (`refill_buffers`, or implied
    /// by `buffer_compress_percentage`).
    pub fn refills(&self) -> bool {
        self.refill
    }

    /// Whether buffers are all zeros.
    pub fn zeroes(&self) -> bool {
        self.zero && self.pattern.is_empty() && self.compress_perc == 0 && self.dedupe_perc == 0
    }

    /// Fill `buf` as fio fills a write buffer (`fill_io_buffer` with the
    /// job's smallest write size): at setup, for every write with
    /// `refill_buffers`, and for file layout. Allocation free.
    pub fn fill(&mut self, buf: &mut [u8]) {
        if self.compress_perc > 0 || self.dedupe_perc > 0 {
            let mut which = None;
            let mut min_write = self.min_write;
            let mut off = 0usize;
            let mut left = buf.len() as u64;
            while left > 0 {
                let w = *which.get_or_insert_with(|| self.buf_state_for_next());
                min_write = min_write.min(left);
                let this = if self.compress_chunk == 0 {
                    min_write
                } else if min_write == 0 {
                    self.compress_chunk
                } else {
                    min_write.min(self.compress_chunk)
                }
                .min(left)
                .max(1) as usize;
                let rs = match w {
                    Which::Main => &mut self.buf_state,
                    Which::Ret => &mut self.buf_state_ret,
                };
                let seed = rs.next_seed();
                fill_percentage(
                    seed,
                    &mut buf[off..off + this],
                    self.compress_perc,
                    this,
                    &self.pattern,
                );
                off += this;
                left -= this as u64;
                self.save_buf_state(w);
            }
        } else if !self.pattern.is_empty() {
            copy_pattern(&self.pattern, buf);
        } else if self.zero {
            buf.fill(0);
        } else {
            let seed = self.buf_state.next_seed();
            fill_random(buf, seed);
        }
    }

    /// Prepare `buf` for a write at `offset` issued at `(sec, nsec)`:
    /// refill it with `refill_buffers`, else scramble it (fio's
    /// `get_io_u`; `verify` jobs write their own pattern and are never
    /// scrambled). Allocation free.
    #[inline]
    pub fn prepare_write(&mut self, buf: &mut [u8], offset: u64, start: (u64, u64), verify: bool) {
        if self.refill {
            self.fill(buf);
        } else if self.scramble && self.compress_perc == 0 && self.dedupe_perc == 0 && !verify {
            scramble(buf, offset, start);
        }
    }

    /// fio's `get_buf_state`.
    fn buf_state_for_next(&mut self) -> Which {
        if self.dedupe_perc == 0 {
            return Which::Main;
        }
        if self.dedupe_perc == 100 {
            self.buf_state_prev = self.buf_state;
            return Which::Main;
        }
        let v = self.dedupe_state.between(1, 100);
        if v <= u64::from(self.dedupe_perc) {
            if self.working_set.is_empty() {
                self.buf_state_ret = self.buf_state_prev;
            } else {
                let n = self.working_set.len() as u64;
                let i = self.ws_index_state.between(0, n - 1) as usize;
                self.buf_state_ret = self.working_set[i.min(self.working_set.len() - 1)];
            }
            return Which::Ret;
        }
        Which::Main
    }

    /// fio's `save_buf_state`.
    fn save_buf_state(&mut self, w: Which) {
        if self.dedupe_perc == 100 {
            match w {
                Which::Main => self.buf_state = self.buf_state_prev,
                Which::Ret => self.buf_state_ret = self.buf_state_prev,
            }
        } else if w == Which::Main {
            self.buf_state_prev = self.buf_state;
        }
    }
}

/// fio's `__fill_random_buf`: `seed` times small primes in buckets, each
/// word hashed from the previous one of its bucket.
pub(crate) fn fill_random(buf: &mut [u8], seed: u64) {
    const PRIME: [u64; 16] = [1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47];
    let words = buf.len() / 8 / SEED_BUCKETS * SEED_BUCKETS;
    let mut s = [0u64; SEED_BUCKETS];
    for (p, v) in s.iter_mut().enumerate() {
        *v = seed.wrapping_mul(PRIME[p]);
    }
    let (head, tail) = buf.split_at_mut(words * 8);
    for group in head.chunks_exact_mut(8 * SEED_BUCKETS) {
        for (p, word) in group.chunks_exact_mut(8).enumerate() {
            word.copy_from_slice(&s[p].to_le_bytes());
            s[p] = hash_u64(s[p]);
        }
    }
    // __fill_random_buf_small with the first bucket's seed.
    let mut seed = s[0];
    let mut words = tail.chunks_exact_mut(8);
    for word in &mut words {
        word.copy_from_slice(&seed.to_le_bytes());
        seed = hash_u64(seed);
    }
    let rest = words.into_remainder();
    let n = rest.len();
    rest.copy_from_slice(&seed.to_le_bytes()[..n]);
}

/// fio's `__fill_random_buf_percentage`: per `segment`, `100-perc`% random
/// bytes then `perc`% zeros (or the pattern).
pub(crate) fn fill_percentage(
    seed: u64,
    buf: &mut [u8],
    perc: u32,
    segment: usize,
    pattern: &[u8],
) {
    let fill_rest = |b: &mut [u8]| {
        if pattern.is_empty() {
            b.fill(0);
        } else {
            copy_pattern(pattern, b);
        }
    };
    if perc >= 100 {
        fill_rest(buf);
        return;
    }
    let segment = segment.min(buf.len());
    let mut off = 0;
    let mut len = buf.len();
    while len > 0 {
        let random = (segment as u64 * u64::from(100 - perc) / 100).min(len as u64) as usize;
        fill_random(&mut buf[off..off + random], seed);
        len -= random;
        if len == 0 {
            break;
        }
        off += random;
        let mut this = segment - random;
        if this > len || len - this <= 8 {
            this = len;
        }
        fill_rest(&mut buf[off..off + this]);
        len -= this;
        off += this;
        if segment == 0 && this == 0 {
            break;
        }
    }
}

/// fio's `cpy_pattern`: `pattern` repeated over `buf`.
pub(crate) fn copy_pattern(pattern: &[u8], buf: &mut [u8]) {
    if pattern.is_empty() {
        return;
    }
    for chunk in buf.chunks_mut(pattern.len()) {
        chunk.copy_from_slice(&pattern[..chunk.len()]);
    }
}

/// fio's `small_content_scramble`: in every 512-byte block, the block's
/// offset at one of its first eight 64-byte lines (chosen by the issue
/// time and offset) and the issue time at bytes 48..64.
pub(crate) fn scramble(buf: &mut [u8], offset: u64, (sec, nsec): (u64, u64)) {
    let line = ((nsec ^ offset) & 7) as usize * 64;
    let mut boffset = offset;
    for block in buf.chunks_exact_mut(512) {
        block[line..line + 8].copy_from_slice(&boffset.to_le_bytes());
        block[48..56].copy_from_slice(&sec.to_le_bytes());
        block[56..64].copy_from_slice(&nsec.to_le_bytes());
        boffset = boffset.wrapping_add(512);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentage_fill_leaves_zeros() {
        let mut buf = vec![0xffu8; 4096];
        fill_percentage(0x9e37_79b9_7f4a_7c15, &mut buf, 75, 512, &[]);
        let zeros = buf.iter().filter(|&&b| b == 0).count();
        assert!((3072..3100).contains(&zeros), "{zeros}");
    }

    #[test]
    fn scramble_marks_every_block() {
        let mut buf = vec![0u8; 2048];
        scramble(&mut buf, 4096, (7, 3));
        for (i, block) in buf.chunks(512).enumerate() {
            let line = ((3u64 ^ 4096) & 7) as usize * 64;
            let off = u64::from_le_bytes(block[line..line + 8].try_into().unwrap());
            assert_eq!(off, 4096 + 512 * i as u64);
            assert_eq!(u64::from_le_bytes(block[48..56].try_into().unwrap()), 7);
        }
    }
}
