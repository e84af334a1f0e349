//! The threshold after `steadystate=CRITERION:` (fio's
//! `str_steadystate_cb`): a percentage (`iops:10%`, `bw_slope:0.1%`), or an
//! absolute limit, IOPS as a float (`iops:500`) or bandwidth as a size in
//! bytes per second (`bw:12m`), latency (fio 3.42) as a time, which fio
//! keeps in microseconds and compares with nanoseconds.
//!
//! fio reads the number with `sscanf`/`strtoll` and ignores what follows
//! it (`iops:1k` is 1 IOPS there); rfio refuses such text.

use super::number::{invalid, lex_time_in, parse_signed_size};
use super::{ParseCtx, ValueError};

/// A steady-state threshold as fio keeps it: the limit, and whether it is
/// a percentage of the mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Threshold {
    pub(crate) pct: bool,
    pub(crate) limit: f64,
    /// A bandwidth limit in bytes per second (fio prints it as an integer).
    bw_bytes: Option<i64>,
    /// A latency limit (fio prints it as an integer, calling it nsec).
    lat: Option<i64>,
}

impl Threshold {
    /// fio's `parse` debug message for it (newline included).
    pub(crate) fn debug_message(&self) -> String {
        if let (false, Some(t)) = (self.pct, self.lat) {
            return format!("set steady state latency threshold to {t} nsec\n");
        }
        match (self.pct, self.bw_bytes) {
            (true, _) => format!("set steady state threshold to {:.6}%\n", self.limit),
            (false, Some(b)) => format!("set steady state BW threshold to {b}\n"),
            (false, None) => format!("set steady state IOPS threshold to {:.6}\n", self.limit),
        }
    }
}

/// The threshold `post` (the text after the `:`, blanks removed; `None`
/// when there is none) of criterion `criterion` (`iops`, `iops_slope`,
/// `bw`, `bw_slope`).
pub(crate) fn threshold(
    criterion: &str,
    post: Option<&str>,
    ctx: &ParseCtx,
) -> Result<Threshold, ValueError> {
    let Some(post) = post else {
        return Err(ValueError::Other(
            "steadystate threshold must be specified in addition to criterion".into(),
        ));
    };
    let float = |t: &str, what: &'static str| {
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .ok_or_else(|| invalid(post, what))
    };
    if let Some((num, rest)) = post.split_once('%') {
        if !rest.trim().is_empty() {
            return Err(invalid(post, "a threshold percentage (N%)"));
        }
        let limit = float(num, "a threshold percentage (N%)")?;
        return Ok(Threshold {
            pct: true,
            limit,
            bw_bytes: None,
            lat: None,
        });
    }
    if criterion.starts_with("lat") {
        let t = lex_time_in(crate::options::def::TimeUnit::Micros, post.trim())
            .ok()
            .and_then(|t| i64::try_from(t).ok())
            .ok_or_else(|| invalid(post, "a latency threshold (a time, or N%)"))?;
        return Ok(Threshold {
            pct: false,
            limit: t as f64,
            bw_bytes: None,
            lat: Some(t),
        });
    }
    if criterion.starts_with("iops") {
        let limit = float(post, "an IOPS threshold (a number, or N%)")?;
        return Ok(Threshold {
            pct: false,
            limit,
            bw_bytes: None,
            lat: None,
        });
    }
    let b = parse_signed_size(post.trim(), ctx)
        .map_err(|_| invalid(post, "a bandwidth threshold (bytes/s with k/m/g, or N%)"))?;
    Ok(Threshold {
        pct: false,
        limit: b as f64,
        bw_bytes: Some(b),
        lat: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(criterion: &str, post: &str) -> Result<Threshold, ValueError> {
        threshold(criterion, Some(post), &ParseCtx::default())
    }

    #[test]
    fn percentages_iops_and_bandwidths_read_as_fio() {
        let p = t("iops", "10%").unwrap();
        assert!(p.pct && p.limit == 10.0);
        assert_eq!(
            p.debug_message(),
            "set steady state threshold to 10.000000%\n"
        );
        let p = t("bw_slope", ".1%").unwrap();
        assert_eq!(
            p.debug_message(),
            "set steady state threshold to 0.100000%\n"
        );
        let i = t("iops_slope", "10").unwrap();
        assert!(!i.pct && i.limit == 10.0);
        assert_eq!(
            i.debug_message(),
            "set steady state IOPS threshold to 10.000000\n"
        );
        let b = t("bw", "12").unwrap();
        assert_eq!(b.debug_message(), "set steady state BW threshold to 12\n");
        let b = t("bw", "1k").unwrap();
        assert_eq!(b.limit, 1024.0);
        let b = threshold(
            "bw",
            Some("1k"),
            &ParseCtx {
                kb_base: 1000,
                ..ParseCtx::default()
            },
        )
        .unwrap();
        assert_eq!(b.limit, 1000.0);
    }

    #[test]
    fn bad_thresholds_are_refused() {
        let none = threshold("iops", None, &ParseCtx::default()).unwrap_err();
        assert_eq!(
            none.to_string(),
            "steadystate threshold must be specified in addition to criterion"
        );
        for (c, post) in [
            ("iops", "abc"),
            ("iops", "1k"),
            ("bw", "abc"),
            ("bw", "1x"),
            ("iops", "abc%"),
            ("bw", "10%x"),
            ("iops", "inf"),
        ] {
            assert!(t(c, post).is_err(), "{c}:{post}");
        }
    }
}
