//! What an engine resolves its own options from (fio's engine `.options`
//! table, read into the engine's option struct): the plan hands each
//! engine, through its [`EngineDef`](super::EngineDef)'s `resolve`, the
//! values of the options the engine declares (`OPTIONS`) and the facts of
//! the job it needs. The plan reads them; the engine only names what it
//! declared.

use std::path::PathBuf;

use super::cmdprio::CmdPrioSetting;

/// The values of an engine's own options for one job, each as the job
/// sets it, else the option table's default, else zero, empty or `None`
/// (fio's option structs start zeroed): no default is written twice.
pub(crate) trait OptionValues {
    /// An integer option (a size or a flag reads as one).
    fn int(&self, name: &'static str) -> i64;
    /// An integer option only when the job sets it (or the table has a
    /// default): `sqthread_poll_cpu`.
    fn int_if_set(&self, name: &'static str) -> Option<i64>;
    /// A flag or boolean option (an integer reads as `!= 0`).
    fn flag(&self, name: &'static str) -> bool;
    /// A text option.
    fn text(&self, name: &'static str) -> Option<String>;
    /// The `posvals` value chosen for a choice option.
    fn choice(&self, name: &'static str) -> Option<&'static str>;
    /// The option's value as the job wrote it, if it did (for a refusal
    /// that quotes it).
    fn written(&self, name: &'static str) -> Option<String>;
    /// The text of whichever of `names` the job wrote last (net's
    /// `hostname`, which fio keeps where `filename` goes).
    fn last_text(&self, names: &[&'static str]) -> Option<String>;
    /// The job's command priorities (`cmdprio_*`), built from their
    /// options once asked for.
    fn cmdprio(&self) -> Result<CmdPrioSetting, Refusal>;
    /// The facts of the job the engines need.
    fn job(&self) -> &JobFacts;
}

/// What of a job (besides the engine's own options) the engines read
/// when they resolve their options.
#[derive(Debug, Clone, Default)]
pub(crate) struct JobFacts {
    /// The job's name.
    pub(crate) name: String,
    /// `runtime` in µs (0: none).
    pub(crate) runtime_us: u64,
    /// The I/O pattern reads, writes, is random.
    pub(crate) read: bool,
    pub(crate) write: bool,
    pub(crate) random: bool,
    /// Which clone of a `numjobs` job this is (0: the first).
    pub(crate) subjob: u32,
    /// `size` (0: unset).
    pub(crate) size: u64,
    /// The job verifies what it writes.
    pub(crate) verify: bool,
    /// `offset`.
    pub(crate) offset: u64,
    /// The upper bound of `filesize` (0: unset).
    pub(crate) filesize_high: u64,
    /// `directory`, as written.
    pub(crate) directory: Option<String>,
    /// The job's first file.
    pub(crate) first_file: Option<PathBuf>,
    /// The smallest block size of reads and writes.
    pub(crate) min_bs: u64,
    /// `fsync=N` or `fdatasync=N` (N > 0).
    pub(crate) syncs: bool,
    /// `sync=1` (or `dsync`).
    pub(crate) sync_io: bool,
    /// The `RWF_*` flag `uncached` means in the job's release (0: none).
    pub(crate) uncached_rwf: libc::c_int,
    /// libaio queues syncs in the job's release (fio 3.41).
    pub(crate) libaio_async_fsync: bool,
    /// io_uring's `md_per_io_size` asks the block device for protection
    /// information in the job's release (fio 3.41).
    pub(crate) uring_integrity: bool,
}

/// Why an engine refuses a job's options: what to say (the words after
/// `job 'NAME': `), and the option to point at (`None`: the job).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) option: Option<&'static str>,
    pub(crate) message: String,
}
