//! Reading option entries into typed settings, the way fio applies them.
//!
//! For a job-file section fio (1) substitutes `${VAR}` and keywords in each
//! entry, (2) sorts the entries by option priority (stable: `kb_base` first,
//! `filename` last), (3) applies the core options in that order, and (4)
//! applies what is left as options of the section's ioengine, after all core
//! options. Command-line options are applied one by one, unsorted and
//! unsubstituted. The order settings are applied in is the order `--showcmd`
//! prints them.

use crate::release::Release;
use std::borrow::Cow;
use std::sync::Arc;

use super::def::{FioType, OptionDef, ValueKind};
use super::value::{fio, hint, parse_value, ParseCtx, Value, ValueError};
use super::{engines, lookup_in, suggest, table_of};
use crate::diag::{Diagnostic, Kind, Span};
use crate::jobfile::ast::split_entry;
use crate::jobfile::subst::{substitute, Keywords, Substituted};
use crate::jobfile::Mode;

/// One applied option.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub(crate) def: &'static OptionDef,
    /// The value text as applied (after substitution), `None` when bare.
    pub(crate) text: Option<String>,
    pub(crate) value: Value,
    pub(crate) span: Span,
    /// [`name_slot`] of `def.name`: a lookup by name compares names only
    /// where this matches.
    slot: u8,
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
    pub settings: Settings,
    /// Index of the last `kb_base` setting.
    kb_base_at: Option<usize>,
    /// Index of the last `ioengine` setting.
    ioengine_at: Option<usize>,
    /// The names set, one [`name_bit`] each: most names the plan asks for
    /// are not set, and are answered without a scan.
    names: u128,
}

/// A name's bit in [`JobOptions::names`] (from its length and three of
/// its bytes: cheap, and spread well enough over fio's option names).
#[inline]
fn name_bit(name: &str) -> u128 {
    1u128 << name_slot(name)
}

/// A name's place among 128 (see [`name_bit`]).
#[inline(always)]
pub(crate) fn name_slot(name: &str) -> u8 {
    let b = name.as_bytes();
    let at = |i: usize| u32::from(b.get(i).copied().unwrap_or(0));
    let h = (b.len() as u32).wrapping_mul(31)
        ^ at(0).wrapping_mul(7)
        ^ at(b.len() / 2).wrapping_mul(131)
        ^ at(b.len().wrapping_sub(1)).wrapping_mul(61);
    (h % 128) as u8
}

/// Settings in the order applied: a prefix shared with other scopes (the
/// globals in force when the scope was made: a job does not copy them),
/// then the scope's own.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    shared: Arc<Vec<Setting>>,
    /// How much of `shared` belongs to this scope.
    shared_len: usize,
    own: Vec<Setting>,
}

impl Settings {
    pub fn len(&self) -> usize {
        self.shared_len + self.own.len()
    }

    pub(crate) fn iter(
        &self,
    ) -> std::iter::Chain<std::slice::Iter<'_, Setting>, std::slice::Iter<'_, Setting>> {
        self.shared[..self.shared_len].iter().chain(self.own.iter())
    }

    /// Setting number `i`, in the order applied.
    pub(crate) fn get(&self, i: usize) -> Option<&Setting> {
        match i.checked_sub(self.shared_len) {
            None => self.shared.get(i),
            Some(j) => self.own.get(j),
        }
    }

    fn push(&mut self, setting: Setting) {
        // Into the shared list while no one else holds it (the globals
        // being read), else after it.
        if self.own.is_empty() && self.shared_len == self.shared.len() {
            if let Some(list) = Arc::get_mut(&mut self.shared) {
                list.push(setting);
                self.shared_len += 1;
                return;
            }
        }
        self.own.push(setting);
    }

    fn truncate(&mut self, len: usize) {
        match len.checked_sub(self.shared_len) {
            Some(own) => self.own.truncate(own),
            None => {
                self.own.clear();
                self.shared_len = len;
            }
        }
    }

