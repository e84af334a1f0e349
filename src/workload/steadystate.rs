//! Steady-state detection (fio's `steadystate.c`): once a second a
//! monitor measures each job's IOPS and bandwidth since its last look; a
//! job keeps the last `ss_dur` measurements in a ring and stops (as if its
//! runtime were over) once their slope, or their largest deviation from
//! their mean, is under its limit. With `group_reporting` the members of a
//! group are measured together: the group's sums go into the ring of its
//! last member, and meeting the criterion stops them all.
//!
//! [`Detector`] is one job's ring and criterion (pure arithmetic, fio's to
//! the bit: unsigned sums that wrap, an integer mean in the percentage of
//! a slope); [`Monitor`] the once-a-second look at a group's running jobs
//! (`steadystate_check`), on its own thread beside them, which reads the
//! jobs' published counters ([`JobProgress`]) and raises their stop
//! requests. A job without `ss_dur` pays nothing for it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::error::RunError;
use super::progress::{JobProgress, JobState};
use super::stop::JobStops;
use crate::debug::{dprint, Cat};
use crate::plan::resolve::steadystate::SteadyStateOptions;
use crate::plan::spec::{JobSpec, Plan};
use crate::stats::SteadyStateReport;

/// One job's ring of measurements and its criterion (fio's
/// `steadystate_data`).
#[derive(Debug, Clone)]
pub(crate) struct Detector {
    o: SteadyStateOptions,
    /// Measurement is on: `ss_ramp` (plus a second) is over.
    ramp_over: bool,
    /// This job holds the ring (every job, but only the last member of a
    /// group with `group_reporting`).
    data: bool,
    buffer_full: bool,
    attained: bool,
    head: u32,
    tail: u32,
    iops_data: Vec<u64>,
    bw_data: Vec<u64>,
    lat_data: Vec<u64>,
    slope: f64,
    deviation: f64,
    criterion: f64,
    sum_y: u64,
    sum_x: u64,
    sum_x_sq: u64,
    sum_xy: u64,
    oldest_y: u64,
}

impl Detector {
    /// A job's detector, before its first measurement (`td_steadystate_init`).
    pub(crate) fn new(o: SteadyStateOptions) -> Detector {
        let d = o.intervals();
        Detector {
            o,
            ramp_over: o.ramp_us == 0,
            data: false,
            buffer_full: false,
            attained: false,
            head: 0,
            tail: 0,
            iops_data: Vec::new(),
            bw_data: Vec::new(),
            lat_data: Vec::new(),
            slope: 0.0,
            deviation: 0.0,
            criterion: 0.0,
            sum_y: 0,
            sum_x: d.wrapping_mul(d.wrapping_sub(1)) / 2,
            sum_x_sq: d
                .wrapping_sub(1)
                .wrapping_mul(d)
                .wrapping_mul(d.wrapping_mul(2).wrapping_sub(1))
                / 6,
            sum_xy: 0,
            oldest_y: 0,
        }
    }

    /// This job keeps the ring (`steadystate_alloc`).
    fn alloc(&mut self) {
        let n = self.o.intervals() as usize;
        self.bw_data = vec![0; n];
        self.iops_data = vec![0; n];
        self.lat_data = vec![0; n];
        self.data = true;
    }

    fn y(&self, i: usize) -> u64 {
        if self.o.iops {
            self.iops_data[i]
        } else if self.o.lat {
            self.lat_data[i]
        } else {
            self.bw_data[i]
        }
    }

    /// One measurement (the interval's IOPS, bandwidth and mean completion
    /// latency in ns); whether the criterion is met (the ring then keeps
    /// its place, else it moves on). The ring must be allocated.
    pub(crate) fn measure(&mut self, iops: u64, bw: u64, lat: u64) -> bool {
        let dur = self.o.intervals();
        let tail = self.tail as usize;
        self.bw_data[tail] = bw;
        self.iops_data[tail] = iops;
        self.lat_data[tail] = lat;
        let new_val = if self.o.iops {
            iops
        } else if self.o.lat {
            lat
        } else {
            bw
        };
        if self.buffer_full || u64::from(self.tail.wrapping_sub(self.head)) == dur.wrapping_sub(1) {
            let met = if self.o.slope {
                self.slope_step(new_val)
            } else {
                self.deviation_step()
            };
            if met {
                self.attained = true;
                return true;
            }
        }
        self.tail = ((u64::from(self.tail) + 1) % dur) as u32;
        if self.tail <= self.head {
            self.head = ((u64::from(self.head) + 1) % dur) as u32;
        }
        false
    }

