//! `sprandom` (fio 3.41's `sprandom.c`): random writes that leave an SSD
//! in the steady state of a random workload, in one pass.
//!
//! The device's physical space (the file's size plus `spr_op` of it) is
//! cut into `spr_num_regions` equal regions, written one after another.
//! Each region gets an invalidation share from Desnoyers' model of a
//! greedy garbage collector (`valid(i) * f(i)` constant, the collected
//! block's validity `1 - 1/WA`, `WA ≈ 0.5/OP + 0.7`, resampled to equal
//! region sizes): the first region the most, the last none. While a
//! region is written, each block written is kept, with the region's
//! share as its chance, to be written again: at the start of the next
//! region (or, with `spr_cs`, the device's cache, after it) before that
//! region's fresh blocks. Fresh blocks come from the file's LFSR, each
//! once; the job ends when the regions or the LFSR are done.
//!
//! The blocks kept wait in fio's two-phase ring (`pcbuf.h`): staged while
//! a region is written, visible (committed) once the next one starts.

use crate::plan::resolve::sprandom::SprandomOptions;
use crate::rand::{FioRand, Lfsr};

/// fio's `PCT_PRECISION`: shares are in 1/10000.
const PCT_PRECISION: u64 = 10_000;

/// The sprandom state of the job's one file (fio's `sprandom_info`).
#[derive(Debug, Clone)]
pub(crate) struct Sprandom {
    regions: u32,
    cache_size: u64,
    /// Invalidation share of each region, in 1/10000.
    invalid_pct: Vec<u32>,
    ring: PhaseRing,
    invalid_count: [u64; 2],
    current_region: u32,
    phase: usize,
    region_write_count: u64,
    writes_remaining: u64,
    rand: FioRand,
    /// No block was left once: fio sets `td->done`, and the job draws no
    /// offset after.
    done: bool,
}

/// Why fio's `sprandom_init` fails, in its words (without `fio: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SprandomError {
    #[error("sprandom: bs [{0}] should be power of 2")]
    BlockSize(u64),
    /// fio asserts (and aborts) there: `spr_op` as written.
    #[error("sprandom: spr_op [{0}] gives a write amplification of at most 1")]
    OverProvisioning(String),
    #[error("requires at least one region")]
    NoRegions,
    #[error(
        "sprandom: spr_cs [{cache}] must be smaller than region_sz [{region}] which means [{allowed}] regions allowed"
    )]
    Cache {
        cache: u64,
        region: u64,
        allowed: u64,
    },
    /// The job has more than one file (fio's `setup_files`).
    #[error("SPRandom supports only one file")]
    Files,
}

/// What `Sprandom::new` computed, for the caller's limits and fio's
/// `--debug=sprandom` summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Geometry {
    pub(crate) physical_size: u64,
    pub(crate) region_size: u64,
    pub(crate) region_write_count: u64,
    pub(crate) invalid_capacity: u64,
}

/// fio's `sprandom_physical_size`: `logical` plus its over-provisioning,
/// rounded up to the block size `bs` (a power of two). fio adds in
/// double precision.
pub(crate) fn physical_size(op: f64, logical: u64, bs: u64) -> u64 {
    let size = (logical as f64 + (logical as f64 * op).ceil()) as u64;
    size.wrapping_add(bs - 1) & !(bs - 1)
}

impl Sprandom {
    /// The state for a file of `logical` bytes written in blocks of `bs`,
    /// drawing its choices from `rand` (fio's `sprandom_state`).
    pub(crate) fn new(
        o: &SprandomOptions,
        logical: u64,
        bs: u64,
        rand: FioRand,
    ) -> Result<(Sprandom, Geometry), SprandomError> {
        if !bs.is_power_of_two() {
            return Err(SprandomError::BlockSize(bs));
        }
        let physical = physical_size(o.over_provisioning, logical, bs);
        let waf = 0.5 / o.over_provisioning + 0.7;
        if waf.is_nan() || waf <= 1.0 {
            return Err(SprandomError::OverProvisioning(
                o.over_provisioning.to_string(),
            ));
        }
        if o.regions == 0 {
            return Err(SprandomError::NoRegions);
        }
        let validity = validity_distribution(o.regions as usize, 1.0 - 1.0 / waf);
        let invalid_pct = validity
            .iter()
            .map(|v| ((1.0 - v) * PCT_PRECISION as f64).round() as i32 as u32)
            .collect();
        let region_size = physical / u64::from(o.regions);
        let region_write_count = region_size / bs;
        if o.cache_size != 0 && o.cache_size > region_size {
            return Err(SprandomError::Cache {
                cache: o.cache_size,
                region: region_size,
                allowed: physical / o.cache_size,
            });
        }
        let mut capacity = inv_capacity(region_write_count, validity[0]);
        if o.cache_size != 0 {
            // The rewrites of a region wait a region longer.
            capacity *= 2;
        }
        let geometry = Geometry {
            physical_size: physical,
            region_size,
            region_write_count,
            invalid_capacity: capacity,
        };
        let spr = Sprandom {
            regions: o.regions,
            cache_size: o.cache_size,
            invalid_pct,
            ring: PhaseRing::new(capacity),
            invalid_count: [0; 2],
            current_region: 0,
            phase: 0,
            region_write_count,
            writes_remaining: region_write_count,
            rand,
            done: false,
        };
        Ok((spr, geometry))
    }

