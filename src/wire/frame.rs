//! Frames: a 24-byte little-endian header and at most 1,024 bytes of a
//! message's body; a message longer than that is sent as several frames,
//! each but the last flagged `MORE`. fio checks a CRC-16 over each header
//! and each payload, and a version in every header that must be its own.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 2 | version (97 for fio 3.33) |
//! | 2 | 2 | opcode |
//! | 4 | 4 | flags: bit 0 `MORE` |
//! | 8 | 8 | tag, echoed in replies |
//! | 16 | 4 | payload bytes in this frame, ≤ 1,024 |
//! | 20 | 2 | CRC-16 of bytes 0..20 |
//! | 22 | 2 | CRC-16 of the payload (0 when empty) |

use std::io::{self, Read, Write};

/// Bytes of a frame header.
pub(crate) const HEADER_LEN: usize = 24;
/// Most payload bytes in one frame.
pub(crate) const MAX_FRAGMENT: usize = 1024;
/// The `MORE` flag: another fragment of this message follows.
const FLAG_MORE: u32 = 1;

/// A protocol version (fio's `FIO_SERVER_VER`).
pub(crate) type Version = u16;

/// fio's opcodes (`FIO_NET_CMD_*`), 1 to 22 in every version from 3.33 to
/// 3.42.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Op {
    Quit = 1,
    Exit = 2,
    Job = 3,
    JobLine = 4,
    Text = 5,
    Ts = 6,
    Gs = 7,
    SendEta = 8,
    Eta = 9,
    Probe = 10,
    Start = 11,
    Stop = 12,
    Du = 13,
    ServerStart = 14,
    AddJob = 15,
    Run = 16,
    IoLog = 17,
    UpdateJob = 18,
    LoadFile = 19,
    VTrigger = 20,
    SendFile = 21,
    JobOpt = 22,
}

impl Op {
    const ALL: [Op; 22] = [
        Op::Quit,
        Op::Exit,
        Op::Job,
        Op::JobLine,
        Op::Text,
        Op::Ts,
        Op::Gs,
        Op::SendEta,
        Op::Eta,
        Op::Probe,
        Op::Start,
        Op::Stop,
        Op::Du,
        Op::ServerStart,
        Op::AddJob,
        Op::Run,
        Op::IoLog,
        Op::UpdateJob,
        Op::LoadFile,
        Op::VTrigger,
        Op::SendFile,
        Op::JobOpt,
    ];

    /// The opcode numbered `code`, if fio has one.
    pub(crate) fn from_code(code: u16) -> Option<Op> {
        Op::ALL.get(usize::from(code).checked_sub(1)?).copied()
    }

    /// fio's name for it (`fio_server_op`), as in its messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Quit => "QUIT",
            Op::Exit => "EXIT",
            Op::Job => "JOB",
            Op::JobLine => "JOBLINE",
            Op::Text => "TEXT",
            Op::Ts => "TS",
            Op::Gs => "GS",
            Op::SendEta => "SEND_ETA",
            Op::Eta => "ETA",
            Op::Probe => "PROBE",
            Op::Start => "START",
            Op::Stop => "STOP",
            Op::Du => "DISK_UTIL",
            Op::ServerStart => "SERVER_START",
            Op::AddJob => "ADD_JOB",
            Op::Run => "RUN",
            Op::IoLog => "IOLOG",
            Op::UpdateJob => "UPDATE_JOB",
            Op::LoadFile => "LOAD_FILE",
            Op::VTrigger => "VTRIGGER",
            Op::SendFile => "SENDFILE",
            Op::JobOpt => "JOB_OPT",
        }
    }
}

/// fio's CRC-16 (CRC-16/ARC: the reflected polynomial 0xA001, initial value
/// 0, no final xor).
pub(crate) fn crc16(bytes: &[u8]) -> u16 {
    const TABLE: [u16; 256] = {
        let mut t = [0u16; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u16;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0xA001
                } else {
                    c >> 1
                };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    bytes.iter().fold(0u16, |crc, &b| {
        (crc >> 8) ^ TABLE[usize::from((crc ^ u16::from(b)) & 0xff)]
    })
}

/// One whole message: its opcode, the tag and version of its frames, and
/// its body reassembled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Message {
    pub(crate) op: Op,
    pub(crate) version: Version,
    pub(crate) tag: u64,
    pub(crate) body: Vec<u8>,
}