    /// fio's `steadystate_slope` once the ring is full.
    fn slope_step(&mut self, new_val: u64) -> bool {
        let dur = self.o.intervals();
        let n = dur as usize;
        if !self.buffer_full {
            self.sum_y = 0;
            for i in 0..n {
                self.sum_y = self.sum_y.wrapping_add(self.y(i));
                let j = (self.head as usize + i) % n;
                self.sum_xy = self.sum_xy.wrapping_add((i as u64).wrapping_mul(self.y(j)));
            }
            self.buffer_full = true;
        } else {
            self.sum_y = self.sum_y.wrapping_sub(self.oldest_y).wrapping_add(new_val);
            self.sum_xy = self
                .sum_xy
                .wrapping_sub(self.sum_y)
                .wrapping_add(dur.wrapping_mul(new_val));
        }
        self.oldest_y = self.y(self.head as usize);
        // The x values are taken as equally spaced (fio's simplification).
        let (sx, d) = (self.sum_x as f64, dur as f64);
        self.slope = (self.sum_xy as f64 - sx * self.sum_y as f64 / d)
            / (self.sum_x_sq as f64 - sx * sx / d);
        self.criterion = if self.o.pct {
            100.0 * self.slope / (self.sum_y / dur) as f64
        } else {
            self.slope
        };
        dprint!(
            Cat::Steadystate,
            "sum_y: {}, sum_xy: {}, slope: {:.6}, criterion: {:.6}, limit: {:.6}\n",
            self.sum_y,
            self.sum_xy,
            self.slope,
            self.criterion,
            self.o.limit
        );
        self.criterion.abs() < self.o.limit
    }

    /// fio's `steadystate_deviation` once the ring is full.
    fn deviation_step(&mut self) -> bool {
        let n = self.o.intervals() as usize;
        if !self.buffer_full {
            self.sum_y = (0..n).fold(0u64, |s, i| s.wrapping_add(self.y(i)));
            self.buffer_full = true;
        } else {
            let newest = self.y(self.tail as usize);
            self.sum_y = self.sum_y.wrapping_sub(self.oldest_y).wrapping_add(newest);
        }
        self.oldest_y = self.y(self.head as usize);
        let mean = self.sum_y as f64 / n as f64;
        self.deviation = (0..n)
            .map(|i| (self.y(i) as f64 - mean).abs())
            .fold(0.0, f64::max);
        self.criterion = if self.o.pct {
            100.0 * self.deviation / mean
        } else {
            self.deviation
        };
        dprint!(
            Cat::Steadystate,
            "sum_y: {}, mean: {:.6}, max diff: {:.6}, objective: {:.6}, limit: {:.6}\n",
            self.sum_y,
            mean,
            self.deviation,
            self.criterion,
            self.o.limit
        );
        self.criterion < self.o.limit
    }

    /// What the outputs print of it.
    pub(crate) fn report(&self) -> SteadyStateReport {
        SteadyStateReport {
            iops: self.o.iops,
            lat: self.o.lat,
            slope: self.o.slope,
            pct: self.o.pct,
            limit: self.o.limit,
            duration: self.o.dur_s,
            attained: self.attained,
            buffer_full: self.buffer_full,
            head: self.head,
            slope_value: self.slope,
            deviation: self.deviation,
            criterion: self.criterion,
            bw_data: self.bw_data.clone(),
            iops_data: self.iops_data.clone(),
            lat_data: if self.o.lat {
                self.lat_data.clone()
            } else {
                Vec::new()
            },
        }
    }
}

