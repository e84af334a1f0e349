//! `--trigger-file=FILE`, `--trigger-timeout=T`, `--trigger=CMD` and
//! `--trigger-remote=CMD`: fio 3.33's triggers (`backend.c`
//! `check_trigger_file`).
//!
//! Once the jobs have started, every 10 ms, the trigger fires when FILE
//! exists (it is then removed; `fio: failed to unlink FILE: ERROR` when
//! it cannot be) or, once, when T whole seconds have passed since the jobs
//! started (T as fio reads it: a bare number is seconds, and anything
//! under one second is no timeout). When it fires, the jobs stop as on
//! SIGINT, but silently and with the exit status they would have had, and
//! the command of `--trigger` runs through `sh -c` (fio's `system`;
//! `fio: failed executing CMD trigger` when it cannot be started). The
//! report of what the jobs did follows as usual.
//!
//! As fio does, the trigger has every job save its verify state file
//! (`local-NAME-N-verify.state`, with its last completed writes when it
//! verifies and keeps them, else with none), whatever its options. fio
//! writes them when the trigger fires and runs the command at once; rfio
//! has each job write its own as it stops, and runs the command once the
//! jobs have left their I/O, so that a command that cuts the power finds
//! the files on disk. (fio also rewrites the files of the jobs that were
//! over before the trigger; rfio leaves those as the jobs left them.)
//!
//! `--trigger-remote` is the command fio's clients send to the servers;
//! locally fio ignores it, and so does rfio.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::args::error::ArgError;
use crate::workload::progress::JobState;
use crate::workload::{Log, Progress, StdLog, Stop};

/// The triggers of the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Triggers {
    /// `--trigger-file`.
    pub(crate) file: Option<PathBuf>,
    /// `--trigger-timeout` in whole seconds (0: none).
    pub(crate) timeout_s: u64,
    /// `--trigger`.
    pub(crate) cmd: Option<String>,
    /// `--trigger-remote` (for fio's servers; unused locally).
    pub(crate) remote: Option<String>,
}

impl Triggers {
    /// Whether anything can fire.
    pub(crate) fn armed(&self) -> bool {
        self.file.is_some() || self.timeout_s > 0
    }

    /// Apply flag `name` with `value`; Err: what is wrong with it.
    pub(crate) fn flag(&mut self, name: &str, value: &str) -> Result<(), ArgError> {
        match name {
            "trigger-file" => self.file = Some(PathBuf::from(value)),
            "trigger" => self.cmd = Some(value.to_string()),
            "trigger-timeout" => self.timeout_s = timeout_s(value)?,
            // `--trigger-remote`, the only other.
            _ => self.remote = Some(value.to_string()),
        }
        Ok(())
    }
}

/// `--trigger-timeout`'s value as fio reads it (`check_str_time` with
/// seconds as the default unit, then truncated to whole seconds); a
/// negative time is none.
fn timeout_s(text: &str) -> Result<u64, ArgError> {
    let def = crate::options::lookup("runtime").expect("runtime is in the option table");
    let bad = || ArgError::TriggerTime(text.to_string());
    let trimmed = text.trim();
    if let Some(rest) = trimmed.strip_prefix('-') {
        // fio's unsigned arithmetic takes a negative time as none.
        return match crate::options::parse_value(def, Some(rest), &Default::default()) {
            Ok(crate::options::Value::Micros(_)) => Ok(0),
            _ => Err(bad()),
        };
    }
    match crate::options::parse_value(def, Some(text), &Default::default()) {
        Ok(crate::options::Value::Micros(us)) => Ok(us / 1_000_000),
        _ => Err(bad()),
    }
}

/// How often fio looks (its `do_usleep` while jobs run).
const POLL: Duration = Duration::from_millis(10);
/// The longest rfio waits for the jobs to stop before running the command.
const STOP_WAIT: Duration = Duration::from_secs(10);

