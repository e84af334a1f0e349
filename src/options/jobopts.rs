//! Reading option entries into typed settings, the way fio applies them.
//!
//! For a job-file section fio (1) substitutes `${VAR}` and keywords in each
//! entry, (2) sorts the entries by option priority (stable: `kb_base` first,
//! `filename` last), (3) applies the core options in that order, and (4)
//! applies what is left as options of the section's ioengine, after all core
//! options. Command-line options are applied one by one, unsorted and
//! unsubstituted. The order settings are applied in is the order `--showcmd`
//! prints them.

use super::def::{OptionDef, ValueKind};
use super::value::{parse_value, ParseCtx, Value, ValueError};
use super::{engines, lookup, suggest, table};
use crate::diag::{Diagnostic, Span};
use crate::jobfile::arith;
use crate::jobfile::ast::split_entry;
use crate::jobfile::subst::{substitute, Keywords, Substituted};

/// One applied option.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub def: &'static OptionDef,
    /// The value text as applied (after substitution), `None` when bare.
    pub text: Option<String>,
    pub value: Value,
    pub span: Span,
}

/// The settings of one scope (the globals in force, or one job), in the
/// order they were applied. Later settings override earlier ones.
///
/// Settings are added only by [`apply`] and taken back only by
/// [`JobOptions::truncate`]: the scope remembers where its `kb_base` and
/// `ioengine` are, which every option read asks for (a scan of all the
/// settings each time made long sections, and many `[global]` sections,
/// quadratic).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobOptions {
    pub settings: Vec<Setting>,
    /// Index of the last `kb_base` setting.
    kb_base_at: Option<usize>,
    /// Index of the last `ioengine` setting.
    ioengine_at: Option<usize>,
}

impl JobOptions {
    /// The setting in force for option `name` (canonical name).
    pub fn get(&self, name: &str) -> Option<&Setting> {
        match name {
            "kb_base" => self.kb_base_at.map(|i| &self.settings[i]),
            "ioengine" => self.ioengine_at.map(|i| &self.settings[i]),
            _ => self.settings.iter().rev().find(|s| s.def.name == name),
        }
    }

    pub fn value(&self, name: &str) -> Option<&Value> {
        self.get(name).map(|s| &s.value)
    }

    /// Add a setting after the others.
    fn push(&mut self, setting: Setting) {
        match setting.def.name {
            "kb_base" => self.kb_base_at = Some(self.settings.len()),
            "ioengine" => self.ioengine_at = Some(self.settings.len()),
            _ => {}
        }
        self.settings.push(setting);
    }

    /// Keep only the first `len` settings (the state before later ones
    /// were applied).
    pub fn truncate(&mut self, len: usize) {
        self.settings.truncate(len);
        let last = |name: &str| self.settings.iter().rposition(|s| s.def.name == name);
        if self.kb_base_at.is_some_and(|i| i >= len) {
            self.kb_base_at = last("kb_base");
        }
        if self.ioengine_at.is_some_and(|i| i >= len) {
            self.ioengine_at = last("ioengine");
        }
    }

    /// `kb_base` in force (1024 unless set to 1000).
    pub fn parse_ctx(&self) -> ParseCtx {
        let def = self.get("kb_base").map(|s| (s.def, &s.value));
        match def {
            Some((def, Value::Choice { index, .. })) if def.posvals[*index].value == "1000" => {
                ParseCtx { kb_base: 1000 }
            }
            _ => ParseCtx::default(),
        }
    }

    /// The ioengine in force, fio's default `psync` when none is set.
    pub fn ioengine(&self) -> &str {
        match self.value("ioengine") {
            Some(Value::Text(t)) => t.as_str(),
            _ => "psync",
        }
    }
}

/// One option as written, before it is applied: a job-file entry, or a
/// command-line option in the same shape (`key=value`, its position).
pub use crate::jobfile::ast::Entry as RawOption;

/// A problem applying one option. `valid_values` is set when fio would
/// print the option's table of valid values on stdout.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionError {
    pub diag: Diagnostic,
    pub valid_values: Option<&'static OptionDef>,
}

/// Where the options come from: it decides sorting and substitution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    JobFile,
    CommandLine,
}

/// Apply `raw` on top of `scope` (whose earlier settings are in force).
/// Returns the errors, in fio's order of application.
pub fn apply(
    scope: &mut JobOptions,
    raw: &[RawOption],
    origin: Origin,
    keywords: &Keywords,
) -> Vec<OptionError> {
    let mut errors = Vec::new();
    // (1) substitution
    let mut items: Vec<(String, &RawOption)> = Vec::with_capacity(raw.len());
    for r in raw {
        let text = match origin {
            Origin::CommandLine => r.text.clone(),
            Origin::JobFile => match substitute(&r.text, |v| std::env::var(v).ok(), keywords) {
                Substituted::Text(t) => t,
                Substituted::BadExpression { expr, reason } => {
                    errors.push(err(r, format!("cannot evaluate '{expr}': {reason}")));
                    continue;
                }
            },
        };
        items.push((text, r));
    }
    // (2) priority sort, stable
    if origin == Origin::JobFile {
        items.sort_by_key(|(text, _)| {
            std::cmp::Reverse(lookup(split_entry(text).0).map_or(0, |d| d.prio))
        });
    }
    // (3) core options; engine options wait. `kb_base` is looked up once
    // and again only when a setting changes it: a lookup scans the settings,
    // and doing that per option made a long section quadratic.
    let mut ctx = scope.parse_ctx();
    let mut deferred = Vec::new();
    for (text, r) in items {
        let (key, value) = split_entry(&text);
        match lookup(key) {
            Some(def) if !def.is_engine_option() => match apply_one(scope, def, value, r, &ctx) {
                Ok(()) if def.name == "kb_base" => ctx = scope.parse_ctx(),
                Ok(()) => {}
                Err(e) => errors.push(e),
            },
            _ => deferred.push((text, r)),
        }
    }
    // (4) engine options, for the ioengine now in force (engine options
    // change neither it nor kb_base)
    let engine = scope.ioengine().to_string();
    for (text, r) in deferred {
        let (key, value) = split_entry(&text);
        match engine_option(&engine, key) {
            Ok(def) => {
                if let Err(e) = apply_one(scope, def, value, r, &ctx) {
                    errors.push(e);
                }
            }
            Err(msg) => errors.push(err(r, msg)),
        }
    }
    errors
}

