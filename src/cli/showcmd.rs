//! `--showcmd`: each job file as the equivalent command line, byte for byte
//! as fio 3.33 prints it.
//!
//! Per job file fio prints `fio `, then per section `--name=NAME ` (not for
//! global sections) and the section's options in the order they were
//! applied, each as `--opt=value ` (or `--opt ` when bare; `description`
//! quoted), and a newline. A global section prints every global option in
//! force, again. fio stops at the first section that fails; what it printed
//! on stdout for that section (tables of valid values) comes out too.

use crate::options::cmdhelp;
use crate::plan::{Frontend, SectionOutcome};

/// The text fio prints on stdout for the valid values of every choice
/// option that failed in `section` (empty when none did).
pub fn valid_values_tables(section: &SectionOutcome) -> String {
    section
        .errors
        .iter()
        .filter_map(|e| e.valid_values)
        .map(cmdhelp::valid_values)
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

/// The `--showcmd` output for job file `file` (sections that ran before the
/// file's first error, `stop_after`, are printed), and whether it failed.
pub fn render_file(fe: &Frontend, file: usize, good_sections: Option<usize>) -> (String, bool) {
    let mut out = String::new();
    let mut first = true;
    let mut failed = false;
    for (n, s) in fe
        .sections
        .iter()
        .filter(|s| s.file == Some(file))
        .enumerate()
    {
        if good_sections.is_some_and(|g| n >= g) {
            failed = true;
            break;
        }
        if first {
            out.push_str("fio ");
            first = false;
        }
        if !s.global {
            out.push_str(&format!("--name={} ", s.name));
        }
        if !s.errors.is_empty() {
            out.push_str(&valid_values_tables(s));
            failed = true;
            break;
        }
        for (name, value) in &s.dump {
            out.push_str(&option(name, value.as_deref()));
        }
    }
    if good_sections.is_some() {
        failed = true;
    }
    out.push('\n');
    (out, failed)
}
