//! Why a job's log cannot be replayed or merged (`read_iolog`,
//! `merge_blktrace_file`): one error for the layer. Each text is fio's
//! where fio has one, with the log's name (and line, or byte); the job
//! then fails as fio's does.

use std::io;
use std::path::PathBuf;

use crate::diag::{io_reason, quote, quote_bytes, visible};

/// Why a log cannot be replayed. `name` is the log's name as the job
/// gives it; the texts escape it where fio's would print raw bytes.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The log cannot be opened.
    #[error("{name}: fopen read iolog: {}", io_reason(source))]
    Open {
        name: String,
        #[source]
        source: io::Error,
    },
    /// A text log without a first line.
    #[error("{}: fio: unable to read iolog", visible(name))]
    Empty { name: String },
    /// A text log whose first line cannot be read.
    #[error("{}: fio: unable to read iolog: {}", visible(name), io_reason(source))]
    FirstLine {
        name: String,
        #[source]
        source: io::Error,
    },
    /// A text log whose first line names no version rfio reads (the
    /// first lines of the `versions` it reads).
    #[error(
        "{}: fio: iolog version 1 is no longer supported (the first line must be \
         '{}' or '{}')",
        visible(name), versions[0], versions[1]
    )]
    Version1 {
        name: String,
        versions: [&'static str; 2],
    },
    /// Line `line` (1-based) of a text log.
    #[error("{}:{line}: {what}", visible(name))]
    Line {
        name: String,
        line: u64,
        #[source]
        what: LineError,
    },
    /// A trace of a blktrace log.
    #[error("{}: {source}", visible(name))]
    Trace {
        name: String,
        #[source]
        source: TraceError,
    },
    /// The log, read through, has nothing the job can replay.
    #[error("{name}: {why}")]
    Nothing { name: String, why: Nothing },
    /// A blktrace log that names no device.
    #[error("{name}: fio: did not find replay device(s)")]
    NoDevices { name: String },
    /// `merge_blktrace_file`: the merge failed.
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// `source`, after the lines fio printed while reading the log.
    #[error("{}{source}", notes.iter().map(|n| format!("{n}\n")).collect::<String>())]
    Noted {
        notes: Vec<String>,
        #[source]
        source: Box<Error>,
    },
}

/// What is wrong with a line of a text log.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// Longer than the `max` bytes of a line.
    #[error("line longer than {max} bytes (no line end; an iolog line is at most {max} bytes)")]
    TooLong { max: usize },
    #[error("cannot read the log: {}", io_reason(source))]
    Read {
        #[source]
        source: io::Error,
    },
    #[error("bad time {0}")]
    BadTime(NumError),
    #[error("bad offset {0}")]
    BadOffset(NumError),
    #[error("bad length {0}")]
    BadLength(NumError),
    /// The I/O ends beyond `max`, the largest file offset.
    #[error(
        "bad offset {offset} and length {len}: the I/O ends beyond the largest file offset \
         ({max})"
    )]
    EndsBeyond { offset: u64, len: u64, max: u64 },
    /// An I/O, `open` or `close` of a file no `add` line added.
    #[error("file {p} is not in the log (no '{p} add' line before this one)", p = quote(&path.to_string_lossy(), 512))]
    NotAdded { path: PathBuf },
}

/// A number of a line that cannot be replayed (`text`: as written).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumError {
    #[error("{}: negative", quote_bytes(text, 40))]
    Negative { text: Vec<u8> },
    #[error("{}: over {max}", quote_bytes(text, 40))]
    Over { text: Vec<u8>, max: u64 },
}

/// A blktrace trace that cannot be read, at byte `at` of its file.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("the trace at byte {at}: read blktrace file: {}", io_reason(source))]
    Read {
        at: u64,
        #[source]
        source: io::Error,
    },
    /// The file ends after `got` of a trace's `size` bytes.
    #[error(
        "the trace at byte {at} is cut short: the file ends after {got} of its {size} bytes \
         (fio: iolog short read)"
    )]
    Short { at: u64, got: usize, size: usize },
    #[error("the trace at byte {at}: fio: bad magic in blktrace data: {magic:x}")]
    BadMagic { at: u64, magic: u32 },
    #[error("the trace at byte {at}: fio: bad blktrace version {version}")]
    BadVersion { at: u64, version: u32 },
    #[error(
        "the trace at byte {at} is cut short: the file ends within its {pdu_len} bytes of \
         payload"
    )]
    PayloadShort { at: u64, pdu_len: u16 },
}

/// What a log has none of, so that nothing of it can be replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Nothing {
    /// A chunked log without an entry.
    #[error("the log has nothing to replay")]
    Entries,
    #[error("fio: found no ios in blktrace data")]
    BlktraceIos,
    #[error("the log has no reads, writes or waits to replay")]
    Ios,
}

/// Why `merge_blktrace_file` failed. `name` is a trace's or the merge
/// file's name, escaped.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// `merge_blktrace_scalars` or `merge_blktrace_iters` (`option`) has
    /// `given` values for `logs` traces.
    #[error("fio: {option}({given}) != nr_logs({logs})")]
    Count {
        option: &'static str,
        given: usize,
        logs: usize,
    },
    #[error("fio: could not open file: {name}: {}", io_reason(source))]
    Open {
        name: String,
        #[source]
        source: io::Error,
    },
    #[error(
        "fio: merge_blktrace_file is {name}, one of the traces it merges: refusing to \
         overwrite it"
    )]
    IsOutput { name: String },
    #[error("fio: read blktrace file {name}: {}", io_reason(source))]
    ReadInput {
        name: String,
        #[source]
        source: io::Error,
    },
    #[error("fio: read blktrace file {name}: seek: {}", io_reason(source))]
    SeekInput {
        name: String,
        #[source]
        source: io::Error,
    },
    #[error("fio: file is not a blktrace: {name} ({got} bytes, shorter than a trace)")]
    ShortInput { name: String, got: usize },
    #[error("fio: file is not a blktrace: {name} (bad magic at byte 0: {magic:x})")]
    NotBlktrace { name: String, magic: u32 },
    /// A trace of an input, while merging.
    #[error("fio: merge_blktrace_file: {name}: {source}")]
    Trace {
        name: String,
        #[source]
        source: TraceError,
    },
    #[error("fio: merge_blktrace_file: {name}: seek: {}", io_reason(source))]
    Rewind {
        name: String,
        #[source]
        source: io::Error,
    },
    #[error("fio: could not open merge file {name}: {}", io_reason(source))]
    OpenOutput {
        name: String,
        #[source]
        source: io::Error,
    },
    #[error("fio: writing {name}: {}", io_reason(source))]
    Write {
        name: String,
        #[source]
        source: io::Error,
    },
    #[error("fio: could not write merge file {name}: {}", io_reason(source))]
    Commit {
        name: String,
        #[source]
        source: io::Error,
    },
}