/// Find `key` among the options of `engine`, or say why it is not there.
fn engine_option(engine: &str, key: &str) -> Result<&'static OptionDef, String> {
    let candidates = || {
        table::OPTIONS
            .iter()
            .filter(|d| d.answers_to(key) && d.is_engine_option())
    };
    if let Some(def) = candidates().find(|d| d.engines.contains(&engine)) {
        if engines::is_available(engine) {
            return Ok(def);
        }
    }
    if suggest::FIO_COMMAND_LINE_OPTIONS.contains(&key) {
        return Err(format!(
            "'{key}' is a command-line option (--{key}), not a job option"
        ));
    }
    if !engines::is_available(engine) && candidates().next().is_some() {
        return Err(format!(
            "unknown option '{key}': ioengine '{engine}' is not available, so its options are unknown"
        ));
    }
    if let Some(def) = candidates().next() {
        return Err(format!(
            "option '{key}' belongs to ioengine {}, but this job uses ioengine={engine}",
            def.engines.join("/")
        ));
    }
    let names = table::OPTIONS
        .iter()
        .flat_map(|d| std::iter::once(d.name).chain(d.aliases.iter().copied()));
    Err(match suggest::did_you_mean(key, names) {
        Some(s) => format!("unknown option '{key}' (did you mean '{s}'?)"),
        None => format!("unknown option '{key}'"),
    })
}

fn err(r: &RawOption, message: String) -> OptionError {
    OptionError {
        diag: Diagnostic::at(r.span.clone(), message),
        valid_values: None,
    }
}

/// Parse one option's value and record it.
fn apply_one(
    scope: &mut JobOptions,
    def: &'static OptionDef,
    value: Option<&str>,
    r: &RawOption,
    ctx: &ParseCtx,
) -> Result<(), OptionError> {
    let parsed = match value {
        Some(v) if is_numeric(def) && v.trim_start().starts_with('(') => {
            parse_expression(def, v, ctx)
        }
        _ => parse_value(def, value, ctx),
    };
    match parsed {
        Ok(v) => {
            scope.push(Setting {
                def,
                text: value.map(str::to_string),
                value: v,
                span: r.span.clone(),
            });
            Ok(())
        }
        Err(e) => {
            let valid_values = matches!(e, ValueError::NotAChoice { .. }).then_some(def);
            let what = match value {
                Some(v) => format!(
                    "bad value for option '{}' ('{}={v}')",
                    def.name,
                    split_entry(&r.text).0
                ),
                None => format!("option '{}'", def.name),
            };
            let mut msg = format!("{what}: {e}");
            if valid_values.is_some() {
                let names: Vec<&str> = def.posvals.iter().map(|p| p.value).collect();
                msg.push_str(&format!("; valid values: {}", names.join(", ")));
            }
            Err(OptionError {
                diag: Diagnostic::at(r.span.clone(), msg),
                valid_values,
            })
        }
    }
}

fn is_numeric(def: &OptionDef) -> bool {
    matches!(
        def.kind,
        ValueKind::Int | ValueKind::Size | ValueKind::SizeOrPercent | ValueKind::Time
    )
}

/// `(expr)`: upstream fio's arithmetic. Each number inside is read with the
/// option's own units, except times, which are microseconds inside an
/// expression (as upstream documents).
fn parse_expression(def: &OptionDef, text: &str, ctx: &ParseCtx) -> Result<Value, ValueError> {
    let time = def.kind == ValueKind::Time;
    let atom = |a: &str| -> Result<i64, String> {
        let atom_text = if time && a.bytes().all(|b| b.is_ascii_digit()) {
            format!("{a}us")
        } else {
            a.to_string()
        };
        let value = parse_value(def, Some(&atom_text), ctx).map_err(|e| e.to_string())?;
        // A per-direction option gives the same number for every direction.
        let value = match value {
            Value::PerDir(v) => v.into_iter().flatten().next().unwrap_or(Value::Nothing),
            v => v,
        };
        match value {
            Value::Int(n) => Ok(n),
            Value::Bytes(n) | Value::Micros(n) => {
                i64::try_from(n).map_err(|_| "number too large".to_string())
            }
            _ => Err(format!("'{a}' cannot be used in an expression")),
        }
    };
    let n = arith::eval_with(text.trim(), &atom).map_err(ValueError::Other)?;
    let plain = if time {
        format!("{n}us")
    } else {
        n.to_string()
    };
    parse_value(def, Some(&plain), ctx)
}
