//! The thread that watches a run (fio's helper thread, `helper_thread.c`):
//! it prints the status line when due (line.rs), the full reports of
//! `--status-interval` and SIGUSR1 (`cli::status`), fio's message for a
//! signal (where [`SignalMessage`] says), and stops the jobs once stdout's reader has gone. [`Settings`]
//! say when the line is shown at all (fio's `skip_eta`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::line::Status;
use crate::cli::args::{Args, Eta};
use crate::cli::signals;
use crate::cli::status::StatusReports;
use crate::jobfile::Mode;
use crate::plan::spec::Plan;
use crate::workload::progress::Progress;
use crate::workload::{Log, StdLog};

/// How often the monitor looks for a signal between status lines.
const POLL: Duration = Duration::from_millis(20);

/// fio's helper thread also wakes on its disk-utilisation timer, every
/// 250 ms (`DISK_UTIL_MSEC`), and tries a line each time it wakes.
const HELPER_TICK_MS: u64 = 250;

/// When and how the status line is printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settings {
    /// Print the status line at all.
    pub(crate) show: bool,
    /// `--eta-interval` (default 1 s).
    pub(crate) interval: Duration,
    /// `--eta-newline`: start a new line every this long.
    pub(crate) newline: Option<Duration>,
    /// The results go to stdout (the monitor watches for its reader
    /// going).
    pub(crate) results_to_stdout: bool,
    /// Where the signal message goes as soon as a signal comes.
    pub(crate) signal_message: SignalMessage,
}

/// Where the message for a signal (`fio: terminating on signal N`) goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SignalMessage {
    /// Read as fio, results on stdout: to stdout at once, as fio.
    Stdout,
    /// Read as fio with `--output`: into the file, before the results,
    /// after the run (fio writes it into the file too).
    WithResults,
    /// Called as rfio: to stderr at once, so that every output file and
    /// stdout's report stay what their format says (valid JSON).
    Stderr,
}

impl Settings {
    /// fio's `skip_eta`: no line when the results go to stdout without the
    /// normal format, with `--eta=never`, or when stdout is not a terminal
    /// unless `--eta=always`.
    pub(crate) fn new(args: &Args, normal: bool, stdout_is_tty: bool) -> Settings {
        let to_stdout = args.output.is_none();
        let signal_message = match (args.mode, to_stdout) {
            (Mode::Strict, _) => SignalMessage::Stderr,
            (Mode::Fio, true) => SignalMessage::Stdout,
            (Mode::Fio, false) => SignalMessage::WithResults,
        };
        let show = match args.eta {
            _ if !normal && to_stdout => false,
            Eta::Never => false,
            Eta::Always => true,
            Eta::Auto => stdout_is_tty,
        };
        Settings {
            show,
            interval: Duration::from_millis(args.eta_interval_ms.unwrap_or(1000)),
            newline: args.eta_newline_ms.map(Duration::from_millis),
            results_to_stdout: to_stdout,
            signal_message,
        }
    }
}

/// Whether stdout is a pipe whose reader has gone (`poll` reports
/// `POLLERR` on a pipe's write end once no reader is left). The next write
/// there raises SIGPIPE, as fio's would; the monitor stops the jobs as soon
/// as it sees this instead of running them to the end first.
pub(crate) fn stdout_reader_gone() -> bool {
    let mut fd = libc::pollfd {
        fd: 1,
        events: 0,
        revents: 0,
    };
    // SAFETY: `fd` is one valid pollfd for the duration of the call; a
    // zero timeout never blocks.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n == 1 && fd.revents & libc::POLLERR != 0
}

/// Whether stdout is a terminal.
pub(crate) fn stdout_is_tty() -> bool {
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(1) == 1 }
}

/// What the monitor leaves when the run is over.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outcome {
    /// The signal message was printed.
    pub(crate) told: bool,
}

