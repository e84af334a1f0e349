//! The value a setting records: the one parsed, merged with the setting
//! in force (per-direction values), the one kept when fio only warns, and
//! `(expr)` arithmetic.

use super::JobOptions;
use crate::jobfile::arith;
use crate::options::def::{OptionDef, ValueKind};
use crate::options::value::{parse_value, ParseCtx, Value, ValueError};

/// The value in force for `def` before this setting (fio stores nothing
/// for a value it only warns about): the earlier setting's, else the
/// option's default.
pub(super) fn kept(scope: &JobOptions, def: &'static OptionDef) -> Value {
    if let Some(v) = scope.value(def.name) {
        return v.clone();
    }
    def.default
        .and_then(|d| parse_value(def, Some(d), &ParseCtx::default()).ok())
        .unwrap_or(Value::Nothing)
}

/// `v` with the directions it leaves unset taken from the setting in force
/// (fio stores only the directions a value gives: `bs=,8k` after
/// `bs=16k` reads 16k and writes 8k).
pub(super) fn merged(scope: &JobOptions, def: &'static OptionDef, v: Value) -> Value {
    let Some(prev) = scope.value(def.name) else {
        return v;
    };
    match (v, prev) {
        (Value::PerDir(mut now), Value::PerDir(before)) => {
            for (slot, old) in now.iter_mut().zip(before) {
                if slot.is_none() {
                    slot.clone_from(old);
                }
            }
            Value::PerDir(now)
        }
        (Value::Ranges(mut now), Value::Ranges(before)) => {
            for (slot, old) in now.iter_mut().zip(before) {
                if slot.is_none() {
                    *slot = *old;
                }
            }
            Value::Ranges(now)
        }
        (Value::BsSplit(mut now), Value::BsSplit(before)) => {
            for (slot, old) in now.iter_mut().zip(before) {
                if slot.is_empty() {
                    slot.clone_from(old);
                }
            }
            Value::BsSplit(now)
        }
        (v, _) => v,
    }
}

pub(super) fn is_numeric(def: &OptionDef) -> bool {
    matches!(
        def.kind,
        ValueKind::Int | ValueKind::Size | ValueKind::SizeOrPercent | ValueKind::Time
    )
}

/// `(expr)`: upstream fio's arithmetic. Each number inside is read with the
/// option's own units, except times, which are microseconds inside an
/// expression (as upstream documents).
pub(super) fn parse_expression(
    def: &OptionDef,
    text: &str,
    ctx: &ParseCtx,
) -> Result<Value, ValueError> {
    let time = def.kind == ValueKind::Time;
    let atom = |a: &str| -> Result<i64, arith::Error> {
        let atom_text = if time && a.bytes().all(|b| b.is_ascii_digit()) {
            format!("{a}us")
        } else {
            a.to_string()
        };
        let value = parse_value(def, Some(&atom_text), ctx)
            .map_err(|e| arith::Error::Number(e.to_string()))?;
        // A per-direction option gives the same number for every direction.
        let value = match value {
            Value::PerDir(v) => v.into_iter().flatten().next().unwrap_or(Value::Nothing),
            v => v,
        };
        match value {
            Value::Int(n) => Ok(n),
            Value::Bytes(n) | Value::Micros(n) => {
                i64::try_from(n).map_err(|_| arith::Error::Number("number too large".into()))
            }
            _ => Err(arith::Error::Number(format!(
                "'{a}' cannot be used in an expression"
            ))),
        }
    };
    let n = arith::eval_with(text.trim(), &atom).map_err(|e| ValueError::Other(e.to_string()))?;
    let plain = if time {
        format!("{n}us")
    } else {
        n.to_string()
    };
    parse_value(def, Some(&plain), ctx)
}
