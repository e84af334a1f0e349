//! Axes: their range and scale, how their ticks read, and the units fio
//! prints values in (IOPS; KiB/s, MiB/s, GiB/s; nsec, usec, msec;
//! seconds). Where the ticks go is plotters' (see [`super::render`]).

/// How values are placed along an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Evenly.
    Linear,
    /// A log scale (latencies, in the page's unit), ticks at the powers
    /// of ten.
    Log,
    /// Percentiles as [`nines`] values, placed evenly (0, 90, 99, 99.9,
    /// ... equally apart), ticks at whole nines.
    Nines,
}

/// One axis of a chart: values between `min` and `max`, in the chart's
/// coordinates (ns on a [`Scale::LogNs`] axis, [`nines`] on a
/// [`Scale::Nines`] one).
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub label: String,
    pub min: f64,
    pub max: f64,
    pub scale: Scale,
}

impl Axis {
    /// A linear axis covering `lo..=hi` (one unit wide if empty).
    pub fn linear(label: impl Into<String>, lo: f64, hi: f64) -> Axis {
        let hi = if hi > lo { hi } else { lo + lo.abs().max(1.0) };
        Axis {
            label: label.into(),
            min: lo,
            max: hi,
            scale: Scale::Linear,
        }
    }

    /// A log axis from `lo` to `hi` (both above 0; a latency in its
    /// unit), widened to powers of ten (a point or bar on a power of ten
    /// stays off the frame). `floor`: the least value it may start at (1
    /// ns in the axis's unit: nothing lasts less).
    pub fn log(label: impl Into<String>, lo: f64, hi: f64, floor: f64) -> Axis {
        let floor = floor.max(f64::MIN_POSITIVE);
        let lo = (lo.max(floor).log10() - 0.1)
            .floor()
            .max(floor.log10().floor());
        let mut hi = (hi.max(floor).log10() + 0.1).ceil();
        if hi <= lo {
            hi = lo + 1.0;
        }
        Axis {
            label: label.into(),
            min: 10f64.powf(lo),
            max: 10f64.powf(hi),
            scale: Scale::Log,
        }
    }

    /// A percentile axis from 0 up to the whole nines at or above `hi`
    /// (a [`nines`] value).
    pub fn nines(label: impl Into<String>, hi: f64) -> Axis {
        Axis {
            label: label.into(),
            min: 0.0,
            max: hi.ceil().max(1.0),
            scale: Scale::Nines,
        }
    }

    /// Where a log or percentile axis has its ticks (plotters picks them
    /// on a linear one): the powers of ten, or the whole nines.
    pub fn key_points(&self) -> Vec<f64> {
        let (lo, hi, f): (i32, i32, fn(i32) -> f64) = match self.scale {
            Scale::Linear => return Vec::new(),
            Scale::Log => (
                self.min.log10().round() as i32,
                self.max.log10().round() as i32,
                |e| 10f64.powi(e),
            ),
            Scale::Nines => (0, self.max as i32, f64::from),
        };
        (lo..=hi).map(f).collect()
    }

    /// How a tick at `v` reads.
    pub fn tick_label(&self, v: f64) -> String {
        match self.scale {
            Scale::Linear => trim_float(format!("{v:.3}")),
            // Powers of ten: as many decimals as a fraction needs.
            Scale::Log => {
                let places = (-v.log10().round()).max(0.0) as usize;
                trim_float(format!("{v:.places$}"))
            }
            Scale::Nines => {
                let k = v.round() as i32;
                let p = 100.0 * (1.0 - 10f64.powi(-k));
                trim_float(format!("{p:.*}", k.max(1) as usize))
            }
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

/// `12.500` → `12.5`, `90.000` → `90`, `-0.000` → `0`.
fn trim_float(s: String) -> String {
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_read_as_numbers() {
        let a = Axis::linear("IOPS", 0.0, 9321.0);
        assert_eq!((a.min, a.max, a.scale), (0.0, 9321.0, Scale::Linear));
        assert_eq!(a.tick_label(2000.0), "2000");
        assert_eq!(a.tick_label(0.30000000000000004), "0.3");
        assert_eq!(a.tick_label(-0.0), "0");
        let flat = Axis::linear("x", 0.0, 0.0);
        assert_eq!((flat.min, flat.max), (0.0, 1.0));
    }

    #[test]
    fn log_and_nines_axes() {
        // 0.8 to 2000 usec.
        let a = Axis::log("clat (usec)", 0.8, 2_000.0, 1e-3);
        assert_eq!((a.min, a.max), (0.1, 10_000.0));
        let labels: Vec<String> = a.key_points().iter().map(|&v| a.tick_label(v)).collect();
        assert_eq!(labels, ["0.1", "1", "10", "100", "1000", "10000"]);
        // Never below 1 ns.
        let a = Axis::log("clat (usec)", 0.0, 0.5, 1e-3);
        assert_eq!((a.min, a.max), (0.001, 1.0));
        assert_eq!(a.tick_label(0.001), "0.001");
        let n = Axis::nines("percentile", nines(99.99));
        let labels: Vec<String> = n.key_points().iter().map(|&v| n.tick_label(v)).collect();
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
