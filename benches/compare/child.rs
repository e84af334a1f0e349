//! Running one tool invocation and measuring it: wall time, CPU time
//! (user + system) and peak resident set size, all of the child process.
//!
//! The CPU and memory figures come from `wait4(2)`'s `rusage`, which covers
//! the child and every descendant it reaped. fio forks one process per job
//! (rfio runs jobs as threads), so fio's CPU time includes its job process;
//! `ru_maxrss` is the largest single process of that tree, not a sum.
//!
//! `ru_maxrss` has a floor: at `execve` the kernel keeps the high-water mark
//! of the address space being replaced. With `posix_spawn` (what `std` uses
//! by default, a `vfork` sharing our address space) that is *our* peak RSS;
//! with a plain `fork` it is our RSS at the time of the fork. So children
//! are forked (see `run`), and [`floor`] measures what is left: the peak a
//! process that does nothing (`/bin/true`) reports when started the same way.

use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// A run still going after this long is killed, so that a hung tool fails
/// the case instead of hanging the bench.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// What one invocation did and cost.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// From just before `fork` to just after `wait4` returned.
    pub wall: Duration,
    /// `ru_utime + ru_stime`.
    pub cpu: Duration,
    /// `ru_maxrss`, in KiB.
    pub maxrss_kib: u64,
}

impl Outcome {
    /// The first non-empty line of standard error, for the report.
    pub(crate) fn first_error_line(&self) -> String {
        let line = self
            .stderr
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        if line.is_empty() {
            format!("{} with nothing on stderr", describe(self.status))
        } else {
            format!("{}: {line}", describe(self.status))
        }
    }
}

/// "exit 1" or "killed by signal 11".
pub(crate) fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        (None, None) => format!("{status}"),
    }
}

/// Runs `program args...` in `dir` with standard input closed, both
/// outputs captured, and returns when it has been reaped.
pub(crate) fn run(program: &Path, args: &[String], dir: &Path) -> io::Result<Outcome> {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the hook runs in the forked child before `execve`; it does
    // nothing, so it cannot break the async-signal-safety rules there. Its
    // only purpose is to make `std` fork instead of `posix_spawn`, so the
    // child's `ru_maxrss` starts from our current RSS, not our peak.
    unsafe {
        command.pre_exec(|| Ok(()));
    }
    let start = Instant::now();
    let mut child = command.spawn()?;
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = thread::spawn(move || {
        if done_rx.recv_timeout(RUN_LIMIT) == Err(mpsc::RecvTimeoutError::Timeout) {
            // SAFETY: kill(2) takes no pointers. `pid` is our child and has
            // not been reaped (the reaper sends on the channel first), so the
            // number cannot belong to another process yet.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
    });
    let mut err_pipe = child.stderr.take().expect("stderr is piped");
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        err_pipe.read_to_end(&mut buf).map(|_| buf)
    });
    let mut stdout = Vec::new();
    let read_out = child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_end(&mut stdout);
    let stderr = err_reader.join().expect("stderr reader panicked");
    let reaped = wait4(pid);
    let wall = start.elapsed();
    // The child is reaped (or wait4 failed): stop the watchdog either way.
    let _ = done_tx.send(());
    let _ = watchdog.join();
    let (status, usage) = reaped?;
    read_out?;
    let stderr = stderr?;
    Ok(Outcome {
        status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        wall,
        cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
        maxrss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
    })
}

/// The smallest `ru_maxrss` (KiB) a child started by [`run`] can report
/// now: that of `/bin/true`. A tool reporting no more than this used at
/// most this much.
pub(crate) fn floor(dir: &Path) -> Option<u64> {
    let out = run(Path::new("/bin/true"), &[], dir).ok()?;
    out.status.success().then_some(out.maxrss_kib)
}

/// Reaps `pid` and returns its status and resource usage. `std`'s `Child`
/// never waited on it, so nothing else reaps it first.
fn wait4(pid: u32) -> io::Result<(ExitStatus, libc::rusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is a plain C struct of integers, for which all zero
    // bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: both pointers are to live locals, valid for writes for the
        // whole call; wait4 keeps neither after it returns.
        let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if r != -1 {
            return Ok((ExitStatus::from_raw(status), usage));
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

fn timeval(tv: libc::timeval) -> Duration {
    let secs = u64::try_from(tv.tv_sec).unwrap_or(0);
    let micros = u32::try_from(tv.tv_usec).unwrap_or(0);
    Duration::from_secs(secs) + Duration::from_micros(u64::from(micros))
}
