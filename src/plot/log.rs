//! fio's per-job text logs as charts read them: `time, value, ddir, bs,
//! [offset,] prio` (fio 3.33; fio 3.37's second value column and 3.38's
//! issue time give 6 or 7 fields and read the same), one sample a line.
//! The kind of log (what the value means) is in the file's name:
//! `<prefix>_<kind>[.N].log`.

use std::fmt;

/// What a log's value column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogKind {
    /// I/Os per second (windowed) or `1` per I/O.
    Iops,
    /// KiB/s (windowed) or bytes per ms of one I/O.
    Bw,
    /// Total latency, ns.
    Lat,
    /// Completion latency, ns.
    Clat,
    /// Submission latency, ns.
    Slat,
}

impl LogKind {
    /// The kind named by a log file's name (`job_clat.1.log`,
    /// `agg-read_bw.log`, `x_iops.log.fz`); `None` for any other name,
    /// histogram logs (`_clat_hist`) included.
    pub fn from_file_name(name: &str) -> Option<LogKind> {
        let name = name.strip_suffix(".fz").unwrap_or(name);
        let mut stem = name.strip_suffix(".log")?;
        if let Some((head, n)) = stem.rsplit_once('.') {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                stem = head;
            }
        }
        let (_, kind) = stem.rsplit_once('_')?;
        Some(match kind {
            "iops" => LogKind::Iops,
            "bw" => LogKind::Bw,
            "lat" => LogKind::Lat,
            "clat" => LogKind::Clat,
            "slat" => LogKind::Slat,
            _ => return None,
        })
    }

    /// fio's name of the kind, as in the file names.
    pub fn name(self) -> &'static str {
        match self {
            LogKind::Iops => "iops",
            LogKind::Bw => "bw",
            LogKind::Lat => "lat",
            LogKind::Clat => "clat",
            LogKind::Slat => "slat",
        }
    }
}

/// One line of a log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// ms since the job's start (or since the Unix epoch).
    pub time_ms: u64,
    pub value: u64,
    /// 0 read, 1 write, 2 trim.
    pub ddir: u8,
    /// The I/O's size; 0 in windowed (`log_avg_msec`) lines.
    pub bs: u64,
}

/// A parsed log.
#[derive(Clone, Debug, PartialEq)]
pub struct Log {
    pub kind: LogKind,
    pub samples: Vec<Sample>,
}

impl Log {
    /// Written with `log_avg_msec` (every line's bs is 0) rather than a
    /// line per I/O.
    pub fn windowed(&self) -> bool {
        self.samples.iter().all(|s| s.bs == 0)
    }
}

/// Why a log does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogError {
    /// No sample in it.
    Empty,
    /// Line `line` (1-based) is not a sample.
    BadLine { line: usize, text: String },
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogError::Empty => write!(f, "empty log (no samples)"),
            LogError::BadLine { line, text } => write!(
                f,
                "line {line}: not a fio log line (time, value, ddir, bs, [offset,] prio): {text:?}"
            ),
        }
    }
}

/// The samples of `text`, a log of `kind`. Blank lines are skipped; any
/// other line that is not a sample is an error naming it.
pub fn parse(kind: LogKind, text: &str) -> Result<Log, LogError> {
    let mut samples = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = || LogError::BadLine {
            line: i + 1,
            text: line.chars().take(80).collect(),
        };
        samples.push(parse_line(line).ok_or_else(bad)?);
    }
    if samples.is_empty() {
        return Err(LogError::Empty);
    }
    Ok(Log { kind, samples })
}

fn parse_line(line: &str) -> Option<Sample> {
    let f: Vec<&str> = line.split(',').map(str::trim).collect();
    if !(5..=7).contains(&f.len()) {
        return None;
    }
    // Every field is a number; the last (prio) may be `0x%04x`.
    let last = f[f.len() - 1];
    let prio_ok = match last.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).is_ok(),
        None => last.parse::<u64>().is_ok(),
    };
    if !prio_ok || f[..f.len() - 1].iter().any(|x| x.parse::<u64>().is_err()) {
        return None;
    }
    // fio 3.37's `log_window_value=both` puts a second value before ddir;
    // fio 3.38's issue time comes last. With 6 fields, the 5th is the
    // offset (3.33's `log_offset=1`), so ddir is always the 3rd field
    // unless there are 7 and the 4th is a direction and the 5th a size
    // (not told apart from offset logs; 3.33 never writes 7).
    let ddir: u8 = f[2].parse().ok()?;
    if ddir > 2 {
        return None;
    }
    Some(Sample {
        time_ms: f[0].parse().ok()?,
        value: f[1].parse().ok()?,
        ddir,
        bs: f[3].parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_file_names() {
        let k = LogKind::from_file_name;
        assert_eq!(k("job1_iops.1.log"), Some(LogKind::Iops));
        assert_eq!(k("a_b_bw.12.log"), Some(LogKind::Bw));
        assert_eq!(k("x_clat.log"), Some(LogKind::Clat));
        assert_eq!(k("x_slat.3.log.fz"), Some(LogKind::Slat));
        assert_eq!(k("agg-read_bw.log"), Some(LogKind::Bw));
        assert_eq!(k("x_lat.2.log"), Some(LogKind::Lat));
        assert_eq!(k("x_clat_hist.1.log"), None);
        assert_eq!(k("x.json"), None);
        assert_eq!(k("iops.log"), None);
    }

    #[test]
    fn lines_of_every_layout_read() {
        let log = parse(
            LogKind::Clat,
            "0, 381336, 0, 4096, 0\n1, 57759, 1, 4096, 1011712, 0x0000\n\n100, 2769727, 0, 0, 0, 0\n",
        )
        .unwrap();
        assert_eq!(log.samples.len(), 3);
        assert_eq!(
            log.samples[1],
            Sample {
                time_ms: 1,
                value: 57759,
                ddir: 1,
                bs: 4096
            }
        );
        assert!(!log.windowed());
        let w = parse(LogKind::Bw, "145, 2013, 0, 0, 0\n145, 2013, 1, 0, 0\n").unwrap();
        assert!(w.windowed());
    }

    #[test]
    fn bad_lines_and_empty_logs_are_errors() {
        let e = parse(LogKind::Bw, "0, 1, 0, 4096, 0\n5, x, 0, 4096, 0\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: not a fio log line (time, value, ddir, bs, [offset,] prio): \"5, x, 0, 4096, 0\""
        );
        assert_eq!(
            parse(LogKind::Bw, "0, 1, 7, 4096, 0\n").unwrap_err(),
            LogError::BadLine {
                line: 1,
                text: "0, 1, 7, 4096, 0".into()
            }
        );
        assert_eq!(parse(LogKind::Iops, "\n\n").unwrap_err(), LogError::Empty);
        assert!(parse(LogKind::Iops, "{\"jobs\": []}\n").is_err());
    }
}
