//! SIGINT and SIGTERM while jobs run, as fio's `sig_int` (backend.c):
//! the first one stops every job, the results so far are printed after
//! `fio: terminating on signal N`, and rfio exits with status 128. Later
//! ones change nothing: the report is still printed in full before rfio
//! exits, as fio keeps waiting for its jobs (GNU `timeout` sends its signal
//! twice, to the child and to its process group). fio prints the message
//! again for each signal its handler sees; rfio prints it once.
//! Read as fio, the message goes where fio's does, with the results (into
//! the `--output` file, before a JSON document); called as rfio it goes to
//! stderr, and every output stays valid in its format.
//!
//! SIGUSR1 asks for one full report of the jobs so far (fio's
//! `sig_show_status`), printed by the status thread; the run goes on.
//!
//! The handlers only touch atomics, all async-signal-safe;
//! the message is printed by whoever notices [`received`]: the status
//! thread as soon as it happens, else the main thread after the run.

use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

use crate::workload::Stop;

/// The exit status of a run a signal stopped (fio's `exit_value = 128`).
pub(crate) const SIGNALED_STATUS: i32 = 128;

/// The first signal received, 0 for none.
static RECEIVED: AtomicI32 = AtomicI32::new(0);
/// The run's stop request, raised by the first signal.
pub(crate) static STOP: Stop = Stop::new();
/// SIGUSR1s not yet answered with a report.
static STATUS_ASKED: AtomicU32 = AtomicU32::new(0);

const SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

extern "C" fn on_signal(sig: libc::c_int) {
    // The first signal is the one reported; the stop request is idempotent.
    let _ = RECEIVED.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    STOP.request();
}

extern "C" fn on_usr1(_sig: libc::c_int) {
    STATUS_ASKED.fetch_add(1, Ordering::SeqCst);
}

/// Whether a SIGUSR1 came since the last call (several count as one).
pub(crate) fn take_status_request() -> bool {
    STATUS_ASKED.swap(0, Ordering::SeqCst) > 0
}

/// The signal that stopped the run, if one did.
pub(crate) fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(sig),
    }
}

/// fio's message for signal `sig` (where it goes: `eta::SignalMessage`).
pub(crate) fn message(sig: i32) -> String {
    format!("\nfio: terminating on signal {sig}\n")
}

/// Give SIGPIPE back its default action, which Rust's runtime sets to
/// ignore before `main`: like fio, rfio then dies of SIGPIPE (status 141 in
/// a shell) on its first write to a pipe nobody reads, instead of running
/// on and exiting 0. For the `rfio` binary only, before anything is written.
pub(crate) fn default_sigpipe() {
    // SAFETY: setting a standard signal's disposition to SIG_DFL has no
    // memory preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// rfio's handlers for SIGINT, SIGTERM and SIGUSR1; the ones before come
/// back on drop.
pub(crate) struct Handlers {
    old: Vec<(libc::c_int, libc::sigaction)>,
}

impl Handlers {
    /// Install the handlers and forget any earlier signal or stop request.
    pub(crate) fn install() -> Handlers {
        RECEIVED.store(0, Ordering::SeqCst);
        STATUS_ASKED.store(0, Ordering::SeqCst);
        STOP.clear();
        let mut old = Vec::new();
        let handlers = SIGNALS
            .iter()
            .map(|&sig| (sig, on_signal as extern "C" fn(libc::c_int)))
            .chain([(libc::SIGUSR1, on_usr1 as extern "C" fn(libc::c_int))]);
        for (sig, handler) in handlers {
            // SAFETY: both structs are plain C data, zeroed is a valid
            // starting value; the handlers only do async-signal-safe
            // work; `sigaction` writes the previous action into `prev`.
            unsafe {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = handler as libc::sighandler_t;
                act.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut act.sa_mask);
                let mut prev: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &act, &mut prev) == 0 {
                    old.push((sig, prev));
                }
            }
        }
        Handlers { old }
    }
}

impl Drop for Handlers {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: `prev` is the action `sigaction` gave back for `sig`.
            unsafe {
                libc::sigaction(*sig, prev, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_is_fios() {
        assert_eq!(message(2), "\nfio: terminating on signal 2\n");
        assert_eq!(message(15), "\nfio: terminating on signal 15\n");
    }
}
