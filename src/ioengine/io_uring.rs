//! `ioengine=io_uring` (fio's `engines/io_uring.c`), on the io-uring crate.
//!
//! Reads and writes use `IORING_OP_READ`/`WRITE` (or the vectored
//! `READV`/`WRITEV` with `nonvectored=0`, or when the kernel lacks the plain
//! ones), `READ_FIXED`/`WRITE_FIXED` with `fixedbufs` (the job's buffer pool
//! is registered), and fixed file indices with `registerfiles`. Syncs are
//! `IORING_OP_FSYNC`; trims run synchronously once nothing is queued, as
//! fio's engine does. `sqthread_poll` sets up a kernel submission thread
//! (`sqthread_poll_cpu` pins it), `hipri` a polled (`IOPOLL`) ring.
//!
//! Every read and write carries the job's priority (`prio`/`prioclass`),
//! or, with command priorities (`cmdprio_*`), the one the job's priority
//! generator picked for it (`sqe->ioprio`, as fio).
//!
//! The kernel is probed when the engine starts: a feature the job asks for
//! and the kernel lacks is named in the error.
//!
//! The ring is set up as fio sets it up ([`Setup`]): deferred, cooperative
//! task work and a completion ring no deeper than the submission ring, each
//! dropped when the kernel refuses it. Without them every completion of a
//! device completing on another CPU interrupts the job thread to run its
//! task work (`task_work_run`, `irqentry_exit_to_user_mode` in a profile):
//! more system time per I/O than fio. As fio, every `io_uring_enter` asks
//! for events (which runs the deferred work), `getevents` enters the kernel
//! whenever the completion ring is empty, even with nothing to wait for, and
//! with an SQ thread it spins on the ring and never enters.

use crate::ddir::Ddir;
use std::time::Duration;

use io_uring::{opcode, register::Probe, types, IoUring};

use super::cmdprio::{CmdPrioSetting, IoPrios};
use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{trim, Files};
use super::flags::{self, fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{Completion, EngineError, FileId, FileTarget, Io, IoMem, Queued};

pub(crate) struct Uring {
    ring: IoUring,
    files: Files,
    registered_files: bool,
    fixedbufs: bool,
    /// The priority every read and write carries (0: none), unless a
    /// command priority is picked for it.
    ioprio: u16,
    prio: IoPrios,
    vectored: bool,
    /// `rw_flags` of every read and write (`uncached`, `nowait`).
    rw_flags: i32,
    /// Those of writes: `rw_flags` and `RWF_ATOMIC` with `atomic=1`.
    write_flags: i32,
    /// `force_async`, and the entries prepared since the last that had
    /// `IOSQE_ASYNC` (fio's `ld->prepped`).
    force_async: u32,
    prepped: u32,
    /// One iovec per token, for the vectored opcodes.
    iovecs: Box<[libc::iovec]>,
    /// Completions of the last `getevents`: (token, result).
    events: Box<[(u32, i32)]>,
    /// Queued or submitted, not yet reaped.
    inflight: usize,
    /// Pushed to the submission queue, not yet submitted.
    unsubmitted: usize,
    depth: usize,
    /// A kernel SQ thread submits (`sqthread_poll`).
    sqpoll: bool,
    /// `iodepth_batch_complete_min=0`: `getevents` asks the kernel to
    /// wait for nothing, and calls it until enough are in.
    poll_only: bool,
}

// SAFETY: the raw pointers in `iovecs` point at the buffers of I/Os in
// flight, which `queue`'s caller keeps valid until they complete
// (`IoEngine::queue`'s contract), whichever thread the engine runs on; the
// ring itself is `Send`, and the engine is used by one thread at a time.
// (io_uring is never offloaded: its flags say `FIO_NO_OFFLOAD`.)
unsafe impl Send for Uring {}

fn missing(feature: &str, why: &str) -> EngineError {
    EngineError::new(libc::EOPNOTSUPP, "io_uring").with_detail(format!(
        "the kernel does not support {feature}, which {why} needs"
    ))
}

/// What `ioengine=io_uring` is (fio's `engines/io_uring.c`; buffered I/O
/// goes to the page cache or the kernel's io-wq workers).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(
    fio::ASYNCIO_SYNC_TRIM | fio::NO_OFFLOAD | fio::ASYNCIO_SETS_ISSUE_TIME | fio::ATOMICWRITES,
)
.buffered_to_kernel_workers()
.open_error_at(flags::GENERIC_OPEN);

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps::QUEUED_FILES;

