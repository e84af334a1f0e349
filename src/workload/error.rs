//! Why a run could not start (nothing has been written then). Where an
//! underlying error is the reason (a log that does not read, a state file,
//! an engine's setup, the generators' set-up) it is kept, typed, as the
//! variant's `source`: its text is what fio prints.

use super::iolog::error::Error as IologError;
use super::offsets::SetupError as GeneratorError;
use super::safety;
use super::verify::StateError;
use crate::ioengine::SetupError as EngineSetupError;

/// Why a run could not start. Nothing has been written when one of these
/// is returned.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("fio: engine {engine} not loadable (job {job})")]
    UnknownEngine { job: String, engine: String },
    #[error("rfio: job {job}: no size given and no file size to use")]
    NoSize { job: String },
    #[error("rfio: job {job}: no files to do I/O on")]
    NoFiles { job: String },
    /// The log the job replays cannot be used (`read_iolog`): `source`
    /// says why, with the log's name (and line); fio fails the job.
    #[error("{source}")]
    Iolog {
        job: String,
        #[source]
        source: IologError,
    },
    /// A setting the job cannot run with, found when it is set up (what
    /// its files are), in rfio's own words, at the job's place (`at`: its
    /// section's `file:line:col`).
    #[error("rfio: {at}: job '{job}': {msg}")]
    Invalid {
        job: String,
        at: String,
        msg: String,
    },
    /// A setting fio refuses too: `msg` is the whole message, in fio's
    /// words and with fio's `fio: ` (`fio: --zonesize must be specified
    /// when using --zonemode=strided.`).
    #[error("{msg}")]
    Refused { job: String, msg: String },
    /// The job's offset generators or buffer filler cannot be set up once
    /// its files are known (fio's words, with its `fio: `); fio refuses
    /// the job.
    #[error("{source}")]
    Generators {
        job: String,
        #[source]
        source: GeneratorError,
    },
    /// `verify_state_load` could not load the job's state file: `source`
    /// is why, in what fio prints (whole lines). fio reports the job as not
    /// run and runs the others; the run exits non-zero.
    #[error("{source}")]
    VerifyState {
        job: String,
        #[source]
        source: StateError,
    },
    /// fio refuses the zones of a job (`zonemode=zbd`): the lines fio logs
    /// (`true`: on stderr; rfio prints them all there), and the job's error (errno and fio's
    /// `td_verror` text) where fio sets one. The job fails, the others
    /// run.
    #[error("{}", lines.iter().map(|l| l.1.as_str()).collect::<String>())]
    Zbd {
        job: String,
        lines: Vec<(bool, String)>,
        error: Option<(i32, String)>,
        /// Refused after fio starts counting the job's zone resets.
        counted: bool,
    },
    /// The engine's setup failed (fio's engine `.setup`: nbd could not
    /// reach its server): `source` is why, in what fio prints (whole
    /// lines). fio reaps the job unstarted and runs the others; the run
    /// exits non-zero.
    #[error("{source}")]
    EngineSetup {
        job: String,
        #[source]
        source: EngineSetupError,
    },
    /// The run was stopped while the engine's setup waited (nbd's
    /// handshake): the job is reaped unstarted, no error of its own.
    #[error("job '{job}': stopped during the engine's setup")]
    SetupStopped { job: String },
    /// More jobs than fio 3.33 can hold (the runner's `MAX_RUN_JOBS`); fio's two
    /// lines, word for word.
    #[error("error: maximum number of jobs reached.\nerror: failed to setup shm segment")]
    TooManyJobs,
    /// A minimum rate above the rate, in each of `dirs` (0 read, 1 write,
    /// 2 trim): fio's line for each.
    #[error("{}", dirs.iter().map(|d| super::rate::min_above_rate_message(*d)).collect::<Vec<_>>().join("\n"))]
    MinRateAboveRate { dirs: Vec<usize> },
    /// The jobs of a reporting group disagree on steady state (fio's
    /// `td_verror` text, cut at its 128-byte buffer as fio prints it).
    #[error("fio: file:steadystate.c:338, func=job rejected: steadystate options must be consistent within reporting groups, error=Invalid argume")]
    SteadyStateDiffers,
    #[error("fio: {path} appears mounted, and 'allow_mounted_write' isn't set. Aborting.")]
    Mounted { path: String },
    #[error(
        "fio: {path} holds an {fs} filesystem, and 'allow_mounted_write' isn't set. Aborting."
    )]
    Filesystem { path: String, fs: &'static str },
    #[error(
        "rfio: not enough free space to lay out the job files in {dir}: \
         {needed} bytes needed, {available} available"
    )]
    NoSpace {
        dir: String,
        needed: u64,
        available: u64,
    },
}

impl From<safety::NoSpace> for RunError {
    fn from(e: safety::NoSpace) -> RunError {
        RunError::NoSpace {
            dir: crate::diag::show_path(&e.dir),
            needed: e.needed,
            available: e.available,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::job::Prepared;

    /// A log that cannot be opened: the run's error keeps the log's own,
    /// typed, for a caller to match, and prints its words.
    #[test]
    fn an_underlying_error_stays_typed() {
        let log = "/nonexistent-rfio/no.log";
        let arg = format!("--read_iolog={log}");
        let spec = crate::plan::testing::job(&["--name=x", &arg]);
        let e = Prepared::load_replay(&spec).unwrap_err();
        let RunError::Iolog { job, source } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(job, "x");
        assert!(
            matches!(source, IologError::Open { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
            "{source:?}"
        );
        assert_eq!(e.to_string(), source.to_string());
        assert!(
            e.to_string()
                .starts_with(&format!("{log}: fopen read iolog: ")),
            "{e}"
        );
        let under = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<IologError>());
        assert!(matches!(under, Some(IologError::Open { .. })), "{under:?}");
    }
}
