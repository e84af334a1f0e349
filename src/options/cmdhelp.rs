//! `--cmdhelp` and `--enghelp`: fio 3.33's option help, byte for byte.
//!
//! Everything here is a pure function of the option table. It follows
//! `show_cmd_help`, `print_option`, `show_option_help` and
//! `show_option_values` of fio's parse.c and `fio_show_ioengine_help` of
//! ioengines.c. What fio does, as observed with fio 3.33:
//!
//! | request | stdout | stderr | exit |
//! |---|---|---|---|
//! | `--cmdhelp`, `--cmdhelp=all` | the option tree | | 0 |
//! | `--cmdhelp=NAME` (name or alias, exact) | the option's help | | 0 |
//! | `--cmdhelp=NAME`, no such option | ` - showing closest match` and its help, or an empty line | `No such command: NAME` (no newline) | **0** |
//! | `--enghelp`, `--enghelp=` | `Available IO engines:` list | | 0 |
//! | `--enghelp=ENGINE` | the engine's option tree | | 0 |
//! | `--enghelp=ENGINE[,CMD]`, engine without options | `IO engine ENGINE has no options` | | 1 |
//! | `--enghelp=ENGINE[,CMD]`, unknown engine | `IO engine ENGINE not found` | `fio: engine ENGINE not loadable` | 1 |
//! | `--enghelp=ENGINE,CMD` | as `--cmdhelp=CMD` over the engine's options | | 0, or **1** when CMD is not found |
//!
//! Matching is exact (no abbreviations): `--cmdhelp=iodept` is a miss that
//! shows `iodepth` as the closest match, which fio picks as the first
//! option in table order at the smallest edit distance, shown only when that
//! distance is below 3 (`--cmdhelp=` shows `rw`). Deprecated options are
//! invisible to `--cmdhelp`, as misses and as closest matches. `CMD=all`
//! lists all options. Where both streams are written, fio writes the stderr
//! text first.
//!
//! [`cmdhelp_output`] and [`enghelp_output`] give all three parts;
//! [`cmdhelp`], [`enghelp`] and [`enghelp_cmd`] are the short forms, `Ok` with
//! stdout when fio prints only stdout and exits 0, `Err` otherwise (the text
//! fio writes to stderr, or to stdout when it writes nothing to stderr).

use super::def::{FioType, OptionDef};
use super::engines::{available_of, engine_options, is_available, ENGINES};
use super::profiles::{profile_of, PROFILE_OPTIONS};
use super::suggest::string_distance;
use super::table_of;
use crate::release::Release;

/// Everything one help request prints, and fio's exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpOutput {
    pub stdout: String,
    /// Written before `stdout`.
    pub stderr: String,
    pub status: i32,
}

impl HelpOutput {
    fn ok(stdout: String) -> Self {
        HelpOutput {
            stdout,
            stderr: String::new(),
            status: 0,
        }
    }

    /// The short form: `Ok(stdout)` for a clean success.
    fn into_result(self) -> Result<String, String> {
        if self.status == 0 && self.stderr.is_empty() {
            Ok(self.stdout)
        } else if self.stderr.is_empty() {
            Err(self.stdout)
        } else {
            Err(self.stderr)
        }
    }
}

/// `fio --cmdhelp[=ARG]` of Debian's fio 3.33 (what `tests/it/cmdhelp.rs`
/// compares byte for byte; rfio's own `--cmdhelp` is of the chosen
/// release, [`cmdhelp_output_in`]); `None` is the bare `--cmdhelp`.
pub fn cmdhelp_output(arg: Option<&str>) -> HelpOutput {
    cmdhelp_output_in(Release::V3_33, arg)
}

/// [`cmdhelp_output`] as `release` prints it (its option table).
pub fn cmdhelp_output_in(release: Release, arg: Option<&str>) -> HelpOutput {
    let (stdout, stderr, _) = show_cmd_help(&core_options(release), arg);
    HelpOutput {
        stdout,
        stderr,
        status: 0,
    }
}