/// io_uring's own options (fio's `options[]` of `engines/io_uring.c` that
/// rfio runs with).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UringOptions {
    /// `hipri`: a polled (`IORING_SETUP_IOPOLL`) ring.
    pub(crate) hipri: bool,
    /// `fixedbufs`: the buffer pool is registered, reads and writes are
    /// `READ_FIXED`/`WRITE_FIXED`.
    pub(crate) fixedbufs: bool,
    /// `registerfiles`: fixed file indices.
    pub(crate) registerfiles: bool,
    /// `sqthread_poll`: a kernel submission thread, pinned to
    /// `sqthread_poll_cpu` when that is set.
    pub(crate) sqthread_poll: bool,
    pub(crate) sqthread_poll_cpu: Option<u32>,
    /// `nonvectored`: 1 plain `READ`/`WRITE`, 0 `READV`/`WRITEV`, -1
    /// (unset) whatever the kernel has.
    pub(crate) nonvectored: i32,
    /// `cmdprio_percentage`, `cmdprio_class`, `cmdprio`, `cmdprio_bssplit`.
    pub(crate) cmdprio: CmdPrioSetting,
    /// `uncached` (non-zero: on): the flag it means in the job's release
    /// (fio 3.33's `RWF_UNCACHED`, none, `RWF_DONTCACHE`) on buffered
    /// reads and writes; 0: off.
    pub(crate) uncached: libc::c_int,
    /// `nowait`: `RWF_NOWAIT` on reads and writes.
    pub(crate) nowait: bool,
    /// `force_async`: every N-th entry goes with `IOSQE_ASYNC` (0: none).
    pub(crate) force_async: u32,
}

impl Default for UringOptions {
    fn default() -> Self {
        UringOptions {
            hipri: false,
            fixedbufs: false,
            registerfiles: false,
            sqthread_poll: false,
            sqthread_poll_cpu: None,
            nonvectored: -1,
            cmdprio: Ok(None),
            uncached: 0,
            nowait: false,
            force_async: 0,
        }
    }
}

/// The fio names of [`UringOptions`].
pub(crate) const OPTIONS: &[&str] = &[
    "hipri",
    "cmdprio_percentage",
    "cmdprio_class",
    "cmdprio",
    "cmdprio_bssplit",
    "fixedbufs",
    "registerfiles",
    "sqthread_poll",
    "sqthread_poll_cpu",
    "nonvectored",
    "uncached",
    "nowait",
    "force_async",
    "readfua",
    "writefua",
    "write_mode",
    "verify_mode",
    "deac",
    "md_per_io_size",
    "pi_act",
    "pi_chk",
    "apptag",
    "apptag_mask",
];