    /// The last block was given.
    pub(crate) fn done(&self) -> bool {
        self.done
    }

    /// The next block to write (fio's `sprandom_get_next_offset`), fresh
    /// ones from `lfsr`; `None` when there is none, which makes the job
    /// done ([`Sprandom::done`]: the I/O loop draws no offset after, as
    /// fio's `td->done`, though a time-based job's retry on its file
    /// started over may still get one, as in fio).
    pub(crate) fn next_block(&mut self, lfsr: &mut Lfsr) -> Option<u64> {
        let b = self.next(lfsr);
        if b.is_none() {
            self.done = true;
        }
        b
    }

    fn next(&mut self, lfsr: &mut Lfsr) -> Option<u64> {
        let cache = self.cache_size != 0;
        if !cache {
            // The previous region's rewrites come first.
            if let Some(b) = self.ring.pop() {
                self.keep_maybe(b, self.phase ^ 1);
                return Some(b);
            }
        }
        if self.writes_remaining == 0 {
            if cache {
                // With a cache: at the end of the region after theirs.
                if let Some(b) = self.ring.pop() {
                    self.keep_maybe(b, self.phase ^ 1);
                    return Some(b);
                }
            }
            if self.current_region >= self.regions {
                return None;
            }
            self.invalid_count[self.phase] = 0;
            self.current_region += 1;
            self.phase ^= 1;
            self.writes_remaining = self
                .region_write_count
                .wrapping_sub(self.invalid_count[self.phase]);
            self.ring.commit();
        }
        let Some(b) = lfsr.next_value() else {
            // fio: the cache's rewrites still due go out, unkept.
            return if cache { self.ring.pop() } else { None };
        };
        self.writes_remaining = self.writes_remaining.saturating_sub(1);
        self.keep_maybe(b, self.phase ^ 1);
        Some(b)
    }

    /// fio's `sprandom_add_with_probability`: keep `b` for a rewrite with
    /// the current region's share. Past the last region fio reads beyond
    /// its array; rfio takes the last region's share there (none).
    fn keep_maybe(&mut self, b: u64, phase: usize) {
        let v = self.rand.between(0, PCT_PRECISION);
        let pct = self
            .invalid_pct
            .get(self.current_region as usize)
            .copied()
            .unwrap_or(0);
        if v <= u64::from(pct) && self.ring.push(b) {
            self.invalid_count[phase] += 1;
        }
    }
}

/// fio's `estimate_inv_capacity`: the rewrites a region of `count`
/// blocks keeps at validity `validity`, plus six standard deviations.
fn inv_capacity(count: u64, validity: f64) -> u64 {
    let n = count as f64;
    let sigma = (n * validity * (1.0 - validity)).sqrt();
    (n * (1.0 - validity) + 6.0 * sigma).ceil() as u64
}

/// fio's `linspace`: `num` values from `start` to `end`, both included.
fn linspace(start: f64, end: f64, num: usize) -> Vec<f64> {
    if num == 1 {
        return vec![start];
    }
    let step = (end - start) / (num as f64 - 1.0);
    (0..num).map(|i| start + i as f64 * step).collect()
}

/// fio's `linear_interp`: `y` at `x` on the polyline `xs`/`ys` (sorted
/// `xs`), the end values outside it.
fn interp(x: f64, xs: &[f64], ys: &[f64]) -> f64 {
    let n = xs.len();
    if n == 1 || x <= xs[0] {
        return ys[0];
    }
    if x >= xs[n - 1] {
        return ys[n - 1];
    }
    for i in 0..n - 1 {
        if x >= xs[i] && x <= xs[i + 1] {
            let (x1, y1, x2, y2) = (xs[i], ys[i], xs[i + 1], ys[i + 1]);
            if (x2 - x1).abs() < 1e-9 {
                return y1;
            }
            return y1 + (y2 - y1) * ((x - x1) / (x2 - x1));
        }
    }
    0.0
}

/// fio's `compute_validity_dist`: the validity of each of `n` equal
/// regions, lowest first, down to `gc_validity` (the collected block's).
fn validity_distribution(n: usize, gc_validity: f64) -> Vec<f64> {
    // Validity equally spaced, and the space each level takes (1/v).
    let validity = linspace(1.0, gc_validity, n);
    let mut acc = 0.0;
    let xs: Vec<f64> = validity
        .iter()
        .map(|v| {
            acc += 1.0 / v;
            acc
        })
        .collect();
    // Resampled at equal space.
    let mut out: Vec<f64> = linspace(xs[0], xs[n - 1], n)
        .iter()
        .map(|&x| interp(x, &xs, &validity))
        .collect();
    out.reverse();
    out
}

