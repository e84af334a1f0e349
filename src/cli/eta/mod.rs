//! The status line fio prints while jobs run (fio 3.33 `eta.c`):
//!
//! ```text
//! Jobs: 1 (f=1): [r(1)][50.0%][r=22.1GiB/s][r=5791k IOPS][eta 00m:03s]\r
//! ```
//!
//! - `Jobs: <running> (f=<open files>)`, then `, <min>-<max>` when running
//!   jobs have `rate`/`rate_min` (bytes/s) or `, <min>-<max> IOPS` for
//!   `rate_iops`/`rate_iops_min`.
//! - From the third second on: `: [<states>][<done>%]`, the read, write and
//!   trim bandwidth and IOPS since the last line (directions that moved
//!   something), and `[eta <left>]`. States are one letter per job, runs
//!   condensed (`r(1),_(2),P(1)`): `P` not started, `I` setting up, `/`
//!   ramping, `R`/`r` (sequential/random) read, `W`/`w` write, `M`/`m`
//!   mixed, `D`/`d` trim, `f` finishing, `E` exited, `_` done, `X` failed.
//! - Each line ends with `\r` (no newline); a shorter line is padded with
//!   spaces over the previous one. `--eta-newline=t` starts a new line at
//!   the first update after each `t`.
//! - Printed once per `--eta-interval` (1 s) from the start of the jobs
//!   (every 250 ms, fio's helper-thread tick, while no byte was counted
//!   yet), on stdout, only when the normal format is asked for or the
//!   results go to an `--output` file, and then only on a terminal unless
//!   `--eta=always`; never with `--eta=never`. The line is left as it is
//!   at the end: the results start with a newline.
//! - The same thread prints the full reports of `--status-interval` and
//!   SIGUSR1 (`status`). fio's helper thread also takes
//!   `--bandwidth-log`'s aggregate samples as it computes the line; in
//!   rfio the run takes them (`workload::agg`) on the same wake-ups, where
//!   the cli says the line is shown.
//!
//! The ETA and percent follow fio's arithmetic exactly, quirks included
//! (a pending `stonewall` job adds its estimate, which before the third
//! second is fio's "unknown" and shows as `eta 49710d:06h:28m:14s`).
//!
//! The parts, as fio's `eta.c` has them:
//!
//! - `jobs.rs`: what the line reads of each job, from its options
//!   (`JobInfo`) and at one moment (`JobSnap`), and the settings over all
//!   jobs that shape the numbers (`Units`).
//! - `states.rs`: the run-state letter of each job, and the runs of them
//!   condensed (`check_str_update`, `update_condensed_str`).
//! - `estimate.rs`: the ETA (`thread_eta`, the ETA part of
//!   `calc_thread_status`, `eta_to_str`), which the `--status-interval`
//!   and SIGUSR1 reports also show (`status`, as fio's `stat.c` asks
//!   `eta.c`).
//! - `line.rs`: the line's numbers and text (`calc_thread_status`,
//!   `display_thread_status`, `gen_eta_str`).
//! - `monitor.rs`: the thread that prints the line and the status reports
//!   when due (fio's helper thread, `helper_thread.c`).

pub(crate) mod display;
pub(crate) mod estimate;
mod jobs;
mod line;
mod monitor;
mod states;

pub(crate) use monitor::{monitor, stdout_is_tty, Settings, StopOnDrop};

pub(crate) use display::JobsEta;
pub(crate) use line::Status;

/// The status line's numbers now (fio's `calc_thread_status` for a
/// client's ETA request): `None` before the jobs start, or when none runs
/// or waits. `status` keeps the counts of the previous call, from which
/// the rates are taken.
pub(crate) fn jobs_eta_now(
    status: &mut Status,
    progress: &crate::workload::Progress,
) -> Option<JobsEta> {
    let genesis = progress.genesis()?;
    let now = std::time::Instant::now();
    let snaps = jobs::snapshots(progress, now);
    let at_ms = now.saturating_duration_since(genesis).as_millis() as u64;
    status.calc(&snaps, at_ms, progress.done_secs())
}
