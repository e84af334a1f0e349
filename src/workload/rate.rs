//! Rate limits: when the next I/O may be issued, and whether the job keeps
//! up with its minimum rate (fio's `rate_ddir`, `usec_for_io`,
//! `check_min_rate`, fio 3.33).
//!
//! - `rate=` (bytes/s) and `rate_iops=` (I/Os per second, turned into
//!   bytes/s with the direction's smallest block size, as fio does) per
//!   direction. With `rate_process=linear` (default) the next I/O of a
//!   direction may start at `bytes_issued / rate` seconds after the job's
//!   I/O began; with `poisson` the gaps are exponential with mean
//!   `1 / iops`, drawn from fio's `poisson_state` generators (fio computes
//!   them in single precision, `logf`, as here).
//! - From fio 3.42, `rate_iops=` of a direction with a `bssplit` (and no
//!   `rate=`) spaces the I/Os `1 / rate_iops` s apart under the linear
//!   process, whatever their sizes (`RateOptions::iops_paced`).
//! - In a read/write mix, a direction that is ahead of its rate hands the
//!   I/O to the other direction when that one is behind, else the job
//!   waits for whichever comes first (fio's `rate_ddir`).
//! - `rate_min=`/`rate_iops_min=`: after a 2 s settling period, every
//!   `rate_cycle` ms the rate over the last cycle must reach the minimum,
//!   or the job fails (fio: "rate_min=…B/s not met, got …B/s").
//!
//! Time is in nanoseconds since the job's I/O started (fio's `epoch`); fio
//! itself works in microseconds, and so does the arithmetic here, so the
//! waits equal fio's. Tests drive it with a fake clock: nothing here reads
//! the clock or sleeps.

use super::ddir::DirGen;
use crate::ddir::Ddir;
use crate::plan::spec::JobSpec;
use crate::rand::{FioRand, Seeds, Slot};

/// The minimum rate was not met.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MinRateError {
    #[error("{job}: rate_min={min}B/s not met, got {got}B/s")]
    Bytes { job: String, min: u64, got: u64 },
    #[error("{job}: rate_iops_min={min} not met, got {got} IOPS")]
    Iops { job: String, min: u64, got: u64 },
}

/// The rate limiter of one job (fio's `TD_F_CHECK_RATE` state).
#[derive(Debug, Clone)]
pub struct RateLimiter {
    job: String,
    /// fio's `rate_bps[dir]`: 0 means no limit for that direction.
    bps: [u64; 3],
    poisson: bool,
    /// `RateOptions::iops_paced`: the next I/O comes `1 / iops` after the
    /// last one's slot (fio 3.42's `usec_for_io` with a `bssplit`).
    iops_paced: [bool; 3],
    min_bs: [u64; 3],
    /// fio's `rate_next_io_time[dir]`, µs since the epoch.
    next_io_us: [u64; 3],
    /// fio's `rate_io_issue_bytes[dir]`.
    issue_bytes: [u64; 3],
    /// fio's `last_usec[dir]` (poisson process).
    last_usec: [u64; 3],
    poisson_state: [FioRand; 3],
    /// `rate_min` per direction, bytes/s.
    min_bytes: [u64; 3],
    /// `rate_iops_min` per direction.
    min_iops: [u64; 3],
    /// `rate_cycle` in ms.
    cycle_ms: u64,
    last_check_bytes: [u64; 3],
    last_check_ios: [u64; 3],
    last_check_ms: [u64; 3],
    /// `rate_ignore_thinktime`.
    ignore_think: bool,
}

/// fio's line for a direction whose minimum rate is above its rate
/// (`RateOptions::min_above_rate`): fio 3.33 refuses such a job when the
/// run starts, before any job runs, with this line for each, and exits 1
/// with nothing on stdout (`runner::refusal_when_added`).
pub(crate) fn min_above_rate_message(dir: usize) -> String {
    format!("fio: minimum rate exceeds rate, ddir {dir}")
}

impl RateLimiter {
    /// The limiter of `spec`, or `None` when it sets no rate option (fio
    /// then never reads the clock for rates). `seeds` is the job's seed
    /// table (the poisson process draws from it).
    pub fn new(spec: &JobSpec, seeds: &Seeds) -> Option<RateLimiter> {
        let r = &spec.rate;
        if !r.any() {
            return None;
        }
        let (rate, rate_iops) = (r.bytes, r.iops);
        let min_bs: [u64; 3] = std::array::from_fn(|d| spec.bs[d].0.max(1));
        let bps = std::array::from_fn(|d| {
            if rate[d] > 0 {
                rate[d]
            } else {
                rate_iops[d] * min_bs[d]
            }
        });
        Some(RateLimiter {
            job: spec.name.clone(),
            bps,
            poisson: r.poisson,
            iops_paced: r.iops_paced,
            min_bs,
            next_io_us: [0; 3],
            issue_bytes: [0; 3],
            last_usec: [0; 3],
            poisson_state: [
                seeds.rand(Slot::Poisson, false),
                seeds.rand(Slot::Poisson2, false),
                seeds.rand(Slot::Poisson3, false),
            ],
            min_bytes: r.min_bytes,
            min_iops: r.min_iops,
            cycle_ms: r.cycle_ms,
            last_check_bytes: [0; 3],
            last_check_ios: [0; 3],
            last_check_ms: [0; 3],
            ignore_think: r.ignore_think,
        })
    }

