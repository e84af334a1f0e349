//! The estimate of the time left (fio's `thread_eta`, the ETA part of
//! `calc_thread_status`, and `eta_to_str`), following fio's arithmetic
//! exactly, quirks included: a pending `stonewall` job adds its estimate,
//! which before the third second is fio's "unknown" and shows as
//! `eta 49710d:06h:28m:14s`. The status line shows it, and so do the
//! reports of `--status-interval` and SIGUSR1 (`eta` in JSON).

use std::fmt::Write as _;
use std::time::Instant;

use super::jobs::{snapshots, JobInfo, JobSnap, Units};
use crate::plan::spec::Plan;
use crate::workload::progress::{JobState, Progress};

/// fio's "not known yet" estimate (`INT_MAX`).
pub(super) const UNKNOWN: u64 = i32::MAX as u64;

/// The jobs' ETA in seconds (fio's `je->eta_sec`): INT_MAX while
/// `elapsed_sec` (since the start of the jobs, rounded up) is under 3;
/// then each job's own, the longest (or, with `exitall`, the shortest),
/// plus those of the stonewalled jobs not yet started.
pub(super) fn eta_sec(
    jobs: &[JobInfo],
    exitall: bool,
    snaps: &[JobSnap],
    elapsed_sec: u64,
    done_secs: u64,
) -> u64 {
    let eta_secs: Vec<u64> = jobs
        .iter()
        .zip(snaps)
        .map(|(info, s)| {
            if elapsed_sec >= 3 {
                thread_eta(info, s, done_secs)
            } else {
                UNKNOWN
            }
        })
        .collect();
    if exitall {
        eta_secs.iter().copied().fold(UNKNOWN, u64::min)
    } else {
        let mut eta = 0u64;
        let mut stone = 0u64;
        for ((info, s), &e) in jobs.iter().zip(snaps).zip(&eta_secs) {
            if s.state == JobState::NotCreated && info.stonewall {
                stone = stone.wrapping_add(e);
            } else {
                eta = eta.max(e);
            }
        }
        eta.wrapping_add(stone)
    }
}

/// The ETA in seconds of the jobs of `plan` at `now` (what fio's JSON
/// status reports show as `eta`), computed as for the status line;
/// `at_once`: without fio's 3 s wait before the first estimate (rfio's
/// NDJSON `eta_sec` is a number from its first line).
pub(crate) fn jobs_eta_sec(
    plan: &Plan,
    progress: &Progress,
    genesis: Instant,
    now: Instant,
    at_once: bool,
) -> u64 {
    let jobs: Vec<JobInfo> = plan.jobs.iter().map(JobInfo::from_spec).collect();
    let exitall = Units::from_plan(plan).exitall;
    let elapsed_sec = (now.saturating_duration_since(genesis).as_millis() as u64).div_ceil(1000);
    let elapsed_sec = if at_once {
        elapsed_sec.max(3)
    } else {
        elapsed_sec
    };
    let snaps = snapshots(progress, now);
    eta_sec(&jobs, exitall, &snaps, elapsed_sec, progress.done_secs())
}

