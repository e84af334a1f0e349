//! The immutable execution plan: what every job will do.

use std::path::PathBuf;
use std::sync::Arc;

use super::resolve::bs::BlockOptions;
use super::resolve::buffers::BufferOptions;
use super::resolve::exec::ExecOptions;
use super::resolve::files::FileOptions;
use super::resolve::flow::FlowOptions;
use super::resolve::io::IoOptions;
use super::resolve::iolog::IologOptions;
use super::resolve::offsets::OffsetOptions;
use super::resolve::placement::PlacementOptions;
use super::resolve::rate::RateOptions;
use super::resolve::steadystate::SteadyStateOptions;
use super::resolve::submit::SubmitOptions;
use super::resolve::think::ThinkOptions;
use super::resolve::verify::VerifyOptions;
use super::resolve::zones::ZoneMode;
use super::resolve::Refusal;
use crate::diag::Span;
use crate::ioengine::EngineSpec;
use crate::logs::LogConfig;
use crate::options::jobopts::JobOptions;
use crate::options::Value;
use crate::rand::Seeds;
use crate::stats::JobInfo;

/// The I/O pattern of `rw=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    pub read: bool,
    pub write: bool,
    pub trim: bool,
    pub(crate) random: bool,
    /// `rw=randread:8` — the `:N` offset modifier (blocks for random, bytes
    /// added after each I/O for sequential), as written.
    pub modifier: Option<i64>,
}

impl Pattern {
    /// fio's name for the pattern (`ddir_str`): read, write, randrw, ...
    pub(crate) fn name(&self) -> &'static str {
        match (self.random, self.read, self.write, self.trim) {
            (false, true, false, false) => "read",
            (false, false, true, false) => "write",
            (false, false, false, true) => "trim",
            (true, true, false, false) => "randread",
            (true, false, true, false) => "randwrite",
            (true, false, false, true) => "randtrim",
            (false, true, true, false) => "rw",
            (true, true, true, false) => "randrw",
            (false, false, true, true) => "trimwrite",
            (true, false, true, true) => "randtrimwrite",
            _ => "unknown",
        }
    }

    pub(crate) fn writes(&self) -> bool {
        self.write || self.trim
    }
}

/// A target file of a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSpec {
    pub path: PathBuf,
    /// Bytes of this file the job works on; `None` when it must come from
    /// the existing file or device.
    pub size: Option<u64>,
    /// `filesize=lo-hi` (lo < hi) in force. `size` then holds fio's draw
    /// for this file when every file of the job is drawn for, as when the
    /// job creates them. fio keeps an existing file whose size is in the
    /// range and draws only for the others, in order: the executor that
    /// meets such a file takes its size, and gives each later file the
    /// `size` of the file one place earlier in the draw order.
    pub(crate) range: Option<(u64, u64)>,
    /// `size` is the whole file's (`filesize=`): the job's I/O runs from its
    /// start offset to the file's end (fio's `io_size = filesize -
    /// file_offset`), not `size` bytes from the offset.
    pub(crate) whole: bool,
}

