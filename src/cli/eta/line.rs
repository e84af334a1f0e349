//! The status line's numbers and text: fio's `calc_thread_status` (what
//! runs, the rate limits, the bandwidth and IOPS since the last line, the
//! ETA) and `display_thread_status` (the text, padded over the previous
//! line, with a new line every `--eta-newline`).

use std::time::{Duration, Instant};

use super::display::{JobsEta, Line, LineUnits};
use super::estimate::eta_sec;
use super::jobs::{snapshots, JobInfo, JobSnap, Units};
use super::states::{condense, state_letter};
use crate::plan::spec::Plan;
use crate::workload::progress::{JobState, Progress};

/// The line's state between updates (fio's statics in `eta.c`).
#[derive(Debug, Clone)]
pub(crate) struct Status {
    jobs: Vec<JobInfo>,
    units: Units,
    /// `--eta-interval`, in ms.
    interval_ms: u64,
    /// Bytes and I/Os at the last line, and when it was (ms after the
    /// start of the jobs).
    disp_bytes: [u64; 3],
    disp_ios: [u64; 3],
    disp_at_ms: u64,
    /// The text's state between lines (and `--eta-newline`).
    line: Line,
}

impl Status {
    pub(crate) fn new(plan: &Plan, interval_ms: u64, newline: Option<Duration>) -> Status {
        let jobs = plan.jobs.iter().map(JobInfo::from_spec).collect();
        Status::with_jobs(jobs, Units::from_plan(plan), interval_ms, newline)
    }

    pub(crate) fn with_jobs(
        jobs: Vec<JobInfo>,
        units: Units,
        interval_ms: u64,
        newline: Option<Duration>,
    ) -> Status {
        Status {
            jobs,
            units,
            interval_ms,
            line: Line::new(newline.map(|d| d.as_millis() as u64)),
            disp_bytes: [0; 3],
            disp_ios: [0; 3],
            disp_at_ms: 0,
        }
    }

    /// The line for `now`, if one is due (some job runs or waits).
    pub(super) fn update(
        &mut self,
        progress: &Progress,
        genesis: Instant,
        now: Instant,
    ) -> Option<String> {
        let snaps = snapshots(progress, now);
        let at_ms = now.saturating_duration_since(genesis).as_millis() as u64;
        let je = self.calc(&snaps, at_ms, progress.done_secs())?;
        Some(self.display(&je, at_ms))
    }

    /// fio's `calc_thread_status` at `at_ms` after the start of the jobs;
    /// `None` when no line is due: less than 95% of the interval since the
    /// last line (since the start while nothing was counted yet, so fio
    /// prints at each 250 ms wake-up then), or no job runs or waits.
    pub(crate) fn calc(
        &mut self,
        snaps: &[JobSnap],
        at_ms: u64,
        done_secs: u64,
    ) -> Option<JobsEta> {
        if self.disp_bytes.iter().sum::<u64>() == 0 {
            self.disp_at_ms = 0;
        }
        let line_due = at_ms.saturating_sub(self.disp_at_ms) > self.interval_ms * 95 / 100;
        if !line_due {
            return None;
        }
        let mut je = JobsEta {
            elapsed_sec: at_ms.div_ceil(1000),
            ..JobsEta::default()
        };
        let mut io_bytes = [0u64; 3];
        let mut io_ios = [0u64; 3];
        let mut letters = String::with_capacity(snaps.len());
        for (info, s) in self.jobs.iter().zip(snaps) {
            match s.state {
                JobState::Running | JobState::Finishing => {
                    je.nr_running += 1;
                    for d in (0..3).filter(|&d| info.dirs[d]) {
                        je.t_rate[d] += info.rate[d];
                        je.t_iops[d] += info.rate_iops[d];
                        je.m_rate[d] += info.rate_min[d];
                        je.m_iops[d] += info.rate_iops_min[d];
                    }
                    je.files_open += s.files_open;
                }
                JobState::Ramp => {
                    je.nr_running += 1;
                    je.nr_ramp += 1;
                }
                JobState::NotCreated | JobState::Initialized => je.nr_pending += 1,
                _ => {}
            }
            letters.push(state_letter(info.letter, s.state));
            if s.state >= JobState::Running {
                for d in 0..3 {
                    let to = if self.units.unified { 0 } else { d };
                    io_bytes[to] += s.bytes[d];
                    io_ios[to] += s.ios[d];
                }
            }
        }
        je.eta_sec = eta_sec(
            &self.jobs,
            self.units.exitall,
            snaps,
            je.elapsed_sec,
            done_secs,
        );
        let disp_ms = at_ms.saturating_sub(self.disp_at_ms);
        for d in 0..3 {
            let diff = io_bytes[d].saturating_sub(self.disp_bytes[d]);
            let ios = io_ios[d].saturating_sub(self.disp_ios[d]);
            (je.rate[d], je.iops[d]) = match disp_ms {
                0 => (0, 0),
                ms => ((1000 * diff / ms) / 1024, ios * 1000 / ms),
            };
        }
        self.disp_bytes = io_bytes;
        self.disp_ios = io_ios;
        self.disp_at_ms = at_ms;
        if je.nr_running == 0 && je.nr_pending == 0 {
            return None;
        }
        je.run_str = condense(&letters);
        Some(je)
    }

