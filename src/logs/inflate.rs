//! `--inflate-log=FILE`: print a compressed log (`log_store_compressed=1`,
//! a `.log.fz` file) as text on stdout, as fio 3.33's
//! `iolog_file_inflate` does.
//!
//! The file is zlib streams one after the other, each holding fio's
//! sample records ([`super::sample`]); each stream is inflated and printed
//! in turn (its layout read from its first record). A stream cut short
//! prints what it holds and ends the file; a stream that is not zlib (or
//! gzip, which fio's inflater also accepts) ends it with fio's
//! `failed inflating log: -3` (zlib's `Z_DATA_ERROR`) and exit status 253,
//! after the streams before it were printed.

use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;

use flate2::{Decompress, FlushDecompress, Status};

use super::sample;

/// zlib's `Z_DATA_ERROR`, which fio reports and exits with.
const Z_DATA_ERROR: i32 = -3;

/// Why a log could not be inflated, worded as fio words it.
#[derive(Debug)]
pub enum InflateError {
    /// The file does not open (fio's `perror("fopen")`).
    Open(io::Error),
    /// The file does not read.
    Read(io::Error),
    /// The file is empty.
    ShortRead,
    /// A stream is not zlib data.
    Data,
    /// Writing the text failed.
    Write(io::Error),
}

impl InflateError {
    /// The exit status fio ends with.
    pub fn exit_status(&self) -> i32 {
        match self {
            InflateError::Data => Z_DATA_ERROR & 0xff,
            _ => 1,
        }
    }
}

/// The C library's text of `e`, without Rust's ` (os error N)`.
fn os_text(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

impl fmt::Display for InflateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InflateError::Open(e) => write!(f, "fopen: {}", os_text(e)),
            InflateError::Read(e) => write!(f, "fread: {}", os_text(e)),
            InflateError::ShortRead => f.write_str("fio: short read on reading log"),
            InflateError::Data => write!(f, "fio: failed inflating log: {Z_DATA_ERROR}"),
            InflateError::Write(e) => write!(f, "fio: error writing log: {}", os_text(e)),
        }
    }
}

/// Print the compressed log `path` as text into `out`.
pub fn inflate_file(path: &Path, out: &mut dyn Write) -> Result<(), InflateError> {
    let mut f = std::fs::File::open(path).map_err(InflateError::Open)?;
    let mut data = Vec::new();
    f.read_to_end(&mut data).map_err(InflateError::Read)?;
    inflate_bytes(&data, out)
}

/// Print the compressed log `data` as text into `out`.
pub(crate) fn inflate_bytes(data: &[u8], out: &mut dyn Write) -> Result<(), InflateError> {
    if data.is_empty() {
        return Err(InflateError::ShortRead);
    }
    let mut rest = data;
    while !rest.is_empty() {
        let stream = one_stream(rest).ok_or(InflateError::Data)?;
        sample::write_text(&stream.bytes, out).map_err(InflateError::Write)?;
        if !stream.complete {
            break;
        }
        rest = &rest[stream.used..];
    }
    Ok(())
}

/// One inflated stream: its bytes, how much input it took, and whether it
/// ended (else the input ran out first).
struct Stream {
    bytes: Vec<u8>,
    used: usize,
    complete: bool,
}

/// Inflate the stream at the start of `input`; `None` if it is not zlib
/// (or gzip) data.
fn one_stream(input: &[u8]) -> Option<Stream> {
    if input.starts_with(&[0x1f, 0x8b]) {
        return gunzip_one(input);
    }
    let mut z = Decompress::new(true);
    let mut out: Vec<u8> = Vec::with_capacity(input.len().saturating_mul(4).max(4096));
    loop {
        if out.len() == out.capacity() {
            out.reserve(out.capacity());
        }
        let (in_before, out_before) = (z.total_in(), out.len());
        let used = usize::try_from(z.total_in()).ok()?;
        let status = z
            .decompress_vec(&input[used..], &mut out, FlushDecompress::None)
            .ok()?;
        let used = usize::try_from(z.total_in()).ok()?;
        if status == Status::StreamEnd {
            return Some(Stream {
                bytes: out,
                used,
                complete: true,
            });
        }
        let stuck = z.total_in() == in_before && out.len() == out_before;
        if used == input.len() && out.len() < out.capacity() || stuck {
            return Some(Stream {
                bytes: out,
                used,
                complete: false,
            });
        }
    }
}

