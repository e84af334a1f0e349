//! `--inflate-log=FILE`: print a compressed log (`log_store_compressed=1`,
//! a `.log.fz` file) as text on stdout, as fio 3.33's
//! `iolog_file_inflate` does.
//!
//! The file is zlib streams one after the other, each holding fio's
//! sample records ([`super::sample`]); each stream is inflated and printed
//! in turn (its layout read from its first record). A stream that is not
//! zlib (or gzip, which fio's inflater also accepts) ends it with fio's
//! `failed inflating log: -3` (zlib's `Z_DATA_ERROR`) and exit status 253,
//! after the streams before it were printed.
//!
//! Unlike fio, which reads the whole file and inflates each stream whole
//! into memory, the file is read, inflated and printed as a stream through
//! fixed buffers ([`IN_BUF`], [`OUT_BUF`], [`TEXT_BUF`]): a few KiB of zlib
//! that inflate to gigabytes of records print in constant memory. A file
//! that ends inside a stream is an error naming the file and the records
//! printed (fio prints what the stream holds and exits 0), and so is a
//! failing write of the text (fio ignores it).

use std::fmt;
use std::io::{self, BufRead, Read, Write};
use std::path::Path;

use flate2::{Decompress, FlushDecompress, Status};

use super::sample::{self, Layout};

/// zlib's `Z_DATA_ERROR`, which fio reports and exits with.
const Z_DATA_ERROR: i32 = -3;
/// The compressed bytes read from the file at a time.
const IN_BUF: usize = 64 << 10;
/// The inflated records handled at a time.
const OUT_BUF: usize = 128 << 10;
/// The text gathered before it is written out.
const TEXT_BUF: usize = 64 << 10;

/// Where in a log an inflation stopped: the file (as shown), the zlib
/// stream (1-based) and the records printed before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    pub file: String,
    pub stream: u64,
    pub records: u64,
}

/// Why a log could not be inflated, worded as fio words it where fio
/// fails too.
#[derive(Debug)]
pub enum InflateError {
    /// The file does not open (fio's `perror("fopen")`).
    Open(io::Error),
    /// The file does not read.
    Read(io::Error),
    /// The file is empty.
    ShortRead,
    /// A stream is not zlib data.
    Data(At),
    /// The file ends inside a stream (fio prints what it holds, exit 0).
    Truncated(At),
    /// The text would pass the caller's limit of this many bytes.
    TooLarge(At, u64),
    /// Writing the text failed.
    Write(io::Error, At),
}

impl InflateError {
    /// Where a stream that is not zlib data stopped the inflation, worded
    /// for a line of its own after fio's message.
    pub fn data_error_at(&self) -> Option<String> {
        match self {
            InflateError::Data(at) => Some(format!(
                "rfio: {}: zlib stream {} is not zlib data, after {}",
                at.file,
                at.stream,
                records(at.records)
            )),
            _ => None,
        }
    }

    /// The exit status fio ends with (1 where rfio fails and fio does not).
    pub fn exit_status(&self) -> i32 {
        match self {
            InflateError::Data(_) => Z_DATA_ERROR & 0xff,
            _ => 1,
        }
    }
}

/// `n record(s)`.
fn records(n: u64) -> String {
    format!("{n} record{}", if n == 1 { "" } else { "s" })
}

impl fmt::Display for InflateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InflateError::Open(e) => write!(f, "fopen: {}", crate::diag::io_reason(e)),
            InflateError::Read(e) => write!(f, "fread: {}", crate::diag::io_reason(e)),
            InflateError::ShortRead => f.write_str("fio: short read on reading log"),
            // fio's words; [`InflateError::at`] tells where.
            InflateError::Data(_) => write!(f, "fio: failed inflating log: {Z_DATA_ERROR}"),
            InflateError::Truncated(at) => write!(
                f,
                "rfio: {}: the log is cut short: it ends inside zlib stream {}, after {}",
                at.file,
                at.stream,
                records(at.records)
            ),
            InflateError::TooLarge(at, limit) => write!(
                f,
                "rfio: {}: the log inflates to more than {limit} bytes of text \
                 (zlib stream {}, after {})",
                at.file,
                at.stream,
                records(at.records)
            ),
            InflateError::Write(e, at) => write!(
                f,
                "rfio: {}: error writing the log: {} (after {})",
                at.file,
                crate::diag::io_reason(e),
                records(at.records)
            ),
        }
    }
}

