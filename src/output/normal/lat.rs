//! The latency lines of an entry's block: `display_lat`'s min/max/avg
//! lines, `show_clat_percentiles`' tables and the `lat (nsec/usec/msec)`
//! classes.

use std::io::{self, Write};

use crate::output::cfmt::fw;
use crate::output::num2str::{num2str, Unit};
use crate::stats::dist::lat_pct;
use crate::stats::summary::Entry;
use crate::stats::{LatHist, LatSummary};

/// Labels of the latency classes (exclusive upper bounds).
const LAT_LABELS: [&str; 12] = [
    "2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000=", "2000=", ">=2000=",
];

/// A `display_lat` line: unit chosen from min/max/stdev, min/max integer
/// divided, avg/stdev float divided.
pub(super) fn lat_line(name: &str, s: &LatSummary) -> String {
    let (unit, div) = if s.min > 2_000_000 && s.max > 99_999_999 && s.stddev > 1_000_000.0 {
        ("msec", 1_000_000u64)
    } else if s.min > 2000 && s.max > 99_999 && s.stddev > 1000.0 {
        ("usec", 1000)
    } else {
        ("nsec", 1)
    };
    format!(
        "{name} ({unit}): min={}, max={}, avg={}, stdev={}\n",
        num2str(s.min / div, 6, false, Unit::None),
        num2str(s.max / div, 6, false, Unit::None),
        fw(s.mean / div as f64, 5, 2),
        fw(s.stddev / div as f64, 5, 2)
    )
}

/// `show_clat_percentiles`: a table of the percentiles of `hist`.
pub(super) fn percentiles(
    out: &mut dyn Write,
    e: &Entry,
    pre: &str,
    hist: Option<&LatHist>,
    s: Option<LatSummary>,
) -> io::Result<()> {
    let (Some(hist), Some(s)) = (hist, s) else {
        return Ok(());
    };
    let list = &e.cfg.percentiles.list;
    let vals = hist.percentiles(list, s.min, s.max);
    if vals.is_empty() {
        return Ok(());
    }
    let minv = *vals.iter().min().unwrap_or(&0);
    let maxv = *vals.iter().max().unwrap_or(&0);
    let (unit, scale, divisor) = if minv > 2_000_000 && maxv > 99_999_999 {
        ("msec", 2, 1_000_000u64)
    } else if minv > 2000 && maxv > 99_999 {
        ("usec", 1, 1000)
    } else {
        ("nsec", 0, 1)
    };
    write!(out, "    {pre} percentiles ({unit}):\n     |")?;
    let prec = e.cfg.percentiles.precision;
    let q = maxv / divisor;
    let width = if q == 0 {
        5
    } else {
        5.max(q.ilog10() as usize + 1)
    };
    let per_line = (73 / (prec + 10 + width)).max(1);
    let last = vals.len() - 1;
    for (j, (p, v)) in list.iter().zip(&vals).enumerate() {
        if j != 0 && j % per_line == 0 {
            out.write_all(b"     |")?;
        }
        let mut v = *v;
        for _ in 0..scale {
            v = v.div_ceil(1000);
        }
        write!(
            out,
            " {}th=[{v:>width$}]{}",
            fw(*p, prec + 3, prec),
            if j == last { '\n' } else { ',' }
        )?;
        if j == last {
            break;
        }
        if j % per_line == per_line - 1 {
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// The `lat (nsec/usec/msec)` lines: completion latencies by class.
pub(super) fn lat_buckets(out: &mut dyn Write, e: &Entry) -> io::Result<()> {
    let total = e.total_ios();
    let b = &e.lat_buckets;
    for (unit, map) in [("nsec", &b.n[..]), ("usec", &b.u[..]), ("msec", &b.m[..])] {
        let pct = lat_pct(map, total);
        let mut in_line = 0;
        let mut shown = false;
        for (i, v) in pct.iter().enumerate() {
            if *v <= 0.0 {
                continue;
            }
            if in_line == 0 {
                if shown {
                    out.write_all(b"\n")?;
                }
                write!(out, "  lat ({unit})   : ")?;
            } else {
                out.write_all(b", ")?;
            }
            shown = true;
            write!(out, "{}{}%", LAT_LABELS[i], fw(*v, 3, 2))?;
            in_line = (in_line + 1) % 5;
        }
        if shown {
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