/// Watch the run until `done`: print the status line when `settings` say
/// so, the full reports of `reports` when due (`--status-interval`) or
/// asked for (SIGUSR1), and fio's message for a signal as soon as one
/// comes, unless it goes with the results ([`SignalMessage`]).
pub(crate) fn monitor(
    plan: &Plan,
    progress: &Progress,
    settings: &Settings,
    done: &AtomicBool,
    mut reports: Option<StatusReports<'_>>,
) -> Outcome {
    let interval_ms = settings.interval.as_millis() as u64;
    let mut status = Status::new(plan, interval_ms, settings.newline);
    let mut told = false;
    let origin = progress.origin();
    let mut next_ms = next_wake(0, interval_ms);
    let watch_stdout = settings.results_to_stdout || settings.show;
    loop {
        if watch_stdout && !signals::STOP.requested() && stdout_reader_gone() {
            signals::STOP.request();
        }
        let signaled = signals::received();
        if let (Some(sig), false) = (signaled, told) {
            match settings.signal_message {
                SignalMessage::Stdout => StdLog.info(&signals::message(sig)),
                SignalMessage::Stderr => StdLog.err(&signals::message(sig)),
                SignalMessage::WithResults => {}
            }
            told = settings.signal_message != SignalMessage::WithResults;
        }
        if done.load(Ordering::Acquire) {
            return Outcome { told };
        }
        let mut wait = POLL;
        if let Some(r) = reports.as_mut() {
            let tick_ms = origin.elapsed().as_millis() as u64;
            let asked = signals::take_status_request();
            if (r.due(tick_ms) || asked) && signaled.is_none() {
                r.print(progress);
            }
            if let Some(at) = r.next_ms() {
                let tick_ms = origin.elapsed().as_millis() as u64;
                wait = wait.min(Duration::from_millis(at.saturating_sub(tick_ms)));
            }
        }
        if settings.show && signaled.is_none() {
            // The wake-ups count from before the files were laid out, as
            // fio's helper thread; the numbers from the start of the jobs.
            let now = Instant::now();
            let tick_ms = now.saturating_duration_since(origin).as_millis() as u64;
            if tick_ms >= next_ms {
                if let Some(genesis) = progress.genesis() {
                    if let Some(line) = status.update(progress, genesis, now) {
                        StdLog.info(&line);
                    }
                }
                next_ms = next_wake(tick_ms, interval_ms);
            }
            let tick_ms = origin.elapsed().as_millis() as u64;
            wait = wait.min(Duration::from_millis(next_ms.saturating_sub(tick_ms)));
        }
        std::thread::park_timeout(wait);
    }
}

/// When fio's helper thread wakes next after `at_ms` (from its start): on
/// its 250 ms timer or its `eta_interval` timer.
fn next_wake(at_ms: u64, interval_ms: u64) -> u64 {
    let after = |step: u64| (at_ms / step + 1) * step;
    after(HELPER_TICK_MS).min(after(interval_ms.max(1)))
}

/// Ends a [`monitor`] when dropped (a panic of the run included): sets its
/// `done` flag and wakes its thread.
pub(crate) struct StopOnDrop<'a> {
    done: &'a AtomicBool,
    thread: std::thread::Thread,
}

impl<'a> StopOnDrop<'a> {
    pub(crate) fn new(done: &'a AtomicBool, thread: std::thread::Thread) -> StopOnDrop<'a> {
        StopOnDrop { done, thread }
    }
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's cadence: the helper thread wakes on its 250 ms timer and on
    /// its `eta_interval` timer (when a line is due is line.rs's).
    #[test]
    fn the_helper_wakes_on_both_timers() {
        assert_eq!(next_wake(0, 1000), 250);
        assert_eq!(next_wake(1010, 1000), 1250);
        assert_eq!(next_wake(0, 300), 250);
        assert_eq!(next_wake(250, 300), 300);
    }

    #[test]
    fn settings_follow_fios_skip_eta() {
        let mut args = Args::default();
        assert!(Settings::new(&args, true, true).show);
        assert!(!Settings::new(&args, true, false).show);
        assert!(!Settings::new(&args, false, true).show, "json on stdout");
        args.eta = Eta::Always;
        assert!(Settings::new(&args, true, false).show);
        assert!(!Settings::new(&args, false, false).show);
        args.output = Some("out.txt".into());
        assert!(Settings::new(&args, false, false).show, "json to a file");
        assert!(!Settings::new(&args, false, false).results_to_stdout);
        args.eta = Eta::Never;
        assert!(!Settings::new(&args, true, true).show);
    }

    /// As fio: where the results go, at once on stdout, else into the
    /// file with them; as rfio: stderr at once, whatever the output.
    #[test]
    fn the_signal_message_goes_where_the_mode_says() {
        let message = |mode, output: Option<&str>| {
            let args = Args {
                mode,
                output: output.map(Into::into),
                ..Args::default()
            };
            Settings::new(&args, false, false).signal_message
        };
        assert_eq!(message(Mode::Fio, None), SignalMessage::Stdout);
        assert_eq!(
            message(Mode::Fio, Some("x.json")),
            SignalMessage::WithResults
        );
        assert_eq!(message(Mode::Strict, None), SignalMessage::Stderr);
        assert_eq!(message(Mode::Strict, Some("x.json")), SignalMessage::Stderr);
    }
}
