//! Typed reads of the options in force for a job: the one place the plan
//! looks options up by name, each read tolerant of the value kinds an
//! option of that sort can hold.
//!
//! A read that needs a value when the option is unset takes it from the
//! option table of the job's release (`int_or_default`, ...), never from
//! a literal beside the read: the table's `def` column is fio's default,
//! typed once. An option the table gives no default reads as fio's
//! zeroed option struct (`int_or_zero`, ...). Each asserts (in debug
//! builds) that the table agrees, so the wrong one of the two cannot go
//! unnoticed.

use crate::options::jobopts::{name_slot, JobOptions};
use crate::options::{OptionDef, Value};
use crate::release::Release;

use super::defaults::{self, default_def, default_value};

/// The options in force for one job, read by name, and the release whose
/// option table gives the defaults of those not set.
#[derive(Clone, Copy)]
pub(crate) struct Opts<'a>(pub(crate) &'a JobOptions, pub(crate) Release);

impl<'a> Opts<'a> {
    /// The table's default of `name` (see [`defaults::own`]). Inlined,
    /// as every read here: the name's slot is worked out where the name
    /// is written.
    #[inline(always)]
    fn default(&self, name: &str) -> Option<(&'static OptionDef, &'static Value)> {
        let found = defaults::own(name, name_slot(name), self.1, self.0.kb_base());
        debug_assert!(
            default_def(self.1, name).is_some_and(|d| d.default.is_some()),
            "option {name} has no default in the table: read it with an _or_zero call"
        );
        found
    }

    /// Assert (in debug builds) that the table gives `name` no default.
    fn no_default(&self, name: &str) {
        debug_assert!(
            default_def(self.1, name).is_some_and(|d| d.default.is_none()),
            "option {name} is not in the table, or has a default: read it with an _or_default call"
        );
    }

    /// An integer, else the table's default (0 if it does not read as one).
    #[inline(always)]
    pub(crate) fn int_or_default(&self, name: &str) -> i64 {
        // A match, not `or_else`: a closure is not always inlined, and the
        // name must stay a constant where it is written.
        match self.int(name) {
            Some(n) => n,
            None => self.default(name).and_then(|(_, v)| int_of(v)).unwrap_or(0),
        }
    }

    /// A flag, else the table's default.
    #[inline(always)]
    pub(crate) fn flag_or_default(&self, name: &str) -> bool {
        match self.flag(name) {
            Some(b) => b,
            None => self
                .default(name)
                .and_then(|(_, v)| flag_of(v))
                .unwrap_or(false),
        }
    }

    /// A size in bytes, else the table's default.
    #[inline(always)]
    pub(crate) fn bytes_or_default(&self, name: &str) -> u64 {
        match self.bytes(name) {
            Some(n) => n,
            None => self
                .default(name)
                .and_then(|(_, v)| bytes_of(v))
                .unwrap_or(0),
        }
    }

    /// The choice made, else the table's default choice.
    #[inline(always)]
    pub(crate) fn choice_or_default(&self, name: &str) -> &'static str {
        match self.choice(name) {
            Some(c) => c,
            None => (self.default(name))
                .and_then(|(def, v)| choice_of(def, v))
                .unwrap_or(""),
        }
    }

    /// A list of floating point values, else the table's default.
    pub(crate) fn floats_or_default(&self, name: &str) -> Vec<f64> {
        let floats = |v: &Value| match v {
            Value::Floats(f) => Some(f.clone()),
            _ => None,
        };
        self.value(name)
            .and_then(floats)
            .or_else(|| self.default(name).and_then(|(_, v)| floats(v)))
            .unwrap_or_default()
    }

    /// An integer the table gives no default: 0 when unset (fio's zeroed
    /// option struct).
    #[inline(always)]
    pub(crate) fn int_or_zero(&self, name: &str) -> i64 {
        self.no_default(name);
        self.int(name).unwrap_or(0)
    }

    /// A size in bytes the table gives no default: 0 when unset.
    #[inline(always)]
    pub(crate) fn bytes_or_zero(&self, name: &str) -> u64 {
        self.no_default(name);
        self.bytes(name).unwrap_or(0)
    }

    /// The value of `name` in force, if set.
    #[inline(always)]
    pub(crate) fn value(&self, name: &str) -> Option<&'a Value> {
        self.0.value(name)
    }

    /// Whether `name` is set at all.
    #[inline(always)]
    pub(crate) fn set(&self, name: &str) -> bool {
        self.0.get(name).is_some()
    }

    /// A flag or boolean (an integer counts as `!= 0`).
    #[inline(always)]
    pub(crate) fn flag(&self, name: &str) -> Option<bool> {
        flag_of(self.value(name)?)
    }

    /// Whether flag `name` is set and true: for a flag whose default is
    /// off (debug builds assert it; one that defaults on is read with
    /// [`Opts::flag_or_default`]).
    #[inline(always)]
    pub(crate) fn is(&self, name: &str) -> bool {
        debug_assert!(
            !default_def(self.1, name)
                .and_then(|d| default_value(d, &self.0.parse_ctx()))
                .as_ref()
                .and_then(flag_of)
                .unwrap_or(false),
            "flag {name} defaults on: read it with flag_or_default"
        );
        self.flag(name) == Some(true)
    }

    /// An integer (a size or a boolean reads as one).
    #[inline(always)]
    pub(crate) fn int(&self, name: &str) -> Option<i64> {
        int_of(self.value(name)?)
    }

    /// A size in bytes (a non-negative integer reads as one; `Nz`, for
    /// the options that take zones, is N zones of `zonesize` bytes, and
    /// nothing without a zone size, as fio's
    /// `zbd_recalc_options_with_zone_granularity`).
    #[inline(always)]
    pub(crate) fn bytes(&self, name: &str) -> Option<u64> {
        match self.value(name)? {
            Value::Zones(n) => self.zone_size().map(|z| n.saturating_mul(z)),
            v => bytes_of(v),
        }
    }

    /// `zonesize`, if set above 0.
    pub(crate) fn zone_size(&self) -> Option<u64> {
        match self.value("zonesize")? {
            Value::Bytes(n) => Some(*n).filter(|&n| n > 0),
            Value::Int(n) => u64::try_from(*n).ok().filter(|&n| n > 0),
            _ => None,
        }
    }

    /// A time in microseconds; 0 when unset.
    #[inline(always)]
    pub(crate) fn micros(&self, name: &str) -> u64 {
        match self.value(name) {
            Some(Value::Micros(us)) => *us,
            _ => 0,
        }
    }

    /// A text option as written.
    #[inline(always)]
    pub(crate) fn text(&self, name: &str) -> Option<&'a str> {
        match self.value(name)? {
            Value::Text(t) => Some(t.as_str()),
            _ => None,
        }
    }

    /// The `posvals` value chosen for a choice option.
    #[inline(always)]
    pub(crate) fn choice(&self, name: &str) -> Option<&'static str> {
        let s = self.0.get(name)?;
        choice_of(s.def, &s.value)
    }

    /// The text after a choice's `:` (`mem=mmap:FILE`), if any.
    pub(crate) fn choice_modifier(&self, name: &str) -> Option<&'a str> {
        match self.value(name)? {
            Value::Choice { modifier, .. } => modifier.as_deref(),
            _ => None,
        }
    }

    /// A per-direction integer or size (`rate=1m,2m`): 0 where not given.
    pub(crate) fn per_dir(&self, name: &str) -> [u64; 3] {
        let mut out = [0u64; 3];
        if let Some(Value::PerDir(v)) = self.value(name) {
            for (d, val) in v.iter().enumerate().take(3) {
                out[d] = match val {
                    Some(Value::Bytes(b)) => *b,
                    Some(Value::Int(n)) => (*n).max(0) as u64,
                    _ => 0,
                };
            }
        }
        out
    }
}

