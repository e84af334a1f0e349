//! Judging values: what each value means ([`Role`]), and the [`Judge`] that compares fio's and
//! rfio's value by that meaning (exact, a count, a rate or runtime within the file's tolerance,
//! plausible) and collects the differences of one cell. Used by every part of the `run` check
//! (jsoncmp.rs, terse.rs, logs.rs) and by the `pipelines` check.

use crate::show::fmt_number;
use crate::spec::{RunSpec, TimingKey};
use crate::verdict::Difference;

/// Rates (IOPS, bandwidth) and runtimes are compared within the tolerance only where both runs
/// of that direction lasted at least this long: below it fio's millisecond runtimes make the
/// quotients meaningless (a 0 ms run reports 0 IOPS).
pub(crate) const MIN_RATE_RUNTIME_MS: f64 = 100.0;

/// What a value means, which decides how it is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Deterministic: job names, group ids, errors, options, versions. Equal.
    Exact,
    /// An I/O count or byte count: equal for size-bound jobs, within the tolerance for `timed`
    /// jobs, only plausible per direction for `mixed` jobs.
    Count,
    /// Bandwidth ([`TimingKey::Bw`]) or IOPS ([`TimingKey::Iops`]): plausible; within its
    /// tolerance where both runtimes are long enough.
    Rate(TimingKey),
    /// The mean of the bandwidth or IOPS samples: plausible; within the `samples` tolerance,
    /// where the header sets one and both runtimes are long enough.
    SampleMean,
    /// A runtime in ms: plausible; within the tolerance where both are long enough.
    Runtime,
    /// A percentage: between 0 and 100.
    Percent,
    /// Any other timing figure (latencies, sample statistics, CPU, faults): non-negative.
    Plausible,
    /// Only the type is compared (timestamps).
    Any,
}

/// Collects the differences of one cell, applying the [`Role`] rules.
pub(crate) struct Judge<'a> {
    pub(crate) spec: &'a RunSpec,
    pub(crate) found: Vec<Difference>,
}

impl<'a> Judge<'a> {
    pub(crate) fn new(spec: &'a RunSpec) -> Judge<'a> {
        Judge {
            spec,
            found: Vec::new(),
        }
    }

    pub(crate) fn push(
        &mut self,
        kind: &'static str,
        place: impl Into<String>,
        fio: impl Into<String>,
        rfio: impl Into<String>,
        rule: impl Into<String>,
    ) {
        self.found
            .push(Difference::mismatch(kind, place, fio, rfio, rule));
    }

    /// Compares two numbers (`fio_text`, `rfio_text` as printed) of `role`. `runtimes` are the
    /// runtimes in ms of the direction the numbers belong to, for [`Role::Rate`]. `kinds` names
    /// the mismatch kinds for an inexact value and for an implausible one.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn numbers(
        &mut self,
        kinds: (&'static str, &'static str),
        place: &str,
        role: Role,
        (fio, rfio): (f64, f64),
        (fio_text, rfio_text): (&str, &str),
        runtimes: Option<(f64, f64)>,
    ) {
        let (value_kind, plausible_kind) = kinds;
        let tolerances = self.spec.tolerance;
        match role {
            Role::Any => {}
            Role::Exact => {
                if fio_text != rfio_text {
                    self.push(value_kind, place, fio_text, rfio_text, "exact");
                }
            }
            Role::Count if !self.spec.timed && !self.spec.mixed => {
                if fio != rfio {
                    self.push(
                        value_kind,
                        place,
                        fio_text,
                        rfio_text,
                        "exact (size-bound job)",
                    );
                }
            }
            Role::Count if self.spec.timed => {
                if let Err(why) = within(fio, rfio, tolerances.counts) {
                    self.push(plausible_kind, place, fio_text, rfio_text, why);
                }
            }
            Role::Count | Role::Plausible => self.plausible(plausible_kind, place, fio, rfio, None),
            Role::Percent => self.plausible(plausible_kind, place, fio, rfio, Some(100.0)),
            Role::Rate(_) | Role::Runtime | Role::SampleMean => {
                self.plausible(plausible_kind, place, fio, rfio, None);
                let (key, runtimes) = match role {
                    Role::Rate(key) => (key, runtimes),
                    Role::SampleMean => (TimingKey::Samples, runtimes),
                    _ => (TimingKey::Runtime, Some((fio, rfio))),
                };
                let long = runtimes
                    .is_some_and(|(f, r)| f >= MIN_RATE_RUNTIME_MS && r >= MIN_RATE_RUNTIME_MS);
                if let (true, Some(tolerance)) = (long, tolerances.get(key)) {
                    if let Err(why) = within(fio, rfio, tolerance) {
                        let why = format!("{} {why}", key.name());
                        self.push(plausible_kind, place, fio_text, rfio_text, why);
                    }
                }
            }
        }
    }

    /// rfio's value must be finite, non-negative and at most `max`, wherever fio's is (a value
    /// fio itself gets wrong is not held against rfio).
    fn plausible(
        &mut self,
        kind: &'static str,
        place: &str,
        fio: f64,
        rfio: f64,
        max: Option<f64>,
    ) {
        let ok = |x: f64| x.is_finite() && x >= 0.0 && max.is_none_or(|max| x <= max + 1e-6);
        if ok(fio) && !ok(rfio) {
            let rule = match max {
                Some(max) => format!("plausible: finite, 0 to {max}"),
                None => "plausible: finite, non-negative".to_owned(),
            };
            self.push(kind, place, fmt_number(fio), fmt_number(rfio), rule);
        }
    }
}