    /// The settings as a list that other scopes can start from (copied
    /// only when the list is shared already and has grown since).
    fn share(&mut self) -> Settings {
        if self.shared_len == 0 {
            self.shared = Arc::new(std::mem::take(&mut self.own));
            self.shared_len = self.shared.len();
        } else if !self.own.is_empty() || self.shared_len != self.shared.len() {
            let list = Arc::make_mut(&mut self.shared);
            list.truncate(self.shared_len);
            list.append(&mut self.own);
            self.shared_len = list.len();
            self.own = Vec::new();
        }
        Settings {
            shared: Arc::clone(&self.shared),
            shared_len: self.shared_len,
            own: Vec::new(),
        }
    }
}

impl<'a> IntoIterator for &'a Settings {
    type Item = &'a Setting;
    type IntoIter = std::iter::Chain<std::slice::Iter<'a, Setting>, std::slice::Iter<'a, Setting>>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Settings {
    fn eq(&self, other: &Settings) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl JobOptions {
    /// The setting in force for option `name` (canonical name). Inlined:
    /// the plan asks for names written out, so a name's slot is worked out
    /// at compile time and a name not set costs a test.
    #[inline(always)]
    pub(crate) fn get(&self, name: &str) -> Option<&Setting> {
        let slot = name_slot(name);
        if self.names & (1u128 << slot) == 0 {
            return None;
        }
        self.find(name, slot)
    }

    /// The last setting of `name` (whose slot is `slot`).
    #[inline(never)]
    fn find(&self, name: &str, slot: u8) -> Option<&Setting> {
        match name {
            "kb_base" => self.kb_base_at.and_then(|i| self.settings.get(i)),
            "ioengine" => self.ioengine_at.and_then(|i| self.settings.get(i)),
            _ => {
                let s = &self.settings;
                let mine = |x: &&Setting| x.slot == slot && x.def.name == name;
                s.own
                    .iter()
                    .rev()
                    .find(mine)
                    .or_else(|| s.shared[..s.shared_len].iter().rev().find(mine))
            }
        }
    }

    #[inline(always)]
    pub(crate) fn value(&self, name: &str) -> Option<&Value> {
        self.get(name).map(|s| &s.value)
    }

    /// A scope that starts from these settings, sharing them.
    pub(crate) fn share(&mut self) -> JobOptions {
        JobOptions {
            settings: self.settings.share(),
            kb_base_at: self.kb_base_at,
            ioengine_at: self.ioengine_at,
            names: self.names,
        }
    }

    /// Room for `more` settings, so that the list need not grow step by
    /// step (growing a long list needs half as much again for a while).
    pub(crate) fn reserve(&mut self, more: usize) {
        if self.settings.own.is_empty() && self.settings.shared_len == self.settings.shared.len() {
            if let Some(list) = Arc::get_mut(&mut self.settings.shared) {
                list.reserve_exact(more);
                return;
            }
        }
        self.settings.own.reserve_exact(more);
    }

    /// Room for `more` settings, grown as a list grows (not exactly:
    /// options applied one at a time must not copy the list each time).
    fn room_for(&mut self, more: usize) {
        if self.settings.own.is_empty() && self.settings.shared_len == self.settings.shared.len() {
            if let Some(list) = Arc::get_mut(&mut self.settings.shared) {
                list.reserve(more);
                return;
            }
        }
        self.settings.own.reserve(more);
    }

    /// Give back the room kept for more settings (a job's, once read).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.settings.own.shrink_to_fit();
    }

    /// Add a setting after the others.
    fn push(&mut self, setting: Setting) {
        match setting.def.name {
            "kb_base" => self.kb_base_at = Some(self.settings.len()),
            "ioengine" => self.ioengine_at = Some(self.settings.len()),
            _ => {}
        }
        self.names |= name_bit(setting.def.name);
        self.settings.push(setting);
    }

    /// Keep only the first `len` settings (the state before later ones
    /// were applied).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.settings.truncate(len);
        let last = |name: &str| {
            let found = self.settings.iter().rev().position(|s| s.def.name == name);
            found.map(|back| self.settings.len() - 1 - back)
        };
        if self.kb_base_at.is_some_and(|i| i >= len) {
            self.kb_base_at = last("kb_base");
        }
        if self.ioengine_at.is_some_and(|i| i >= len) {
            self.ioengine_at = last("ioengine");
        }
        self.names = self
            .settings
            .iter()
            .fold(0, |m, s| m | name_bit(s.def.name));
    }