/// io_uring_cmd's NVMe command fields (`readfua` … `apptag_mask`) do
/// nothing on io_uring (rfio refuses io_uring_cmd). From fio 3.41
/// `md_per_io_size` sends protection information with each I/O, which
/// needs a block device with integrity metadata: refused before the job
/// starts, after fio_ioring_init's own check of `apptag_mask`.
fn integrity(o: &dyn OptionValues) -> Result<(), Refusal> {
    if !o.job().uring_integrity || o.int("md_per_io_size") == 0 {
        return Ok(());
    }
    if o.int("apptag_mask") != 0xffff {
        return Err(Refusal {
            option: Some("apptag_mask"),
            message: "fio: io_uring with metadata requires an apptag_mask of 0xffff \
                      (fio: io engine io_uring init failed)"
                .into(),
        });
    }
    Err(Refusal {
        option: Some("md_per_io_size"),
        message: "md_per_io_size with ioengine=io_uring needs a block device with \
                  protection information (integrity metadata, FS_IOC_GETLBMD_CAP; fio \
                  fails to open any other file: \"failed to query protection information \
                  capabilities\"); rfio does not send protection information"
            .into(),
    })
}

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<UringOptions, Refusal> {
    integrity(o)?;
    Ok(UringOptions {
        hipri: o.flag("hipri"),
        fixedbufs: o.flag("fixedbufs"),
        registerfiles: o.flag("registerfiles"),
        sqthread_poll: o.flag("sqthread_poll"),
        sqthread_poll_cpu: o.int_if_set("sqthread_poll_cpu").map(|c| c as u32),
        nonvectored: o.int("nonvectored") as i32,
        cmdprio: o.cmdprio()?,
        uncached: if o.int("uncached") != 0 {
            o.job().uncached_rwf
        } else {
            0
        },
        nowait: o.flag("nowait"),
        force_async: o.int("force_async").clamp(0, i64::from(u32::MAX)) as u32,
    })
}

pub(crate) fn new(
    common: &CommonOptions,
    opts: &UringOptions,
    mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Uring::new(common, opts, mem)?))
}

impl Uring {
    /// The engine and its ring, set up as fio's `fio_ioring_init` sets them up.
    fn new(common: &CommonOptions, opts: &UringOptions, mem: IoMem) -> Result<Uring, EngineError> {
        let depth = common.iodepth.max(1) as usize;
        let prio = IoPrios::start(&opts.cmdprio, depth, "fio_ioring_init")?;
        let entries = depth.next_power_of_two() as u32;
        let (ring, _setup) = build_ring(entries, opts).map_err(|e| {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            let why = match errno {
                libc::ENOSYS => "the kernel has no io_uring".to_string(),
                libc::EPERM if opts.sqthread_poll => {
                    "sqthread_poll needs privileges the process lacks".to_string()
                }
                libc::EPERM => {
                    "io_uring is disabled (see /proc/sys/kernel/io_uring_disabled)".to_string()
                }
                libc::EINVAL if opts.sqthread_poll || opts.hipri => format!(
                    "the kernel refused the ring setup ({})",
                    match (opts.sqthread_poll, opts.hipri) {
                        (true, true) => "sqthread_poll, hipri",
                        (true, false) => "sqthread_poll",
                        _ => "hipri",
                    }
                ),
                _ => format!("io_uring_setup failed: {e}"),
            };
            EngineError::new(errno, "io_queue_init").with_detail(why)
        })?;
        // Probe (5.6+); a kernel without the probe has only the 5.1 opcodes.
        let mut probe = Probe::new();
        let probed = ring.submitter().register_probe(&mut probe).is_ok();
        let has = |code: u8| {
            if probed {
                probe.is_supported(code)
            } else {
                matches!(
                    code,
                    opcode::Readv::CODE
                        | opcode::Writev::CODE
                        | opcode::ReadFixed::CODE
                        | opcode::WriteFixed::CODE
                        | opcode::Fsync::CODE
                )
            }
        };
        let plain = has(opcode::Read::CODE) && has(opcode::Write::CODE);
        let vectored = match opts.nonvectored {
            0 => true,
            n if n > 0 => {
                if !plain {
                    return Err(missing("IORING_OP_READ/IORING_OP_WRITE", "nonvectored=1"));
                }
                false
            }
            _ => !plain,
        };
        if opts.fixedbufs && !(has(opcode::ReadFixed::CODE) && has(opcode::WriteFixed::CODE)) {
            return Err(missing("IORING_OP_READ_FIXED/WRITE_FIXED", "fixedbufs"));
        }
        if vectored && !(has(opcode::Readv::CODE) && has(opcode::Writev::CODE)) {
            return Err(missing("IORING_OP_READV/WRITEV", "io_uring"));
        }
        if opts.fixedbufs {
            let iovecs: Vec<libc::iovec> = (0..mem.units)
                .map(|i| libc::iovec {
                    iov_base: mem.unit_ptr(i).cast(),
                    iov_len: mem.unit,
                })
                .collect();
            // SAFETY: the buffers belong to the job's pool, which outlives the
            // engine (the workload drops the engine first).
            unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|e| {
                EngineError::new(e.raw_os_error().unwrap_or(libc::EIO), "io_uring_register")
                    .with_detail("registering the buffers for fixedbufs failed (RLIMIT_MEMLOCK?)")
            })?;
        }
        let zero = libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        };
        Ok(Uring {
            ring,
            files: Files::default(),
            // fio forces registered files with an SQ thread.
            registered_files: opts.registerfiles || opts.sqthread_poll,
            fixedbufs: opts.fixedbufs,
            ioprio: common.ioprio,
            prio,
            vectored,
            rw_flags: rw_flags(common, opts),
            write_flags: rw_flags(common, opts)
                | if common.atomic_writes {
                    super::pvsync2::RWF_ATOMIC
                } else {
                    0
                },
            force_async: opts.force_async,
            prepped: 0,
            iovecs: vec![zero; depth].into_boxed_slice(),
            events: vec![(0, 0); depth].into_boxed_slice(),
            inflight: 0,
            unsubmitted: 0,
            depth,
            sqpoll: opts.sqthread_poll,
            poll_only: common.batch_complete_min == 0,
        })
    }
}

