//! `ioengine=nbd`: the job's I/O goes to an NBD server's export (fio's
//! `engines/nbd.c`, which uses libnbd; rfio speaks the protocol itself,
//! `proto.rs`). `uri` names the server (`uri.rs`): `nbd://HOST[:PORT]/`
//! over TCP, `nbd+unix:///?socket=PATH` over a unix socket.
//!
//! As fio: when the job's files are set up, the engine connects once to
//! learn the export's size, which is the size of the job's (first) file
//! (`setup`; a failure there is fio's `nbd_connect_uri` line, and the job
//! is reaped unstarted); each job thread then has its own connection
//! (`fio: connected to NBD server`). Reads, writes, trims and flushes
//! (`fsync`) are queued (sent at once) and complete as their replies
//! come, in any order; a request libnbd refuses before sending it (a
//! write to a read-only export, a trim or flush the server does not
//! offer, a request past the end) fails in `queue`, which fio reports as
//! `td_io_queue`'s error.
//!
//! The socket does not block: while a request waits to be sent, replies
//! are read, so that neither side waits for the other.
//!
//! Every wait on the server is cut short (fio's, libnbd's, wait forever):
//! the connection and handshake by a stop or after
//! [`proto::HANDSHAKE_LIMIT`] (there is no runtime yet), the waits of the
//! job's I/O by a stop or the end of its runtime ([`StopFlag::over`]),
//! after which the engine is done and its I/Os in flight are dropped, no
//! error.

mod proto;
pub(super) mod uri;

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use self::proto::{Export, MAX_REQUEST};
pub(crate) use self::uri::unsupported as uri_unsupported;
use self::uri::{NbdError, NbdUri};
use super::engine::{Caps, CommonOptions, IoEngine, QueueError, StopFlag};
use super::error::SetupError;
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{errno, Completion, EngineError, FileId, FileTarget, Io, IoMem, Queued};
use super::wait;
use crate::ddir::Ddir;

/// The options of nbd (fio's `options[]` of `engines/nbd.c`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct NbdOptions {
    /// `uri`.
    pub(crate) uri: Option<String>,
}

/// The fio names of [`NbdOptions`]' options.
pub(crate) const OPTIONS: &[&str] = &["uri"];

/// What `ioengine=nbd` is (fio's `engines/nbd.c`).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(fio::DISKLESSIO | fio::NOEXTEND);

/// What nbd can do (fio's `FIO_DISKLESSIO | FIO_NOEXTEND`): queued I/O
/// with no commit, no files of its own.
pub(crate) const CAPS: Caps = Caps {
    is_sync: false,
    needs_files: false,
    can_trim: true,
    has_commit: false,
    fake_io: false,
    file_op: false,
    no_extend: true,
    no_io: false,
};

/// Connect to `uri` and shake hands, giving up when `stop` says so or
/// after [`proto::HANDSHAKE_LIMIT`].
fn connect(uri: &str, stop: StopFlag) -> Result<(OwnedFd, Export), NbdError> {
    let stop = stop.within(proto::HANDSHAKE_LIMIT);
    let u = NbdUri::parse(uri)?;
    let fd = u.connect(stop)?;
    let export = proto::handshake(&fd, &u.export, stop)?;
    Ok((fd, export))
}

/// fio's `nbd_setup`: the export's size, from a connection of its own
/// (cut short by the run's `stop`).
pub(crate) fn setup(opts: &NbdOptions, stop: StopFlag) -> Result<Option<u64>, SetupError> {
    let Some(uri) = &opts.uri else {
        return Err(SetupError::NbdNoUri);
    };
    let (fd, export) = connect(uri, stop).map_err(|source| SetupError::NbdConnect { source })?;
    disconnect(&fd);
    Ok(Some(export.size))
}

/// Say goodbye (`NBD_CMD_DISC`); the socket closes when dropped.
fn disconnect(fd: &OwnedFd) {
    let r = proto::request(proto::CMD_DISC, 0, 0, 0);
    // SAFETY: `r` is valid for its length.
    unsafe {
        libc::send(
            fd.as_raw_fd(),
            r.as_ptr().cast(),
            r.len(),
            libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
        )
    };
}

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<NbdOptions, Refusal> {
    let uri = o.text("uri");
    // A URI of a kind rfio cannot connect with (TLS, vsock) is refused.
    if let Some((u, why)) = uri
        .as_deref()
        .and_then(|u| uri_unsupported(u).map(|why| (u, why)))
    {
        return Err(Refusal {
            option: Some("uri"),
            message: format!("ioengine=nbd: uri={u}: {why}"),
        });
    }
    Ok(NbdOptions { uri })
}

