//! fio's random number generators and how fio seeds them.
//!
//! Everything random a job does (offsets, block sizes, the read/write mix,
//! the next file, the rate process, buffer contents) comes from its own
//! generator, seeded from one slot of a per-job seed table, exactly as fio
//! 3.33 does it (`lib/rand.[ch]`, `lib/lfsr.c`, `init.c`
//! `setup_random_seeds`/`td_fill_rand_seeds`). With the same options and the
//! same job number rfio draws the same numbers as fio, so a `randread` job
//! visits its blocks in fio's order (checked against fio's `--write_iolog`
//! in `tests/patterns.rs`).
//!
//! - [`FioRand`] is fio's `struct frand_state`: the 32-bit combined
//!   Tausworthe generator (taus88, fio's default `random_generator`) or the
//!   64-bit one (taus258, `random_generator=tausworthe64`).
//! - [`Lfsr`] is `random_generator=lfsr`: a maximal-length LFSR that visits
//!   every block once per pass without a random map.
//! - [`Seeds`] is `td->rand_seeds[]` with fio's `randrepeat`, `randseed` and
//!   `allrandrepeat` rules.
//! - [`Rng`] is a small fast generator for rfio's own needs (not fio's).

use crate::options::{lookup, Value};
use crate::plan::spec::JobSpec;

/// fio's `FIO_RANDSEED`: with `randrepeat=1` (the default) the offset
/// generator of job *n* is seeded with `FIO_RANDSEED * n`, whatever
/// `randseed` says (fio 3.33 behaviour).
pub const FIO_RANDSEED: u64 = 0xb189_9bed;

/// fio's `GOLDEN_RATIO_64` (`hash.h`), used by `__hash_u64`.
pub const GOLDEN_RATIO_64: u64 = 0x61c8_8646_80b5_83eb;

/// fio's `GOLDEN_RATIO_32`, `jhash`'s initial value.
pub const GOLDEN_RATIO_32: u32 = 0x61c8_8647;

/// The multiplier fio's `setup_random_seeds` steps the seed with.
const SEED_STEP: u64 = 0x9e37_0001;

/// fio's `__hash_u64`: a multiplicative hash.
#[inline]
pub fn hash_u64(v: u64) -> u64 {
    v.wrapping_mul(GOLDEN_RATIO_64)
}

/// fio's `jhash` (Bob Jenkins' lookup3 as in `hash.h`, with fio's
/// `JHASH_INITVAL` = `GOLDEN_RATIO_32`).
/// fio seeds the zipf/pareto/normal offset distributions with the hash of
/// the file name.
pub fn jhash(key: &[u8], initval: u32) -> u32 {
    let mut a: u32 = GOLDEN_RATIO_32
        .wrapping_add(key.len() as u32)
        .wrapping_add(initval);
    let mut b = a;
    let mut c = a;
    let mut k = key;
    // fio adds single bytes here (not little-endian words): `a += *k`.
    while k.len() > 12 {
        a = a.wrapping_add(u32::from(k[0]));
        b = b.wrapping_add(u32::from(k[4]));
        c = c.wrapping_add(u32::from(k[8]));
        (a, b, c) = jhash_mix(a, b, c);
        k = &k[12..];
    }
    let byte = |i: usize, shift: u32| u32::from(k[i]) << shift;
    let n = k.len();
    if n == 0 {
        return c;
    }
    if n >= 12 {
        c = c.wrapping_add(byte(11, 24));
    }
    if n >= 11 {
        c = c.wrapping_add(byte(10, 16));
    }
    if n >= 10 {
        c = c.wrapping_add(byte(9, 8));
    }
    if n >= 9 {
        c = c.wrapping_add(byte(8, 0));
    }
    if n >= 8 {
        b = b.wrapping_add(byte(7, 24));
    }
    if n >= 7 {
        b = b.wrapping_add(byte(6, 16));
    }
    if n >= 6 {
        b = b.wrapping_add(byte(5, 8));
    }
    if n >= 5 {
        b = b.wrapping_add(byte(4, 0));
    }
    if n >= 4 {
        a = a.wrapping_add(byte(3, 24));
    }
    if n >= 3 {
        a = a.wrapping_add(byte(2, 16));
    }
    if n >= 2 {
        a = a.wrapping_add(byte(1, 8));
    }
    a = a.wrapping_add(byte(0, 0));
    jhash_final(a, b, c)
}