    /// Bytes per second allowed for `dir` (0: unlimited).
    pub fn bps(&self, dir: Ddir) -> u64 {
        self.bps[dir.index()]
    }

    /// fio's `rate_ddir`: the direction to issue (`proposed`, or the other
    /// one in a mix when it is behind its rate) and how many nanoseconds
    /// to wait first. `dirs` tells whether the job mixes directions and
    /// their shares. Allocation free; never sleeps.
    #[inline]
    pub fn next_dir(&mut self, proposed: Ddir, now_ns: u64, dirs: &DirGen) -> (Ddir, u64) {
        let now = now_ns / 1000;
        let d = proposed.index();
        if self.next_io_us[d] <= now {
            return (proposed, 0);
        }
        // fio's rate_ddir: a read waits on the writes' rate and the other
        // way round; nothing else has a partner.
        let other = match proposed {
            Ddir::Read => Ddir::Write,
            Ddir::Write => Ddir::Read,
            d => d,
        };
        let o = other.index();
        let (dir, usec) = if dirs.is_mixed() && dirs.mix_share(other) > 0 {
            if self.next_io_us[o] <= now {
                return (other, 0);
            }
            if self.next_io_us[d] <= self.next_io_us[o] {
                (proposed, self.next_io_us[d] - now)
            } else {
                (other, self.next_io_us[o] - now)
            }
        } else {
            (proposed, self.next_io_us[d] - now)
        };
        (dir, usec * 1000)
    }

    /// Nanoseconds to wait before an I/O of `bytes` in `dir` at `now_ns`,
    /// counting it as issued: [`next_dir`](Self::next_dir) without a mix,
    /// then [`issued`](Self::issued).
    #[inline]
    pub fn delay_before(&mut self, dir: Ddir, bytes: u64, now_ns: u64) -> u64 {
        let now = now_ns / 1000;
        let next = self.next_io_us[dir.index()];
        let wait = next.saturating_sub(now) * 1000;
        self.issued(dir, bytes);
        wait
    }

    /// An I/O of `bytes` in `dir` was issued: fio's `rate_io_issue_bytes`
    /// grows and `rate_next_io_time` is recomputed (`usec_for_io`).
    #[inline]
    pub fn issued(&mut self, dir: Ddir, bytes: u64) {
        let d = dir.index();
        self.issue_bytes[d] += bytes;
        self.next_io_us[d] = self.usec_for_io(d);
    }

    /// fio's `usec_for_io` (3.33's, and 3.42's I/O count with a `bssplit`).
    fn usec_for_io(&mut self, d: usize) -> u64 {
        let bps = self.bps[d];
        if self.poisson {
            let iops = bps / self.min_bs[d];
            if iops == 0 {
                return 0;
            }
            let u = self.poisson_state[d].rand_0_1() as f32;
            // (int64_t)(1000000 / iops) * -logf(u), in float.
            let val = ((1_000_000 / iops) as i64 as f32 * -u.ln()) as u64;
            self.last_usec[d] += val;
            return self.last_usec[d];
        }
        if bps == 0 {
            return 0;
        }
        if self.iops_paced[d] {
            let iops = bps / self.min_bs[d];
            if iops == 0 {
                return 0;
            }
            self.last_usec[d] += 1_000_000 / iops;
            return self.last_usec[d];
        }
        let bytes = self.issue_bytes[d];
        let secs = bytes / bps;
        let rem = bytes % bps;
        rem * 1_000_000 / bps + secs * 1_000_000
    }

    /// When the next I/O of `dir` may start, µs since the epoch.
    pub fn next_io_us(&self, dir: Ddir) -> u64 {
        self.next_io_us[dir.index()]
    }

