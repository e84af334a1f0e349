//! `ioengine=splice`: data moves between the file and the I/O buffer
//! through a pipe (fio's `engines/splice.c`). A read splices the file's
//! bytes into the pipe (`splice(2)`, at most 64 KiB at a time) and copies
//! them out of it into the buffer (`vmsplice(2)`); a write maps the buffer
//! into the pipe (`vmsplice`) and splices the pipe into the file. Trims and
//! syncs are those of every synchronous engine.
//!
//! fio first tries to `vmsplice` into a fresh read-only mapping over the
//! buffer, which the kernel refuses (`EFAULT`), and then reads into the
//! buffer itself, as rfio does from the start: the bytes that land are the
//! same. A read at the end of the file returns what it got (fio's loop
//! would wait for more forever).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{non_data, Files};
use super::flags::{fio, EngineFlags};
use super::io::{errno, EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};
use crate::ddir::Ddir;

/// fio's `SPLICE_DEF_SIZE`: the most one `splice` moves into the pipe.
const SPLICE_DEF_SIZE: usize = 64 * 1024;

pub(crate) struct Splice {
    files: Files,
    /// The pipe: bytes go in at `write_end`, out at `read_end`.
    read_end: OwnedFd,
    write_end: OwnedFd,
}

/// What `ioengine=splice` is (fio's `engines/splice.c`).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(fio::SYNCIO | fio::PIPEIO);

/// What this engine can do (fio's `FIO_SYNCIO | FIO_PIPEIO`, on files).
pub(crate) const CAPS: Caps = Caps::SYNC_FILES;

pub(crate) fn new(_common: &CommonOptions, _mem: IoMem) -> Result<Box<dyn IoEngine>, EngineError> {
    let (read_end, write_end) = pipe()?;
    Ok(Box::new(Splice {
        files: Files::default(),
        read_end,
        write_end,
    }))
}

/// A pipe (fio's engine init: `td_verror(td, errno, "pipe")` on failure).
pub(crate) fn pipe() -> Result<(OwnedFd, OwnedFd), EngineError> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(EngineError::last_os("pipe"));
    }
    // SAFETY: both descriptors were just created and belong to nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Copy `len` bytes waiting in the pipe `from` into `buf` (`vmsplice`
/// from a pipe's read end copies to user memory).
///
/// # Safety
/// `buf` is valid for writes of `len` bytes.
pub(crate) unsafe fn vmsplice_out(from: RawFd, buf: *mut u8, len: usize) -> Result<(), i32> {
    let mut done = 0;
    while done < len {
        let iov = libc::iovec {
            iov_base: buf.wrapping_add(done).cast(),
            iov_len: len - done,
        };
        // SAFETY: `iov` lies inside `buf` (this function's contract).
        let r = unsafe { libc::vmsplice(from, &iov, 1, libc::SPLICE_F_MOVE) };
        match r {
            r if r < 0 => return Err(errno()),
            0 => return Err(libc::ENODATA),
            r => done += r as usize,
        }
    }
    Ok(())
}

impl Splice {
    /// fio's `fio_splice_read`: file → pipe → buffer, 64 KiB at a time.
    ///
    /// # Safety
    /// As [`IoEngine::queue`]: `io.buf` is valid for `io.len` bytes.
    unsafe fn read(&mut self, fd: RawFd, io: &Io) -> IoResult {
        let mut offset = io.offset as libc::loff_t;
        let mut done = 0;
        while done < io.len {
            let this = (io.len - done).min(SPLICE_DEF_SIZE);
            let flags = if io.len - done > SPLICE_DEF_SIZE {
                libc::SPLICE_F_MORE
            } else {
                0
            };
            // SAFETY: `offset` is a valid in/out pointer; no pointer into
            // user memory is passed.
            let r = unsafe {
                libc::splice(
                    fd,
                    &mut offset,
                    self.write_end.as_raw_fd(),
                    std::ptr::null_mut(),
                    this,
                    flags,
                )
            };
            if r < 0 {
                match errno() {
                    libc::ENODATA | libc::EAGAIN => continue,
                    e => return Err(e),
                }
            }
            if r == 0 {
                break; // the end of the file
            }
            let n = r as usize;
            // SAFETY: `done + n <= io.len`: the bytes lie inside `io.buf`.
            unsafe { vmsplice_out(self.read_end.as_raw_fd(), io.buf.add(done), n)? };
            done += n;
        }
        Ok(done)
    }

