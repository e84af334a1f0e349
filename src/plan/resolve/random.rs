//! How a job's random generators are seeded: `randrepeat`, `randseed`,
//! `allrandrepeat` and `random_generator` (fio's `init.c`
//! `setup_random_seeds`); each job's seed table is drawn from them with
//! its job number ([`crate::rand::Seeds`]).

use super::read::Opts;
use crate::rand::{Generator, SeedRule, Seeds, NR_SLOTS_333};
use crate::release::{Change, Release};

/// The seeding options of a job (shared by its `numjobs` clones, whose
/// job numbers differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SeedOptions {
    /// `randrepeat` (default 1): the same numbers every run and loop.
    pub(crate) randrepeat: bool,
    /// `randseed`, when set.
    pub(crate) randseed: Option<u64>,
    pub(crate) allrandrepeat: bool,
    /// `random_generator` (default tausworthe).
    pub(crate) generator: Generator,
    /// How the release fills the table.
    pub(crate) rule: SeedRule,
    /// `random_generator` was set.
    pub(crate) generator_set: bool,
    /// fio 3.42: the switch to tausworthe64 takes effect at once.
    pub(crate) switch_reseeds: bool,
    /// The release's `FIO_RAND_NR_OFFS` when it lists the seeds under
    /// `--debug=random` (3.35 on), else 0.
    pub(crate) listed: usize,
}

impl SeedOptions {
    /// The seed table of job number `thread_number` (1-based).
    pub(crate) fn seeds(&self, thread_number: u32) -> Seeds {
        let mut s = Seeds::new(
            thread_number,
            self.randrepeat,
            self.randseed,
            self.allrandrepeat,
            self.generator,
            self.rule,
        );
        s.generator_set = self.generator_set;
        s.switch_reseeds = self.switch_reseeds;
        s.listed = self.listed;
        s
    }
}

/// The seeding options of `o`, as `release` reads them.
pub(super) fn resolve(o: Opts<'_>, release: Release) -> SeedOptions {
    // From 3.35 `allrandrepeat` is read as `randrepeat` (`Release::canonical`).
    let from_randseed = release.has(Change::SeedsFromRandseed);
    // The slots 3.36 (fdp) and 3.41 (sprandom) added with their options.
    let added = |name| release.has(Change::Option(name)) as usize;
    let nr_offs = NR_SLOTS_333 + added("fdp_pli_select") + added("sprandom");
    SeedOptions {
        randrepeat: o.flag_or_default("randrepeat"),
        randseed: o.int("randseed").map(|n| n as u64),
        allrandrepeat: o.is("allrandrepeat"),
        generator_set: o.set("random_generator"),
        switch_reseeds: release.has(Change::Tausworthe64Switch),
        listed: if from_randseed { nr_offs } else { 0 },
        generator: match o.choice("random_generator") {
            Some("lfsr") => Generator::Lfsr,
            Some("tausworthe64") => Generator::Tausworthe64,
            _ => Generator::Tausworthe,
        },
        rule: match from_randseed {
            true => SeedRule::FromRandseed,
            false => SeedRule::Fio333,
        },
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::testing::job;
    use crate::rand::{Generator, SeedRule, Seeds};

    #[test]
    fn seeds_from_the_random_options() {
        let s = job(&["--name=x", "--size=1m", "--random_generator=tausworthe64"]).seeds;
        assert_eq!(s.generator, Generator::Tausworthe64);
        assert!(s.repeatable);
        let s = job(&["--name=x", "--size=1m", "--randrepeat=0", "--randseed=7"]).seeds;
        assert_eq!(
            s,
            Seeds::new(
                1,
                false,
                Some(7),
                false,
                Generator::Tausworthe,
                SeedRule::Fio333
            )
        );
        let p = crate::plan::testing::plan(&["--name=x", "--size=1m", "--numjobs=2"]);
        assert_eq!(
            p.jobs[1].seeds,
            Seeds::new(
                2,
                true,
                None,
                false,
                Generator::Tausworthe,
                SeedRule::Fio333
            )
        );
    }
}
