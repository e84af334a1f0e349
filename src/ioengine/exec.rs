//! `ioengine=exec`: run a program beside the job (fio's
//! `engines/exec.c`). The program starts with the job's I/O, its output
//! in `JOB.stdout` and `JOB.stderr` in the working directory unless
//! `std_redirect=0`; `program` and `arguments` are split at blanks, with
//! `%r` in the arguments replaced by the runtime in seconds and `%n` by
//! the job's name. The job's "I/Os" do nothing but wait 50 ms and, once
//! the runtime is over, send the program `SIGTERM` and give it
//! `grace_time` seconds; after each the job thinks 50 ms more (fio sets
//! `thinktime=50000`). When the job ends the program gets `SIGKILL`. As in
//! fio, the job runs for its runtime however early the program ends.
//!
//! fio starts the program from its first I/O; rfio starts it when the
//! job's "file" is open, just before: a program that cannot be started
//! (fio's forked child then goes on as a second fio) fails the job, with
//! the reason.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::engine::{Caps, CommonOptions, IoEngine};
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{EngineError, FileId, FileTarget, Io, IoMem, Queued};

/// What `ioengine=exec` is (fio's `engines/exec.c`; it runs the job's
/// `program`).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::SYNCIO | fio::DISKLESSIO | fio::NOIO).runs_programs();

/// What this engine can do: nothing but its work (fio's `FIO_SYNCIO |
/// FIO_DISKLESSIO | FIO_NOIO`).
pub(crate) const CAPS: Caps = Caps::NO_IO;

/// fio's pause while the program runs, in µs: inside each I/O and as the
/// job's think time.
const PAUSE_US: u64 = 50_000;

/// exec's own options (fio's `options[]` of `engines/exec.c`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExecOptions {
    /// `program` (none fails the job, as fio).
    pub(crate) program: Option<String>,
    /// `arguments`, before `%r`/`%n` are replaced.
    pub(crate) arguments: Option<String>,
    /// `grace_time`: seconds between `SIGTERM` and the next check.
    pub(crate) grace_time: u32,
    /// `std_redirect`: the program's stdout and stderr go to
    /// `JOB.stdout` and `JOB.stderr`.
    pub(crate) std_redirect: bool,
    /// The job's name (`%n`, the output files).
    pub(crate) job: String,
    /// The job's `runtime` in µs (`%r`, and when to stop the program; 0:
    /// none, so the program is stopped at the first check).
    pub(crate) runtime_us: u64,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            program: None,
            arguments: None,
            grace_time: 1,
            std_redirect: true,
            job: String::new(),
            runtime_us: 0,
        }
    }
}

/// The fio names of [`ExecOptions`].
pub(crate) const OPTIONS: &[&str] = &["program", "arguments", "grace_time", "std_redirect"];

pub(crate) struct Exec {
    opts: ExecOptions,
    program: String,
    child: Option<Child>,
    /// When the program started (fio compares the job's start).
    started: Instant,
    /// The first I/O is the program's start (fio forks in it).
    first: bool,
    notices: Vec<String>,
}

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<ExecOptions, Refusal> {
    Ok(ExecOptions {
        program: o.text("program"),
        arguments: o.text("arguments"),
        grace_time: o.int("grace_time").clamp(0, i64::from(u32::MAX)) as u32,
        std_redirect: o.flag("std_redirect"),
        job: o.job().name.clone(),
        runtime_us: o.job().runtime_us,
    })
}

pub(crate) fn new(
    _common: &CommonOptions,
    opts: &ExecOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    let Some(program) = opts.program.clone() else {
        return Err(EngineError::fio_msg(
            libc::EINVAL,
            "engines/exec.c:324",
            "exec",
            "no program is defined, it is mandatory to define one",
        ));
    };
    let notice = format!(
        "{} : program={program}, arguments={}\n",
        opts.job,
        opts.arguments.as_deref().unwrap_or("(null)")
    );
    Ok(Box::new(Exec {
        opts: opts.clone(),
        program,
        child: None,
        started: Instant::now(),
        first: true,
        notices: vec![notice],
    }))
}

/// fio's `str_replace`: every `rep` in `text` replaced by `with`.
fn expand(arguments: &str, job: &str, runtime_us: u64) -> String {
    arguments
        .replace("%r", &(runtime_us / 1_000_000).to_string())
        .replace("%n", job)
}

/// The program's argument vector: `PROGRAM ARGUMENTS` split at spaces, as
/// fio builds it for `execvp`.
fn argv(program: &str, arguments: Option<&str>) -> Vec<String> {
    let line = match arguments {
        Some(a) => format!("{program} {a}"),
        None => program.to_string(),
    };
    line.split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// `NAME` created for writing, emptied (fio's `open(O_CREAT | O_WRONLY |
/// O_TRUNC, 0644)`).
fn output_file(name: &str) -> Result<File, EngineError> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(name)
        .map_err(|e| {
            EngineError::new(
                e.raw_os_error().unwrap_or(libc::EIO),
                format!("open({name})"),
            )
            .with_detail("fio: cannot open output file")
        })
}

