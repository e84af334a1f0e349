//! The two hashes of fio's bloom filter (`lib/bloom.c`) that `hash.h`
//! does not have: MurmurHash3 (x86, 32-bit; `crc/murmur3.c`) and fio's
//! 64-bit FNV variant (`crc/fnv.c`). rfio times them with its other
//! checksums in `--crctest`.

/// MurmurHash3 x86_32 of `key` with `seed` (fio's `murmurhash3`): 4-byte
/// little-endian blocks, then the 1 to 3 trailing bytes, then the length
/// and the final avalanche.
pub(crate) fn murmurhash3(key: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let scramble = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mut h = seed;
    let mut blocks = key.chunks_exact(4);
    for b in &mut blocks {
        let k = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        h = (h ^ scramble(k))
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let k = tail
            .iter()
            .rev()
            .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        h ^= scramble(k);
    }
    h ^= key.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// fio's `fnv`: 64-bit FNV-1 over 8-byte little-endian words (multiply,
/// then xor), the last partial word read big-endian, from `hval`.
pub(crate) fn fnv(buf: &[u8], mut hval: u64) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut words = buf.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        hval = hval.wrapping_mul(PRIME) ^ u64::from_le_bytes(b);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let v = tail.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        hval = hval.wrapping_mul(PRIME) ^ v;
    }
    hval
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values of fio 3.33's own functions (compiled from its sources) for
    /// seeds 0 and 0x8989.
    const KEYS: [&str; 8] = [
        "",
        "a",
        "ab",
        "abc",
        "abcd",
        "hello world",
        "The quick brown fox jumps over the lazy dog",
        "0123456789abcdefXYZ",
    ];

    #[test]
    fn murmur3_is_fios() {
        let want: [(u32, u32); 8] = [
            (0x0000_0000, 0x30f6_eef5),
            (0x3c25_69b2, 0x17e6_c3c1),
            (0x9bbf_d75f, 0x9fb7_6c6c),
            (0xb3dd_93fa, 0x1484_cbc0),
            (0x43ed_676a, 0xe02a_38d9),
            (0x5e92_8f0f, 0x7975_c2d9),
            (0x2e4f_f723, 0xf5ad_e5c3),
            (0xf4ba_e38d, 0x2f78_c3cc),
        ];
        for (k, (a, b)) in KEYS.iter().zip(want) {
            assert_eq!(murmurhash3(k.as_bytes(), 0), a, "{k:?}");
            assert_eq!(murmurhash3(k.as_bytes(), 0x8989), b, "{k:?}");
        }
    }

    #[test]
    fn fnv_is_fios() {
        let want: [(u64, u64); 8] = [
            (0x0, 0x8989),
            (0x61, 0x0089_8900_00e9_b3aa),
            (0x6162, 0x0089_8900_00e9_d2a9),
            (0x0061_6263, 0x0089_8900_0088_d1a8),
            (0x6162_6364, 0x0089_8900_618b_d0af),
            (0xd3d1_8555_3c42_23dc, 0xd390_8b55_6719_da9d),
            (0xfb4d_d55f_563e_7255, 0x1f75_f169_1249_83c8),
            (0x0d43_f52c_5947_4d22, 0xb71e_202d_dac2_3c01),
        ];
        for (k, (a, b)) in KEYS.iter().zip(want) {
            assert_eq!(fnv(k.as_bytes(), 0), a, "{k:?}");
            assert_eq!(fnv(k.as_bytes(), 0x8989), b, "{k:?}");
        }
    }
}
