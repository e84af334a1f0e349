//! fio's per-job text logs as charts read them: `time, value, ddir, bs,
//! [offset,] prio` (fio 3.33; fio 3.37's second value column and 3.38's
//! issue time give 6 or 7 fields and read the same), one sample a line.
//! The kind of log (what the value means) is in the file's name:
//! `<prefix>_<kind>[.N].log`.

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

/// The longest log line read: fio's longest (7 fields of at most 20
/// digits) is under 160 bytes, so that one huge "line" is refused after
/// this many bytes instead of held whole.
pub const MAX_LINE: usize = 256;

/// How much of a bad line an error quotes.
const QUOTED: usize = 80;

/// Why a log does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    /// No sample in it.
    #[error("empty log (no samples)")]
    Empty,
    /// Line `line` (1-based) is not a sample; `text` is it, quoted
    /// ([`crate::diag::quote_bytes`]).
    #[error("line {line}: not a fio log line (time, value, ddir, bs, [offset,] prio): \"{text}\"")]
    BadLine { line: usize, text: String },
    /// Line `line` is longer than [`MAX_LINE`] bytes; `head` its start,
    /// quoted.
    #[error("line {line}: not a fio log line (longer than {MAX_LINE} bytes): \"{head}...\"")]
    TooLong { line: usize, head: String },
}

/// The samples of `bytes`, a log of `kind` (see [`Reader`]).
pub fn parse(kind: LogKind, bytes: &[u8]) -> Result<Log, LogError> {
    let mut r = Reader::new(kind);
    r.push(bytes)?;
    r.finish()
}

/// A log read as its bytes come (from a file or an inflater), a line at a
/// time: memory is the samples and at most [`MAX_LINE`] bytes of a line.
/// Blank lines are skipped; any other line that is not a sample is an
/// error naming it.
#[derive(Debug)]
pub struct Reader {
    kind: LogKind,
    samples: Vec<Sample>,
    /// The line read so far (no newline yet).
    partial: Vec<u8>,
    /// 1-based number of the line in `partial`.
    line: usize,
}

impl Reader {
    pub fn new(kind: LogKind) -> Reader {
        Reader {
            kind,
            samples: Vec::new(),
            partial: Vec::new(),
            line: 1,
        }
    }

    /// Reads the next `bytes` of the log.
    pub fn push(&mut self, mut bytes: &[u8]) -> Result<(), LogError> {
        while !bytes.is_empty() {
            let (piece, ended) = match bytes.iter().position(|&b| b == b'\n') {
                Some(at) => (&bytes[..at], Some(at + 1)),
                None => (bytes, None),
            };
            if self.partial.len() + piece.len() > MAX_LINE {
                let mut head = self.partial.clone();
                head.extend_from_slice(&piece[..piece.len().min(MAX_LINE)]);
                return Err(LogError::TooLong {
                    line: self.line,
                    head: crate::diag::quote_bytes(&head[..QUOTED.min(head.len())], QUOTED),
                });
            }
            self.partial.extend_from_slice(piece);
            match ended {
                Some(at) => {
                    self.end_line()?;
                    bytes = &bytes[at..];
                }
                None => break,
            }
        }
        Ok(())
    }

    /// The log, once every byte is read (a last line without a newline
    /// counts).
    pub fn finish(mut self) -> Result<Log, LogError> {
        if !self.partial.is_empty() {
            self.end_line()?;
        }
        if self.samples.is_empty() {
            return Err(LogError::Empty);
        }
        Ok(Log {
            kind: self.kind,
            samples: self.samples,
        })
    }

