//! fio's zipf and pareto generators (`lib/zipf.c`), for
//! `random_distribution=zipf|pareto` and `file_service_type=zipf|pareto`.

use super::hash::hash_u64;
use super::tausworthe::FioRand;

/// `zetan` is summed over at most this many terms (fio's `ZIPF_MAX_GEN`).
const ZIPF_MAX_GEN: u64 = 10_000_000;

/// fio's `struct zipf_state`, for zipf and pareto.
#[derive(Debug, Clone)]
pub struct Zipf {
    nranges: u64,
    theta: f64,
    zeta2: f64,
    zetan: f64,
    pareto_pow: f64,
    rand: FioRand,
    rand_off: u64,
    disable_hash: bool,
    pareto: bool,
}

impl Zipf {
    /// fio's `shared_rand_init`: `center` in `[0, 1]`, or `-1` for a
    /// random offset.
    fn shared(nranges: u64, center: f64, seed: u32) -> Zipf {
        let mut rand = FioRand::new(u64::from(seed), false);
        let mut rand_off = rand.next_u64();
        if center != -1.0 {
            rand_off = (nranges as f64 * center) as u64;
        }
        Zipf {
            nranges,
            theta: 0.0,
            zeta2: 0.0,
            zetan: 0.0,
            pareto_pow: 0.0,
            rand,
            rand_off,
            disable_hash: false,
            pareto: false,
        }
    }

    /// fio's `zipf_init`.
    pub fn new(nranges: u64, theta: f64, center: f64, seed: u32) -> Zipf {
        let mut z = Zipf::shared(nranges, center, seed);
        z.theta = theta;
        z.zeta2 = 1.0f64.powf(theta) + 0.5f64.powf(theta);
        for i in 0..nranges.min(ZIPF_MAX_GEN) {
            z.zetan += (1.0 / (i + 1) as f64).powf(theta);
        }
        z
    }

    /// fio's `pareto_init`.
    pub(crate) fn pareto(nranges: u64, h: f64, center: f64, seed: u32) -> Zipf {
        let mut z = Zipf::shared(nranges, center, seed);
        z.pareto_pow = h.ln() / (1.0 - h).ln();
        z.pareto = true;
        z
    }

    /// fio's `zipf_disable_hash` (file selection uses unhashed values).
    pub(crate) fn disable_hash(mut self) -> Zipf {
        self.disable_hash = true;
        self
    }

    /// The next value in `0..nranges` (fio's `zipf_next`/`pareto_next`).
    #[inline]
    pub fn next_value(&mut self) -> u64 {
        if self.pareto {
            return self.next_pareto();
        }
        let n = self.nranges;
        let alpha = 1.0 / (1.0 - self.theta);
        let eta = (1.0 - (2.0 / n as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2 / self.zetan);
        let rand_uni = self.rand.next_u64() as f64 / f64::from(u32::MAX);
        let rand_z = rand_uni * self.zetan;
        let val = if rand_z < 1.0 {
            1
        } else if rand_z < 1.0 + 0.5f64.powf(self.theta) {
            2
        } else {
            1 + (n as f64 * (eta * rand_uni - eta + 1.0).powf(alpha)) as u64
        };
        let mut val = val.wrapping_sub(1);
        if !self.disable_hash {
            val = hash_u64(val);
        }
        val.wrapping_add(self.rand_off) % n
    }

    fn next_pareto(&mut self) -> u64 {
        let rand = self.rand.next_u64() as f64 / f64::from(u32::MAX);
        let mut n = ((self.nranges - 1) as f64 * rand.powf(self.pareto_pow)) as u64;
        if !self.disable_hash {
            n = hash_u64(n);
        }
        n.wrapping_add(self.rand_off) % self.nranges
    }
}
