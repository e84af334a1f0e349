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
    /// side sees it).
    pub(crate) fn send(&self, op: Op, tag: u64, body: &[u8]) {
        let bytes = frame::encode(self.version(), op, tag, body);
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = out.write_all(&bytes).and_then(|()| out.flush());
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

    /// fio's end of a session: STOP with the run's exit value, then QUIT.
    pub(crate) fn stop_and_quit(&self, error: u32) {
        self.send(Op::Stop, 0, &Stop { error, signal: 0 }.encode());
        self.send(Op::Quit, 0, &[]);
    }
}
