//! fio's random numbers: its generators, how it seeds them, its random map
//! and its non-uniform distributions, bit for bit (a leaf: nothing here
//! knows about options or jobs).
//!
//! Everything random a job does (offsets, block sizes, the read/write mix,
//! the next file, the rate process, buffer contents) comes from its own
//! generator, seeded from one slot of a per-job seed table, exactly as fio
//! 3.33 does it. With the same options and the same job number rfio draws
//! the same numbers as fio, so a `randread` job visits its blocks in fio's
//! order (checked against fio's `--write_iolog` in `tests/it/patterns.rs`).
//!
//! - [`FioRand`] (`tausworthe`) is fio's `struct frand_state`
//!   (`lib/rand.[ch]`): the 32-bit combined Tausworthe generator (taus88,
//!   fio's default `random_generator`) or the 64-bit one (taus258,
//!   `random_generator=tausworthe64`).
//! - [`Lfsr`] (`lfsr`) is `random_generator=lfsr` (`lib/lfsr.c`): a
//!   maximal-length LFSR that visits every block once per pass without a
//!   random map.
//! - [`Seeds`] (`seeds`) is `td->rand_seeds[]` (`init.c`
//!   `setup_random_seeds`/`td_fill_rand_seeds`), built from the values the
//!   plan resolved for `randrepeat`, `randseed`, `allrandrepeat` and
//!   `random_generator`.
//! - [`jhash`] and [`hash_u64`] (`hash`) are fio's `hash.h`.
//! - [`Axmap`] (`axmap`) is the random map of `lib/axmap.c`.
//! - [`murmurhash3`] and [`fnv`] (`bloom`) are the other hashes of fio's
//!   bloom filter (`crc/murmur3.c`, `crc/fnv.c`).
//! - [`Zipf`] (`zipf`, zipf and pareto) and [`Gauss`] (`gauss`) are
//!   `lib/zipf.c` and `lib/gauss.c`.
//! - [`Rng`] (`xorshift`) is a small fast generator for rfio's own needs
//!   (not fio's).

mod axmap;
mod bloom;
mod gauss;
mod hash;
mod lfsr;
mod seeds;
mod tausworthe;
mod xorshift;
mod zipf;

pub(crate) use axmap::Axmap;
pub(crate) use bloom::{fnv, murmurhash3};
pub(crate) use gauss::Gauss;
pub(crate) use hash::hash_u64;
pub use hash::jhash;
pub(crate) use lfsr::Lfsr;
pub(crate) use seeds::{Generator, SeedRule, Seeds, Slot, NR_SLOTS_333};
pub(crate) use tausworthe::FioRand;
pub(crate) use xorshift::Rng;
pub use zipf::Zipf;
