//! rfio's own results beside a report, read for the charts and the page:
//! the `--repeat` summary ([`Runs`]: a JSON report's `"repeat"` object, or
//! the `results` of a baseline file, `"format": "rfio-baseline/2"`) and the
//! verdicts of `--baseline-compare` ([`Verdicts`]: a report's `"baseline"`
//! object). The verdicts are read as the run decided them, never decided
//! again here.

use serde_json::Value;

/// The baseline file format read.
pub const BASELINE_FORMAT: &str = "rfio-baseline/2";

/// One metric over the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// `None`: fewer than two runs.
    pub cv_pct: Option<f64>,
}

/// One direction of one job over the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct RunsDir {
    /// `read`, `write`, `trim` or `mixed`.
    pub ddir: String,
    pub iops: Spread,
    pub bw_bytes: Spread,
    pub clat_mean_ns: Spread,
    /// (percentile, spread in ns), ascending.
    pub clat_percentiles: Vec<(f64, Spread)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunsJob {
    pub name: String,
    pub dirs: Vec<RunsDir>,
}

/// The runs of a `--repeat` invocation (or of a baseline), summed up.
#[derive(Clone, Debug, PartialEq)]
pub struct Runs {
    pub runs: u64,
    /// 1-based: the run whose report is fio's.
    pub median_run: u64,
    pub jobs: Vec<RunsJob>,
}

impl Runs {
    /// Its direction `ddir` of the job named `job`, the `index`-th
    /// reported entry (the same order as the report's), else the first of
    /// that name.
    pub fn dir(&self, index: usize, job: &str, ddir: &str) -> Option<&RunsDir> {
        let j = match self.jobs.get(index).filter(|j| j.name == job) {
            Some(j) => j,
            None => self.jobs.iter().find(|j| j.name == job)?,
        };
        j.dirs.iter().find(|d| d.ddir == ddir)
    }
}

/// One verdict of a comparison with a baseline, as the run printed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub job: String,
    pub ddir: String,
    /// `iops`, `bw` (bytes/s), `mean`, `p99`, `p99.9` (ns).
    pub metric: String,
    pub gated: bool,
    pub saved: f64,
    pub now: Option<f64>,
    pub change_pct: Option<f64>,
    pub band_pct: f64,
    /// `better`, `worse`, `within` or `not measured`.
    pub verdict: String,
}

impl Verdict {
    /// The percentile of a `pN` metric.
    pub fn percentile(&self) -> Option<f64> {
        self.metric.strip_prefix('p')?.parse().ok()
    }

    /// Gated and worse, or no longer measured: what fails the comparison.
    pub fn regressed(&self) -> bool {
        self.gated && matches!(self.verdict.as_str(), "worse" | "not measured")
    }
}

/// A report's `"baseline"` object.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdicts {
    /// The baseline file, as given to `--baseline-compare`.
    pub file: String,
    /// `pass` or `fail`.
    pub result: String,
    pub gated: Vec<String>,
    pub threshold_pct: f64,
    pub saved_runs: u64,
    pub runs: u64,
    pub warnings: Vec<String>,
    pub metrics: Vec<Verdict>,
}

/// Why a baseline file gives no runs.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum BaselineError {
    #[error("a baseline of format {0:?}: rfio plot reads {BASELINE_FORMAT}")]
    Format(String),
    #[error("a baseline without results (\"results\" with \"jobs\")")]
    NoResults,
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key)?.as_f64()
}

fn spread(v: Option<&Value>) -> Option<Spread> {
    let v = v?;
    Some(Spread {
        median: num(v, "median")?,
        min: num(v, "min")?,
        max: num(v, "max")?,
        cv_pct: num(v, "cv_pct"),
    })
}

