//! Where the report goes (stdout or the `--output` file), keeping its
//! first write error for the end of the run: rfio then says which output
//! could not be written and exits 1; fio ignores such errors (a report to
//! `/dev/full` exits 0, silent), and so does rfio called as fio. A broken
//! pipe is passed on: the run ends as it did (exit 0, as fio).

use std::cell::RefCell;
use std::io::{self, Write};

/// A writer that swallows its target's errors but the first, kept in
/// `error` (a broken pipe is no such error: it is returned).
pub(crate) struct Sink<'a> {
    pub(crate) inner: &'a mut dyn Write,
    pub(crate) error: &'a RefCell<Option<io::Error>>,
}

impl Sink<'_> {
    fn keep(&self, r: io::Result<()>) -> io::Result<()> {
        match r {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(e),
            Err(e) => {
                self.error.borrow_mut().get_or_insert(e);
                Ok(())
            }
            Ok(()) => Ok(()),
        }
    }
}

impl Write for Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.error.borrow().is_some() {
            return Ok(buf.len());
        }
        let r = self.inner.write_all(buf);
        self.keep(r).map(|()| buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.error.borrow().is_some() {
            return Ok(());
        }
        let r = self.inner.flush();
        self.keep(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_error_is_kept_a_broken_pipe_passed_on() {
        let error = RefCell::new(None);
        let mut full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let mut s = Sink {
            inner: &mut full,
            error: &error,
        };
        s.write_all(b"x").unwrap();
        s.flush().unwrap();
        assert_eq!(
            error.borrow().as_ref().unwrap().raw_os_error(),
            Some(libc::ENOSPC)
        );
        struct Pipe;
        impl Write for Pipe {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let error = RefCell::new(None);
        let mut p = Pipe;
        let mut s = Sink {
            inner: &mut p,
            error: &error,
        };
        assert_eq!(
            s.write_all(b"x").unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
        assert!(error.borrow().is_none());
    }
}