/// One job (a section, or one `numjobs` clone of it).
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// The reported name (`name=` if given, else the section name).
    pub name: String,
    /// 1-based creation order over all jobs and clones (log file `.N`).
    pub thread_number: u32,
    /// 0 for the original, N-1 … 1 for its clones (file name `jobnum`).
    pub(crate) subjob: u32,
    /// Reporting group (`g=`).
    pub group_id: u32,
    /// Whether this job waits for all earlier jobs before it starts.
    pub stonewall: bool,
    /// `wait_for=`: index into `Plan::jobs` of the job waited for.
    pub wait_for: Option<usize>,
    /// Where the job was defined.
    pub(crate) span: Span,
    /// Every option in force for the job, defaults not included (shared by
    /// a job and its `numjobs` clones).
    pub options: Arc<JobOptions>,
    /// Where the settings of the job's own section start in `options`
    /// (those before are inherited: JSON `global options`; those from here
    /// on, an `include`'s too, are its `job options`).
    pub(crate) own_options: usize,
    /// The fio release the job's options are read as (the plan's): its
    /// option table gives the defaults of the options not set.
    pub(crate) release: crate::release::Release,
    pub pattern: Pattern,
    pub(crate) ioengine: String,
    /// The engine's options, common and its own (`plan::engine`).
    pub engine: EngineSpec,
    pub iodepth: u32,
    /// Minimum and maximum block size per direction (read, write, trim).
    pub bs: [(u64, u64); 3],
    pub files: Vec<FileSpec>,
    /// `size=`: bytes over all files; `None` when unset.
    pub size: Option<u64>,
    pub(crate) io_size: Option<u64>,
    pub(crate) offset: u64,
    pub(crate) number_ios: u64,
    pub(crate) loops: u32,
    pub(crate) direct: bool,
    pub(crate) time_based: bool,
    /// `time_based` was set without a runtime: fio drops it (and warns),
    /// the job runs through its size.
    pub(crate) time_based_dropped: bool,
    /// `runtime=` in microseconds (0: none).
    pub runtime_us: u64,
    pub(crate) ramp_time_us: u64,
    /// `ramp_size` (fio 3.42): the ramp lasts until the job has moved this
    /// many bytes (0: no ramp by bytes).
    pub(crate) ramp_size: u64,
    /// ns between the checks that end the ramp, from the run's start
    /// (fio 3.42's helper thread, [`Change::RampCheckedEachSecond`]); 0:
    /// the first I/O past `ramp_time` ends it (3.33).
    ///
    /// [`Change::RampCheckedEachSecond`]: crate::release::Change::RampCheckedEachSecond
    pub(crate) ramp_check_ns: u64,
    /// `startdelay`: the job waits a random time in this range (µs; both
    /// ends equal for a single value).
    pub startdelay_us: (u64, u64),
    pub(crate) rwmixread: u32,
    pub group_reporting: bool,
    /// `--readonly`: the job must never write, create, truncate or delete
    /// a file (checked when the plan is built, and again by every part of
    /// the run that could write).
    pub readonly: bool,
    /// Called as `rfio` (not as `fio`): the run adds rfio's own lines on
    /// stderr where fio's alone would puzzle (a file the job only reads
    /// that has no size and is missing).
    pub(crate) explain: bool,
    /// `--aux-path`: the directory of the verify state files and the
    /// verify dumps (`None`: the working directory).
    pub(crate) aux_path: Option<PathBuf>,
    // The options resolved into typed parts (`plan::resolve`).
    /// Queue depth and batching, syncs, file handling, error policy.
    pub(crate) io: IoOptions,
    /// CPUs, priorities, locked and buffer memory, pre/post-run commands.
    pub(crate) placement: PlacementOptions,
    pub(crate) rate: RateOptions,
    /// Think time and think cycles between I/Os.
    pub(crate) think: ThinkOptions,
    /// How the block sizes of [`JobSpec::bs`] are drawn.
    pub(crate) block: BlockOptions,
    /// What write buffers hold.
    pub(crate) buffers: BufferOptions,
    /// The zone mode (strided, or zoned block devices; `None`: none), or
    /// fio's refusal of the settings.
    pub(crate) zones: Result<Option<ZoneMode>, Refusal>,
    /// `norandommap`.
    pub(crate) norandommap: bool,
    /// The job's seed table and random generator (`plan::resolve::random`):
    /// every generator of the job is seeded from it.
    pub seeds: Seeds,
    /// Where the I/O goes (offsets, distribution, the next file).
    pub(crate) offsets: OffsetOptions,
    /// What a verifying job writes and checks; `None` when it does not
    /// verify.
    pub(crate) verify: Option<VerifyOptions>,
    /// `verify_state_load`: the state file `verify_state_save` wrote is
    /// loaded before the job starts (whether it verifies or not).
    pub(crate) verify_state_load: bool,
    /// What the I/O loop does besides issuing the pattern.
    pub(crate) exec: ExecOptions,
    /// Steady-state detection (`ss_dur`); `None` when off.
    pub(crate) steadystate: Option<SteadyStateOptions>,
    /// The I/O log it writes, the log it replays and how.
    pub(crate) iolog: IologOptions,
    /// Identity, time thread, NUMA, cgroup, error dump, block histogram
    /// (`plan::resolve::host`).
    pub(crate) host: super::resolve::host::HostOptions,
    /// The job's flow (`flow_id`, `flow`, `flow_sleep`); `None`: none.
    pub(crate) flow: Option<FlowOptions>,
    /// `io_submit_mode`.
    pub(crate) submit: SubmitOptions,
    /// `directory=`, split at `:` (each must be a directory when the job
    /// runs).
    pub(crate) directories: Vec<std::path::PathBuf>,
    /// How the job treats its files (`openfiles`, `lockfile`, ...).
    pub(crate) file: FileOptions,
    /// What the job records (`report.stats`) and how it is reported,
    /// resolved from its options (`super::report`).
    pub report: JobInfo,
    /// The per-job logs it writes, if any.
    pub logs: Option<LogConfig>,
}

impl JobSpec {
    /// The options in force for the job, read as its release reads them.
    pub(crate) fn opts(&self) -> super::resolve::read::Opts<'_> {
        super::resolve::read::Opts(&self.options, self.release)
    }

    /// The value of option `name` in force, if set.
    pub(crate) fn opt(&self, name: &str) -> Option<&Value> {
        self.options.value(name)
    }
}

/// The whole plan: jobs in creation order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub jobs: Vec<JobSpec>,
    /// The last this many jobs come from `--profile=`: fio adds them when
    /// the run starts, after its version line.
    pub(crate) profile_jobs: usize,
    /// The fio release the run behaves as (public for the tests, which
    /// render reports of a plan as its release: [`RunReport::of_release`]).
    ///
    /// [`RunReport::of_release`]: crate::stats::RunReport::of_release
    pub release: crate::release::Release,
    /// The options fio ignores with its notice `Option NAME is deprecated`
    /// (its soft-deprecated ones, `verifysort`, fio 3.38's `uncached`), in
    /// the order read, each with the number of jobs added before: fio
    /// prints the notice on stdout as it reads the option, between the
    /// description lines of the jobs it adds.
    pub(crate) deprecated: Vec<Deprecated>,
    /// Jobs of the command line that fio added before its end, and
    /// whether it printed their description lines
    /// ([`CmdSection::described`](super::input::CmdSection)); the other
    /// jobs get theirs with the normal output.
    pub(crate) described: Vec<(std::ops::Range<usize>, bool)>,
}

/// One option of [`Plan::deprecated`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Deprecated {
    pub(crate) name: &'static str,
    pub(crate) span: crate::diag::Span,
    /// Jobs added before it was read.
    pub(crate) jobs_before: usize,
}

impl Plan {
    /// An empty plan of a run that behaves as `release`.
    pub(crate) fn of(release: crate::release::Release) -> Plan {
        Plan {
            release,
            ..Plan::default()
        }
    }

    /// Number of reporting groups.
    pub(crate) fn groups(&self) -> u32 {
        self.jobs.iter().map(|j| j.group_id + 1).max().unwrap_or(0)
    }
}
