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
}