/// fio refuses, as it adds job `i`, steady-state settings that differ from
/// those of an earlier job of its reporting group (a job without them
/// counts as all zero).
pub(crate) fn refusal(plan: &Plan, i: usize) -> Option<RunError> {
    let job = &plan.jobs[i];
    let key = SteadyStateOptions::group_key(job.steadystate.as_ref());
    let differs = plan.jobs[..i].iter().any(|o| {
        o.group_id == job.group_id && SteadyStateOptions::group_key(o.steadystate.as_ref()) != key
    });
    differs.then_some(RunError::SteadyStateDiffers)
}

/// A job the monitor measures.
struct Member<'a> {
    /// Index in the plan (and in the group's stops).
    index: usize,
    group_reporting: bool,
    progress: &'a JobProgress,
    det: Detector,
    /// The epoch the last measurement counted from (fio's `prev_time`,
    /// which starts at the job's epoch and again at the end of its ramp).
    epoch: Option<Instant>,
    prev_time: Instant,
    prev_iops: u64,
    prev_bytes: u64,
    /// The completion latencies summed (ns) and counted at the last look.
    prev_lat: (u64, u64),
}

/// The once-a-second look at one group's jobs with steady state.
pub(crate) struct Monitor<'a> {
    members: Vec<Member<'a>>,
    group: u32,
    /// How often it looks (fio's helper tick: `ss_interval`, one for
    /// the whole run).
    interval: Duration,
}

