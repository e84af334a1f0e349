//! Each release's option table: fio 3.33's ([`super::table::OPTIONS`]) with
//! what the releases after it changed, up to the chosen one
//! ([`super::later_table::LATER`], generated from a built fio 3.42 and fio's
//! history).
//!
//! A table is built once per release, on first use, and lives for the rest
//! of the process (at most one per release: ten, a few hundred KiB in all);
//! fio 3.33's is the static table itself.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use super::def::{OptionDef, Revision};
use super::later_table::LATER;
use super::{profiles, table};
use crate::release::Release;

const RELEASES: usize = Release::NEWEST as usize + 1;

/// Every option `release` accepts (core, then ioengine options), in its
/// table order.
pub(crate) fn options(release: Release) -> &'static [OptionDef] {
    static TABLES: [OnceLock<&'static [OptionDef]>; RELEASES] =
        [const { OnceLock::new() }; RELEASES];
    if !LATER.iter().any(|l| l.since <= release) {
        return table::OPTIONS;
    }
    TABLES[release as usize].get_or_init(|| Box::leak(build(release).into_boxed_slice()))
}

/// Find an option of `release` by its exact name or alias (its table, then
/// the profile options); the first definition in that order wins.
pub(crate) fn lookup(release: Release, name: &str) -> Option<&'static OptionDef> {
    static INDEXES: [OnceLock<NameIndex>; RELEASES] = [const { OnceLock::new() }; RELEASES];
    let index = INDEXES[release as usize].get_or_init(|| {
        let mut index = NameIndex::default();
        for def in options(release).iter().chain(profiles::PROFILE_OPTIONS) {
            for name in std::iter::once(def.name).chain(def.aliases.iter().copied()) {
                index.entry(name).or_insert(def);
            }
        }
        index
    });
    index.get(name).copied()
}

/// Option definitions by name. Every option of a job file is looked up
/// here, so the names are hashed with FNV-1a (a few instructions a byte)
/// rather than the default SipHash: the keys are the table's own names,
/// not input an attacker chooses.
pub(crate) type NameIndex = HashMap<&'static str, &'static OptionDef, BuildHasherDefault<NameHash>>;

/// FNV-1a over the bytes of an option name.
#[derive(Default)]
pub(crate) struct NameHash(u64);

impl Hasher for NameHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Why a job that sets `def` is refused before it starts: an option rfio
/// does not run yet (one a later fio added, named with its release).
pub(crate) fn refusal(def: &OptionDef) -> String {
    match Release::option_added(def.name) {
        Some(added) => format!(
            "option '{}' ({}) came with fio {}, and rfio does not run it yet",
            def.name,
            added.what,
            added.since.number()
        ),
        None => format!("rfio does not support {} yet", def.name),
    }
}

fn build(release: Release) -> Vec<OptionDef> {
    let mut defs = table::OPTIONS.to_vec();
    let same = |d: &OptionDef, name: &str, engines: &[&str]| d.name == name && d.engines == engines;
    for later in LATER.iter().filter(|l| l.since <= release) {
        match &later.revision {
            Revision::Add { after, def } => {
                let at = after
                    .iter()
                    .find_map(|a| defs.iter().rposition(|d| same(d, a, def.engines)))
                    .map_or(defs.len(), |i| i + 1);
                defs.insert(at, *def);
            }
            Revision::Replace(def) => {
                if let Some(d) = defs.iter_mut().find(|d| same(d, def.name, def.engines)) {
                    *d = *def;
                }
            }
            Revision::Remove { name, engines } => defs.retain(|d| !same(d, name, engines)),
        }
    }
    defs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_3_33_is_the_static_table() {
        assert!(std::ptr::eq(options(Release::V3_33), table::OPTIONS));
        assert!(lookup(Release::V3_33, "num_range").is_none());
        assert!(lookup(Release::V3_33, "allrandrepeat").is_some());
    }

    #[test]
    fn a_release_has_the_options_up_to_it() {
        // num_range came with 3.37, ramp_size with 3.42
        assert!(lookup(Release::V3_36, "num_range").is_none());
        let nr = lookup(Release::V3_37, "num_range").expect("3.37 has num_range");
        assert_eq!((nr.default, nr.max), (Some("1"), Some(256)));
        assert!(lookup(Release::V3_41, "ramp_size").is_none());
        assert!(lookup(Release::V3_42, "ramp_size").is_some());
    }

    #[test]
    fn new_options_sit_where_the_release_lists_them() {
        let names: Vec<&str> = options(Release::V3_42).iter().map(|d| d.name).collect();
        let at = |n: &str| names.iter().position(|x| *x == n).unwrap();
        assert_eq!(at("filetype"), at("filename") + 1);
        assert_eq!(at("spr_cs"), at("spr_op") + 1);
        // 3.41 has sprandom but not spr_cs: spr_op is still after spr_num_regions
        let names41: Vec<&str> = options(Release::V3_41).iter().map(|d| d.name).collect();
        let at41 = |n: &str| names41.iter().position(|x| *x == n).unwrap();
        assert_eq!(at41("spr_op"), at41("spr_num_regions") + 1);
        assert!(!names41.contains(&"spr_cs"));
    }

    #[test]
    fn changed_and_removed_options_follow_the_release() {
        // log_max_value became log_window_value's alias in 3.37
        let old = lookup(Release::V3_36, "log_max_value").unwrap();
        assert_eq!(old.name, "log_max_value");
        let new = lookup(Release::V3_37, "log_max_value").unwrap();
        assert_eq!(new.name, "log_window_value");
        // verify=pattern_hdr came with 3.40
        let posvals = |r| {
            lookup(r, "verify")
                .unwrap()
                .posvals
                .iter()
                .map(|p| p.value)
                .collect::<Vec<_>>()
        };
        assert!(!posvals(Release::V3_39).contains(&"pattern_hdr"));
        assert!(posvals(Release::V3_40).contains(&"pattern_hdr"));
        // the verify header grew in 3.41
        assert_eq!(
            lookup(Release::V3_40, "verify_interval").unwrap().min,
            Some(80)
        );
        assert_eq!(
            lookup(Release::V3_41, "verify_interval").unwrap().min,
            Some(96)
        );
    }

    #[test]
    fn every_release_keeps_names_unique() {
        for r in Release::all().map(options) {
            let mut seen = std::collections::HashSet::new();
            for d in r.iter().filter(|d| !d.is_engine_option()) {
                for n in std::iter::once(d.name).chain(d.aliases.iter().copied()) {
                    assert!(seen.insert(n), "{n} twice");
                }
            }
        }
    }
}
