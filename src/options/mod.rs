//! The option table: every option fio 3.33 knows, defined once.

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
/// the table, then the profile options fio 3.33 also accepts).
pub fn lookup(name: &str) -> Option<&'static OptionDef> {
    table::OPTIONS
        .iter()
        .chain(profiles::PROFILE_OPTIONS)
        .find(|o| o.answers_to(name))
}
