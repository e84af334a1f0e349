//! `ioengine=libaio`: Linux native AIO through the raw system calls
//! `io_setup`, `io_submit`, `io_getevents`, `io_destroy` (fio's
//! `engines/libaio.c`, without linking libaio).
//!
//! Reads and writes are queued; trims and syncs run synchronously once
//! nothing is queued, as fio does (Linux has no useful AIO fsync).
//! `userspace_reap` reads completions straight from the ring the kernel
//! maps at the context address when the caller does not need to wait.
//! With buffered I/O the kernel completes most requests inside
//! `io_submit`, which is what fio's libaio does too.
//!
//! With command priorities (`cmdprio_*`) a read or write the job's priority
//! generator picks carries its priority in the iocb (`IOCB_FLAG_IOPRIO`);
//! the others carry none and run at the thread's priority (`prio`).

use crate::ddir::Ddir;
use std::ptr;
use std::time::Duration;

use super::cmdprio::{CmdPrioSetting, IoPrios};
use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{non_data, Files};
use super::flags::{self, fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{errno, Completion, EngineError, FileId, FileTarget, Io, IoMem, Queued};

type AioContext = libc::c_ulong;

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_FSYNC: u16 = 2;
const IOCB_CMD_PREADV: u16 = 7;
const IOCB_CMD_PWRITEV: u16 = 8;
/// `aio_reqprio` holds an I/O priority (`<linux/aio_abi.h>`).
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// `struct iocb` of `<linux/aio_abi.h>` (x86-64 / little-endian layout).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    aio_key: u32,
    aio_rw_flags: i32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

/// The head of the completion ring the kernel maps at the context address.
#[repr(C)]
struct AioRing {
    id: u32,
    nr: u32,
    head: u32,
    tail: u32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

const AIO_RING_MAGIC: u32 = 0xa10a_10a1;

pub(crate) struct Libaio {
    ctx: AioContext,
    files: Files,
    /// One iocb per token; the kernel reads it during `io_submit`.
    iocbs: Box<[Iocb]>,
    /// Pointers to the iocbs queued and not yet submitted, in order.
    pending: Box<[*mut Iocb]>,
    npending: usize,
    /// I/Os submitted and not yet reaped.
    inflight: usize,
    /// A failed io_submit dropped queued I/Os (the caller's count of I/Os
    /// in flight includes them).
    lost: bool,
    events: Box<[IoEvent]>,
    /// Completions waited for at least: `iodepth_batch_complete_min`.
    batch_complete_min: u32,
    userspace_reap: bool,
    /// Command priorities.
    prio: IoPrios,
    /// `aio_rw_flags` of reads and writes (`RWF_NOWAIT` with `nowait`).
    rw_flags: i32,
    /// Those writes add (`RWF_ATOMIC` with fio 3.38's `atomic=1`).
    write_flags: i32,
    /// `libaio_vectored` (3.39): one iovec per token, `PREADV`/`PWRITEV`;
    /// empty: plain `PREAD`/`PWRITE`.
    iovecs: Box<[libc::iovec]>,
    /// Syncs are queued as `IOCB_CMD_FSYNC` beside the other I/O (fio
    /// 3.41), not run alone once the queue is empty.
    async_fsync: bool,
}

// SAFETY: `pending` points into `iocbs` (a heap slice this value owns,
// never moved while it lives), the iocbs' buffers are those of I/Os in
// flight, which `queue`'s caller keeps valid until they complete
// (`IoEngine::queue`'s contract), and a kernel AIO context may be used
// from any thread of the process; the engine is used by one thread at a
// time.
unsafe impl Send for Libaio {}

/// What `ioengine=libaio` is (fio's `engines/libaio.c`).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::ASYNCIO_SYNC_TRIM | fio::ASYNCIO_SETS_ISSUE_TIME | fio::ATOMICWRITES)
        .open_error_at(flags::GENERIC_OPEN);

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps::QUEUED_FILES;

/// libaio's own options (fio's `options[]` of `engines/libaio.c` that rfio
/// runs with).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LibaioOptions {
    /// `userspace_reap`: read completions from the kernel's ring when the
    /// caller does not wait.
    pub(crate) userspace_reap: bool,
    /// `cmdprio_percentage`, `cmdprio_class`, `cmdprio`, `cmdprio_bssplit`.
    pub(crate) cmdprio: CmdPrioSetting,
    /// `nowait`: `RWF_NOWAIT` in every read and write iocb.
    pub(crate) nowait: bool,
    /// `libaio_vectored` (3.39): reads and writes of one iovec.
    pub(crate) vectored: bool,
    /// The job's release queues syncs (`Change::LibaioAsyncFsync`).
    pub(crate) async_fsync: bool,
}

impl Default for LibaioOptions {
    fn default() -> Self {
        LibaioOptions {
            userspace_reap: false,
            cmdprio: Ok(None),
            nowait: false,
            vectored: false,
            async_fsync: false,
        }
    }
}

/// The fio names of [`LibaioOptions`].
pub(crate) const OPTIONS: &[&str] = &[
    "userspace_reap",
    "cmdprio_percentage",
    "cmdprio_class",
    "cmdprio",
    "cmdprio_bssplit",
    "nowait",
    "libaio_vectored",
];

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<LibaioOptions, Refusal> {
    Ok(LibaioOptions {
        userspace_reap: o.flag("userspace_reap"),
        cmdprio: o.cmdprio()?,
        nowait: o.flag("nowait"),
        vectored: o.flag("libaio_vectored"),
        async_fsync: o.job().libaio_async_fsync,
    })
}

pub(crate) fn new(
    common: &CommonOptions,
    opts: &LibaioOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    let depth = common.iodepth.max(1) as usize;
    let prio = IoPrios::start(&opts.cmdprio, depth, "fio_libaio_init")?;
    let mut ctx: AioContext = 0;
    // fio first asks for a huge queue (it does not need the user ring),
    // then falls back to the iodepth; userspace_reap needs the ring sized.
    let mut r = -1;
    if !opts.userspace_reap {
        // SAFETY: io_setup writes the context id to `ctx`.
        r = unsafe { libc::syscall(libc::SYS_io_setup, libc::c_int::MAX, &mut ctx) };
    }
    if r < 0 {
        ctx = 0;
        // SAFETY: as above.
        r = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_int, &mut ctx) };
    }
    if r < 0 {
        let e = errno();
        return Err(EngineError::new(e, "io_queue_init").with_detail(match e {
            libc::ENOSYS => "the kernel has no native AIO (CONFIG_AIO)",
            _ => "check /proc/sys/fs/aio-max-nr",
        }));
    }
    Ok(Box::new(Libaio {
        ctx,
        files: Files::default(),
        iocbs: vec![Iocb::default(); depth].into_boxed_slice(),
        pending: vec![ptr::null_mut(); depth].into_boxed_slice(),
        npending: 0,
        inflight: 0,
        lost: false,
        events: vec![IoEvent::default(); depth].into_boxed_slice(),
        batch_complete_min: common.batch_complete_min,
        userspace_reap: opts.userspace_reap,
        prio,
        rw_flags: if opts.nowait { libc::RWF_NOWAIT } else { 0 },
        write_flags: if common.atomic_writes {
            super::pvsync2::RWF_ATOMIC
        } else {
            0
        },
        iovecs: if opts.vectored {
            let zero = libc::iovec {
                iov_base: ptr::null_mut(),
                iov_len: 0,
            };
            vec![zero; depth].into_boxed_slice()
        } else {
            Box::default()
        },
        async_fsync: opts.async_fsync,
    }))
}

