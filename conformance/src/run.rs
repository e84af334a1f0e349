//! Running one binary once: in a fresh, empty temporary directory as its cwd, with stdin closed,
//! the environment inherited unchanged, stdout and stderr captured, and a time limit.
//!
//! The child gets a process group of its own so that a timeout kills everything it started
//! (fio forks one process per job when it really runs I/O).

use std::ffi::OsString;
use std::fmt;
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// The process exited with this code.
    Exited(i32),
    /// The process was killed by this signal (not by us).
    Signaled(i32),
    /// The process was still running after the time limit and was killed.
    TimedOut(Duration),
    /// The process could not be started; the reason.
    CannotRun(String),
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Exited(code) => write!(f, "exit {code}"),
            Status::Signaled(signal) => write!(f, "killed by signal {signal}"),
            Status::TimedOut(limit) => write!(f, "timeout (killed after {})", seconds(*limit)),
            Status::CannotRun(why) => write!(f, "cannot run: {why}"),
        }
    }
}

/// `20 s`, `1.5 s`.
pub(crate) fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

/// Everything one run produced.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    pub(crate) status: Status,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
    pub(crate) elapsed: Duration,
    /// The files the run left in its temporary directory (only for runs that ask for them,
    /// see [`run_in_temp_dir_keeping_files`]), sorted by path.
    pub(crate) files: Vec<LeftFile>,
    /// For a run killed at its time limit: where its threads waited (see [`crate::threads`]).
    pub(crate) stalled: String,
}

/// A file a run left in its working directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LeftFile {
    /// Relative to the working directory, `/`-separated.
    pub(crate) path: String,
    pub(crate) size: u64,
    /// The contents of log files (`*.log`) up to [`MAX_KEPT`] bytes; `None` for other files.
    pub(crate) contents: Option<Vec<u8>>,
}

/// Log files larger than this are listed but their contents are not kept.
pub(crate) const MAX_KEPT: u64 = 32 << 20;

impl Outcome {
    fn cannot_run(why: String) -> Outcome {
        Outcome {
            status: Status::CannotRun(why),
            stdout: Vec::new(),
            stderr: Vec::new(),
            elapsed: Duration::ZERO,
            files: Vec::new(),
            stalled: String::new(),
        }
    }
}

/// Runs `program args...` in a fresh empty temporary directory, removed afterwards.
pub(crate) fn run_in_temp_dir(program: &Path, args: &[OsString], limit: Duration) -> Outcome {
    match TempDir::new() {
        Ok(dir) => run_in(program, args, dir.path(), limit),
        Err(err) => Outcome::cannot_run(format!("cannot create a temporary directory: {err}")),
    }
}

/// Like [`run_in_temp_dir`], and lists the files the run left in the directory (with the contents
/// of log files) before the directory is removed.
pub(crate) fn run_in_temp_dir_keeping_files(
    program: &Path,
    args: &[OsString],
    limit: Duration,
) -> Outcome {
    match TempDir::new() {
        Ok(dir) => {
            let mut outcome = run_in(program, args, dir.path(), limit);
            outcome.files = left_files(dir.path());
            outcome
        }
        Err(err) => Outcome::cannot_run(format!("cannot create a temporary directory: {err}")),
    }
}

/// Every regular file below `root`, sorted by relative path; log files with their contents.
fn left_files(root: &Path) -> Vec<LeftFile> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                pending.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(root)
                .map_or_else(|_| path.clone(), Path::to_path_buf);
            let name = relative.to_string_lossy().into_owned();
            let contents = (meta.is_file() && name.ends_with(".log") && meta.len() <= MAX_KEPT)
                .then(|| std::fs::read(&path).ok())
                .flatten();
            files.push(LeftFile {
                path: name,
                size: meta.len(),
                contents,
            });
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// The fio release the programs run as (`RFIO_FIO_VERSION`): the oracle's.
static RELEASE: OnceLock<String> = OnceLock::new();

/// rfio behaves as fio `release` (`3.42`) in every run from now on; fio 3.33 until set. A
/// release rfio does not know is refused by rfio itself, in every run.
pub(crate) fn follow_release(release: &str) {
    let _ = RELEASE.set(release.to_owned());
}

/// Runs `program args...` with `cwd` as working directory, killing it after `limit`.
pub(crate) fn run_in(program: &Path, args: &[OsString], cwd: &Path, limit: Duration) -> Outcome {
    let started = Instant::now();
    // rfio behaves as the oracle's release, whatever the caller's
    // environment chose (fio ignores the variable).
    let release = RELEASE.get().map_or("3.33", String::as_str);
    let mut command = Command::new(program);
    command
        .args(args)
        .env("RFIO_FIO_VERSION", release)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = match spawn_patiently(&mut command) {
        Ok(child) => child,
        Err(err) => return Outcome::cannot_run(err.to_string()),
    };
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let mut stalled = String::new();
    let status = match wait_with_limit(&mut child, limit) {
        Ok(Some(status)) => match (status.code(), status.signal()) {
            (Some(code), _) => Status::Exited(code),
            (None, Some(signal)) => Status::Signaled(signal),
            (None, None) => Status::CannotRun(format!("unexpected wait status {status}")),
        },
        Ok(None) => {
            stalled = crate::threads::describe(child.id());
            kill_group(&mut child);
            Status::TimedOut(limit)
        }
        Err(err) => {
            kill_group(&mut child);
            Status::CannotRun(format!("waiting for the process failed: {err}"))
        }
    };
    let elapsed = started.elapsed();
    Outcome {
        status,
        stdout: collect(stdout),
        stderr: collect(stderr),
        elapsed,
        files: Vec::new(),
        stalled,
    }
}

