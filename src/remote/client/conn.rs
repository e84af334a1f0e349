//! One connection to a server: the socket (TCP or Unix), fio's connect
//! messages, the messages we send, and a thread that reads the server's
//! messages and hands them to the run loop.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::mpsc::Sender;
use std::time::Duration;

use crate::remote::Error;
use crate::wire::addr::Addr;
use crate::wire::frame::{self, Accept, FrameError, Message, Op, Reader, Version};

/// The largest message rfio takes from a server: a TS is 184 KiB, a bw
/// log of a long run some MiB.
pub(crate) const MAX_MESSAGE: usize = 64 << 20;

/// How long a write to a server may block (a server that stops reading
/// is dropped, not waited for).
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// The socket.
#[derive(Debug)]
pub(crate) enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    pub(crate) fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
        })
    }

    /// Close both directions (the reader thread sees the end).
    pub(crate) fn shutdown(&self) {
        let _ = match self {
            Stream::Tcp(s) => s.shutdown(Shutdown::Both),
            Stream::Unix(s) => s.shutdown(Shutdown::Both),
        };
    }

    fn set_write_timeout(&self, t: Duration) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_write_timeout(Some(t)),
            Stream::Unix(s) => s.set_write_timeout(Some(t)),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    /// A write to a closed peer fails with EPIPE, never SIGPIPE (rfio
    /// restores SIGPIPE's default action for its stdout): std's TCP writes
    /// pass `MSG_NOSIGNAL`, a Unix socket is written with it here.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => {
                use std::os::fd::AsRawFd;
                // SAFETY: `buf` is valid for `buf.len()` bytes, and the
                // descriptor belongs to `s`, open for this call.
                let n = unsafe {
                    libc::send(
                        s.as_raw_fd(),
                        buf.as_ptr().cast(),
                        buf.len(),
                        libc::MSG_NOSIGNAL,
                    )
                };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.flush(),
            Stream::Unix(s) => s.flush(),
        }
    }
}

/// Connect to `addr`; the error is fio's message (`fio: connect: ...` and
/// `fio: failed to connect to H:P`). Also gives the server name fio puts
/// in its PROBE (the address connected to, `sock` for a Unix socket).
pub(crate) fn connect(addr: &Addr) -> Result<(Stream, String), Error> {
    let stream = match addr {
        Addr::Unix(path) => UnixStream::connect(path)
            .map(|s| (Stream::Unix(s), "sock".to_string()))
            .map_err(Error::ConnectUnix),
        Addr::Tcp { .. } => {
            let targets = addr.resolve(IpAddr::V4(Ipv4Addr::LOCALHOST))?;
            let mut last = None;
            let mut got = None;
            for t in &targets {
                match TcpStream::connect(t) {
                    Ok(s) => {
                        got = Some((Stream::Tcp(s), t.ip().to_string()));
                        break;
                    }
                    Err(e) => last = Some(e),
                }
            }
            got.ok_or_else(|| Error::Connect {
                host: addr.host(),
                port: addr.port(),
                source: last,
            })
        }
    }?;
    // A write that cannot complete in time fails the server, as a
    // disconnect would.
    let _ = stream.0.set_write_timeout(WRITE_TIMEOUT);
    Ok(stream)
}

/// What a reader thread hands the run loop: a server's message, or why
/// its connection ended.
#[derive(Debug)]
pub(crate) enum Event {
    Message { server: usize, msg: Message },
    Ended { server: usize, error: FrameError },
}

/// The fio versions a server may speak to us (fio 3.33 to 3.42's range):
/// frames of these are read whole; a message in a version other than the
/// connection's is judged by the run loop.
pub(crate) const READ_VERSIONS: Accept = Accept::Range(97, 120);

/// Read `stream`'s messages into `tx` until the connection ends, then
/// send why.
pub(crate) fn spawn_reader(server: usize, stream: Stream, tx: Sender<Event>) -> io::Result<()> {
    std::thread::Builder::new()
        .name(format!("rfio-client-{server}"))
        .spawn(move || {
            let mut r = Reader::new(stream, READ_VERSIONS, MAX_MESSAGE);
            loop {
                match r.next_message() {
                    Ok(msg) => {
                        if tx.send(Event::Message { server, msg }).is_err() {
                            return;
                        }
                    }
                    Err(error) => {
                        let _ = tx.send(Event::Ended { server, error });
                        return;
                    }
                }
            }
        })
        .map(|_| ())
}

/// Send one message.
pub(crate) fn send(
    w: &mut Stream,
    version: Version,
    op: Op,
    tag: u64,
    body: &[u8],
) -> io::Result<()> {
    frame::send(w, version, op, tag, body)
}