fn jhash_mix(mut a: u32, mut b: u32, mut c: u32) -> (u32, u32, u32) {
    a = a.wrapping_sub(c);
    a ^= c.rotate_left(4);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a);
    b ^= a.rotate_left(6);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b);
    c ^= b.rotate_left(8);
    b = b.wrapping_add(a);
    a = a.wrapping_sub(c);
    a ^= c.rotate_left(16);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a);
    b ^= a.rotate_left(19);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b);
    c ^= b.rotate_left(4);
    b = b.wrapping_add(a);
    (a, b, c)
}

fn jhash_final(mut a: u32, mut b: u32, mut c: u32) -> u32 {
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(14));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(16));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(4));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(14));
    c ^= b;
    c.wrapping_sub(b.rotate_left(24))
}

/// `random_generator=`: which generator draws random offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generator {
    /// The 32-bit combined Tausworthe generator (fio's default).
    Tausworthe,
    /// A maximal-length LFSR: every block once per pass, no random map.
    Lfsr,
    /// The 64-bit combined Tausworthe generator.
    Tausworthe64,
}

impl Generator {
    /// The generator set by `random_generator=` (default tausworthe).
    pub fn of(spec: &JobSpec) -> Generator {
        match choice(spec, "random_generator") {
            Some("lfsr") => Generator::Lfsr,
            Some("tausworthe64") => Generator::Tausworthe64,
            _ => Generator::Tausworthe,
        }
    }

    /// Whether fio seeds its generators in 64-bit mode (`use64`).
    pub fn use64(self) -> bool {
        self == Generator::Tausworthe64
    }
}

/// The slots of fio 3.33's `td->rand_seeds[]` (`FIO_RAND_*_OFF`), in fio's
/// order: the slot index is part of the seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    BsRead = 0,
    BsWrite,
    BsTrim,
    Verify,
    Mix,
    File,
    Block,
    FileSize,
    Trim,
    Buf,
    SeqRandRead,
    SeqRandWrite,
    SeqRandTrim,
    StartDelay,
    Dedupe,
    Poisson,
    Zone,
    Poisson2,
    Poisson3,
    PrioCmds,
    DedupeWorkingSet,
}

/// Number of seed slots in fio 3.33 (`FIO_RAND_NR_OFFS`).
pub const NR_SLOTS: usize = 21;

/// A job's seed table (`td->rand_seeds[]` after `td_fill_rand_seeds`).
///
/// fio 3.33 rules, all checked against fio's iolog:
/// - `randrepeat=1` (default) or `randseed=` set: slot *i* is
///   `s_i * thread_number + i`, where `s_0 = randseed * 0x9e370001^4` and
///   each slot multiplies `s` by `0x9e370001` again (`randseed` defaults to
///   `0x89`);
/// - otherwise the slots come from the system's random source;
/// - `allrandrepeat=1` then sets slot *i* to `FIO_RANDSEED * thread_number + i`;
/// - finally, with `randrepeat=1` the offset slot ([`Slot::Block`]) is
///   `FIO_RANDSEED * thread_number`, so `randseed` does not change random
///   offsets unless `randrepeat=0` (a fio 3.33 quirk kept for identical
///   offsets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seeds {
    slots: [u64; NR_SLOTS],
    /// `randrepeat`: re-seed every generator at the start of each loop.
    pub repeatable: bool,
    pub generator: Generator,
    pub thread_number: u32,
}

impl Seeds {
    /// The seeds of job `spec` as fio computes them.
    pub fn for_job(spec: &JobSpec) -> Seeds {
        let randrepeat = !matches!(spec.opt("randrepeat"), Some(Value::Bool(false)));
        let randseed = match spec.opt("randseed") {
            Some(Value::Int(n)) => Some(*n as u64),
            Some(Value::Bytes(n)) => Some(*n),
            _ => None,
        };
        let allrandrepeat = matches!(spec.opt("allrandrepeat"), Some(Value::Bool(true)));
        Seeds::new(
            spec.thread_number,
            randrepeat,
            randseed,
            allrandrepeat,
            Generator::of(spec),
        )
    }

