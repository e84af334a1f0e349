//! Where the jobs' live messages go while they run.

/// Where the jobs' live messages go, as fio prints them while it runs:
/// `info` is fio's `log_info` (stdout: notes, `fio: pid=…, err=…`), `err`
/// its `log_err` (stderr: `fio: io_u error on file …`). Each call is one
/// or more whole lines, newline included.
pub trait Log: Sync {
    fn info(&self, text: &str);
    fn err(&self, text: &str);

    /// fio's `NAME: Laying out IO file (1 file / 64MiB)` line (newline
    /// included), given as a job's layout starts, before its first byte is
    /// written: a caller sees a long layout in progress. fio prints it with
    /// `log_info` only when the normal output format is selected, into the
    /// `--output` file when there is one; so only the caller knows where it
    /// goes. The default drops it (the report's
    /// [`crate::stats::JobReport::layout`] still says what was laid out).
    fn layout(&self, text: &str) {
        let _ = text;
    }

    /// A line an engine has for the user ([`crate::ioengine`]'s `notice`:
    /// cpuio's `burn (noop): ioengine=cpuio, ...`, exec's `job : Saving
    /// output of ...`), newline included. fio prints them with `log_info`
    /// into whatever its stdout is; rfio keeps stdout for the report, so
    /// they go where the layout lines go, with the normal output only.
    fn note(&self, text: &str) {
        self.layout(text);
    }
}

/// The process's stdout and stderr, written with `write(2)` on descriptors
/// 1 and 2: the caller may hold Rust's stdout/stderr locks while the jobs
/// run (it flushes its own output first), so those are not taken.
pub(crate) struct StdLog;

fn write_fd(fd: libc::c_int, text: &str) {
    let mut b = text.as_bytes();
    while !b.is_empty() {
        // SAFETY: `b` is a valid byte slice for the duration of the call.
        let n = unsafe { libc::write(fd, b.as_ptr().cast(), b.len()) };
        if n <= 0 {
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        b = &b[n as usize..];
    }
}

impl Log for StdLog {
    fn info(&self, text: &str) {
        write_fd(1, text);
    }

    fn err(&self, text: &str) {
        write_fd(2, text);
    }
}
