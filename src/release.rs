//! The fio releases rfio can be, and every difference between them.
//!
//! A user runs the fio their distribution ships: Debian 12's 3.33,
//! Ubuntu 24.04's 3.36, upstream's latest 3.42. rfio behaves as one of
//! them, chosen once per invocation ([`Release::choose`]: `--compat=fio-3.36`,
//! else `RFIO_FIO_VERSION=3.36`, else [`Release::DEFAULT`]). Everything that
//! differs between releases is one [`Entry`] of [`CHANGES`]: what changed,
//! the release it came with, and where upstream has it. Parsing, the plan,
//! the loop and the outputs ask [`Release::has`] ("does this release know
//! `ss_interval`?"), never compare version numbers in place, so a release
//! between two others gets exactly the changes listed up to it.
//!
//! Where each release reports the errors rfio reproduces (`td_verror`'s
//! `file:line`) is [`places`]' table, asked with [`Release::place`].
//!
//! A leaf module: it imports nothing of the crate.

use std::fmt;

mod changes;
pub mod places;

pub use changes::{Change, Entry, CHANGES};

use serde::{Deserialize, Serialize};

/// One fio release, oldest first (the order is the releases' order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Release {
    V3_33,
    V3_34,
    V3_35,
    V3_36,
    V3_37,
    V3_38,
    V3_39,
    V3_40,
    V3_41,
    V3_42,
}

/// Every release, oldest first, with its minor number, the protocol
/// version its server speaks (`FIO_SERVER_VER` in its `server.h`) and the
/// date of its tag.
const RELEASES: &[(Release, u32, u16, &str)] = &[
    (Release::V3_33, 33, 97, "2022-11-06"),
    (Release::V3_34, 34, 99, "2023-03-14"),
    (Release::V3_35, 35, 100, "2023-05-23"),
    (Release::V3_36, 36, 101, "2023-10-20"),
    (Release::V3_37, 37, 103, "2024-03-26"),
    (Release::V3_38, 38, 107, "2024-10-02"),
    (Release::V3_39, 39, 107, "2025-02-18"),
    (Release::V3_40, 40, 111, "2025-05-20"),
    (Release::V3_41, 41, 113, "2025-09-05"),
    (Release::V3_42, 42, 120, "2026-04-06"),
];

/// The environment variable that chooses the release for scripts that
/// call `fio` by name (through the drop-in symlink).
pub const ENV: &str = "RFIO_FIO_VERSION";

/// A release name that is none of [`RELEASES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRelease(pub String);

impl fmt::Display for UnknownRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown fio release '{}' (rfio is any of fio-{} to fio-{})",
            self.0,
            Release::OLDEST.number(),
            Release::NEWEST.number()
        )
    }
}

impl std::error::Error for UnknownRelease {}

impl Release {
    /// Every release rfio follows, oldest first.
    pub fn all() -> impl Iterator<Item = Release> {
        RELEASES.iter().map(|row| row.0)
    }

    pub const OLDEST: Release = Release::V3_33;
    pub const NEWEST: Release = Release::V3_42;
    /// The release rfio is when none is chosen: the newest it follows,
    /// under either name (`rfio` keeps its strict reading on top of it).
    /// Scripts that compare with Debian 12's fio 3.33 choose 3.33.
    pub const DEFAULT: Release = Release::NEWEST;

    fn row(self) -> &'static (Release, u32, u16, &'static str) {
        &RELEASES[self as usize]
    }

    /// `3.36`.
    pub fn number(self) -> String {
        format!("3.{}", self.row().1)
    }

    /// `fio-3.36`, as `--version`, the JSON header and terse field 2 say.
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 10] = [
            "fio-3.33", "fio-3.34", "fio-3.35", "fio-3.36", "fio-3.37", "fio-3.38", "fio-3.39",
            "fio-3.40", "fio-3.41", "fio-3.42",
        ];
        NAMES[self as usize]
    }

    /// The client/server protocol version its server answers with and its
    /// client speaks.
    pub fn wire_version(self) -> u16 {
        self.row().2
    }

    /// `3.36` or `fio-3.36` (what `fio --version` prints).
    pub fn parse(text: &str) -> Result<Release, UnknownRelease> {
        let t = text.trim();
        let minor = t
            .strip_prefix("fio-")
            .unwrap_or(t)
            .strip_prefix("3.")
            .filter(|m| !m.starts_with('0') && m.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|m| m.parse::<u32>().ok());
        RELEASES
            .iter()
            .find(|r| Some(r.1) == minor)
            .map(|r| r.0)
            .ok_or_else(|| UnknownRelease(text.to_string()))
    }

    /// The release of this invocation: the one `--compat=fio-3.NN` names,
    /// else the one [`ENV`] names, else [`Release::DEFAULT`]. An empty
    /// variable counts as unset.
    pub fn choose(flag: Option<&str>, env: Option<&str>) -> Result<Release, UnknownRelease> {
        match (flag, env.filter(|e| !e.trim().is_empty())) {
            (Some(f), _) => Release::parse(f),
            (None, Some(e)) => Release::parse(e),
            (None, None) => Ok(Release::DEFAULT),
        }
    }

    /// Whether this release has `change` (it came with this release or an
    /// earlier one).
    pub fn has(self, change: Change) -> bool {
        self >= change.since()
    }

    /// The option `name` sets in this release: the option it became an
    /// alias of, or itself.
    pub fn canonical(self, name: &str) -> &str {
        CHANGES
            .iter()
            .find_map(|e| match e.change {
                Change::Alias(alias, of) if alias == name && self.has(e.change) => Some(of),
                _ => None,
            })
            .unwrap_or(name)
    }

    /// The entry of an option name that a release after 3.33 added
    /// (`None`: 3.33 knows it, or no release does).
    pub fn option_added(name: &str) -> Option<&'static Entry> {
        CHANGES
            .iter()
            .find(|e| matches!(e.change, Change::Option(n) if n == name))
    }
}

