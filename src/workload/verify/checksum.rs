//! fio 3.33's checksums, computed and stored as fio stores them (crc32 is
//! the unreflected 0x04c11db7 CRC from 0 without final inversion, crc32c
//! is stored inverted, sha1 stores its words little-endian, sha256 the
//! final padded block, sha512 the last block buffer of its update).

use crate::plan::resolve::verify::Kind;

/// fio's `fio_crc32c`: Castagnoli, from all ones, without final inversion.
pub(crate) fn fio_crc32c(data: &[u8]) -> u32 {
    !crc32c::crc32c(data)
}

/// fio's `fio_crc32`: polynomial 0x04c11db7, unreflected, from 0, no
/// final inversion.
const CRC32_FIO: crc::Algorithm<u32> = crc::Algorithm {
    width: 32,
    poly: 0x04c1_1db7,
    init: 0,
    refin: false,
    refout: false,
    xorout: 0,
    check: 0x89a1_897f,
    residue: 0,
};
static CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&CRC32_FIO);
/// fio's `fio_crc64`: the reflected ECMA-style table of 0x95ac9329ac4bc9b5
/// from 0 (CRC-64/REDIS).
static CRC64: crc::Crc<u64> = crc::Crc::<u64>::new(&crc::CRC_64_REDIS);
/// fio's `fio_crc16`: the 0x8005 reflected table from 0 (CRC-16/ARC).
static CRC16: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_ARC);
/// fio's `fio_crc7`: x^7 + x^3 + 1 from 0 (CRC-7/MMC).
static CRC7: crc::Crc<u8> = crc::Crc::<u8>::new(&crc::CRC_7_MMC);

/// SHA-256's initial state.
const SHA256_H0: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

fn sha256_blocks(state: &mut [u32; 8], data: &[u8]) {
    use sha2::digest::generic_array::GenericArray;
    for block in data.chunks_exact(64) {
        sha2::compress256(state, std::slice::from_ref(GenericArray::from_slice(block)));
    }
}

/// What fio 3.33's sha256 leaves in its 64-byte buffer: the final padded
/// block (fio appends the bit length little-endian) with the low byte of
/// each state word over its first 8 bytes.
fn fio_sha256(data: &[u8], out: &mut [u8]) {
    let mut state = SHA256_H0;
    let full = data.len() / 64 * 64;
    sha256_blocks(&mut state, &data[..full]);
    let rem = &data[full..];
    let mut tail = [0u8; 128];
    tail[..rem.len()].copy_from_slice(rem);
    tail[rem.len()] = 0x80;
    let n = if rem.len() < 56 { 64 } else { 128 };
    tail[n - 8..n].copy_from_slice(&((data.len() as u64) << 3).to_le_bytes());
    sha256_blocks(&mut state, &tail[..n]);
    out[..64].copy_from_slice(&tail[n - 64..n]);
    for (o, s) in out.iter_mut().zip(state) {
        *o = s as u8;
    }
}

/// What fio 3.33's sha512 leaves in its 128-byte buffer (it never
/// finalises): the first block, then the trailing partial block over it.
/// Shorter data only fills its own length.
fn fio_sha512(data: &[u8], out: &mut [u8]) {
    let n = data.len();
    if n < 128 {
        out[..n].copy_from_slice(data);
        return;
    }
    out[..128].copy_from_slice(&data[..128]);
    let rem = n % 128;
    out[..rem].copy_from_slice(&data[n - rem..]);
}

/// What fio 3.39's sha512 leaves in its 128-byte buffer once it
/// finalises: the SHA-512 digest (big-endian words) over the first 64
/// bytes of the final padded block, whose last 16 bytes are the bit
/// length.
fn fio_sha512_final(data: &[u8], out: &mut [u8]) {
    use sha2::Digest;
    let n = data.len();
    let rem = n % 128;
    let mut last = [0u8; 128];
    if rem < 112 {
        last[..rem].copy_from_slice(&data[n - rem..]);
        last[rem] = 0x80;
    }
    last[112..].copy_from_slice(&((n as u128) << 3).to_be_bytes());
    out[..128].copy_from_slice(&last);
    out[..64].copy_from_slice(&sha2::Sha512::digest(data));
}

/// The checksum of `data` as the release stores it: fio 3.33's
/// ([`checksum`]), or with fio 3.39's finalised sha512.
pub(crate) fn checksum_of(kind: Kind, data: &[u8], out: &mut [u8], sha512_final: bool) {
    if kind == Kind::Sha512 && sha512_final {
        fio_sha512_final(data, out);
    } else {
        checksum(kind, data, out);
    }
}

/// The checksum of `data` as fio 3.33 stores it, into
/// `out[..kind.csum_len()]`. Allocation free.
pub(crate) fn checksum(kind: Kind, data: &[u8], out: &mut [u8]) {
    use sha2::Digest;
    match kind {
        Kind::Md5 => out[..16].copy_from_slice(&md5::Md5::digest(data)),
        Kind::Crc64 => out[..8].copy_from_slice(&CRC64.checksum(data).to_le_bytes()),
        Kind::Crc32 => out[..4].copy_from_slice(&CRC32.checksum(data).to_le_bytes()),
        Kind::Crc32c | Kind::Crc32cIntel => {
            out[..4].copy_from_slice(&fio_crc32c(data).to_le_bytes())
        }
        Kind::Crc16 => out[..2].copy_from_slice(&CRC16.checksum(data).to_le_bytes()),
        Kind::Crc7 => out[0] = CRC7.checksum(data),
        Kind::Xxhash => out[..4].copy_from_slice(&xxhash_rust::xxh32::xxh32(data, 1).to_le_bytes()),
        Kind::Sha1 => {
            let d = sha1::Sha1::digest(data);
            for (o, w) in out[..20].chunks_exact_mut(4).zip(d.chunks_exact(4)) {
                o.copy_from_slice(&[w[3], w[2], w[1], w[0]]);
            }
        }
        Kind::Sha256 => fio_sha256(data, out),
        Kind::Sha512 => fio_sha512(data, out),
        Kind::Sha3_224 => out[..28].copy_from_slice(&sha3::Sha3_224::digest(data)),
        Kind::Sha3_256 => out[..32].copy_from_slice(&sha3::Sha3_256::digest(data)),
        Kind::Sha3_384 => out[..48].copy_from_slice(&sha3::Sha3_384::digest(data)),
        Kind::Sha3_512 => out[..64].copy_from_slice(&sha3::Sha3_512::digest(data)),
        Kind::HdrOnly | Kind::Pattern | Kind::PatternNoHdr | Kind::Null => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue's check values of the CRCs fio uses.
    #[test]
    fn crcs_have_their_check_values() {
        let data = b"123456789";
        assert_eq!(CRC32.checksum(data), 0x89a1_897f);
        assert_eq!(CRC16.checksum(data), 0xbb3d);
        assert_eq!(CRC7.checksum(data), 0x75);
        let mut out = [0u8; 4];
        checksum(Kind::Crc32c, data, &mut out);
        assert_eq!(u32::from_le_bytes(out), !0xe306_9283);
    }
}
