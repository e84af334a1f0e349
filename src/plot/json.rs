//! fio's JSON and JSON+ output (`--output-format=json` / `json+`, from
//! rfio or fio), read for charts: per job and direction the summary
//! numbers, the latency percentiles and, in JSON+, the latency bins
//! (`clat_ns.bins`: bucket value in ns → I/O count).

use serde_json::Value;

use super::runs::{self, Runs, Verdicts};
use super::Error;

/// A run's report.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub jobs: Vec<Job>,
    /// rfio's `"repeat"` object (`--repeat`): the report is the median
    /// run's.
    pub repeat: Option<Runs>,
    /// rfio's `"baseline"` object (`--baseline-compare`).
    pub verdicts: Option<Verdicts>,
}

/// One job of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub name: String,
    /// The directions that did I/O, in fio's order (read, write, trim).
    pub dirs: Vec<Dir>,
}

/// One direction of a job.
#[derive(Clone, Debug, PartialEq)]
pub struct Dir {
    /// `read`, `write` or `trim`.
    pub ddir: &'static str,
    pub iops: f64,
    /// KiB/s.
    pub bw_kib: f64,
    pub runtime_ms: u64,
    /// `lat_ns.mean`.
    pub lat_mean_ns: Option<f64>,
    /// `clat_ns.percentile["99.000000"]`.
    pub clat_p99_ns: Option<f64>,
    /// clat, lat, slat: those with percentiles or bins.
    pub lats: Vec<Latency>,
}

/// The distribution of one latency of a direction.
#[derive(Clone, Debug, PartialEq)]
pub struct Latency {
    /// `clat`, `lat` or `slat`.
    pub kind: &'static str,
    /// (percentile, ns), ascending.
    pub percentiles: Vec<(f64, f64)>,
    /// (bucket ns, count), ascending (JSON+ only).
    pub bins: Vec<(f64, u64)>,
}

/// Whether `bytes` is JSON output (its first non-blank byte opens an
/// object) rather than a log; fio may print other lines before it
/// (`--output-format=normal,json`), so any line that is exactly `{` counts.
pub fn looks_like_json(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
        || bytes.split(|&b| b == b'\n').any(is_open)
}

/// A line that is `{` alone (fio's JSON output starts so).
fn is_open(line: &[u8]) -> bool {
    line.strip_suffix(b"\r").unwrap_or(line) == b"{"
}

/// The report in `bytes`: the first JSON object in it (from its first
/// non-blank byte if that opens one, else from its first line that is
/// `{`). A syntax error names its line and column in the whole input.
pub fn parse(bytes: &[u8]) -> Result<Report, Error> {
    let lead = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let start = match lead {
        Some(at) if bytes[at] == b'{' => at,
        _ => {
            let mut at = 0;
            let mut found = None;
            for line in bytes.split_inclusive(|&b| b == b'\n') {
                let bare = line.strip_suffix(b"\n").unwrap_or(line);
                if is_open(bare) {
                    found = Some(at);
                    break;
                }
                at += line.len();
            }
            found.ok_or(Error::NoJsonObject)?
        }
    };
    let before = bytes[..start].iter().filter(|&&b| b == b'\n').count();
    let value: Value = serde_json::Deserializer::from_slice(&bytes[start..])
        .into_iter()
        .next()
        .ok_or(Error::NoJsonObject)?
        .map_err(|source| Error::Json { source, before })?;
    from_value(&value)
}

/// The report in a JSON document already read (the final line of a
/// status stream holds one).
pub fn from_value(value: &Value) -> Result<Report, Error> {
    let jobs = value
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or(Error::NotFioJson)?;
    let jobs = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| job(i, j))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Report {
        jobs,
        repeat: runs::repeat_of(value),
        verdicts: runs::verdicts_of(value),
    })
}

/// serde_json's error without its position (for one line of a stream).
pub fn syntax_of(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => format!("not valid JSON: {}", &text[..at]),
        None => format!("not valid JSON: {text}"),
    }
}

impl Report {
    /// Whether any direction has latency percentiles or bins to draw.
    pub fn drawable(&self) -> bool {
        self.jobs
            .iter()
            .flat_map(|j| &j.dirs)
            .any(|d| !d.lats.is_empty())
    }
}

