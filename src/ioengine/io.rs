//! What crosses the engine contract (`engine.rs`): the I/O unit and
//! its outcome, the files an engine opens, the job's buffer pool, and the
//! errors an engine reports (fio's `io_u.h` and `td_verror` errnos).

use crate::ddir::Ddir;
use std::path::{Path, PathBuf};

/// An opened file of an engine (index into the engine's own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId(pub(crate) u32);

/// One I/O unit, as handed to [`IoEngine::queue`](crate::ioengine::IoEngine::queue).
#[derive(Debug, Clone, Copy)]
pub struct Io {
    /// Which unit of the pool this is: `0..iodepth`, unique among the I/Os
    /// in flight. Engines index their per-I/O state with it.
    pub token: u32,
    pub file: FileId,
    pub dir: Ddir,
    pub offset: u64,
    /// Bytes to transfer; 0 for `Sync`/`DataSync`.
    pub len: usize,
    /// Start of the data: valid for `len` bytes until the I/O completes,
    /// which whoever queues the I/O guarantees (see the `# Safety` of
    /// `IoEngine::queue`).
    pub buf: *mut u8,
}

/// The outcome of one I/O: bytes transferred, or the errno.
pub(crate) type IoResult = Result<usize, i32>;

/// What [`IoEngine::queue`](crate::ioengine::IoEngine::queue) did with an I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// Done already (every I/O of a sync engine).
    Completed(IoResult),
    /// Accepted; it completes later through `getevents`/`event`.
    Queued,
    /// Not accepted now: commit, reap something, then queue it again.
    Busy,
}

/// One completion read back with [`IoEngine::event`](crate::ioengine::IoEngine::event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub(crate) token: u32,
    pub result: IoResult,
}

/// How the workload wants a file opened (fio's `generic_open_file` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenFlags {
    /// `direct=1`: `O_DIRECT`, buffers and offsets must be aligned.
    pub(crate) direct: bool,
    /// The job writes or trims (open read-write rather than read-only).
    pub(crate) write: bool,
    /// `sync=sync`: `O_SYNC`.
    pub(crate) sync: bool,
    /// `sync=dsync`: `O_DSYNC`.
    pub(crate) dsync: bool,
    /// Create the file if it does not exist (`create_on_open`, or a write
    /// job whose file was not laid out).
    pub(crate) create: bool,
    /// `create_on_open`: `O_CREAT` whatever the file is (a writer's
    /// [`create`](Self::create) alone is only for a regular file; see
    /// `open_generic`).
    pub(crate) create_on_open: bool,
    /// `--readonly`: a character device a job reads is opened read-only
    /// (else read-write, as fio opens one).
    pub(crate) readonly: bool,
    /// `atomic=1`: fio's `O_ATOMIC` bit (besides `O_DIRECT`).
    pub(crate) atomic: bool,
}

/// A file to open, as [`IoEngine::open`](crate::ioengine::IoEngine::open) receives it.
#[derive(Debug, Clone)]
pub struct FileTarget {
    pub path: PathBuf,
    pub flags: OpenFlags,
    /// End of the job's I/O region in this file (`offset + size`): what the
    /// mmap engine maps.
    pub region_end: u64,
}

#[cfg(test)]
impl FileTarget {
    /// `path` opened for writing, created when missing, with the region
    /// ending at `region_end` (the engines' unit tests).
    pub(crate) fn created(path: PathBuf, region_end: u64) -> FileTarget {
        FileTarget {
            path,
            flags: OpenFlags {
                write: true,
                create: true,
                ..Default::default()
            },
            region_end,
        }
    }
}

/// The job's I/O buffers, one unit per possible I/O in flight.
#[derive(Debug, Clone, Copy)]
pub struct IoMem {
    pub base: *mut u8,
    /// Bytes per unit (a multiple of the alignment).
    pub unit: usize,
    pub units: usize,
}

impl IoMem {
    /// No pool (an engine started without buffers: tests, probes).
    pub const NONE: IoMem = IoMem {
        base: std::ptr::null_mut(),
        unit: 0,
        units: 0,
    };

