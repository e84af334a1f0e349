//! The checks and the ways of running a binary for them.
//!
//! [`Check`] is the registry: one variant per check, [`Check::ALL`] lists them in report order.
//! A check names the [`Mode`]s it runs each binary in (the same mode is run once per file and
//! shared between the checks that need it). Which job files a check applies to is the file's
//! header's business (corpus.rs, `JobFile::applies`); how a check judges its runs is check.rs's.

use std::ffi::OsString;
use std::path::Path;

use crate::spec::RunSpec;

/// One way of running a job file through both binaries and comparing the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// `BIN --showcmd FILE`: stdout byte-identical, same exit status.
    Showcmd,
    /// `BIN --parse-only FILE`: stdout byte-identical, same exit status.
    ParseOnly,
    /// A real run (`--output-format=json+`, then `--minimal` or the header's terse version):
    /// same exit status, JSON and terse layout, deterministic values exact, timing values
    /// plausible, same files and logs left behind. Only for `; conformance: run` files.
    Run,
    /// The seed scripts' pipelines (awk on the terse line, jq on the JSON, awk on the iops logs)
    /// give numbers of the same shape on both outputs. Only for `; conformance: run` files.
    Pipelines,
}

/// How a binary is run for a check. Each mode runs at most once per job file and binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Mode {
    /// `--showcmd FILE`
    Showcmd,
    /// `--parse-only FILE`
    ParseOnly,
    /// `--output-format=json+ FILE`, keeping the files the run leaves behind.
    JsonPlus,
    /// `--minimal FILE` (terse version 3).
    Minimal,
    /// `--output-format=terse --terse-version=N FILE`.
    Terse(u8),
}

impl Mode {
    /// The arguments both binaries get for `job` (an absolute path).
    pub(crate) fn args(self, job: &Path) -> Vec<OsString> {
        let mut args: Vec<OsString> = match self {
            Mode::Showcmd => vec!["--showcmd".into()],
            Mode::ParseOnly => vec!["--parse-only".into()],
            Mode::JsonPlus => vec!["--output-format=json+".into()],
            Mode::Minimal => vec!["--minimal".into()],
            Mode::Terse(version) => vec![
                "--output-format=terse".into(),
                format!("--terse-version={version}").into(),
            ],
        };
        args.push(job.as_os_str().to_owned());
        args
    }

    /// How the report names this run.
    pub(crate) fn name(self) -> String {
        match self {
            Mode::Showcmd => "showcmd".into(),
            Mode::ParseOnly => "parse-only".into(),
            Mode::JsonPlus => "json+".into(),
            Mode::Minimal => "minimal".into(),
            Mode::Terse(version) => format!("terse-v{version}"),
        }
    }

    /// The terse version this mode prints, if it prints terse output.
    pub(crate) fn terse_version(self) -> Option<u8> {
        match self {
            Mode::Minimal => Some(3),
            Mode::Terse(version) => Some(version),
            Mode::Showcmd | Mode::ParseOnly | Mode::JsonPlus => None,
        }
    }

    /// Whether a run in this mode keeps the files it leaves behind (for the `run` check).
    pub(crate) fn keeps_files(self) -> bool {
        self == Mode::JsonPlus
    }
}

impl Check {
    /// Every check, in report order.
    pub(crate) const ALL: [Check; 4] = [
        Check::Showcmd,
        Check::ParseOnly,
        Check::Run,
        Check::Pipelines,
    ];

    /// The name used in `--checks`, the table and the JSON report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Check::Showcmd => "showcmd",
            Check::ParseOnly => "parse-only",
            Check::Run => "run",
            Check::Pipelines => "pipelines",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|check| check.name() == name)
    }

    /// The runs this check needs, the first one being its main run.
    pub(crate) fn modes(self, spec: Option<&RunSpec>) -> Vec<Mode> {
        match self {
            Check::Showcmd => vec![Mode::Showcmd],
            Check::ParseOnly => vec![Mode::ParseOnly],
            Check::Run => {
                let terse = match spec.and_then(|spec| spec.terse_version) {
                    None | Some(3) => Mode::Minimal,
                    Some(version) => Mode::Terse(version),
                };
                vec![Mode::JsonPlus, terse]
            }
            // The seed pipelines read `--minimal` output (terse v3 field numbers).
            Check::Pipelines => vec![Mode::JsonPlus, Mode::Minimal],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_round_trip() {
        for check in Check::ALL {
            assert_eq!(Check::from_name(check.name()), Some(check));
        }
        assert_eq!(Check::from_name("json"), None);
    }

    #[test]
    fn modes_and_arguments() {
        let job = Path::new("/j/a.fio");
        assert_eq!(Check::Run.modes(None), [Mode::JsonPlus, Mode::Minimal]);
        let v5 = RunSpec {
            terse_version: Some(5),
            ..RunSpec::default()
        };
        assert_eq!(
            Check::Run.modes(Some(&v5)),
            [Mode::JsonPlus, Mode::Terse(5)]
        );
        assert_eq!(
            Check::Pipelines.modes(Some(&v5)),
            [Mode::JsonPlus, Mode::Minimal]
        );
        assert_eq!(
            Mode::Terse(5).args(job),
            ["--output-format=terse", "--terse-version=5", "/j/a.fio"]
        );
        assert_eq!(
            Mode::JsonPlus.args(job),
            ["--output-format=json+", "/j/a.fio"]
        );
        assert_eq!(Mode::Minimal.terse_version(), Some(3));
    }
}