/// Print the compressed log `path` as text into `out`, as it inflates.
pub fn inflate_file(path: &Path, out: &mut dyn Write) -> Result<(), InflateError> {
    inflate_file_capped(path, out, u64::MAX)
}

/// Print the compressed log `path` as text into `out`, at most `limit`
/// bytes of it: a log that inflates to more is [`InflateError::TooLarge`]
/// (for callers that keep the text in memory).
pub fn inflate_file_capped(
    path: &Path,
    out: &mut dyn Write,
    limit: u64,
) -> Result<(), InflateError> {
    let mut f = std::fs::File::open(path).map_err(InflateError::Open)?;
    let shown = crate::diag::quote(&path.display().to_string(), 256);
    inflate_from(&mut f, &shown, out, limit).map(|_| ())
}

/// Print the compressed log `data` (rfio's own streams) as text into `out`.
pub(crate) fn inflate_bytes(data: &[u8], out: &mut dyn Write) -> Result<(), InflateError> {
    inflate_from(&mut &data[..], "<memory>", out, u64::MAX).map(|_| ())
}

/// Print the compressed log read from `input` (shown as `file` in errors)
/// as text into `out`, at most `limit` bytes; the records printed.
pub(crate) fn inflate_from(
    input: &mut dyn Read,
    file: &str,
    out: &mut dyn Write,
    limit: u64,
) -> Result<u64, InflateError> {
    let mut input = Input::new(input);
    if input.fill_buf().map_err(InflateError::Read)?.is_empty() {
        return Err(InflateError::ShortRead);
    }
    let mut p = Printer::new(out, limit);
    let mut buf = vec![0u8; OUT_BUF];
    let mut stream = 0;
    let end = loop {
        if input.fill_buf().map_err(InflateError::Read)?.is_empty() {
            break Ok(());
        }
        stream += 1;
        p.start_stream();
        let gzip = input.peek(2).map_err(InflateError::Read)? == [0x1f, 0x8b];
        let ended = if gzip {
            gunzip_one(&mut input, &mut p, &mut buf)
        } else {
            inflate_one(&mut input, &mut p, &mut buf)
        };
        match ended {
            Ok(End::Complete) => {}
            Ok(end) => break Err(end),
            Err(Fail::Read(e)) => return Err(InflateError::Read(e)),
            Err(Fail::Out(e)) => return Err(p.failed(e, file, stream)),
        }
    };
    if let Err(e) = p.flush() {
        return Err(p.failed(OutError::Write(e), file, stream));
    }
    let at = At {
        file: file.to_string(),
        stream,
        records: p.records,
    };
    match end {
        Ok(()) => Ok(p.records),
        Err(End::Corrupt) => Err(InflateError::Data(at)),
        Err(_) => Err(InflateError::Truncated(at)),
    }
}

/// How a stream ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// Its end, checksum and all.
    Complete,
    /// The input ran out first.
    Truncated,
    /// It is not zlib (or gzip) data.
    Corrupt,
}

/// What stops the inflation at once: the file does not read, or the text
/// does not go out (or would pass the limit).
enum Fail {
    Read(io::Error),
    Out(OutError),
}

/// Why the text did not go out.
enum OutError {
    Write(io::Error),
    TooLarge(u64),
}

/// Inflate the zlib stream at the start of `input` into `p`.
fn inflate_one(input: &mut Input, p: &mut Printer, buf: &mut [u8]) -> Result<End, Fail> {
    let mut z = Decompress::new(true);
    loop {
        let avail = input.fill_buf().map_err(Fail::Read)?;
        let (in_before, out_before) = (z.total_in(), z.total_out());
        let status = z.decompress(avail, buf, FlushDecompress::None);
        // Both are bounded by the slices just passed.
        let used = (z.total_in() - in_before) as usize;
        let made = (z.total_out() - out_before) as usize;
        input.consume(used);
        p.feed(&buf[..made]).map_err(Fail::Out)?;
        match status {
            Err(_) => return Ok(End::Corrupt),
            Ok(Status::StreamEnd) => return Ok(End::Complete),
            // No progress: the input ran out (or zlib wants what it
            // cannot have).
            Ok(_) if used == 0 && made == 0 => return Ok(End::Truncated),
            Ok(_) => {}
        }
    }
}

/// Inflate the gzip member at the start of `input` into `p`.
fn gunzip_one(input: &mut Input, p: &mut Printer, buf: &mut [u8]) -> Result<End, Fail> {
    let mut gz = flate2::bufread::GzDecoder::new(input);
    loop {
        match gz.read(buf) {
            Ok(0) => return Ok(End::Complete),
            Ok(n) => p.feed(&buf[..n]).map_err(Fail::Out)?,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(End::Truncated),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Ok(End::Corrupt),
        }
    }
}

