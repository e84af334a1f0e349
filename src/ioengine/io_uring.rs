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
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::ASYNCIO_SYNC_TRIM | fio::NO_OFFLOAD | fio::ASYNCIO_SETS_ISSUE_TIME)
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
    /// `uncached` (non-zero: on): fio 3.33's `RWF_UNCACHED` on buffered
    /// reads and writes.
    pub(crate) uncached: bool,
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
            uncached: false,
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
];

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<UringOptions, Refusal> {
    Ok(UringOptions {
        hipri: o.flag("hipri"),
        fixedbufs: o.flag("fixedbufs"),
        registerfiles: o.flag("registerfiles"),
        sqthread_poll: o.flag("sqthread_poll"),
        sqthread_poll_cpu: o.int_if_set("sqthread_poll_cpu").map(|c| c as u32),
        nonvectored: o.int("nonvectored") as i32,
        cmdprio: o.cmdprio()?,
        uncached: o.int("uncached") != 0,
        nowait: o.flag("nowait"),
        force_async: o.int("force_async").clamp(0, i64::from(u32::MAX)) as u32,
    })
}

pub(crate) fn new(
    common: &CommonOptions,
    opts: &UringOptions,
    mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    let depth = common.iodepth.max(1) as usize;
    let prio = IoPrios::start(&opts.cmdprio, depth, "fio_ioring_init")?;
    let mut b = IoUring::builder();
    if opts.sqthread_poll {
        b.setup_sqpoll(1000);
        if let Some(cpu) = opts.sqthread_poll_cpu {
            b.setup_sqpoll_cpu(cpu);
        }
    }
    if opts.hipri {
        b.setup_iopoll();
    }
    let ring = b.build(depth.next_power_of_two() as u32).map_err(|e| {
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
    Ok(Box::new(Uring {
        ring,
        files: Files::default(),
        // fio forces registered files with an SQ thread.
        registered_files: opts.registerfiles || opts.sqthread_poll,
        fixedbufs: opts.fixedbufs,
        ioprio: common.ioprio,
        prio,
        vectored,
        rw_flags: rw_flags(common, opts),
        force_async: opts.force_async,
        prepped: 0,
        iovecs: vec![zero; depth].into_boxed_slice(),
        events: vec![(0, 0); depth].into_boxed_slice(),
        inflight: 0,
        unsubmitted: 0,
        depth,
    }))
}

/// The `rw_flags` of reads and writes (fio's `fio_ioring_prep`).
fn rw_flags(common: &CommonOptions, opts: &UringOptions) -> i32 {
    let mut f = 0;
    if opts.uncached && !common.direct {
        f |= super::pvsync2::RWF_UNCACHED;
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
                .rw_flags($self.rw_flags)
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
                    .rw_flags($self.rw_flags)
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
                .rw_flags($self.rw_flags)
                .build(),
            Ddir::DataSync => opcode::Fsync::new($fd)
                .flags(types::FsyncFlags::DATASYNC)
                .build(),
            _ => opcode::Fsync::new($fd).build(),
        }
        .user_data(u64::from(t))
    }};
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
        while self.unsubmitted > 0 {
            match self.ring.submit() {
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
        loop {
            {
                let mut cq = self.ring.completion();
                cq.sync();
                for cqe in &mut cq {
                    self.events[got] = (cqe.user_data() as u32, cqe.result());
                    got += 1;
                    if got == max {
                        break;
                    }
                }
            }
            if got >= min {
                break;
            }
            match self.ring.submit_and_wait(min - got) {
                Ok(n) => self.unsubmitted -= n.min(self.unsubmitted),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => {}
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {}
                Err(e) => return Err(e.raw_os_error().unwrap_or(libc::EIO)),
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
