//! fio's in-memory log sample and the zlib streams it is compressed in
//! (fio 3.33 `iolog.h`, `iolog.c`).
//!
//! fio keeps every log in memory as an array of `struct io_sample`
//! records, in the host's byte order (x86-64 and aarch64: little endian):
//!
//! | bytes | field | |
//! |---|---|---|
//! | 0..8 | `time` | ms since the job's epoch (plus the alternate epoch) |
//! | 8..16 | `data.val` | the value (printed signed, `PRId64`) |
//! | 16..20 | `__ddir` | the direction, with bit 31 set when the record has an offset and bit 30 when `log_prio=1` |
//! | 20..22 | `priority` | the I/O priority |
//! | 22..24 | padding | zero |
//! | 24..32 | `bs` | the block size |
//! | 32..40 | `offset` | only with `log_offset=1` (`struct io_sample_offset`) |
//!
//! `log_compression` deflates each full array into one zlib stream
//! (default level); `log_store_compressed=1` writes the streams one after
//! the other into the `.log.fz` file, which `--inflate-log` reads back:
//! stream by stream, each printed as fio's `flush_samples` prints a log.

use std::io::{self, Write};

use flate2::write::ZlibEncoder;
use flate2::Compression;

/// fio's `LOG_OFFSET_SAMPLE_BIT`: the record has an offset.
const OFFSET_BIT: u32 = 0x8000_0000;
/// fio's `LOG_PRIO_SAMPLE_BIT`: print the priority as `0x%04x`.
const PRIO_BIT: u32 = 0x4000_0000;
/// fio's `IOPRIO_CLASS_RT` in the class bits of a priority.
const IOPRIO_CLASS_RT: u16 = 1;
/// fio's `MAX_LOG_ENTRIES`: an in-memory array never grows past this.
pub(crate) const MAX_LOG_ENTRIES: usize = 1024 * 1024;

/// One sample of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Sample {
    pub(crate) time: u64,
    pub(crate) value: u64,
    pub(crate) dir: u32,
    pub(crate) prio: u16,
    pub(crate) bs: u64,
    pub(crate) offset: u64,
}

/// The record layout of one log: with or without the offset, with the
/// priority printed in hex or as the real-time flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) offset: bool,
    pub(crate) prio: bool,
}

impl Layout {
    /// fio's `log_ddir_mask`.
    fn bits(self) -> u32 {
        (if self.offset { OFFSET_BIT } else { 0 }) | (if self.prio { PRIO_BIT } else { 0 })
    }

    /// fio's `log_entry_sz`: the bytes of one record.
    pub(crate) fn entry_bytes(self) -> usize {
        if self.offset {
            40
        } else {
            32
        }
    }

    /// The layout the ddir bits of a record name.
    pub(crate) fn of_ddir(ddir: u32) -> Layout {
        Layout {
            offset: ddir & OFFSET_BIT != 0,
            prio: ddir & PRIO_BIT != 0,
        }
    }

    /// Append the record of `s` to `out`.
    #[inline]
    pub(crate) fn encode(self, s: &Sample, out: &mut Vec<u8>) {
        let mut rec = [0u8; 40];
        rec[0..8].copy_from_slice(&s.time.to_ne_bytes());
        rec[8..16].copy_from_slice(&s.value.to_ne_bytes());
        rec[16..20].copy_from_slice(&(s.dir | self.bits()).to_ne_bytes());
        rec[20..22].copy_from_slice(&s.prio.to_ne_bytes());
        rec[24..32].copy_from_slice(&s.bs.to_ne_bytes());
        rec[32..40].copy_from_slice(&s.offset.to_ne_bytes());
        out.extend_from_slice(&rec[..self.entry_bytes()]);
    }
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[at..at + 8]);
    u64::from_ne_bytes(v)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut v = [0u8; 4];
    v.copy_from_slice(&b[at..at + 4]);
    u32::from_ne_bytes(v)
}

/// The ddir word of the record starting `rec` (at least 20 bytes): what
/// tells its layout ([`Layout::of_ddir`]).
pub(crate) fn ddir_of(rec: &[u8]) -> u32 {
    u32_at(rec, 16)
}

