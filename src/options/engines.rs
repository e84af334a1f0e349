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
//! fio (the [`ENGINES`] list); it is false for `external:` forms, whose
//! loading depends on a fio plugin rfio cannot load. [`external_path`] gives
//! the path that the parse-time check applies to.

use super::def::OptionDef;
use crate::release::Release;

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

/// Whether fio can load the built-in engine `name` (exact, case-sensitive
/// match, as fio's `find_ioengine`), or it is one of fio 3.33's that rfio
/// runs where Debian's build lacks it ([`BEYOND_BUILD`]). False for
/// `external:PATH`; see the module documentation.
pub(crate) fn is_available(name: &str) -> bool {
    ENGINES.contains(&name) || BEYOND_BUILD.contains(&name)
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
    super::table_of(release)
        .iter()
        .filter(move |o| o.engines.contains(&engine))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_engines_are_available_and_nothing_else() {
        assert!(is_available("psync"));
        assert!(is_available("io_uring_cmd"));
        assert!(!is_available("PSYNC"));
        assert!(!is_available("external:/usr/lib/x.so"));
        assert!(is_available("http"), "fio 3.33's, which rfio runs");
        assert!(!is_available("libblkio"));
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
                assert!(is_available(e), "{} names unknown engine {e}", o.name);
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
