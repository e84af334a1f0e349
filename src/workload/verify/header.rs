//! fio's verify header (`struct verify_header`), little-endian, before
//! each interval's checksum, and where `verify_offset` moves it: 40 bytes
//! up to fio 3.40, 48 from 3.41 (a version byte, a 64-bit `numberio`).

use super::checksum::fio_crc32c;
use crate::plan::resolve::verify::HeaderFormat;

/// fio's `FIO_HDR_MAGIC`.
pub(crate) const MAGIC: u16 = 0xacca;
/// fio 3.41's `VERIFY_HEADER_VERSION`.
pub(crate) const VERSION: u8 = 0x81;

/// One interval's header fields (`version` is 0 in the 3.33 layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) magic: u16,
    pub(crate) version: u8,
    pub(crate) kind: u16,
    pub(crate) len: u32,
    pub(crate) rand_seed: u64,
    pub(crate) offset: u64,
    pub(crate) time_sec: u32,
    pub(crate) time_nsec: u32,
    pub(crate) thread: u16,
    pub(crate) numberio: u64,
    pub(crate) crc32: u32,
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Where the crc (over the bytes before it) sits: fio's
/// `offsetof(struct verify_header, crc32)`.
pub(crate) fn crc_at(f: HeaderFormat) -> usize {
    match f {
        HeaderFormat::V1 => 36,
        HeaderFormat::V81 => 44,
    }
}

impl Header {
    /// Read a header in layout `f` from the first `f.len()` bytes of `b`.
    pub(crate) fn read(b: &[u8], f: HeaderFormat) -> Header {
        let common = Header {
            magic: le16(b, 0),
            version: 0,
            kind: le16(b, 2),
            len: le32(b, 4),
            rand_seed: le64(b, 8),
            offset: le64(b, 16),
            time_sec: le32(b, 24),
            time_nsec: le32(b, 28),
            thread: le16(b, 32),
            numberio: u64::from(le16(b, 34)),
            crc32: le32(b, 36),
        };
        match f {
            HeaderFormat::V1 => common,
            HeaderFormat::V81 => Header {
                version: b[2],
                kind: u16::from(b[3]),
                numberio: le64(b, 32),
                thread: le16(b, 40),
                crc32: le32(b, 44),
                ..common
            },
        }
    }

    /// Write this header in layout `f` (its crc recomputed) into
    /// `b[..f.len()]`. The 3.41 layout's two bytes of padding (42..44)
    /// keep what the buffer held, as fio's do (the crc covers them).
    pub(crate) fn write(&self, b: &mut [u8], f: HeaderFormat) {
        b[0..2].copy_from_slice(&self.magic.to_le_bytes());
        b[4..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..16].copy_from_slice(&self.rand_seed.to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..28].copy_from_slice(&self.time_sec.to_le_bytes());
        b[28..32].copy_from_slice(&self.time_nsec.to_le_bytes());
        match f {
            HeaderFormat::V1 => {
                b[2..4].copy_from_slice(&self.kind.to_le_bytes());
                b[32..34].copy_from_slice(&self.thread.to_le_bytes());
                b[34..36].copy_from_slice(&(self.numberio as u16).to_le_bytes());
            }
            HeaderFormat::V81 => {
                b[2] = VERSION;
                b[3] = self.kind as u8;
                b[32..40].copy_from_slice(&self.numberio.to_le_bytes());
                b[40..42].copy_from_slice(&self.thread.to_le_bytes());
            }
        }
        let at = crc_at(f);
        let crc = fio_crc32c(&b[..at]);
        b[at..at + 4].copy_from_slice(&crc.to_le_bytes());
    }
}

/// fio's `memswp` of the header with the bytes at `offset`.
pub(super) fn swap_header(chunk: &mut [u8], offset: usize, hs: usize) {
    if offset + hs > chunk.len() {
        return;
    }
    let (a, b) = chunk.split_at_mut(offset);
    if offset >= hs {
        a[..hs].swap_with_slice(&mut b[..hs]);
    } else {
        // Overlapping ranges: swap byte by byte through a copy, as memswp.
        let mut tmp = [0u8; 200];
        let n = hs.min(200);
        tmp[..n].copy_from_slice(&chunk[..n]);
        chunk.copy_within(offset..offset + n, 0);
        chunk[offset..offset + n].copy_from_slice(&tmp[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_reads_back_with_its_crc() {
        let h = Header {
            magic: MAGIC,
            version: 0,
            kind: 5,
            len: 4096,
            rand_seed: 0x1234_5678_9abc,
            offset: 8192,
            time_sec: 3,
            time_nsec: 4,
            thread: 1,
            numberio: 7,
            crc32: 0,
        };
        let mut b = [0u8; 40];
        h.write(&mut b, HeaderFormat::V1);
        let r = Header::read(&b, HeaderFormat::V1);
        assert_eq!(r.crc32, fio_crc32c(&b[..36]));
        assert_eq!(Header { crc32: 0, ..r }, h);
        // fio 3.41's: version 0x81 and type in bytes 2 and 3, numberio
        // 64-bit at 32, the job at 40, padding kept, the crc at 44.
        let mut b = [0xeeu8; 48];
        let h = Header {
            numberio: 0x1_0000_0007,
            ..h
        };
        h.write(&mut b, HeaderFormat::V81);
        assert_eq!(&b[..4], &[0xca, 0xac, 0x81, 5]);
        assert_eq!(&b[32..44], &[7, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0xee, 0xee]);
        let r = Header::read(&b, HeaderFormat::V81);
        assert_eq!(r.crc32, fio_crc32c(&b[..44]));
        assert_eq!(Header { crc32: 0, ..r }, Header { version: 0x81, ..h });
    }

    /// Apart (the offset past the header), the swap is its own inverse:
    /// a check swaps back what the write swapped.
    #[test]
    fn swapping_twice_restores_the_interval() {
        for (offset, hs) in [(100, 60), (60, 60)] {
            let mut chunk: Vec<u8> = (0..=255).collect();
            swap_header(&mut chunk, offset, hs);
            assert_eq!(chunk[0], offset as u8);
            assert_eq!(chunk[offset], 0);
            swap_header(&mut chunk, offset, hs);
            assert_eq!(chunk, (0..=255).collect::<Vec<u8>>());
        }
    }
}