/// The file through a fixed buffer that can show the next bytes
/// ([`Input::peek`]) across a refill.
struct Input<'a> {
    r: &'a mut dyn Read,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
}

impl<'a> Input<'a> {
    fn new(r: &'a mut dyn Read) -> Input<'a> {
        Input {
            r,
            buf: vec![0u8; IN_BUF].into_boxed_slice(),
            start: 0,
            end: 0,
        }
    }

    /// Read once into the free end of the buffer; 0 at the end of file.
    fn read_more(&mut self) -> io::Result<usize> {
        loop {
            match self.r.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The next `n` bytes at most (fewer at the end of the file).
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.end - self.start < n {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            while self.end < n && self.read_more()? > 0 {}
        }
        let n = n.min(self.end - self.start);
        Ok(&self.buf[self.start..self.start + n])
    }
}

impl Read for Input<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let avail = self.fill_buf()?;
            let n = avail.len().min(out.len());
            out[..n].copy_from_slice(&avail[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Input<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.read_more()?;
        }
        Ok(&self.buf[self.start..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }
}

/// The inflated records of each stream, printed as text lines through a
/// fixed buffer: the stream's layout read from its first record, a record
/// cut between two inflated pieces held until it is whole, a partial
/// record at a stream's end dropped (as fio's `flush_samples`).
struct Printer<'a> {
    out: &'a mut dyn Write,
    text: Vec<u8>,
    /// The start of a record not yet whole.
    part: [u8; 40],
    part_len: usize,
    /// This stream's layout, once its first 20 bytes are in.
    layout: Option<Layout>,
    records: u64,
    /// Text bytes written out, and how many may be.
    written: u64,
    limit: u64,
}

impl<'a> Printer<'a> {
    fn new(out: &'a mut dyn Write, limit: u64) -> Printer<'a> {
        Printer {
            out,
            text: Vec::with_capacity(TEXT_BUF + 128),
            part: [0; 40],
            part_len: 0,
            layout: None,
            records: 0,
            written: 0,
            limit,
        }
    }

    fn start_stream(&mut self) {
        self.part_len = 0;
        self.layout = None;
    }

    /// Print the records `bytes` complete.
    fn feed(&mut self, mut bytes: &[u8]) -> Result<(), OutError> {
        while !bytes.is_empty() {
            if self.layout.is_none() || self.part_len > 0 {
                // Complete the layout word (20 bytes), then the record.
                let want = self.layout.map_or(20, |l| l.entry_bytes());
                let take = (want - self.part_len).min(bytes.len());
                self.part[self.part_len..self.part_len + take].copy_from_slice(&bytes[..take]);
                self.part_len += take;
                bytes = &bytes[take..];
                if self.part_len < want {
                    break;
                }
                match self.layout {
                    None => self.layout = Some(Layout::of_ddir(sample::ddir_of(&self.part))),
                    Some(l) => {
                        let rec = self.part;
                        self.part_len = 0;
                        self.print(l, &rec[..want])?;
                    }
                }
                continue;
            }
            let Some(l) = self.layout else { break };
            let n = l.entry_bytes();
            let whole = bytes.len() / n * n;
            for rec in bytes[..whole].chunks_exact(n) {
                self.print(l, rec)?;
            }
            let rest = &bytes[whole..];
            self.part[..rest.len()].copy_from_slice(rest);
            self.part_len = rest.len();
            break;
        }
        Ok(())
    }

    fn print(&mut self, l: Layout, rec: &[u8]) -> Result<(), OutError> {
        let before = self.text.len();
        sample::write_record(l, rec, &mut self.text);
        if self.written + self.text.len() as u64 > self.limit {
            self.text.truncate(before);
            self.flush().map_err(OutError::Write)?;
            return Err(OutError::TooLarge(self.limit));
        }
        self.records += 1;
        if self.text.len() >= TEXT_BUF {
            self.flush().map_err(OutError::Write)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.text.is_empty() {
            self.out.write_all(&self.text)?;
            self.written += self.text.len() as u64;
            self.text.clear();
        }
        self.out.flush()
    }

    /// The error of `e` at `stream` of `file`.
    fn failed(&self, e: OutError, file: &str, stream: u64) -> InflateError {
        let at = At {
            file: file.to_string(),
            stream,
            records: self.records,
        };
        match e {
            OutError::Write(e) => InflateError::Write(e, at),
            OutError::TooLarge(limit) => InflateError::TooLarge(at, limit),
        }
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
    fn a_stream_cut_short_is_an_error_after_what_it_holds() {
        let raw = records(2000, 0);
        let mut fz = deflate(&records(3, 0));
        let whole = deflate(&raw);
        fz.extend_from_slice(&whole[..whole.len() / 2]);
        let (r, lines) = inflate(&fz);
        let e = r.unwrap_err();
        let n = lines.len() as u64;
        assert!(n > 3 && n < 2003, "{n}");
        assert_eq!(
            e.to_string(),
            format!(
                "rfio: <memory>: the log is cut short: it ends inside zlib stream 2, \
                 after {n} records"
            )
        );
        assert_eq!(e.exit_status(), 1);
        assert_eq!(lines[3], "0, 1, 1, 4096, 0, 0");
        // Only the checksum missing is cut short too.
        let (r, lines) = inflate(&whole[..whole.len() - 2]);
        assert!(matches!(
            r,
            Err(InflateError::Truncated(At { records: 2000, .. }))
        ));
        assert_eq!(lines.len(), 2000);
    }

    #[test]
    fn garbage_is_fios_data_error_after_the_good_streams() {
        let mut fz = deflate(&records(2, 0));
        fz.extend_from_slice(b"hello\n");
        let (r, lines) = inflate(&fz);
        let e = r.unwrap_err();
        assert_eq!(e.to_string(), "fio: failed inflating log: -3");
        assert_eq!(
            e.data_error_at().unwrap(),
            "rfio: <memory>: zlib stream 2 is not zlib data, after 2 records"
        );
        assert_eq!(e.exit_status(), 253);
        assert_eq!(lines.len(), 2);
        let (r, _) = inflate(b"");
        assert_eq!(r.unwrap_err().to_string(), "fio: short read on reading log");
    }

    /// A reader handing out `step` bytes at a time.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn records_and_headers_cut_between_reads_print_whole() {
        let raw = records(5000, 0);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&records(7, 5000)).unwrap();
        let mut fz = deflate(&raw);
        fz.extend(gz.finish().unwrap());
        let mut want = Vec::new();
        assert_eq!(
            inflate_from(&mut &fz[..], "x", &mut want, u64::MAX).unwrap(),
            5007
        );
        for step in [1, 3, 4096, IN_BUF - 1] {
            // The gzip magic split across two reads of the buffer, too.
            let mut out = Vec::new();
            let n = inflate_from(&mut Trickle(&fz, step), "x", &mut out, u64::MAX).unwrap();
            assert_eq!(n, 5007, "step {step}");
            assert!(out == want, "step {step}");
        }
        let text = String::from_utf8(want).unwrap();
        assert_eq!(
            text.lines().nth(5006),
            Some("5006, 1, 1, 4096, 20504576, 0")
        );
    }

    #[test]
    fn a_bomb_is_cut_at_the_limit_and_inflates_in_fixed_buffers() {
        // 64 MiB of zero records in 64 KiB of zlib: 2 Mi lines of text.
        let zeros = vec![0u8; 64 << 20];
        let fz = deflate(&zeros);
        assert!(fz.len() < 128 << 10, "{}", fz.len());
        let mut out = Vec::new();
        let e = inflate_from(&mut &fz[..], "b.fz", &mut out, 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "rfio: b.fz: the log inflates to more than 1048576 bytes of text \
             (zlib stream 1, after 74898 records)"
        );
        assert_eq!(out.len(), 74898 * 14);
        assert!(out.starts_with(b"0, 0, 0, 0, 0\n"));
        /// Counts what is written and keeps none of it.
        struct Count(u64);
        impl Write for Count {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                assert!(b.len() <= TEXT_BUF + 128, "the text goes out in pieces");
                self.0 += b.len() as u64;
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut c = Count(0);
        assert_eq!(
            inflate_from(&mut &fz[..], "b.fz", &mut c, u64::MAX).unwrap(),
            2 << 20
        );
        assert_eq!(c.0, (2 << 20) * 14);
    }

    #[test]
    fn a_failing_write_names_the_file_and_the_records() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from_raw_os_error(libc::ENOSPC))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let fz = deflate(&records(3, 0));
        let e = inflate_from(&mut &fz[..], "w.fz", &mut Full, u64::MAX).unwrap_err();
        assert_eq!(
            e.to_string(),
            "rfio: w.fz: error writing the log: No space left on device (after 3 records)"
        );
        assert_eq!(e.exit_status(), 1);
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
