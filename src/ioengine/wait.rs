//! The waits of the engines that talk to a peer (net, http, nbd): each
//! blocks in slices of [`SLICE_MS`], between which it looks at the job's
//! stop request and deadline ([`StopFlag::over`]), so that a peer that
//! accepts and never answers holds a job no longer than its `runtime` or
//! a signal. Nothing here is on the path of an I/O that does not wait.

use std::net::{SocketAddr, TcpStream};
use std::os::fd::{FromRawFd, RawFd};
use std::time::Duration;

use super::engine::StopFlag;
use super::io::errno;

/// How long one slice of a wait blocks, in ms.
pub(crate) const SLICE_MS: i32 = 100;

/// A socket timeout of one slice (`SO_RCVTIMEO`, `SO_SNDTIMEO`).
pub(crate) const SLICE: Duration = Duration::from_millis(SLICE_MS as u64);

/// Whether `stop` (if any) says a wait is to give up.
pub(crate) fn over(stop: Option<StopFlag>) -> bool {
    stop.is_some_and(|s| s.over())
}

/// Wait until `fd` has one of `events` (or hung up, or failed): `Ok(true)`;
/// `Ok(false)` when `stop` said give up first; the errno of a failed poll.
pub(crate) fn ready(fd: RawFd, events: i16, stop: Option<StopFlag>) -> Result<bool, i32> {
    poll_until(fd, events, || over(stop)).map(|revents| revents.is_some())
}

/// Poll `fd` for `events` in slices of [`SLICE_MS`], asking `give_up`
/// before each: the `revents` once it is ready (or hung up, or failed);
/// `None` when `give_up` said so first; the errno of a failed poll
/// (EINTR is polled again).
pub(crate) fn poll_until(
    fd: RawFd,
    events: i16,
    give_up: impl Fn() -> bool,
) -> Result<Option<i16>, i32> {
    loop {
        if give_up() {
            return Ok(None);
        }
        let mut p = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        match unsafe { libc::poll(&mut p, 1, SLICE_MS) } {
            0 => {}
            r if r > 0 => return Ok(Some(p.revents)),
            _ if errno() == libc::EINTR => {}
            _ => return Err(errno()),
        }
    }
}

/// The error of a wait that gave up (`ErrorKind::TimedOut`, no errno).
pub(crate) fn given_up() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, "gave up waiting")
}

/// A TCP connection to `addr` (blocking once made), whose `connect`
/// waits in slices: a stop or the deadline ends it with [`given_up`].
pub(crate) fn connect_tcp(addr: SocketAddr, stop: Option<StopFlag>) -> std::io::Result<TcpStream> {
    let domain = match addr {
        SocketAddr::V4(_) => libc::AF_INET,
        SocketAddr::V6(_) => libc::AF_INET6,
    };
    // SAFETY: socket has no memory arguments.
    let fd = unsafe { libc::socket(domain, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just made and is owned by nobody else.
    let stream = unsafe { TcpStream::from_raw_fd(fd) };
    let (sa, len) = sockaddr(addr);
    // SAFETY: `sa` holds a socket address of `len` bytes.
    let made = unsafe { connect(fd, (&sa as *const libc::sockaddr_storage).cast(), len, stop) }?;
    if !made {
        return Err(given_up());
    }
    Ok(stream)
}

/// Connect the blocking socket `fd` to `addr`, waiting in slices (the
/// socket does not block while it connects, and blocks again after):
/// `Ok(false)` when `stop` said give up first; the error of a failed
/// connection.
///
/// # Safety
/// `addr` points at a socket address of `len` bytes.
pub(crate) unsafe fn connect(
    fd: RawFd,
    addr: *const libc::sockaddr,
    len: libc::socklen_t,
    stop: Option<StopFlag>,
) -> std::io::Result<bool> {
    let nonblocking = |on: bool| {
        // SAFETY: fcntl on a descriptor the caller holds.
        unsafe {
            let fl = libc::fcntl(fd, libc::F_GETFL);
            let fl = if on {
                fl | libc::O_NONBLOCK
            } else {
                fl & !libc::O_NONBLOCK
            };
            libc::fcntl(fd, libc::F_SETFL, fl)
        }
    };
    nonblocking(true);
    // SAFETY: `addr` holds `len` bytes (the caller's guarantee).
    let r = unsafe { libc::connect(fd, addr, len) };
    let e = errno();
    let made = if r == 0 {
        Ok(true)
    } else if e != libc::EINPROGRESS {
        Err(std::io::Error::from_raw_os_error(e))
    } else {
        match ready(fd, libc::POLLOUT, stop) {
            Ok(false) => Ok(false),
            Err(e) => Err(std::io::Error::from_raw_os_error(e)),
            Ok(true) => {
                let mut err: libc::c_int = 0;
                let mut n = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
                // SAFETY: `err` has room for the int SO_ERROR writes.
                let g = unsafe {
                    libc::getsockopt(
                        fd,
                        libc::SOL_SOCKET,
                        libc::SO_ERROR,
                        (&mut err as *mut libc::c_int).cast(),
                        &mut n,
                    )
                };
                match (g, err) {
                    (0, 0) => Ok(true),
                    (0, err) => Err(std::io::Error::from_raw_os_error(err)),
                    _ => Err(std::io::Error::last_os_error()),
                }
            }
        }
    };
    nonblocking(false);
    made
}

/// `addr` as a C socket address and its length.
fn sockaddr(addr: SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: an all-zero sockaddr_storage is a valid value.
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match addr {
        SocketAddr::V4(a) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: a.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from(*a.ip()).to_be(),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_storage is larger than sockaddr_in and
            // suitably aligned for it.
            unsafe { std::ptr::write((&mut ss as *mut libc::sockaddr_storage).cast(), sin) };
            std::mem::size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(a) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: a.port().to_be(),
                sin6_flowinfo: a.flowinfo(),
                sin6_addr: libc::in6_addr {
                    s6_addr: a.ip().octets(),
                },
                sin6_scope_id: a.scope_id(),
            };
            // SAFETY: as above, for sockaddr_in6.
            unsafe { std::ptr::write((&mut ss as *mut libc::sockaddr_storage).cast(), sin6) };
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (ss, len as libc::socklen_t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU64};

    #[test]
    fn a_wait_gives_up_at_the_deadline_and_at_a_stop() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        use std::os::fd::AsRawFd;
        let flag = AtomicBool::new(false);
        let deadline = AtomicU64::new(crate::ioengine::mono_ns() + 150_000_000);
        // SAFETY: both outlive the flag's uses below.
        let stop = unsafe { StopFlag::new(&flag, &deadline) };
        let t0 = std::time::Instant::now();
        assert_eq!(ready(a.as_raw_fd(), libc::POLLIN, Some(stop)), Ok(false));
        assert!(t0.elapsed() >= Duration::from_millis(150));
        deadline.store(u64::MAX, std::sync::atomic::Ordering::Relaxed);
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(ready(a.as_raw_fd(), libc::POLLIN, Some(stop)), Ok(false));
        drop(b);
        assert_eq!(ready(a.as_raw_fd(), libc::POLLIN, None), Ok(true));
    }

    #[test]
    fn connections_are_made_and_refused() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let s = connect_tcp(addr, None).unwrap();
        assert_eq!(s.peer_addr().unwrap(), addr);
        drop(l);
        let e = connect_tcp(addr, None).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ECONNREFUSED));
    }
}
