//! fio's "Did you mean X?" for misspelt option names.
//!
//! fio 3.33 measures the Levenshtein distance ([`string_distance`], parse.c)
//! from the misspelt name to every candidate, keeps the *first* candidate
//! with the smallest distance, and prints it only when the distance is at
//! most half the typed name's length, rounded up ([`string_distance_ok`]:
//! `distance <= (len + 1) / 2`). Both count bytes. rfio's own "did you
//! mean" for an unknown job option (`super::jobopts`) and command-line
//! argument (`crate::cli::args`) use [`did_you_mean`] with the candidates
//! each has; [`FIO_COMMAND_LINE_OPTIONS`] are fio's own command-line
//! options, which a job file cannot set.
//!
//! `fio --cmdhelp=NAME` has a third rule of its own (closest option only
//! when the distance is below 3); it lives in [`super::cmdhelp`].

use super::def::{FioType, OptionDef};
use super::{profiles, table};
use crate::release::Release;

/// fio's built-in command-line options, in the order of `l_opts` in fio
/// 3.33's init.c (before the job options are appended).
pub(crate) static FIO_COMMAND_LINE_OPTIONS: &[&str] = &[
    "output",
    "latency-log",
    "bandwidth-log",
    "minimal",
    "output-format",
    "append-terse",
    "version",
    "help",
    "cmdhelp",
    "enghelp",
    "showcmd",
    "readonly",
    "eta",
    "eta-interval",
    "eta-newline",
    "debug",
    "parse-only",
    "section",
    "inflate-log",
    "alloc-size",
    "profile",
    "warnings-fatal",
    "max-jobs",
    "terse-version",
    "server",
    "daemonize",
    "client",
    "remote-config",
    "cpuclock-test",
    "crctest",
    "memcpytest",
    "idle-prof",
    "status-interval",
    "trigger-file",
    "trigger-timeout",
    "trigger",
    "trigger-remote",
    "aux-path",
    "merge-blktrace-only",
];

/// fio's `string_distance`: the Levenshtein distance between `s1` and `s2`,
/// counted in bytes.
pub(crate) fn string_distance(s1: &str, s2: &str) -> usize {
    let (a, b) = (s1.as_bytes(), s2.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = (prev[j + 1] + 1).min(cur[j] + 1).min(sub);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// fio's `string_distance_ok`: whether a candidate at `distance` from the
/// typed `opt` is close enough to suggest (`distance <= (len + 1) / 2`).
pub(crate) fn string_distance_ok(opt: &str, distance: usize) -> bool {
    distance <= opt.len().div_ceil(2)
}

/// The candidate fio would suggest for `name`: the first of the closest
/// `candidates`, if [`string_distance_ok`]. `name` is measured as given.
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let d = string_distance(name, c);
        if !matches!(best, Some((bd, _)) if bd <= d) {
            best = Some((d, c));
        }
    }
    best.filter(|&(d, _)| string_distance_ok(name, d))
        .map(|(_, c)| c)
}

/// Whether `release` knows option (or alias) `name` (a later release's is
/// unknown before it).
fn release_knows(name: &str, release: Release) -> bool {
    Release::option_added(name).is_none_or(|e| release.has(e.change))
}

/// fio's `fio_options` as `release` has them: the core options of the
/// table, then the profiles' (fio adds those as it starts).
fn fio_options(release: Release) -> impl Iterator<Item = &'static OptionDef> {
    let core = table::OPTIONS.iter().filter(|d| !d.is_engine_option());
    core.chain(profiles::PROFILE_OPTIONS)
        .filter(move |d| release_knows(d.name, release))
}

/// fio's long options (`l_opts` once fio has started, before an
/// `--ioengine` adds its engine's): its own flags, then each option of
/// `fio_options` followed by its aliases.
pub(crate) fn fio_long_options(release: Release, loaded: Option<&str>) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = FIO_COMMAND_LINE_OPTIONS.to_vec();
    for def in fio_options(release) {
        names.push(def.name);
        let aliases = def.aliases.iter().copied();
        names.extend(aliases.filter(|a| release_knows(a, release)));
    }
    // Then the loaded engine's, as fio appends them to its long options.
    for def in engine_options(release, loaded) {
        names.push(def.name);
        names.extend(def.aliases.iter().copied());
    }
    names
}