/// A JSON report's `"repeat"` object (`None` without one, or one that
/// does not read as rfio writes it).
pub fn repeat_of(report: &Value) -> Option<Runs> {
    let r = report.get("repeat")?;
    let mut jobs = Vec::new();
    for j in r.get("jobs")?.as_array()? {
        let name = j.get("jobname")?.as_str()?.to_string();
        let mut dirs = Vec::new();
        for ddir in ["read", "write", "trim", "mixed"] {
            let Some(d) = j.get(ddir) else { continue };
            let clat = d.get("clat_ns");
            let mut clat_percentiles: Vec<(f64, Spread)> = clat
                .and_then(|c| c.get("percentile")?.as_object())
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, s)| Some((k.parse().ok()?, spread(Some(s))?)))
                        .collect()
                })
                .unwrap_or_default();
            clat_percentiles.sort_by(|a, b| a.0.total_cmp(&b.0));
            dirs.push(RunsDir {
                ddir: ddir.to_string(),
                iops: spread(d.get("iops"))?,
                bw_bytes: spread(d.get("bw_bytes"))?,
                clat_mean_ns: spread(clat.and_then(|c| c.get("mean")))?,
                clat_percentiles,
            });
        }
        jobs.push(RunsJob { name, dirs });
    }
    Some(Runs {
        runs: r.get("runs")?.as_u64()?,
        median_run: r.get("median_run")?.as_u64()?,
        jobs,
    })
}

