//! fio's wire, by hand: frames and messages as a test's fake server or
//! client writes and reads them (independent of rfio's own code).

use std::io::Read;
use std::net::TcpStream;

pub fn crc16(bytes: &[u8]) -> u16 {
    let mut crc = 0u16;
    for &b in bytes {
        crc ^= u16::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xA001
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// One frame, as fio builds it.
pub fn frame(version: u16, op: u16, more: bool, tag: u64, payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::with_capacity(24 + payload.len());
    h.extend(version.to_le_bytes());
    h.extend(op.to_le_bytes());
    h.extend(u32::from(more).to_le_bytes());
    h.extend(tag.to_le_bytes());
    h.extend((payload.len() as u32).to_le_bytes());
    let c = crc16(&h);
    h.extend(c.to_le_bytes());
    let p = if payload.is_empty() {
        0
    } else {
        crc16(payload)
    };
    h.extend(p.to_le_bytes());
    h.extend(payload);
    h
}

/// A whole message in frames of at most 1,024 bytes.
pub fn message(version: u16, op: u16, tag: u64, body: &[u8]) -> Vec<u8> {
    if body.is_empty() {
        return frame(version, op, false, tag, body);
    }
    let chunks: Vec<&[u8]> = body.chunks(1024).collect();
    let last = chunks.len() - 1;
    chunks
        .iter()
        .enumerate()
        .flat_map(|(i, c)| frame(version, op, i < last, tag, c))
        .collect()
}

/// The next message a client sent: version, opcode, tag, body; `None` at
/// the end of the connection.
pub fn read_message(s: &mut TcpStream) -> Option<(u16, u16, u64, Vec<u8>)> {
    let mut body = Vec::new();
    loop {
        let mut h = [0u8; 24];
        s.read_exact(&mut h).ok()?;
        let le16 = |at: usize| u16::from_le_bytes([h[at], h[at + 1]]);
        assert_eq!(crc16(&h[..20]), le16(20), "client frame header CRC");
        let len = u32::from_le_bytes(h[16..20].try_into().unwrap()) as usize;
        assert!(len <= 1024, "client frame of {len} bytes");
        let mut p = vec![0u8; len];
        s.read_exact(&mut p).ok()?;
        body.extend(p);
        if h[4] & 1 == 0 {
            let tag = u64::from_le_bytes(h[8..16].try_into().unwrap());
            return Some((le16(0), le16(2), tag, body));
        }
    }
}
