//! The few `printf` conversions fio's reports use, with glibc's spelling of
//! the values Rust spells differently (NaN and infinities).

/// `%.<prec>f` (and `%<width>.<prec>f` through [`fw`]).
pub(crate) fn f(v: f64, prec: usize) -> String {
    fw(v, 0, prec)
}

/// `%<width>.<prec>f`: right-aligned in `width` columns.
pub(crate) fn fw(v: f64, width: usize, prec: usize) -> String {
    if v.is_nan() {
        // fio's NaNs come from 0.0/0.0, which on x86 has the sign bit
        // set: glibc prints "-nan".
        return format!("{:>width$}", "-nan");
    }
    if v.is_infinite() {
        let s = if v < 0.0 { "-inf" } else { "inf" };
        return format!("{s:>width$}");
    }
    format!("{v:>width$.prec$}")
}

/// C's conversion of a double to `int` on x86-64 (`cvttsd2si`): truncation,
/// and `INT_MIN` for anything out of range (fio passes a bandwidth mean as
/// `int`, which overflows above 2 TiB/s).
pub(crate) fn to_c_int(v: f64) -> i32 {
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&v) {
        i32::MIN
    } else {
        v as i32
    }
}

/// A time in ns as fio 3.42's `scale_down_ns` prints it (`%.2f` and its
/// unit): s from 2 s, ms from 2 ms, us from 2 us, else ns.
pub(crate) fn scaled_ns(ns: u64) -> String {
    let (div, unit) = match ns {
        2_000_000_000.. => (1e9, "s"),
        2_000_000.. => (1e6, "ms"),
        2_000.. => (1e3, "us"),
        _ => (1.0, "ns"),
    };
    format!("{}{unit}", fw(ns as f64 / div, 0, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_glibc() {
        assert_eq!(f(0.125, 2), "0.12");
        assert_eq!(f(100.0, 6), "100.000000");
        assert_eq!(fw(1.5, 5, 2), " 1.50");
        assert_eq!(fw(f64::NAN, 0, 2), "-nan");
        assert_eq!(fw(f64::INFINITY, 0, 2), "inf");
        assert_eq!(to_c_int(3e9), i32::MIN);
        assert_eq!(to_c_int(-1.9), -1);
    }

    /// fio 3.42's latency-target line: `target=5.00ms, window=3.00s`,
    /// `0.00ns` when unset; 1999 ns stays ns, 2000 is `2.00us`.
    #[test]
    fn scaled_ns_picks_fios_unit() {
        assert_eq!(scaled_ns(0), "0.00ns");
        assert_eq!(scaled_ns(1_999), "1999.00ns");
        assert_eq!(scaled_ns(2_000), "2.00us");
        assert_eq!(scaled_ns(5_000_000), "5.00ms");
        assert_eq!(scaled_ns(3_000_000_000), "3.00s");
    }
}
