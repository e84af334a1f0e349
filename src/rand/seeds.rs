//! A job's seed table, as fio fills it (`init.c` `setup_random_seeds`,
//! `td_fill_rand_seeds`), from the values the plan resolved for
//! `randrepeat`, `randseed`, `allrandrepeat` and `random_generator`, by
//! the rule of the fio release ([`SeedRule`]).

use super::tausworthe::FioRand;
use super::xorshift::Rng;

/// fio's `FIO_RANDSEED`: with `randrepeat=1` (the default) the offset
/// generator of job *n* is seeded with `FIO_RANDSEED * n`, whatever
/// `randseed` says (fio 3.33 behaviour).
pub(crate) const FIO_RANDSEED: u64 = 0xb189_9bed;

/// The multiplier fio's `setup_random_seeds` steps the seed with.
const SEED_STEP: u64 = 0x9e37_0001;

/// `random_generator=`: which generator draws random offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Generator {
    /// The 32-bit combined Tausworthe generator (fio's default).
    Tausworthe,
    /// A maximal-length LFSR: every block once per pass, no random map.
    Lfsr,
    /// The 64-bit combined Tausworthe generator.
    Tausworthe64,
}

impl Generator {
    /// Whether fio seeds its generators in 64-bit mode (`use64`).
    pub(crate) fn use64(self) -> bool {
        self == Generator::Tausworthe64
    }
}

/// How a release fills the seed table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum SeedRule {
    /// fio 3.33 and 3.34: `allrandrepeat=1` seeds every slot from
    /// `FIO_RANDSEED`, and with `randrepeat=1` the offset slot is
    /// `FIO_RANDSEED * thread_number` whatever `randseed` says.
    #[default]
    Fio333,
    /// fio 3.35 on ("init: clean up random seed options"): every slot
    /// comes from `randseed` (default 0x89), offsets included;
    /// `allrandrepeat` is an alias of `randrepeat`; a non-uniform
    /// distribution's seed takes the file's name and the offset slot.
    FromRandseed,
}

/// The slots of fio 3.33's `td->rand_seeds[]` (`FIO_RAND_*_OFF`), in fio's
/// order: the slot index is part of the seed. (Some slots seed nothing
/// rfio runs yet; they stay so that every later slot keeps fio's index.)
#[allow(dead_code)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
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
    /// From fio 3.36 (`fdp_pli_select=random`).
    Fdp,
    /// From fio 3.41 (`sprandom`).
    Sprandom,
}

/// Number of seed slots in fio 3.33 (`FIO_RAND_NR_OFFS`); 3.36 adds
/// [`Slot::Fdp`], 3.41 [`Slot::Sprandom`].
pub(crate) const NR_SLOTS_333: usize = 21;

/// Number of seed slots rfio fills: fio 3.41's. A slot's seed does not
/// depend on how many follow it, so every release's table is a prefix.
pub(crate) const NR_SLOTS: usize = 23;

/// A job's seed table (`td->rand_seeds[]` after `td_fill_rand_seeds`).
///
/// fio 3.33 rules ([`SeedRule::Fio333`]), all checked against fio's
/// iolog (fio 3.35 on keeps the first two only, [`SeedRule::FromRandseed`]):
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
    pub(crate) repeatable: bool,
    pub(crate) generator: Generator,
    pub(crate) thread_number: u32,
    /// The release's rule the table was filled by.
    pub(crate) rule: SeedRule,
    /// `random_generator` was set (fio's `fio_option_is_set`): a file too
    /// big for the 32-bit generator does not switch it.
    pub(crate) generator_set: bool,
    /// The switch to tausworthe64 re-seeds the offset generator at once
    /// (fio 3.42); before, it took effect only when a later loop re-seeded.
    pub(crate) switch_reseeds: bool,
    /// How many seeds `--debug=random` lists (the release's
    /// `FIO_RAND_NR_OFFS`, 3.35 on), 0 for none.
    pub(crate) listed: usize,
    /// The seeds came from the system's random source.
    pub(crate) from_system: bool,
}