/// The optional setup flags fio's `fio_ioring_queue_init` asks for, each
/// dropped in turn when the kernel refuses it with `EINVAL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Setup {
    /// `IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN` (6.1):
    /// completions wait, unposted, for the job's next `io_uring_enter` with
    /// `IORING_ENTER_GETEVENTS`, which wakes only once `min_complete` are in.
    pub(crate) defer_taskrun: bool,
    /// `IORING_SETUP_COOP_TASKRUN` (5.19): no interrupt of the job thread
    /// to run a completion's task work.
    pub(crate) coop_taskrun: bool,
    /// `IORING_SETUP_CQSIZE`: the completion ring as deep as the
    /// submission ring, not twice (fio: "we don't need more entries").
    pub(crate) cqsize: bool,
}

impl Setup {
    /// Everything fio asks for.
    const ALL: Setup = Setup {
        defer_taskrun: true,
        coop_taskrun: true,
        cqsize: true,
    };

    /// The next set to try after `EINVAL` (fio's order: deferred task work,
    /// then cooperative task work, then the ring size), or `None`.
    fn fall_back(self) -> Option<Setup> {
        if self.defer_taskrun {
            Some(Setup {
                defer_taskrun: false,
                ..self
            })
        } else if self.coop_taskrun {
            Some(Setup {
                coop_taskrun: false,
                ..self
            })
        } else if self.cqsize {
            Some(Setup {
                cqsize: false,
                ..self
            })
        } else {
            None
        }
    }
}