impl<'a> Monitor<'a> {
    /// The monitor of the jobs `members` (plan indices, in order) of one
    /// group; `None` when none of them measures (no `ss_dur` of a second
    /// or more). The ring goes to every job, or with `group_reporting`
    /// to the last such member (`steadystate_setup`).
    pub(crate) fn new(
        plan: &Plan,
        members: &[usize],
        jobs: &'a [std::sync::Arc<JobProgress>],
    ) -> Option<Monitor<'a>> {
        let mut out: Vec<Member<'a>> = Vec::new();
        let mut last_grouped = None;
        for &i in members {
            let spec: &JobSpec = &plan.jobs[i];
            let Some(o) = spec.steadystate.filter(|o| o.dur_s > 0) else {
                continue;
            };
            let mut det = Detector::new(o);
            if spec.group_reporting {
                last_grouped = Some(out.len());
            } else {
                det.alloc();
            }
            out.push(Member {
                index: i,
                group_reporting: spec.group_reporting,
                progress: &jobs[i],
                det,
                epoch: None,
                prev_time: Instant::now(),
                prev_iops: 0,
                prev_bytes: 0,
                prev_lat: (0, 0),
            });
        }
        if let Some(k) = last_grouped {
            out[k].det.alloc();
        }
        let group = members.first().map_or(0, |&i| plan.jobs[i].group_id);
        let interval = Duration::from_millis(out.first()?.det.o.interval_ms.max(1));
        Some(Monitor {
            members: out,
            group,
            interval,
        })
    }

    /// Look once an interval (on the beat of `origin`, when the run began:
    /// fio's helper thread) until `over`; the group's thread unparks this
    /// one when the group is over. Returns each measured job's report.
    pub(crate) fn run(
        mut self,
        origin: Instant,
        stops: &JobStops,
        over: &AtomicBool,
    ) -> Vec<(usize, SteadyStateReport)> {
        let every = self.interval;
        let beats = origin.elapsed().as_millis() / every.as_millis() + 1;
        let mut next = origin + every * beats as u32;
        loop {
            let now = Instant::now();
            if over.load(Ordering::Relaxed) {
                break;
            }
            if now < next {
                std::thread::park_timeout(next - now);
                continue;
            }
            self.check(now, stops);
            next += every;
        }
        self.members
            .iter()
            .map(|m| (m.index, m.det.report()))
            .collect()
    }

    /// fio's `steadystate_check` over the group's jobs at `now`.
    fn check(&mut self, now: Instant, stops: &JobStops) {
        let (mut group_bw, mut group_iops, mut ramp_over_count) = (0u64, 0u64, 0u32);
        let mut group_lat = (0u64, 0u64);
        let mut attained_group = false;
        for k in 0..self.members.len() {
            let m = &mut self.members[k];
            // fio looks at jobs past their setup and not exited, which
            // leaves out a job inside its `ramp_time` (`TD_RAMP` comes
            // before `TD_SETTING_UP`).
            let state = m.progress.state();
            if m.det.attained || state <= JobState::Ramp || state >= JobState::Exited {
                continue;
            }
            let Some(epoch) = m.progress.epoch() else {
                continue;
            };
            if !m.group_reporting {
                (group_bw, group_iops, ramp_over_count) = (0, 0, 0);
                group_lat = (0, 0);
            }
            if m.epoch != Some(epoch) {
                m.epoch = Some(epoch);
                m.prev_time = epoch;
            }
            if !m.det.ramp_over
                && now.saturating_duration_since(epoch).as_micros()
                    >= u128::from(m.det.o.ramp_us) + u128::from(m.det.o.interval_ms) * 1000
            {
                m.det.ramp_over = true;
            }
            let iops: u64 = m.progress.ios().iter().sum();
            let bytes: u64 = m.progress.bytes().iter().sum();
            let lat = m.progress.clat();
            let rate_ms = (now.saturating_duration_since(m.prev_time).as_millis() as u64).max(1);
            m.prev_time = now;
            if m.det.ramp_over {
                let o = &m.det.o;
                let rate = |n: u64, prev: u64| rate(o, rate_ms, n.wrapping_sub(prev));
                group_bw = group_bw.wrapping_add(rate(bytes, m.prev_bytes));
                group_iops = group_iops.wrapping_add(rate(iops, m.prev_iops));
                group_lat.0 = group_lat.0.wrapping_add(lat.0.wrapping_sub(m.prev_lat.0));
                group_lat.1 = group_lat.1.wrapping_add(lat.1.wrapping_sub(m.prev_lat.1));
                ramp_over_count += 1;
            }
            m.prev_iops = iops;
            m.prev_bytes = bytes;
            m.prev_lat = lat;
            if (m.group_reporting && !m.det.data) || ramp_over_count == 0 {
                continue;
            }
            dprint!(
                Cat::Steadystate,
                "steadystate_check() thread: {}, groupid: {}, rate_msec: {}, iops: {}, bw: {}, head: {}, tail: {}\n",
                m.index,
                self.group,
                rate_ms,
                group_iops,
                group_bw,
                m.det.head,
                m.det.tail
            );
            let mean_lat = match group_lat.1 {
                0 => 0,
                n => (group_lat.0 as f64 / n as f64) as u64,
            };
            if m.det.measure(group_iops, group_bw, mean_lat) {
                if m.group_reporting {
                    attained_group = true;
                } else {
                    m.det.attained = true;
                    stops.job(m.index).request();
                }
            }
        }
        if attained_group {
            // The group's criterion is met: every member of it stops.
            for m in &mut self.members {
                m.det.attained = true;
            }
            stops.request();
        }
    }
}

