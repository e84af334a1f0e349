//! fio's normal distribution (`lib/gauss.c`), for
//! `random_distribution=normal` and `file_service_type=normal`.

use super::hash::hash_u64;
use super::tausworthe::FioRand;

/// fio's `struct gauss_state` (`random_distribution=normal`).
#[derive(Debug, Clone)]
pub(crate) struct Gauss {
    rand: FioRand,
    nranges: u64,
    stddev: u32,
    rand_off: u32,
    disable_hash: bool,
}

/// fio's `GAUSS_ITERS`.
const GAUSS_ITERS: u64 = 12;

impl Gauss {
    /// fio's `gauss_init`: `dev` is the deviation in percent of the range.
    pub(crate) fn new(nranges: u64, dev: f64, center: f64, seed: u32) -> Gauss {
        let mut stddev = 0u32;
        if dev != 0.0 {
            stddev = ((nranges as f64 * dev) / 100.0).ceil() as u32;
            if u64::from(stddev) > nranges / 2 {
                stddev = (nranges / 2) as u32;
            }
        }
        let rand_off = if center == -1.0 {
            0
        } else {
            // A negative double converted to unsigned int wraps on x86.
            (nranges as f64 * (center - 0.5)) as i64 as u32
        };
        Gauss {
            rand: FioRand::new(u64::from(seed), false),
            nranges,
            stddev,
            rand_off,
            disable_hash: false,
        }
    }

    pub(crate) fn disable_hash(mut self) -> Gauss {
        self.disable_hash = true;
        self
    }

    /// fio's `gauss_next`.
    #[inline]
    pub(crate) fn next_value(&mut self) -> u64 {
        let mut sum = 0u64;
        for _ in 0..GAUSS_ITERS {
            sum = sum.wrapping_add(self.rand.next_u64() % (self.nranges + 1));
        }
        sum = sum.div_ceil(GAUSS_ITERS);
        if self.stddev != 0 {
            let r = self.rand.next_u64();
            let vr = (f64::from(self.stddev) * (r as f64 / 4_294_967_296.0)) as i32;
            let mut dev = vr.wrapping_sub((self.stddev / 2) as i32);
            while (dev as i64 as u64).wrapping_add(sum) >= self.nranges {
                dev /= 2;
            }
            sum = sum.wrapping_add(dev as i64 as u64);
        }
        if !self.disable_hash {
            sum = hash_u64(sum);
        }
        sum.wrapping_add(u64::from(self.rand_off)) % self.nranges
    }
}
