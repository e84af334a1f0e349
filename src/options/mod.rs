//! The option table: every option fio 3.33 knows, defined once.

use std::sync::OnceLock;

pub(crate) mod cmdhelp;
pub(crate) mod def;
pub(crate) mod engines;
pub(crate) mod jobopts;
pub(crate) mod later;
mod later_table;
pub(crate) mod profiles;
pub(crate) mod suggest;
pub(crate) mod table;
pub(crate) mod value;

pub(crate) use def::OptionDef;
pub use def::{FioType, Support};

/// The option table of the newest release rfio follows (fio 3.33's with
/// every later addition, change and removal up to it).
pub fn newest_table() -> &'static [def::OptionDef] {
    later::options(crate::release::Release::NEWEST)
}
pub(crate) use later::{lookup as lookup_in, options as table_of};
pub(crate) use value::{parse_plids, parse_value, Value};

/// Find an option of fio 3.33 by its exact name or alias (core and engine
/// options of the table, then the profile options fio 3.33 also accepts);
/// the first definition in that order wins. What a job file or command line
/// names is looked up in its release's table ([`lookup_in`]).
pub fn lookup(name: &str) -> Option<&'static OptionDef> {
    static INDEX: OnceLock<later::NameIndex> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = later::NameIndex::default();
        for def in table::OPTIONS.iter().chain(profiles::PROFILE_OPTIONS) {
            for name in std::iter::once(def.name).chain(def.aliases.iter().copied()) {
                index.entry(name).or_insert(def);
            }
        }
        index
    });
    index.get(name).copied()
}
