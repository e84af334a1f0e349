//! The ioengines fio 3.33 (Debian build) can load, and their private options.
//!
//! fio resolves `ioengine=NAME` in two steps, and rfio must keep them apart:
//!
//! * **Parse time** (`--parse-only`, `--showcmd`, job validation): `ioengine`
//!   is a free string. fio checks nothing about the name, so
//!   `ioengine=nosuch` passes `--parse-only` and `--showcmd` with exit 0. The
//!   one exception is the `external:PATH` form: fio's option callback
//!   `stat()`s PATH (blanks stripped) and refuses anything that is not a
//!   regular file, with `fio: invalid external ioengine path "PATH"` then
//!   `fio: failed parsing ioengine=external:PATH` and `fio: job j dropped`
//!   on stderr, exit 1 even under `--parse-only` and `--showcmd` (which has
//!   then already printed `fio --name=j ` to stdout). A relative PATH is
//!   resolved against the current directory. Plain `external` (no colon)
//!   and names like `externalx` are ordinary strings.
//! * **Run time**: the engine is loaded. A name that is neither built in nor
//!   a loadable shared object gives `fio: engine NAME not loadable` and
//!   `fio: failed to load engine` on stderr, exit 1.
//!   `external:PATH` is `dlopen`ed then.
//!
//! [`is_available`] answers the run-time question for the engines built into
//! fio (the [`ENGINES`] list, as the chosen release changes it); it is false
//! for `external:` forms, whose loading depends on a fio plugin rfio cannot
//! load. [`external_path`] gives the path that the parse-time check applies
//! to.
//!
//! # Releases
//! [`ENGINES`] is fio 3.33's list. A later release that adds an engine
//! (fio 3.37's `dircreate`) or removes one (3.34's `pmemblk`) says so in
//! its entry of `release::CHANGES` ([`Change::Engine`],
//! [`Change::EngineRemoved`]); everything here asks the release through
//! those entries, so a new engine of a later release needs no line here.
//! An added engine that shares another's options table (fio's `dirstat`
//! takes `filestat`'s `stat_type`) names it in its entry: its options are
//! the table rows of that engine ([`options_of`]).

use super::def::OptionDef;
use crate::release::{Change, Release, CHANGES};

/// The ioengines of this fio build, exactly as `fio --enghelp` lists them
/// (fio's registration order).
pub static ENGINES: &[&str] = &[
    "cpuio",
    "mmap",
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "null",
    "net",
    "netsplice",
    "ftruncate",
    "filecreate",
    "filestat",
    "filedelete",
    "exec",
    "posixaio",
    "falloc",
    "e4defrag",
    "splice",
    "gfapi",
    "gfapi_async",
    "mtd",
    "sg",
    "io_uring",
    "io_uring_cmd",
    "nbd",
    "libaio",
    "rdma",
    "rados",
    "rbd",
    "pmemblk",
    "dev-dax",
    "libpmem",
];

/// Engines of fio 3.33 that Debian's build lacks but rfio runs, whose
/// options the table holds from fio's source (`scripts/gen-options.py`'s
/// SUPPLEMENT): http (fio needs libcurl for it).
pub static BEYOND_BUILD: &[&str] = &["http"];

/// Whether fio `release` can load the built-in engine `name` (exact,
/// case-sensitive match, as fio's `find_ioengine`), or it is one of fio's
/// that rfio runs where Debian's build lacks it ([`BEYOND_BUILD`]): one of
/// fio 3.33's that the release has not removed, or one a release up to it
/// added. False for `external:PATH`; see the module documentation.
pub(crate) fn is_available(name: &str, release: Release) -> bool {
    let of_3_33 = ENGINES.contains(&name) || BEYOND_BUILD.contains(&name);
    let has = |change: &Change| release.has(*change);
    match release_entry(name) {
        Some(c @ Change::Engine(..)) => has(&c),
        Some(c @ Change::EngineRemoved(_)) => of_3_33 && !has(&c),
        _ => of_3_33,
    }
}

/// The entry of `release::CHANGES` that adds or removes the engine `name`.
fn release_entry(name: &str) -> Option<Change> {
    CHANGES.iter().map(|e| e.change).find(|c| match c {
        Change::Engine(n, _) | Change::EngineRemoved(n) => *n == name,
        _ => false,
    })
}

