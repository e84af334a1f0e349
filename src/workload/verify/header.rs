//! fio's verify header (`struct verify_header`): 40 bytes, little-endian,
//! before each interval's checksum, and where `verify_offset` moves it.

use super::checksum::fio_crc32c;

/// fio's `FIO_HDR_MAGIC`.
pub(crate) const MAGIC: u16 = 0xacca;

/// One interval's header fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) magic: u16,
    pub(crate) kind: u16,
    pub(crate) len: u32,
    pub(crate) rand_seed: u64,
    pub(crate) offset: u64,
    pub(crate) time_sec: u32,
    pub(crate) time_nsec: u32,
    pub(crate) thread: u16,
    pub(crate) numberio: u16,
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

impl Header {
    /// Read a header from the first [`HDR_LEN`](crate::plan::resolve::verify::HDR_LEN) bytes of `b`.
    pub(crate) fn read(b: &[u8]) -> Header {
        Header {
            magic: le16(b, 0),
            kind: le16(b, 2),
            len: le32(b, 4),
            rand_seed: le64(b, 8),
            offset: le64(b, 16),
            time_sec: le32(b, 24),
            time_nsec: le32(b, 28),
            thread: le16(b, 32),
            numberio: le16(b, 34),
            crc32: le32(b, 36),
        }
    }

    /// Write this header (its crc recomputed) into `b[..HDR_LEN]`.
    pub(crate) fn write(&self, b: &mut [u8]) {
        b[0..2].copy_from_slice(&self.magic.to_le_bytes());
        b[2..4].copy_from_slice(&self.kind.to_le_bytes());
        b[4..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..16].copy_from_slice(&self.rand_seed.to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..28].copy_from_slice(&self.time_sec.to_le_bytes());
        b[28..32].copy_from_slice(&self.time_nsec.to_le_bytes());
        b[32..34].copy_from_slice(&self.thread.to_le_bytes());
        b[34..36].copy_from_slice(&self.numberio.to_le_bytes());
        let crc = fio_crc32c(&b[..36]);
        b[36..40].copy_from_slice(&crc.to_le_bytes());
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
        h.write(&mut b);
        let r = Header::read(&b);
        assert_eq!(r.crc32, fio_crc32c(&b[..36]));
        assert_eq!(Header { crc32: 0, ..r }, h);
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