impl Seeds {
    /// fio's seeding for job number `thread_number` (1-based), from the
    /// job's `randrepeat`, `randseed` (when set), `allrandrepeat` and
    /// `random_generator`, by `rule`.
    pub(crate) fn new(
        thread_number: u32,
        randrepeat: bool,
        randseed: Option<u64>,
        allrandrepeat: bool,
        generator: Generator,
        rule: SeedRule,
    ) -> Seeds {
        let tn = u64::from(thread_number);
        let mut slots = [0u64; NR_SLOTS];
        let from_system = !randrepeat && randseed.is_none();
        if from_system {
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
        if rule == SeedRule::Fio333 {
            if allrandrepeat {
                for (i, slot) in slots.iter_mut().enumerate() {
                    *slot = FIO_RANDSEED.wrapping_mul(tn).wrapping_add(i as u64);
                }
            }
            if randrepeat {
                slots[Slot::Block as usize] = FIO_RANDSEED.wrapping_mul(tn);
            }
        }
        Seeds {
            slots,
            repeatable: randrepeat,
            generator,
            thread_number,
            rule,
            generator_set: false,
            switch_reseeds: false,
            listed: 0,
            from_system,
        }
    }

    /// The seeds `--debug=random` lists.
    pub(crate) fn listed(&self) -> &[u64] {
        &self.slots[..self.listed.min(NR_SLOTS)]
    }

    /// The seed in `slot`.
    pub(crate) fn get(&self, slot: Slot) -> u64 {
        self.slots[slot as usize]
    }

    /// A generator seeded from `slot`, 64-bit when `use64`.
    pub(crate) fn rand(&self, slot: Slot, use64: bool) -> FioRand {
        FioRand::new(self.get(slot), use64)
    }

    /// A generator seeded from `slot`, 64-bit when the job uses
    /// `random_generator=tausworthe64` (fio's `use64` states).
    pub(crate) fn rand_job(&self, slot: Slot) -> FioRand {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_follow_fio_rules() {
        let s = Seeds::new(
            1,
            true,
            None,
            false,
            Generator::Tausworthe,
            SeedRule::Fio333,
        );
        assert_eq!(s.get(Slot::Block), FIO_RANDSEED);
        let s2 = Seeds::new(
            2,
            true,
            Some(1234),
            false,
            Generator::Tausworthe,
            SeedRule::Fio333,
        );
        assert_eq!(s2.get(Slot::Block), FIO_RANDSEED * 2);
        let s3 = Seeds::new(
            1,
            false,
            Some(1234),
            false,
            Generator::Tausworthe,
            SeedRule::Fio333,
        );
        let mut seed = 1234u64;
        for _ in 0..4 {
            seed = seed.wrapping_mul(SEED_STEP);
        }
        for _ in 0..6 {
            seed = seed.wrapping_mul(SEED_STEP);
        }
        assert_eq!(s3.get(Slot::Block), seed + 6);
        let s4 = Seeds::new(
            3,
            false,
            None,
            true,
            Generator::Tausworthe,
            SeedRule::Fio333,
        );
        assert_eq!(s4.get(Slot::Mix), FIO_RANDSEED * 3 + 4);
    }

    #[test]
    fn from_3_35_every_slot_comes_from_randseed() {
        let rule = SeedRule::FromRandseed;
        let slot = |seed: u64, tn: u64, i: u32| {
            let mut s = seed;
            for _ in 0..4 + i {
                s = s.wrapping_mul(SEED_STEP);
            }
            s.wrapping_mul(tn) + u64::from(i)
        };
        let s = Seeds::new(1, true, None, false, Generator::Tausworthe, rule);
        assert_eq!(s.get(Slot::Block), slot(0x89, 1, 6));
        let s = Seeds::new(2, true, Some(1234), false, Generator::Tausworthe, rule);
        assert_eq!(s.get(Slot::Block), slot(1234, 2, 6));
        // allrandrepeat is randrepeat's alias: the plan folds it in.
        let s = Seeds::new(3, true, None, true, Generator::Tausworthe, rule);
        assert_eq!(s.get(Slot::Mix), slot(0x89, 3, 4));
    }
}
