//! What the plan is built from besides the job files: the command line's
//! job sections and the flags that change the plan.

use std::path::PathBuf;

use crate::diag::Span;
use crate::jobfile::Mode;
use crate::options::jobopts::RawOption;

/// A command-line job section: `--name=X` and the options after it (or the
/// global options before the first `--name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CmdSection {
    /// `None` for the options before the first `--name`.
    pub(crate) name: Option<String>,
    pub(crate) span: Span,
    pub(crate) options: Vec<RawOption>,
    /// Read as fio: fio adds a command-line job as it reads the next
    /// `--name`, and prints its description line if the output is normal
    /// then, whatever the formats asked after (`Some`); the last one it
    /// adds at the end, with the formats of the whole line (`None`).
    pub(crate) described: Option<bool>,
}

impl CmdSection {
    pub(crate) fn is_global(&self) -> bool {
        self.name.as_deref().is_none_or(|n| n.starts_with("global"))
    }
}

/// The plan's input besides the job files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    /// `--readonly`: no job may write.
    pub(crate) readonly: bool,
    /// `--aux-path`: where the jobs' verify state files and dumps go.
    pub(crate) aux_path: Option<PathBuf>,
    /// `--warnings-fatal`: a job fio warns about is refused.
    pub(crate) warnings_fatal: bool,
    /// `--parse-only`: the plan is checked, not kept.
    pub(crate) parse_only: bool,
    /// `--showcmd`: the sections keep their options, to be printed.
    pub(crate) showcmd: bool,
    /// `--section`: only these job sections of the job files (all when
    /// empty).
    pub(crate) sections: Vec<String>,
    /// The command line's job sections, in order, read before the files.
    pub(crate) cmd_sections: Vec<CmdSection>,
    /// `--profile=NAME`, where it was given: the profile's jobs follow all
    /// others (`plan::profile`).
    pub(crate) profile: Option<(String, Span)>,
    /// How job files and values are read: strictly, or as fio 3.33 reads
    /// them (`--compat=fio`, or rfio called as `fio`).
    pub(crate) mode: Mode,
    /// The fio release rfio behaves as (`--compat=fio-3.NN`,
    /// `RFIO_FIO_VERSION`).
    pub(crate) release: crate::release::Release,
    /// The job files came to a server from its client: no implicit
    /// `stonewall` starts each file's first job (fio's server parses with
    /// its stonewall flag off, so every file's jobs share group 0).
    pub(crate) files_share_group: bool,
    /// On a server: its own address of the client's connection, which
    /// `unique_filename` puts before generated file names (`ADDR.`).
    pub(crate) file_prefix: Option<String>,
}

impl Input {
    /// How this invocation reads options.
    pub(crate) fn reading(&self) -> crate::options::jobopts::Reading {
        crate::options::jobopts::Reading {
            mode: self.mode,
            release: self.release,
        }
    }

    /// Whether the plan is to run (not a dry run: `--parse-only` and
    /// `--showcmd` skip the checks fio makes in its option callbacks).
    pub(crate) fn runs(&self) -> bool {
        !self.parse_only && !self.showcmd
    }
}

/// Record command-line job option `name` (`value` when given) at `span`:
/// `--name` opens a section, others join the current one (a global
/// section before the first `--name`).
pub(crate) fn push_job_option(
    sections: &mut Vec<CmdSection>,
    name: &str,
    value: Option<String>,
    span: Span,
) {
    if name == "name" || sections.is_empty() {
        sections.push(CmdSection {
            name: if name == "name" { value.clone() } else { None },
            span: span.clone(),
            options: Vec::new(),
            described: None,
        });
    }
    let text = match value {
        Some(v) => format!("{name}={v}"),
        None => name.to_string(),
    };
    if let Some(section) = sections.last_mut() {
        section.options.push(RawOption { text, span });
    }
}
