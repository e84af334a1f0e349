//! The engine contract, fio-style (`ioengines.h`): `queue` one I/O, `commit`
//! what was queued, `getevents` to wait for completions, `event` to read one.
//!
//! A synchronous engine does the I/O inside [`IoEngine::queue`] and answers
//! [`Queued::Completed`]; an asynchronous one answers [`Queued::Queued`] and
//! reports the completion later through [`IoEngine::getevents`] and
//! [`IoEngine::event`]. [`Queued::Busy`] asks the caller to reap completions
//! (after [`IoEngine::commit`]) and queue the same I/O again.
//!
//! # Memory
//! An [`Io`] carries a raw pointer into the job's I/O buffer pool. The
//! workload guarantees that the buffer stays valid and is not touched by
//! anyone else from the `queue` call until the engine reports the I/O
//! complete (returned `Completed`, or handed back by `event`), and that it
//! never has more than `iodepth` I/Os in flight. Engines keep per-I/O state
//! in arrays indexed by [`Io::token`] (`0..iodepth`), allocated when the
//! engine is created: nothing in `queue`/`commit`/`getevents`/`event`
//! allocates.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// What an I/O does (fio's `enum fio_ddir`, without the verify kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IoDir {
    Read = 0,
    Write = 1,
    Trim = 2,
    /// `fsync(2)` of the file (`fsync=N`, `end_fsync`).
    Sync = 3,
    /// `fdatasync(2)` of the file (`fdatasync=N`).
    DataSync = 4,
}

impl IoDir {
    /// Whether this moves (or discards) data, i.e. is counted as an I/O.
    pub fn is_data(self) -> bool {
        matches!(self, IoDir::Read | IoDir::Write | IoDir::Trim)
    }
}

/// An opened file of an engine (index into the engine's own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId(pub u32);

/// One I/O unit, as handed to [`IoEngine::queue`].
#[derive(Debug, Clone, Copy)]
pub struct Io {
    /// Which unit of the pool this is: `0..iodepth`, unique among the I/Os
    /// in flight. Engines index their per-I/O state with it.
    pub token: u32,
    pub file: FileId,
    pub dir: IoDir,
    pub offset: u64,
    /// Bytes to transfer; 0 for `Sync`/`DataSync`.
    pub len: usize,
    /// Start of the data; valid for `len` bytes until the I/O completes.
    pub buf: *mut u8,
}

/// The outcome of one I/O: bytes transferred, or the errno.
pub type IoResult = Result<usize, i32>;

/// What [`IoEngine::queue`] did with an I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// Done already (every I/O of a sync engine).
    Completed(IoResult),
    /// Accepted; it completes later through `getevents`/`event`.
    Queued,
    /// Not accepted now: commit, reap something, then queue it again.
    Busy,
}

/// One completion read back with [`IoEngine::event`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub token: u32,
    pub result: IoResult,
}

/// What an engine can do; the workload asks these, never engine names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Every I/O completes inside `queue` (fio's `FIO_SYNCIO`): iodepth is
    /// capped at 1, with fio's note when the job asked for more.
    pub is_sync: bool,
    /// The engine does I/O to real files, which are laid out before the job
    /// (fio engines without `FIO_DISKLESSIO`).
    pub needs_files: bool,
    /// The engine accepts `IoDir::Trim`.
    pub can_trim: bool,
    /// Queued I/Os are submitted to the kernel in `commit` (submission
    /// latency is measured up to it); otherwise `queue` submits.
    pub has_commit: bool,
    /// No data moves (fio's `FIO_FAKEIO`): buffers are never read or
    /// written, and are not filled.
    pub fake_io: bool,
    /// The work is a file operation done when the file is opened (fio's
    /// `FIO_NOSTATS`: filecreate, filestat, filedelete).
    pub file_op: bool,
    /// The engine cannot grow a file (fio's `FIO_NOEXTEND`): a writing
    /// job's files are laid out with data, as for a reading job.
    pub no_extend: bool,
}

impl Caps {
    /// A plain synchronous engine on files that can trim.
    pub const SYNC_FILES: Caps = Caps {
        is_sync: true,
        needs_files: true,
        can_trim: true,
        has_commit: false,
        fake_io: false,
        file_op: false,
        no_extend: false,
    };

    /// An engine on files that queues I/O and submits it in `commit`
    /// (libaio, io_uring).
    pub const QUEUED_FILES: Caps = Caps {
        is_sync: false,
        needs_files: true,
        can_trim: true,
        has_commit: true,
        fake_io: false,
        file_op: false,
        no_extend: false,
    };
}

/// How the workload wants a file opened (fio's `generic_open_file` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenFlags {
    /// `direct=1`: `O_DIRECT`, buffers and offsets must be aligned.
    pub direct: bool,
    /// The job writes or trims (open read-write rather than read-only).
    pub write: bool,
    /// `sync=sync`: `O_SYNC`.
    pub sync: bool,
    /// `sync=dsync`: `O_DSYNC`.
    pub dsync: bool,
    /// Create the file if it does not exist (`create_on_open`, or a write
    /// job whose file was not laid out).
    pub create: bool,
}