    /// `kb_base` in force: 1024 unless set to 1000.
    #[inline]
    pub(crate) fn kb_base(&self) -> u32 {
        // Where the last `kb_base` is kept (every default read asks).
        let last = self.kb_base_at.and_then(|i| self.settings.get(i));
        match last.map(|s| (s.def, &s.value)) {
            Some((def, Value::Choice { index, .. })) if def.posvals[*index].value == "1000" => 1000,
            _ => 1024,
        }
    }

    /// `kb_base` in force (1024 unless set to 1000).
    pub(crate) fn parse_ctx(&self) -> ParseCtx {
        ParseCtx {
            kb_base: self.kb_base(),
            ..ParseCtx::default()
        }
    }

    /// The ioengine in force, fio's default `psync` when none is set.
    pub(crate) fn ioengine(&self) -> &str {
        match self.value("ioengine") {
            Some(Value::Text(t)) => t.as_str(),
            _ => "psync",
        }
    }
}

/// One option as written, before it is applied: a job-file entry, or a
/// command-line option in the same shape (`key=value`, its position).
pub(crate) use crate::jobfile::ast::Entry as RawOption;

mod value_of;
use value_of::{is_numeric, kept, merged, parse_expression};

/// A problem applying one option. `valid_values` is set when fio would
/// print the option's table of valid values on stdout (or, for a
/// deprecated option, its "Option NAME is deprecated").
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OptionError {
    pub(crate) diag: Diagnostic,
    pub(crate) valid_values: Option<&'static OptionDef>,
}

/// Where the options come from: it decides sorting and substitution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    JobFile,
    CommandLine,
}

/// How one invocation reads options: strictly or as fio does, and as
/// which fio release.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Reading {
    pub(crate) mode: Mode,
    pub(crate) release: Release,
}

/// Apply `raw` on top of `scope` (whose earlier settings are in force),
/// read as `reading` says. Returns the errors, in fio's order of
/// application; what fio prints on stderr while reading the values
/// (`--compat=fio`) goes to `warnings`.
pub(crate) fn apply(
    scope: &mut JobOptions,
    raw: &[RawOption],
    origin: Origin,
    keywords: &Keywords,
    reading: Reading,
    warnings: &mut Vec<String>,
) -> Vec<OptionError> {
    let mode = reading.mode;
    let mut errors = Vec::new();
    // The section's settings, at once (growing step by step copied them).
    scope.room_for(raw.len());
    // (1) substitution (a line without `$` has nothing to substitute: it
    // is used as it is, not copied), and each entry's option, looked up
    // once: the sort below and step (3) both need it.
    let release = reading.release;
    let mut items: Vec<(Cow<'_, str>, &RawOption, Option<&'static OptionDef>)> =
        Vec::with_capacity(raw.len());
    for r in raw {
        let text = match origin {
            Origin::JobFile if r.text.contains('$') => {
                match substitute(&r.text, |v| std::env::var(v).ok(), keywords) {
                    Substituted::Text(t) => Cow::Owned(t),
                    Substituted::BadExpression { expr, reason } => {
                        errors.push(err(r, format!("cannot evaluate '{expr}': {reason}")));
                        continue;
                    }
                }
            }
            _ => Cow::Borrowed(r.text.as_str()),
        };
        let def = lookup_in(release, release.canonical(split_entry(&text).0));
        items.push((text, r, def));
    }
    // (2) priority sort, stable
    if origin == Origin::JobFile {
        items.sort_by_key(|(_, _, def)| std::cmp::Reverse(def.map_or(0, |d| d.prio)));
    }
    // (3) core options; engine options wait. `kb_base` is looked up once
    // and again only when a setting changes it: a lookup scans the settings,
    // and doing that per option made a long section quadratic.
    let with_mode = |ctx: ParseCtx| ParseCtx {
        mode,
        release,
        ..ctx
    };
    let mut ctx = with_mode(scope.parse_ctx());
    let mut deferred = Vec::new();
    for (text, r, def) in items {
        match def {
            Some(def) if !def.is_engine_option() => {
                let value = split_entry(&text).1;
                match apply_one(scope, def, value, r, (&ctx, origin), warnings) {
                    Ok(()) if def.name == "kb_base" => ctx = with_mode(scope.parse_ctx()),
                    Ok(()) => {}
                    Err(e) => errors.push(e),
                }
            }
            _ => deferred.push((text, r)),
        }
    }
    // (4) engine options, for the ioengine now in force (engine options
    // change neither it nor kb_base)
    let engine = scope.ioengine().to_string();
    for (text, r) in deferred {
        let (key, value) = split_entry(&text);
        match engine_option(&engine, key, &r.text, reading.release) {
            Ok(def) => {
                if let Err(e) = apply_one(scope, def, value, r, (&ctx, origin), warnings) {
                    errors.push(e);
                }
            }
            Err(kind) => errors.push(OptionError {
                diag: Diagnostic::new(Some(r.span.clone()), kind),
                valid_values: None,
            }),
        }
    }
    // A control character in an option line (fio keeps them in values)
    // would be invisible, or worse, on a terminal.
    for e in &mut errors {
        if let Cow::Owned(shown) = crate::diag::visible(&e.diag.message) {
            e.diag.message = shown;
        }
    }
    errors
}