fn flag_of(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Int(n) => Some(*n != 0),
        _ => None,
    }
}

fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(n) => Some(*n),
        Value::Bytes(n) => i64::try_from(*n).ok(),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

fn bytes_of(v: &Value) -> Option<u64> {
    match v {
        Value::Bytes(n) => Some(*n),
        Value::Int(n) => u64::try_from(*n).ok(),
        _ => None,
    }
}

fn choice_of(def: &'static OptionDef, v: &Value) -> Option<&'static str> {
    match v {
        Value::Choice { index, .. } => def.posvals.get(*index).map(|p| p.value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::testing::job;
    use crate::release::Release;

    #[test]
    fn an_unset_option_reads_its_tables_default() {
        let j = job(&["--name=j", "--size=1m"]);
        let o = j.opts();
        assert_eq!(o.int_or_default("iodepth"), 1);
        assert_eq!(o.int_or_default("rate_cycle"), 1000);
        assert!(o.flag_or_default("create_serialize"));
        assert!(!o.flag_or_default("end_fsync"));
        assert_eq!(o.bytes_or_default("buffer_compress_chunk"), 512);
        assert_eq!(o.choice_or_default("file_service_type"), "roundrobin");
        assert_eq!(o.int_or_zero("iodepth_low"), 0);
        // An option of a later release reads, under 3.33, as its default
        // where it came (3.37's num_range: 1).
        assert_eq!(j.release, Release::V3_33);
        assert_eq!(o.int_or_default("num_range"), 1);
        assert_eq!(o.int_or_default("thinkcycles"), 0);
    }

    #[test]
    fn a_setting_wins_over_the_default() {
        let j = job(&[
            "--name=j",
            "--size=1m",
            "--iodepth=8",
            "--create_serialize=0",
            "--buffer_compress_chunk=4k",
            "--file_service_type=random",
            "--iodepth_low=2",
        ]);
        let o = j.opts();
        assert_eq!(o.int_or_default("iodepth"), 8);
        assert!(!o.flag_or_default("create_serialize"));
        assert_eq!(o.bytes_or_default("buffer_compress_chunk"), 4096);
        assert_eq!(o.choice_or_default("file_service_type"), "random");
        assert_eq!(o.int_or_zero("iodepth_low"), 2);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "option openfiles has no default in the table")]
    fn a_default_read_of_an_option_without_one_is_caught() {
        job(&["--name=j", "--size=1m"])
            .opts()
            .int_or_default("openfiles");
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "option iodepth is not in the table, or has a default")]
    fn a_zero_read_of_an_option_with_a_default_is_caught() {
        job(&["--name=j", "--size=1m"])
            .opts()
            .int_or_zero("iodepth");
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "flag create_serialize defaults on")]
    fn a_set_and_true_read_of_a_flag_that_defaults_on_is_caught() {
        job(&["--name=j", "--size=1m"])
            .opts()
            .is("create_serialize");
    }
}
