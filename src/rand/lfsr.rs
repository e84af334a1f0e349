//! fio's LFSR (`lib/lfsr.c`), for `random_generator=lfsr`.

/// fio's LFSR taps (`lib/lfsr.c`), by register length.
const LFSR_TAPS: [&[u8]; 64] = [
    &[],
    &[],
    &[],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 31, 29, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
];

/// fio's `struct fio_lfsr` (`random_generator=lfsr`, spin 0): returns each
/// of `0..n` exactly once, then reports exhaustion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lfsr {
    xormask: u64,
    cached_bit: u64,
    max_val: u64,
    last_val: u64,
    num_vals: u64,
}

impl Lfsr {
    /// fio's `lfsr_init(fl, n, seed, 0)`; `None` when no register fits or
    /// the seed is the forbidden all-ones state.
    pub(crate) fn new(n: u64, seed: u64) -> Option<Lfsr> {
        let len = (3..64).find(|&i| (1u64 << i) > n)?;
        let taps = LFSR_TAPS[len];
        let xormask = taps.iter().fold(0u64, |m, &t| m | 1u64 << (t - 1));
        let cached_bit = 1u64 << (taps[0] - 1);
        let mut l = Lfsr {
            xormask,
            cached_bit,
            max_val: n.saturating_sub(1),
            last_val: 0,
            num_vals: 0,
        };
        l.reset(seed).then_some(l)
    }

    /// fio's `lfsr_reset`; false for the forbidden all-ones state.
    pub(crate) fn reset(&mut self, seed: u64) -> bool {
        let bitmask = (self.cached_bit << 1) - 1;
        self.num_vals = 0;
        self.last_val = seed & bitmask;
        self.last_val != bitmask
    }

    /// fio's `lfsr_next`: the next value, `None` once all were returned.
    #[inline]
    pub(crate) fn next_value(&mut self) -> Option<u64> {
        let n = self.num_vals;
        self.num_vals += 1;
        if n > self.max_val {
            return None;
        }
        loop {
            let v = self.last_val;
            self.last_val = ((v >> 1) | self.cached_bit) ^ ((v & 1).wrapping_sub(1) & self.xormask);
            if self.last_val <= self.max_val {
                return Some(self.last_val);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rand::seeds::FIO_RANDSEED;

    /// fio 3.33 `--random_generator=lfsr`, 16 blocks, job 1.
    #[test]
    fn lfsr_visits_fios_order_once() {
        let mut l = Lfsr::new(16, FIO_RANDSEED).unwrap();
        let all: Vec<u64> = std::iter::from_fn(|| l.next_value()).collect();
        assert_eq!(all, [15, 11, 9, 14, 3, 8, 0, 4, 6, 7, 10, 1, 12, 2, 5, 13]);
    }
}