/// Find `key` (of `entry`, as written) among the options of `engine`, or
/// say why it is not there (as `release` knows it).
fn engine_option(
    engine: &str,
    key: &str,
    entry: &str,
    release: Release,
) -> Result<&'static OptionDef, Kind> {
    // fio knows none of these names here: "Bad option", and its guess.
    let elsewhere = |why: String| Kind::NotAJobOption {
        name: key.to_string(),
        entry: entry.to_string(),
        why,
        fio_suggestion: suggest::fio_closest_job_option(entry, release).map(str::to_string),
    };
    let candidates = || {
        table_of(release)
            .iter()
            .filter(|d| d.answers_to(key) && d.is_engine_option())
    };
    let table = engines::options_of(engine);
    if let Some(def) = candidates().find(|d| d.engines.contains(&table)) {
        if engines::is_available(engine, release) {
            return Ok(def);
        }
    }
    if suggest::FIO_COMMAND_LINE_OPTIONS.contains(&key) {
        return Err(elsewhere(format!(
            "'{key}' is a command-line option (--{key}), not a job option"
        )));
    }
    if !engines::is_available(engine, release) && candidates().next().is_some() {
        return Err(elsewhere(format!(
            "unknown option '{key}': ioengine '{engine}' is not available, so its options are unknown"
        )));
    }
    if let Some(def) = candidates().next() {
        return Err(elsewhere(format!(
            "option '{key}' belongs to ioengine {}, but this job uses ioengine={engine}",
            def.engines.join("/")
        )));
    }
    if let Some(added) = Release::option_added(key) {
        let since = added.since.number();
        return Err(match release.has(added.change) {
            // fio knows it: the refusal is rfio's own.
            true => Kind::Other(format!(
                "option '{key}' ({}) came with fio {since}, and rfio does not run it yet",
                added.what
            )),
            false => elsewhere(format!(
                "unknown option '{key}' (fio {since} added it; rfio behaves as {release})"
            )),
        });
    }
    let names = table_of(release)
        .iter()
        .flat_map(|d| std::iter::once(d.name).chain(d.aliases.iter().copied()));
    Err(Kind::UnknownOption {
        name: key.to_string(),
        entry: entry.to_string(),
        suggestion: suggest::did_you_mean(key, names).map(str::to_string),
        fio_suggestion: suggest::fio_closest_job_option(entry, release).map(str::to_string),
    })
}