pub(crate) fn new(
    common: &CommonOptions,
    opts: &NbdOptions,
    _mem: IoMem,
    stop: Option<StopFlag>,
) -> Result<Box<dyn IoEngine>, EngineError> {
    let Some(uri) = &opts.uri else {
        return Err(EngineError::fio_msg(
            1,
            "engines/nbd.c",
            "nbd",
            "uri parameter was not specified",
        ));
    };
    let (fd, export) = connect(uri, stop.unwrap_or_else(StopFlag::never)).map_err(|e| {
        EngineError::fio_msg(
            if e.errno == 0 { libc::EIO } else { e.errno },
            "engines/nbd.c",
            "nbd_connect_uri",
            e.to_string(),
        )
    })?;
    Ok(Box::new(Nbd::on(fd, export, common.iodepth)))
}

/// An I/O in flight, by token.
#[derive(Debug, Clone, Copy)]
struct Slot {
    active: bool,
    read: bool,
    buf: *mut u8,
    len: usize,
}

// SAFETY: `buf` is the buffer of an I/O in flight, which `queue`'s caller
// keeps valid until the I/O completes (`IoEngine::queue`'s contract),
// whichever thread the engine then runs on; the engine is used by one
// thread at a time.
unsafe impl Send for Slot {}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            active: false,
            read: false,
            buf: std::ptr::null_mut(),
            len: 0,
        }
    }
}

/// Where the reading of replies is.
#[derive(Debug, Clone, Copy)]
enum Recv {
    /// `got` bytes of a reply's 16-byte header are in.
    Header { got: usize },
    /// A read's data: `got` of its bytes are in.
    Data { token: u32, got: usize },
}

struct Nbd {
    fd: OwnedFd,
    export: Export,
    slots: Vec<Slot>,
    recv: Recv,
    hdr: [u8; 16],
    /// Completions not yet handed over; the first `handed` of them went
    /// with the last `getevents`.
    ready: Vec<Completion>,
    handed: usize,
    files: u32,
    notice: Option<String>,
    /// The job's stop and deadline, which cut the waits on the server.
    stop: Option<StopFlag>,
    /// A wait was cut: the engine does no more.
    done: bool,
}

/// A `recv`/`send` result: bytes, or the errno (`EAGAIN`: not now).
fn sys(r: isize) -> Result<usize, i32> {
    if r < 0 {
        Err(errno())
    } else {
        Ok(r as usize)
    }
}

