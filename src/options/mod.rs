//! The option table: every option fio 3.33 knows, defined once.

use std::collections::HashMap;
use std::sync::OnceLock;

pub mod cmdhelp;
pub mod def;
pub mod engines;
pub mod jobopts;
pub mod profiles;
pub mod suggest;
pub mod table;
pub mod value;

pub use def::{FioType, OptionDef, PosVal, Split, Support, TimeUnit, ValueKind};
pub use value::{parse_value, ParseCtx, Value, ValueError};

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