/// The ring, set up as fio's `fio_ioring_queue_init` sets it up: `hipri`'s
/// `IOPOLL`, `sqthread_poll`'s `SQPOLL` (and `SQ_AFF`), and [`Setup`]'s
/// flags, retried without each in turn while the kernel says `EINVAL`
/// (an older kernel, or `SQPOLL`, which takes no task-work flags).
fn build_ring(entries: u32, opts: &UringOptions) -> std::io::Result<(IoUring, Setup)> {
    let mut setup = Setup::ALL;
    loop {
        let mut b = IoUring::builder();
        if opts.hipri {
            b.setup_iopoll();
        }
        if opts.sqthread_poll {
            b.setup_sqpoll(1000);
            if let Some(cpu) = opts.sqthread_poll_cpu {
                b.setup_sqpoll_cpu(cpu);
            }
        }
        if setup.cqsize {
            b.setup_cqsize(entries);
        }
        if setup.coop_taskrun {
            b.setup_coop_taskrun();
        }
        if setup.defer_taskrun {
            b.setup_single_issuer().setup_defer_taskrun();
        }
        match b.build(entries) {
            Ok(ring) => return Ok((ring, setup)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => match setup.fall_back() {
                Some(next) => setup = next,
                None => return Err(e),
            },
            Err(e) => return Err(e),
        }
    }
}

/// The `rw_flags` of reads and writes (fio's `fio_ioring_prep`).
fn rw_flags(common: &CommonOptions, opts: &UringOptions) -> i32 {
    let mut f = 0;
    if !common.direct {
        f |= opts.uncached;
    }
    if opts.nowait {
        f |= libc::RWF_NOWAIT;
    }
    f
}

/// Build the entry for `io` with file target `$fd` (a `types::Fd` or
/// `types::Fixed`) and priority `$prio` (reads and writes).
macro_rules! build_sqe {
    ($self:ident, $io:ident, $fd:expr, $prio:expr) => {{
        let t = $io.token;
        let len = $io.len as u32;
        match $io.dir {
            Ddir::Read if $self.fixedbufs => opcode::ReadFixed::new($fd, $io.buf, len, t as u16)
                .offset($io.offset)
                .ioprio($prio)
                .rw_flags($self.rw_flags)
                .build(),
            Ddir::Write if $self.fixedbufs => opcode::WriteFixed::new($fd, $io.buf, len, t as u16)
                .offset($io.offset)
                .ioprio($prio)
                .rw_flags($self.write_flags)
                .build(),
            Ddir::Read if $self.vectored => {
                let iov = &$self.iovecs[t as usize];
                opcode::Readv::new($fd, iov, 1)
                    .offset($io.offset)
                    .ioprio($prio)
                    .rw_flags($self.rw_flags)
                    .build()
            }
            Ddir::Write if $self.vectored => {
                let iov = &$self.iovecs[t as usize];
                opcode::Writev::new($fd, iov, 1)
                    .offset($io.offset)
                    .ioprio($prio)
                    .rw_flags($self.write_flags)
                    .build()
            }
            Ddir::Read => opcode::Read::new($fd, $io.buf, len)
                .offset($io.offset)
                .ioprio($prio)
                .rw_flags($self.rw_flags)
                .build(),
            Ddir::Write => opcode::Write::new($fd, $io.buf.cast_const(), len)
                .offset($io.offset)
                .ioprio($prio)
                .rw_flags($self.write_flags)
                .build(),
            Ddir::DataSync => opcode::Fsync::new($fd)
                .flags(types::FsyncFlags::DATASYNC)
                .build(),
            _ => opcode::Fsync::new($fd).build(),
        }
        .user_data(u64::from(t))
    }};
}

impl Uring {
    /// Take the completions the ring holds into `events[from..max]`;
    /// returns how many.
    #[inline]
    fn reap_ring(&mut self, from: usize, max: usize) -> usize {
        let mut got = from;
        let mut cq = self.ring.completion();
        cq.sync();
        while got < max {
            let Some(cqe) = cq.next() else { break };
            self.events[got] = (cqe.user_data() as u32, cqe.result());
            got += 1;
        }
        got - from
    }

    /// fio's commit with an SQ thread: the thread takes the entries from
    /// the ring itself, so nothing is left to count; the call only wakes a
    /// sleeping thread (the crate's `submit` asks for the wake-up when the
    /// kernel flags it). What `submit` returns is the ring's length as the
    /// thread left it, none when it has taken everything already: never a
    /// count of entries submitted.
    fn wake_sq_thread(&mut self) -> Result<(), i32> {
        self.unsubmitted = 0;
        match self.ring.submit() {
            Ok(_) => Ok(()),
            Err(e) => match e.raw_os_error() {
                // The entries stay in the ring for the thread to take.
                Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY) => Ok(()),
                other => Err(other.unwrap_or(libc::EIO)),
            },
        }
    }

    /// `io_uring_enter(submit, wait, IORING_ENTER_GETEVENTS)`: every call
    /// of fio's engine (without an SQ thread) carries `GETEVENTS`, which
    /// also runs the completions' deferred task work, posting them to the
    /// completion ring, whether or not it waits.
    #[inline]
    fn enter(&self, submit: usize, wait: usize) -> std::io::Result<usize> {
        let flags = io_uring::EnterFlags::GETEVENTS.bits();
        // SAFETY: no argument (signal mask or extended argument) is passed;
        // the entries it submits were pushed by `queue`, whose buffers stay
        // valid until they complete.
        unsafe {
            self.ring
                .submitter()
                .enter::<libc::sigset_t>(submit as u32, wait as u32, flags, None)
        }
    }
}

