//! How a job's random generators are seeded: `randrepeat`, `randseed`,
//! `allrandrepeat` and `random_generator` (fio's `init.c`
//! `setup_random_seeds`); each job's seed table is drawn from them with
//! its job number ([`crate::rand::Seeds`]).

use super::read::Opts;
use crate::rand::{Generator, SeedRule, Seeds};
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
}

impl SeedOptions {
    /// The seed table of job number `thread_number` (1-based).
    pub(crate) fn seeds(&self, thread_number: u32) -> Seeds {
        Seeds::new(
            thread_number,
            self.randrepeat,
            self.randseed,
            self.allrandrepeat,
            self.generator,
            self.rule,
        )
    }
}

/// The seeding options of `o`, as `release` reads them.
pub(super) fn resolve(o: Opts<'_>, release: Release) -> SeedOptions {
    // From 3.35 `allrandrepeat` is read as `randrepeat` (`Release::canonical`).
    let from_randseed = release.has(Change::SeedsFromRandseed);
    SeedOptions {
        randrepeat: o.flag("randrepeat") != Some(false),
        randseed: o.int("randseed").map(|n| n as u64),
        allrandrepeat: o.is("allrandrepeat"),
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
