//! How a command line is read: as fio reads (called as `fio`, or
//! `--compat=fio`) or strictly, and as which fio release.

use super::{ArgError, ArgErrors, Args};
use crate::jobfile::Mode;
use crate::release::{Change, Release};

impl Args {
    /// Settle the reading mode for the program name `argv0`: as fio reads
    /// when the file name is exactly `fio` (the drop-in symlink), strictly
    /// otherwise; `--compat` decides when given.
    pub(crate) fn called_as(mut self, argv0: Option<&std::ffi::OsStr>) -> Args {
        let named_fio = argv0
            .and_then(|a| std::path::Path::new(a).file_name())
            .is_some_and(|n| n == "fio");
        self.mode = match (self.compat, named_fio) {
            (Some(mode), _) => mode,
            (None, true) => Mode::Fio,
            (None, false) => Mode::Strict,
        };
        self
    }

    /// Settle the release: the one `--compat=fio-3.NN` named, else the
    /// one the environment's `RFIO_FIO_VERSION` (`env`) names, else the
    /// default. An unknown name in the variable is an error, and so is
    /// what the release refuses of the command line. Public for the
    /// tests, whose plans choose their release as the variable would.
    pub fn with_release(mut self, env: Option<&str>) -> Result<Args, ArgErrors> {
        self.release = match self.compat_release {
            Some(r) => r,
            None => Release::choose(None, env).map_err(|source| ArgError::Env {
                value: env.unwrap_or("").to_string(),
                source,
            })?,
        };
        if let Some((span, arg)) = self.bandwidth_log_name.take() {
            // fio 3.42 names the aggregate logs after the value.
            let change = Change::BandwidthLogName;
            let e = match self.release.has(change) {
                false => ArgError::NoArgumentAllowed {
                    arg,
                    option: "bandwidth-log",
                },
                true => ArgError::NotYet {
                    arg,
                    what: "the aggregate bandwidth logs' name",
                    since: change.since(),
                },
            };
            return Err(ArgErrors(vec![(Some(span), e)]));
        }
        Ok(self)
    }

    /// The release asked for (`--compat=fio-3.NN`, else the environment's,
    /// else the default), for words before [`Args::with_release`] settles it.
    pub(crate) fn release_asked(&self) -> Release {
        let env = std::env::var(crate::release::ENV).ok();
        let env = Release::choose(None, env.as_deref()).unwrap_or_default();
        self.compat_release.unwrap_or(env)
    }

    /// Whether a release was asked for (`--compat=fio-3.NN`, or a
    /// non-empty `RFIO_FIO_VERSION`), not left to the default.
    pub(crate) fn release_chosen(&self) -> bool {
        let env = std::env::var_os(crate::release::ENV);
        self.compat_release.is_some() || env.is_some_and(|e| !e.to_string_lossy().trim().is_empty())
    }

    /// [`Args::with_release`] with this process's `RFIO_FIO_VERSION`.
    pub(crate) fn with_env_release(self) -> Result<Args, ArgErrors> {
        let env = std::env::var(crate::release::ENV).ok();
        self.with_release(env.as_deref())
    }
}

/// How a command line that does not parse is read, as far as it can be
/// told: as fio reads when called as `fio` (or the last `--compat=` says
/// `fio`/`fio-3.NN`; `--compat=strict` says otherwise), as the release the
/// last `--compat=fio-3.NN` or `RFIO_FIO_VERSION` names (else the default).
pub(crate) fn reading_of(argv: &[String], called_fio: bool) -> (Mode, Release) {
    let compat = argv
        .iter()
        .take_while(|a| *a != "--")
        .filter_map(|a| a.strip_prefix("--compat=").or(a.strip_prefix("-compat=")))
        .last();
    let mode = match compat {
        Some("strict") => Mode::Strict,
        Some(c) if c == "fio" || c.starts_with("fio-") => Mode::Fio,
        _ if called_fio => Mode::Fio,
        _ => Mode::Strict,
    };
    let flag = compat.filter(|c| c.starts_with("fio-"));
    let env = std::env::var(crate::release::ENV).ok();
    let release = Release::choose(flag, env.as_deref()).unwrap_or_default();
    (mode, release)
}