/// fio's `thread_eta`: seconds job `info` has left, by its state, its
/// bytes done against its total, its runtime and its rate.
fn thread_eta(info: &JobInfo, s: &JobSnap, done_secs: u64) -> u64 {
    let elapsed = s.epoch_ms.unwrap_or(0).div_ceil(1000);
    let timeout = info.runtime_us / 1_000_000;
    let bytes_total = s.total_bytes;
    match s.state {
        JobState::Running => {
            let done = s.bytes[0] + s.bytes[1];
            let mut perc = if bytes_total > 0 {
                (done as f64 / bytes_total as f64).min(1.0)
            } else {
                0.0
            };
            if info.time_based {
                if timeout > 0 {
                    perc = perc.min(elapsed as f64 / timeout as f64);
                } else {
                    perc = 0.0;
                }
            }
            let mut eta = if perc == 0.0 {
                timeout
            } else {
                ((elapsed as f64 * (1.0 / perc)) as u64).wrapping_sub(elapsed)
            };
            let cap = timeout.wrapping_add(done_secs).wrapping_sub(elapsed);
            if info.runtime_us > 0 && eta > cap {
                eta = cap;
            }
            eta
        }
        JobState::NotCreated | JobState::Initialized | JobState::Ramp => {
            let in_ramp = info.ramp_us > 0;
            let mut t_eta = 0u64;
            if info.runtime_us > 0 {
                let mut t = info.runtime_us + info.start_delay_us;
                if in_ramp {
                    t += info.ramp_us;
                }
                t /= 1_000_000;
                if s.state == JobState::Ramp && in_ramp {
                    let ramp_left = s.epoch_ms.unwrap_or(0).div_ceil(1000);
                    if ramp_left <= t {
                        t -= ramp_left;
                    }
                }
                t_eta = t;
            }
            let rate_bytes: u64 = (0..3).filter(|&d| info.dirs[d]).map(|d| info.rate[d]).sum();
            let r_eta = bytes_total
                .checked_div(rate_bytes)
                .map_or(0, |r| r + info.start_delay_us / 1_000_000);
            match (r_eta, t_eta) {
                (0, t) => t,
                (r, 0) => r,
                (r, t) => r.min(t),
            }
        }
        _ => 0,
    }
}

/// fio's `eta_to_str`: `00m:03s`, `01h:00m:00s`, `02d:00h:00m:00s`.
pub(crate) fn eta_to_str(eta_sec: u64) -> String {
    let s = eta_sec % 60;
    let m = (eta_sec / 60) % 60;
    let h = (eta_sec / 3600) % 24;
    let d = (eta_sec / 86400) as u32;
    let mut out = String::new();
    if d > 0 {
        let _ = write!(out, "{d:02}d:");
    }
    if h > 0 || d > 0 {
        let _ = write!(out, "{h:02}h:");
    }
    let _ = write!(out, "{m:02}m:{s:02}s");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::eta::jobs::fixtures::{job, running};
    use crate::cli::eta::line::Status;

    #[test]
    fn eta_strings_are_fios() {
        assert_eq!(eta_to_str(0), "00m:00s");
        assert_eq!(eta_to_str(3), "00m:03s");
        assert_eq!(eta_to_str(27), "00m:27s");
        assert_eq!(eta_to_str(3600), "01h:00m:00s");
        assert_eq!(eta_to_str(86400 * 2 + 5), "02d:00h:00m:05s");
        // Two of fio's INT_MAX "unknown" added up (a pending stonewall job).
        assert_eq!(eta_to_str(2 * UNKNOWN), "49710d:06h:28m:14s");
    }

    #[test]
    fn a_pending_stonewall_job_adds_its_estimate() {
        let mut a = job('r');
        a.runtime_us = 4_000_000;
        let mut b = job('W');
        b.runtime_us = 2_000_000;
        b.stonewall = true;
        let mut st = Status::with_jobs(vec![a, b], Units::default(), 1000, None);
        let pending = JobSnap {
            state: JobState::NotCreated,
            files_open: 0,
            epoch_ms: None,
            bytes: [0; 3],
            ios: [0; 3],
            total_bytes: 1 << 30,
        };
        let je = st
            .calc(&[running(990, 1 << 30, 1), pending], 1000, 0)
            .unwrap();
        let l = st.display(&je, 1000);
        assert!(l.contains("[r(1),P(1)][0.0%]"), "{l}");
        assert!(l.contains("[eta 49710d:06h:28m:14s]"), "{l}");
        // At 3 s: 1 s left of `a`, then `b`'s 2 s.
        let je = st
            .calc(&[running(2990, 2 << 30, 2), pending], 3000, 0)
            .unwrap();
        assert_eq!(je.eta_sec, 3);
    }
}
