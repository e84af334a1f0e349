//! The status line's text: fio's `display_thread_status` and
//! `gen_eta_str`, for a local run's numbers ([`super::Status`]) and for
//! the sum of a client's servers (`remote::client::eta`) alike.

use std::fmt::Write as _;

use super::estimate::{eta_to_str, UNKNOWN};
use crate::output::num2str::{num2str_from, Unit};

/// The numbers of one line (fio's `struct jobs_eta`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct JobsEta {
    pub(crate) nr_running: u32,
    pub(crate) nr_ramp: u32,
    pub(crate) nr_pending: u32,
    pub(crate) files_open: u32,
    pub(crate) m_rate: [u64; 3],
    pub(crate) t_rate: [u64; 3],
    pub(crate) m_iops: [u64; 3],
    pub(crate) t_iops: [u64; 3],
    /// Bandwidth (KiB/s) and IOPS since the last line.
    pub(crate) rate: [u64; 3],
    pub(crate) iops: [u64; 3],
    pub(crate) elapsed_sec: u64,
    pub(crate) eta_sec: u64,
    pub(crate) run_str: String,
}

/// How the line prints its rates (fio's `je->is_pow2`, `sig_figs` and
/// `unit_base`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineUnits {
    pub(crate) pow2: bool,
    pub(crate) sig_figs: usize,
    /// fio's unit code: 4 `B/s`, 5 `bit/s`, 0 none (fio's client leaves
    /// its sum's units unset), 1 `/s`, 2 `B`, 3 `bit`.
    pub(crate) unit: u32,
}

/// The line's state between prints (fio's statics in `eta.c`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Line {
    linelen_last: usize,
    eta_good: bool,
    /// `--eta-newline`, ms.
    newline_ms: Option<u64>,
    newline_from_ms: Option<u64>,
    newline_pending: bool,
}

impl Line {
    pub(crate) fn new(newline_ms: Option<u64>) -> Line {
        Line {
            newline_ms,
            ..Line::default()
        }
    }

    /// The text to print for `je` (with `setting_up` jobs still setting
    /// up), `\r` included, `at_ms` after the line's origin.
    pub(crate) fn display(
        &mut self,
        je: &JobsEta,
        setting_up: u32,
        units: LineUnits,
        at_ms: u64,
    ) -> String {
        let mut out = String::new();
        let known = je.eta_sec != UNKNOWN;
        let mut perc = if known && je.elapsed_sec > 0 {
            je.elapsed_sec as f64 / (je.elapsed_sec as f64 + je.eta_sec as f64)
        } else {
            0.0
        };
        if self.newline_pending {
            self.newline_pending = false;
            self.linelen_last = 0;
            out.push('\n');
        }
        // fio prints the counts as ints.
        let _ = write!(
            out,
            "Jobs: {} (f={})",
            je.nr_running as i32, je.files_open as i32
        );
        let sum = |a: &[u64; 3]| a.iter().fold(0u64, |s, x| s.wrapping_add(*x));
        let (m_rate, t_rate) = (sum(&je.m_rate), sum(&je.t_rate));
        let (m_iops, t_iops) = (sum(&je.m_iops), sum(&je.t_iops));
        if m_rate > 0 || t_rate > 0 {
            let fmt = |n| num2str_from(n, units.sig_figs, 0, units.pow2, Unit::BytePerSec);
            let _ = write!(out, ", {}-{}", fmt(m_rate), fmt(t_rate));
        } else if m_iops > 0 || t_iops > 0 {
            let _ = write!(out, ", {}-{} IOPS", m_iops as i32, t_iops as i32);
        }
        if known && je.nr_running > 0 {
            let perc_str = if (je.eta_sec == 0 && !self.eta_good)
                || je.nr_ramp == je.nr_running
                || je.eta_sec == u64::MAX
            {
                "-.-%".to_string()
            } else {
                let mut mult = 100.0;
                if setting_up > 0 {
                    mult *= 1.0 - f64::from(setting_up) / f64::from(je.nr_running);
                }
                self.eta_good = true;
                perc *= mult;
                format!("{perc:3.1}%")
            };
            let _ = write!(out, ": [{}][{perc_str}]", je.run_str);
            out.push_str(&rates(je, units));
            let _ = write!(out, "[eta {}]", eta_to_str(je.eta_sec));
            let linelen = out.len();
            if linelen < self.linelen_last {
                out.push_str(&" ".repeat(self.linelen_last - linelen));
            }
            self.linelen_last = linelen;
        }
        out.push('\r');
        match (self.newline_from_ms, self.newline_ms) {
            (None, _) => self.newline_from_ms = Some(at_ms),
            (Some(from), Some(every)) if every > 0 && at_ms.saturating_sub(from) > every => {
                self.newline_from_ms = Some(at_ms);
                self.newline_pending = true;
            }
            _ => {}
        }
        out
    }
}

/// fio's `gen_eta_str`: `[r=…,w=…][r=…,w=… IOPS]` for the directions
/// that moved something, each rate `num2str(kib, 4, 1024, pow2, unit)`.
fn rates(je: &JobsEta, units: LineUnits) -> String {
    const NAMES: [char; 3] = ['r', 'w', 't'];
    let has: Vec<usize> = (0..3)
        .filter(|&d| je.rate[d] > 0 || je.iops[d] > 0)
        .collect();
    if has.is_empty() {
        return String::new();
    }
    let list = |f: &dyn Fn(usize) -> String| {
        has.iter()
            .map(|&d| format!("{}={}", NAMES[d], f(d)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let bw = list(&|d| kib_str(je.rate[d], units.pow2, units.unit));
    let iops = list(&|d| num2str_from(je.iops[d], 4, 0, false, Unit::None));
    format!("[{bw}][{iops} IOPS]")
}

/// `num2str(kib, 4, 1024, pow2, unit)` with fio's unit codes: a rate in
/// KiB/s, printed from the `Ki` (or `k`) prefix up.
pub(crate) fn kib_str(kib: u64, pow2: bool, unit: u32) -> String {
    match unit {
        1 => format!("{}/s", num2str_from(kib, 4, 1, pow2, Unit::None)),
        2 => num2str_from(kib, 4, 1, pow2, Unit::Byte),
        3 => {
            let s = num2str_from(kib, 4, 1, pow2, Unit::BitPerSec);
            s.strip_suffix("/s").map_or(s.clone(), str::to_string)
        }
        4 => num2str_from(kib, 4, 1, pow2, Unit::BytePerSec),
        5 => num2str_from(kib, 4, 1, pow2, Unit::BitPerSec),
        _ => num2str_from(kib, 4, 1, pow2, Unit::None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_print_from_kib() {
        assert_eq!(kib_str(0, true, 4), "0KiB/s");
        assert_eq!(kib_str(4000, true, 4), "4000KiB/s");
        assert_eq!(kib_str(507_904, true, 4), "496MiB/s");
        assert_eq!(kib_str(23_173_530, true, 4), "22.1GiB/s");
        assert_eq!(kib_str(43_725, true, 4), "42.7MiB/s");
        assert_eq!(kib_str(500, false, 4), "500kB/s");
    }
}