impl Exec {
    /// Start the program (fio's `exec_background`).
    fn start(&mut self) -> Result<(), EngineError> {
        let o = &self.opts;
        let args = o
            .arguments
            .as_deref()
            .map(|a| expand(a, &o.job, o.runtime_us));
        let shown = args.as_deref().unwrap_or("(null)");
        let argv = argv(&self.program, args.as_deref());
        let mut cmd = match argv.split_first() {
            Some((prog, rest)) => {
                let mut c = Command::new(prog);
                c.args(rest);
                c
            }
            None => {
                return Err(EngineError::fio_msg(
                    libc::EINVAL,
                    "engines/exec.c:324",
                    "exec",
                    "no program is defined, it is mandatory to define one",
                ))
            }
        };
        if o.std_redirect {
            let (out, err) = (format!("{}.stdout", o.job), format!("{}.stderr", o.job));
            self.notices.push(format!(
                "{} : Saving output of {} {shown} : stdout={out} stderr={err}\n",
                o.job, self.program
            ));
            cmd.stdout(Stdio::from(output_file(&out)?));
            cmd.stderr(Stdio::from(output_file(&err)?));
        } else {
            self.notices
                .push(format!("{} : Running {} {shown}\n", o.job, self.program));
        }
        let child = cmd.spawn().map_err(|e| {
            EngineError::new(
                e.raw_os_error().unwrap_or(libc::ENOENT),
                format!("execvp({})", argv[0]),
            )
            .with_detail("the program cannot be started")
        })?;
        self.child = Some(child);
        self.started = Instant::now();
        Ok(())
    }

    /// Send `sig` to the program, if it runs.
    fn signal(&self, sig: libc::c_int) {
        if let Some(c) = &self.child {
            // SAFETY: kill has no memory arguments; the pid is our child's,
            // not yet reaped (it is waited for only in `stop`).
            unsafe { libc::kill(c.id() as libc::pid_t, sig) };
        }
    }

    /// fio's cleanup: `SIGKILL`, then (unlike fio) reap it.
    fn stop(&mut self) {
        self.signal(libc::SIGKILL);
        if let Some(mut c) = self.child.take() {
            let _ = c.wait();
        }
    }
}

impl IoEngine for Exec {
    fn name(&self) -> &'static str {
        "exec"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, _target: &FileTarget) -> Result<FileId, EngineError> {
        Ok(FileId(0))
    }

    fn post_init(&mut self) -> Result<(), EngineError> {
        if self.child.is_none() {
            self.start()?;
        }
        Ok(())
    }

    unsafe fn queue(&mut self, _io: &Io) -> Queued {
        if std::mem::take(&mut self.first) {
            return Queued::Completed(Ok(0));
        }
        std::thread::sleep(Duration::from_micros(PAUSE_US));
        if self.started.elapsed().as_micros() as u64 > self.opts.runtime_us {
            self.signal(libc::SIGTERM);
            std::thread::sleep(Duration::from_secs(u64::from(self.opts.grace_time)));
        }
        Queued::Completed(Ok(0))
    }

    fn think_us(&self) -> u64 {
        PAUSE_US
    }

    fn notice(&mut self) -> Option<String> {
        (!self.notices.is_empty()).then(|| self.notices.remove(0))
    }

    fn close_all(&mut self) {
        self.stop();
    }
}

impl Drop for Exec {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_as_fio_builds_them() {
        assert_eq!(
            expand("-t %r -n %n%n", "job1", 30_500_000),
            "-t 30 -n job1job1"
        );
        assert_eq!(
            argv("/bin/echo", Some("  a  b c ")),
            ["/bin/echo", "a", "b", "c"]
        );
        assert_eq!(argv("/bin/true", None), ["/bin/true"]);
    }

    #[test]
    fn without_a_program_the_job_fails_as_fios() {
        let e = new(
            &CommonOptions::default(),
            &ExecOptions::default(),
            IoMem::NONE,
        )
        .err()
        .unwrap();
        assert_eq!(e.errno, libc::EINVAL);
        assert_eq!(
            e.to_string(),
            "exec: no program is defined, it is mandatory to define one"
        );
    }

    #[test]
    fn a_program_that_cannot_start_fails_the_start() {
        let opts = ExecOptions {
            program: Some("/nonexistent/prog".into()),
            std_redirect: false,
            job: "x".into(),
            ..ExecOptions::default()
        };
        let mut e = new(&CommonOptions::default(), &opts, IoMem::NONE).unwrap();
        assert_eq!(
            e.notice().as_deref(),
            Some("x : program=/nonexistent/prog, arguments=(null)\n")
        );
        let err = e.post_init().err().unwrap();
        assert_eq!(err.errno, libc::ENOENT);
        assert!(err.func.contains("/nonexistent/prog"), "{err}");
    }
}
