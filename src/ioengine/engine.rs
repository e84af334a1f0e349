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
//! An [`Io`] carries a raw pointer into the job's I/O buffer pool, which
//! the engine (or the kernel, for an asynchronous one) reads or writes
//! until the I/O completes. That is why [`IoEngine::queue`] is `unsafe`:
//! its caller (the workload's I/O loop) guarantees what its `# Safety`
//! section says, that the buffer stays valid and untouched until then and
//! that tokens in flight are distinct. Engines keep per-I/O state in arrays
//! indexed by [`Io::token`] (`0..iodepth`), allocated when the engine is
//! created: nothing in `queue`/`commit`/`getevents`/`event` allocates.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::files::Files;
use super::io::{Completion, EngineError, FileId, FileTarget, Io, Queued};

/// What an engine can do; the workload asks these, never engine names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Every I/O completes inside `queue` (fio's `FIO_SYNCIO`): iodepth is
    /// capped at 1, with fio's note when the job asked for more.
    pub(crate) is_sync: bool,
    /// The engine does I/O to real files, which are laid out before the job
    /// (fio engines without `FIO_DISKLESSIO`).
    pub(crate) needs_files: bool,
    /// The engine accepts `Ddir::Trim`.
    pub(crate) can_trim: bool,
    /// Queued I/Os are submitted to the kernel in `commit` (submission
    /// latency is measured up to it); otherwise `queue` submits.
    pub(crate) has_commit: bool,
    /// No data moves (fio's `FIO_FAKEIO`): buffers are never read or
    /// written, and are not filled.
    pub(crate) fake_io: bool,
    /// The work is a file operation done when the file is opened (fio's
    /// `FIO_NOSTATS`: filecreate, filestat, filedelete).
    pub(crate) file_op: bool,
    /// The engine cannot grow a file (fio's `FIO_NOEXTEND`): a writing
    /// job's files are laid out with data, as for a reading job.
    pub(crate) no_extend: bool,
    /// No I/O at all (fio's `FIO_NOIO`: cpuio, exec): the job needs no
    /// size and no files, each "I/O" is a read of nothing the engine does
    /// its work in, counted but moving no bytes, followed by the think
    /// time the engine asks for ([`IoEngine::think_us`]); the job runs
    /// until its runtime is over, it is stopped, or the engine is done
    /// ([`IoEngine::done`]). fio prints no description line for it.
    pub(crate) no_io: bool,
}

impl Caps {
    /// A plain synchronous engine on files that can trim.
    pub(crate) const SYNC_FILES: Caps = Caps {
        is_sync: true,
        needs_files: true,
        can_trim: true,
        has_commit: false,
        fake_io: false,
        file_op: false,
        no_extend: false,
        no_io: false,
    };

    /// An engine that does no I/O (fio's `FIO_SYNCIO | FIO_DISKLESSIO |
    /// FIO_NOIO`: cpuio, exec).
    pub(crate) const NO_IO: Caps = Caps {
        is_sync: true,
        needs_files: false,
        can_trim: true,
        has_commit: false,
        fake_io: true,
        file_op: false,
        no_extend: false,
        no_io: true,
    };

    /// An engine on files that queues I/O and submits it in `commit`
    /// (libaio, io_uring).
    pub(crate) const QUEUED_FILES: Caps = Caps {
        is_sync: false,
        needs_files: true,
        can_trim: true,
        has_commit: true,
        fake_io: false,
        file_op: false,
        no_extend: false,
        no_io: false,
    };
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
    /// `atomic=1` from fio 3.38 on: `RWF_ATOMIC` on each write (an engine
    /// without atomic writes never gets a job that asks it).
    pub atomic_writes: bool,
}

impl Default for CommonOptions {
    fn default() -> Self {
        CommonOptions {
            iodepth: 1,
            direct: false,
            batch_complete_min: 1,
            ioprio: 0,
            atomic_writes: false,
        }
    }
}

/// The job's stop request and deadline, as an engine's long waits see
/// them (a listening net job waiting for its connection gives up on a
/// stop; a read from a peer that never answers gives up on either): see
/// [`IoEngine::watch_stop`].
#[derive(Debug, Clone, Copy)]
pub struct StopFlag {
    flag: *const AtomicBool,
    /// When the job's runtime ends, in ns of `CLOCK_MONOTONIC`
    /// ([`mono_ns`]); `u64::MAX`: no runtime.
    deadline: *const AtomicU64,
    /// A bound of the wait's own, on the same clock ([`StopFlag::within`]);
    /// `u64::MAX`: none.
    limit: u64,
}