/// `fio --profile=PROFILE --cmdhelp[=ARG]`: as [`cmdhelp_output`] over
/// that profile's options only (fio's `show_cmd_help` with `exec_profile`
/// set); over the core options without a profile.
pub fn profile_cmdhelp_output(
    release: Release,
    arg: Option<&str>,
    profile: Option<&str>,
) -> HelpOutput {
    let Some(profile) = profile else {
        return cmdhelp_output_in(release, arg);
    };
    let options: Vec<&OptionDef> = PROFILE_OPTIONS
        .iter()
        .filter(|o| profile_of(o) == Some(profile))
        .collect();
    let (stdout, stderr, _) = show_cmd_help(&options, arg);
    HelpOutput {
        stdout,
        stderr,
        status: 0,
    }
}

/// `fio --cmdhelp=all` of fio 3.33 (and bare `fio --cmdhelp`): every option that is
/// neither deprecated nor a child, each followed by its children indented
/// two spaces per level.
pub fn cmdhelp_all() -> String {
    cmdhelp_output(None).stdout
}

/// `fio --cmdhelp=NAME` of fio 3.33: `Ok(stdout)` when NAME is an option's name or alias
/// (or `all`); otherwise `Err("No such command: NAME")`, fio's stderr text
/// (fio still exits 0 and also prints the closest match on stdout; see
/// [`cmdhelp_output`]).
pub fn cmdhelp(name: &str) -> Result<String, String> {
    let out = cmdhelp_output(Some(name));
    if out.stderr.is_empty() {
        Ok(out.stdout)
    } else {
        Err(out.stderr)
    }
}

/// `fio --enghelp[=ARG]` of fio 3.33; `None` is the bare `--enghelp`.
/// `ARG` is `ENGINE` or `ENGINE,CMD` (split at the first comma).
pub fn enghelp_output(arg: Option<&str>) -> HelpOutput {
    enghelp_output_in(Release::V3_33, arg)
}

/// `fio --enghelp[=ARG]` of fio `release`: its engines are those the
/// release has (fio 3.37 added `dircreate`, 3.34 removed `pmemblk`), with
/// their options in its table.
pub fn enghelp_output_in(release: Release, arg: Option<&str>) -> HelpOutput {
    match arg {
        None | Some("") => HelpOutput::ok(enghelp_list_of(available_of(
            ENGINES.iter().copied(),
            release,
        ))),
        Some(arg) => match arg.split_once(',') {
            Some((engine, cmd)) => engine_help(release, engine, Some(cmd)),
            None => engine_help(release, arg, None),
        },
    }
}

/// `fio --enghelp`: the engines of this build (fio 3.33's).
pub fn enghelp_list() -> String {
    enghelp_list_of(ENGINES.iter().copied())
}

/// fio's `--enghelp` list of `engines` (rfio's `--enghelp` lists the
/// engines it runs).
pub fn enghelp_list_of<'a>(engines: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::from("Available IO engines:\n");
    for e in engines {
        out.push('\t');
        out.push_str(e);
        out.push('\n');
    }
    out
}

/// `fio --enghelp=ENGINE` of fio 3.33: the engine's options as a tree.
pub fn enghelp(engine: &str) -> Result<String, String> {
    engine_help(Release::V3_33, engine, None).into_result()
}

/// `fio --enghelp=ENGINE,CMD` of fio 3.33: the help of one engine option.
pub fn enghelp_cmd(engine: &str, cmd: &str) -> Result<String, String> {
    engine_help(Release::V3_33, engine, Some(cmd)).into_result()
}

/// fio's `show_option_values`: the `valid values` table of a choice option,
/// then an empty line. fio prints it on stdout when a value fails to match
/// (before `fio: failed parsing ...` on stderr); `--cmdhelp` prints it too,
/// and there the empty line ends every option, choice or not.
pub fn valid_values(def: &OptionDef) -> String {
    let mut out = String::new();
    for (i, pv) in def.posvals.iter().enumerate() {
        let label = if i == 0 { "valid values" } else { "" };
        out.push_str(&format!("{label:>20}: {:<10}", pv.value));
        if !pv.help.is_empty() {
            out.push(' ');
            out.push_str(pv.help);
        }
        out.push('\n');
    }
    out.push('\n');
    out
}