    pub(crate) fn unit_ptr(&self, i: usize) -> *mut u8 {
        debug_assert!(i < self.units);
        // SAFETY (of the arithmetic): the pool holds `units * unit` bytes.
        self.base.wrapping_add(i * self.unit)
    }
}

/// Why an engine could not start or open a file. `func` is what fio names
/// in its message (`open(/path)`, `io_queue_init`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineError {
    pub(crate) errno: i32,
    pub(crate) func: String,
    /// Extra words for the user (a missing kernel feature, …).
    pub(crate) detail: Option<String>,
    /// Where in fio's source fio reports this failure (`engines/cpu.c:251`),
    /// when the engine knows it.
    pub(crate) src: Option<&'static str>,
    /// fio's own words in place of `strerror` (its `td_vmsg`: `cpu thread
    /// needs rate (cpuload=)`).
    pub(crate) text: Option<String>,
    /// What the engine printed before failing (fio's `log_err` from inside
    /// an engine: e4defrag's `'donorname' options required`), whole lines.
    pub(crate) log: Option<String>,
}

impl EngineError {
    pub(crate) fn new(errno: i32, func: impl Into<String>) -> EngineError {
        EngineError {
            errno,
            func: func.into(),
            detail: None,
            src: None,
            text: None,
            log: None,
        }
    }

    /// An engine failure with no error text of fio's (it sets the job's
    /// error and calls no `td_verror`: `err=1/`), after the engine's own
    /// `lines`.
    pub(crate) fn bare(errno: i32, lines: impl Into<String>) -> EngineError {
        EngineError::new(errno, "").with_log(lines)
    }

    /// The same, after the engine printed `lines`.
    pub(crate) fn with_log(mut self, lines: impl Into<String>) -> EngineError {
        self.log = Some(lines.into());
        self
    }

    /// fio's `td_vmsg(td, errno, text, func)` at `src` in its source: the
    /// job's error reads `file:SRC, func=FUNC, error=TEXT`.
    pub(crate) fn fio_msg(
        errno: i32,
        src: &'static str,
        func: impl Into<String>,
        text: impl Into<String>,
    ) -> EngineError {
        EngineError {
            src: Some(src),
            text: Some(text.into()),
            ..EngineError::new(errno, func)
        }
    }

    /// fio's `td_verror(td, errno, func)` at `src` in its source: the
    /// job's error reads `file:SRC, func=FUNC, error=STRERROR`.
    pub(crate) fn fio(errno: i32, src: &'static str, func: impl Into<String>) -> EngineError {
        EngineError {
            src: Some(src),
            ..EngineError::new(errno, func)
        }
    }

    pub(crate) fn last_os(func: impl Into<String>) -> EngineError {
        EngineError::new(errno(), func)
    }

    pub(crate) fn with_detail(mut self, detail: impl Into<String>) -> EngineError {
        self.detail = Some(detail.into());
        self
    }

    /// For an `open` failure: fio's `open(PATH)`.
    pub(crate) fn open(path: &Path, errno: i32) -> EngineError {
        EngineError::new(errno, format!("open({})", crate::diag::show_path(path)))
    }
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(text) = &self.text {
            write!(f, "{}: {text}", self.func)?;
        } else {
            // strerror's text, without Rust's " (os error N)".
            let text = std::io::Error::from_raw_os_error(self.errno).to_string();
            let text = text.rfind(" (os error ").map_or(&*text, |i| &text[..i]);
            write!(f, "{}: {text}", self.func)?;
        }
        if let Some(d) = &self.detail {
            write!(f, " ({d})")?;
        }
        Ok(())
    }
}

/// `strerror(errno)`, without Rust's ` (os error N)`.
pub(crate) fn strerror(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// The calling thread's `errno`.
pub(crate) fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_strerror() {
        let e = EngineError::open(std::path::Path::new("/x/y"), libc::EACCES);
        assert_eq!(e.to_string(), "open(/x/y): Permission denied");
    }
}