    /// fio's seeding for job number `thread_number` (1-based).
    pub fn new(
        thread_number: u32,
        randrepeat: bool,
        randseed: Option<u64>,
        allrandrepeat: bool,
        generator: Generator,
    ) -> Seeds {
        let tn = u64::from(thread_number);
        let mut slots = [0u64; NR_SLOTS];
        if !randrepeat && randseed.is_none() {
            os_random(&mut slots);
        } else {
            let mut seed = randseed.unwrap_or(0x89);
            for _ in 0..4 {
                seed = seed.wrapping_mul(SEED_STEP);
            }
            for (i, slot) in slots.iter_mut().enumerate() {
                *slot = seed.wrapping_mul(tn).wrapping_add(i as u64);
                seed = seed.wrapping_mul(SEED_STEP);
            }
        }
        if allrandrepeat {
            for (i, slot) in slots.iter_mut().enumerate() {
                *slot = FIO_RANDSEED.wrapping_mul(tn).wrapping_add(i as u64);
            }
        }
        if randrepeat {
            slots[Slot::Block as usize] = FIO_RANDSEED.wrapping_mul(tn);
        }
        Seeds {
            slots,
            repeatable: randrepeat,
            generator,
            thread_number,
        }
    }

    /// The seed in `slot`.
    pub fn get(&self, slot: Slot) -> u64 {
        self.slots[slot as usize]
    }

    /// A generator seeded from `slot`, 64-bit when `use64`.
    pub fn rand(&self, slot: Slot, use64: bool) -> FioRand {
        FioRand::new(self.get(slot), use64)
    }

    /// A generator seeded from `slot`, 64-bit when the job uses
    /// `random_generator=tausworthe64` (fio's `use64` states).
    pub fn rand_job(&self, slot: Slot) -> FioRand {
        self.rand(slot, self.generator.use64())
    }
}

/// Fill `slots` from the system's random source (fio's
/// `init_random_seeds`); falls back to the clock if it cannot be read.
fn os_random(slots: &mut [u64; NR_SLOTS]) {
    use std::io::Read;
    let mut bytes = [0u8; NR_SLOTS * 8];
    let ok = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_ok();
    if ok {
        for (slot, chunk) in slots.iter_mut().zip(bytes.chunks_exact(8)) {
            *slot = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        }
    } else {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut r = Rng::new(t ^ u64::from(std::process::id()));
        for slot in slots.iter_mut() {
            *slot = r.next_u64();
        }
    }
}

