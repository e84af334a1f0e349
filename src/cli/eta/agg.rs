//! The `--bandwidth-log` aggregate samples (`logs::agg`), taken with the
//! status line as fio takes them in `calc_thread_status` (its
//! `rate_io_bytes`, `rate_prev_time` and `bw_avg_time`): where the line is
//! not shown, the agg logs stay empty.

use crate::logs::agg::{AggLog, AggSample};

/// How late a wake-up may come and still count as on time.
const AGG_SLACK_MS: u64 = 5;

/// The aggregate bandwidth log's sampling (fio's `rate_io_bytes`,
/// `rate_prev_time` and `bw_avg_time` in `calc_thread_status`).
#[derive(Debug, Clone)]
pub(super) struct AggState {
    log: AggLog,
    /// The smallest `bwavgtime` of the jobs.
    bw_avg_ms: u64,
    /// Bytes at the last sample, and when it was (ms after the start of
    /// the jobs).
    bytes: [u64; 3],
    at_ms: u64,
    /// The gap before the last sample.
    last_gap_ms: u64,
}

impl AggState {
    /// No samples yet, one due every `bw_avg_ms` (the smallest
    /// `bwavgtime` of the jobs).
    pub(super) fn new(bw_avg_ms: u64) -> AggState {
        AggState {
            log: AggLog::new(),
            bw_avg_ms,
            bytes: [0; 3],
            at_ms: 0,
            last_gap_ms: 0,
        }
    }

    /// The samples taken so far.
    pub(super) fn log(&self) -> &AggLog {
        &self.log
    }

    /// At a wake-up `at_ms` after the start, with `io_bytes` done so far:
    /// a sample when more than `bwavgtime` passed since the last one (the
    /// start while nothing was counted) and no job ramps.
    ///
    /// fio compares whole milliseconds measured between wake-ups that
    /// drift by a few ms, so its samples come 500 to 750 ms apart with the
    /// default 500 ms (about 640 ms on average); on rfio's exact 250 ms
    /// wake-ups a strict `>` would always wait 750 ms and `>=` always
    /// 500 ms. A sample exactly `bwavgtime` after the last is taken when
    /// the gap before that one was longer: 500 and 750 ms alternate.
    pub(super) fn wake(&mut self, at_ms: u64, io_bytes: [u64; 3], ramping: bool) {
        if self.bytes.iter().sum::<u64>() == 0 {
            self.at_ms = 0;
        }
        let gap = at_ms.saturating_sub(self.at_ms);
        // Wake-ups come a little late: a gap within a few ms of
        // `bwavgtime` counts as exactly that.
        let (bw, slack) = (self.bw_avg_ms, AGG_SLACK_MS);
        let longer = |g: u64| g > bw + slack;
        let due = longer(gap) || (gap + slack >= bw && longer(self.last_gap_ms));
        if !due || ramping || gap == 0 {
            return;
        }
        let kib_s =
            std::array::from_fn(|d| io_bytes[d].saturating_sub(self.bytes[d]) * 1000 / gap / 1024);
        self.log.push(AggSample { t_ms: at_ms, kib_s });
        self.bytes = io_bytes;
        self.at_ms = at_ms;
        self.last_gap_ms = gap;
    }
}

#[cfg(test)]
mod tests {
    use crate::cli::eta::jobs::fixtures::{job, running};
    use crate::cli::eta::jobs::Units;
    use crate::cli::eta::line::Status;
    use crate::workload::progress::JobState;

    /// `--bandwidth-log`: a sample at the first wake-up more than 500 ms
    /// after the start, then 500 and 750 ms apart in turn (fio: 603,
    /// 1108, 1749, 2252, 3002 for a 3 s job), none while a job ramps.
    #[test]
    fn agg_samples_come_with_the_line() {
        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        st.log_bandwidth(500);
        let mut at = |ms: u64, bytes: u64| {
            let _ = st.calc(&[running(ms, bytes, bytes / 4096)], ms, 0);
        };
        for ms in (250..=3000).step_by(250) {
            at(ms + 1, ms * 1024 * 1024);
        }
        let times: Vec<u64> = st
            .agg_log()
            .unwrap()
            .samples()
            .iter()
            .map(|s| s.t_ms)
            .collect();
        assert_eq!(times, [751, 1251, 2001, 2501]);
        let s = st.agg_log().unwrap().samples()[0];
        // 750 MiB in 751 ms, in KiB/s.
        assert_eq!(s.kib_s, [(750 << 20) * 1000 / 751 / 1024, 0, 0]);

        let mut st = Status::with_jobs(vec![job('r')], Units::default(), 1000, None);
        st.log_bandwidth(500);
        let mut ramp = running(800, 0, 0);
        ramp.state = JobState::Ramp;
        let _ = st.calc(&[ramp], 800, 0);
        assert!(st.agg_log().unwrap().samples().is_empty());
    }
}