/// What fio prints on stderr when it refuses `value` for `def` in entry
/// `r` (from `origin`), each line without its newline (parse.c: a line of
/// the value parser's, then `failed parsing`).
fn fio_refusal(
    def: &OptionDef,
    value: Option<&str>,
    e: &ValueError,
    r: &RawOption,
    origin: Origin,
) -> Vec<String> {
    let key = split_entry(&r.text).0;
    // An option callback's own lines (`plids`: "Placement IDs cannot
    // exceed 0xFFFF").
    if let (Some(_), ValueError::Fio(lines)) = (value, e) {
        let mut out = lines.clone();
        out.push(format!("fio: failed parsing {}", r.text));
        return out;
    }
    match value {
        // fio's range check names the option: "rwmixread: max value out of
        // range: 101 (100 max)".
        Some(_) if matches!(e, ValueError::AboveMax { .. } | ValueError::BelowMin { .. }) => vec![
            format!("{}: {e}", def.name),
            format!("fio: failed parsing {}", r.text),
        ],
        // getopt has the value, fio finds it empty.
        Some("") if origin == Origin::CommandLine && def.fio_type != FioType::StrSet => {
            vec![format!("fio: option {key} requires an argument")]
        }
        None if !matches!(def.fio_type, FioType::StrSet | FioType::Str) => vec![
            format!("Option {} requires an argument", def.name),
            format!("fio: failed parsing {}", r.text),
        ],
        Some(v) if v.ends_with('z') && takes_number(def.fio_type) => vec![
            format!("{}: 'z' suffix isn't applicable", def.name),
            format!("fio: failed parsing {}", r.text),
        ],
        // fio's ioengine callback (`str_ioengine_external_cb`, fio 3.33
        // and 3.42 alike): the path, blanks stripped, is not a regular file.
        Some(v) if def.kind == ValueKind::EngineName => match engines::external_path(v) {
            Some(path) => vec![
                format!("fio: invalid external ioengine path \"{path}\""),
                format!("fio: failed parsing {}", r.text),
            ],
            None => vec![format!("fio: failed parsing {}", r.text)],
        },
        _ => vec![format!("fio: failed parsing {}", r.text)],
    }
}

/// The parser types whose values fio reads as numbers (a trailing `z`
/// is a zone count only for `FIO_OPT_STR_VAL_ZONE`).
fn takes_number(t: FioType) -> bool {
    matches!(
        t,
        FioType::Int | FioType::Ull | FioType::StrVal | FioType::StrValTime
    )
}

fn err(r: &RawOption, message: String) -> OptionError {
    OptionError {
        diag: Diagnostic::at(r.span.clone(), message),
        valid_values: None,
    }
}

/// fio's `parse` debug line of an option just read, for the options whose
/// callbacks print one (`steadystate`).
fn debug_parsed(def: &OptionDef, v: &Value, ctx: &ParseCtx) {
    if !crate::debug::on(crate::debug::Cat::Parse) || def.name != "steadystate" {
        return;
    }
    if let Value::Choice { index, modifier } = v {
        let criterion = def.posvals[*index].value;
        if let Ok(t) = super::value::steadystate::threshold(criterion, modifier.as_deref(), ctx) {
            crate::debug::emit(
                crate::debug::Cat::Parse,
                format_args!("{}", t.debug_message()),
            );
        }
    }
}

/// Parse one option's value and record it. A value the strict parser
/// refuses is read as fio reads it in `--compat=fio` mode (its warnings
/// into `warnings`); in strict mode the refusal says what fio reads.
/// The options whose values may hold bytes that are not UTF-8: the file
/// names, as fio takes them (the plan opens exactly those bytes), and the
/// description (reported with U+FFFD). Elsewhere such a value is refused:
/// rfio would not use the bytes as given.
pub(crate) const BYTES_OPTIONS: &[&str] = &[
    "filename",
    "directory",
    "filename_format",
    "opendir",
    "description",
];

