//! Random offsets (fio's `get_next_rand_block`, `get_next_rand_offset`):
//! `lastb * u` through the random map or an LFSR, and the block
//! distributions of `random_distribution`, zoned ones included.

use super::OffsetGen;
use crate::ddir::Ddir;
use crate::plan::resolve::offsets::Distribution;
use crate::rand::Slot;
use crate::workload::offsets::cursor::{FileCursor, FileDist};

/// One of the 100 entries fio's `zone_state_index` has per direction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct ZoneIndex {
    size_perc: u64,
    size_perc_prev: u64,
    size: u64,
    size_prev: u64,
}

/// `random_distribution` as the offset generator uses it.
#[derive(Debug, Clone)]
pub(super) enum DistKind {
    Random,
    Zipf {
        theta: f64,
        center: f64,
    },
    Pareto {
        h: f64,
        center: f64,
    },
    Normal {
        dev: f64,
        center: f64,
    },
    Zoned {
        absolute: bool,
        index: Vec<ZoneIndex>,
    },
}

impl OffsetGen {
    /// fio's `should_do_random`.
    #[inline]
    pub(super) fn should_do_random(&mut self, dir: Ddir) -> bool {
        let perc = self.perc_rand[dir.index()];
        if perc == 100 {
            return true;
        }
        self.seq_rand[dir.index()].between(1, 100) <= u64::from(perc)
    }

    /// fio's `get_next_rand_block`: a random block, resetting the file once
    /// when its map is exhausted in a time-based job (or with a non-uniform
    /// `file_service_type`).
    #[inline(always)]
    pub(super) fn rand_block(&mut self, f: &mut FileCursor, dir: Ddir) -> Option<u64> {
        if let Some(b) = self.rand_offset(f, dir) {
            return Some(b);
        }
        self.rand_block_again(f, dir)
    }

    /// The map is exhausted: [`OffsetGen::rand_block`]'s rare second try.
    #[cold]
    #[inline(never)]
    fn rand_block_again(&mut self, f: &mut FileCursor, dir: Ddir) -> Option<u64> {
        if self.time_based || self.nonuniform_files {
            f.reset(self.seeds.get(Slot::Block));
            f.wrapped = true;
            return self.rand_offset(f, dir);
        }
        None
    }

    /// fio's `last_block`.
    fn last_block(&self, f: &FileCursor, dir: Ddir) -> u64 {
        let d = dir.index();
        let mut max_size = f.region.io_size.min(f.region.real_file_size);
        if let Some(range) = self.zone_range {
            max_size = range;
        }
        if self.min_bs[d] > self.ba[d] {
            max_size = max_size.saturating_sub(self.min_bs[d] - self.ba[d]);
        }
        self.ba_div[d].of(max_size)
    }

    /// fio's `get_next_rand_offset`: a block number by the distribution.
    #[inline(always)]
    fn rand_offset(&mut self, f: &mut FileCursor, dir: Ddir) -> Option<u64> {
        if !matches!(f.dist, FileDist::None) {
            return dist_block(&mut f.dist);
        }
        if f.spr.is_some() && dir == Ddir::Write {
            return sprandom_block(f);
        }
        let lastb = self.last_block(f, dir);
        if lastb == 0 {
            return None;
        }
        let DistKind::Zoned { absolute, index } = &self.dist else {
            return self.uniform_block(f, lastb);
        };
        let v = self.zone_state.between(1, 100) as usize;
        let z = index[v - 1];
        if *absolute {
            let ba = self.ba[dir.index()];
            let (stotal, send) = (z.size_prev / ba, z.size / ba);
            if send > lastb {
                return None;
            }
            let b = self.uniform_block(f, send - stotal)?;
            Some(b + stotal)
        } else {
            let offset = if z.size_perc_prev != 0 {
                z.size_perc_prev * lastb / 100
            } else {
                0
            };
            let range = lastb * (z.size_perc - z.size_perc_prev) / 100;
            let b = self.uniform_block(f, range)?;
            Some(b + offset)
        }
    }

