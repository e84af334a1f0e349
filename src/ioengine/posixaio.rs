//! `ioengine=posixaio`: POSIX `aio_read(3)`/`aio_write(3)` (glibc runs them
//! on its own threads), completions found with `aio_error(3)` and waited for
//! with `aio_suspend(3)` (fio's `engines/posixaio.c`). Syncs are
//! `aio_fsync(3)`; trims run synchronously once nothing is in flight.

use crate::ddir::Ddir;
use std::time::{Duration, Instant};

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{trim, Files};
use super::flags::{self, fio, EngineFlags};
use super::io::{errno, Completion, EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};

/// How many in-flight requests one `aio_suspend` watches (fio's value).
const SUSPEND_ENTRIES: usize = 8;

pub(crate) struct PosixAio {
    files: Files,
    /// One control block per token; glibc reads it until completion.
    cbs: Box<[libc::aiocb]>,
    /// Which tokens are in flight and not yet reaped.
    busy: Box<[bool]>,
    inflight: usize,
    events: Box<[(u32, IoResult)]>,
}

// SAFETY: the control blocks live in a heap slice this value owns (never
// moved while requests are in flight) and point at the buffers of I/Os in
// flight, which `queue`'s caller keeps valid until they complete
// (`IoEngine::queue`'s contract); POSIX AIO requests may be waited for and
// reaped from any thread of the process, and the engine is used by one
// thread at a time.
unsafe impl Send for PosixAio {}

/// What `ioengine=posixaio` is (fio's `engines/posixaio.c`).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::ASYNCIO_SYNC_TRIM).open_error_at(flags::GENERIC_OPEN);

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps {
    // each aio_read/aio_write is submitted as it is queued
    has_commit: false,
    ..Caps::QUEUED_FILES
};

pub(crate) fn new(common: &CommonOptions, _mem: IoMem) -> Result<Box<dyn IoEngine>, EngineError> {
    let depth = common.iodepth.max(1) as usize;
    // SAFETY: an all-zero aiocb is the documented initial state.
    let zero: libc::aiocb = unsafe { std::mem::zeroed() };
    Ok(Box::new(PosixAio {
        files: Files::default(),
        cbs: vec![zero; depth].into_boxed_slice(),
        busy: vec![false; depth].into_boxed_slice(),
        inflight: 0,
        events: vec![(0, Ok(0)); depth].into_boxed_slice(),
    }))
}

impl IoEngine for PosixAio {
    fn name(&self) -> &'static str {
        "posixaio"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        self.files.open(target)
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        if io.dir == Ddir::Trim {
            if self.inflight > 0 {
                return Queued::Busy;
            }
            return Queued::Completed(trim(self.files.get(io.file), io.offset, io.len));
        }
        let t = io.token as usize;
        let cb = &mut self.cbs[t];
        // SAFETY: resetting to the all-zero initial state.
        *cb = unsafe { std::mem::zeroed() };
        cb.aio_fildes = self.files.fd(io.file);
        cb.aio_buf = io.buf.cast();
        cb.aio_nbytes = io.len;
        cb.aio_offset = io.offset as libc::off_t;
        // SAFETY: the control block lives in `self.cbs` (a boxed slice that
        // never moves) and the buffer stays valid until the request is
        // reaped (`queue`'s contract).
        let r = unsafe {
            match io.dir {
                Ddir::Read => libc::aio_read(cb),
                Ddir::Write => libc::aio_write(cb),
                Ddir::DataSync => libc::aio_fsync(libc::O_DSYNC, cb),
                _ => libc::aio_fsync(libc::O_SYNC, cb),
            }
        };
        if r != 0 {
            return Queued::Completed(Err(errno()));
        }
        self.busy[t] = true;
        self.inflight += 1;
        Queued::Queued
    }

    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        timeout: Option<Duration>,
    ) -> Result<usize, i32> {
        let max = max.min(self.events.len()).max(min);
        let start = timeout.map(|_| Instant::now());
        let mut got = 0;
        loop {
            let mut suspend: [*const libc::aiocb; SUSPEND_ENTRIES] =
                [std::ptr::null(); SUSPEND_ENTRIES];
            let mut nsuspend = 0;
            for t in 0..self.cbs.len() {
                if !self.busy[t] {
                    continue;
                }
                let cb = &mut self.cbs[t];
                // SAFETY: `cb` was submitted and not yet reaped.
                let err = unsafe { libc::aio_error(cb) };
                if err == libc::EINPROGRESS {
                    if nsuspend < SUSPEND_ENTRIES {
                        suspend[nsuspend] = cb;
                        nsuspend += 1;
                    }
                    continue;
                }
                let result = match err {
                    0 => {
                        // SAFETY: the request finished; aio_return reaps it.
                        let n = unsafe { libc::aio_return(cb) };
                        if n < 0 {
                            Err(errno())
                        } else {
                            Ok(n as usize)
                        }
                    }
                    libc::ECANCELED => Ok(0),
                    e => {
                        // SAFETY: as above; reap the failed request.
                        unsafe { libc::aio_return(cb) };
                        Err(e)
                    }
                };
                self.busy[t] = false;
                self.events[got] = (t as u32, result);
                got += 1;
                if got >= max {
                    break;
                }
            }
            if got >= min || got >= max {
                break;
            }
            if let (Some(t), Some(s)) = (timeout, start) {
                if s.elapsed() >= t {
                    break;
                }
            }
            let ts = timeout.map(|t| libc::timespec {
                tv_sec: t.as_secs() as libc::time_t,
                tv_nsec: t.subsec_nanos() as libc::c_long,
            });
            // SAFETY: the list holds `nsuspend` submitted control blocks.
            unsafe {
                libc::aio_suspend(
                    suspend.as_ptr(),
                    nsuspend as libc::c_int,
                    ts.as_ref().map_or(std::ptr::null(), |t| t as *const _),
                )
            };
        }
        self.inflight -= got;
        Ok(got)
    }

    fn event(&mut self, i: usize) -> Completion {
        let (token, result) = self.events[i];
        Completion { token, result }
    }

    fn files(&mut self) -> Option<&mut Files> {
        Some(&mut self.files)
    }
}

impl Drop for PosixAio {
    fn drop(&mut self) {
        // Requests still in flight read our control blocks and buffers:
        // wait for them before those go away.
        for t in 0..self.cbs.len() {
            if !self.busy[t] {
                continue;
            }
            let cb: *const libc::aiocb = &self.cbs[t];
            // SAFETY: `cb` is in flight; aio_suspend/aio_return only read it.
            unsafe {
                while libc::aio_error(cb) == libc::EINPROGRESS {
                    libc::aio_suspend(&cb, 1, std::ptr::null());
                }
                libc::aio_return(cb.cast_mut());
            }
        }
    }
}
