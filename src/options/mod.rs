//! The option table: every option fio 3.33 knows, defined once.

use std::collections::HashMap;
use std::sync::OnceLock;

pub(crate) mod cmdhelp;
pub(crate) mod def;
pub(crate) mod engines;
pub(crate) mod jobopts;
pub(crate) mod profiles;
pub(crate) mod suggest;
pub(crate) mod table;
pub(crate) mod value;

pub(crate) use def::OptionDef;
pub use def::{FioType, Support};
pub(crate) use value::{parse_value, Value};

/// Find an option by its exact name or alias (core and engine options of
/// the table, then the profile options fio 3.33 also accepts); the first
/// definition in that order wins.
pub fn lookup(name: &str) -> Option<&'static OptionDef> {
    static INDEX: OnceLock<HashMap<&'static str, &'static OptionDef>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = HashMap::new();
        for def in table::OPTIONS.iter().chain(profiles::PROFILE_OPTIONS) {
            for name in std::iter::once(def.name).chain(def.aliases.iter().copied()) {
                index.entry(name).or_insert(def);
            }
        }
        index
    });
    index.get(name).copied()
}