impl Libaio {
    /// Reap up to `max` completions from the user-visible ring into
    /// `self.events[at..]`, without a system call.
    fn user_reap(&mut self, at: usize, max: usize) -> Option<usize> {
        let ring = self.ctx as *mut AioRing;
        // SAFETY: the context id is the address of the kernel's ring
        // mapping, valid until io_destroy; the magic is checked first.
        unsafe {
            if ptr::read_volatile(&(*ring).magic) != AIO_RING_MAGIC {
                return None;
            }
            let nr = ptr::read_volatile(&(*ring).nr);
            let events = ring.add(1).cast::<IoEvent>();
            let mut n = 0;
            while n < max {
                let head = ptr::read_volatile(&(*ring).head);
                let tail = ptr::read_volatile(&(*ring).tail);
                if head == tail {
                    break;
                }
                std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
                self.events[at + n] = ptr::read_volatile(events.add(head as usize));
                std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
                ptr::write_volatile(&mut (*ring).head, (head + 1) % nr);
                n += 1;
            }
            Some(n)
        }
    }
}

impl IoEngine for Libaio {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        self.files.open(target)
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        if self.npending + self.inflight >= self.iocbs.len() {
            return Queued::Busy;
        }
        // Trims and syncs draw nothing and carry no priority.
        let (reqprio, flags) = match self.prio.pick(io.token, io.dir.index(), io.len as u64) {
            Some(prio) => (prio as i16, IOCB_FLAG_IOPRIO),
            None => (0, 0),
        };
        let queued_sync = self.async_fsync && matches!(io.dir, Ddir::Sync | Ddir::DataSync);
        if !matches!(io.dir, Ddir::Read | Ddir::Write) && !queued_sync {
            // Serialised with the other I/O, as fio: wait until none queued.
            if self.npending + self.inflight > 0 {
                return Queued::Busy;
            }
            if let Some(r) = non_data(&self.files, io.file, io.dir, io.offset, io.len) {
                return Queued::Completed(r);
            }
        }
        let fd = self.files.fd(io.file) as u32;
        let t = io.token as usize;
        let (opcode, buf, nbytes) = match io.dir {
            // fio 3.41's io_prep_fsync, for every kind of sync.
            _ if queued_sync => (IOCB_CMD_FSYNC, 0, 0),
            Ddir::Read | Ddir::Write if !self.iovecs.is_empty() => {
                self.iovecs[t] = libc::iovec {
                    iov_base: io.buf.cast(),
                    iov_len: io.len,
                };
                let op = if io.dir == Ddir::Read {
                    IOCB_CMD_PREADV
                } else {
                    IOCB_CMD_PWRITEV
                };
                (op, ptr::addr_of!(self.iovecs[t]) as u64, 1)
            }
            Ddir::Read => (IOCB_CMD_PREAD, io.buf as u64, io.len as u64),
            _ => (IOCB_CMD_PWRITE, io.buf as u64, io.len as u64),
        };
        let rw_flags = match io.dir {
            Ddir::Read => self.rw_flags,
            Ddir::Write => self.rw_flags | self.write_flags,
            _ => 0,
        };
        let cb = &mut self.iocbs[t];
        *cb = Iocb {
            aio_data: u64::from(io.token),
            aio_lio_opcode: opcode,
            aio_fildes: fd,
            aio_buf: buf,
            aio_nbytes: nbytes,
            aio_offset: if queued_sync { 0 } else { io.offset as i64 },
            aio_reqprio: reqprio,
            aio_flags: flags,
            aio_rw_flags: rw_flags,
            ..Iocb::default()
        };
        self.pending[self.npending] = cb;
        self.npending += 1;
        Queued::Queued
    }

    fn commit(&mut self) -> Result<(), i32> {
        let mut done = 0;
        while done < self.npending {
            // SAFETY: `pending[done..npending]` point at iocbs we own that
            // stay put (boxed slice) until they complete; their buffers are
            // valid until completion (guaranteed to `queue`, which queued
            // them).
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    (self.npending - done) as libc::c_long,
                    self.pending.as_mut_ptr().add(done),
                )
            };
            if r > 0 {
                done += r as usize;
                self.inflight += r as usize;
                continue;
            }
            let e = if r == 0 { libc::EAGAIN } else { errno() };
            if e == libc::EAGAIN || e == libc::EINTR {
                if e == libc::EAGAIN && self.inflight > 0 {
                    // Let completions make room, as fio's usleep(100).
                    std::thread::sleep(Duration::from_micros(100));
                }
                continue;
            }
            // The kernel took none of `pending[done..]`: they never
            // complete, and no wait may count on them.
            self.lost = true;
            self.npending = 0;
            return Err(e);
        }
        self.npending = 0;
        Ok(())
    }

    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        timeout: Option<Duration>,
    ) -> Result<usize, i32> {
        // Never wait for more than the kernel has: after a failed
        // io_submit the caller still counts the I/Os it refused, and
        // io_getevents would wait for them forever.
        let min = min.min(self.inflight);
        let max = max.min(self.events.len()).max(min);
        let actual_min = if self.batch_complete_min == 0 { 0 } else { min };
        let ts = timeout.map(|t| libc::timespec {
            tv_sec: t.as_secs() as libc::time_t,
            tv_nsec: t.subsec_nanos() as libc::c_long,
        });
        let mut got = 0;
        loop {
            let user = if self.userspace_reap && actual_min == 0 {
                self.user_reap(got, max - got)
            } else {
                None
            };
            let r = match user {
                Some(n) => n as i64,
                None => {
                    // SAFETY: `events[got..max]` is writable; the timespec
                    // outlives the call.
                    unsafe {
                        libc::syscall(
                            libc::SYS_io_getevents,
                            self.ctx,
                            actual_min.saturating_sub(got) as libc::c_long,
                            (max - got) as libc::c_long,
                            self.events.as_mut_ptr().add(got),
                            ts.as_ref()
                                .map_or(ptr::null(), |t| t as *const libc::timespec),
                        )
                    }
                }
            };
            if r >= 0 {
                got += r as usize;
            } else {
                let e = errno();
                if e == libc::EAGAIN {
                    std::thread::sleep(Duration::from_micros(100));
                } else if e != libc::EINTR {
                    return Err(e);
                }
            }
            if got >= min {
                break;
            }
        }
        self.inflight -= got;
        Ok(got)
    }

    fn event(&mut self, i: usize) -> Completion {
        let ev = self.events[i];
        Completion {
            token: ev.data as u32,
            result: if ev.res < 0 {
                Err(-ev.res as i32)
            } else {
                Ok(ev.res as usize)
            },
        }
    }

    fn new_loop(&mut self) {
        self.prio.new_loop();
    }

    /// A failed io_submit dropped I/Os and everything the kernel took has
    /// completed: what the caller still counts in flight never completes.
    fn done(&self) -> bool {
        self.lost && self.inflight == 0
    }

    #[inline]
    fn prio_slot(&self, token: u32) -> u16 {
        self.prio.slot(token)
    }

    fn files(&mut self) -> Option<&mut Files> {
        Some(&mut self.files)
    }
}

