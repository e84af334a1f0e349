//! The aggregate bandwidth logs of `--bandwidth-log` (fio 3.33's
//! `agg_io_log`, fed by `eta.c`): `agg-read_bw.log`, `agg-write_bw.log`
//! and `agg-trim_bw.log` in the working directory, all three always
//! written (a direction nobody does logs zeros).
//!
//! Lines: `time, KiB/s, ddir, 0, 0` (bs and prio are 0): the bandwidth of
//! all jobs together since the previous sample, time in ms since the jobs
//! started. fio takes a sample when its status line is computed and more
//! than the smallest `bwavgtime` of the jobs (500 ms by default) has
//! passed since the last one, no job being in its ramp; since the status
//! line is computed only where it is shown (a terminal, or
//! `--eta=always`), the files are empty otherwise.
//!
//! The samples are kept in memory (a few per second) and written when the
//! run is over, as fio writes its logs at exit. [`AggSampler`] decides
//! when a sample is due; the run takes them (`workload::agg`), on the
//! wake-ups of fio's helper thread, when the caller says the status line
//! is computed.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The file names, by direction (read, write, trim).
pub(crate) const AGG_LOG_NAMES: [&str; 3] =
    ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"];

/// One sample: ms since the jobs started and KiB/s per direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AggSample {
    pub(crate) t_ms: u64,
    pub(crate) kib_s: [u64; 3],
}

/// The samples of a run, written at its end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AggLog {
    samples: Vec<AggSample>,
}

impl AggLog {
    pub(crate) fn new() -> AggLog {
        AggLog::default()
    }

    pub(crate) fn push(&mut self, s: AggSample) {
        self.samples.push(s);
    }

    #[cfg(test)]
    pub(crate) fn samples(&self) -> &[AggSample] {
        &self.samples
    }

    /// One direction's file, as text.
    pub(crate) fn render(&self, dir: usize) -> String {
        let mut out = String::with_capacity(self.samples.len() * 24);
        for s in &self.samples {
            out.push_str(&format!("{}, {}, {dir}, 0, 0\n", s.t_ms, s.kib_s[dir]));
        }
        out
    }

    /// Write the three files into `dir`; their paths. The first error
    /// names the file.
    pub(crate) fn write_to(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        let mut paths = Vec::with_capacity(3);
        for (d, name) in AGG_LOG_NAMES.iter().enumerate() {
            let path = dir.join(name);
            std::fs::File::create(&path)
                .and_then(|mut f| f.write_all(self.render(d).as_bytes()))
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            paths.push(path);
        }
        Ok(paths)
    }
}

/// How late a wake-up may come and still count as on time.
const AGG_SLACK_MS: u64 = 5;

/// The aggregate bandwidth log's sampling (fio's `rate_io_bytes`,
/// `rate_prev_time` and `bw_avg_time` in `calc_thread_status`).
#[derive(Debug, Clone)]
pub(crate) struct AggSampler {
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

impl AggSampler {
    /// No samples yet, one due every `bw_avg_ms` (the smallest
    /// `bwavgtime` of the jobs).
    pub(crate) fn new(bw_avg_ms: u64) -> AggSampler {
        AggSampler {
            log: AggLog::new(),
            bw_avg_ms,
            bytes: [0; 3],
            at_ms: 0,
            last_gap_ms: 0,
        }
    }

    /// The samples taken.
    pub(crate) fn into_log(self) -> AggLog {
        self.log
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
    pub(crate) fn wake(&mut self, at_ms: u64, io_bytes: [u64; 3], ramping: bool) {
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
    use super::*;

    #[test]
    fn lines_are_fios() {
        let mut log = AggLog::new();
        log.push(AggSample {
            t_ms: 603,
            kib_s: [7_969_611, 7_963_933, 0],
        });
        log.push(AggSample {
            t_ms: 1249,
            kib_s: [11_706_718, 0, 0],
        });
        assert_eq!(
            log.render(0),
            "603, 7969611, 0, 0, 0\n1249, 11706718, 0, 0, 0\n"
        );
        assert_eq!(log.render(1), "603, 7963933, 1, 0, 0\n1249, 0, 1, 0, 0\n");
        assert_eq!(log.render(2), "603, 0, 2, 0, 0\n1249, 0, 2, 0, 0\n");
    }

    #[test]
    fn all_three_files_are_written_even_empty() {
        let dir = std::env::temp_dir().join(format!("rfio-agg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let paths = AggLog::new().write_to(&dir).unwrap();
        assert_eq!(paths.len(), 3);
        for (p, name) in paths.iter().zip(AGG_LOG_NAMES) {
            assert!(p.ends_with(name));
            assert_eq!(std::fs::read(p).unwrap().len(), 0);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A sample at the first wake-up more than 500 ms after the start,
    /// then 500 and 750 ms apart in turn on 250 ms wake-ups (fio: 603,
    /// 1108, 1749, 2252, 3002 for a 3 s job), none while a job ramps.
    #[test]
    fn samples_come_500_and_750_ms_apart() {
        let mut a = AggSampler::new(500);
        for ms in (250..=3000).step_by(250) {
            a.wake(ms + 1, [ms * 1024 * 1024, 0, 0], false);
        }
        let log = a.into_log();
        let times: Vec<u64> = log.samples().iter().map(|s| s.t_ms).collect();
        assert_eq!(times, [751, 1251, 2001, 2501]);
        // 750 MiB in 751 ms, in KiB/s.
        let s = log.samples()[0];
        assert_eq!(s.kib_s, [(750 << 20) * 1000 / 751 / 1024, 0, 0]);

        let mut a = AggSampler::new(500);
        a.wake(800, [0; 3], true);
        assert!(a.into_log().samples().is_empty());
    }
}