    /// fio's `__get_next_rand_offset`: `lastb * u`, or the LFSR, then the
    /// random map.
    #[inline]
    fn uniform_block(&mut self, f: &mut FileCursor, lastb: u64) -> Option<u64> {
        let b = match &mut f.lfsr {
            Some(l) => l.next_value()?,
            None => scale(lastb, self.random_state.frac()),
        };
        let Some(map) = &f.map else {
            return Some(b);
        };
        if !map.is_set(b) {
            return Some(b);
        }
        map.next_free(b)
    }
}

/// `(lastb as f64 * frac) as u64`, the same value: below 2^63 both
/// conversions go through the signed ones (one instruction each on
/// x86-64, a dozen for the unsigned).
#[inline(always)]
fn scale(lastb: u64, frac: f64) -> u64 {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    let Ok(l) = i64::try_from(lastb) else {
        return (lastb as f64 * frac) as u64;
    };
    let p = l as f64 * frac;
    if (0.0..TWO_63).contains(&p) {
        // SAFETY: `p` is finite and in [0, 2^63), so it truncates to an
        // i64 (the value `p as u64` gives).
        unsafe { p.to_int_unchecked::<i64>() as u64 }
    } else {
        p as u64
    }
}

/// `sprandom`'s next block to write; out of line, as [`dist_block`].
#[inline(never)]
fn sprandom_block(f: &mut FileCursor) -> Option<u64> {
    let (Some(spr), Some(lfsr)) = (f.spr.as_mut(), f.lfsr.as_mut()) else {
        return None;
    };
    spr.next_block(lfsr)
}

/// The next block of a file with its own generator (zipf, pareto,
/// normal); out of line, so that the uniform path stays short.
#[inline(never)]
fn dist_block(dist: &mut FileDist) -> Option<u64> {
    match dist {
        FileDist::Zipf(z) => Some(z.next_value()),
        FileDist::Gauss(g) => Some(g.next_value()),
        FileDist::None => None,
    }
}

/// `random_distribution` as the generator uses it (fio's
/// `__td_zone_gen_index` for the zoned ones).
pub(super) fn dist_kind(d: &Distribution) -> DistKind {
    // fio's center -1: a random offset.
    let c = |c: Option<f64>| c.unwrap_or(-1.0);
    match d {
        Distribution::Random => DistKind::Random,
        Distribution::Zipf { theta, center } => DistKind::Zipf {
            theta: *theta,
            center: c(*center),
        },
        Distribution::Pareto { h, center } => DistKind::Pareto {
            h: *h,
            center: c(*center),
        },
        Distribution::Normal { dev, center } => DistKind::Normal {
            dev: *dev,
            center: c(*center),
        },
        Distribution::Zoned { absolute, zones } => {
            // __td_zone_gen_index: 100 slots, each pointing at its zone.
            let mut index = vec![ZoneIndex::default(); 100];
            let (mut aprev, mut sprev, mut sprev_sz) = (0usize, 0u64, 0u64);
            for z in zones {
                let (perc, size) = if *absolute { (0, z.size) } else { (z.size, 0) };
                for slot in index.iter_mut().skip(aprev).take(z.io_pct as usize) {
                    *slot = ZoneIndex {
                        size_perc: sprev + perc,
                        size_perc_prev: sprev,
                        size: sprev_sz + size,
                        size_prev: sprev_sz,
                    };
                }
                aprev += z.io_pct as usize;
                sprev += perc;
                sprev_sz += size;
            }
            DistKind::Zoned {
                absolute: *absolute,
                index,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_index_like_fio() {
        use crate::plan::resolve::offsets::Zone;
        let d = Distribution::Zoned {
            absolute: false,
            zones: vec![
                Zone {
                    io_pct: 60,
                    size: 10,
                },
                Zone {
                    io_pct: 40,
                    size: 90,
                },
            ],
        };
        let DistKind::Zoned { index, .. } = dist_kind(&d) else {
            panic!()
        };
        assert_eq!((index[0].size_perc_prev, index[0].size_perc), (0, 10));
        assert_eq!((index[59].size_perc_prev, index[59].size_perc), (0, 10));
        assert_eq!((index[60].size_perc_prev, index[60].size_perc), (10, 100));
    }
}
