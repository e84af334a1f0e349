//! CPU usage of a job thread (`getrusage(RUSAGE_THREAD)`, as fio's
//! `update_rusage_stat`).

use serde::{Deserialize, Serialize};

/// What a job used between its start and end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CpuUsage {
    /// User and system time, ms.
    pub usr_ms: u64,
    pub sys_ms: u64,
    /// Voluntary plus involuntary context switches.
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
}

impl CpuUsage {
    pub(crate) fn merge(&mut self, o: &CpuUsage) {
        self.usr_ms += o.usr_ms;
        self.sys_ms += o.sys_ms;
        self.ctx += o.ctx;
        self.majf += o.majf;
        self.minf += o.minf;
    }
}

/// A reading of the calling thread's resource usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RusageMark {
    utime_us: u64,
    stime_us: u64,
    ctx: u64,
    majf: u64,
    minf: u64,
}

impl RusageMark {
    /// Read the calling thread's usage (zero if the call fails).
    pub(crate) fn now() -> RusageMark {
        // SAFETY: an all-zero `rusage` is a valid value (plain integers).
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a valid, writable `rusage` for the whole call.
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) } != 0 {
            return RusageMark::default();
        }
        let us = |tv: libc::timeval| tv.tv_sec.max(0) as u64 * 1_000_000 + tv.tv_usec.max(0) as u64;
        RusageMark {
            utime_us: us(ru.ru_utime),
            stime_us: us(ru.ru_stime),
            ctx: (ru.ru_nvcsw.max(0) + ru.ru_nivcsw.max(0)) as u64,
            majf: ru.ru_majflt.max(0) as u64,
            minf: ru.ru_minflt.max(0) as u64,
        }
    }

    /// The usage from `self` to `end` (fio's `mtime_since_tv` truncates to
    /// whole milliseconds).
    pub(crate) fn until(&self, end: &RusageMark) -> CpuUsage {
        CpuUsage {
            usr_ms: end.utime_us.saturating_sub(self.utime_us) / 1000,
            sys_ms: end.stime_us.saturating_sub(self.stime_us) / 1000,
            ctx: end.ctx.saturating_sub(self.ctx),
            majf: end.majf.saturating_sub(self.majf),
            minf: end.minf.saturating_sub(self.minf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_grows_with_work() {
        let a = RusageMark::now();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let b = RusageMark::now();
        let u = a.until(&b);
        assert!(u.usr_ms + u.sys_ms < 10_000);
        assert!(b.utime_us + b.stime_us >= a.utime_us + a.stime_us);
    }
}
