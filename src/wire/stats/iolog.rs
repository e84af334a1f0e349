//! IOLOG: a job's log (fio's `cmd_iolog_pdu` header, then its samples:
//! plain, deflated for the transfer, or the job's own compressed chunks).
//!
//! fio's deflated samples are one zlib stream the server never finishes
//! (no final block, no trailer): rfio inflates until the input runs out
//! and takes that as the end. The server also never fills the header's
//! `log_offset`/`log_prio`/`log_issue_time`: the sample layout is read
//! from the first sample's direction word, as fio's `flush_samples` does.

use std::fmt::Write as _;

use flate2::{Decompress, FlushDecompress, Status};

use super::layout::{iolog_layout, IologLayout, PLAT_NR};
use crate::wire::{BodyError, Le};

/// `compressed`: deflated for the transfer (`XMIT_COMPRESSED`) or the
/// job's `log_compression` chunks (`STORE_COMPRESSED`, written as is).
pub(crate) const XMIT_COMPRESSED: u32 = 1;
pub(crate) const STORE_COMPRESSED: u32 = 2;
/// `log_type` of a histogram log (each sample carries 1,856 buckets).
pub(crate) const LOG_TYPE_HIST: u32 = 6;
/// Bits of a sample's direction word (`LOG_*_SAMPLE_BIT`).
pub(crate) const OFFSET_BIT: u32 = 0x8000_0000;
pub(crate) const PRIO_BIT: u32 = 0x4000_0000;
pub(crate) const AVG_MAX_BIT: u32 = 0x2000_0000;
pub(crate) const ISSUE_TIME_BIT: u32 = 0x1000_0000;
const SAMPLE_BITS: u32 = OFFSET_BIT | PRIO_BIT | AVG_MAX_BIT | ISSUE_TIME_BIT;
/// A histogram sample's `io_u_plat_entry`: list pointers, buckets.
const HIST_ENTRY: usize = 16 + PLAT_NR * 8;
/// At most this much is inflated from one body (a bomb is cut, an error).
const MAX_INFLATED: usize = 64 << 20;

/// One log sample.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct IologSample {
    /// ms since the job's start (or the epoch with `log_unix_epoch`).
    pub(crate) time: u64,
    /// The value (fio prints it signed); `value2` the window's maximum
    /// when both are logged (3.37+, [`AVG_MAX_BIT`]), else 0.
    pub(crate) value: u64,
    pub(crate) value2: u64,
    /// fio's `__ddir`: the direction in the low bits, then the flag bits.
    pub(crate) ddir: u32,
    pub(crate) prio: u16,
    pub(crate) bs: u64,
    pub(crate) offset: Option<u64>,
    /// The I/O's issue time (3.38+ `log_issue_time`).
    pub(crate) issue_time: Option<u64>,
    /// A histogram log's bucket counts (empty for other logs).
    pub(crate) hist: Vec<u64>,
}

impl IologSample {
    /// The direction without the flag bits (fio's `io_sample_ddir`).
    pub(crate) fn dir(&self) -> u32 {
        self.ddir & !SAMPLE_BITS
    }
}

/// A decoded IOLOG body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Iolog {
    pub(crate) nr_samples: u64,
    pub(crate) thread_number: u32,
    /// 1 lat, 2 clat, 3 slat, 4 bw, 5 iops, 6 hist.
    pub(crate) log_type: u32,
    pub(crate) compressed: u32,
    pub(crate) log_offset: u32,
    pub(crate) log_prio: u32,
    pub(crate) log_issue_time: u32,
    pub(crate) hist_coarseness: u32,
    /// 3.37+ (`None` before).
    pub(crate) per_job_logs: Option<u32>,
    /// The log's file name on the server (`bwl_bw.1.log`).
    pub(crate) name: String,
    pub(crate) samples: Vec<IologSample>,
    /// [`STORE_COMPRESSED`]: the bytes after the header, to be written as
    /// they are; empty otherwise.
    pub(crate) stored: Vec<u8>,
}

fn bad(why: String) -> BodyError {
    BodyError::Bad { what: "IOLOG", why }
}

/// Inflate a zlib stream that may end without its final block or
/// trailer; at most `limit` bytes.
pub(crate) fn inflate_unfinished(z: &[u8], limit: usize) -> Result<Vec<u8>, BodyError> {
    let mut d = Decompress::new(true);
    let mut out: Vec<u8> = Vec::with_capacity(z.len().saturating_mul(4).min(limit).min(1 << 20));
    loop {
        if out.len() == out.capacity() {
            if out.len() >= limit {
                return Err(bad(format!("inflates past {limit} bytes")));
            }
            out.reserve((out.len().max(64 << 10)).min(limit - out.len()));
        }
        let consumed = d.total_in() as usize;
        let before = out.len();
        let status = d
            .decompress_vec(
                z.get(consumed..).unwrap_or(&[]),
                &mut out,
                FlushDecompress::None,
            )
            .map_err(|e| bad(format!("inflate: {e}")))?;
        match status {
            Status::StreamEnd => return Ok(out),
            _ if d.total_in() as usize >= z.len() && out.len() < out.capacity() => return Ok(out),
            Status::BufError if out.len() == before && d.total_in() as usize == consumed => {
                return Ok(out)
            }
            _ => {}
        }
    }
}