fn apply_one(
    scope: &mut JobOptions,
    def: &'static OptionDef,
    value: Option<&str>,
    r: &RawOption,
    (ctx, origin): (&ParseCtx, Origin),
    warnings: &mut Vec<String>,
) -> Result<(), OptionError> {
    if let Some(v) = value.filter(|v| crate::diag::carries_bytes(v)) {
        if !BYTES_OPTIONS.contains(&def.name) {
            return Err(err(
                r,
                format!(
                    "bad value for option '{}' ('{v}'): it is not UTF-8 text; rfio takes bytes \
                     that are not UTF-8 only in {}",
                    def.name,
                    BYTES_OPTIONS.join("=, ") + "="
                ),
            ));
        }
    }
    let expression = value.is_some_and(|v| is_numeric(def) && v.trim_start().starts_with('('));
    let parsed = match value {
        Some(v) if expression => parse_expression(def, v, ctx),
        _ => parse_value(def, value, ctx),
    };
    // Only for a refused value: fio's reading is worked out again.
    let mut reading = match parsed {
        Err(_) if !expression => fio::read(def, value, ctx),
        _ => None,
    };
    // The value parsed is moved into the setting, not copied.
    let (value_kept, parsed) = match (parsed, ctx.mode) {
        (Ok(v), _) => (Some(v), None),
        (Err(e), Mode::Fio) => match reading.take() {
            Some(reading) => {
                warnings.extend(reading.warnings);
                (
                    Some(reading.value.unwrap_or_else(|| kept(scope, def))),
                    Some(e),
                )
            }
            None => (None, Some(e)),
        },
        (Err(e), Mode::Strict) => (None, Some(e)),
    };
    if let Some(v) = value_kept {
        debug_parsed(def, &v, ctx);
        let v = merged(scope, def, v);
        scope.push(Setting {
            def,
            text: value.map(str::to_string),
            value: v,
            span: r.span.clone(),
            slot: name_slot(def.name),
        });
        return Ok(());
    }
    let Some(e) = parsed else {
        unreachable!("a value that parsed is kept")
    };
    // What fio prints on stdout: a choice's table of valid values, or a
    // deprecated option's notice.
    let valid_values =
        matches!(e, ValueError::NotAChoice { .. } | ValueError::Deprecated(_)).then_some(def);
    let msg = match (value, &reading) {
        (Some(v), Some(reading)) => {
            hint::refusal(def, &crate::diag::visible(&r.text), v, &e, reading, ctx)
        }
        (Some(v), None) => format!(
            "bad value for option '{}' ('{}={v}'): {e}",
            def.name,
            split_entry(&r.text).0
        ),
        (None, _) => format!("option '{}': {e}", def.name),
    };
    let mut why = msg;
    if matches!(e, ValueError::NotAChoice { .. }) {
        let names: Vec<&str> = def.posvals.iter().map(|p| p.value).collect();
        why.push_str(&format!("; valid values: {}", names.join(", ")));
    }
    let kind = Kind::BadValue {
        option: def.name.to_string(),
        value: value.map(str::to_string),
        why,
        // A value fio reads its own way (refused strictly): no fio error.
        fio: match reading {
            Some(_) => Vec::new(),
            None => fio_refusal(def, value, &e, r, origin),
        },
    };
    Err(OptionError {
        diag: Diagnostic::new(Some(r.span.clone()), kind),
        valid_values,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;

    fn errors_of(text: &str) -> Vec<String> {
        let path: Arc<Path> = Arc::from(Path::new("job.fio"));
        let entry = RawOption {
            text: text.to_string(),
            span: Span::file(&path, 3, 1),
        };
        let mut scope = JobOptions::default();
        apply(
            &mut scope,
            &[entry],
            Origin::JobFile,
            &Keywords::from_system(),
            Reading::default(),
            &mut Vec::new(),
        )
        .into_iter()
        .map(|e| e.diag.message)
        .collect()
    }

    /// fio keeps control characters inside values and names; where rfio
    /// refuses such a value the message shows them.
    #[test]
    fn control_characters_show_in_messages() {
        assert_eq!(
            errors_of("bs=4\x7fk"),
            [
                "bs=4\\x7fk: fio reads this as 4 bytes ('\\x7fk' is ignored); write bs=4 if you \
              mean that, or run with --compat=fio to read it as fio does"
            ]
        );
        assert_eq!(errors_of("xx\x01yy=1"), ["unknown option 'xx\\x01yy'"]);
        // Blanks and control characters at the end of a name are dropped
        // (fio: `bs<DEL>=4k` is `bs`).
        assert!(errors_of("bs\x7f=4k").is_empty());
        assert!(errors_of("bs\t=4k").is_empty());
    }
}
