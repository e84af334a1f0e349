//! Why a run could not start (nothing has been written then).

use super::safety;

/// Why a run could not start. Nothing has been written when one of these
/// is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("fio: engine {engine} not loadable (job {job})")]
    UnknownEngine { job: String, engine: String },
    #[error("rfio: job {job}: no size given and no file size to use")]
    NoSize { job: String },
    #[error("rfio: job {job}: no files to do I/O on")]
    NoFiles { job: String },
    /// The log the job replays cannot be used (`read_iolog`): `msg` says
    /// why, with the log's name (and line); fio fails the job.
    #[error("{msg}")]
    Iolog { job: String, msg: String },
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
    /// `verify_state_load` could not load the job's state file: `msg` is
    /// what fio prints (whole lines). fio reports the job as not run and
    /// runs the others; the run exits non-zero.
    #[error("{msg}")]
    VerifyState { job: String, msg: String },
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
    /// reach its server): `msg` is what fio prints (whole lines). fio
    /// reaps the job unstarted and runs the others; the run exits
    /// non-zero.
    #[error("{msg}")]
    EngineSetup { job: String, msg: String },
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