fn job(i: usize, j: &Value) -> Result<Job, Error> {
    let name = j
        .get("jobname")
        .and_then(Value::as_str)
        .ok_or(Error::NoJobName { job: i + 1 })?
        .to_string();
    let mut dirs = Vec::new();
    for ddir in ["read", "write", "trim"] {
        let Some(d) = j.get(ddir) else { continue };
        let num = |k: &str| d.get(k).and_then(Value::as_f64);
        if num("total_ios").unwrap_or(0.0) <= 0.0 && num("io_bytes").unwrap_or(0.0) <= 0.0 {
            continue;
        }
        let lats: Vec<Latency> = ["clat", "lat", "slat"]
            .into_iter()
            .filter_map(|kind| latency(kind, d.get(format!("{kind}_ns"))?))
            .collect();
        let clat_p99_ns = lats
            .iter()
            .find(|l| l.kind == "clat")
            .and_then(|l| l.percentiles.iter().find(|(p, _)| *p == 99.0))
            .map(|&(_, ns)| ns);
        dirs.push(Dir {
            ddir,
            iops: num("iops").unwrap_or(0.0),
            bw_kib: num("bw").unwrap_or(0.0),
            runtime_ms: d.get("runtime").and_then(Value::as_u64).unwrap_or(0),
            lat_mean_ns: d.get("lat_ns").and_then(|l| l.get("mean")?.as_f64()),
            clat_p99_ns,
            lats,
        });
    }
    Ok(Job { name, dirs })
}

/// `clat_ns` and its kin; `None` when it has neither percentiles nor bins.
fn latency(kind: &'static str, v: &Value) -> Option<Latency> {
    let pairs = |key: &str| -> Vec<(f64, f64)> {
        let mut out: Vec<(f64, f64)> = v
            .get(key)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, n)| Some((k.parse::<f64>().ok()?, n.as_f64()?)))
                    .collect()
            })
            .unwrap_or_default();
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        out
    };
    let percentiles = pairs("percentile");
    let bins: Vec<(f64, u64)> = pairs("bins")
        .into_iter()
        .filter(|&(_, n)| n > 0.0)
        .map(|(ns, n)| (ns, n as u64))
        .collect();
    (!percentiles.is_empty() || !bins.is_empty()).then_some(Latency {
        kind,
        percentiles,
        bins,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLUS: &str = r#"{
  "fio version" : "fio-3.33",
  "jobs" : [
    {
      "jobname" : "j",
      "read" : {
        "io_bytes" : 4096, "bw" : 2000, "iops" : 500.5, "runtime" : 2, "total_ios" : 1,
        "slat_ns" : { "min" : 0, "mean" : 0.0 },
        "clat_ns" : { "mean" : 10.0,
          "percentile" : { "1.000000" : 1000, "99.000000" : 5000, "50.000000" : 2000 },
          "bins" : { "2000" : 3, "1000" : 1, "5000" : 0 } },
        "lat_ns" : { "mean" : 3000.5 }
      },
      "write" : { "io_bytes" : 0, "total_ios" : 0 }
    }
  ]
}
"#;

    #[test]
    fn a_json_plus_report_reads() {
        assert!(looks_like_json(PLUS.as_bytes()));
        let r = parse(PLUS.as_bytes()).unwrap();
        assert_eq!(r.jobs.len(), 1);
        let d = &r.jobs[0].dirs;
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].ddir, "read");
        assert_eq!(d[0].iops, 500.5);
        assert_eq!(d[0].lat_mean_ns, Some(3000.5));
        assert_eq!(d[0].clat_p99_ns, Some(5000.0));
        assert_eq!(d[0].lats.len(), 1);
        let c = &d[0].lats[0];
        assert_eq!(c.kind, "clat");
        assert_eq!(
            c.percentiles,
            vec![(1.0, 1000.0), (50.0, 2000.0), (99.0, 5000.0)]
        );
        assert_eq!(c.bins, vec![(1000.0, 1), (2000.0, 3)]);
    }

    #[test]
    fn json_after_normal_output_reads() {
        let text = format!("j: (groupid=0, jobs=1): err= 0\n{PLUS}");
        assert!(looks_like_json(text.as_bytes()));
        assert_eq!(parse(text.as_bytes()).unwrap().jobs[0].name, "j");
    }

    #[test]
    fn other_json_is_refused() {
        let err = |bytes: &[u8]| parse(bytes).unwrap_err().to_string();
        assert!(matches!(parse(b"{\"a\": 1}"), Err(Error::NotFioJson)));
        assert_eq!(
            err(b"{\"a\": 1}"),
            "not fio JSON output (no \"jobs\" array)"
        );
        assert_eq!(
            err(b"{\"jobs\": ["),
            "line 1, column 10: not valid JSON: EOF while parsing a list"
        );
        assert!(!looks_like_json(b"0, 1, 0, 4096, 0\n"));
        // After other output, the line counts from the input's start.
        assert_eq!(
            err(b"j: (groupid=0)\r\nx\n{\n  \"jobs\": [1,]\n}\n"),
            "line 4, column 14: not valid JSON: trailing comma"
        );
        assert_eq!(
            err(b"{\"jobs\": [{\"jobname\": \"\xff\"}]}"),
            "line 1, column 24: not valid JSON: invalid unicode code point"
        );
        assert_eq!(err(b"text\n{ \n"), "no JSON object in it");
        assert_eq!(err(b"{\"jobs\": [{}]}"), "job 1: no \"jobname\"");
    }
}