/// A file to open, as [`IoEngine::open`] receives it.
#[derive(Debug, Clone)]
pub struct FileTarget {
    pub path: PathBuf,
    pub flags: OpenFlags,
    /// End of the job's I/O region in this file (`offset + size`): what the
    /// mmap engine maps.
    pub region_end: u64,
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

    pub fn unit_ptr(&self, i: usize) -> *mut u8 {
        debug_assert!(i < self.units);
        // SAFETY (of the arithmetic): the pool holds `units * unit` bytes.
        self.base.wrapping_add(i * self.unit)
    }
}

/// The options every engine reads: core options of the job, resolved by
/// the plan (`src/plan/engine.rs`) with fio's defaults. An engine's own
/// options come in its own struct (see [`crate::ioengine::EngineOptions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommonOptions {
    /// `iodepth`: at most this many I/Os in flight (1 at least).
    pub iodepth: u32,
    /// `direct=1` (or `buffered=0`).
    pub direct: bool,
    /// `iodepth_batch_complete_min` (libaio waits for none when it is 0).
    pub batch_complete_min: u32,
    /// The job's own I/O priority (fio's `td->ioprio` from
    /// `prio`/`prioclass`; 0: none), which io_uring puts on each read and
    /// write.
    pub ioprio: u16,
}

impl Default for CommonOptions {
    fn default() -> Self {
        CommonOptions {
            iodepth: 1,
            direct: false,
            batch_complete_min: 1,
            ioprio: 0,
        }
    }
}

/// Why an engine could not start or open a file. `func` is what fio names
/// in its message (`open(/path)`, `io_queue_init`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineError {
    pub errno: i32,
    pub func: String,
    /// Extra words for the user (a missing kernel feature, …).
    pub detail: Option<String>,
}

impl EngineError {
    pub fn new(errno: i32, func: impl Into<String>) -> EngineError {
        EngineError {
            errno,
            func: func.into(),
            detail: None,
        }
    }

    pub fn last_os(func: impl Into<String>) -> EngineError {
        EngineError::new(errno(), func)
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> EngineError {
        self.detail = Some(detail.into());
        self
    }

    /// For an `open` failure: fio's `open(PATH)`.
    pub fn open(path: &Path, errno: i32) -> EngineError {
        EngineError::new(errno, format!("open({})", path.display()))
    }
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // strerror's text, without Rust's " (os error N)".
        let text = std::io::Error::from_raw_os_error(self.errno).to_string();
        let text = text.rfind(" (os error ").map_or(&*text, |i| &text[..i]);
        write!(f, "{}: {text}", self.func)?;
        if let Some(d) = &self.detail {
            write!(f, " ({d})")?;
        }
        Ok(())
    }
}

/// The calling thread's `errno`.
pub fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// One engine instance, owned by one job thread.
pub trait IoEngine {
    /// fio's name of the engine (`ioengine=`).
    fn name(&self) -> &'static str;

    /// What this instance can do (the null engine is sync only at iodepth 1).
    fn caps(&self) -> Caps;

    /// Open (or, for the file-operation engines, act on) one file.
    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError>;

    /// Called once after every file is open, before the first I/O
    /// (io_uring registers its files here).
    fn post_init(&mut self) -> Result<(), EngineError> {
        Ok(())
    }

    /// Queue one I/O. See the module documentation for the buffer rules.
    fn queue(&mut self, io: &Io) -> Queued;

    /// Submit everything queued since the last commit. Returns the errno of
    /// a failed submission.
    fn commit(&mut self) -> Result<(), i32> {
        Ok(())
    }

    /// Wait until at least `min` (and at most `max`) queued I/Os completed,
    /// or `timeout` passed (`None`: no limit). Returns how many completions
    /// [`IoEngine::event`] can now read, indices `0..n`.
    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        timeout: Option<Duration>,
    ) -> Result<usize, i32> {
        let _ = (min, max, timeout);
        Ok(0)
    }

    /// Completion `i` of the last `getevents`.
    fn event(&mut self, i: usize) -> Completion {
        unreachable!("{}: event({i}) without getevents", self.name())
    }

    /// The job starts another loop (`loops`, fio's `clear_io_state`):
    /// what `randrepeat` re-seeds is re-seeded (the command priority
    /// generator).
    fn new_loop(&mut self) {}

    /// The statistics slot of the priority the I/O of `token` carries
    /// (fio's `io_u->clat_prio_index`, see
    /// [`EngineSpec::prio_slots`](crate::ioengine::EngineSpec::prio_slots)):
    /// 0, the job's own priority, unless the engine gave it a command
    /// priority. Valid from the `queue` of that I/O until the token is
    /// queued again.
    #[inline]
    fn prio_slot(&self, token: u32) -> u16 {
        let _ = token;
        0
    }

    /// Drop the file's cached pages before the job (`invalidate=1`).
    fn invalidate(&mut self, file: FileId) -> Result<(), i32> {
        let _ = file;
        Ok(())
    }

    /// Tell the kernel how the region will be accessed (`fadvise_hint`):
    /// `advice` is `POSIX_FADV_RANDOM` or `POSIX_FADV_SEQUENTIAL`.
    fn fadvise(&mut self, file: FileId, offset: u64, len: u64, advice: i32) -> Result<(), i32> {
        let _ = (file, offset, len, advice);
        Ok(())
    }

    /// Close every file opened so far.
    fn close_all(&mut self);
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