/// fio's `show_option_help` without the valid values: the `alias`, `type`,
/// `default` and `range` lines. fio writes these to stderr (and the valid
/// values to stdout) after "Correct format for offending option" when an
/// option's verify step fails.
pub(crate) fn option_details(def: &OptionDef) -> String {
    let mut out = String::new();
    for alias in def.aliases {
        out.push_str(&format!("{:>20}: {alias}\n", "alias"));
    }
    out.push_str(&format!("{:>20}: {}\n", "type", type_help(def.fio_type)));
    out.push_str(&format!(
        "{:>20}: {}\n",
        "default",
        def.default.unwrap_or("no default")
    ));
    if let Some(p) = profile_of(def) {
        out.push_str(&format!("{:>20}: only for profile '{p}'\n", "valid"));
    }
    if let Some(range) = range_line(def) {
        out.push_str(&format!("{:>20}: {range}\n", "range"));
    }
    out
}

/// fio's description of a parser type (`typehelp[]` of 3.33's parse.c; the
/// entry for `FIO_OPT_STR_VAL_ZONE` is missing there, so printf prints a
/// NULL string).
fn type_help(t: FioType) -> &'static str {
    match t {
        FioType::Str | FioType::StrUll | FioType::StrVal | FioType::StrStore => "string (opt=bla)",
        FioType::StrMulti => "string with possible k/m/g postfix (opt=4k)",
        FioType::StrValTime => "string with time postfix (opt=10s)",
        FioType::Range => "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])",
        FioType::Int | FioType::Ull => "integer value (opt=100)",
        FioType::Bool => "boolean value (opt=1)",
        FioType::FloatList => "list of floating point values separated by ':' (opt=5.9:7.8)",
        FioType::StrSet => "empty or boolean value ([0|1])",
        FioType::StrValZone => "(null)",
        FioType::Deprecated | FioType::SoftDeprecated => "deprecated",
        FioType::Unsupported => "unsupported",
    }
}

/// The text after `range: `, if fio prints that line (`show_option_range`).
fn range_line(def: &OptionDef) -> Option<String> {
    if def.fio_type == FioType::FloatList {
        if def.min.is_none() && def.max.is_none() {
            return None;
        }
        let mut s = format!("min={:.6}", def.min.unwrap_or(0) as f64);
        if let Some(max) = def.max {
            s.push_str(&format!(", max={:.6}", max as f64));
        }
        return Some(s);
    }
    if !def.posvals.is_empty() {
        return None;
    }
    // fio's options_init gives core integer options a maximum of UINT_MAX,
    // printed with %d; engine options are printed as declared.
    let uint_max = matches!(def.fio_type, FioType::Int | FioType::Ull) && !def.is_engine_option();
    let max = def.max.unwrap_or(if uint_max { -1 } else { 0 });
    let min = def.min.unwrap_or(0);
    if min == 0 && max == 0 {
        return None;
    }
    let mut s = format!("min={min}");
    if max != 0 {
        s.push_str(&format!(", max={max}"));
    }
    Some(s)
}

fn core_options(release: Release) -> Vec<&'static OptionDef> {
    table_of(release)
        .iter()
        .filter(|o| !o.is_engine_option())
        .collect()
}

fn is_deprecated(o: &OptionDef) -> bool {
    matches!(o.fio_type, FioType::Deprecated | FioType::SoftDeprecated)
}

/// The `NAME: help` line and details of one matched option.
fn option_block(o: &OptionDef) -> String {
    format!(
        "{:>20}: {}\n{}{}",
        o.name,
        o.help,
        option_details(o),
        valid_values(o)
    )
}

/// `--enghelp=ENGINE[,CMD]`, as fio `release` answers it.
fn engine_help(release: Release, engine: &str, cmd: Option<&str>) -> HelpOutput {
    if !is_available(engine, release) {
        return HelpOutput {
            stdout: format!("IO engine {engine} not found\n"),
            stderr: format!("fio: engine {engine} not loadable\n"),
            status: 1,
        };
    }
    let options: Vec<_> = engine_options(release, engine).collect();
    if options.is_empty() {
        return HelpOutput {
            stdout: format!("IO engine {engine} has no options\n"),
            stderr: String::new(),
            status: 1,
        };
    }
    let (stdout, stderr, found) = show_cmd_help(&options, cmd);
    HelpOutput {
        stdout,
        stderr,
        status: if found { 0 } else { 1 },
    }
}