// SAFETY: a `StopFlag` is two shared references to atomics (which are
// `Sync`), kept as pointers only to spare engines a lifetime: `new`'s
// caller guarantees they outlive every engine handed the flag, on whatever
// thread that engine runs.
unsafe impl Send for StopFlag {}

/// The flag and deadline of [`StopFlag::never`]: never raised, none.
static NEVER_RAISED: AtomicBool = AtomicBool::new(false);
static NO_DEADLINE: AtomicU64 = AtomicU64::new(u64::MAX);

impl StopFlag {
    /// The request `flag` and the deadline `deadline`.
    ///
    /// # Safety
    /// `flag` and `deadline` outlive every engine this is handed to.
    pub(crate) unsafe fn new(flag: &AtomicBool, deadline: &AtomicU64) -> StopFlag {
        StopFlag {
            flag,
            deadline,
            limit: u64::MAX,
        }
    }

    /// A stop that never comes (no request, no deadline): for the waits
    /// of an engine started with none ([`crate::ioengine::EngineDef::new`]
    /// without a stop), which [`StopFlag::within`] still bounds.
    pub(crate) fn never() -> StopFlag {
        StopFlag {
            flag: &NEVER_RAISED,
            deadline: &NO_DEADLINE,
            limit: u64::MAX,
        }
    }

    /// This stop, and also over once `limit` has passed from now (a wait
    /// before the job's runtime has a deadline, nbd's handshake, bounded
    /// on its own).
    pub(crate) fn within(self, limit: Duration) -> StopFlag {
        let limit = mono_ns().saturating_add(limit.as_nanos().min(u64::MAX as u128) as u64);
        StopFlag {
            limit: limit.min(self.limit),
            ..self
        }
    }

    /// Whether the stop was asked for.
    pub(crate) fn raised(&self) -> bool {
        // SAFETY: the flag outlives the engine holding this (`new`'s
        // contract).
        unsafe { (*self.flag).load(Ordering::Relaxed) }
    }

    /// Whether the stop was asked for or the job's runtime is over: a
    /// wait for a peer gives up (one clock read; for the waits' slices,
    /// never per I/O).
    pub(crate) fn over(&self) -> bool {
        // SAFETY: as `raised`.
        let deadline = unsafe { (*self.deadline).load(Ordering::Relaxed) }.min(self.limit);
        self.raised() || (deadline != u64::MAX && mono_ns() >= deadline)
    }
}

/// Now on `CLOCK_MONOTONIC`, in ns (the clock of [`StopFlag`]'s deadline).
pub(crate) fn mono_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// An error of `queue` as the engine reports it (see
/// [`IoEngine::queue_error`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueError {
    /// The job's error (fio's `td_verror`).
    pub(crate) error: EngineError,
    /// What the engine printed first (fio's `log_err`), whole lines.
    pub(crate) log: Option<String>,
}

/// One engine instance, owned by one job thread at a time: `Send`, so that
/// the offload pool can hand it to a worker thread (each instance is then
/// used by one thread at a time, under its slot's mutex).
pub trait IoEngine: Send {
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

    /// Queue one I/O.
    ///
    /// # Safety
    /// The caller guarantees, for the I/O from this call until the engine
    /// reports it complete (`queue` returned [`Queued::Completed`], or
    /// [`IoEngine::event`] handed its token back; for [`Queued::Busy`],
    /// until `queue` returns):
    ///
    /// - `io.buf` is valid for `io.len` bytes (written to for a read, read
    ///   for a write) and nothing else reads or writes those bytes: the
    ///   engine, or the kernel for it, may do so at any time until then;
    /// - `io.token` is below the engine's `iodepth` and no other I/O in
    ///   flight has it (at most `iodepth` I/Os are in flight);
    /// - `io.file` was returned by [`IoEngine::open`] and is not closed.
    unsafe fn queue(&mut self, io: &Io) -> Queued;

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

