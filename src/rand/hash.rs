//! fio's hashes (`hash.h`): `__hash_u64` and `jhash` (Bob Jenkins'
//! lookup3), which seed the zipf, pareto and normal offset distributions
//! with the hash of the file name and scramble their values.

/// fio's `GOLDEN_RATIO_64` (`hash.h`), used by `__hash_u64`.
pub(crate) const GOLDEN_RATIO_64: u64 = 0x61c8_8646_80b5_83eb;

/// fio's `GOLDEN_RATIO_32`, `jhash`'s initial value.
pub(crate) const GOLDEN_RATIO_32: u32 = 0x61c8_8647;

/// fio's `__hash_u64`: a multiplicative hash.
#[inline]
pub(crate) fn hash_u64(v: u64) -> u64 {
    v.wrapping_mul(GOLDEN_RATIO_64)
}

/// fio's `jhash` (Bob Jenkins' lookup3 as in `hash.h`, with fio's
/// `JHASH_INITVAL` = `GOLDEN_RATIO_32`).
/// fio seeds the zipf/pareto/normal offset distributions with the hash of
/// the file name.
pub fn jhash(key: &[u8], initval: u32) -> u32 {
    let mut a: u32 = GOLDEN_RATIO_32
        .wrapping_add(key.len() as u32)
        .wrapping_add(initval);
    let mut b = a;
    let mut c = a;
    let mut k = key;
    // fio adds single bytes here (not little-endian words): `a += *k`.
    while k.len() > 12 {
        a = a.wrapping_add(u32::from(k[0]));
        b = b.wrapping_add(u32::from(k[4]));
        c = c.wrapping_add(u32::from(k[8]));
        (a, b, c) = jhash_mix(a, b, c);
        k = &k[12..];
    }
    let byte = |i: usize, shift: u32| u32::from(k[i]) << shift;
    let n = k.len();
    if n == 0 {
        return c;
    }
    if n >= 12 {
        c = c.wrapping_add(byte(11, 24));
    }
    if n >= 11 {
        c = c.wrapping_add(byte(10, 16));
    }
    if n >= 10 {
        c = c.wrapping_add(byte(9, 8));
    }
    if n >= 9 {
        c = c.wrapping_add(byte(8, 0));
    }
    if n >= 8 {
        b = b.wrapping_add(byte(7, 24));
    }
    if n >= 7 {
        b = b.wrapping_add(byte(6, 16));
    }
    if n >= 6 {
        b = b.wrapping_add(byte(5, 8));
    }
    if n >= 5 {
        b = b.wrapping_add(byte(4, 0));
    }
    if n >= 4 {
        a = a.wrapping_add(byte(3, 24));
    }
    if n >= 3 {
        a = a.wrapping_add(byte(2, 16));
    }
    if n >= 2 {
        a = a.wrapping_add(byte(1, 8));
    }
    a = a.wrapping_add(byte(0, 0));
    jhash_final(a, b, c)
}

fn jhash_mix(mut a: u32, mut b: u32, mut c: u32) -> (u32, u32, u32) {
    a = a.wrapping_sub(c);
    a ^= c.rotate_left(4);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a);
    b ^= a.rotate_left(6);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b);
    c ^= b.rotate_left(8);
    b = b.wrapping_add(a);
    a = a.wrapping_sub(c);
    a ^= c.rotate_left(16);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a);
    b ^= a.rotate_left(19);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b);
    c ^= b.rotate_left(4);
    b = b.wrapping_add(a);
    (a, b, c)
}

fn jhash_final(mut a: u32, mut b: u32, mut c: u32) -> u32 {
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(14));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(16));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(4));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(14));
    c ^= b;
    c.wrapping_sub(b.rotate_left(24))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jhash_of_empty_and_known_names() {
        // No bytes: the initial value.
        assert_eq!(jhash(b"", 0), GOLDEN_RATIO_32);
        // Deterministic and order sensitive.
        assert_ne!(jhash(b"x.0.0", 0), jhash(b"x.0.1", 0));
    }
}
