//! The sockets of the net engines, set up as fio's `engines/net.c` does:
//! the addresses (`fio_netio_setup_connect_*`, `fio_fill_addr`), the
//! listening socket (`fio_netio_setup_listen_*`), the connection
//! (`fio_netio_connect`, `fio_netio_accept`), the socket options
//! (`nodelay`, `window_size`, `mss`, multicast `ttl` and `interface`) and
//! the wait for a socket to be ready (`poll_wait`). Each failure is fio's:
//! its words, errno and place in fio's source.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::super::engine::StopFlag;
use super::super::io::{errno, strerror, EngineError};
use super::super::wait;
use super::{NetOptions, Proto};

/// An init failure fio reports with `log_err` only (the job's error is 1).
pub(super) fn refused(text: &str) -> EngineError {
    EngineError::fio_msg(1, "engines/net.c", "net", text)
}

/// The peer of a connecting job, or the address a listening one has
/// (fio's `netio_data` `addr`, `addr6`, `addr_un`): all three are kept, as
/// fio hands `addr` (or `addr6`) to `sendto` whatever the protocol.
pub(super) struct Addrs {
    pub(super) v4: libc::sockaddr_in,
    pub(super) v6: libc::sockaddr_in6,
    pub(super) un: libc::sockaddr_un,
}

impl Addrs {
    pub(super) fn new() -> Addrs {
        // SAFETY: all-zero socket addresses are valid values.
        unsafe { std::mem::zeroed() }
    }

