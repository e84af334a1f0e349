//! ETA: fio's `jobs_eta` (168 bytes, the same in every version) and the
//! condensed job states after it (`run_str`, NUL-terminated). A server
//! without a status yet sends the 168 bytes alone, all zero.

use crate::wire::{BodyError, Le, Put};

/// The running status a server sends for SEND_ETA.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Eta {
    pub(crate) nr_running: u32,
    pub(crate) nr_ramp: u32,
    pub(crate) nr_pending: u32,
    pub(crate) nr_setting_up: u32,
    /// Configured minimum and target rates (B/s), current rate (KiB/s),
    /// per direction.
    pub(crate) m_rate: [u64; 3],
    pub(crate) t_rate: [u64; 3],
    pub(crate) rate: [u64; 3],
    pub(crate) m_iops: [u32; 3],
    pub(crate) t_iops: [u32; 3],
    pub(crate) iops: [u32; 3],
    pub(crate) elapsed_sec: u64,
    /// 2147483647 when unknown (time_based).
    pub(crate) eta_sec: u64,
    pub(crate) is_pow2: u32,
    /// fio's unit code (4 bytes/s, 5 bits/s).
    pub(crate) unit_base: u32,
    pub(crate) sig_figs: u32,
    pub(crate) files_open: u32,
    pub(crate) nr_threads: u32,
    /// `r(1),W(1)`; empty: no states (the body is the 168 bytes alone).
    pub(crate) run_str: String,
}

impl Eta {
    /// The fixed part.
    pub(crate) const LEN: usize = 168;

    pub(crate) fn encode(&self) -> Vec<u8> {
        let extra = if self.run_str.is_empty() {
            0
        } else {
            self.run_str.len() + 1
        };
        let mut p = Put::zeroed(Self::LEN + extra);
        p.u32(0, self.nr_running);
        p.u32(4, self.nr_ramp);
        p.u32(8, self.nr_pending);
        p.u32(12, self.nr_setting_up);
        for d in 0..3 {
            p.u64(16 + d * 8, self.m_rate[d]);
            p.u64(40 + d * 8, self.t_rate[d]);
            p.u64(64 + d * 8, self.rate[d]);
            p.u32(88 + d * 4, self.m_iops[d]);
            p.u32(100 + d * 4, self.t_iops[d]);
            p.u32(112 + d * 4, self.iops[d]);
        }
        p.u64(128, self.elapsed_sec);
        p.u64(136, self.eta_sec);
        p.u32(144, self.is_pow2);
        p.u32(148, self.unit_base);
        p.u32(152, self.sig_figs);
        p.u32(156, self.files_open);
        p.u32(160, self.nr_threads);
        if extra > 0 {
            p.cstr(Self::LEN, extra, &self.run_str);
        }
        p.b
    }

    /// The status in an ETA body; `run_str` runs to the first NUL or the
    /// end of the body.
    pub(crate) fn decode(b: &[u8]) -> Result<Eta, BodyError> {
        let r = Le::new("ETA", b, Self::LEN)?;
        Ok(Eta {
            nr_running: r.u32(0),
            nr_ramp: r.u32(4),
            nr_pending: r.u32(8),
            nr_setting_up: r.u32(12),
            m_rate: std::array::from_fn(|d| r.u64(16 + d * 8)),
            t_rate: std::array::from_fn(|d| r.u64(40 + d * 8)),
            rate: std::array::from_fn(|d| r.u64(64 + d * 8)),
            m_iops: std::array::from_fn(|d| r.u32(88 + d * 4)),
            t_iops: std::array::from_fn(|d| r.u32(100 + d * 4)),
            iops: std::array::from_fn(|d| r.u32(112 + d * 4)),
            elapsed_sec: r.u64(128),
            eta_sec: r.u64(136),
            is_pow2: r.u32(144),
            unit_base: r.u32(148),
            sig_figs: r.u32(152),
            files_open: r.u32(156),
            nr_threads: r.u32(160),
            run_str: r.cstr(Self::LEN, b.len() - Self::LEN),
        })
    }
}
