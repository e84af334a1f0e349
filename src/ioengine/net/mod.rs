//! `ioengine=net` and `ioengine=netsplice`: the job's reads and writes go
//! over a socket (fio's `engines/net.c`). A writing job connects to
//! `hostname`:`port` (TCP, UDP, their IPv6 forms, or the unix socket named
//! by `filename`) and sends; a reading job listens (`listen` for TCP; UDP
//! and unix readers always do) and receives. `port` grows by one per
//! `numjobs` clone. With `pingpong` each I/O waits for the peer to send it
//! back. netsplice moves TCP data through a pipe (`splice`/`vmsplice`).
//!
//! As fio: a TCP or unix reader says `fio: waiting for connection` and its
//! statistics start once it has one; a UDP writer says hello to the reader
//! first; the writer marks each UDP datagram with a sequence number, from
//! which the reader counts the datagrams lost (`drop_ios`); when the files
//! are closed each side sends its peer fio's 8-byte goodbye, whose arrival
//! ends a reader, and whose failure (a connected unix socket refuses an
//! address) is the job's error. Sends never raise `SIGPIPE`. A TCP reader
//! whose peer has gone ends (fio's would ask for more forever).
//! The sockets wait in slices of 100 ms, so that a stopped job is not held
//! by a peer that never comes.

mod pipe;
mod sock;

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use self::sock::{refused, Addrs};
use super::engine::{Caps, CommonOptions, IoEngine, StopFlag};
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, Queued};
use crate::ddir::Ddir;

/// `protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Proto {
    #[default]
    Tcp,
    TcpV6,
    Udp,
    UdpV6,
    Unix,
}

impl Proto {
    fn is_tcp(self) -> bool {
        matches!(self, Proto::Tcp | Proto::TcpV6)
    }

    fn is_udp(self) -> bool {
        matches!(self, Proto::Udp | Proto::UdpV6)
    }

    fn is_v6(self) -> bool {
        matches!(self, Proto::TcpV6 | Proto::UdpV6)
    }

    fn domain_and_type(self) -> (i32, i32) {
        match self {
            Proto::Tcp => (libc::AF_INET, libc::SOCK_STREAM),
            Proto::TcpV6 => (libc::AF_INET6, libc::SOCK_STREAM),
            Proto::Udp => (libc::AF_INET, libc::SOCK_DGRAM),
            Proto::UdpV6 => (libc::AF_INET6, libc::SOCK_DGRAM),
            Proto::Unix => (libc::AF_UNIX, libc::SOCK_STREAM),
        }
    }
}

/// The options of net and netsplice (fio's `options[]` of
/// `engines/net.c`), and what they need to know of the job.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct NetOptions {
    /// `hostname`, or `filename` (fio keeps both in one place): the peer,
    /// a multicast group, or the unix socket's path.
    pub(crate) host: Option<String>,
    /// `port` (0: unset), before the clone's number is added.
    pub(crate) port: u32,
    pub(crate) proto: Proto,
    pub(crate) listen: bool,
    pub(crate) pingpong: bool,
    pub(crate) nodelay: bool,
    /// `ttl` of multicast datagrams (default 1).
    pub(crate) ttl: u32,
    /// `window_size`, `mss` (0: unset).
    pub(crate) window_size: u32,
    pub(crate) mss: u32,
    /// `interface`: the multicast interface's address.
    pub(crate) interface: Option<String>,
    /// The job reads, writes, at random; its `numjobs` clone number; its
    /// `size`; whether it verifies (then UDP datagrams carry no sequence
    /// number).
    pub(crate) read: bool,
    pub(crate) write: bool,
    pub(crate) random: bool,
    pub(crate) subjob: u32,
    pub(crate) size: u64,
    pub(crate) verify: bool,
}

