//! `--inflate-log` of a zlib bomb: a small `.fz` that inflates to far
//! more records than memory should hold prints them as a stream, in
//! constant memory (rfio inflated each zlib stream whole into memory).

use std::path::Path;
use std::time::Duration;

use crate::common::{TempDir, RFIO};
use crate::run_scale::run_measured_into;

/// Deflate bits, least significant first, as RFC 1951 packs them.
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn raw(&mut self, v: u64, k: u32) {
        self.acc |= v << self.n;
        self.n += k;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code of `k` bits, sent most significant bit first.
    fn code(&mut self, c: u64, k: u32) {
        let rev = (0..k).fold(0, |r, i| r << 1 | (c >> i & 1));
        self.raw(rev, k);
    }
}

/// One zlib stream of `n` zero bytes, written without inflating or
/// deflating anything (a debug build's deflate of 64 MiB takes seconds):
/// a fixed-Huffman block of a literal 0 and matches of 258 bytes at
/// distance 1 (13 bits each, RFC 1951 3.2.6), then the Adler-32 of `n`
/// zeros (a = 1, b = n mod 65521).
fn zero_bomb(n: u64) -> Vec<u8> {
    let mut b = Bits {
        out: vec![0x78, 0x01],
        acc: 0,
        n: 0,
    };
    b.raw(1, 1); // the last block
    b.raw(1, 2); // fixed Huffman codes
    b.code(0x30, 8); // literal 0
    let mut left = n - 1;
    while left >= 258 {
        b.code(0b1100_0101, 8); // length 258 (code 285)
        b.code(0, 5); // distance 1
        left -= 258;
    }
    for _ in 0..left {
        b.code(0x30, 8);
    }
    b.code(0, 7); // end of block
    if b.n > 0 {
        b.out.push(b.acc as u8);
    }
    b.out
        .extend_from_slice(&((n % 65521) << 16 | 1).to_be_bytes()[4..]);
    b.out
}

#[test]
fn the_bomb_is_well_formed() {
    let z = zero_bomb(100_000);
    let mut back = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&z[..]), &mut back).unwrap();
    assert_eq!(back.len(), 100_000);
    assert!(back.iter().all(|&b| b == 0));
}

/// 64 MiB of records (2 Mi lines of text) from a 400 KiB file print in
/// the memory of a bare run (rfio held the whole stream: over 64 MiB).
#[test]
fn a_zlib_bomb_inflates_in_constant_memory() {
    let dir = TempDir::new("inflate-bomb");
    let fz = zero_bomb(64 << 20);
    assert!(fz.len() < 512 << 10, "{}", fz.len());
    std::fs::write(dir.file("bomb.fz"), &fz).unwrap();
    let f = run_measured_into(
        RFIO,
        &dir.0,
        &["--inflate-log=bomb.fz"],
        Duration::from_secs(120),
        Path::new("/dev/null"),
    );
    assert_eq!((f.status, f.err.as_str()), (0, ""));
    eprintln!("max RSS: {} KiB", f.max_rss_kib);
    assert!(f.max_rss_kib < 32 << 10, "{} KiB", f.max_rss_kib);
}
