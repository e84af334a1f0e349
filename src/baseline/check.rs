//! A baseline as read: its size capped before it is read, its JSON
//! decoded, then every figure and count checked, so that a file edited by
//! hand or made by something else is refused naming the field, never
//! compared (`-1e308` IOPS, a negative variance, a median outside its
//! runs).

use std::io::Read;
use std::path::Path;

use super::error::{BadField, Error, ECHO, MAX_BYTES};
use super::{Baseline, FORMAT, OLD_FORMATS};
use crate::diag::quote;
use crate::stats::config::MAX_PERCENTILES;
use crate::stats::repeat::Spread;

/// Read and check the baseline at `path`.
pub(crate) fn read(path: &Path) -> Result<Baseline, Error> {
    let name = path.display().to_string();
    let fail = |source| Error::Read {
        name: name.clone(),
        source,
    };
    let f = std::fs::File::open(path).map_err(fail)?;
    let len = f.metadata().map_err(fail)?.len();
    let too_large = || Error::TooLarge { name: name.clone() };
    if len > MAX_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    f.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(too_large());
    }
    parse(&name, &bytes)
}

/// A baseline's bytes (from the file `name`) decoded and checked.
pub(crate) fn parse(name: &str, bytes: &[u8]) -> Result<Baseline, Error> {
    let name = name.to_string();
    let value: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(source) => return Err(Error::NotJson { name, source }),
    };
    let format = value.get("format").and_then(|f| f.as_str());
    if let Some(old) = format.filter(|f| OLD_FORMATS.contains(f)) {
        // Its command line saved it: the same again saves it anew.
        let argv: Vec<&str> = value
            .get("command_line")
            .and_then(|c| c.as_array())
            .map(|a| a.iter().filter_map(|s| s.as_str()).collect())
            .unwrap_or_default();
        let resave = match argv.is_empty() {
            true => format!("rfio --baseline-save={name} JOBS..."),
            false => format!("rfio {}", quote(&argv.join(" "), ECHO)),
        };
        return Err(Error::OldFormat {
            format: old.to_string(),
            name,
            resave,
        });
    }
    if format != Some(FORMAT) {
        return Err(Error::NotBaseline { name });
    }
    let b: Baseline = match serde_json::from_value(value) {
        Ok(b) => b,
        Err(source) => return Err(Error::Malformed { name, source }),
    };
    if let Err(source) = check(&b) {
        return Err(Error::Field { name, source });
    }
    Ok(b)
}

/// Field `field` is refused: `why`.
fn bad(field: impl Into<String>, why: String) -> BadField {
    BadField {
        field: field.into(),
        why,
    }
}

/// A number as JSON writes it (`-1e+308`, `12.5`).
fn shown(v: f64) -> String {
    match v.is_finite() {
        true => serde_json::to_string(&v).unwrap_or_else(|_| v.to_string()),
        false => v.to_string(),
    }
}

/// `v` is a finite number, at least 0.
fn figure(field: &str, v: f64, what: &str) -> Result<(), BadField> {
    match v.is_finite() && v >= 0.0 {
        true => Ok(()),
        false => Err(bad(
            field,
            format!(
                "{} is not a valid {what} (a finite number, at least 0)",
                shown(v)
            ),
        )),
    }
}

/// A metric over `runs` runs: each figure valid, min <= median <= max,
/// a run's value for each run at most.
fn spread(field: &str, s: &Spread, what: &str, runs: u32) -> Result<(), BadField> {
    figure(&format!("{field}.median"), s.median, what)?;
    figure(&format!("{field}.min"), s.min, what)?;
    figure(&format!("{field}.max"), s.max, what)?;
    if let Some(cv) = s.cv_pct {
        figure(&format!("{field}.cv_pct"), cv, "coefficient of variation")?;
    }
    if s.runs.len() > runs as usize {
        return Err(bad(
            format!("{field}.runs"),
            format!("{} values for {runs} runs", s.runs.len()),
        ));
    }
    for (i, &v) in s.runs.iter().enumerate() {
        figure(&format!("{field}.runs[{i}]"), v, what)?;
    }
    if !(s.min <= s.median && s.median <= s.max) {
        return Err(bad(
            field,
            format!(
                "median {} is not between min {} and max {}",
                shown(s.median),
                shown(s.min),
                shown(s.max)
            ),
        ));
    }
    Ok(())
}