    /// The think time the engine sets after each I/O, in µs (fio's cpuio
    /// and exec set the job's `thinktime` when they start; cpuio's qsort
    /// mode sets it again after each I/O): read after every I/O of a
    /// `no_io` engine ([`Caps::no_io`]). 0: none.
    fn think_us(&self) -> u64 {
        0
    }

    /// A line the engine has for the user (fio's `log_info` from inside an
    /// engine: cpuio's and exec's start lines, net's `fio: waiting for
    /// connection`), newline included, handed over once. The workload asks
    /// when the engine has started, after it opened the files, and after
    /// each I/O of a `no_io` engine.
    fn notice(&mut self) -> Option<String> {
        None
    }

    /// The engine has nothing more to do (fio's engines setting
    /// `td->done`: net's receiver when the UDP sender said goodbye); the
    /// job ends after the I/O it just completed.
    fn done(&self) -> bool {
        false
    }

    /// The job's stop request and deadline, for the engine's long waits
    /// (net's `accept`, a read from a silent peer); handed over once,
    /// before the files are opened.
    fn watch_stop(&mut self, stop: StopFlag) {
        let _ = stop;
    }

    /// Whether the job's statistics start once its files are open (fio's
    /// net engine calls `reset_all_stats` when a listening job has
    /// accepted its connection): asked after the files of the first pass
    /// are open.
    fn stats_start_at_open(&self) -> bool {
        false
    }

    /// I/Os the engine found lost since it was last asked (fio's
    /// `drop_io_u`: the UDP datagrams a net reader never got, by their
    /// sequence numbers), counted with the reads; asked at the end of each
    /// pass.
    fn take_dropped(&mut self) -> u64 {
        0
    }

    /// What failed when the files were closed (fio's net engine says
    /// goodbye to its peer then, and a failed `sendto` is the job's
    /// error); taken once, after [`IoEngine::close_all`].
    fn close_error(&mut self) -> Option<EngineError> {
        None
    }

    /// How fio reports an error that `queue` gave back
    /// (`Queued::Completed(Err(errno))`) for this engine, when not as an
    /// I/O error of the file: `None`, the default, as fio's file engines
    /// do (`fio: io_u error on file ...`, `io_u.c:1876`); otherwise the
    /// job's error and what the engine printed (nbd leaves the error to
    /// fio's `td_io_queue`, `ioengines.c:399`, printing nothing; http
    /// says which HTTP status failed and names its `transfer`).
    fn queue_error(&mut self, errno: i32) -> Option<QueueError> {
        let _ = errno;
        None
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

    /// The engine's open files, when it keeps them in the shared table
    /// (`Files`, fio's `generic_open_file` and friends): `invalidate`,
    /// `fadvise` and `close_all` then work on it, with no code of the
    /// engine's own. `None` for an engine that keeps its files otherwise
    /// (or none at all); it overrides what it needs.
    fn files(&mut self) -> Option<&mut Files> {
        None
    }

    /// Drop the file's cached pages before the job (`invalidate=1`).
    fn invalidate(&mut self, file: FileId) -> Result<(), i32> {
        match self.files() {
            Some(files) => files.invalidate(file),
            None => Ok(()),
        }
    }

    /// Tell the kernel how the region will be accessed (`fadvise_hint`):
    /// `advice` is `POSIX_FADV_RANDOM` or `POSIX_FADV_SEQUENTIAL`.
    fn fadvise(&mut self, file: FileId, offset: u64, len: u64, advice: i32) -> Result<(), i32> {
        match self.files() {
            Some(files) => files.fadvise(file, offset, len, advice),
            None => Ok(()),
        }
    }

    /// Close one file (`openfiles`: a file done for the pass closes to
    /// make room for another).
    fn close_file(&mut self, file: FileId) {
        if let Some(files) = self.files() {
            files.close(file);
        }
    }

    /// The descriptor of an open file, for the calls fio makes on it
    /// whatever the engine (`write_hint`'s `fcntl`, `sync_file_range`);
    /// `None` for an engine without descriptors.
    fn raw_fd(&mut self, file: FileId) -> Option<std::os::fd::RawFd> {
        self.files().map(|files| files.fd(file))
    }

    /// Close every file opened so far.
    fn close_all(&mut self) {
        if let Some(files) = self.files() {
            files.clear();
        }
    }
}
