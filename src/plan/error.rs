//! Why a job's settings cannot be resolved into its `JobSpec`: one error
//! for the plan. Each text is the message printed after `job 'NAME': `
//! at the job's place, in fio's words where fio has some. The resolvers
//! push the text onto the job's list of refusals (the job's diagnostics).

use std::io;

use crate::options::value::ValueError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// `nrfiles=` below 1.
    #[error("nrfiles={nrfiles}: a job needs at least one file")]
    NoFile { nrfiles: i64 },
    /// `nrfiles=` above the `max` files rfio holds.
    #[error("nrfiles={nrfiles}: rfio supports at most {max} files per job")]
    TooManyFiles { nrfiles: i64, max: i64 },
    /// `filename=` of separators and blanks only.
    #[error("filename='{given}' names no file (only separators and blanks)")]
    NoFileNamed { given: String },
    /// `opendir=DIR` could not be scanned.
    #[error("opendir={dir}: {source}")]
    OpenDir {
        dir: String,
        #[source]
        source: ScanError,
    },
    /// `ignore_error=` names an errno fio does not know.
    #[error("ignore_error: unknown error {name}")]
    UnknownErrno { name: String },
    /// `numa_cpu_nodes=` or `numa_mem_policy=` (`option`) names nodes
    /// libnuma refuses (`warning`: its warning, if it prints one).
    #[error(
        "{option}={text}: {} (fio: numa_parse_nodestring failed)",
        match warning { NodeError::Trailing => "not a node list".to_string(), w => w.to_string() }
    )]
    NodeList {
        option: &'static str,
        text: String,
        warning: NodeError,
    },
    /// `numa_mem_policy=` that fio refuses.
    #[error("numa_mem_policy={text}: {why}")]
    MemPolicy { text: String, why: PolicyError },
    /// `rw=`'s `:N` that fio cannot read.
    #[error("rw postfix parsing failed ('{modifier}')")]
    RwPostfix { modifier: String },
    /// `file_service_type=` that fio refuses.
    #[error(transparent)]
    FileService(#[from] FileServiceError),
    /// `cpus_allowed=`/`cpumask=` names a CPU beyond those configured
    /// (`last`: the last one).
    #[error("CPU {cpu} too large (max={last})")]
    CpuTooLarge { cpu: usize, last: usize },
    /// `mem=` (or `iomem=`) of a kind rfio cannot allocate.
    #[error("mem={name}: not supported")]
    MemUnsupported { name: String },
    /// `mem=KIND:FILE` of a kind that maps no file.
    #[error(
        "mem={name}:{file}: only mmap, mmaphuge and mmapshared map a file (fio ignores the \
         ':{file}')"
    )]
    MemFile { name: String, file: String },
    #[error("iomem_align={align}: too large")]
    IomemAlign { align: u64 },
    /// `verify_pattern=` that cannot be read.
    #[error("verify_pattern {0}")]
    VerifyPattern(#[source] ValueError),
    #[error("verify={name}: unknown verify type")]
    UnknownVerify { name: String },
    #[error("verify=pattern needs a verify_pattern")]
    PatternNeeded,
    /// fio 3.40 on: the header at `verify_offset` ends past the interval.
    #[error("fio: cannot offset verify header beyond the verify interval.")]
    VerifyOffsetBeyond,
    #[error(
        "verify_offset={offset}: the header ({header} bytes) must fit in \
         verify_interval={interval}"
    )]
    HeaderOutsideInterval {
        offset: usize,
        header: usize,
        interval: u64,
    },
    #[error("verify={kind}: verify_interval={interval} is too small for its {header}-byte header")]
    IntervalTooSmall {
        kind: &'static str,
        interval: u64,
        header: usize,
    },
    /// `trim_backlog` in a job that does not trim: fio aborts.
    #[error(
        "trim_backlog={backlog} with trim_percentage={percentage}: trimming written blocks \
         needs a job that trims (rw=trimwrite or randtrimwrite); fio 3.33 aborts at the first \
         trim"
    )]
    TrimNeedsTrims { backlog: u64, percentage: u32 },
    /// `trim_percentage` that keeps fio's job going for ever.
    #[error(
        "trim_percentage={percentage} without trim_backlog or verify_backlog on a random \
         pattern without a random map: fio 3.33 never ends the job (its trim list never \
         empties)"
    )]
    TrimNeverEnds { percentage: u32 },
}

/// Why `opendir=` could not be scanned: fio's failing call and its
/// strerror.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ScanError {
    #[error("opendir({dir}): {}", os_text(source))]
    OpenDir {
        dir: String,
        #[source]
        source: io::Error,
    },
    #[error("stat({path}): {}", os_text(source))]
    Stat {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// libnuma's warning for a node list it refuses (`numa_parse_nodestring`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NodeError {
    /// A device's nodes (`netdev:`, `file:`, ...), which rfio does not
    /// look up.
    #[error("`{0}': rfio does not find the nodes of a device")]
    Device(String),
    #[error("unparseable node description `{0}'")]
    Unparseable(String),
    #[error("node argument {0} is out of range")]
    OutOfRange(i32),
    #[error("missing node argument {0}")]
    MissingArgument(String),
    /// The end of a range (libnuma's words differ from the start's).
    #[error("node argument {0} out of range")]
    EndOutOfRange(i32),
    /// Something after a number: refused without a warning.
    #[error("")]
    Trailing,
}

/// Why fio refuses a `numa_mem_policy=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PolicyError {
    #[error("fio takes no node list for 'default' or 'local' (fio: NO nodelist for 'local')")]
    NodeListGiven,
    #[error("one node is needed for 'prefer'")]
    PreferNeedsNode,
    #[error("one node only for 'prefer'")]
    PreferOneNode,
    #[error("a nodelist is needed for 'bind'")]
    BindNeedsList,
    #[error("memory policy should be: default, prefer, bind, interleave, local")]
    Unknown,
}

/// Why fio refuses a `file_service_type=` (its `str_fst_cb` checks).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FileServiceError {
    #[error("file_service_type={kind}:{modifier}: not a number")]
    NotANumber { kind: String, modifier: String },
    #[error("file_service_type={kind}:{modifier}: not a count")]
    NotACount { kind: String, modifier: String },
    #[error("distribution center out of range (0 <= center <= 1.0)")]
    Center,
    #[error("zipf theta must be different than 1.0")]
    ZipfTheta,
    #[error("pareto input out of range (0 < input < 1.0)")]
    Pareto,
    #[error("normal deviation out of range (0 <= input < 100.0)")]
    Normal,
}

/// strerror's text of an I/O error, without Rust's ` (os error N)`.
fn os_text(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}
