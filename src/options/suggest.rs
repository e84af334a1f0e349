//! fio's "Did you mean X?" for misspelt option names.
//!
//! fio 3.33 measures the Levenshtein distance ([`string_distance`], parse.c)
//! from the misspelt name to every candidate, keeps the *first* candidate
//! with the smallest distance, and prints it only when the distance is at
//! most half the typed name's length, rounded up ([`string_distance_ok`]:
//! `distance <= (len + 1) / 2`). Both count bytes. What differs between a
//! job file and the command line is what is typed and which candidates take
//! part:
//!
//! * **Job file** (`show_closest_option` in options.c,
//!   [`jobfile_suggestion`]): the typed name is the option text up to its
//!   first `=`, blanks included (`blocksiz  =4k` is measured as
//!   `"blocksiz  "` and gets "lockfile"); nothing when it is empty. The
//!   candidates are the *names* of fio's option table, in table order,
//!   deprecated options included, aliases excluded, then the options of the
//!   built-in profiles (tiobench's, then act's), which is why `blocksiz`
//!   gets "Did you mean block?" (tiobench's `block`) rather than the alias
//!   `blocksize`. Ioengine options never take part.
//! * **Command line** (`show_closest_option` in init.c,
//!   [`cmdline_suggestion`]): the typed name is the whole argument with its
//!   leading dashes removed, value included (`--bocd=1` is measured as
//!   `"bocd=1"` and gets nothing, `--bocd` gets "block"). The candidates are
//!   getopt's long options in order: fio's own command-line options
//!   (`--output`, ..., `--merge-blktrace-only`), then each option of the
//!   table followed by its alias, then the profile options, then, once an
//!   `--ioengine=` with private options has been seen, that engine's options
//!   and aliases.
//!
//! `fio --cmdhelp=NAME` has a third rule of its own (closest option only
//! when the distance is below 3); it lives in [`super::cmdhelp`].

use super::engines::engine_options;
use super::table::OPTIONS;

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

/// The options of fio's built-in profiles, in the order fio appends them to
/// its option table at start-up: tiobench's, then act's. rfio does not
/// implement profiles (`fio --cmdhelp=NAME` does not know these without
/// `--profile=`), but they take part in fio's suggestions.
pub(crate) static PROFILE_OPTIONS: &[&str] = &[
    // --profile=tiobench
    "size",
    "block",
    "numruns",
    "dir",
    "threads",
    // --profile=act
    "device-names",
    "load",
    "test-duration",
    "threads-per-queue",
    "read-req-num-512-blocks",
    "large-block-op-kbytes",
    "prep",
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
/// `candidates`, if [`string_distance_ok`]. `name` is measured as given; see
/// [`jobfile_suggestion`] and [`cmdline_suggestion`] for what fio measures.
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

/// What fio compares a misspelt job-file option with: the table's core
/// option names (deprecated ones too, no aliases), then [`PROFILE_OPTIONS`].
pub(crate) fn jobfile_candidates() -> impl Iterator<Item = &'static str> {
    let core = OPTIONS
        .iter()
        .filter(|o| !o.is_engine_option())
        .map(|o| o.name);
    core.chain(PROFILE_OPTIONS.iter().copied())
}

/// fio's suggestion for an unknown job-file option: `option_text` is the
/// line as written (`blocksiz=4k`); fio measures the part before the first
/// `=`, trailing blanks included.
pub(crate) fn jobfile_suggestion(option_text: &str) -> Option<&'static str> {
    let name = option_text.split('=').next().unwrap_or_default();
    if name.is_empty() {
        return None;
    }
    did_you_mean(name, jobfile_candidates())
}

/// What fio compares an unknown command-line argument with: getopt's long
/// options (see the module documentation). `engine` is the ioengine of the
/// last `--ioengine=` seen so far, if any.
pub(crate) fn cmdline_candidates(engine: Option<&str>) -> impl Iterator<Item = &'static str> + '_ {
    let with_aliases = |o: &'static super::def::OptionDef| {
        std::iter::once(o.name).chain(o.aliases.iter().copied())
    };
    let core = OPTIONS
        .iter()
        .filter(|o| !o.is_engine_option())
        .flat_map(with_aliases);
    let engine = engine
        .into_iter()
        .flat_map(engine_options)
        .flat_map(with_aliases);
    FIO_COMMAND_LINE_OPTIONS
        .iter()
        .copied()
        .chain(core)
        .chain(PROFILE_OPTIONS.iter().copied())
        .chain(engine)
}

/// fio's suggestion for an unrecognized command-line argument `arg` (as in
/// argv: `--bocd=1`); fio measures it without its leading dashes, value
/// included.
pub(crate) fn cmdline_suggestion(arg: &str, engine: Option<&str>) -> Option<&'static str> {
    did_you_mean(arg.trim_start_matches('-'), cmdline_candidates(engine))
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

    // Each expectation below was observed with fio 3.33.
    #[test]
    fn job_file_suggestions_match_fio() {
        assert_eq!(jobfile_suggestion("blocksiz=4k"), Some("block"));
        assert_eq!(jobfile_suggestion("blocksiz  =4k"), Some("lockfile"));
        assert_eq!(jobfile_suggestion("blocksizf=1"), Some("lockfile"));
        assert_eq!(jobfile_suggestion("verifysor=1"), Some("verifysort"));
        assert_eq!(jobfile_suggestion("threadz=1"), Some("thread"));
        assert_eq!(jobfile_suggestion("numrunz=1"), Some("numruns"));
        assert_eq!(jobfile_suggestion("bocd=1"), Some("block"));
        assert_eq!(jobfile_suggestion("diep=1"), Some("dir"));
        assert_eq!(jobfile_suggestion("hipri=1"), Some("prio"));
        assert_eq!(
            jobfile_suggestion("thinktime_spinnnn=4k"),
            Some("thinktime_spin")
        );
        assert_eq!(jobfile_suggestion("timeoutt=1"), None);
        assert_eq!(jobfile_suggestion("outputt=1"), None);
        assert_eq!(jobfile_suggestion("=1"), None);
    }

    #[test]
    fn command_line_suggestions_match_fio() {
        assert_eq!(cmdline_suggestion("--blocksizf=1", None), Some("blocksize"));
        assert_eq!(cmdline_suggestion("--outputt=1", None), Some("output"));
        assert_eq!(cmdline_suggestion("--numrunz=1", None), Some("numruns"));
        assert_eq!(cmdline_suggestion("--timeoutt=1", None), Some("timeout"));
        assert_eq!(cmdline_suggestion("--hipri=1", None), Some("prio"));
        assert_eq!(cmdline_suggestion("--bocd=1", None), None);
        assert_eq!(cmdline_suggestion("---bocd", None), Some("block"));
        assert_eq!(cmdline_suggestion("--numrunz=12345678", None), None);
        assert_eq!(cmdline_suggestion("--userspace_reaq", None), None);
        assert_eq!(
            cmdline_suggestion("--userspace_reaq", Some("libaio")),
            Some("userspace_reap")
        );
        assert_eq!(cmdline_suggestion("--userspace_reaq", Some("sync")), None);
        assert_eq!(
            cmdline_suggestion("--protp=tcp", Some("net")),
            Some("protocol")
        );
    }
}