    /// fio's `fio_splice_write`: buffer → pipe → file.
    ///
    /// # Safety
    /// As [`IoEngine::queue`]: `io.buf` is valid for `io.len` bytes.
    unsafe fn write(&mut self, fd: RawFd, io: &Io) -> IoResult {
        let mut offset = io.offset as libc::loff_t;
        let mut done = 0;
        while done < io.len {
            let mut pfd = libc::pollfd {
                fd: self.write_end.as_raw_fd(),
                events: libc::POLLOUT,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            if unsafe { libc::poll(&mut pfd, 1, -1) } < 0 {
                return Err(errno());
            }
            let iov = libc::iovec {
                iov_base: io.buf.wrapping_add(done).cast(),
                iov_len: io.len - done,
            };
            // SAFETY: `iov` lies inside `io.buf`, which stays valid and
            // unchanged until this returns; the pipe is drained into the
            // file below before that, so no page of it stays referenced.
            let r = unsafe {
                libc::vmsplice(self.write_end.as_raw_fd(), &iov, 1, libc::SPLICE_F_NONBLOCK)
            };
            if r < 0 {
                return Err(errno());
            }
            let mut left = r as usize;
            done += left;
            while left > 0 {
                // SAFETY: `offset` is a valid in/out pointer.
                let w = unsafe {
                    libc::splice(
                        self.read_end.as_raw_fd(),
                        std::ptr::null_mut(),
                        fd,
                        &mut offset,
                        left,
                        0,
                    )
                };
                if w < 0 {
                    return Err(errno());
                }
                if w == 0 {
                    return Err(libc::EIO);
                }
                left -= w as usize;
            }
        }
        Ok(done)
    }
}

impl IoEngine for Splice {
    fn name(&self) -> &'static str {
        "splice"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        self.files.open(target)
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        if let Some(r) = non_data(&self.files, io.file, io.dir, io.offset, io.len) {
            return Queued::Completed(r);
        }
        let fd = self.files.fd(io.file);
        // SAFETY: the caller guarantees `io.buf` for `io.len` bytes until
        // the I/O completes, which is before this returns.
        Queued::Completed(unsafe {
            match io.dir {
                Ddir::Read => self.read(fd, io),
                _ => self.write(fd, io),
            }
        })
    }

    fn files(&mut self) -> Option<&mut Files> {
        Some(&mut self.files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_reads_back_through_the_pipe() {
        let dir = std::env::temp_dir().join(format!("rfio-splice-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let mut e = new(&CommonOptions::default(), IoMem::NONE).unwrap();
        let id = e.open(&FileTarget::created(path.clone(), 0)).unwrap();
        // Larger than the pipe and SPLICE_DEF_SIZE: several rounds.
        let len = 300 * 1024;
        let mut data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        let io = |dir, buf: *mut u8| Io {
            token: 0,
            file: id,
            dir,
            offset: 4096,
            len,
            buf,
        };
        // SAFETY: `data` outlives the synchronous I/O.
        let r = unsafe { e.queue(&io(Ddir::Write, data.as_mut_ptr())) };
        assert_eq!(r, Queued::Completed(Ok(len)));
        let on_disk = std::fs::read(&path).unwrap();
        assert_eq!(on_disk.len(), 4096 + len);
        assert_eq!(&on_disk[4096..], &data[..]);
        let mut back = vec![0u8; len];
        // SAFETY: as above.
        let r = unsafe { e.queue(&io(Ddir::Read, back.as_mut_ptr())) };
        assert_eq!(r, Queued::Completed(Ok(len)));
        assert_eq!(back, data);
        // At the end of the file: what there is.
        let mut tail = vec![0u8; 8192];
        let at_end = Io {
            offset: (4096 + len - 100) as u64,
            len: 8192,
            buf: tail.as_mut_ptr(),
            ..io(Ddir::Read, std::ptr::null_mut())
        };
        // SAFETY: as above.
        let r = unsafe { e.queue(&at_end) };
        assert_eq!(r, Queued::Completed(Ok(100)));
        assert_eq!(&tail[..100], &data[len - 100..]);
        drop(e);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