/// fio's `show_cmd_help` over `options` (one fio option table, in order):
/// stdout, stderr, and whether something matched.
fn show_cmd_help(options: &[&OptionDef], name: Option<&str>) -> (String, String, bool) {
    let show_all = matches!(name, None | Some("all"));
    let mut out = String::new();
    let mut found = false;
    let mut closest: Option<(usize, &OptionDef)> = None;
    for (i, o) in options.iter().enumerate() {
        if is_deprecated(o) {
            continue;
        }
        let mut matched = false;
        if let Some(name) = name {
            if o.answers_to(name) {
                matched = true;
            } else {
                let d = string_distance(name, o.name);
                if !matches!(closest, Some((best, _)) if best <= d) {
                    closest = Some((d, o));
                }
            }
        }
        if show_all || matched {
            found = true;
            if matched {
                out.push_str(&format!("{:>20}: {}\n", o.name, o.help));
            }
            if show_all {
                if o.parent.is_none() {
                    print_option(options, i, &mut out);
                }
                continue;
            }
        }
        if matched {
            out.push_str(&option_details(o));
            out.push_str(&valid_values(o));
        }
    }
    if found {
        return (out, String::new(), true);
    }
    let stderr = format!("No such command: {}", name.unwrap_or_default());
    match closest {
        Some((d, o)) if d < 3 => {
            out.push_str(" - showing closest match\n");
            out.push_str(&option_block(o));
        }
        _ => out.push('\n'),
    }
    (out, stderr, false)
}

/// fio's `print_option`: option `i`, then its children one level deeper,
/// then the children of the last child printed, and so on. A child is an
/// option later in the table whose `parent` is the *name* of the option
/// (an alias does not count).
fn print_option(options: &[&OptionDef], i: usize, out: &mut String) {
    let line = |o: &OptionDef, level: usize, out: &mut String| {
        let name = format!("{}{}", "  ".repeat(level), o.name);
        out.push_str(&format!("{name:<24}: {}\n", o.help));
    };
    line(options[i], 0, out);
    let find_child = |from: usize, parent: usize| {
        (from + 1..options.len()).find(|&j| options[j].parent == Some(options[parent].name))
    };
    let (mut cur, mut parent, mut level) = (i, i, 0);
    loop {
        level += 1;
        let mut printed = false;
        while let Some(child) = find_child(cur, parent) {
            line(options[child], level, out);
            cur = child;
            printed = true;
        }
        parent = cur;
        if !printed {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::lookup;

    #[test]
    fn valid_values_pads_to_ten_and_skips_null_help() {
        let sync = lookup("sync").unwrap();
        assert_eq!(
            valid_values(sync),
            "        valid values: none      \n                    : 0         \n                    : sync      \n                    : 1         \n                    : dsync     \n\n"
        );
        assert_eq!(valid_values(lookup("name").unwrap()), "\n");
    }

    #[test]
    fn bool_and_int_ranges() {
        assert_eq!(
            range_line(lookup("direct").unwrap()).as_deref(),
            Some("min=0, max=1")
        );
        assert_eq!(
            range_line(lookup("iodepth").unwrap()).as_deref(),
            Some("min=1, max=-1")
        );
        assert_eq!(
            range_line(lookup("filesize").unwrap()).as_deref(),
            Some("min=1")
        );
        assert_eq!(
            range_line(lookup("percentile_list").unwrap()).as_deref(),
            Some("min=0.000000, max=100.000000")
        );
        assert_eq!(range_line(lookup("rw").unwrap()), None);
    }

    #[test]
    fn misses_show_the_closest_option() {
        let out = cmdhelp_output(Some("iodept"));
        assert_eq!(out.stderr, "No such command: iodept");
        assert!(out
            .stdout
            .starts_with(" - showing closest match\n             iodepth: "));
        assert_eq!(out.status, 0);
        assert_eq!(cmdhelp_output(Some("zzzzzzzzz")).stdout, "\n");
        assert!(cmdhelp("zzzzzzzzz").is_err());
        assert_eq!(cmdhelp("all"), Ok(cmdhelp_all()));
    }

    #[test]
    fn engine_help_statuses() {
        assert_eq!(
            enghelp_output(Some("sync")).stdout,
            "IO engine sync has no options\n"
        );
        assert_eq!(enghelp_output(Some("sync")).status, 1);
        assert_eq!(
            enghelp_output(Some("nosuch")).stderr,
            "fio: engine nosuch not loadable\n"
        );
        assert_eq!(enghelp_output(Some("libaio,nosuch")).status, 1);
        assert_eq!(enghelp_output(Some("")).stdout, enghelp_list());
        assert!(enghelp("libaio")
            .unwrap()
            .starts_with("userspace_reap          : "));
    }
}