    /// The job slept `slept_us` in a think time after an I/O of `dir`.
    /// With `rate_ignore_thinktime` the rate counts the bytes it would
    /// have moved meanwhile, minus one block, so issuing resumes at once
    /// (fio's `handle_thinktime`).
    pub(crate) fn after_think(&mut self, dir: Ddir, slept_us: u64) {
        let d = dir.index();
        let bps = self.bps[d];
        if slept_us == 0 || bps == 0 || !self.ignore_think {
            return;
        }
        let missed = bps.wrapping_mul(slept_us) / 1_000_000;
        let bs = self.min_bs[d];
        let usperop = bs.wrapping_mul(1_000_000) / bps;
        let over = if usperop <= slept_us {
            bs
        } else {
            // fio: (usperop - total) / usperop * -bs, in unsigned math.
            ((usperop - slept_us) / usperop).wrapping_mul(bs.wrapping_neg())
        };
        self.issue_bytes[d] = self.issue_bytes[d].wrapping_add(missed.wrapping_sub(over));
        self.last_usec[d] += slept_us;
    }

    /// Back to fio's `__setup_rate` state. fio does this when the job
    /// starts and after the ramp time (`reset_io_counters(td, 1)`), not
    /// between loops.
    pub(crate) fn reset(&mut self) {
        self.next_io_us = [0; 3];
        self.issue_bytes = [0; 3];
        self.last_usec = [0; 3];
    }

    /// fio's `check_min_rate`, after an I/O completes outside the ramp
    /// time: `elapsed_ns` since the job started, `bytes`/`ios` completed
    /// per direction so far. `Err` when a minimum is not met.
    pub fn check_min(
        &mut self,
        elapsed_ns: u64,
        bytes: &[u64; 3],
        ios: &[u64; 3],
    ) -> Result<(), MinRateError> {
        let now_ms = elapsed_ns / 1_000_000;
        for d in 0..3 {
            if bytes[d] == 0 || (self.min_bytes[d] == 0 && self.min_iops[d] == 0) {
                continue;
            }
            // A 2 second settle period at the start.
            if now_ms < 2000 {
                continue;
            }
            if self.last_check_bytes[d] != 0 || self.last_check_ios[d] != 0 {
                let spent = now_ms - self.last_check_ms[d];
                if spent < self.cycle_ms || spent == 0 {
                    continue;
                }
                if self.min_bytes[d] > 0 {
                    let got = (bytes[d] - self.last_check_bytes[d]) * 1000 / spent;
                    if got < self.min_bytes[d] {
                        return Err(MinRateError::Bytes {
                            job: self.job.clone(),
                            min: self.min_bytes[d],
                            got,
                        });
                    }
                } else {
                    let got = (ios[d] - self.last_check_ios[d]) * 1000 / spent;
                    if got < self.min_iops[d] {
                        return Err(MinRateError::Iops {
                            job: self.job.clone(),
                            min: self.min_iops[d],
                            got,
                        });
                    }
                }
            }
            self.last_check_bytes[d] = bytes[d];
            self.last_check_ios[d] = ios[d];
            self.last_check_ms[d] = now_ms;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(args: &[&str]) -> JobSpec {
        let mut a = vec!["--name=r", "--ioengine=null", "--size=64k"];
        a.extend_from_slice(args);
        crate::plan::testing::job(&a)
    }

    #[test]
    fn the_refusal_in_fios_words() {
        assert_eq!(
            min_above_rate_message(1),
            "fio: minimum rate exceeds rate, ddir 1"
        );
    }

    /// The linear schedule: the I/O after `n` bytes may start `n / rate` s
    /// after the job's I/O began.
    #[test]
    fn linear_schedule() {
        let job = spec(&["--rate=1m", "--bs=4k"]);
        let mut r = RateLimiter::new(&job, &job.seeds).expect("a limiter");
        assert_eq!(r.bps(Ddir::Read), 1 << 20);
        let mut last = 0;
        for _ in 0..256 {
            last = r.delay_before(Ddir::Read, 4096, 0);
        }
        // 255 blocks of 4 KiB issued before the last one: 255 * 4096 / 2^20 s.
        assert_eq!(last, 255 * 4096 * 1_000_000 / (1 << 20) * 1000);
        assert_eq!(r.next_io_us(Ddir::Read), 1_000_000);
    }

    /// fio 3.42 with `rate_iops` and a `bssplit`: each I/O moves the next
    /// one `1 / iops` later, whatever its size; fio 3.33 counts the bytes
    /// at the split's smallest size.
    #[test]
    fn iops_with_a_split() {
        let args = ["--name=r", "--ioengine=null", "--size=64k"];
        let args = [&args[..], &["--rate_iops=200", "--bssplit=4k/50:64k/50"]].concat();
        for (release, after_two) in [("3.42", 10_000), ("3.33", 68 * 1_000_000 / 800)] {
            let job = crate::plan::testing::job_as(release, &args);
            let mut r = RateLimiter::new(&job, &job.seeds).expect("a limiter");
            r.issued(Ddir::Read, 4096);
            r.issued(Ddir::Read, 65536);
            // 3.33: 68 KiB at 200 * 4 KiB/s.
            assert_eq!(r.next_io_us(Ddir::Read), after_two, "{release}");
        }
    }
}
