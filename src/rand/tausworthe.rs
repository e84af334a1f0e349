//! fio's Tausworthe generators (`lib/rand.[ch]`): taus88 (32-bit, the
//! default `random_generator`) and taus258 (64-bit, `tausworthe64`), and
//! the draws fio makes from them.

/// fio's `struct taus88_state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taus88 {
    s1: u32,
    s2: u32,
    s3: u32,
}

/// fio's `struct taus258_state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taus258 {
    s: [u64; 5],
}

/// fio's `__seed`: keep each component above its minimum.
#[inline]
fn seed_min(x: u64, m: u64) -> u64 {
    if x < m {
        x + m
    } else {
        x
    }
}

/// `(2^31) + (2^17) + (2^7)` in fio's C source, where `^` is XOR: 53.
const LCG_START: u64 = (2 ^ 31) + (2 ^ 17) + (2 ^ 7);

impl Taus88 {
    /// fio's `__init_rand32`.
    pub(crate) fn new(seed: u32) -> Taus88 {
        let lcg = |x: u32| x.wrapping_mul(69069) ^ seed;
        let s1 = seed_min(u64::from(lcg(LCG_START as u32)), 1) as u32;
        let s2 = seed_min(u64::from(lcg(s1)), 7) as u32;
        let s3 = seed_min(u64::from(lcg(s2)), 15) as u32;
        let mut t = Taus88 { s1, s2, s3 };
        for _ in 0..6 {
            t.next_u32();
        }
        t
    }

    /// fio's `__rand32`.
    #[inline]
    pub(crate) fn next_u32(&mut self) -> u32 {
        #[inline(always)]
        fn taus(s: u32, a: u32, b: u32, c: u32, d: u32) -> u32 {
            ((s & c) << d) ^ (((s << a) ^ s) >> b)
        }
        self.s1 = taus(self.s1, 13, 19, 4_294_967_294, 12);
        self.s2 = taus(self.s2, 2, 25, 4_294_967_288, 4);
        self.s3 = taus(self.s3, 3, 11, 4_294_967_280, 17);
        self.s1 ^ self.s2 ^ self.s3
    }
}

impl Taus258 {
    /// fio's `__init_rand64`.
    pub(crate) fn new(seed: u64) -> Taus258 {
        let lcg = |x: u64| x.wrapping_mul(6_906_969_069) ^ seed;
        let mut s = [0u64; 5];
        let mins = [1, 7, 15, 33, 49];
        s[0] = seed_min(lcg(LCG_START), mins[0]);
        for i in 1..5 {
            s[i] = seed_min(lcg(s[i - 1]), mins[i]);
        }
        let mut t = Taus258 { s };
        for _ in 0..6 {
            t.next_u64();
        }
        t
    }

    /// fio's `__rand64`.
    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let x = ((s[0] << 1) ^ s[0]) >> 53;
        s[0] = ((s[0] & 18_446_744_073_709_551_614) << 10) ^ x;
        let x = ((s[1] << 24) ^ s[1]) >> 50;
        s[1] = ((s[1] & 18_446_744_073_709_551_104) << 5) ^ x;
        let x = ((s[2] << 3) ^ s[2]) >> 23;
        s[2] = ((s[2] & 18_446_744_073_709_547_520) << 29) ^ x;
        let x = ((s[3] << 5) ^ s[3]) >> 24;
        s[3] = ((s[3] & 18_446_744_073_709_420_544) << 23) ^ x;
        let x = ((s[4] << 3) ^ s[4]) >> 33;
        s[4] = ((s[4] & 18_446_744_073_701_163_008) << 8) ^ x;
        s[0] ^ s[1] ^ s[2] ^ s[3] ^ s[4]
    }
}

/// fio's `struct frand_state`: a 32- or 64-bit Tausworthe generator.
///
/// Each method is the fio function named in its doc, with fio's floating
/// point arithmetic, so results match fio bit for bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FioRand {
    T32(Taus88),
    T64(Taus258),
}

/// `FRAND32_MAX_PLUS_ONE`.
const MAX32_PLUS_ONE: f64 = 4_294_967_296.0;
/// `FRAND64_MAX_PLUS_ONE`.
const MAX64_PLUS_ONE: f64 = 18_446_744_073_709_551_616.0;