/// `body` as the frames of one message, ready to be written at once (a
/// writer shared by threads writes each message whole, so messages never
/// interleave within one direction).
pub(crate) fn encode(version: Version, op: Op, tag: u64, body: &[u8]) -> Vec<u8> {
    let chunks: Vec<&[u8]> = if body.is_empty() {
        vec![&[][..]]
    } else {
        body.chunks(MAX_FRAGMENT).collect()
    };
    let mut out = Vec::with_capacity(body.len() + chunks.len() * HEADER_LEN);
    for (i, chunk) in chunks.iter().enumerate() {
        let flags = if i + 1 < chunks.len() { FLAG_MORE } else { 0 };
        let mut h = [0u8; HEADER_LEN];
        h[0..2].copy_from_slice(&version.to_le_bytes());
        h[2..4].copy_from_slice(&(op as u16).to_le_bytes());
        h[4..8].copy_from_slice(&flags.to_le_bytes());
        h[8..16].copy_from_slice(&tag.to_le_bytes());
        h[16..20].copy_from_slice(&(chunk.len() as u32).to_le_bytes());
        let hcrc = crc16(&h[..20]);
        h[20..22].copy_from_slice(&hcrc.to_le_bytes());
        let pcrc = if chunk.is_empty() { 0 } else { crc16(chunk) };
        h[22..24].copy_from_slice(&pcrc.to_le_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(chunk);
    }
    out
}

/// Write one message.
pub(crate) fn send(
    w: &mut dyn Write,
    version: Version,
    op: Op,
    tag: u64,
    body: &[u8],
) -> io::Result<()> {
    w.write_all(&encode(version, op, tag, body))?;
    w.flush()
}

/// Why no message could be read. The texts of the framing errors are
/// fio's (a peer that sends a bad frame gets them as a TEXT message).
#[derive(Debug, thiserror::Error)]
pub(crate) enum FrameError {
    /// The peer closed the connection between two messages.
    #[error("connection closed")]
    Closed,
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("fio: server bad crc on command (got {got:x}, wanted {wanted:x})")]
    HeaderCrc { got: u16, wanted: u16 },
    #[error("fio: bad server cmd version {0}")]
    Version(Version),
    #[error("fio: command payload too large: {0}")]
    FragmentTooLarge(u32),
    #[error("fio: server bad crc on payload (got {got:x}, wanted {wanted:x})")]
    PayloadCrc { got: u16, wanted: u16 },
    #[error("fio: fragment opcode mismatch ({0} != {1})")]
    OpMismatch(u16, u16),
    #[error("fio: unknown opcode: UNKNOWN/{0}")]
    UnknownOp(u16),
    #[error("fio: message too large: {0} bytes (at most {1})")]
    MessageTooLarge(usize, usize),
}

impl FrameError {
    /// The connection ended (closed, reset, or timed out), rather than
    /// sending something bad.
    pub(crate) fn is_disconnect(&self) -> bool {
        match self {
            FrameError::Closed => true,
            FrameError::Io(e) => !matches!(
                e.kind(),
                io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput
            ),
            _ => false,
        }
    }
}

/// Which versions a reader takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Accept {
    /// Only this one (fio's rule).
    Exact(Version),
    /// Any of these, each message keeping its own.
    Range(Version, Version),
}

impl Accept {
    fn takes(self, v: Version) -> bool {
        match self {
            Accept::Exact(x) => v == x,
            Accept::Range(lo, hi) => (lo..=hi).contains(&v),
        }
    }
}

/// Reads whole messages from a stream, checking every frame as fio does,
/// and capping a message's size (fio's cap is 2 GiB; the largest message
/// rfio expects is a few hundred KiB).
pub(crate) struct Reader<R> {
    inner: R,
    accept: Accept,
    max_message: usize,
}

impl<R: Read> Reader<R> {
    pub(crate) fn new(inner: R, accept: Accept, max_message: usize) -> Reader<R> {
        Reader {
            inner,
            accept,
            max_message,
        }
    }

    /// Take only `accept`'s versions from now on.
    pub(crate) fn set_accept(&mut self, accept: Accept) {
        self.accept = accept;
    }