    /// fio's `display_thread_status`: the text to print, `\r` included,
    /// at `at_ms` after the start of the jobs.
    pub(crate) fn display(&mut self, je: &JobsEta, at_ms: u64) -> String {
        let units = LineUnits {
            pow2: self.units.pow2,
            sig_figs: self.units.sig_figs,
            unit: if self.units.bits { 5 } else { 4 },
        };
        self.line.display(je, 0, units, at_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::eta::jobs::fixtures::{job, running};

    /// `fio --name=x --ioengine=null --size=64g --rw=randread --runtime=6
    /// --time_based` on a terminal (fio 3.33): two short lines, then
    /// `[r(1)][50.0%]…[eta 00m:03s]` at the third second.
    #[test]
    fn a_time_based_job_counts_down() {
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        let mut line = |at_ms: u64, epoch_ms: u64, bytes: u64, ios: u64| {
            let je = st
                .calc(&[running(epoch_ms, bytes, ios)], at_ms, 0)
                .expect("a job runs");
            st.display(&je, at_ms)
        };
        assert_eq!(line(1000, 990, 1 << 30, 1 << 18), "Jobs: 1 (f=1)\r");
        assert_eq!(line(2000, 1990, 2 << 30, 2 << 18), "Jobs: 1 (f=1)\r");
        // 22.1 GiB/s and 5791k IOPS over the last second.
        let (b, n) = ((2 << 30) + 23_173_530 * 1024, (2 << 18) + 5_791_000);
        assert_eq!(
            line(3000, 2990, b, n),
            "Jobs: 1 (f=1): [r(1)][50.0%][r=22.1GiB/s][r=5791k IOPS][eta 00m:03s]\r"
        );
        let l = line(4000, 3990, b + (1 << 30), n + (1 << 18));
        // Shorter than the line before: padded over it.
        assert!(
            l.contains("[66.7%]") && l.ends_with("[eta 00m:02s] \r"),
            "{l:?}"
        );
    }

    #[test]
    fn the_first_known_zero_eta_shows_no_percent() {
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        let mut j = job('r');
        j.runtime_us = 3_000_000;
        st.jobs = vec![j];
        let je = st.calc(&[running(2990, 1 << 30, 1000)], 3000, 0).unwrap();
        let l = st.display(&je, 3000);
        assert!(l.starts_with("Jobs: 1 (f=1): [r(1)][-.-%]"), "{l}");
        assert!(l.ends_with("[eta 00m:00s]\r"), "{l}");
    }

    #[test]
    fn rate_limits_and_pending_jobs_show_before_the_third_second() {
        let mut a = job('r');
        a.runtime_us = 5_000_000;
        let mut b = job('W');
        b.dirs = [false, true, false];
        b.time_based = false;
        b.runtime_us = 0;
        b.rate = [524_288_000; 3];
        let mut c = job('m');
        c.dirs = [true, true, false];
        c.ramp_us = 2_000_000;
        c.rate_iops = [1000; 3];
        let mut st = Status::with_jobs(vec![a, b, c], Units::default(), 1000, None);
        let mut ramp = running(900, 0, 0);
        ramp.state = JobState::Ramp;
        let snaps = [
            running(990, 1 << 30, 1000),
            running(990, 1 << 29, 100),
            ramp,
        ];
        let je = st.calc(&snaps, 1000, 0).unwrap();
        assert_eq!(st.display(&je, 1000), "Jobs: 3 (f=2), 0B/s-500MiB/s\r");
        assert_eq!(je.run_str, "r(1),W(1),/(1)");
    }

    #[test]
    fn a_shorter_line_is_padded_and_newlines_come_every_period() {
        let mut st = Status::with_jobs(
            vec![job('r')],
            Units::default(),
            1000,
            Some(Duration::from_millis(2000)),
        );
        let je = |eta: u64, run_str: &str| JobsEta {
            nr_running: 1,
            files_open: 1,
            elapsed_sec: 3,
            eta_sec: eta,
            rate: [1024, 0, 0],
            iops: [1000, 0, 0],
            run_str: run_str.to_string(),
            ..JobsEta::default()
        };
        let first = st.display(&je(3, "r(1),_(2)"), 1000);
        let second = st.display(&je(3, "r(1)"), 2000);
        assert_eq!(first.len(), second.len());
        assert!(second.ends_with("]     \r"), "{second:?}");
        assert!(!st.display(&je(3, "r(1)"), 3000).starts_with('\n'));
        // More than 2 s since the first line: the next one starts anew.
        let _ = st.display(&je(2, "r(1)"), 3001);
        assert!(st.display(&je(1, "r(1)"), 4000).starts_with("\nJobs: 1"));
    }

    /// fio's cadence: a line once per interval, but at every 250 ms wake-up
    /// while nothing was counted yet (a ramp, a job not started).
    #[test]
    fn lines_come_once_per_interval() {
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        let mut ramp = running(100, 0, 0);
        ramp.state = JobState::Ramp;
        assert!(st.calc(&[ramp], 750, 0).is_none());
        assert!(st.calc(&[ramp], 1000, 0).is_some());
        assert!(st.calc(&[ramp], 1250, 0).is_some(), "nothing counted yet");
        let run = running(1400, 1 << 20, 256);
        assert!(st.calc(&[run], 1500, 0).is_some());
        assert!(st.calc(&[run], 1750, 0).is_none());
        assert!(st.calc(&[run], 2250, 0).is_none());
        assert!(st.calc(&[run], 2500, 0).is_some());
    }

    #[test]
    fn no_line_once_nothing_runs_or_waits() {
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        let mut done = running(5000, 1 << 30, 1000);
        done.state = JobState::Reaped;
        assert!(st.calc(&[done], 5000, 5).is_none());
    }
}