/// The options of ioengine `engine` in `release`'s table, in its order
/// (none without an engine).
pub(crate) fn engine_options(
    release: Release,
    engine: Option<&str>,
) -> impl Iterator<Item = &'static OptionDef> + '_ {
    let table = crate::options::table_of(release);
    table
        .iter()
        .filter(move |d| engine.is_some_and(|e| d.engines.contains(&e)))
}

/// What fio suggests after refusing command-line argument `arg` (init.c's
/// `show_closest_option`): the argument without its leading dashes, value
/// and all (`iodpeth=4`), measured against every long option.
pub(crate) fn fio_closest_long_option(
    arg: &str,
    release: Release,
    loaded: Option<&str>,
) -> Option<&'static str> {
    let name = arg.trim_start_matches('-');
    did_you_mean(name, fio_long_options(release, loaded).into_iter())
}

/// What fio suggests after `Bad option <entry>` in a job file (options.c's
/// `show_closest_option`): the name before any `=`, measured against the
/// names (not the aliases) of `fio_options`; nothing for an empty entry,
/// nor when the closest is an option fio no longer supports.
pub(crate) fn fio_closest_job_option(entry: &str, release: Release) -> Option<&'static str> {
    if entry.is_empty() {
        return None;
    }
    let name = entry.split('=').next().unwrap_or("");
    let mut best: Option<(usize, &'static OptionDef)> = None;
    for def in fio_options(release) {
        let d = string_distance(name, def.name);
        if !matches!(best, Some((bd, _)) if bd <= d) {
            best = Some((d, def));
        }
    }
    best.filter(|&(d, def)| string_distance_ok(name, d) && def.fio_type != FioType::Unsupported)
        .map(|(_, def)| def.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_levenshtein() {
        assert_eq!(string_distance("", ""), 0);
        assert_eq!(string_distance("abc", ""), 3);
        assert_eq!(string_distance("", "abc"), 3);
        assert_eq!(string_distance("kitten", "sitting"), 3);
        assert_eq!(string_distance("iodept", "iodepth"), 1);
        assert_eq!(string_distance("bocd", "block"), 2);
    }

    #[test]
    fn half_the_typed_length_rounded_up() {
        assert!(string_distance_ok("abcd", 2));
        assert!(!string_distance_ok("abcd", 3));
        assert!(string_distance_ok("abcde", 3));
        assert!(!string_distance_ok("", 1));
    }

    #[test]
    fn first_of_the_closest_wins() {
        let c = ["bb", "ab", "ba"];
        assert_eq!(did_you_mean("aa", c.iter().copied()), Some("ab"));
        assert_eq!(did_you_mean("zzzz", c.iter().copied()), None);
        assert_eq!(did_you_mean("x", std::iter::empty()), None);
    }

    /// `fio --iodpeth=4` and `fio --iodpeth=4096` (fio 3.33 and 3.42):
    /// "Did you mean iodepth?" after the first only (the value counts).
    #[test]
    fn fio_measures_the_whole_argument() {
        let r = Release::V3_33;
        assert_eq!(
            fio_closest_long_option("--iodpeth=4", r, None),
            Some("iodepth")
        );
        assert_eq!(fio_closest_long_option("--iodpeth=4096", r, None), None);
        assert_eq!(fio_closest_long_option("--sect", r, None), None);
        assert_eq!(fio_closest_long_option("--outpu", r, None), Some("output"));
    }

    /// `Bad option <iodpeth=4>` / `Did you mean iodepth?`; `=4` gets none.
    #[test]
    fn fio_measures_a_job_files_name_only() {
        let r = Release::V3_33;
        assert_eq!(fio_closest_job_option("iodpeth=4096", r), Some("iodepth"));
        assert_eq!(fio_closest_job_option("xyzzy=1", r), None);
        assert_eq!(fio_closest_job_option("=4", r), None);
        assert_eq!(fio_closest_job_option("\u{1}bs=4k", r), Some("bs"));
    }
}