    /// The inet address fio's `sendto`/`recvfrom` use: `addr6` for the
    /// IPv6 protocols, else `addr` (for unix sockets too).
    pub(super) fn inet(&mut self, v6: bool) -> (*mut libc::sockaddr, libc::socklen_t) {
        if v6 {
            (
                (&mut self.v6 as *mut libc::sockaddr_in6).cast(),
                std::mem::size_of::<libc::sockaddr_in6>() as libc::socklen_t,
            )
        } else {
            (
                (&mut self.v4 as *mut libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        }
    }

    /// The unix socket address and fio's length for it
    /// (`sizeof(sun_family) + strlen(sun_path) + 1`).
    fn unix(&self) -> (*const libc::sockaddr, libc::socklen_t) {
        let path_len = self.un.sun_path.iter().take_while(|&&c| c != 0).count();
        (
            (&self.un as *const libc::sockaddr_un).cast(),
            (std::mem::size_of::<libc::sa_family_t>() + path_len + 1) as libc::socklen_t,
        )
    }

    fn set_unix(&mut self, path: &str) {
        self.un.sun_family = libc::AF_UNIX as libc::sa_family_t;
        // fio's snprintf: cut to fit, NUL-terminated.
        let n = path.len().min(self.un.sun_path.len() - 1);
        for (d, s) in self.un.sun_path.iter_mut().zip(&path.as_bytes()[..n]) {
            *d = *s as libc::c_char;
        }
        self.un.sun_path[n] = 0;
    }
}

/// `setsockopt(fd, level, name, &value)`.
fn setsockopt<T>(fd: RawFd, level: i32, name: i32, value: &T) -> Result<(), i32> {
    // SAFETY: `value` points at a whole `T`, whose size is passed.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (value as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

/// A new socket (fio: `td_verror(td, errno, "socket")`).
fn socket(domain: i32, kind: i32, src: &'static str) -> Result<OwnedFd, EngineError> {
    // SAFETY: socket has no memory arguments.
    let fd = unsafe { libc::socket(domain, kind | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(EngineError::fio(errno(), src, "socket"));
    }
    // SAFETY: `fd` was just created and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// fio's `set_window_size`: the receive buffer of a job that receives,
/// the send buffer of one that sends (both with `pingpong`).
fn window_size(o: &NetOptions, fd: RawFd) -> Result<(), EngineError> {
    if o.window_size == 0 {
        return Ok(());
    }
    let (rcv, snd) = (o.listen || o.pingpong, !o.listen || o.pingpong);
    if rcv {
        setsockopt(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, &o.window_size)
            .map_err(|e| EngineError::fio(e, "engines/net.c:245", "rcvbuf window size"))?;
    }
    if snd {
        setsockopt(fd, libc::SOL_SOCKET, libc::SO_SNDBUF, &o.window_size)
            .map_err(|e| EngineError::fio(e, "engines/net.c:251", "sndbuf window size"))?;
    }
    Ok(())
}

/// fio's `set_mss` (TCP only).
fn mss(o: &NetOptions, fd: RawFd) -> Result<(), EngineError> {
    if o.mss == 0 || !o.proto.is_tcp() {
        return Ok(());
    }
    setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, &o.mss)
        .map_err(|e| EngineError::fio(e, "engines/net.c:275", "setsockopt TCP_MAXSEG"))
}

/// `nodelay` on a TCP connection.
fn nodelay(o: &NetOptions, fd: RawFd) -> Result<(), EngineError> {
    if !(o.nodelay && o.proto.is_tcp()) {
        return Ok(());
    }
    setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, &1i32).map_err(|e| {
        refused(&format!(
            "cannot set TCP_NODELAY option on socket ({}), disable with 'nodelay=0'",
            strerror(e)
        ))
    })
}

/// Whether `host` is an IPv4 multicast address (fio's
/// `fio_netio_is_multicast`: 224.0.0.0 to 239.255.255.255).
pub(super) fn is_multicast(host: Option<&str>) -> bool {
    host.and_then(|h| h.parse::<std::net::Ipv4Addr>().ok())
        .is_some_and(|a| a.is_multicast())
}

/// `inet_aton` of `text`.
fn inet_aton(text: &str) -> Option<libc::in_addr> {
    let a: std::net::Ipv4Addr = text.parse().ok()?;
    Some(libc::in_addr {
        s_addr: u32::from(a).to_be(),
    })
}

/// fio's `fio_netio_setup_connect`: where a connecting job goes.
pub(super) fn setup_connect(o: &NetOptions, a: &mut Addrs) -> Result<(), EngineError> {
    if o.proto == Proto::Unix {
        a.set_unix(o.host.as_deref().unwrap_or(""));
        return Ok(());
    }
    let Some(host) = o.host.as_deref() else {
        let mut why = "connect with no host to connect to".to_string();
        if o.read {
            why.push_str("; did you forget to set 'listen'?");
        }
        return Err(
            EngineError::fio(libc::EINVAL, "engines/net.c:1066", "no hostname= set")
                .with_detail(why),
        );
    };
    let port = (o.port as u16).to_be();
    a.v4.sin_family = libc::AF_INET as libc::sa_family_t;
    a.v4.sin_port = port;
    a.v6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
    a.v6.sin6_port = port;
    if o.proto.is_v6() {
        if let Ok(ip) = host.parse::<std::net::Ipv6Addr>() {
            a.v6.sin6_addr.s6_addr = ip.octets();
            return Ok(());
        }
    } else if let Some(ip) = inet_aton(host) {
        a.v4.sin_addr = ip;
        return Ok(());
    }
    resolve(o, host, a)
}

/// fio's `fio_fill_addr` through `getaddrinfo`.
fn resolve(o: &NetOptions, host: &str, a: &mut Addrs) -> Result<(), EngineError> {
    let c = CString::new(host).map_err(|_| {
        EngineError::fio(
            libc::EINVAL,
            "engines/net.c:1045",
            "getaddrinfo: bad host name",
        )
    })?;
    // SAFETY: an all-zero addrinfo is a valid hints value.
    let mut hints: libc::addrinfo = unsafe { std::mem::zeroed() };
    hints.ai_socktype = if o.proto.is_tcp() {
        libc::SOCK_STREAM
    } else {
        libc::SOCK_DGRAM
    };
    hints.ai_family = if o.proto.is_v6() {
        libc::AF_INET6
    } else {
        libc::AF_INET
    };
    let mut res: *mut libc::addrinfo = std::ptr::null_mut();
    // SAFETY: valid C string, hints and out-pointer.
    let r = unsafe { libc::getaddrinfo(c.as_ptr(), std::ptr::null(), &hints, &mut res) };
    if r != 0 {
        let e = if r == libc::EAI_SYSTEM {
            errno()
        } else {
            libc::EINVAL
        };
        // SAFETY: gai_strerror returns a static NUL-terminated string.
        let why = unsafe { std::ffi::CStr::from_ptr(libc::gai_strerror(r)) };
        let func = format!("getaddrinfo: {}", why.to_string_lossy());
        // fio's line does not say which host: rfio adds it.
        return Err(
            EngineError::fio(e, "engines/net.c:1045", func).with_detail(format!(
                "net: cannot resolve host '{}'",
                crate::diag::quote(host, 80)
            )),
        );
    }
    // SAFETY: getaddrinfo succeeded: `res` is a valid list whose first
    // entry has an address of the family asked for; it is freed once.
    unsafe {
        let ai = &*res;
        if o.proto.is_v6() {
            let sa = &*(ai.ai_addr as *const libc::sockaddr_in6);
            a.v6.sin6_addr = sa.sin6_addr;
        } else {
            let sa = &*(ai.ai_addr as *const libc::sockaddr_in);
            a.v4.sin_addr = sa.sin_addr;
        }
        libc::freeaddrinfo(res);
    }
    Ok(())
}

/// fio's `fio_netio_setup_listen`: the socket a receiving job waits on
/// (bound; listening for TCP and unix sockets).
pub(super) fn setup_listen(o: &NetOptions, a: &mut Addrs) -> Result<OwnedFd, EngineError> {
    let fd = if o.proto == Proto::Unix {
        listen_unix(o, a)?
    } else {
        listen_inet(o, a)?
    };
    if o.proto.is_udp() {
        return Ok(fd);
    }
    // SAFETY: listen has no memory arguments.
    if unsafe { libc::listen(fd.as_raw_fd(), 10) } < 0 {
        return Err(EngineError::fio(errno(), "engines/net.c:1288", "listen"));
    }
    Ok(fd)
}

fn listen_unix(o: &NetOptions, a: &mut Addrs) -> Result<OwnedFd, EngineError> {
    let path = o.host.as_deref().unwrap_or("");
    // SAFETY: socket has no memory arguments.
    let raw = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if raw < 0 {
        let e = errno();
        return Err(refused(&format!("socket: {}", strerror(e))));
    }
    // SAFETY: `raw` was just created and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    a.set_unix(path);
    if let Ok(c) = CString::new(path) {
        // SAFETY: a valid C string.
        unsafe { libc::unlink(c.as_ptr()) };
    }
    // fio binds with umask 0: the socket is open to all.
    // SAFETY: umask has no memory arguments.
    let mode = unsafe { libc::umask(0) };
    let (addr, len) = a.unix();
    // SAFETY: `addr` is a valid sockaddr_un of at least `len` bytes.
    let r = unsafe { libc::bind(fd.as_raw_fd(), addr, len) };
    let e = errno();
    // SAFETY: as above.
    unsafe { libc::umask(mode) };
    if r < 0 {
        return Err(refused(&format!("bind: {}", strerror(e))));
    }
    Ok(fd)
}

fn listen_inet(o: &NetOptions, a: &mut Addrs) -> Result<OwnedFd, EngineError> {
    let (domain, kind) = o.proto.domain_and_type();
    let fd = socket(domain, kind, "engines/net.c:1186")?;
    let raw = fd.as_raw_fd();
    for opt in [libc::SO_REUSEADDR, libc::SO_REUSEPORT] {
        setsockopt(raw, libc::SOL_SOCKET, opt, &1i32)
            .map_err(|e| EngineError::fio(e, "engines/net.c:1192", "setsockopt"))?;
    }
    window_size(o, raw)?;
    mss(o, raw)?;
    let mut group = libc::in_addr { s_addr: 0 };
    if let Some(host) = o.host.as_deref() {
        if !o.proto.is_udp() || !is_multicast(Some(host)) {
            return Err(refused(
                "hostname not valid for non-multicast inbound network IO",
            ));
        }
        if o.proto.is_v6() {
            return Err(refused("IPv6 not supported for multicast network IO"));
        }
        group = inet_aton(host).unwrap_or(group);
        let interface = match o.interface.as_deref() {
            Some(i) => inet_aton(i).ok_or_else(|| refused("interface not valid interface IP"))?,
            None => libc::in_addr {
                s_addr: libc::INADDR_ANY.to_be(),
            },
        };
        let mr = libc::ip_mreq {
            imr_multiaddr: group,
            imr_interface: interface,
        };
        setsockopt(raw, libc::IPPROTO_IP, libc::IP_ADD_MEMBERSHIP, &mr).map_err(|e| {
            EngineError::fio(e, "engines/net.c:1239", "setsockopt IP_ADD_MEMBERSHIP")
        })?;
    }
    let port = (o.port as u16).to_be();
    let (addr, len) = if o.proto.is_v6() {
        a.v6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
        a.v6.sin6_port = port;
        a.inet(true)
    } else {
        a.v4.sin_family = libc::AF_INET as libc::sa_family_t;
        a.v4.sin_addr = if group.s_addr != 0 {
            group
        } else {
            libc::in_addr {
                s_addr: libc::INADDR_ANY.to_be(),
            }
        };
        a.v4.sin_port = port;
        a.inet(false)
    };
    // SAFETY: `addr` points at a socket address of `len` bytes.
    if unsafe { libc::bind(raw, addr, len) } < 0 {
        return Err(EngineError::fio(errno(), "engines/net.c:1263", "bind"));
    }
    Ok(fd)
}

/// fio's `fio_netio_connect`: a connecting job's socket; `None` when the
/// job was stopped, or its runtime ended, before a TCP peer took the
/// connection (fio's `connect` blocks until the kernel gives up; rfio's
/// waits in slices, [`wait::connect`]).
pub(super) fn connect(
    o: &NetOptions,
    a: &mut Addrs,
    stop: Option<StopFlag>,
) -> Result<Option<OwnedFd>, EngineError> {
    let (domain, kind) = o.proto.domain_and_type();
    let fd = socket(domain, kind, "engines/net.c:743")?;
    let raw = fd.as_raw_fd();
    nodelay(o, raw)?;
    window_size(o, raw)?;
    mss(o, raw)?;
    if o.proto.is_udp() {
        if !is_multicast(o.host.as_deref()) {
            return Ok(Some(fd));
        }
        if o.proto.is_v6() {
            return Err(refused("multicast not supported on IPv6"));
        }
        if let Some(i) = o.interface.as_deref() {
            let ip = inet_aton(i).ok_or_else(|| refused("interface not valid interface IP"))?;
            setsockopt(raw, libc::IPPROTO_IP, libc::IP_MULTICAST_IF, &ip).map_err(|e| {
                EngineError::fio(e, "engines/net.c:785", "setsockopt IP_MULTICAST_IF")
            })?;
        }
        setsockopt(raw, libc::IPPROTO_IP, libc::IP_MULTICAST_TTL, &o.ttl)
            .map_err(|e| EngineError::fio(e, "engines/net.c:791", "setsockopt IP_MULTICAST_TTL"))?;
        return Ok(Some(fd));
    }
    let (addr, len, src) = match o.proto {
        Proto::Unix => {
            let (addr, len) = a.unix();
            (addr, len, "engines/net.c:820")
        }
        Proto::TcpV6 => {
            let (addr, len) = a.inet(true);
            (addr.cast_const(), len, "engines/net.c:808")
        }
        _ => {
            let (addr, len) = a.inet(false);
            (addr.cast_const(), len, "engines/net.c:800")
        }
    };
    if o.proto == Proto::Unix {
        // A unix socket connects at once or not at all (a full backlog
        // would be EAGAIN without blocking): as fio.
        // SAFETY: `addr` points at a socket address of at least `len` bytes.
        if unsafe { libc::connect(raw, addr, len) } < 0 {
            return Err(EngineError::fio(errno(), src, "connect"));
        }
        return Ok(Some(fd));
    }
    // SAFETY: as above.
    match unsafe { wait::connect(raw, addr, len, stop) } {
        Ok(true) => Ok(Some(fd)),
        Ok(false) => Ok(None),
        Err(e) => Err(EngineError::fio(
            e.raw_os_error().unwrap_or(libc::EIO),
            src,
            "connect",
        )),
    }
}

/// fio's `fio_netio_accept` for TCP (and unix sockets): wait for the
/// connection on `listen`, then accept it. `None` when the job was
/// stopped first.
pub(super) fn accept(
    o: &NetOptions,
    listen: RawFd,
    a: &mut Addrs,
    stop: Option<StopFlag>,
) -> Result<Option<OwnedFd>, EngineError> {
    // fio waits for its peer whatever the runtime (the runtime starts
    // with the connection): only a stop ends this wait.
    if !wait(listen, libc::POLLIN, stop, false)? {
        return Ok(None);
    }
    let (addr, mut len) = a.inet(o.proto.is_v6());
    // SAFETY: `addr` has room for `len` bytes, which accept updates.
    let fd = unsafe { libc::accept4(listen, addr, &mut len, libc::SOCK_CLOEXEC) };
    if fd < 0 {
        return Err(EngineError::fio(errno(), "engines/net.c:858", "accept"));
    }
    // SAFETY: `fd` was just returned by accept and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    nodelay(o, fd.as_raw_fd())?;
    Ok(Some(fd))
}

/// fio's `poll_wait`: until `fd` is ready for `events`; false when the job
/// was stopped first (or, with `deadline`, its runtime is over), or the
/// socket has none of them (hung up, failed). rfio polls in slices
/// ([`wait::poll_until`]) to see the stop.
pub(super) fn wait(
    fd: RawFd,
    events: i16,
    stop: Option<StopFlag>,
    deadline: bool,
) -> Result<bool, EngineError> {
    let give_up = || stop.is_some_and(|s| if deadline { s.over() } else { s.raised() });
    match wait::poll_until(fd, events, give_up) {
        Ok(revents) => Ok(revents.is_some_and(|r| r & events != 0)),
        Err(e) => Err(EngineError::fio(e, "engines/net.c:302", "poll")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multicast_addresses_as_fio() {
        assert!(is_multicast(Some("239.0.0.0")));
        assert!(is_multicast(Some("224.0.0.1")));
        assert!(!is_multicast(Some("127.0.0.1")));
        assert!(!is_multicast(Some("localhost")));
        assert!(!is_multicast(None));
    }

    #[test]
    fn unix_addresses_have_fios_length() {
        let mut a = Addrs::new();
        a.set_unix("/tmp/x.sock");
        let (_, len) = a.unix();
        assert_eq!(len as usize, 2 + 11 + 1);
    }
}