    fn end_line(&mut self) -> Result<(), LogError> {
        let bytes = std::mem::take(&mut self.partial);
        let sample = match std::str::from_utf8(&bytes) {
            Ok(line) if line.trim().is_empty() => None,
            Ok(line) => Some(parse_line(line)),
            Err(_) => Some(None),
        };
        if let Some(sample) = sample {
            let sample = sample.ok_or_else(|| LogError::BadLine {
                line: self.line,
                text: crate::diag::quote_bytes(&bytes, QUOTED),
            })?;
            self.samples.push(sample);
        }
        self.partial = bytes;
        self.partial.clear();
        self.line += 1;
        Ok(())
    }
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
            b"0, 381336, 0, 4096, 0\n1, 57759, 1, 4096, 1011712, 0x0000\n\n100, 2769727, 0, 0, 0, 0\n",
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
        let w = parse(LogKind::Bw, b"145, 2013, 0, 0, 0\n145, 2013, 1, 0, 0\n").unwrap();
        assert!(w.windowed());
    }

    #[test]
    fn bad_lines_and_empty_logs_are_errors() {
        let e = parse(LogKind::Bw, b"0, 1, 0, 4096, 0\n5, x, 0, 4096, 0\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: not a fio log line (time, value, ddir, bs, [offset,] prio): \"5, x, 0, 4096, 0\""
        );
        assert_eq!(
            parse(LogKind::Bw, b"0, 1, 7, 4096, 0\n").unwrap_err(),
            LogError::BadLine {
                line: 1,
                text: "0, 1, 7, 4096, 0".into()
            }
        );
        assert_eq!(parse(LogKind::Iops, b"\n\n").unwrap_err(), LogError::Empty);
        assert!(parse(LogKind::Iops, b"{\"jobs\": []}\n").is_err());
    }

    #[test]
    fn hostile_lines_are_quoted_and_bounded() {
        // Control characters and invalid UTF-8 are shown escaped.
        let e = parse(LogKind::Bw, b"0, 1, 0, 0, 0\n\x1b[2J\xff, 1\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: not a fio log line (time, value, ddir, bs, [offset,] prio): \"\\x1b[2J\u{fffd}, 1\""
        );
        // One huge line is refused once past MAX_LINE, whatever follows,
        // and only its start is quoted.
        let mut huge = b"0, 1, 0, 0, 0\r\n\n".to_vec();
        huge.extend(std::iter::repeat_n(b',', 100_000));
        let mut r = Reader::new(LogKind::Iops);
        let e = huge.chunks(7).find_map(|c| r.push(c).err()).unwrap();
        assert_eq!(
            e.to_string(),
            format!(
                "line 3: not a fio log line (longer than 256 bytes): \"{}...\"",
                ",".repeat(80)
            )
        );
        assert!(r.partial.capacity() <= 2 * MAX_LINE);
        // A line of exactly MAX_LINE bytes is read (and refused as a line).
        let mut long = vec![b' '; MAX_LINE - 13];
        long.extend_from_slice(b"0, 1, 0, 0, 0");
        assert_eq!(parse(LogKind::Iops, &long).unwrap().samples.len(), 1);
        long.insert(0, b' ');
        assert!(matches!(
            parse(LogKind::Iops, &long),
            Err(LogError::TooLong { line: 1, .. })
        ));
    }

    #[test]
    fn lines_split_across_pushes_and_without_a_newline_read() {
        let text = b"10, 5, 0, 4096, 0\n20, 6, 1, 4096, 0\n30, 7, 2, 4096, 0";
        for n in 1..text.len() {
            let mut r = Reader::new(LogKind::Iops);
            for c in text.chunks(n) {
                r.push(c).unwrap();
            }
            let log = r.finish().unwrap();
            let got: Vec<(u64, u8)> = log.samples.iter().map(|s| (s.time_ms, s.ddir)).collect();
            assert_eq!(got, vec![(10, 0), (20, 1), (30, 2)], "chunks of {n}");
        }
        let mut r = Reader::new(LogKind::Iops);
        r.push(b"10, 5, 0, 4096, 0\n20, 6").unwrap();
        r.push(b", 9, 4096, 0\n").unwrap_err();
    }
}
