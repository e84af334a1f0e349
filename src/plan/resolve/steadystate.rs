//! `steadystate` (`ss`), `steadystate_duration` (`ss_dur`),
//! `steadystate_ramp_time` (`ss_ramp`), `steadystate_check_interval`
//! (`ss_interval`, fio 3.35): when a job stops because its IOPS, bandwidth
//! or (fio 3.42) latency have settled (fio's `str_steadystate_cb`,
//! `td_steadystate_init`, the checks of `fixup_options`).

use super::read::Opts;
use crate::options::value::steadystate::threshold;
use crate::options::Value;
use crate::release::{Change, Release};

/// A job's steady-state settings, in force when `ss_dur` is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SteadyStateOptions {
    /// The criterion measures IOPS (else bandwidth, or latency).
    pub(crate) iops: bool,
    /// The criterion measures the mean completion latency (fio 3.42's
    /// `lat`, `lat_slope`).
    pub(crate) lat: bool,
    /// The criterion is the slope of a least-squares line through the
    /// measurements (else their largest deviation from the mean).
    pub(crate) slope: bool,
    /// `limit` is a percentage of the mean.
    pub(crate) pct: bool,
    pub(crate) limit: f64,
    /// `ss_dur` in whole seconds: the measurements kept, one a second.
    /// fio drops the fraction, so `ss_dur=500ms` is 0: detection is then
    /// set up but never measures, and nothing is reported.
    pub(crate) dur_s: u64,
    /// `ss_ramp`, µs: measuring starts an interval after it.
    pub(crate) ramp_us: u64,
    /// `ss_interval` in ms: how often the job is measured (1000 before
    /// fio 3.35).
    pub(crate) interval_ms: u64,
    /// A measurement is the interval's count scaled by the time since the
    /// last over the interval squared (fio 3.35 on), else the count per
    /// second of that time.
    pub(crate) per_interval: bool,
}

impl SteadyStateOptions {
    /// What fio compares between the jobs of a reporting group, which
    /// must agree (`td_steadystate_init`): all zero for a job without
    /// steady state.
    pub(crate) fn group_key(this: Option<&SteadyStateOptions>) -> (u64, u64, u64, u8) {
        match this {
            None => (0, 0, 0, 0),
            Some(s) => (
                s.dur_s,
                s.limit.to_bits(),
                s.ramp_us,
                u8::from(s.iops)
                    | u8::from(s.slope) << 1
                    | u8::from(s.pct) << 2
                    | u8::from(s.lat) << 3,
            ),
        }
    }

    /// The measurements kept: `ss_dur` over the interval in whole seconds
    /// (fio's `intervals`, both truncated).
    pub(crate) fn intervals(&self) -> u64 {
        self.dur_s / (self.interval_ms / 1000).max(1)
    }
}

/// The job's steady-state settings as `release` reads them: `None`
/// without `ss_dur` (or with `ss_dur=0`). `steadystate` defaults to
/// `iops_slope:0.01%`. From fio 3.35, an interval under a second or an
/// `ss_dur` that is not a multiple of it (over it) is refused, in fio's
/// words.
pub(crate) fn resolve(
    o: Opts<'_>,
    release: Release,
    invalid: &mut Vec<String>,
) -> Option<SteadyStateOptions> {
    let dur_us = o.micros("steadystate_duration");
    if dur_us == 0 {
        return None;
    }
    let per_interval = release.has(Change::SteadyStateInterval);
    let interval_us = match o.value("steadystate_check_interval") {
        Some(Value::Micros(us)) => *us,
        _ => 1_000_000,
    };
    if per_interval {
        if interval_us < 1_000_000 {
            invalid.push("ss_check_interval must be at least 1s".into());
        }
        if interval_us == 0 || dur_us % interval_us != 0 || dur_us <= interval_us {
            invalid.push(format!(
                "ss_duration {dur_us}us must be multiple of ss_check_interval {interval_us}us"
            ));
        }
    }
    // The option was checked when it was read (`options::value`).
    let (criterion, slope, t) = match (o.choice("steadystate"), o.value("steadystate")) {
        (Some(c), Some(Value::Choice { modifier, .. })) => (
            c,
            c.ends_with("_slope"),
            threshold(c, modifier.as_deref(), &o.0.parse_ctx()).ok()?,
        ),
        _ => (
            "iops_slope",
            true,
            threshold("iops_slope", Some("0.01%"), &o.0.parse_ctx()).ok()?,
        ),
    };
    Some(SteadyStateOptions {
        iops: criterion.starts_with("iops"),
        lat: criterion.starts_with("lat"),
        slope,
        pct: t.pct,
        limit: t.limit,
        dur_s: dur_us / 1_000_000,
        ramp_us: o.micros("steadystate_ramp_time"),
        interval_ms: if per_interval {
            interval_us / 1000
        } else {
            1000
        },
        per_interval,
    })
}

#[cfg(test)]
mod tests {
    use crate::plan::testing::job;

    #[test]
    fn the_criterion_the_limit_and_the_times_resolve() {
        let j = job(&[
            "--name=a",
            "--ss_dur=10s",
            "--ss=bw_slope:0.1%",
            "--ss_ramp=5",
        ]);
        let s = j.steadystate.expect("on");
        assert!(!s.iops && s.slope && s.pct);
        assert_eq!((s.limit, s.dur_s, s.ramp_us), (0.1, 10, 5_000_000));
        let s = job(&["--name=a", "--ss_dur=2500ms", "--ss=iops:300"])
            .steadystate
            .unwrap();
        assert!(s.iops && !s.slope && !s.pct);
        assert_eq!((s.limit, s.dur_s, s.ramp_us), (300.0, 2, 0));
    }

    #[test]
    fn without_a_duration_there_is_none_and_the_default_is_iops_slope() {
        assert!(job(&["--name=a", "--ss=iops:5"]).steadystate.is_none());
        assert!(job(&["--name=a", "--ss_dur=0"]).steadystate.is_none());
        let s = job(&["--name=a", "--ss_dur=3"]).steadystate.unwrap();
        assert!(s.iops && s.slope && s.pct);
        assert_eq!((s.limit, s.dur_s), (0.01, 3));
        // Under a second: set up, never measured.
        assert_eq!(
            job(&["--name=a", "--ss_dur=500ms"])
                .steadystate
                .unwrap()
                .dur_s,
            0
        );
    }
}