    /// The next message: its frames read and checked, its body
    /// reassembled.
    pub(crate) fn next_message(&mut self) -> Result<Message, FrameError> {
        let mut first: Option<(Op, u16, Version, u64)> = None;
        let mut body = Vec::new();
        loop {
            let mut h = [0u8; HEADER_LEN];
            if let Err(e) = self.inner.read_exact(&mut h) {
                return Err(match (e.kind(), &first) {
                    (io::ErrorKind::UnexpectedEof, None) => FrameError::Closed,
                    _ => FrameError::Io(e),
                });
            }
            let le16 = |at: usize| u16::from_le_bytes([h[at], h[at + 1]]);
            let wanted = crc16(&h[..20]);
            let got = le16(20);
            if got != wanted {
                return Err(FrameError::HeaderCrc { got, wanted });
            }
            let version = le16(0);
            if !self.accept.takes(version) {
                return Err(FrameError::Version(version));
            }
            let code = le16(2);
            let flags = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
            let mut tag = [0u8; 8];
            tag.copy_from_slice(&h[8..16]);
            let tag = u64::from_le_bytes(tag);
            let len = u32::from_le_bytes([h[16], h[17], h[18], h[19]]);
            if len as usize > MAX_FRAGMENT {
                return Err(FrameError::FragmentTooLarge(len));
            }
            let len = len as usize;
            if body.len() + len > self.max_message {
                return Err(FrameError::MessageTooLarge(
                    body.len() + len,
                    self.max_message,
                ));
            }
            let start = body.len();
            body.resize(start + len, 0);
            self.inner.read_exact(&mut body[start..])?;
            let payload_crc = if len == 0 { 0 } else { crc16(&body[start..]) };
            if payload_crc != le16(22) {
                return Err(FrameError::PayloadCrc {
                    got: le16(22),
                    wanted: payload_crc,
                });
            }
            match first {
                None => {
                    let op = Op::from_code(code).ok_or(FrameError::UnknownOp(code))?;
                    first = Some((op, code, version, tag));
                }
                Some((_, first_code, _, _)) if first_code != code => {
                    return Err(FrameError::OpMismatch(first_code, code));
                }
                Some(_) => {}
            }
            if flags & FLAG_MORE == 0 {
                let (op, _, version, tag) = first.ok_or(FrameError::UnknownOp(code))?;
                return Ok(Message {
                    op,
                    version,
                    tag,
                    body,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn crc16_is_crc16_arc() {
        assert_eq!(crc16(b"123456789"), 0xBB3D);
        assert_eq!(crc16(b""), 0);
    }

    /// Frames captured from real fio 3.33 (the reference's golden frames).
    #[test]
    fn golden_frames() {
        assert_eq!(
            hex(&encode(97, Op::Run, 0, &[])),
            "6100100000000000000000000000000000000000b0bc0000"
        );
        assert_eq!(
            hex(&encode(97, Op::Quit, 0, &[])),
            "6100010000000000000000000000000000000000e5850000"
        );
        assert_eq!(
            hex(&encode(97, Op::ServerStart, 0, &[])),
            "61000e0000000000000000000000000000000000d6920000"
        );
        assert_eq!(
            hex(&encode(97, Op::SendEta, 0x1122334455667788, &[])),
            "6100080000000000887766554433221100000000b9bc0000"
        );
        let start = [2u8, 0, 0, 0, 2, 0, 0, 0];
        assert_eq!(
            hex(&encode(97, Op::Start, 0, &start)),
            "61000b0000000000000000000000000008000000c43f80610200000002000000"
        );
        assert_eq!(
            hex(&encode(97, Op::Stop, 0, &[0; 8])),
            "61000c0000000000000000000000000008000000754a00000000000000000000"
        );
    }

    fn read_all(bytes: &[u8], accept: Accept, max: usize) -> Vec<Result<Message, String>> {
        let mut r = Reader::new(bytes, accept, max);
        let mut out = Vec::new();
        loop {
            match r.next_message() {
                Ok(m) => out.push(Ok(m)),
                Err(FrameError::Closed) => return out,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }

    #[test]
    fn messages_round_trip_in_fragments() {
        for len in [0usize, 1, 1023, 1024, 1025, 184_056] {
            let body: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let wire = encode(97, Op::Ts, 5, &body);
            let frames = len.div_ceil(MAX_FRAGMENT).max(1);
            assert_eq!(wire.len(), len + frames * HEADER_LEN, "{len}");
            let got = read_all(&wire, Accept::Exact(97), 1 << 20);
            assert_eq!(
                got,
                vec![Ok(Message {
                    op: Op::Ts,
                    version: 97,
                    tag: 5,
                    body
                })]
            );
        }
        // A TS of 184,056 bytes is 179 full frames and one of 760, as fio's.
        let wire = encode(97, Op::Ts, 0, &[0; 184_056]);
        assert_eq!(wire.len(), 184_056 + 180 * 24);
    }

    /// Hand-made frames of 7 bytes each, as a peer may send them.
    #[test]
    fn small_fragments_reassemble() {
        let body: Vec<u8> = (0..50u8).collect();
        let mut wire = Vec::new();
        let chunks: Vec<&[u8]> = body.chunks(7).collect();
        for (i, c) in chunks.iter().enumerate() {
            let mut f = encode(97, Op::Job, 0, c);
            if i + 1 < chunks.len() {
                f[4] = 1;
                let crc = crc16(&f[..20]);
                f[20..22].copy_from_slice(&crc.to_le_bytes());
            }
            wire.extend(f);
        }
        let got = read_all(&wire, Accept::Exact(97), 1 << 20);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].as_ref().unwrap().body, body);
    }

    #[test]
    fn bad_frames_get_fios_errors() {
        let good = encode(97, Op::Job, 0, b"[j]\n");
        let mut bad_header = good.clone();
        bad_header[8] = 1;
        assert_eq!(
            read_all(&bad_header, Accept::Exact(97), 1024),
            vec![Err(format!(
                "fio: server bad crc on command (got {:x}, wanted {:x})",
                crc16(&good[..20]),
                crc16(&bad_header[..20])
            ))]
        );
        let mut bad_payload = good.clone();
        bad_payload[24] = b'{';
        assert!(read_all(&bad_payload, Accept::Exact(97), 1024)[0]
            .as_ref()
            .unwrap_err()
            .starts_with("fio: server bad crc on payload"));
        assert_eq!(
            read_all(&encode(98, Op::Job, 0, b"x"), Accept::Exact(97), 1024),
            vec![Err("fio: bad server cmd version 98".into())]
        );
        let mut unknown = encode(97, Op::Job, 0, &[]);
        unknown[2] = 30;
        let crc = crc16(&unknown[..20]);
        unknown[20..22].copy_from_slice(&crc.to_le_bytes());
        assert_eq!(
            read_all(&unknown, Accept::Exact(97), 1024),
            vec![Err("fio: unknown opcode: UNKNOWN/30".into())]
        );
        let mut big = encode(97, Op::Job, 0, &[]);
        big[16..20].copy_from_slice(&1283u32.to_le_bytes());
        let crc = crc16(&big[..20]);
        big[20..22].copy_from_slice(&crc.to_le_bytes());
        assert_eq!(
            read_all(&big, Accept::Exact(97), 1 << 20),
            vec![Err("fio: command payload too large: 1283".into())]
        );
        // A first fragment of JOB continued by one of JOBLINE.
        let mut mixed = encode(97, Op::Job, 0, b"ab");
        mixed[4] = 1;
        let crc = crc16(&mixed[..20]);
        mixed[20..22].copy_from_slice(&crc.to_le_bytes());
        mixed.extend(encode(97, Op::JobLine, 0, b"cd"));
        assert_eq!(
            read_all(&mixed, Accept::Exact(97), 1024),
            vec![Err("fio: fragment opcode mismatch (3 != 4)".into())]
        );
        // Over the cap: refused before the bytes are taken in.
        assert_eq!(
            read_all(&encode(97, Op::Job, 0, &[1; 3000]), Accept::Exact(97), 2048),
            vec![Err(
                "fio: message too large: 3000 bytes (at most 2048)".into()
            )]
        );
        // Cut short inside a message: an I/O error, not a clean close.
        let r = read_all(&good[..good.len() - 1], Accept::Exact(97), 1024);
        assert!(r[0].is_err());
        let mut rd = Reader::new(&good[..10], Accept::Exact(97), 1024);
        assert!(rd.next_message().unwrap_err().is_disconnect());
    }

    #[test]
    fn a_range_keeps_each_messages_version() {
        let mut wire = encode(97, Op::Probe, 1, &[]);
        wire.extend(encode(120, Op::Probe, 2, &[]));
        let got = read_all(&wire, Accept::Range(97, 120), 1024);
        let versions: Vec<Version> = got.iter().map(|m| m.as_ref().unwrap().version).collect();
        assert_eq!(versions, [97, 120]);
        assert_eq!(Op::from_code(0), None);
        assert_eq!(Op::from_code(23), None);
        assert_eq!(Op::from_code(22), Some(Op::JobOpt));
    }
}