/// Polls the child until it exits (`Some`) or `limit` passes (`None`).
fn wait_with_limit(
    child: &mut Child,
    limit: Duration,
) -> io::Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + limit;
    let mut nap = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        thread::sleep(nap.min(deadline - now));
        nap = (nap * 2).min(Duration::from_millis(20));
    }
}

/// Kills the child's whole process group (it leads its own, see `process_group(0)`), then the
/// child itself in case that failed, and reaps it. std has no killpg, so this asks kill(1).
fn kill_group(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

/// How often a fork that the machine refuses for want of memory or processes is tried again,
/// a second apart: a shared CI machine runs out for a moment, and that is not a difference
/// between fio and rfio.
const SPAWN_TRIES: u32 = 10;

/// `command` spawned, tried again while the kernel answers EAGAIN or ENOMEM.
fn spawn_patiently(command: &mut Command) -> std::io::Result<std::process::Child> {
    let mut tries = 1;
    loop {
        match command.spawn() {
            Err(e)
                if tries < SPAWN_TRIES
                    && matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::ENOMEM)) =>
            {
                eprintln!(
                    "rfio-conformance: {:?}: {e}; trying again",
                    command.get_program()
                );
                tries += 1;
                thread::sleep(Duration::from_secs(1));
            }
            other => return other,
        }
    }
}

/// Reads a pipe to the end on its own thread, so that neither pipe can fill up and block the child.
fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(mut pipe) = pipe {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            let _ = tx.send(bytes);
        });
    }
    rx
}

/// The bytes a `drain` thread read. If something outside the killed process group still holds the
/// pipe open, gives up after half a minute (a loaded machine may take seconds to schedule the
/// reader after the exit) rather than hanging.
fn collect(rx: mpsc::Receiver<Vec<u8>>) -> Vec<u8> {
    rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default()
}

/// A fresh empty directory under the system temp dir, removed with everything in it on drop.
pub(crate) struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub(crate) fn new() -> io::Result<TempDir> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let base = std::env::temp_dir();
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("rfio-conformance-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path }),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(err) => return Err(err),
            }
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_dir_all(&self.path) {
            eprintln!(
                "rfio-conformance: warning: cannot remove {}: {err}",
                self.path.display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, limit: Duration) -> Outcome {
        let args = [OsString::from("-c"), OsString::from(script)];
        run_in_temp_dir(Path::new("/bin/sh"), &args, limit)
    }

    #[test]
    fn captures_output_and_exit_code() {
        let out = sh(
            "printf 'out'; printf 'err' >&2; exit 3",
            Duration::from_secs(10),
        );
        assert_eq!(out.status, Status::Exited(3));
        assert_eq!(out.stdout, b"out");
        assert_eq!(out.stderr, b"err");
    }

    #[test]
    fn runs_in_an_empty_directory_that_is_removed_afterwards() {
        let out = sh("ls -A; pwd", Duration::from_secs(10));
        assert_eq!(out.status, Status::Exited(0));
        let text = String::from_utf8(out.stdout).unwrap();
        let cwd = text.trim_end();
        assert!(cwd.contains("rfio-conformance-"), "{cwd}");
        assert!(!Path::new(cwd).exists(), "{cwd} was not removed");
    }

    #[test]
    fn kills_what_runs_too_long_including_grandchildren() {
        let limit = Duration::from_millis(300);
        let out = sh("echo started; sleep 30 & sleep 30; echo never", limit);
        assert_eq!(out.status, Status::TimedOut(limit));
        assert_eq!(out.stdout, b"started\n");
        assert!(out.elapsed < Duration::from_secs(10), "{:?}", out.elapsed);
    }

    #[test]
    fn lists_the_files_left_behind() {
        let args = [
            OsString::from("-c"),
            OsString::from("mkdir d; printf 'a, 1\\n' > d/x.log; printf 12345 > data"),
        ];
        let out =
            run_in_temp_dir_keeping_files(Path::new("/bin/sh"), &args, Duration::from_secs(10));
        assert_eq!(out.status, Status::Exited(0));
        assert_eq!(
            out.files,
            [
                LeftFile {
                    path: "d/x.log".into(),
                    size: 5,
                    contents: Some(b"a, 1\n".to_vec()),
                },
                LeftFile {
                    path: "data".into(),
                    size: 5,
                    contents: None,
                },
            ]
        );
    }

    #[test]
    fn reports_a_missing_program() {
        let out = run_in_temp_dir(Path::new("/nonexistent/fio"), &[], Duration::from_secs(1));
        assert!(
            matches!(out.status, Status::CannotRun(_)),
            "{:?}",
            out.status
        );
    }

    #[test]
    fn reports_signals() {
        let out = sh("kill -TERM $$", Duration::from_secs(10));
        assert_eq!(out.status, Status::Signaled(15));
    }
}