impl Nbd {
    /// The engine on a connection whose handshake is done, for `iodepth`
    /// I/Os in flight.
    fn on(fd: OwnedFd, export: Export, iodepth: u32) -> Nbd {
        // SAFETY: fcntl on a descriptor we own.
        unsafe {
            let fl = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
        let depth = iodepth.max(1) as usize;
        Nbd {
            fd,
            export,
            slots: vec![Slot::default(); depth],
            recv: Recv::Header { got: 0 },
            hdr: [0; 16],
            ready: Vec::with_capacity(depth),
            handed: 0,
            files: 0,
            notice: Some("fio: connected to NBD server\n".into()),
            stop: None,
            done: false,
        }
    }

    /// Read what replies have arrived, without waiting. An error is the
    /// connection's: nothing more will come.
    fn pump(&mut self) -> Result<(), i32> {
        let fd = self.fd.as_raw_fd();
        loop {
            match self.recv {
                Recv::Header { got } => {
                    let rest = &mut self.hdr[got..];
                    // SAFETY: `rest` is valid for its length.
                    let r = unsafe { libc::recv(fd, rest.as_mut_ptr().cast(), rest.len(), 0) };
                    let n = match sys(r) {
                        Ok(0) => return Err(libc::ECONNRESET),
                        Ok(n) => n,
                        Err(libc::EAGAIN | libc::EINTR) => return Ok(()),
                        Err(e) => return Err(e),
                    };
                    if got + n < 16 {
                        self.recv = Recv::Header { got: got + n };
                        continue;
                    }
                    self.recv = Recv::Header { got: 0 };
                    let h = &self.hdr;
                    let magic = u32::from_be_bytes([h[0], h[1], h[2], h[3]]);
                    let error = u32::from_be_bytes([h[4], h[5], h[6], h[7]]);
                    let mut c = [0u8; 8];
                    c.copy_from_slice(&h[8..16]);
                    let cookie = u64::from_be_bytes(c);
                    if magic != proto::SIMPLE_REPLY_MAGIC {
                        return Err(libc::EPROTO);
                    }
                    let token = match usize::try_from(cookie) {
                        Ok(t) if t < self.slots.len() && self.slots[t].active => t as u32,
                        _ => return Err(libc::EPROTO),
                    };
                    let s = self.slots[token as usize];
                    if error != 0 {
                        self.finish(token, Err(proto::errno_of(error)));
                    } else if s.read && s.len > 0 {
                        self.recv = Recv::Data { token, got: 0 };
                    } else {
                        self.finish(token, Ok(s.len));
                    }
                }
                Recv::Data { token, got } => {
                    let s = self.slots[token as usize];
                    // SAFETY: the read's buffer is valid for `s.len` bytes
                    // until it completes (`queue`'s contract).
                    let r = unsafe { libc::recv(fd, s.buf.add(got).cast(), s.len - got, 0) };
                    let n = match sys(r) {
                        Ok(0) => return Err(libc::ECONNRESET),
                        Ok(n) => n,
                        Err(libc::EAGAIN | libc::EINTR) => return Ok(()),
                        Err(e) => return Err(e),
                    };
                    if got + n < s.len {
                        self.recv = Recv::Data {
                            token,
                            got: got + n,
                        };
                    } else {
                        self.recv = Recv::Header { got: 0 };
                        self.finish(token, Ok(s.len));
                    }
                }
            }
        }
    }

    fn finish(&mut self, token: u32, result: Result<usize, i32>) {
        self.slots[token as usize].active = false;
        self.ready.push(Completion { token, result });
    }

    /// Wait until the socket is ready for `events` (or has a reply to
    /// read), at most `timeout`, in slices of [`wait::SLICE_MS`]: the
    /// `revents` (0: the time passed); `None` when a slice passed with
    /// nothing and the job's stop or deadline had come, which makes the
    /// engine done.
    fn poll(&mut self, events: i16, timeout: Option<Duration>) -> Result<Option<i16>, i32> {
        let end = timeout.map(|t| Instant::now() + t);
        loop {
            let left = end.map(|e| e.saturating_duration_since(Instant::now()));
            let ms = left.map_or(wait::SLICE_MS, |l| {
                (l.as_millis().min(wait::SLICE_MS as u128) as i32).max(1)
            });
            let mut p = libc::pollfd {
                fd: self.fd.as_raw_fd(),
                events,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let r = unsafe { libc::poll(&mut p, 1, ms) };
            match sys(r as isize) {
                Ok(0) | Err(libc::EINTR) => {}
                Ok(_) => return Ok(Some(p.revents)),
                Err(e) => return Err(e),
            }
            if left.is_some_and(|l| l.as_millis() <= ms as u128) {
                return Ok(Some(0));
            }
            // After a slice, so that replies on their way at the end of
            // the runtime still come in.
            if wait::over(self.stop) {
                self.done = true;
                return Ok(None);
            }
        }
    }

    /// Send `bytes` whole, reading replies whenever the socket will take
    /// nothing more.
    fn send_all(&mut self, mut ptr: *const u8, mut len: usize, more: bool) -> Result<(), i32> {
        let flags = libc::MSG_NOSIGNAL | if more { libc::MSG_MORE } else { 0 };
        while len > 0 {
            // SAFETY: `ptr` is valid for `len` bytes (the caller's).
            let r = unsafe { libc::send(self.fd.as_raw_fd(), ptr.cast(), len, flags) };
            match sys(r) {
                Ok(n) => {
                    // SAFETY: within the same `len` bytes.
                    ptr = unsafe { ptr.add(n) };
                    len -= n;
                }
                Err(libc::EINTR) => {}
                Err(libc::EAGAIN) => {
                    let Some(rev) = self.poll(libc::POLLOUT | libc::POLLIN, None)? else {
                        return Err(libc::ECANCELED);
                    };
                    if rev & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0 {
                        self.pump()?;
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// libnbd's checks before it sends a request: the errno of one it
    /// refuses.
    fn refusal(&self, io: &Io) -> Option<i32> {
        let f = self.export.flags;
        let bounds = || {
            (io.len == 0
                || io.len > MAX_REQUEST
                || io.offset.checked_add(io.len as u64)? > self.export.size)
                .then_some(libc::EINVAL)
        };
        match io.dir {
            Ddir::Read => bounds(),
            Ddir::Write if f & proto::TFLAG_READ_ONLY != 0 => Some(libc::EPERM),
            Ddir::Write => bounds(),
            Ddir::Trim if f & proto::TFLAG_SEND_TRIM == 0 => Some(libc::EINVAL),
            Ddir::Trim if f & proto::TFLAG_READ_ONLY != 0 => Some(libc::EPERM),
            Ddir::Trim => bounds(),
            Ddir::Sync if f & proto::TFLAG_SEND_FLUSH == 0 => Some(libc::EINVAL),
            Ddir::Sync => None,
            // fio's nbd queues DDIR_SYNC only.
            Ddir::DataSync => Some(libc::EINVAL),
        }
    }
}

impl IoEngine for Nbd {
    fn name(&self) -> &'static str {
        "nbd"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    /// fio's `nbd_open_file` does nothing: every file is the export.
    fn open(&mut self, _target: &FileTarget) -> Result<FileId, EngineError> {
        self.files += 1;
        Ok(FileId(self.files - 1))
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        if self.done {
            return Queued::Busy;
        }
        if let Some(e) = self.refusal(io) {
            return Queued::Completed(Err(e));
        }
        let (kind, len) = match io.dir {
            Ddir::Read => (proto::CMD_READ, io.len),
            Ddir::Write => (proto::CMD_WRITE, io.len),
            Ddir::Trim => (proto::CMD_TRIM, io.len),
            _ => (proto::CMD_FLUSH, 0),
        };
        let offset = if kind == proto::CMD_FLUSH {
            0
        } else {
            io.offset
        };
        self.slots[io.token as usize] = Slot {
            active: true,
            read: io.dir == Ddir::Read,
            buf: io.buf,
            len,
        };
        let req = proto::request(kind, u64::from(io.token), offset, len as u32);
        let payload = kind == proto::CMD_WRITE;
        let mut r = self.send_all(req.as_ptr(), req.len(), payload);
        if payload && r.is_ok() {
            r = self.send_all(io.buf, io.len, false);
        }
        match r {
            Ok(()) => Queued::Queued,
            Err(e) => {
                self.slots[io.token as usize].active = false;
                if self.done {
                    // The server kept the request waiting past the job's
                    // stop or time: not issued, no error.
                    return Queued::Busy;
                }
                Queued::Completed(Err(e))
            }
        }
    }

    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        timeout: Option<Duration>,
    ) -> Result<usize, i32> {
        self.ready.drain(..self.handed);
        self.handed = 0;
        let end = timeout.map(|t| Instant::now() + t);
        loop {
            self.pump()?;
            if self.ready.len() >= min {
                break;
            }
            let left = end.map(|e| e.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                break;
            }
            if self.poll(libc::POLLIN, left)?.is_none() {
                // Stopped, or the runtime is over, with the server silent:
                // what is in flight is dropped (`done`).
                break;
            }
        }
        self.handed = self.ready.len().min(max.max(min));
        Ok(self.handed)
    }

    fn event(&mut self, i: usize) -> Completion {
        self.ready[i]
    }

    fn notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    fn watch_stop(&mut self, stop: StopFlag) {
        self.stop = Some(stop);
    }

    fn done(&self) -> bool {
        self.done
    }

    fn queue_error(&mut self, errno: i32) -> Option<QueueError> {
        // fio's nbd_queue sets io_u->error only: td_io_queue reports it.
        Some(QueueError {
            error: EngineError::fio(errno, "ioengines.c:399", "td_io_queue"),
            log: None,
        })
    }

    fn close_all(&mut self) {
        self.files = 0;
    }
}

impl Drop for Nbd {
    fn drop(&mut self) {
        disconnect(&self.fd);
    }
}

#[cfg(test)]
mod tests;
