//! The options in force for a job, each once, as what identifies its work
//! (`--baseline-compare` compares two plans by them, whatever the order,
//! the comments or the section they were written in).

use super::spec::JobSpec;

/// One option in force for a job: its last setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InForce {
    /// The option's table name (an alias is read as its option).
    pub(crate) name: &'static str,
    /// Its category in the table (`I/O rate`, `Block size`, ...).
    pub(crate) category: &'static str,
    /// The value as written, after substitution (`4k`); `None` when bare.
    pub(crate) text: Option<String>,
    /// The value as understood (`Bytes(4096)`): equal for `4k` and `4096`.
    pub(crate) meaning: String,
    /// The value is the table's default: the same as leaving it unset.
    pub(crate) is_default: bool,
}

/// The options in force for `job`, by name (each name once, its last
/// setting), in name order.
pub(crate) fn in_force(job: &JobSpec) -> Vec<InForce> {
    let ctx = job.options.parse_ctx();
    let mut last = std::collections::BTreeMap::new();
    for s in &job.options.settings {
        last.insert(s.def.name, s);
    }
    last.into_values()
        .map(|s| {
            let default = super::resolve::defaults::default_value(s.def, &ctx);
            InForce {
                name: s.def.name,
                category: s.def.category,
                text: s.text.clone(),
                meaning: format!("{:?}", s.value),
                is_default: default.as_ref() == Some(&s.value),
            }
        })
        .collect()
}
