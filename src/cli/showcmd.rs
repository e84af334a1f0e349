//! `--showcmd`: each job file as the equivalent command line, byte for byte
//! as fio 3.33 prints it.
//!
//! Per job file fio prints `fio `, then per section `--name=NAME ` (not for
//! global sections) and the section's options in the order they were
//! applied, each as `--opt=value ` (or `--opt ` when bare; `description`
//! quoted), and a newline. A global section prints every global option in
//! force, again. fio stops at the first section that fails; what it printed
//! on stdout for that section (tables of valid values) comes out too.

use crate::jobfile::ast::Stop;
use crate::options::{cmdhelp, FioType};
use crate::plan::{Frontend, SectionOutcome};

/// The text fio prints on stdout for the valid values of every choice
/// option that failed in `section` (empty when none did).
pub(crate) fn valid_values_tables(section: &SectionOutcome) -> String {
    section
        .errors
        .iter()
        .filter_map(|e| e.valid_values)
        .map(|d| match d.fio_type {
            FioType::Deprecated => format!("Option {} is deprecated\n", d.name),
            _ => cmdhelp::valid_values(d),
        })
        .collect()
}

/// One option the way fio's `dump_print_option` writes it.
fn option(name: &str, value: Option<&str>) -> String {
    match value {
        None => format!("--{name} "),
        Some(v) if name == "description" => format!("--{name}=\"{v}\" "),
        Some(v) => format!("--{name}={v} "),
    }
}

/// The `--showcmd` output for job file `file` (up to `stop`, where fio
/// stopped reading it), and whether it failed.
pub(crate) fn render_file(fe: &Frontend, file: usize, stop: Option<Stop>) -> (String, bool) {
    let mut out = String::new();
    let mut failed = stop.is_some();
    let sections = fe.sections.iter().filter(|s| s.file == Some(file));
    for (n, s) in sections.enumerate() {
        let partial = match stop {
            Some(st) if n > st.good_sections => break,
            Some(st) if n == st.good_sections && st.partial.is_none() => break,
            Some(st) if n == st.good_sections => st.partial,
            _ => None,
        };
        if n == 0 {
            out.push_str("fio ");
        }
        if !s.global {
            out.push_str(&format!("--name={} ", s.name));
        }
        if !s.errors.is_empty() {
            out.push_str(&valid_values_tables(s));
            failed = true;
            break;
        }
        if partial.is_some_and(|p| !p.show_options) {
            break;
        }
        // fio reads the section's options (its notices) before it dumps
        // them.
        out.push_str(&s.deprecated_notices());
        for (name, value) in s.dump() {
            out.push_str(&option(name, value));
        }
        if partial.is_some() {
            break;
        }
    }
    out.push('\n');
    (out, failed)
}
