//! Typed reads of the options in force for a job: the one place the plan
//! looks options up by name, each read tolerant of the value kinds an
//! option of that sort can hold.

use crate::options::jobopts::JobOptions;
use crate::options::Value;

/// The options in force for one job, read by name.
#[derive(Clone, Copy)]
pub(crate) struct Opts<'a>(pub(crate) &'a JobOptions);

impl<'a> Opts<'a> {
    /// The value of `name` in force, if set.
    pub(crate) fn value(&self, name: &str) -> Option<&'a Value> {
        self.0.value(name)
    }

    /// Whether `name` is set at all.
    pub(crate) fn set(&self, name: &str) -> bool {
        self.0.get(name).is_some()
    }

    /// A flag or boolean (an integer counts as `!= 0`).
    pub(crate) fn flag(&self, name: &str) -> Option<bool> {
        match self.value(name)? {
            Value::Bool(b) => Some(*b),
            Value::Int(n) => Some(*n != 0),
            _ => None,
        }
    }

    /// Whether flag `name` is set and true.
    pub(crate) fn is(&self, name: &str) -> bool {
        self.flag(name) == Some(true)
    }

    /// An integer (a size or a boolean reads as one).
    pub(crate) fn int(&self, name: &str) -> Option<i64> {
        match self.value(name)? {
            Value::Int(n) => Some(*n),
            Value::Bytes(n) => i64::try_from(*n).ok(),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// A size in bytes (a non-negative integer reads as one; `Nz`, for
    /// the options that take zones, is N zones of `zonesize` bytes, and
    /// nothing without a zone size, as fio's
    /// `zbd_recalc_options_with_zone_granularity`).
    pub(crate) fn bytes(&self, name: &str) -> Option<u64> {
        match self.value(name)? {
            Value::Bytes(n) => Some(*n),
            Value::Int(n) => u64::try_from(*n).ok(),
            Value::Zones(n) => self.zone_size().map(|z| n.saturating_mul(z)),
            _ => None,
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
    pub(crate) fn micros(&self, name: &str) -> u64 {
        match self.value(name) {
            Some(Value::Micros(us)) => *us,
            _ => 0,
        }
    }

    /// A text option as written.
    pub(crate) fn text(&self, name: &str) -> Option<&'a str> {
        match self.value(name)? {
            Value::Text(t) => Some(t.as_str()),
            _ => None,
        }
    }

    /// The `posvals` value chosen for a choice option.
    pub(crate) fn choice(&self, name: &str) -> Option<&'static str> {
        let s = self.0.get(name)?;
        match &s.value {
            Value::Choice { index, .. } => s.def.posvals.get(*index).map(|p| p.value),
            _ => None,
        }
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