/// The IOLOG body of wire `version`.
pub(crate) fn decode_iolog(b: &[u8], version: u16) -> Result<Iolog, BodyError> {
    let l = iolog_layout(version).ok_or_else(|| bad(format!("no layout for version {version}")))?;
    let r = Le::new("IOLOG", b, l.header)?;
    let mut log = Iolog {
        nr_samples: r.u64(0),
        thread_number: r.u32(8),
        log_type: r.u32(12),
        compressed: r.u32(16),
        log_offset: r.u32(20),
        log_prio: r.u32(24),
        log_issue_time: l.issue_time_at.map_or(0, |at| r.u32(at)),
        hist_coarseness: r.u32(l.coarseness_at),
        per_job_logs: l.per_job_logs_at.map(|at| r.u32(at)),
        name: r.cstr(l.name_at, 256),
        samples: Vec::new(),
        stored: Vec::new(),
    };
    let rest = &b[l.header..];
    let raw = match log.compressed {
        STORE_COMPRESSED => {
            log.stored = rest.to_vec();
            return Ok(log);
        }
        XMIT_COMPRESSED => inflate_unfinished(rest, MAX_INFLATED)?,
        0 => rest.to_vec(),
        n => return Err(bad(format!("compressed {n}"))),
    };
    log.samples = decode_samples(&raw, &l, log.log_type == LOG_TYPE_HIST, log.nr_samples);
    Ok(log)
}

