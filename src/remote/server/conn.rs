//! The sending side of a server's connection: whole messages, one at a
//! time, in the version the client speaks.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Mutex;

use crate::wire::body::{Stop, Text};
use crate::wire::frame::{self, Op, Version};

/// The connection's sending side: whole messages, one at a time, in the
/// version the client speaks.
pub(crate) struct Conn {
    out: Mutex<File>,
    version: AtomicU16,
}

impl Conn {
    pub(crate) fn new(out: File, version: Version) -> Conn {
        limit_sends(&out);
        Conn {
            out: Mutex::new(out),
            version: AtomicU16::new(version),
        }
    }

    /// Speak `version` from now on.
    pub(crate) fn set_version(&self, version: Version) {
        self.version.store(version, Ordering::Relaxed);
    }
}

impl Conn {
    pub(crate) fn version(&self) -> Version {
        self.version.load(Ordering::Relaxed)
    }

    /// Send one message; a client gone is not an error here (the reading
    /// side sees it). A client that stops reading for 10 s is cut off (the
    /// connection is shut both ways, which ends the reading side too), so
    /// that the jobs never wait on it.
    pub(crate) fn send(&self, op: Op, tag: u64, body: &[u8]) {
        let bytes = frame::encode(self.version(), op, tag, body);
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
            // SAFETY: shutdown(2) on the connection's own descriptor.
            unsafe { libc::shutdown(out.as_raw_fd(), libc::SHUT_RDWR) };
        }
    }

    /// Send nothing more: the client reads the end of the stream.
    pub(crate) fn close_write(&self) {
        let out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: shutdown(2) on a descriptor this connection owns (a
        // socket; on anything else it fails with ENOTSOCK, ignored).
        unsafe { libc::shutdown(out.as_raw_fd(), libc::SHUT_WR) };
    }

    /// A TEXT message of `level`.
    pub(crate) fn text(&self, level: u32, text: &str) {
        if text.is_empty() {
            return;
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let t = Text {
            level,
            sec: now.as_secs(),
            usec: u64::from(now.subsec_micros()),
            text: text.to_string(),
        };
        self.send(Op::Text, 0, &t.encode());
    }

    /// A refusal of rfio's rules (token, jail, allow-list): the reason as
    /// TEXT, then fio's end of a failed run, STOP with
    /// [`super::policy::REFUSED`] and QUIT, so that the client (fio's or
    /// rfio's) prints the reason and exits non-zero. (A job file that does
    /// not parse gets fio's TEXT and QUIT alone, and a fio client exits 0,
    /// as with fio's server.)
    pub(crate) fn deny(&self, text: &str) {
        self.text(crate::wire::body::LEVEL_ERR, text);
        self.stop_and_quit(super::policy::REFUSED);
    }

    /// fio's end of a session: STOP with the run's exit value, then QUIT.
    pub(crate) fn stop_and_quit(&self, error: u32) {
        self.send(Op::Stop, 0, &Stop { error, signal: 0 }.encode());
        self.send(Op::Quit, 0, &[]);
    }
}

/// A send that waits 10 s at most, and TCP keepalive, so that a client
/// that stops reading or vanishes ends the session (fio's server waits on
/// it forever). Not a socket, or options it lacks: left as it is.
fn limit_sends(out: &File) {
    let fd = out.as_raw_fd();
    let timeout = libc::timeval {
        tv_sec: 10,
        tv_usec: 0,
    };
    let on: libc::c_int = 1;
    // SAFETY: setsockopt reads `size_of` bytes from each pointer, which
    // point at live values of those sizes; a descriptor that is not a socket
    // makes it fail with ENOTSOCK, ignored.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_SNDTIMEO,
            (&timeout as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        );
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_KEEPALIVE,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}
