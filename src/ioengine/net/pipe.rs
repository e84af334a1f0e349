//! netsplice's transfers over TCP: the data goes through the engine's
//! pipe (`vmsplice` from or to the buffer, `splice` to or from the
//! socket), a pipe's worth at a time.

use std::os::fd::AsRawFd;

use super::super::io::Io;
use super::{sys, Net};

/// The most one `splice` moves through the pipe.
const PIPE_CHUNK: usize = 64 * 1024;

impl Net {
    /// netsplice's send: buffer → pipe → socket, a pipe's worth at a time.
    ///
    /// # Safety
    /// `io.buf` is valid for `io.len` bytes.
    pub(super) unsafe fn splice_out(&mut self, io: &Io) -> Result<usize, i32> {
        let Some((rd, wr)) = &self.pipe else {
            return Err(libc::EINVAL);
        };
        let (rd, wr, fd) = (rd.as_raw_fd(), wr.as_raw_fd(), self.fd());
        let mut done = 0;
        while done < io.len {
            let iov = libc::iovec {
                iov_base: io.buf.wrapping_add(done).cast(),
                iov_len: (io.len - done).min(PIPE_CHUNK),
            };
            // SAFETY: `iov` lies inside the buffer, which stays unchanged
            // until the pipe is drained below.
            let n = match sys(unsafe { libc::vmsplice(wr, &iov, 1, libc::SPLICE_F_MOVE) }) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if done == 0 => return Err(e),
                Err(_) => break,
            };
            let mut left = n;
            while left > 0 {
                // SAFETY: no user memory is passed.
                let r = unsafe {
                    libc::splice(rd, std::ptr::null_mut(), fd, std::ptr::null_mut(), left, 0)
                };
                match sys(r) {
                    Ok(0) => return Ok(done),
                    Ok(w) => left -= w,
                    Err(libc::EAGAIN | libc::EINTR) if !self.over() => {}
                    Err(libc::EAGAIN | libc::EINTR) => {
                        // Stopped, or the runtime is over: what went out
                        // counts, and the job ends.
                        self.done = true;
                        self.sent += done as u64;
                        return Ok(done);
                    }
                    Err(e) => return if done > 0 { Ok(done) } else { Err(e) },
                }
            }
            done += n;
        }
        self.sent += done as u64;
        Ok(done)
    }

    /// netsplice's receive: socket → pipe → buffer.
    ///
    /// # Safety
    /// `io.buf` is valid for `io.len` bytes.
    pub(super) unsafe fn splice_in(&mut self, io: &Io) -> Result<usize, i32> {
        let Some((rd, wr)) = &self.pipe else {
            return Err(libc::EINVAL);
        };
        let (rd, wr, fd) = (rd.as_raw_fd(), wr.as_raw_fd(), self.fd());
        let mut done = 0;
        while done < io.len {
            let want = (io.len - done).min(PIPE_CHUNK);
            // SAFETY: no user memory is passed.
            let r = unsafe {
                libc::splice(fd, std::ptr::null_mut(), wr, std::ptr::null_mut(), want, 0)
            };
            let n = match sys(r) {
                Ok(0) => {
                    if done == 0 {
                        self.done = true;
                    }
                    break;
                }
                Ok(n) => n,
                Err(libc::EAGAIN | libc::EINTR) if !self.over() => continue,
                Err(libc::EAGAIN | libc::EINTR) => {
                    self.done = true;
                    break;
                }
                Err(e) if done == 0 => return Err(e),
                Err(_) => break,
            };
            // SAFETY: `done + n <= io.len`: inside the buffer.
            unsafe { super::super::splice::vmsplice_out(rd, io.buf.add(done), n)? };
            done += n;
        }
        Ok(done)
    }
}