/// The fio names of [`NetOptions`]' own options.
pub(crate) const OPTIONS: &[&str] = &[
    "hostname",
    "port",
    "protocol",
    "nodelay",
    "listen",
    "pingpong",
    "interface",
    "ttl",
    "window_size",
    "mss",
];

/// What `ioengine=net` is (fio's `engines/net.c`).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::SYNCIO | fio::DISKLESSIO | fio::UNIDIR | fio::PIPEIO | fio::BIT_BASED);

/// What `ioengine=netsplice` is: net's flags but `FIO_BIT_BASED`.
pub(crate) const SPLICE_FLAGS: EngineFlags =
    EngineFlags::fio(fio::SYNCIO | fio::DISKLESSIO | fio::UNIDIR | fio::PIPEIO);

/// What these engines can do (fio's `FIO_SYNCIO | FIO_DISKLESSIO |
/// FIO_UNIDIR | FIO_PIPEIO`): no trim, no files to lay out.
pub(crate) const CAPS: Caps = Caps {
    is_sync: true,
    needs_files: false,
    can_trim: false,
    has_commit: false,
    fake_io: false,
    file_op: false,
    no_extend: false,
    no_io: false,
};

/// fio's link messages (`struct udp_close_msg`, `struct udp_seq`).
const LINK_MAGIC: u32 = 0x6c69_6e6b;
const LINK_CLOSE: u32 = 0x89;
const LINK_OPEN: u32 = 0x98;
const UDP_SEQ_MAGIC: u64 = 0x6573_7571_6e55_6563;
const UDP_SEQ_LEN: usize = 24;

pub(crate) struct Net {
    name: &'static str,
    o: NetOptions,
    a: Addrs,
    /// The listening socket (a UDP reader's is its connection).
    listen: Option<OwnedFd>,
    conn: Option<OwnedFd>,
    /// netsplice's pipe: (read end, write end).
    pipe: Option<(OwnedFd, OwnedFd)>,
    stop: Option<StopFlag>,
    /// Bytes sent so far (fio's `this_io_bytes[DDIR_WRITE]`, for
    /// `MSG_MORE`).
    sent: u64,
    udp_send_seq: u64,
    udp_recv_seq: u64,
    /// The datagrams are not fio's: no more sequence checks.
    seq_off: bool,
    dropped: u64,
    done: bool,
    /// The job waited for its peer when it opened its "file" (a TCP or
    /// unix reader's connection, a UDP reader's hello): its time starts
    /// after.
    accepted: bool,
    notice: Option<String>,
    close_error: Option<EngineError>,
}

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<NetOptions, Refusal> {
    let u32_of = |name: &'static str| o.int(name).clamp(0, i64::from(u32::MAX)) as u32;
    let job = o.job();
    Ok(NetOptions {
        // fio's `hostname` sets the job's `filename`: the last one written
        // wins.
        host: o.last_text(&["hostname", "filename"]),
        port: u32_of("port"),
        proto: match o.choice("protocol") {
            Some("tcpv6") => Proto::TcpV6,
            Some("udp") => Proto::Udp,
            Some("udpv6") => Proto::UdpV6,
            Some("unix") => Proto::Unix,
            _ => Proto::Tcp,
        },
        listen: o.flag("listen"),
        pingpong: o.flag("pingpong"),
        nodelay: o.flag("nodelay"),
        ttl: u32_of("ttl"),
        window_size: u32_of("window_size"),
        mss: u32_of("mss"),
        interface: o.text("interface"),
        read: job.read,
        write: job.write,
        random: job.random,
        subjob: job.subjob,
        size: job.size,
        verify: job.verify,
    })
}

pub(crate) fn new(
    _common: &CommonOptions,
    opts: &NetOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Net::start("net", opts, false)?))
}

pub(crate) fn new_splice(
    _common: &CommonOptions,
    opts: &NetOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Net::start("netsplice", opts, true)?))
}

