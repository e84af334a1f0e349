//! Axes: their range, ticks and labels, and the units fio prints values
//! in (IOPS; KiB/s, MiB/s, GiB/s; nsec, usec, msec; seconds).

/// One axis of a chart: values between `min` and `max` (already in the
/// chart's coordinates), with labelled ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub label: String,
    pub min: f64,
    pub max: f64,
    pub ticks: Vec<(f64, String)>,
}

impl Axis {
    /// A linear axis covering `lo..=hi`, widened to round ticks (about
    /// five of them).
    pub fn linear(label: impl Into<String>, lo: f64, hi: f64) -> Axis {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo, lo + lo.abs().max(1.0))
        };
        let step = nice_step((hi - lo) / 5.0);
        let min = (lo / step).floor() * step;
        let max = (hi / step).ceil() * step;
        let n = ((max - min) / step).round() as usize;
        let ticks = (0..=n)
            .map(|i| {
                let v = min + i as f64 * step;
                (v, fmt_tick(v, step))
            })
            .collect();
        Axis {
            label: label.into(),
            min,
            max,
            ticks,
        }
    }

    /// A log axis of latencies: values are `log10(ns)`, ticks at the
    /// powers of ten, labelled `1us`, `10us`, ...
    pub fn log_ns(label: impl Into<String>, lo_ns: f64, hi_ns: f64) -> Axis {
        // A bar on an exact power of ten stays off the frame.
        let min = (lo_ns.max(1.0).log10() - 0.1).floor().max(0.0);
        let mut max = (hi_ns.max(1.0).log10() + 0.1).ceil();
        if max <= min {
            max = min + 1.0;
        }
        let ticks = (min as i32..=max as i32)
            .map(|e| (f64::from(e), fmt_ns(10f64.powi(e))))
            .collect();
        Axis {
            label: label.into(),
            min,
            max,
            ticks,
        }
    }

    /// A percentile axis stretched towards 100: values are [`nines`],
    /// ticks at 0, 90, 99, 99.9, ...
    pub fn nines(label: impl Into<String>, hi: f64) -> Axis {
        let max = hi.ceil().max(1.0);
        let ticks = (0..=max as i32)
            .map(|k| {
                let p = 100.0 * (1.0 - 10f64.powi(-k));
                (
                    f64::from(k),
                    trim_float(format!("{p:.*}", k.max(1) as usize)),
                )
            })
            .collect();
        Axis {
            label: label.into(),
            min: 0.0,
            max,
            ticks,
        }
    }
}

/// A percentile's place on a [`Axis::nines`] axis: `-log10(1 - p/100)`
/// (90 → 1, 99 → 2, 99.9 → 3).
pub fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).max(1e-9).log10()
}

/// The unit fio would print latencies up to `max_ns` in, and its size in ns.
pub fn lat_unit(max_ns: f64) -> (&'static str, f64) {
    if max_ns >= 10_000_000.0 {
        ("msec", 1e6)
    } else if max_ns >= 10_000.0 {
        ("usec", 1e3)
    } else {
        ("nsec", 1.0)
    }
}

/// The unit for bandwidths up to `max_kib` KiB/s, and its size in KiB/s.
pub fn bw_unit(max_kib: f64) -> (&'static str, f64) {
    if max_kib >= 10.0 * 1024.0 * 1024.0 {
        ("GiB/s", 1024.0 * 1024.0)
    } else if max_kib >= 10.0 * 1024.0 {
        ("MiB/s", 1024.0)
    } else {
        ("KiB/s", 1.0)
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let raw = if raw > 0.0 && raw.is_finite() {
        raw
    } else {
        1.0
    };
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// A tick value with as many decimals as the step needs.
fn fmt_tick(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10()).ceil() as usize
    };
    let v = if v.abs() < step * 1e-6 { 0.0 } else { v };
    format!("{v:.decimals$}")
}

/// `12.50` → `12.5`, `90.0` → `90`.
fn trim_float(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A power of ten of ns as a short duration: `100ns`, `1us`, `10ms`, `1s`.
fn fmt_ns(ns: f64) -> String {
    let (unit, size) = if ns >= 1e9 {
        ("s", 1e9)
    } else if ns >= 1e6 {
        ("ms", 1e6)
    } else if ns >= 1e3 {
        ("us", 1e3)
    } else {
        ("ns", 1.0)
    };
    format!("{}{unit}", (ns / size).round())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round() {
        let a = Axis::linear("IOPS", 0.0, 9321.0);
        assert_eq!((a.min, a.max), (0.0, 10000.0));
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0", "2000", "4000", "6000", "8000", "10000"]);
        let b = Axis::linear("s", 0.1, 1.93);
        assert_eq!(b.ticks.first().unwrap().1, "0.0");
        assert_eq!(b.ticks.last().unwrap().1, "2.0");
        let flat = Axis::linear("x", 0.0, 0.0);
        assert_eq!((flat.min, flat.max), (0.0, 1.0));
    }

    #[test]
    fn log_and_nines_axes() {
        let a = Axis::log_ns("latency", 800.0, 2_000_000.0);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["100ns", "1us", "10us", "100us", "1ms", "10ms"]);
        let n = Axis::nines("percentile", nines(99.99));
        let labels: Vec<&str> = n.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0", "90", "99", "99.9", "99.99"]);
        assert!((nines(99.0) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn units_scale_as_fio_prints_them() {
        assert_eq!(lat_unit(9_999.0), ("nsec", 1.0));
        assert_eq!(lat_unit(250_000.0), ("usec", 1e3));
        assert_eq!(lat_unit(20e6), ("msec", 1e6));
        assert_eq!(bw_unit(2000.0), ("KiB/s", 1.0));
        assert_eq!(bw_unit(500_000.0), ("MiB/s", 1024.0));
        assert_eq!(bw_unit(20e6), ("GiB/s", 1048576.0));
    }
}