/// Print the records in `samples` as text lines, as fio's `flush_samples`
/// does: the layout is the first record's; a partial record at the end is
/// not printed.
pub(crate) fn write_text(samples: &[u8], w: &mut dyn Write) -> io::Result<()> {
    if samples.len() < 20 {
        return Ok(());
    }
    let layout = Layout::of_ddir(ddir_of(samples));
    let mut line = Vec::with_capacity(96);
    for rec in samples.chunks_exact(layout.entry_bytes()) {
        line.clear();
        write_record(layout, rec, &mut line);
        w.write_all(&line)?;
    }
    Ok(())
}

/// Append the text line of the record `rec` (`layout.entry_bytes()` long)
/// to `line`, as fio's `flush_samples` prints it.
pub(crate) fn write_record(layout: Layout, rec: &[u8], line: &mut Vec<u8>) {
    let time = u64_at(rec, 0);
    let value = u64_at(rec, 8) as i64;
    let dir = u32_at(rec, 16) & !(OFFSET_BIT | PRIO_BIT);
    let prio = u16::from_ne_bytes([rec[20], rec[21]]);
    let bs = u64_at(rec, 24);
    // Writing into a Vec cannot fail.
    let _ = write!(line, "{time}, {value}, {dir}, {bs}, ");
    if layout.offset {
        let _ = write!(line, "{}, ", u64_at(rec, 32));
    }
    let _ = if layout.prio {
        writeln!(line, "0x{prio:04x}")
    } else {
        writeln!(line, "{}", u8::from(prio >> 13 == IOPRIO_CLASS_RT))
    };
}

/// `bytes` as one zlib stream, at zlib's default level (fio's
/// `deflateInit(Z_DEFAULT_COMPRESSION)`).
pub(crate) fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut z = ZlibEncoder::new(
        Vec::with_capacity(bytes.len() / 8 + 64),
        Compression::default(),
    );
    // Writing into a Vec cannot fail.
    let _ = z.write_all(bytes);
    z.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(k: u64) -> Sample {
        Sample {
            time: 10 + k,
            value: 4096 * k,
            dir: (k % 3) as u32,
            prio: if k == 2 { 1 << 13 | 4 } else { 0 },
            bs: 4096,
            offset: k * 4096,
        }
    }

    fn text(layout: Layout, n: u64) -> String {
        let mut raw = Vec::new();
        for k in 0..n {
            layout.encode(&sample(k), &mut raw);
        }
        assert_eq!(raw.len(), n as usize * layout.entry_bytes());
        let mut out = Vec::new();
        write_text(&raw, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn records_print_as_fio_prints_them() {
        let plain = Layout {
            offset: false,
            prio: false,
        };
        assert_eq!(
            text(plain, 3),
            "10, 0, 0, 4096, 0\n11, 4096, 1, 4096, 0\n12, 8192, 2, 4096, 1\n"
        );
        let both = Layout {
            offset: true,
            prio: true,
        };
        assert_eq!(
            text(both, 3),
            "10, 0, 0, 4096, 0, 0x0000\n11, 4096, 1, 4096, 4096, 0x0000\n\
             12, 8192, 2, 4096, 8192, 0x2004\n"
        );
    }

    #[test]
    fn the_record_is_fios_struct() {
        let mut raw = Vec::new();
        let l = Layout {
            offset: true,
            prio: false,
        };
        l.encode(&sample(1), &mut raw);
        assert_eq!(raw.len(), 40);
        assert_eq!(u64_at(&raw, 0), 11);
        assert_eq!(u32_at(&raw, 16), 1 | OFFSET_BIT);
        assert_eq!(&raw[22..24], &[0, 0], "padding is zero");
        assert_eq!(u64_at(&raw, 32), 4096);
    }

    #[test]
    fn a_partial_record_is_not_printed() {
        let l = Layout {
            offset: false,
            prio: false,
        };
        let mut raw = Vec::new();
        l.encode(&sample(0), &mut raw);
        l.encode(&sample(1), &mut raw);
        raw.truncate(50);
        let mut out = Vec::new();
        write_text(&raw, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "10, 0, 0, 4096, 0\n");
        let mut out = Vec::new();
        write_text(&raw[..10], &mut out).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn a_stream_inflates_to_its_records() {
        let raw: Vec<u8> = (0..5000u32).flat_map(|i| i.to_ne_bytes()).collect();
        let z = deflate(&raw);
        assert_eq!(z[0], 0x78, "a zlib header");
        let mut back = Vec::new();
        let mut d = flate2::read::ZlibDecoder::new(&z[..]);
        std::io::Read::read_to_end(&mut d, &mut back).unwrap();
        assert_eq!(back, raw);
    }
}