/// The text of a choice option in force, if set (`posvals[index]`).
pub(crate) fn choice(spec: &JobSpec, name: &str) -> Option<&'static str> {
    match spec.opt(name)? {
        Value::Choice { index, .. } => lookup(name)?.posvals.get(*index).map(|p| p.value),
        _ => None,
    }
}

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
    pub fn new(seed: u32) -> Taus88 {
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
    pub fn next_u32(&mut self) -> u32 {
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
    pub fn new(seed: u64) -> Taus258 {
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
    pub fn next_u64(&mut self) -> u64 {
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
    /// fio's `init_rand_seed(state, seed, use64)`: the 32-bit generator
    /// takes the low 32 bits of `seed`.
    pub fn new(seed: u64, use64: bool) -> FioRand {
        if use64 {
            FioRand::T64(Taus258::new(seed))
        } else {
            FioRand::T32(Taus88::new(seed as u32))
        }
    }

    /// fio's `__rand`.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        match self {
            FioRand::T32(t) => u64::from(t.next_u32()),
            FioRand::T64(t) => t.next_u64(),
        }
    }

    /// fio's `rand_max`.
    #[inline]
    pub fn max(&self) -> u64 {
        match self {
            FioRand::T32(_) => u64::from(u32::MAX),
            FioRand::T64(_) => u64::MAX,
        }
    }

    /// `r / (rand_max(state) + 1.0)` for the next `r`: in `[0, 1)`. fio
    /// scales most draws this way (`lastb * frac`).
    #[inline]
    pub fn frac(&mut self) -> f64 {
        match self {
            FioRand::T32(t) => f64::from(t.next_u32()) / MAX32_PLUS_ONE,
            FioRand::T64(t) => t.next_u64() as f64 / MAX64_PLUS_ONE,
        }
    }

    /// fio's `__rand_0_1`: `(r + 1.0) / (max + 1)`, in `(0, 1]`.
    #[inline]
    pub fn rand_0_1(&mut self) -> f64 {
        match self {
            FioRand::T32(t) => (f64::from(t.next_u32()) + 1.0) / MAX32_PLUS_ONE,
            FioRand::T64(t) => (t.next_u64() as f64 + 1.0) / MAX64_PLUS_ONE,
        }
    }

    /// fio's `rand_between(state, start, end)`: both ends inclusive.
    #[inline]
    pub fn between(&mut self, start: u64, end: u64) -> u64 {
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
    pub fn next_seed(&mut self) -> u64 {
        let r = self.next_u64();
        r.wrapping_mul(self.next_u64())
    }
}

/// fio's LFSR taps (`lib/lfsr.c`), by register length.
const LFSR_TAPS: [&[u8]; 64] = [
    &[],
    &[],
    &[],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 31, 29, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
];

/// fio's `struct fio_lfsr` (`random_generator=lfsr`, spin 0): returns each
/// of `0..n` exactly once, then reports exhaustion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lfsr {
    xormask: u64,
    cached_bit: u64,
    max_val: u64,
    last_val: u64,
    num_vals: u64,
}

impl Lfsr {
    /// fio's `lfsr_init(fl, n, seed, 0)`; `None` when no register fits or
    /// the seed is the forbidden all-ones state.
    pub fn new(n: u64, seed: u64) -> Option<Lfsr> {
        let len = (3..64).find(|&i| (1u64 << i) > n)?;
        let taps = LFSR_TAPS[len];
        let xormask = taps.iter().fold(0u64, |m, &t| m | 1u64 << (t - 1));
        let cached_bit = 1u64 << (taps[0] - 1);
        let mut l = Lfsr {
            xormask,
            cached_bit,
            max_val: n.saturating_sub(1),
            last_val: 0,
            num_vals: 0,
        };
        l.reset(seed).then_some(l)
    }

    /// fio's `lfsr_reset`; false for the forbidden all-ones state.
    pub fn reset(&mut self, seed: u64) -> bool {
        let bitmask = (self.cached_bit << 1) - 1;
        self.num_vals = 0;
        self.last_val = seed & bitmask;
        self.last_val != bitmask
    }

    /// fio's `lfsr_next`: the next value, `None` once all were returned.
    #[inline]
    pub fn next_value(&mut self) -> Option<u64> {
        let n = self.num_vals;
        self.num_vals += 1;
        if n > self.max_val {
            return None;
        }
        loop {
            let v = self.last_val;
            self.last_val = ((v >> 1) | self.cached_bit) ^ ((v & 1).wrapping_sub(1) & self.xormask);
            if self.last_val <= self.max_val {
                return Some(self.last_val);
            }
        }
    }
}

/// A small deterministic PRNG (xorshift64*) for rfio's own needs where fio
/// compatibility does not matter. Not one of fio's generators.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Never zero: xorshift would stay at zero.
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15 | 1)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            let x = a.below(10);
            assert_eq!(x, b.below(10));
            assert!(x < 10);
        }
    }

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

    /// fio 3.33 `--random_generator=lfsr`, 16 blocks, job 1.
    #[test]
    fn lfsr_visits_fios_order_once() {
        let mut l = Lfsr::new(16, FIO_RANDSEED).unwrap();
        let all: Vec<u64> = std::iter::from_fn(|| l.next_value()).collect();
        assert_eq!(all, [15, 11, 9, 14, 3, 8, 0, 4, 6, 7, 10, 1, 12, 2, 5, 13]);
    }

    #[test]
    fn seeds_follow_fio_rules() {
        let s = Seeds::new(1, true, None, false, Generator::Tausworthe);
        assert_eq!(s.get(Slot::Block), FIO_RANDSEED);
        let s2 = Seeds::new(2, true, Some(1234), false, Generator::Tausworthe);
        assert_eq!(s2.get(Slot::Block), FIO_RANDSEED * 2);
        let s3 = Seeds::new(1, false, Some(1234), false, Generator::Tausworthe);
        let mut seed = 1234u64;
        for _ in 0..4 {
            seed = seed.wrapping_mul(SEED_STEP);
        }
        for _ in 0..6 {
            seed = seed.wrapping_mul(SEED_STEP);
        }
        assert_eq!(s3.get(Slot::Block), seed + 6);
        let s4 = Seeds::new(3, false, None, true, Generator::Tausworthe);
        assert_eq!(s4.get(Slot::Mix), FIO_RANDSEED * 3 + 4);
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

    #[test]
    fn jhash_of_empty_and_known_names() {
        // No bytes: the initial value.
        assert_eq!(jhash(b"", 0), GOLDEN_RATIO_32);
        // Deterministic and order sensitive.
        assert_ne!(jhash(b"x.0.0", 0), jhash(b"x.0.1", 0));
    }
}