/// Whether `a` and `b` are within a factor `tolerance` of each other; the error explains why not.
pub(crate) fn within(a: f64, b: f64, tolerance: f64) -> Result<(), String> {
    if a == b {
        return Ok(());
    }
    if a <= 0.0 || b <= 0.0 || !a.is_finite() || !b.is_finite() {
        return Err(format!(
            "within {} (one is zero or not finite)",
            fmt_tolerance(tolerance)
        ));
    }
    let ratio = a.max(b) / a.min(b);
    if ratio > tolerance {
        let shown = if tolerance < 2.0 {
            format!("{:+.1}%", (b / a - 1.0) * 100.0)
        } else {
            format!("ratio {ratio:.2}")
        };
        return Err(format!("within {} ({shown})", fmt_tolerance(tolerance)));
    }
    Ok(())
}

/// A tolerance as people read it: `10x`, `2.5x`; below 2 as a percentage (`5%`).
pub(crate) fn fmt_tolerance(tolerance: f64) -> String {
    if tolerance < 2.0 {
        format!("{}%", fmt_number(((tolerance - 1.0) * 1e6).round() / 1e4))
    } else {
        format!("{}x", fmt_number(tolerance))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Tolerances;

    #[test]
    fn ratios() {
        assert!(within(0.0, 0.0, 10.0).is_ok());
        assert!(within(100.0, 999.0, 10.0).is_ok());
        assert_eq!(
            within(100.0, 1500.0, 10.0).unwrap_err(),
            "within 10x (ratio 15.00)"
        );
        assert!(within(0.0, 3.0, 10.0).unwrap_err().contains("zero"));
        assert_eq!(
            within(3.0, 1.0, 2.5).unwrap_err(),
            "within 2.5x (ratio 3.00)"
        );
    }

    fn judged(
        spec: &RunSpec,
        role: Role,
        fio: f64,
        rfio: f64,
        runtimes: Option<(f64, f64)>,
    ) -> Vec<String> {
        let mut judge = Judge::new(spec);
        let (f, r) = (fmt_number(fio), fmt_number(rfio));
        judge.numbers(("v", "p"), "x", role, (fio, rfio), (&f, &r), runtimes);
        judge
            .found
            .iter()
            .map(|d| match d {
                Difference::Mismatch(m) => format!("{}: {}", m.kind, m.rule),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn roles() {
        let exact = RunSpec::default();
        let timed = RunSpec {
            timed: true,
            ..RunSpec::default()
        };
        let mixed = RunSpec {
            mixed: true,
            ..RunSpec::default()
        };
        assert_eq!(
            judged(&exact, Role::Count, 4.0, 5.0, None),
            ["v: exact (size-bound job)"]
        );
        assert!(judged(&timed, Role::Count, 400.0, 500.0, None).is_empty());
        assert_eq!(
            judged(&timed, Role::Count, 4.0, 50.0, None),
            ["p: within 10x (ratio 12.50)"]
        );
        assert!(judged(&mixed, Role::Count, 4.0, 50.0, None).is_empty());
        assert_eq!(
            judged(&mixed, Role::Count, 4.0, -1.0, None),
            ["p: plausible: finite, non-negative"]
        );
        // Rates: only where both runtimes are long enough.
        let iops = Role::Rate(TimingKey::Iops);
        assert!(judged(&exact, iops, 1.0, 1000.0, Some((5.0, 500.0))).is_empty());
        assert_eq!(
            judged(&exact, iops, 1.0, 1000.0, Some((500.0, 500.0))),
            ["p: iops within 10x (ratio 1000.00)"]
        );
        // Per-key tolerances: IOPS within 5%, bandwidth within the default.
        let tight = RunSpec {
            tolerance: Tolerances {
                iops: 1.05,
                ..Tolerances::default()
            },
            ..RunSpec::default()
        };
        assert!(judged(&tight, iops, 1000.0, 1040.0, Some((500.0, 500.0))).is_empty());
        assert_eq!(
            judged(&tight, iops, 1000.0, 1060.0, Some((500.0, 500.0))),
            ["p: iops within 5% (+6.0%)"]
        );
        let bw = Role::Rate(TimingKey::Bw);
        assert!(judged(&tight, bw, 1000.0, 1060.0, Some((500.0, 500.0))).is_empty());
        // Sample means only where the header sets a tolerance for them.
        assert!(judged(&exact, Role::SampleMean, 1.0, 9.0, Some((500.0, 500.0))).is_empty());
        let samples = RunSpec {
            tolerance: Tolerances::all(1.1),
            ..RunSpec::default()
        };
        assert_eq!(
            judged(&samples, Role::SampleMean, 100.0, 0.0, Some((500.0, 500.0))),
            ["p: samples within 10% (one is zero or not finite)"]
        );
        assert!(judged(&exact, Role::Runtime, 1.0, 90.0, None).is_empty());
        assert_eq!(judged(&exact, Role::Runtime, 100.0, 2000.0, None).len(), 1);
        assert_eq!(
            judged(&exact, Role::Percent, 50.0, 100.5, None),
            ["p: plausible: finite, 0 to 100"]
        );
        // A value fio itself gets wrong is not held against rfio.
        assert!(judged(&exact, Role::Percent, -5.0, -3.0, None).is_empty());
        assert!(judged(&exact, Role::Any, 1.0, 2.0, None).is_empty());
    }
}