impl Drop for Libaio {
    fn drop(&mut self) {
        // SAFETY: the context was set up in `new` and is destroyed once;
        // io_destroy waits for I/O still in flight.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ioengine::OpenFlags;

    /// A write the kernel refuses in io_submit (the file is open read-only:
    /// EBADF) never completes: a wait for it returns at once, with the
    /// engine done, instead of waiting in io_getevents forever (the job's
    /// last drain hung there).
    #[test]
    fn a_wait_after_a_refused_submit_returns() {
        let dir = std::env::temp_dir().join(format!("rfio-libaio-lost-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, vec![0u8; 8192]).unwrap();
        let common = CommonOptions {
            iodepth: 2,
            ..CommonOptions::default()
        };
        let mut e = new(&common, &LibaioOptions::default(), IoMem::NONE).unwrap();
        let file = e
            .open(&FileTarget {
                path: path.clone(),
                flags: OpenFlags::default(),
                region_end: 8192,
            })
            .unwrap();
        let mut buf = vec![0u8; 4096];
        let io = Io {
            token: 0,
            file,
            dir: Ddir::Write,
            offset: 0,
            len: 4096,
            buf: buf.as_mut_ptr(),
        };
        // SAFETY: `buf` outlives the engine's use of it (the kernel
        // refuses the I/O; the engine is dropped below, before `buf`).
        assert_eq!(unsafe { e.queue(&io) }, Queued::Queued);
        assert_eq!(e.commit(), Err(libc::EBADF));
        // The caller still counts the write in flight and waits for it.
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let got = e.getevents(1, 1, None);
            tx.send((got, e.done())).unwrap();
        });
        let answer = rx.recv_timeout(Duration::from_secs(10));
        assert_eq!(answer, Ok((Ok(0), true)), "the wait never returned");
        waiter.join().unwrap();
        drop(buf);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Writes and a sync queued together, as fio 3.41 queues them (the
    /// sync an `IOCB_CMD_FSYNC`, read and written through one iovec each
    /// with `libaio_vectored`); 3.33's sync waits for an empty queue.
    #[test]
    fn syncs_queue_beside_writes_from_3_41() {
        let dir = std::env::temp_dir().join(format!("rfio-libaio-fsync-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let common = CommonOptions {
            iodepth: 4,
            ..CommonOptions::default()
        };
        let mut buf = vec![7u8; 2 * 4096];
        let base = buf.as_mut_ptr();
        for (async_fsync, vectored) in [(false, false), (true, true)] {
            let opts = LibaioOptions {
                async_fsync,
                vectored,
                ..LibaioOptions::default()
            };
            let mut e = new(&common, &opts, IoMem::NONE).unwrap();
            let file = e.open(&FileTarget::created(path.clone(), 8192)).unwrap();
            let io = |token: u32, dir: Ddir| Io {
                token,
                file,
                dir,
                offset: u64::from(token) * 4096,
                len: if dir == Ddir::Write { 4096 } else { 0 },
                buf: base.wrapping_add(token as usize % 2 * 4096),
            };
            // SAFETY: `buf` outlives the I/Os, all reaped below.
            unsafe {
                assert_eq!(e.queue(&io(0, Ddir::Write)), Queued::Queued);
                assert_eq!(e.queue(&io(1, Ddir::Write)), Queued::Queued);
                let sync = e.queue(&io(2, Ddir::Sync));
                if !async_fsync {
                    assert_eq!(sync, Queued::Busy, "a 3.33 sync waits");
                    e.commit().unwrap();
                    assert_eq!(e.getevents(2, 4, None), Ok(2));
                    continue;
                }
                assert_eq!(sync, Queued::Queued, "a 3.41 sync queues");
            }
            e.commit().unwrap();
            assert_eq!(e.getevents(3, 4, None), Ok(3));
            let mut done: Vec<_> = (0..3).map(|i| e.event(i)).collect();
            done.sort_by_key(|c| c.token);
            let results: Vec<_> = done.iter().map(|c| c.result).collect();
            assert_eq!(results, [Ok(4096), Ok(4096), Ok(0)]);
            assert_eq!(std::fs::read(&path).unwrap(), buf);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