/// Every field a comparison reads, in range; the first that is not, named
/// by its path in the file.
pub(crate) fn check(b: &Baseline) -> Result<(), BadField> {
    for (i, t) in b.job_files.iter().enumerate() {
        let hex = t.sha256.len() == 64
            && t.sha256
                .bytes()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c));
        if !hex {
            return Err(bad(
                format!("job_files[{i}].sha256"),
                format!(
                    "'{}' is not a SHA-256 (64 hexadecimal digits)",
                    quote(&t.sha256, ECHO)
                ),
            ));
        }
    }
    if b.host.cpus == Some(0) {
        return Err(bad(
            "host.cpus",
            "0 is not a valid CPU count (at least 1)".into(),
        ));
    }
    let r = &b.results;
    if r.requested == 0 {
        return Err(bad(
            "results.requested",
            "0 is not a valid number of runs (at least 1)".into(),
        ));
    }
    if r.runs == 0 || r.runs > r.requested {
        return Err(bad(
            "results.runs",
            format!(
                "{} is not a valid number of runs (1 to requested, {})",
                r.runs, r.requested
            ),
        ));
    }
    if r.median_run == 0 || r.median_run > r.runs {
        return Err(bad(
            "results.median_run",
            format!("{} is not one of the runs (1 to {})", r.median_run, r.runs),
        ));
    }
    for (j, job) in r.jobs.iter().enumerate() {
        if job.dirs.len() > 4 {
            return Err(bad(
                format!("results.jobs[{j}].dirs"),
                format!(
                    "{} directions (4 at most: read, write, trim, mixed)",
                    job.dirs.len()
                ),
            ));
        }
        for (d, dir) in job.dirs.iter().enumerate() {
            let at = format!("results.jobs[{j}].dirs[{d}]");
            if !["read", "write", "trim", "mixed"].contains(&dir.ddir.as_str()) {
                return Err(bad(
                    format!("{at}.ddir"),
                    format!(
                        "'{}' is not a direction (read, write, trim or mixed)",
                        quote(&dir.ddir, ECHO)
                    ),
                ));
            }
            if dir.runs > r.runs {
                return Err(bad(
                    format!("{at}.runs"),
                    format!("{} is more than the baseline's runs ({})", dir.runs, r.runs),
                ));
            }
            let n = dir.runs;
            spread(&format!("{at}.iops"), &dir.iops, "IOPS figure", n)?;
            spread(&format!("{at}.bw_bytes"), &dir.bw_bytes, "bandwidth", n)?;
            spread(
                &format!("{at}.clat_mean_ns"),
                &dir.clat_mean_ns,
                "latency",
                n,
            )?;
            if dir.clat_percentiles.len() > MAX_PERCENTILES {
                return Err(bad(
                    format!("{at}.clat_percentiles"),
                    format!(
                        "{} percentiles ({MAX_PERCENTILES} at most)",
                        dir.clat_percentiles.len()
                    ),
                ));
            }
            for (k, (p, s)) in dir.clat_percentiles.iter().enumerate() {
                let pat = format!("{at}.clat_percentiles[{k}]");
                if !(p.is_finite() && *p > 0.0 && *p <= 100.0) {
                    return Err(bad(
                        format!("{pat}[0]"),
                        format!(
                            "{} is not a valid percentile (above 0, at most 100)",
                            shown(*p)
                        ),
                    ));
                }
                spread(&format!("{pat}[1]"), s, "latency", n)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_shown_as_json_writes_them() {
        assert_eq!(shown(-1e308), "-1e+308");
        assert_eq!(shown(12.5), "12.5");
        assert_eq!(shown(f64::NAN), "NaN");
        assert_eq!(
            figure("x", f64::NEG_INFINITY, "IOPS figure")
                .unwrap_err()
                .to_string(),
            "x: -inf is not a valid IOPS figure (a finite number, at least 0)"
        );
        assert!(figure("x", 0.0, "latency").is_ok());
    }

    #[test]
    fn spreads_keep_their_order() {
        let s = |median, min, max, cv_pct| Spread {
            median,
            min,
            max,
            cv_pct: Some(cv_pct),
            runs: vec![min, median, max],
        };
        assert!(spread("s", &s(2.0, 1.0, 3.0, 0.5), "latency", 3).is_ok());
        assert_eq!(
            spread("s", &s(5.0, 1.0, 3.0, 0.0), "latency", 3)
                .unwrap_err()
                .to_string(),
            "s: median 5.0 is not between min 1.0 and max 3.0"
        );
        assert_eq!(
            spread("s", &s(2.0, 1.0, 3.0, -1.0), "latency", 3)
                .unwrap_err()
                .to_string(),
            "s.cv_pct: -1.0 is not a valid coefficient of variation (a finite number, at least 0)"
        );
        assert_eq!(
            spread("s", &s(2.0, 1.0, 3.0, 1.0), "latency", 2)
                .unwrap_err()
                .to_string(),
            "s.runs: 3 values for 2 runs"
        );
        let mut one = s(2.0, 2.0, 2.0, 0.0);
        one.cv_pct = None;
        one.runs = vec![-2.0];
        assert_eq!(
            spread("s", &one, "latency", 1).unwrap_err().to_string(),
            "s.runs[0]: -2.0 is not a valid latency (a finite number, at least 0)"
        );
    }
}