/// A gzip member at the start of `input`.
fn gunzip_one(input: &[u8]) -> Option<Stream> {
    let mut rest = input;
    let mut out = Vec::new();
    let r = flate2::bufread::GzDecoder::new(&mut rest).read_to_end(&mut out);
    match r {
        Ok(_) => Some(Stream {
            bytes: out,
            used: input.len() - rest.len(),
            complete: true,
        }),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Some(Stream {
            bytes: out,
            used: input.len(),
            complete: false,
        }),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::sample::{deflate, Layout, Sample};
    use super::*;

    fn records(n: u64, first: u64) -> Vec<u8> {
        let l = Layout {
            offset: true,
            prio: false,
        };
        let mut raw = Vec::new();
        for k in first..first + n {
            let s = Sample {
                time: k,
                value: 1,
                dir: 1,
                bs: 4096,
                offset: k * 4096,
                ..Sample::default()
            };
            l.encode(&s, &mut raw);
        }
        raw
    }

    fn inflate(data: &[u8]) -> (Result<(), InflateError>, Vec<String>) {
        let mut out = Vec::new();
        let r = inflate_bytes(data, &mut out);
        let text = String::from_utf8(out).unwrap();
        (r, text.lines().map(String::from).collect())
    }

    #[test]
    fn streams_are_printed_in_turn() {
        let mut fz = deflate(&records(3, 0));
        fz.extend(deflate(&[]));
        fz.extend(deflate(&records(2, 3)));
        let (r, lines) = inflate(&fz);
        assert!(r.is_ok());
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], "0, 1, 1, 4096, 0, 0");
        assert_eq!(lines[4], "4, 1, 1, 4096, 16384, 0");
    }

    #[test]
    fn a_stream_cut_short_prints_what_it_holds() {
        let raw = records(2000, 0);
        let fz = deflate(&raw);
        let (r, lines) = inflate(&fz[..fz.len() / 2]);
        assert!(r.is_ok());
        assert!(!lines.is_empty() && lines.len() < 2000, "{}", lines.len());
        assert_eq!(lines[0], "0, 1, 1, 4096, 0, 0");
    }

    #[test]
    fn garbage_is_fios_data_error_after_the_good_streams() {
        let mut fz = deflate(&records(2, 0));
        fz.extend_from_slice(b"hello\n");
        let (r, lines) = inflate(&fz);
        let e = r.unwrap_err();
        assert_eq!(e.to_string(), "fio: failed inflating log: -3");
        assert_eq!(e.exit_status(), 253);
        assert_eq!(lines.len(), 2);
        let (r, _) = inflate(b"");
        assert_eq!(r.unwrap_err().to_string(), "fio: short read on reading log");
    }

    #[test]
    fn gzip_members_inflate_too() {
        let raw = records(4, 0);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&raw).unwrap();
        let mut data = gz.finish().unwrap();
        data.extend(deflate(&records(1, 4)));
        let (r, lines) = inflate(&data);
        assert!(r.is_ok());
        assert_eq!(lines.len(), 5);
    }

    #[test]
    fn a_missing_file_is_fopen_failing() {
        let e = inflate_file(Path::new("/nonexistent/x.fz"), &mut Vec::new()).unwrap_err();
        assert_eq!(e.to_string(), "fopen: No such file or directory");
        assert_eq!(e.exit_status(), 1);
    }
}