impl IoEngine for Uring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        self.files.open(target)
    }

    fn post_init(&mut self) -> Result<(), EngineError> {
        if self.registered_files && !self.files.is_empty() {
            let fds: Vec<_> = self.files.raw_fds().collect();
            self.ring.submitter().register_files(&fds).map_err(|e| {
                EngineError::new(e.raw_os_error().unwrap_or(libc::EIO), "io_uring_register")
                    .with_detail("registering the files (registerfiles/sqthread_poll) failed")
            })?;
        }
        Ok(())
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        if self.inflight >= self.depth {
            return Queued::Busy;
        }
        // Trims and syncs draw nothing and keep the job's priority.
        let prio = (self.prio)
            .pick(io.token, io.dir.index(), io.len as u64)
            .unwrap_or(self.ioprio);
        if io.dir == Ddir::Trim {
            if self.inflight > 0 {
                return Queued::Busy;
            }
            return Queued::Completed(trim(self.files.get(io.file), io.offset, io.len));
        }
        if self.vectored {
            self.iovecs[io.token as usize] = libc::iovec {
                iov_base: io.buf.cast(),
                iov_len: io.len,
            };
        }
        let mut sqe = if self.registered_files {
            build_sqe!(self, io, types::Fixed(io.file.0), prio)
        } else {
            build_sqe!(self, io, types::Fd(self.files.fd(io.file)), prio)
        };
        // Counted once the entry is in the queue (a busy one comes again).
        let mut prepped = self.prepped;
        if self.force_async > 0 {
            prepped += 1;
            if prepped == self.force_async {
                prepped = 0;
                sqe = sqe.flags(io_uring::squeue::Flags::ASYNC);
            }
        }
        // SAFETY: the buffer stays valid until the completion is reaped
        // (`queue`'s contract); so does the iovec, which lives in `self` at
        // this token's index, not reused while the token is in flight.
        match unsafe { self.ring.submission().push(&sqe) } {
            Ok(()) => {
                self.prepped = prepped;
                self.inflight += 1;
                self.unsubmitted += 1;
                Queued::Queued
            }
            Err(_) => Queued::Busy,
        }
    }

    fn commit(&mut self) -> Result<(), i32> {
        if self.sqpoll {
            return self.wake_sq_thread();
        }
        while self.unsubmitted > 0 {
            match self.enter(self.unsubmitted, 0) {
                Ok(n) => self.unsubmitted -= n.min(self.unsubmitted),
                Err(e) => match e.raw_os_error() {
                    Some(libc::EINTR) => {}
                    Some(libc::EAGAIN) | Some(libc::EBUSY) => {
                        // Out of resources: reap to make room, as fio does.
                        return Ok(());
                    }
                    other => return Err(other.unwrap_or(libc::EIO)),
                },
            }
        }
        Ok(())
    }

    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        _timeout: Option<Duration>,
    ) -> Result<usize, i32> {
        let max = max.min(self.events.len()).max(min);
        let mut got = 0;
        // fio's fio_ioring_getevents: reap what the completion ring holds;
        // when it holds nothing, wait in the kernel for the rest (with
        // `min` 0 too: the call runs the completions' task work, deferred
        // or cooperative, which posts them for the next reap). With an SQ
        // thread, which posts completions itself, spin on the ring.
        loop {
            let n = self.reap_ring(got, max);
            got += n;
            if n == 0 && !self.sqpoll {
                // iodepth_batch_complete_min=0: never sleep (fio's
                // actual_min), call again until `min` are in.
                let wait = if self.poll_only {
                    0
                } else {
                    min - got.min(min)
                };
                match self.enter(0, wait) {
                    Ok(_) => {}
                    Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                    Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => {}
                    Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {}
                    Err(e) => return Err(e.raw_os_error().unwrap_or(libc::EIO)),
                }
            } else if n == 0 {
                std::hint::spin_loop();
            }
            if got >= min {
                break;
            }
        }
        self.inflight -= got;
        Ok(got)
    }

    fn event(&mut self, i: usize) -> Completion {
        let (token, res) = self.events[i];
        Completion {
            token,
            result: if res < 0 { Err(-res) } else { Ok(res as usize) },
        }
    }

    fn new_loop(&mut self) {
        self.prio.new_loop();
    }

    #[inline]
    fn prio_slot(&self, token: u32) -> u16 {
        self.prio.slot(token)
    }

    fn files(&mut self) -> Option<&mut Files> {
        Some(&mut self.files)
    }

    fn close_all(&mut self) {
        if self.registered_files && !self.files.is_empty() {
            let _ = self.ring.submitter().unregister_files();
        }
        self.files.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_flags_fall_back_in_fios_order() {
        let mut seen = vec![Setup::ALL];
        while let Some(next) = seen.last().unwrap().fall_back() {
            seen.push(next);
        }
        let flags: Vec<(bool, bool, bool)> = seen
            .iter()
            .map(|s| (s.defer_taskrun, s.coop_taskrun, s.cqsize))
            .collect();
        assert_eq!(
            flags,
            [
                (true, true, true),
                (false, true, true),
                (false, false, true),
                (false, false, false)
            ]
        );
    }

    /// Writes a block and reads it back through a ring with `opts` (and
    /// `iodepth_batch_complete_min` `complete_min`), the
    /// read's completion reaped only by `getevents` with `min` 0 (what the
    /// loop does when it polls): with deferred task work a completion is
    /// posted only by a call into the kernel, which an empty ring must
    /// make. Returns the bytes read.
    fn round_trip(name: &str, opts: &UringOptions, complete_min: u32) -> Vec<u8> {
        const BS: usize = 4096;
        let dir = std::env::temp_dir().join(format!("rfio-uring-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut pool = vec![0u8; 2 * BS];
        let mem = IoMem {
            base: pool.as_mut_ptr(),
            unit: BS,
            units: 2,
        };
        let common = CommonOptions {
            iodepth: 2,
            batch_complete_min: complete_min,
            ..CommonOptions::default()
        };
        let mut e = new(&common, opts, mem).unwrap();
        let file = e.open(&FileTarget::created(dir.join("f"), 0)).unwrap();
        e.post_init().unwrap();
        for (i, b) in pool[..BS].iter_mut().enumerate() {
            *b = (i * 7 % 251) as u8;
        }
        let io = |token: u32, dir| Io {
            token,
            file,
            dir,
            offset: 8192,
            len: BS,
            buf: mem.unit_ptr(token as usize),
        };
        // SAFETY: the pool outlives every I/O, each reaped before the next.
        assert_eq!(unsafe { e.queue(&io(0, Ddir::Write)) }, Queued::Queued);
        e.commit().unwrap();
        assert_eq!(e.getevents(1, 2, None), Ok(1));
        assert_eq!(e.event(0).result, Ok(BS));
        // SAFETY: as above.
        assert_eq!(unsafe { e.queue(&io(1, Ddir::Read)) }, Queued::Queued);
        e.commit().unwrap();
        let mut polls = 0;
        while e.getevents(0, 2, Some(Duration::ZERO)) == Ok(0) {
            polls += 1;
            assert!(polls < 100_000, "{name}: the read never completed");
            std::thread::yield_now();
        }
        assert_eq!(
            e.event(0),
            Completion {
                token: 1,
                result: Ok(BS)
            }
        );
        e.close_all();
        drop(e);
        let _ = std::fs::remove_dir_all(&dir);
        pool[BS..].to_vec()
    }

    #[test]
    fn completions_reaped_by_polling_arrive_with_every_option() {
        let written: Vec<u8> = (0..4096).map(|i| (i * 7 % 251) as u8).collect();
        // `force_async`: through the kernel's workers, so that no read
        // completes inline, while it is submitted.
        let base = UringOptions {
            force_async: 1,
            ..UringOptions::default()
        };
        for (name, opts) in [
            ("default", base.clone()),
            (
                "vectored",
                UringOptions {
                    nonvectored: 0,
                    ..base.clone()
                },
            ),
            (
                "fixed",
                UringOptions {
                    fixedbufs: true,
                    registerfiles: true,
                    ..base.clone()
                },
            ),
        ] {
            assert_eq!(round_trip(name, &opts, 1), written, "{name}");
        }
        // iodepth_batch_complete_min=0: the write's wait for one is a loop
        // of calls that wait for none.
        assert_eq!(round_trip("poll", &base, 0), written);
    }

    /// With an SQ thread, the kernel may take an entry from the ring before
    /// the job commits it (a preempted job thread, a loaded machine): the
    /// commit then finds nothing in the ring and must still return. It
    /// once waited for the ring to report the entry submitted, forever.
    #[test]
    fn a_commit_after_the_sq_thread_took_the_entry_returns() {
        const BS: usize = 4096;
        let dir = std::env::temp_dir().join(format!("rfio-uring-{}-sqpoll", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let (done, finished) = std::sync::mpsc::channel();
        let worker = std::thread::spawn(move || {
            let mut pool = vec![0u8; BS];
            let mem = IoMem {
                base: pool.as_mut_ptr(),
                unit: BS,
                units: 1,
            };
            let common = CommonOptions {
                iodepth: 1,
                ..CommonOptions::default()
            };
            let opts = UringOptions {
                sqthread_poll: true,
                ..UringOptions::default()
            };
            let mut e = Uring::new(&common, &opts, mem).unwrap();
            let file = e.open(&FileTarget::created(path, 0)).unwrap();
            e.post_init().unwrap();
            let io = Io {
                token: 0,
                file,
                dir: Ddir::Write,
                offset: 0,
                len: BS,
                buf: mem.unit_ptr(0),
            };
            // SAFETY: the pool outlives the I/O, reaped below.
            assert_eq!(unsafe { e.queue(&io) }, Queued::Queued);
            // The SQ thread, polling, takes the entry by itself; one that
            // went to sleep first (past its idle time on a loaded machine)
            // is woken to take it, as the old commit's first call did.
            while !e.ring.submission().is_empty() {
                if e.ring.submission().need_wakeup() {
                    let _ = e.ring.submit();
                }
                std::thread::yield_now();
            }
            e.commit().unwrap();
            assert_eq!(e.getevents(1, 1, None), Ok(1));
            assert_eq!(e.event(0).result, Ok(BS));
            e.close_all();
            done.send(()).unwrap();
        });
        let outcome = finished.recv_timeout(Duration::from_secs(30));
        let _ = std::fs::remove_dir_all(&dir);
        assert_ne!(
            outcome,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout),
            "the commit never returned once the SQ thread had taken the entry"
        );
        worker.join().unwrap();
    }
}
