//! rfio's flags beyond fio that change a run: `--repeat=N`,
//! `--baseline-save=FILE`, `--baseline-compare=FILE`,
//! `--baseline-threshold=PCT`, `--baseline-metrics=LIST`, checked once the
//! reading mode is known.
//! Called as `fio` (or with `--compat=fio`) they are refused as fio 3.33
//! refuses an option it does not know.

use std::path::PathBuf;

use super::Error;
use crate::jobfile::Mode;
use crate::stats::verdict::Metric;

/// The flags, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Beyond {
    /// How many times the jobs run (1: a plain run).
    pub(crate) repeat: u32,
    pub(crate) save: Option<PathBuf>,
    pub(crate) compare: Option<PathBuf>,
    /// The change, in percent, past which a metric counts as better or
    /// worse (default 10).
    pub(crate) threshold_pct: f64,
    /// The metrics that decide the exit status (`--baseline-metrics`).
    pub(crate) metrics: Vec<Metric>,
}

/// The default `--baseline-threshold`, percent.
pub(crate) const DEFAULT_THRESHOLD_PCT: f64 = 10.0;

/// The default `--baseline-metrics`: IOPS, bandwidth and the 99th
/// percentile of the completion latency.
pub(crate) const DEFAULT_METRICS: &str = "iops,bw,p99";

/// `--baseline-metrics=iops,bw,mean,p99,p99.9`: each name once, in the
/// order given; `Err` names the first that is no metric.
pub(crate) fn metrics(text: &str) -> Result<Vec<Metric>, Error> {
    let mut out: Vec<Metric> = Vec::new();
    for name in text.split(',').map(str::trim) {
        let m = match name {
            "iops" => Metric::Iops,
            "bw" => Metric::Bw,
            "mean" => Metric::ClatMean,
            p => match p.strip_prefix('p').map(str::parse::<f64>) {
                Some(Ok(v)) if v > 0.0 && v <= 100.0 => Metric::ClatPercentile(v),
                _ => {
                    return Err(Error::Metrics {
                        text: text.to_string(),
                        bad: name.to_string(),
                    })
                }
            },
        };
        if !out.iter().any(|o| o.same(m)) {
            out.push(m);
        }
    }
    Ok(out)
}

/// The flags as written (`cli::args` reads them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Written<'a> {
    /// How the command line is read (fio's mode refuses every flag).
    pub(crate) mode: Mode,
    /// The arguments that gave one of the flags, as written.
    pub(crate) beyond_fio: &'a [String],
    pub(crate) repeat: Option<&'a str>,
    pub(crate) baseline_save: Option<&'a PathBuf>,
    pub(crate) baseline_compare: Option<&'a PathBuf>,
    pub(crate) baseline_threshold: Option<&'a str>,
    pub(crate) baseline_metrics: Option<&'a str>,
}

/// Check the flags of `args`; `Err` is what to print on stderr (the
/// exit status is 1).
pub(crate) fn read(args: &Written<'_>) -> Result<Beyond, Error> {
    if args.mode == Mode::Fio {
        if let Some(arg) = args.beyond_fio.first() {
            return Err(Error::NotFio { arg: arg.clone() });
        }
    }
    let repeat = match args.repeat {
        None => 1,
        Some(text) => match text.trim().parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => return Err(Error::Repeat(text.to_string())),
        },
    };
    let threshold_pct = match args.baseline_threshold {
        None => DEFAULT_THRESHOLD_PCT,
        Some(text) => match text.trim().trim_end_matches('%').parse::<f64>() {
            Ok(p) if p.is_finite() && p >= 0.0 => p,
            _ => return Err(Error::Threshold(text.to_string())),
        },
    };
    let text = args.baseline_metrics.unwrap_or(DEFAULT_METRICS);
    let metrics = metrics(text)?;
    Ok(Beyond {
        repeat,
        save: args.baseline_save.cloned(),
        compare: args.baseline_compare.cloned(),
        threshold_pct,
        metrics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(argv: &[&str], fio: bool) -> Result<Beyond, String> {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        let argv0 = fio.then_some(std::ffi::OsStr::new("fio"));
        let args = crate::cli::args::parse(&argv).unwrap().called_as(argv0);
        read(&args.beyond()).map_err(|e| e.to_string())
    }

    #[test]
    fn repeat_counts_and_refusals() {
        assert_eq!(parse(&["x.fio"], false).unwrap().repeat, 1);
        assert_eq!(parse(&["--repeat=3", "x.fio"], false).unwrap().repeat, 3);
        assert_eq!(parse(&["--repeat", "2", "x.fio"], false).unwrap().repeat, 2);
        let zero = "rfio: --repeat=0: the number of runs must be a whole number, at least 1\n";
        assert_eq!(parse(&["--repeat=0"], false).unwrap_err(), zero);
        assert!(parse(&["--repeat=x"], false)
            .unwrap_err()
            .contains("--repeat=x:"));
        assert!(parse(&["--repeat=-1"], false).is_err());
    }

    #[test]
    fn fio_mode_refuses_them_as_fio_does() {
        let line = "fio: unrecognized option '--repeat=3'\n";
        assert_eq!(
            parse(&["--repeat=3", "x.fio"], true).unwrap_err(),
            format!("{line}{line}")
        );
        let e = parse(&["--compat=fio", "--baseline-save", "b.json"], false).unwrap_err();
        assert!(
            e.starts_with("fio: unrecognized option '--baseline-save'\n"),
            "{e}"
        );
        // A prefix keeps meaning what it means to fio.
        let argv = vec!["--repea=3".to_string()];
        assert!(crate::cli::args::parse(&argv).is_err());
    }

    #[test]
    fn thresholds() {
        let t = |a: &str| parse(&[a], false).map(|b| b.threshold_pct);
        assert_eq!(t("--baseline-threshold=5").unwrap(), 5.0);
        assert_eq!(t("--baseline-threshold=2.5%").unwrap(), 2.5);
        assert!(t("--baseline-threshold=-1").is_err());
        assert!(t("--baseline-threshold=abc").is_err());
        assert_eq!(parse(&[], false).unwrap().threshold_pct, 10.0);
    }

    #[test]
    fn metrics_default_to_iops_bw_p99() {
        let m = |a: &[&str]| parse(a, false).map(|b| b.metrics);
        assert_eq!(
            m(&[]).unwrap(),
            [Metric::Iops, Metric::Bw, Metric::ClatPercentile(99.0)]
        );
        assert_eq!(
            m(&["--baseline-metrics=p99.9,mean,iops,iops"]).unwrap(),
            [Metric::ClatPercentile(99.9), Metric::ClatMean, Metric::Iops]
        );
        assert_eq!(
            m(&["--baseline-metrics=iops,latency"]).unwrap_err(),
            "rfio: --baseline-metrics=iops,latency: 'latency' is not a metric \
             (iops, bw, mean, or a percentile: p99, p99.9)\n"
        );
        assert!(m(&["--baseline-metrics=p0"]).is_err());
        assert!(m(&["--baseline-metrics=p101"]).is_err());
        assert!(m(&["--baseline-metrics="]).is_err());
    }
}