/// Watch for the triggers until `run_over`; each time one fires, stop the
/// jobs (`stop`) and run the command.
pub(crate) fn watch(t: &Triggers, progress: &Progress, stop: &Stop, run_over: &AtomicBool) {
    if !t.armed() {
        return;
    }
    let mut timeout = t.timeout_s;
    while !run_over.load(Ordering::SeqCst) {
        std::thread::sleep(POLL);
        // fio looks once its jobs are set up and started.
        if progress.genesis().is_none() {
            continue;
        }
        let by_file = t.file.as_ref().is_some_and(|f| file_fired(f));
        let by_time = timeout > 0
            && progress
                .genesis()
                .is_some_and(|g| g.elapsed().as_secs() >= timeout);
        if by_time {
            timeout = 0;
        }
        if by_file || by_time {
            stop.request_saving_state();
            wait_for_jobs(progress, run_over);
            if let Some(cmd) = t.cmd.as_deref().filter(|c| !c.is_empty()) {
                run_command(cmd);
            }
        }
    }
}

/// Whether `file` exists; it is removed if so (fio's
/// `__check_trigger_file`).
fn file_fired(file: &std::path::Path) -> bool {
    if std::fs::metadata(file).is_err() {
        return false;
    }
    if let Err(e) = std::fs::remove_file(file) {
        let why = crate::output::normal::strerror(e.raw_os_error().unwrap_or(libc::EIO));
        StdLog.err(&format!(
            "fio: failed to unlink {}: {why}\n",
            file.display()
        ));
    }
    true
}

/// Wait until no job is setting up or doing I/O (or the run is over).
fn wait_for_jobs(progress: &Progress, run_over: &AtomicBool) {
    let t = Instant::now();
    let busy = |s: JobState| {
        matches!(
            s,
            JobState::Initialized | JobState::Ramp | JobState::Running
        )
    };
    while !run_over.load(Ordering::SeqCst)
        && t.elapsed() < STOP_WAIT
        && progress.jobs().iter().any(|j| busy(j.state()))
    {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Run `cmd` through the shell and wait for it (fio's `exec_trigger`).
fn run_command(cmd: &str) {
    let ran = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(cmd)
        .status();
    if ran.is_err() {
        StdLog.err(&format!("fio: failed executing {cmd} trigger\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_whole_seconds() {
        assert_eq!(timeout_s("3"), Ok(3));
        assert_eq!(timeout_s("2s"), Ok(2));
        assert_eq!(timeout_s("1500ms"), Ok(1));
        assert_eq!(timeout_s("500ms"), Ok(0));
        assert_eq!(timeout_s("1m"), Ok(60));
        assert_eq!(timeout_s("-1"), Ok(0));
        assert_eq!(timeout_s("abc"), Err(ArgError::TriggerTime("abc".into())));
        assert_eq!(
            timeout_s("abc").unwrap_err().to_string(),
            "failed parsing time abc"
        );
    }

    #[test]
    fn flags_fill_the_triggers() {
        let mut t = Triggers::default();
        assert!(!t.armed());
        t.flag("trigger", "echo hi").unwrap();
        t.flag("trigger-remote", "echo remote").unwrap();
        assert!(!t.armed());
        t.flag("trigger-timeout", "5").unwrap();
        assert!(t.armed());
        t.flag("trigger-file", "/tmp/x").unwrap();
        assert_eq!(
            t,
            Triggers {
                file: Some("/tmp/x".into()),
                timeout_s: 5,
                cmd: Some("echo hi".into()),
                remote: Some("echo remote".into()),
            }
        );
    }

    #[test]
    fn a_trigger_file_is_removed_when_seen() {
        let dir = std::env::temp_dir().join(format!("rfio-trigger-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("go");
        assert!(!file_fired(&f));
        std::fs::write(&f, "").unwrap();
        assert!(file_fired(&f));
        assert!(!f.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