/// A JSON report's `"baseline"` object.
pub fn verdicts_of(report: &Value) -> Option<Verdicts> {
    let b = report.get("baseline")?;
    let strs = |key: &str| -> Vec<String> {
        b.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| Some(s.as_str()?.to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let text = |v: &Value, key: &str| Some(v.get(key)?.as_str()?.to_string());
    let mut metrics = Vec::new();
    for m in b.get("metrics")?.as_array()? {
        metrics.push(Verdict {
            job: text(m, "job")?,
            ddir: text(m, "ddir")?,
            metric: text(m, "metric")?,
            gated: m.get("gated")?.as_bool()?,
            saved: num(m, "saved")?,
            now: num(m, "now"),
            change_pct: num(m, "change_pct"),
            band_pct: num(m, "band_pct")?,
            verdict: text(m, "verdict")?,
        });
    }
    Some(Verdicts {
        file: text(b, "file")?,
        result: text(b, "result")?,
        gated: strs("gated"),
        threshold_pct: num(b, "threshold_pct")?,
        saved_runs: b.get("saved_runs")?.as_u64()?,
        runs: b.get("runs")?.as_u64()?,
        warnings: strs("warnings"),
        metrics,
    })
}

/// Whether `bytes` is a baseline file: a JSON object whose first key is
/// `"format"` (as rfio writes them; fio's reports start with
/// `"fio version"`), told without parsing it.
pub fn looks_like_baseline(bytes: &[u8]) -> bool {
    let text = bytes.trim_ascii_start();
    text.strip_prefix(b"{")
        .is_some_and(|rest| rest.trim_ascii_start().starts_with(b"\"format\""))
}

/// A baseline file's results (`--baseline-save`'s `results`, the
/// `--repeat` summary as rfio keeps it). `Ok(None)`: not a baseline.
pub fn baseline_of(doc: &Value) -> Result<Option<Runs>, BaselineError> {
    let Some(format) = doc.get("format").and_then(Value::as_str) else {
        return Ok(None);
    };
    if !format.starts_with("rfio-baseline/") {
        return Ok(None);
    }
    if format != BASELINE_FORMAT {
        return Err(BaselineError::Format(format.to_string()));
    }
    saved_runs(doc.get("results"))
        .ok_or(BaselineError::NoResults)
        .map(Some)
}

fn saved_runs(r: Option<&Value>) -> Option<Runs> {
    let r = r?;
    let mut jobs = Vec::new();
    for j in r.get("jobs")?.as_array()? {
        let mut dirs = Vec::new();
        for d in j.get("dirs")?.as_array()? {
            let mut clat_percentiles = Vec::new();
            for pair in d.get("clat_percentiles")?.as_array()? {
                let pair = pair.as_array()?;
                clat_percentiles.push((pair.first()?.as_f64()?, spread(pair.get(1))?));
            }
            clat_percentiles.sort_by(|a, b| a.0.total_cmp(&b.0));
            dirs.push(RunsDir {
                ddir: d.get("ddir")?.as_str()?.to_string(),
                iops: spread(d.get("iops"))?,
                bw_bytes: spread(d.get("bw_bytes"))?,
                clat_mean_ns: spread(d.get("clat_mean_ns"))?,
                clat_percentiles,
            });
        }
        let name = j.get("jobname")?.as_str()?.to_string();
        jobs.push(RunsJob { name, dirs });
    }
    Some(Runs {
        runs: r.get("runs")?.as_u64()?,
        median_run: r.get("median_run")?.as_u64()?,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(median: f64, min: f64, max: f64) -> serde_json::Value {
        serde_json::json!({"median": median, "min": min, "max": max, "cv_pct": 1.5, "runs": [min, median, max]})
    }

    #[test]
    fn a_reports_repeat_and_baseline_objects_read() {
        let doc = serde_json::json!({
            "jobs": [],
            "repeat": {"requested": 3, "runs": 3, "median_run": 2, "jobs": [{"jobname": "j", "groupid": 0,
                "read": {"runs": 3, "iops": s(10.0, 9.0, 11.0), "bw_bytes": s(40960.0, 36864.0, 45056.0),
                         "clat_ns": {"mean": s(5.0, 4.0, 6.0),
                                     "percentile": {"99.000000": s(20.0, 10.0, 30.0), "50.000000": s(5.0, 4.0, 6.0)}}}}]},
            "baseline": {"file": "b.json", "result": "fail", "threshold_pct": 10.0, "gated": ["iops"],
                "saved_runs": 3, "runs": 3, "warnings": ["w"], "summary": {},
                "metrics": [{"job": "j", "ddir": "read", "metric": "p99.9", "gated": true, "saved": 4.0,
                             "now": null, "change_pct": null, "band_pct": 10.0, "band_from": "threshold",
                             "verdict": "not measured"}]}
        });
        let r = repeat_of(&doc).unwrap();
        assert_eq!((r.runs, r.median_run), (3, 2));
        let d = r.dir(0, "j", "read").unwrap();
        assert_eq!(d.iops.min, 9.0);
        assert_eq!(d.clat_percentiles[0].0, 50.0);
        assert_eq!(d.clat_percentiles[1].1.max, 30.0);
        assert!(r.dir(0, "j", "write").is_none() && r.dir(0, "k", "read").is_none());
        let v = verdicts_of(&doc).unwrap();
        assert_eq!((v.file.as_str(), v.result.as_str()), ("b.json", "fail"));
        assert_eq!(v.metrics[0].percentile(), Some(99.9));
        assert_eq!(v.metrics[0].now, None);
        assert!(v.metrics[0].regressed());
        assert!(repeat_of(&serde_json::json!({"jobs": []})).is_none());
    }

    #[test]
    fn baseline_files_read_their_results() {
        let text = br#"{
  "format": "rfio-baseline/2",
  "results": {"requested": 2, "runs": 2, "median_run": 1, "stopped": null,
    "jobs": [{"jobname": "j", "groupid": 0, "dirs": [{"ddir": "write", "runs": 2,
      "iops": {"median": 1.0, "min": 1.0, "max": 2.0, "cv_pct": 47.1, "runs": [1.0, 2.0]},
      "bw_bytes": {"median": 1.0, "min": 1.0, "max": 2.0, "cv_pct": null},
      "clat_mean_ns": {"median": 1.0, "min": 1.0, "max": 2.0, "cv_pct": null},
      "clat_percentiles": [[99.0, {"median": 7.0, "min": 6.0, "max": 8.0, "cv_pct": null}]]}]}]}
}"#;
        assert!(looks_like_baseline(text));
        assert!(!looks_like_baseline(
            b"{\n  \"fio version\" : \"fio-3.33\"}"
        ));
        let doc: Value = serde_json::from_slice(text).unwrap();
        let r = baseline_of(&doc).unwrap().unwrap();
        let d = r.dir(0, "j", "write").unwrap();
        assert_eq!(
            d.clat_percentiles,
            [(
                99.0,
                Spread {
                    median: 7.0,
                    min: 6.0,
                    max: 8.0,
                    cv_pct: None
                }
            )]
        );
        let old = serde_json::json!({"format": "rfio-baseline/1"});
        assert_eq!(
            baseline_of(&old).unwrap_err().to_string(),
            "a baseline of format \"rfio-baseline/1\": rfio plot reads rfio-baseline/2"
        );
        let bare = serde_json::json!({"format": "rfio-baseline/2"});
        assert_eq!(baseline_of(&bare), Err(BaselineError::NoResults));
        assert_eq!(baseline_of(&serde_json::json!({"format": "x"})), Ok(None));
    }
}