/// Up to `nr` samples of `raw`, the layout that of the first sample (a
/// partial sample at the end is left out).
fn decode_samples(raw: &[u8], l: &IologLayout, hist: bool, nr: u64) -> Vec<IologSample> {
    let ddir_at = l.sample - 16;
    let r = Le { b: raw };
    let first = r.u32(ddir_at);
    let offset = first & OFFSET_BIT != 0;
    let issue = l.issue_time_at.is_some() && first & ISSUE_TIME_BIT != 0;
    let base = l.sample + 8 * usize::from(offset) + 8 * usize::from(issue);
    let entry = base + if hist { HIST_ENTRY } else { 0 };
    let n = (raw.len() / entry).min(usize::try_from(nr).unwrap_or(usize::MAX));
    (0..n)
        .map(|i| {
            let at = i * entry;
            let (value2, ddir) = if l.sample == 40 {
                (r.u64(at + 16), r.u32(at + 24))
            } else {
                (0, r.u32(at + 16))
            };
            IologSample {
                time: r.u64(at),
                value: if hist { 0 } else { r.u64(at + 8) },
                value2: if hist { 0 } else { value2 },
                ddir,
                prio: r.u16(at + ddir_at + 4),
                bs: r.u64(at + l.sample - 8),
                offset: offset.then(|| r.u64(at + l.sample)),
                issue_time: issue.then(|| r.u64(at + l.sample + 8 * usize::from(offset))),
                hist: if hist {
                    (0..PLAT_NR)
                        .map(|k| r.u64(at + base + 16 + k * 8))
                        .collect()
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

/// fio's `IOPRIO_CLASS_RT`, in a priority's class bits.
const IOPRIO_CLASS_RT: u16 = 1;

/// The samples as fio's client writes them (`flush_samples`):
/// `time, value[, max], ddir, bs[, offset], prio[, issue time]`, the
/// optional columns and the priority's form (`0x%04x` with
/// `log_prio`, else 1 for a real-time class) set by the first sample.
pub(crate) fn text_lines(samples: &[IologSample]) -> String {
    let mut out = String::new();
    let Some(first) = samples.first() else {
        return out;
    };
    let (offset, prio, avg_max, issue) = (
        first.ddir & OFFSET_BIT != 0,
        first.ddir & PRIO_BIT != 0,
        first.ddir & AVG_MAX_BIT != 0,
        first.ddir & ISSUE_TIME_BIT != 0,
    );
    for s in samples {
        let _ = write!(out, "{}, {}", s.time, s.value as i64);
        if avg_max {
            let _ = write!(out, ", {}", s.value2 as i64);
        }
        let _ = write!(out, ", {}, {}", s.dir(), s.bs);
        if offset {
            let _ = write!(out, ", {}", s.offset.unwrap_or(0));
        }
        if prio {
            let _ = write!(out, ", 0x{:04x}", s.prio);
        } else {
            let _ = write!(out, ", {}", u8::from(s.prio >> 13 == IOPRIO_CLASS_RT));
        }
        if issue {
            let _ = write!(out, ", {}", s.issue_time.unwrap_or(0));
        }
        out.push('\n');
    }
    out
}

/// The IOLOG body of `log` for wire `version`: the header, then its
/// samples as they are (`compressed` 0), or its `stored` bytes
/// ([`STORE_COMPRESSED`]). Histogram samples are not encoded (`None`), nor
/// a version without a layout.
pub(crate) fn encode_iolog(log: &Iolog, version: u16) -> Option<Vec<u8>> {
    let l = iolog_layout(version)?;
    if log.log_type == LOG_TYPE_HIST {
        return None;
    }
    let mut p = crate::wire::Put::zeroed(l.header);
    let stored = log.compressed == STORE_COMPRESSED;
    p.u64(
        0,
        if stored {
            log.nr_samples
        } else {
            log.samples.len() as u64
        },
    );
    p.u32(8, log.thread_number);
    p.u32(12, log.log_type);
    p.u32(16, if stored { STORE_COMPRESSED } else { 0 });
    p.u32(20, log.log_offset);
    p.u32(24, log.log_prio);
    if let Some(at) = l.issue_time_at {
        p.u32(at, log.log_issue_time);
    }
    p.u32(l.coarseness_at, log.hist_coarseness);
    if let Some(at) = l.per_job_logs_at {
        p.u32(at, log.per_job_logs.unwrap_or(1));
    }
    p.cstr(l.name_at, 256, &log.name);
    let mut b = p.b;
    if stored {
        b.extend_from_slice(&log.stored);
        return Some(b);
    }
    for s in &log.samples {
        b.extend_from_slice(&s.time.to_le_bytes());
        b.extend_from_slice(&s.value.to_le_bytes());
        if l.sample == 40 {
            b.extend_from_slice(&s.value2.to_le_bytes());
        }
        let mut ddir = s.ddir;
        if s.offset.is_some() {
            ddir |= OFFSET_BIT;
        }
        if l.issue_time_at.is_some() && s.issue_time.is_some() {
            ddir |= ISSUE_TIME_BIT;
        }
        b.extend_from_slice(&ddir.to_le_bytes());
        b.extend_from_slice(&s.prio.to_le_bytes());
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(&s.bs.to_le_bytes());
        if let Some(o) = s.offset {
            b.extend_from_slice(&o.to_le_bytes());
        }
        if let (Some(t), Some(_)) = (s.issue_time, l.issue_time_at) {
            b.extend_from_slice(&t.to_le_bytes());
        }
    }
    Some(b)
}

/// The samples of a log as fio writes it (`time, value, ddir, bs[,
/// offset], prio`; the form of the priority, `0x%04x` with `log_prio`,
/// decides [`PRIO_BIT`]); lines that are not such samples are left out.
pub(crate) fn parse_text_log(text: &str, offset: bool) -> Vec<IologSample> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            let want = 5 + usize::from(offset);
            if f.len() != want {
                return None;
            }
            let num = |s: &str| s.parse::<i64>().ok();
            let prio_text = f[want - 1];
            let (prio, prio_bit) = match prio_text.strip_prefix("0x") {
                Some(hex) => (u16::from_str_radix(hex, 16).ok()?, PRIO_BIT),
                // 1: a real-time class (fio prints no more of it).
                None => (u16::from(num(prio_text)? == 1) << 13, 0),
            };
            Some(IologSample {
                time: num(f[0])? as u64,
                value: num(f[1])? as u64,
                value2: 0,
                ddir: num(f[2])? as u32 | prio_bit | if offset { OFFSET_BIT } else { 0 },
                prio,
                bs: num(f[3])? as u64,
                offset: if offset {
                    Some(num(f[4])? as u64)
                } else {
                    None
                },
                issue_time: None,
                hist: Vec::new(),
            })
        })
        .collect()
}

#[cfg(test)]
mod encode_tests {
    use super::*;

    #[test]
    fn text_logs_round_trip_through_the_wire() {
        for (text, offset) in [
            ("0, 4096, 0, 4096, 0\n250, 8192, 1, 4096, 0\n", false),
            ("3, 11, 0, 4096, 8192, 0\n4, 12, 1, 512, 0, 1\n", true),
            ("3, 11, 0, 4096, 0x2004\n", false),
        ] {
            let samples = parse_text_log(text, offset);
            assert_eq!(text_lines(&samples), text);
            for version in [97, 103, 120] {
                let log = Iolog {
                    thread_number: 2,
                    log_type: 4,
                    name: "bwl_bw.2.log".into(),
                    samples: samples.clone(),
                    ..Iolog::default()
                };
                let b = encode_iolog(&log, version).unwrap();
                let back = decode_iolog(&b, version).unwrap();
                assert_eq!(
                    (back.name.as_str(), back.thread_number),
                    ("bwl_bw.2.log", 2)
                );
                assert_eq!(text_lines(&back.samples), text, "{version}");
            }
        }
        // Stored compressed: the bytes as they are.
        let log = Iolog {
            log_type: 4,
            compressed: STORE_COMPRESSED,
            nr_samples: 3,
            name: "x_bw.1.log.fz".into(),
            stored: vec![1, 2, 3],
            ..Iolog::default()
        };
        let back = decode_iolog(&encode_iolog(&log, 97).unwrap(), 97).unwrap();
        assert_eq!(back.stored, [1, 2, 3]);
    }
}