impl Default for Release {
    fn default() -> Release {
        Release::DEFAULT
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The table of [`CHANGES`] as README.md shows it (markdown, oldest
/// release first); a test keeps the README's copy equal to it.
#[cfg(test)]
fn changes_markdown() -> String {
    let mut out = String::from("| release | what changes | upstream |\n|---|---|---|\n");
    for e in CHANGES {
        let what = match e.change {
            Change::Option(name) => format!("option `{name}`: {}", e.what),
            _ => e.what.to_string(),
        };
        let upstream = e.upstream.replace('|', "\\|");
        out.push_str(&format!("| {} | {what} | {upstream} |\n", e.since.number()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The places of fio 3.33 and 3.42, as those fios print them for the
    /// same failures (an I/O error, a failed commit), and one place for
    /// every site in every release.
    #[test]
    fn places_are_each_releases() {
        use places::{Site, SITES};
        assert_eq!(Release::V3_33.place(Site::IoUError), "io_u.c:1876");
        assert_eq!(Release::V3_42.place(Site::IoUError), "io_u.c:2018");
        assert_eq!(Release::V3_33.place(Site::IoCommit), "ioengines.c:496");
        assert_eq!(Release::V3_42.place(Site::IoCommit), "ioengines.c:516");
        assert_eq!(Release::V3_33.place(Site::TdIoQueue), "ioengines.c:399");
        assert_eq!(Release::V3_42.place(Site::TdIoQueue), "ioengines.c:415");
        assert_eq!(Release::V3_33.place(Site::GenericOpen), "filesetup.c:805");
        for (i, &site) in SITES.iter().enumerate() {
            assert_eq!(site as usize, i);
            for r in Release::all() {
                let (file, line) = r.place(site).split_once(".c:").expect("file.c:line");
                assert!(
                    !file.is_empty() && line.parse::<u32>().is_ok(),
                    "{site:?} {r}"
                );
            }
        }
    }

    /// README.md's table of differences by release is [`changes_markdown`],
    /// between its two marker lines.
    #[test]
    fn the_readme_lists_every_change() {
        let readme = include_str!("../README.md");
        let (start, end) = ("<!-- release-table -->\n", "<!-- /release-table -->");
        let at = readme.find(start).expect("README.md has the release table") + start.len();
        let len = readme[at..].find(end).expect("the table ends");
        let want = changes_markdown();
        if readme[at..at + len] != want {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/target/release-table.md");
            let _ = std::fs::write(path, &want);
            panic!("README.md's release table is out of date: the table is in {path}");
        }
    }

    #[test]
    fn releases_are_in_order_and_named() {
        let all: Vec<_> = RELEASES.iter().map(|r| r.0).collect();
        assert_eq!(all.len(), 10);
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        for (i, r) in all.iter().enumerate() {
            assert_eq!(RELEASES[*r as usize].0, *r, "row {i}");
            assert_eq!(r.name(), format!("fio-{}", r.number()));
        }
        assert_eq!(Release::V3_36.to_string(), "fio-3.36");
        assert_eq!(
            (Release::V3_33.wire_version(), Release::V3_42.wire_version()),
            (97, 120)
        );
    }

    #[test]
    fn names_parse_with_or_without_the_prefix() {
        for t in ["3.36", "fio-3.36", " fio-3.36\n"] {
            assert_eq!(Release::parse(t), Ok(Release::V3_36), "{t:?}");
        }
        for t in [
            "3.32", "3.43", "3.036", "3.+36", "4.33", "fio", "", "3.", "fio-3.3",
        ] {
            assert!(Release::parse(t).is_err(), "{t:?}");
        }
        assert_eq!(
            Release::parse("3.99").unwrap_err().to_string(),
            "unknown fio release '3.99' (rfio is any of fio-3.33 to fio-3.42)"
        );
    }

    #[test]
    fn the_flag_wins_over_the_environment() {
        use Release::*;
        // Nothing chosen: the newest release.
        assert_eq!(Release::choose(None, None), Ok(V3_42));
        assert_eq!(Release::choose(None, Some("")), Ok(V3_42));
        assert_eq!(Release::DEFAULT, Release::NEWEST);
        assert_eq!(Release::choose(None, Some("3.36")), Ok(V3_36));
        assert_eq!(Release::choose(Some("fio-3.33"), Some("3.42")), Ok(V3_33));
        assert_eq!(Release::choose(Some("fio-3.42"), Some("3.36")), Ok(V3_42));
        assert!(Release::choose(Some("3.1"), Some("3.36")).is_err());
    }

    #[test]
    fn a_release_has_the_changes_up_to_it() {
        let ss = Change::Option("ss_interval");
        assert_eq!(ss.since(), Release::V3_35);
        assert!(!Release::V3_34.has(ss));
        assert!(Release::V3_35.has(ss));
        assert!(Release::V3_42.has(ss));
        let spr = Release::option_added("sprandom").unwrap();
        assert_eq!(
            (spr.since, Release::V3_40.has(spr.change)),
            (Release::V3_41, false)
        );
        assert!(Release::option_added("bs").is_none());
    }

    #[test]
    fn every_change_has_its_entry() {
        // A new variant fails to compile here until it joins the list.
        let listed = |c: Change| match c {
            Change::Option(_)
            | Change::Alias(..)
            | Change::LongPatterns
            | Change::Engine(..)
            | Change::EngineRemoved(_)
            | Change::SeedsFromRandseed
            | Change::JsonJobStart
            | Change::DiskSectors
            | Change::JsonEmptyStrings
            | Change::LatencyTargetUnits
            | Change::PrioHint
            | Change::ZoneResetsOnlyZbd
            | Change::ClientGlobalsPerServer
            | Change::AllClientsPercentiles
            | Change::SteadyStateInterval
            | Change::SteadyStateLatency
            | Change::Sha512Final
            | Change::VerifyOffsetInInterval
            | Change::HeaderSeedCheck
            | Change::VerifyLogByOverlapRisk
            | Change::WriteSequenceQueued
            | Change::VerifyHeaderV81
            | Change::DebugSprandom
            | Change::BandwidthLogName
            | Change::VerifiedReadsCount
            | Change::Tausworthe64Switch
            | Change::ThinkWithinRuntime
            | Change::SyncAfterWritesOnly
            | Change::MixedIoSizeWraps
            | Change::AtomicWrites
            | Change::UncachedDropped
            | Change::DontCache
            | Change::LibaioAsyncFsync
            | Change::RampCheckedEachSecond
            | Change::ZbdFinishSmallRemainder
            | Change::ZbdReadsAfterOwnWrite
            | Change::ZbdNoWriteShareReads
            | Change::TrimBacklogBatches
            | Change::VerifyStateCompDepth
            | Change::VerifyStateInflight
            | Change::RateIopsBssplit
            | Change::UringIntegrity => c,
        };
        for c in [
            Change::VerifyStateCompDepth,
            Change::VerifyStateInflight,
            Change::LongPatterns,
            Change::SeedsFromRandseed,
            Change::JsonJobStart,
            Change::DiskSectors,
            Change::JsonEmptyStrings,
            Change::LatencyTargetUnits,
            Change::PrioHint,
            Change::ZoneResetsOnlyZbd,
            Change::ClientGlobalsPerServer,
            Change::AllClientsPercentiles,
            Change::SteadyStateInterval,
            Change::SteadyStateLatency,
            Change::Sha512Final,
            Change::VerifyOffsetInInterval,
            Change::HeaderSeedCheck,
            Change::VerifyLogByOverlapRisk,
            Change::WriteSequenceQueued,
            Change::VerifyHeaderV81,
            Change::DebugSprandom,
            Change::BandwidthLogName,
            Change::VerifiedReadsCount,
            Change::Tausworthe64Switch,
            Change::ThinkWithinRuntime,
            Change::SyncAfterWritesOnly,
            Change::MixedIoSizeWraps,
            Change::AtomicWrites,
            Change::UncachedDropped,
            Change::DontCache,
            Change::LibaioAsyncFsync,
            Change::UringIntegrity,
            Change::RampCheckedEachSecond,
            Change::ZbdFinishSmallRemainder,
            Change::ZbdReadsAfterOwnWrite,
            Change::ZbdNoWriteShareReads,
            Change::TrimBacklogBatches,
            Change::RateIopsBssplit,
        ]
        .map(listed)
        {
            assert!(CHANGES.iter().any(|e| e.change == c), "{c:?} has no entry");
        }
    }

    #[test]
    fn every_change_is_listed_once_and_after_3_33() {
        for (i, e) in CHANGES.iter().enumerate() {
            assert!(e.since > Release::OLDEST, "{e:?}");
            assert!(
                CHANGES[..i].iter().all(|o| o.change != e.change),
                "{e:?} twice"
            );
            assert!(!e.what.is_empty() && !e.upstream.is_empty());
        }
        // Oldest first, so the table reads as the releases' history.
        assert!(CHANGES.windows(2).all(|w| w[0].since <= w[1].since));
    }
}
