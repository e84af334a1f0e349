//! The shape of one option definition.
//!
//! Every option fio 3.33 knows is described once, by an [`OptionDef`] in
//! [`super::table::OPTIONS`]. The job-file parser, the command line,
//! `--cmdhelp`, `--showcmd`, validation and "did you mean" all read that table;
//! nothing else in rfio knows option names except the plan, which reads the
//! typed values the table's parsers produced.

/// fio's own parser type for an option (`enum fio_opt_type` in fio's
/// `parse.h`). It decides how `--cmdhelp` describes the option and how a bare
/// option (no `=value`) is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FioType {
    /// `FIO_OPT_STR`: a string checked against `posvals` or handled by a callback.
    Str,
    /// `FIO_OPT_STR_ULL`: a string converted to an unsigned 64-bit number.
    StrUll,
    /// `FIO_OPT_STR_MULTI`: several values from `posvals`, separated.
    StrMulti,
    /// `FIO_OPT_STR_VAL`: a number with size suffixes, given as a string.
    StrVal,
    /// `FIO_OPT_STR_VAL_TIME`: a number with time suffixes.
    StrValTime,
    /// `FIO_OPT_STR_VAL_ZONE`: a size that also accepts a `z` (zones) suffix.
    StrValZone,
    /// `FIO_OPT_STR_STORE`: a string stored verbatim.
    StrStore,
    /// `FIO_OPT_RANGE`: one to three `lo-hi` ranges.
    Range,
    /// `FIO_OPT_INT`: a 32-bit integer.
    Int,
    /// `FIO_OPT_ULL`: a 64-bit unsigned integer.
    Ull,
    /// `FIO_OPT_BOOL`: `0` or `1`, value required.
    Bool,
    /// `FIO_OPT_FLOAT_LIST`: `:`-separated floating point values.
    FloatList,
    /// `FIO_OPT_STR_SET`: a flag; bare means on.
    StrSet,
    /// `FIO_OPT_DEPRECATED`: accepted and ignored with a warning.
    Deprecated,
    /// `FIO_OPT_SOFT_DEPRECATED`: accepted and ignored silently.
    SoftDeprecated,
    /// `FIO_OPT_UNSUPPORTED`: not supported on this platform/build.
    Unsupported,
}

/// How rfio interprets the text of a value once fio's parser type accepted it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueKind {
    /// Free text, kept as written.
    Text,
    /// An ioengine name (`psync`, `libaio`, `external:/path/engine.so`).
    EngineName,
    /// One of `posvals` (fio's `strncmp` matching rule).
    Choice,
    /// `rw`: one of `posvals`, optionally followed by `:N` (offset modifier).
    ChoiceWithModifier,
    /// A plain integer (decimal or `0x` hex), with k/m/g multipliers as fio
    /// applies them to every integer.
    Int,
    /// A byte quantity: k/m/g/t/p suffixes honouring `kb_base`.
    Size,
    /// A byte quantity or a percentage (`size=50%`).
    SizeOrPercent,
    /// A time; the unit when no suffix is given is in [`OptionDef::time_unit`].
    Time,
    /// A time, or `lo-hi` for a random time in that range (`startdelay`).
    TimeOrRange,
    /// `0` or `1`.
    Bool,
    /// Bare (on), `=0` or `=1`.
    Flag,
    /// `lo-hi` (or `lo:hi`) byte ranges.
    SizeRange,
    /// A byte quantity, or a `lo-hi` range (`filesize`: a random size per file).
    SizeOrRange,
    /// `:`-separated floating point numbers.
    FloatList,
    /// `bssplit`: `bs/pct:bs/pct[,...]` per direction.
    BsSplit,
    /// CPU lists: `0,5,8-15`.
    CpuList,
    /// `plids`: placement IDs and ranges (`1,3-5`), at most 128, each at
    /// most 0xffff; kept as written.
    PlacementIds,
    /// `random_distribution`: `random`, `zipf:T`, `pareto:T`, `normal:T`, `zoned:...`.
    RandomDistribution,
    /// Accepted and ignored.
    Ignored,
}

/// The unit a time value has when written without a suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeUnit {
    Seconds,
    Micros,
}

/// How many per-direction (read, write, trim) values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Split {
    /// One value.
    One,
    /// `read,write`.
    ReadWrite,
    /// `read,write,trim`.
    ReadWriteTrim,
}

/// One allowed value of a choice option, with fio's help text for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PosVal {
    pub(crate) value: &'static str,
    pub(crate) help: &'static str,
}

/// Whether rfio can execute jobs that set this option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Executed with fio's semantics.
    Yes,
    /// Parsed and validated; a job that sets it fails before any I/O with
    /// "rfio does not support OPTION yet".
    NotYet,
    /// Parsed and ignored, as fio ignores it (deprecated options, options with
    /// no effect on a Linux thread-per-job run).
    Ignored,
}

/// One option, as fio 3.33 defines it.
#[derive(Debug, Clone, Copy)]
pub struct OptionDef {
    /// Canonical name (what `--showcmd` prints).
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// fio's parser type.
    pub fio_type: FioType,
    /// How rfio reads the value.
    pub(crate) kind: ValueKind,
    /// Unit of a suffix-less time value (only for [`ValueKind::Time`]).
    pub(crate) time_unit: TimeUnit,
    /// Per-direction values.
    pub(crate) split: Split,
    /// Default as `--cmdhelp` prints it; `None` prints "no default".
    pub(crate) default: Option<&'static str>,
    /// Lower bound checked after parsing (`range: min=`).
    pub(crate) min: Option<i64>,
    /// Upper bound (`max=-1` in `--cmdhelp` is `None` here).
    pub(crate) max: Option<i64>,
    /// Allowed values for choices.
    pub posvals: &'static [PosVal],
    /// Parse priority inside a section: higher first, file order otherwise.
    pub(crate) prio: i8,
    /// The option this one is listed under in `--cmdhelp=all` (fio's `parent`).
    pub(crate) parent: Option<&'static str>,
    /// HOWTO section the option belongs to (a column of the generated
    /// table that nothing prints yet; the table's tests check it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) category: &'static str,
    /// fio's one-line help.
    pub(crate) help: &'static str,
    /// The ioengines that accept this option; empty for core options.
    pub engines: &'static [&'static str],
    /// Whether rfio runs it.
    pub support: Support,
}

impl OptionDef {
    /// Whether `name` is this option's name or one of its aliases (exact,
    /// case-sensitive, as fio matches job-file option names).
    pub(crate) fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }

    /// Whether this is an ioengine-private option.
    pub fn is_engine_option(&self) -> bool {
        !self.engines.is_empty()
    }
}

/// Two definitions are the same option when they have the same name and
/// belong to the same engines (the table holds each once).
impl PartialEq for OptionDef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.engines == other.engines
    }
}

/// One change a later release made to the option table.
#[derive(Debug)]
pub(crate) struct Later {
    pub(crate) since: crate::release::Release,
    pub(crate) revision: Revision,
}

#[derive(Debug)]
pub(crate) enum Revision {
    /// A new option, placed after the first of `after` the table has (the
    /// options before it in the newer release's table, nearest first).
    Add {
        after: &'static [&'static str],
        def: OptionDef,
    },
    /// A new definition of an option of the same name and engines.
    Replace(OptionDef),
    /// An option that is gone (or became another's alias).
    Remove {
        name: &'static str,
        engines: &'static [&'static str],
    },
}