impl FioRand {
    /// The generator as fio's verify state file keeps it (`struct
    /// thread_rand_state`, little-endian, 56 bytes): `use64`, then the
    /// 32-bit state's three words and a zero, or the 64-bit state's five
    /// and a zero; the rest of the union zero.
    pub(crate) fn saved(&self) -> [u8; 56] {
        let mut out = [0u8; 56];
        match self {
            FioRand::T32(t) => {
                for (i, w) in [t.s1, t.s2, t.s3].iter().enumerate() {
                    out[8 + 4 * i..12 + 4 * i].copy_from_slice(&w.to_le_bytes());
                }
            }
            FioRand::T64(t) => {
                out[..8].copy_from_slice(&1u64.to_le_bytes());
                for (i, w) in t.s.iter().enumerate() {
                    out[8 + 8 * i..16 + 8 * i].copy_from_slice(&w.to_le_bytes());
                }
            }
        }
        out
    }

    /// fio's `init_rand_seed(state, seed, use64)`: the 32-bit generator
    /// takes the low 32 bits of `seed`.
    pub(crate) fn new(seed: u64, use64: bool) -> FioRand {
        if use64 {
            FioRand::T64(Taus258::new(seed))
        } else {
            FioRand::T32(Taus88::new(seed as u32))
        }
    }

    /// fio's `__rand`.
    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        match self {
            FioRand::T32(t) => u64::from(t.next_u32()),
            FioRand::T64(t) => t.next_u64(),
        }
    }

    /// fio's `rand_max`.
    #[inline]
    pub(crate) fn max(&self) -> u64 {
        match self {
            FioRand::T32(_) => u64::from(u32::MAX),
            FioRand::T64(_) => u64::MAX,
        }
    }

    /// `r / (rand_max(state) + 1.0)` for the next `r`: in `[0, 1)`. fio
    /// scales most draws this way (`lastb * frac`).
    #[inline]
    pub(crate) fn frac(&mut self) -> f64 {
        match self {
            FioRand::T32(t) => f64::from(t.next_u32()) / MAX32_PLUS_ONE,
            FioRand::T64(t) => t.next_u64() as f64 / MAX64_PLUS_ONE,
        }
    }

    /// fio's `__rand_0_1`: `(r + 1.0) / (max + 1)`, in `(0, 1]`.
    #[inline]
    pub(crate) fn rand_0_1(&mut self) -> f64 {
        match self {
            FioRand::T32(t) => (f64::from(t.next_u32()) + 1.0) / MAX32_PLUS_ONE,
            FioRand::T64(t) => (t.next_u64() as f64 + 1.0) / MAX64_PLUS_ONE,
        }
    }

    /// fio's `rand_between(state, start, end)`: both ends inclusive.
    #[inline]
    pub(crate) fn between(&mut self, start: u64, end: u64) -> u64 {
        let span = end.wrapping_sub(start);
        match self {
            FioRand::T32(t) => {
                let r = t.next_u32();
                let end = (span as u32).wrapping_add(1);
                // (int) ((double)end * (r / FRAND32_MAX_PLUS_ONE))
                let v = (f64::from(end) * (f64::from(r) / MAX32_PLUS_ONE)) as i32;
                start.wrapping_add(u64::from(v as u32))
            }
            FioRand::T64(t) => {
                let r = t.next_u64();
                let end = span.wrapping_add(1);
                start.wrapping_add((end as f64 * (r as f64 / MAX64_PLUS_ONE)) as u64)
            }
        }
    }

    /// fio's `__get_next_seed`: two draws multiplied (on 64-bit hosts).
    #[inline]
    pub(crate) fn next_seed(&mut self) -> u64 {
        let r = self.next_u64();
        r.wrapping_mul(self.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rand::seeds::FIO_RANDSEED;

    /// fio 3.33 `--rw=randread --size=64k --bs=4k --ioengine=null`, job 1:
    /// its first five blocks need no random map, so they are the raw draws.
    #[test]
    fn taus88_with_fio_seed_draws_fios_first_blocks() {
        let mut r = FioRand::new(FIO_RANDSEED, false);
        let blocks: Vec<u64> = (0..5).map(|_| (16.0 * r.frac()) as u64).collect();
        assert_eq!(blocks, [0, 11, 13, 7, 6]);
    }

    #[test]
    fn taus258_with_fio_seed_draws_fios_first_blocks() {
        let mut r = FioRand::new(FIO_RANDSEED, true);
        let blocks: Vec<u64> = (0..3).map(|_| (16.0 * r.frac()) as u64).collect();
        assert_eq!(blocks, [15, 0, 1]);
    }

    #[test]
    fn between_is_inclusive() {
        let mut r = FioRand::new(42, false);
        let mut seen = [false; 100];
        for _ in 0..10_000 {
            let v = r.between(1, 100);
            assert!((1..=100).contains(&v));
            seen[v as usize - 1] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