/// A measurement of `delta` (bytes or I/Os) over `rate_ms` since the
/// last: per second of that time (fio 3.33), or from fio 3.35 scaled by
/// that time over the interval squared (`rate_time * delta / (interval^2
/// / 1000)`), so a short first look counts short.
fn rate(o: &SteadyStateOptions, rate_ms: u64, delta: u64) -> u64 {
    if o.per_interval {
        let i = o.interval_ms;
        rate_ms.wrapping_mul(delta) / (i.wrapping_mul(i) / 1000).max(1)
    } else {
        delta.wrapping_mul(1000) / rate_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn det(iops: bool, slope: bool, pct: bool, limit: f64, dur_s: u64) -> Detector {
        let mut d = Detector::new(SteadyStateOptions {
            iops,
            slope,
            pct,
            limit,
            dur_s,
            ramp_us: 0,
            lat: false,
            interval_ms: 1000,
            per_interval: false,
        });
        d.alloc();
        d
    }

    /// The least-squares slope of `ys` at x = 0, 1, 2, ...
    fn slope_of(ys: &[f64]) -> f64 {
        let n = ys.len() as f64;
        let mx = (n - 1.0) / 2.0;
        let my = ys.iter().sum::<f64>() / n;
        let num: f64 = ys
            .iter()
            .enumerate()
            .map(|(x, y)| (x as f64 - mx) * (y - my))
            .sum();
        let den: f64 = (0..ys.len()).map(|x| (x as f64 - mx).powi(2)).sum();
        num / den
    }

    #[test]
    fn the_slope_is_the_least_squares_slope_of_the_last_window() {
        let mut d = det(true, true, false, 0.5, 4);
        let ys = [100u64, 130, 90, 160, 170, 150, 155, 154];
        for (k, &y) in ys.iter().enumerate() {
            let met = d.measure(y, y * 4096, 0);
            if k < 3 {
                assert!(!met && d.criterion == 0.0, "the ring is not full at {k}");
                continue;
            }
            let window: Vec<f64> = ys[k - 3..=k].iter().map(|&v| v as f64).collect();
            let want = slope_of(&window);
            assert!(
                (d.slope - want).abs() < 1e-9,
                "at {k}: {} vs {want}",
                d.slope
            );
            assert_eq!(met, want.abs() < 0.5, "at {k}");
            if met {
                break;
            }
        }
        // [150, 155, 154] after 170: slope -6.1 (not met); nothing settles.
        assert!(!d.attained);
    }

    #[test]
    fn a_slope_percentage_divides_by_the_integer_mean() {
        let mut d = det(false, true, true, 1.0, 3);
        for bw in [1000, 1010, 1021] {
            d.measure(0, bw, 0);
        }
        // Slope 10.5 over the integer mean 1010: 1.0396%, not under 1%.
        assert!((d.slope - 10.5).abs() < 1e-12);
        assert!((d.criterion - 100.0 * 10.5 / 1010.0).abs() < 1e-12);
        assert!(
            d.measure(0, 1021, 0),
            "[1010, 1021, 1021]: slope 5.5, 0.54%"
        );
        let r = d.report();
        assert_eq!(
            r.in_order().map(|p| p.0).collect::<Vec<_>>(),
            [1010, 1021, 1021]
        );
    }

    #[test]
    fn the_deviation_is_the_largest_distance_from_the_mean() {
        let mut d = det(true, false, false, 15.0, 3);
        assert!(!d.measure(100, 0, 0));
        assert!(!d.measure(120, 0, 0));
        // [100, 120, 140]: mean 120, largest deviation 20.
        assert!(!d.measure(140, 0, 0));
        assert_eq!((d.deviation, d.criterion), (20.0, 20.0));
        // [120, 140, 130]: mean 130, deviation 10 < 15.
        assert!(d.measure(130, 0, 0));
        assert_eq!(d.deviation, 10.0);
        let r = d.report();
        assert_eq!(
            r.in_order().map(|p| p.1).collect::<Vec<_>>(),
            [120, 140, 130]
        );
        assert_eq!(r.iops_mean(), 130);
        // As a percentage of the mean: [100, 111] deviates 5.5 from
        // 105.5 (5.21%), [111, 110] 0.5 from 110.5 (0.45%).
        let mut d = det(true, false, true, 5.0, 2);
        d.measure(100, 0, 0);
        assert!(!d.measure(111, 0, 0));
        assert!((d.criterion - 100.0 * 5.5 / 105.5).abs() < 1e-12);
        assert!(d.measure(110, 0, 0));
    }

    #[test]
    fn the_ring_order_survives_wrapping_when_not_met() {
        let mut d = det(true, false, false, 0.0, 3);
        for v in 1..=7 {
            assert!(!d.measure(v, v * 10, 0));
        }
        let r = d.report();
        assert!(r.buffer_full && !r.attained);
        assert_eq!(r.in_order().map(|p| p.1).collect::<Vec<_>>(), [5, 6, 7]);
        assert_eq!(r.in_order().map(|p| p.0).collect::<Vec<_>>(), [50, 60, 70]);
    }
}