/// fio's two-phase ring (`pcbuf.h`): values pushed are staged, seen by
/// `pop` only once committed; one slot stays free.
#[derive(Debug, Clone)]
struct PhaseRing {
    buf: Vec<u64>,
    commit_head: usize,
    staging_head: usize,
    read_tail: usize,
}

impl PhaseRing {
    fn new(capacity: u64) -> PhaseRing {
        PhaseRing {
            buf: vec![0; capacity.max(1) as usize],
            commit_head: 0,
            staging_head: 0,
            read_tail: 0,
        }
    }

    fn cap(&self) -> usize {
        self.buf.len()
    }

    /// Stage `v`; false when full (fio asserts then: six standard
    /// deviations past the expected count).
    fn push(&mut self, v: u64) -> bool {
        let cap = self.cap();
        let committed = (self.commit_head + cap - self.read_tail) % cap;
        let staged = (self.staging_head + cap - self.commit_head) % cap;
        if committed + staged >= cap - 1 {
            return false;
        }
        self.buf[self.staging_head] = v;
        self.staging_head = (self.staging_head + 1) % cap;
        true
    }

    fn commit(&mut self) {
        self.commit_head = self.staging_head;
    }

    fn pop(&mut self) -> Option<u64> {
        if self.read_tail == self.commit_head {
            return None;
        }
        let v = self.buf[self.read_tail];
        self.read_tail = (self.read_tail + 1) % self.cap();
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(regions: u32, op: f64, cache_size: u64) -> SprandomOptions {
        SprandomOptions {
            regions,
            over_provisioning: op,
            cache_size,
            notes: Vec::new(),
            refusal: None,
        }
    }

    /// fio 3.42 `--debug=sprandom` of `--size=1m --bs=4k --spr_op=0.25
    /// --spr_num_regions=4`: validity resampled [0.63, 0.73, 0.86, 1.00],
    /// physical 1310720, region 327680, 80 writes, capacity 56.
    #[test]
    fn geometry_as_fio_prints_it() {
        let (s, g) =
            Sprandom::new(&opts(4, 0.25, 0), 1 << 20, 4096, FioRand::new(1, false)).unwrap();
        assert_eq!(
            g,
            Geometry {
                physical_size: 1310720,
                region_size: 327680,
                region_write_count: 80,
                invalid_capacity: 56,
            }
        );
        let v = validity_distribution(4, 1.0 - 1.0 / (0.5 / 0.25 + 0.7));
        let shown: Vec<String> = v.iter().map(|v| format!("{v:.2}")).collect();
        assert_eq!(shown, ["0.63", "0.73", "0.86", "1.00"]);
        assert_eq!(s.invalid_pct[3], 0);
        assert!(s.invalid_pct[0] > s.invalid_pct[1]);
    }

    #[test]
    fn refusals_in_fios_words() {
        let r = FioRand::new(1, false);
        let err =
            |o: SprandomOptions, bs| Sprandom::new(&o, 1 << 20, bs, r).unwrap_err().to_string();
        assert_eq!(
            err(opts(4, 0.25, 0), 3072),
            "sprandom: bs [3072] should be power of 2"
        );
        assert_eq!(
            err(opts(4, 0.25, 2 << 20), 4096),
            "sprandom: spr_cs [2097152] must be smaller than region_sz [327680] which means [0] regions allowed"
        );
        assert_eq!(err(opts(0, 0.25, 0), 4096), "requires at least one region");
    }

    #[test]
    fn every_block_once_and_rewrites_within_the_region_count() {
        let (mut s, g) =
            Sprandom::new(&opts(4, 0.25, 0), 1 << 20, 4096, FioRand::new(7, false)).unwrap();
        let mut lfsr = Lfsr::new(256, 12345).unwrap();
        let mut seen = vec![0u32; 256];
        let mut n = 0;
        while let Some(b) = s.next_block(&mut lfsr) {
            seen[b as usize] += 1;
            n += 1;
        }
        assert!(seen.iter().all(|&c| c >= 1));
        assert!(n > 256 && n <= 4 * g.region_write_count + 256);
        assert!(s.done());
    }

    #[test]
    fn the_ring_shows_only_what_was_committed() {
        let mut r = PhaseRing::new(4);
        assert!(r.push(1) && r.push(2) && r.push(3));
        assert!(!r.push(4));
        assert_eq!(r.pop(), None);
        r.commit();
        assert_eq!(
            (r.pop(), r.pop(), r.pop(), r.pop()),
            (Some(1), Some(2), Some(3), None)
        );
    }
}