/// What a release did to the engine `name`, when one added or removed
/// it: `fio 3.37 added it`, `fio 3.34 removed it`.
pub(crate) fn release_note(name: &str) -> Option<String> {
    let change = release_entry(name)?;
    let since = change.since().number();
    Some(match change {
        Change::EngineRemoved(_) => format!("fio {since} removed it"),
        _ => format!("fio {since} added it"),
    })
}

/// The engine whose options table `engine` has (fio's `.options`): its
/// own, or the one its release entry names (`dirstat`: `filestat`'s).
pub(crate) fn options_of(engine: &str) -> &str {
    match release_entry(engine) {
        Some(Change::Engine(_, Some(of))) => of,
        _ => engine,
    }
}

/// The engines fio `release` can load, in fio's order, of `engines` (also
/// in fio's order): the `--enghelp` list.
pub(crate) fn available_of<'a>(
    engines: impl IntoIterator<Item = &'a str>,
    release: Release,
) -> impl Iterator<Item = &'a str> {
    engines
        .into_iter()
        .filter(move |e| is_available(e, release))
}

/// The PATH of an `ioengine=external:PATH` value, as fio checks it at parse
/// time (text after the first `:`, blanks around it stripped); `None` for any
/// other value, including a bare `external`.
pub(crate) fn external_path(value: &str) -> Option<&str> {
    value.strip_prefix("external:").map(str::trim)
}

/// The private options of `engine`, in fio's table order for that engine
/// (the order of `fio --enghelp=ENGINE`, before children are moved under
/// their parent). Empty for engines without options and unknown names.
pub(crate) fn engine_options(
    release: Release,
    engine: &str,
) -> impl Iterator<Item = &'static OptionDef> + '_ {
    let table = options_of(engine);
    super::table_of(release)
        .iter()
        .filter(move |o| o.engines.contains(&table))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_engines_are_available_and_nothing_else() {
        let v33 = |name: &str| is_available(name, Release::V3_33);
        assert!(v33("psync"));
        assert!(v33("io_uring_cmd"));
        assert!(!v33("PSYNC"));
        assert!(!v33("external:/usr/lib/x.so"));
        assert!(v33("http"), "fio 3.33's, which rfio runs");
        assert!(!v33("libblkio"));
    }

    /// 3.34 removed pmemblk: 3.33 has it, 3.34 on do not.
    #[test]
    fn a_removed_engine_is_unknown_from_its_release_on() {
        assert!(is_available("pmemblk", Release::V3_33));
        for r in [Release::V3_34, Release::V3_37, Release::V3_42] {
            assert!(!is_available("pmemblk", r), "{r}");
            assert!(is_available("psync", r), "{r}");
        }
    }

    #[test]
    fn engines_list_in_fio_order_as_the_release_has_them() {
        let list = |r| available_of(ENGINES.iter().copied(), r).collect::<Vec<_>>();
        assert!(list(Release::V3_33).contains(&"pmemblk"));
        assert!(!list(Release::V3_42).contains(&"pmemblk"));
        assert_eq!(list(Release::V3_33).len(), ENGINES.len());
        assert_eq!(options_of("psync"), "psync");
    }

    #[test]
    fn external_path_follows_fio() {
        assert_eq!(external_path("external:/a/b.so"), Some("/a/b.so"));
        assert_eq!(external_path("external: x.so "), Some("x.so"));
        assert_eq!(external_path("external:/a:b"), Some("/a:b"));
        assert_eq!(external_path("external"), None);
        assert_eq!(external_path("externalx:/a"), None);
    }

    #[test]
    fn every_engine_option_names_a_listed_engine() {
        for o in crate::options::table::OPTIONS
            .iter()
            .filter(|o| o.is_engine_option())
        {
            for e in o.engines {
                assert!(
                    is_available(e, Release::V3_33),
                    "{} names unknown engine {e}",
                    o.name
                );
            }
        }
    }

    #[test]
    fn engine_options_keep_fio_order() {
        let names: Vec<_> = engine_options(Release::V3_33, "libaio")
            .map(|o| o.name)
            .collect();
        assert_eq!(
            names,
            [
                "userspace_reap",
                "cmdprio_percentage",
                "cmdprio_class",
                "cmdprio",
                "cmdprio_bssplit",
                "nowait"
            ]
        );
        assert_eq!(engine_options(Release::V3_33, "sync").count(), 0);
    }
}