/// fio's link message `cmd`, as 8 bytes: the open message in network
/// byte order, the close one little-endian (as fio writes them).
fn link_msg(cmd: u32) -> [u8; 8] {
    let mut m = [0u8; 8];
    if cmd == LINK_OPEN {
        m[..4].copy_from_slice(&LINK_MAGIC.to_be_bytes());
        m[4..].copy_from_slice(&cmd.to_be_bytes());
    } else {
        m[..4].copy_from_slice(&LINK_MAGIC.to_le_bytes());
        m[4..].copy_from_slice(&cmd.to_le_bytes());
    }
    m
}

/// A `send`/`recv` result.
fn sys(r: isize) -> Result<usize, i32> {
    if r < 0 {
        Err(errno())
    } else {
        Ok(r as usize)
    }
}

impl Net {
    /// fio's `fio_netio_setup` and `fio_netio_init`.
    fn start(name: &'static str, opts: &NetOptions, splice: bool) -> Result<Net, EngineError> {
        let mut o = opts.clone();
        if o.random {
            return Err(refused("network IO can't be random"));
        }
        if o.proto == Proto::Unix && o.port != 0 {
            return Err(refused("network IO port not valid with unix socket"));
        }
        if o.proto != Proto::Unix && o.port == 0 {
            return Err(refused("network IO requires port for tcp or udp"));
        }
        o.port += o.subjob;
        if !o.proto.is_tcp() {
            if o.listen {
                return Err(refused("listen only valid for TCP proto IO"));
            }
            if o.read && o.write {
                return Err(refused(
                    "datagram network connections must be read OR write",
                ));
            }
            if o.proto == Proto::Unix && o.host.is_none() {
                return Err(refused("UNIX sockets need host/filename"));
            }
            o.listen = o.read;
        }
        // The sends of this thread fail with EPIPE rather than kill rfio
        // (splice has no MSG_NOSIGNAL).
        // SAFETY: a valid, initialised signal set; only this thread's mask
        // changes.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGPIPE);
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        }
        let mut a = Addrs::new();
        let mut listen = None;
        if o.listen {
            listen = Some(sock::setup_listen(&o, &mut a)?);
        } else {
            sock::setup_connect(&o, &mut a)?;
        }
        let pipe = if splice {
            Some(super::splice::pipe()?)
        } else {
            None
        };
        let notice =
            (o.listen && !o.proto.is_udp()).then(|| "fio: waiting for connection\n".into());
        Ok(Net {
            name,
            o,
            a,
            listen,
            conn: None,
            pipe,
            stop: None,
            sent: 0,
            udp_send_seq: 0,
            udp_recv_seq: 0,
            seq_off: false,
            dropped: 0,
            done: false,
            accepted: false,
            notice,
            close_error: None,
        })
    }

    fn fd(&self) -> RawFd {
        self.conn.as_ref().map_or(-1, AsRawFd::as_raw_fd)
    }

    /// The job was stopped or its runtime is over.
    fn over(&self) -> bool {
        self.stop.is_some_and(|s| s.over())
    }

    /// Waits on the connection give up after 100 ms, to see the stop.
    fn set_timeouts(fd: RawFd) {
        let tv = libc::timeval {
            tv_sec: 0,
            tv_usec: 100_000,
        };
        for opt in [libc::SO_RCVTIMEO, libc::SO_SNDTIMEO] {
            // SAFETY: `tv` is a whole timeval, whose size is passed.
            unsafe {
                libc::setsockopt(
                    fd,
                    libc::SOL_SOCKET,
                    opt,
                    (&tv as *const libc::timeval).cast(),
                    std::mem::size_of::<libc::timeval>() as libc::socklen_t,
                )
            };
        }
    }

    /// The UDP reader waits for the writer's hello (fio's
    /// `fio_netio_udp_recv_open`).
    /// False when the job was stopped first.
    fn udp_hello_in(&mut self) -> Result<bool, EngineError> {
        let fd = self.fd();
        let mut msg = [0u8; 8];
        loop {
            if !sock::wait(fd, libc::POLLIN, self.stop, false)? {
                return Ok(false);
            }
            let (addr, mut len) = self.a.inet(self.o.proto.is_v6());
            // SAFETY: `msg` has room for 8 bytes; `addr` for `len`.
            let r = unsafe {
                libc::recvfrom(
                    fd,
                    msg.as_mut_ptr().cast(),
                    8,
                    libc::MSG_WAITALL,
                    addr,
                    &mut len,
                )
            };
            match sys(r) {
                Ok(_) => break,
                Err(libc::EAGAIN | libc::EINTR) => continue,
                Err(e) => {
                    return Err(EngineError::fio(
                        e,
                        "engines/net.c:935",
                        "recvfrom udp link open",
                    ))
                }
            }
        }
        let magic = u32::from_be_bytes([msg[0], msg[1], msg[2], msg[3]]);
        let cmd = u32::from_be_bytes([msg[4], msg[5], msg[6], msg[7]]);
        if magic != LINK_MAGIC || cmd != LINK_OPEN {
            return Err(refused(&format!("bad udp open magic {magic:x}/{cmd:x}")));
        }
        Ok(true)
    }

    /// `sendto` of a link message to the peer's address (as fio, whatever
    /// the protocol).
    fn send_link(&mut self, cmd: u32) -> Result<(), i32> {
        let fd = self.fd();
        let msg = link_msg(cmd);
        let (addr, len) = self.a.inet(self.o.proto.is_v6());
        // SAFETY: `msg` holds 8 bytes; `addr` points at `len` bytes.
        let r = unsafe {
            libc::sendto(
                fd,
                msg.as_ptr().cast(),
                8,
                libc::MSG_WAITALL | libc::MSG_NOSIGNAL,
                addr,
                len,
            )
        };
        sys(r).map(drop)
    }

    /// fio's `fio_netio_send`.
    ///
    /// # Safety
    /// `io.buf` is valid for `io.len` bytes.
    unsafe fn send(&mut self, io: &Io) -> Result<usize, i32> {
        let fd = self.fd();
        loop {
            let r = if self.o.proto.is_udp() {
                if !self.o.verify && io.len >= UDP_SEQ_LEN {
                    // SAFETY: the last 24 bytes of the buffer.
                    let tail = unsafe {
                        std::slice::from_raw_parts_mut(
                            io.buf.add(io.len - UDP_SEQ_LEN),
                            UDP_SEQ_LEN,
                        )
                    };
                    tail[..8].copy_from_slice(&UDP_SEQ_MAGIC.to_le_bytes());
                    tail[8..16].copy_from_slice(&self.udp_send_seq.to_le_bytes());
                    tail[16..].copy_from_slice(&(io.len as u64).to_le_bytes());
                    self.udp_send_seq += 1;
                }
                let (addr, len) = self.a.inet(self.o.proto.is_v6());
                // SAFETY: the buffer holds `io.len` bytes; `addr` `len`.
                unsafe { libc::sendto(fd, io.buf.cast(), io.len, libc::MSG_NOSIGNAL, addr, len) }
            } else {
                let mut flags = libc::MSG_NOSIGNAL;
                if self.sent + (io.len as u64) < self.o.size && !self.o.pingpong {
                    flags |= libc::MSG_MORE;
                }
                // SAFETY: the buffer holds `io.len` bytes.
                unsafe { libc::send(fd, io.buf.cast(), io.len, flags) }
            };
            match sys(r) {
                Ok(n) if n > 0 => {
                    self.sent += n as u64;
                    return Ok(n);
                }
                Ok(n) => return Ok(n),
                Err(libc::EAGAIN | libc::EINTR | libc::ENOBUFS) => {}
                // A datagram to nobody: the next one may find the reader.
                Err(libc::ECONNREFUSED) if self.o.proto.is_udp() => {}
                Err(e) => return Err(e),
            }
            if !sock::wait(fd, libc::POLLOUT, self.stop, true).map_err(|e| e.errno)? {
                // Stopped, or the runtime is over, with the peer taking
                // nothing: the job ends without this I/O.
                self.done = true;
                return Ok(0);
            }
        }
    }

    /// fio's `fio_netio_recv`; 0 when the peer said goodbye (or went).
    ///
    /// # Safety
    /// `io.buf` is valid for `io.len` bytes.
    unsafe fn recv(&mut self, io: &Io) -> Result<usize, i32> {
        let fd = self.fd();
        let mut flags = 0;
        let n = loop {
            let r = if self.o.proto.is_udp() {
                let v6 = self.o.proto.is_v6();
                let (addr, mut len) = self.a.inet(v6);
                let (addr, lenp) = if self.o.listen {
                    (addr, &mut len as *mut libc::socklen_t)
                } else {
                    (std::ptr::null_mut(), std::ptr::null_mut())
                };
                // SAFETY: the buffer has room for `io.len` bytes; the
                // address (if any) for `len`.
                unsafe { libc::recvfrom(fd, io.buf.cast(), io.len, flags, addr, lenp) }
            } else {
                // SAFETY: the buffer has room for `io.len` bytes.
                unsafe { libc::recv(fd, io.buf.cast(), io.len, flags) }
            };
            match sys(r) {
                Ok(n) => {
                    // SAFETY: `n <= io.len` bytes were just received there.
                    let got = unsafe { std::slice::from_raw_parts(io.buf, n) };
                    if is_close_msg(got) {
                        self.done = true;
                        return Ok(0);
                    }
                    if n > 0 || flags & libc::MSG_WAITALL != 0 {
                        break n;
                    }
                }
                Err(libc::EAGAIN | libc::EINTR) => {}
                Err(e) => return Err(e),
            }
            if self.over() || !sock::wait(fd, libc::POLLIN, self.stop, true).map_err(|e| e.errno)? {
                // Stopped, or the runtime is over, with the peer silent:
                // the job ends without this I/O.
                self.done = true;
                return Ok(0);
            }
            flags |= libc::MSG_WAITALL;
        };
        if n == 0 && !self.o.proto.is_udp() {
            // The peer is gone: nothing more will come.
            self.done = true;
        }
        if self.o.proto.is_udp() && !self.o.verify {
            // SAFETY: the buffer holds `io.len` bytes.
            let buf = unsafe { std::slice::from_raw_parts(io.buf, io.len) };
            self.check_seq(buf);
        }
        Ok(n)
    }

    /// fio's `verify_udp_seq`: datagrams missing before this one are
    /// dropped I/Os.
    fn check_seq(&mut self, buf: &[u8]) {
        if buf.len() < UDP_SEQ_LEN || self.seq_off {
            return;
        }
        let tail = &buf[buf.len() - UDP_SEQ_LEN..];
        let word =
            |i: usize| u64::from_le_bytes(tail[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
        if word(0) != UDP_SEQ_MAGIC {
            return;
        }
        if word(2) != buf.len() as u64 {
            self.seq_off = true;
            return;
        }
        let seq = word(1);
        if seq != self.udp_recv_seq {
            self.dropped += seq.wrapping_sub(self.udp_recv_seq);
        }
        self.udp_recv_seq = seq + 1;
    }

    /// One transfer in direction `dir` (fio's `__fio_netio_queue`).
    ///
    /// # Safety
    /// `io.buf` is valid for `io.len` bytes.
    unsafe fn xfer(&mut self, io: &Io, dir: Ddir) -> Queued {
        let spliced = self.pipe.is_some() && self.o.proto.is_tcp();
        // SAFETY: this function's contract.
        let r = unsafe {
            match (dir, spliced) {
                (Ddir::Write, false) => self.send(io),
                (Ddir::Write, true) => self.splice_out(io),
                (Ddir::Read, false) => self.recv(io),
                (Ddir::Read, true) => self.splice_in(io),
                _ => return Queued::Completed(Ok(0)),
            }
        };
        match r {
            Ok(0) if io.len > 0 => Queued::Busy,
            Ok(n) => Queued::Completed(Ok(n)),
            Err(libc::EMSGSIZE) if dir == Ddir::Write => Queued::Busy,
            Err(e) => Queued::Completed(Err(e)),
        }
    }
}

/// fio's `is_close_msg`: exactly the 8 bytes of the goodbye.
fn is_close_msg(got: &[u8]) -> bool {
    got.len() == 8 && got == link_msg(LINK_CLOSE)
}

impl IoEngine for Net {
    fn name(&self) -> &'static str {
        self.name
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn watch_stop(&mut self, stop: StopFlag) {
        self.stop = Some(stop);
    }

    fn open(&mut self, _target: &FileTarget) -> Result<FileId, EngineError> {
        let conn = if self.o.listen {
            if self.o.proto.is_udp() {
                self.listen.take()
            } else {
                let listen = self.listen.as_ref().map_or(-1, AsRawFd::as_raw_fd);
                let c = sock::accept(&self.o, listen, &mut self.a, self.stop)?;
                if c.is_none() {
                    // Stopped while waiting: no error (as fio), no I/O.
                    self.done = true;
                    return Ok(FileId(0));
                }
                self.accepted = true;
                c
            }
        } else {
            let c = sock::connect(&self.o, &mut self.a, self.stop)?;
            if c.is_none() {
                // Stopped, or the runtime is over, before the peer took
                // the connection: no error, no I/O.
                self.done = true;
                return Ok(FileId(0));
            }
            c
        };
        if let Some(c) = &conn {
            Net::set_timeouts(c.as_raw_fd());
        }
        self.conn = conn;
        if self.o.proto.is_udp() {
            if self.o.write {
                self.send_link(LINK_OPEN).map_err(|e| {
                    EngineError::fio(e, "engines/net.c:973", "sendto udp link open")
                })?;
            } else {
                if !self.udp_hello_in()? {
                    self.done = true;
                    return Ok(FileId(0));
                }
                // fio starts the job's clock again once the writer is there.
                self.accepted = true;
            }
        }
        Ok(FileId(0))
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        // fio's fio_netio_prep: a datagram reader never sends, a writer
        // never receives.
        if !self.o.proto.is_tcp()
            && ((self.o.listen && io.dir == Ddir::Write)
                || (!self.o.listen && io.dir == Ddir::Read))
        {
            return Queued::Completed(Err(libc::EINVAL));
        }
        // SAFETY: the caller guarantees the buffer until the I/O completes,
        // which is before this returns.
        let first = unsafe { self.xfer(io, io.dir) };
        if !self.o.pingpong || !matches!(first, Queued::Completed(_)) {
            return first;
        }
        let back = match io.dir {
            Ddir::Read if self.o.read => Ddir::Write,
            Ddir::Write if self.o.write => Ddir::Read,
            _ => return first,
        };
        // SAFETY: as above.
        unsafe { self.xfer(io, back) }
    }

    fn notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    fn done(&self) -> bool {
        self.done
    }

    fn stats_start_at_open(&self) -> bool {
        self.accepted
    }

    fn take_dropped(&mut self) -> u64 {
        std::mem::take(&mut self.dropped)
    }

    fn close_all(&mut self) {
        if self.conn.is_some() {
            if let Err(e) = self.send_link(LINK_CLOSE) {
                self.close_error.get_or_insert(EngineError::fio(
                    e,
                    "engines/net.c:903",
                    "sendto udp link close",
                ));
            }
        }
        self.conn = None;
    }

    fn close_error(&mut self) -> Option<EngineError> {
        self.close_error.take()
    }
}

#[cfg(test)]
mod tests;
