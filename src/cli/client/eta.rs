//! The status line of a client run (client.c `request_client_etas`,
//! `fio_client_sum_jobs_eta`; eta.c `display_thread_status`).
//!
//! About every 0.95 s each running server is sent a SEND_ETA (one in
//! flight per server); the replies of one round are summed and the line is
//! printed once every server of the round answered, was skipped (still
//! busy with the round before) or was dropped. fio sums the counts, rates
//! and elapsed times, takes the largest ETA and the last run string, and
//! leaves the units unset (zero): its line shows `r=53.3M` (decimal, no
//! unit). Called as `rfio`, the units of the first reply are kept.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Instant;

use crate::cli::eta::estimate::eta_to_str;
use crate::output::num2str::{num2str_from, Unit};
use crate::wire::stats::eta::Eta;

/// fio's "no ETA" (`INT_MAX`).
const UNKNOWN: u64 = i32::MAX as u64;

/// The rounds of SEND_ETA in flight, and the line's state.
#[derive(Debug)]
pub(crate) struct Rounds {
    rounds: HashMap<u64, Round>,
    next: u64,
    /// Keep the first reply's units (fio leaves them zero).
    keep_units: bool,
    line: Line,
}

#[derive(Debug, Default)]
struct Round {
    pending: usize,
    sum: Eta,
    replies: usize,
}

impl Rounds {
    pub(crate) fn new(keep_units: bool, newline_ms: Option<u64>) -> Rounds {
        Rounds {
            rounds: HashMap::new(),
            next: 1,
            keep_units,
            line: Line {
                newline_ms,
                ..Line::default()
            },
        }
    }

    /// A round waiting for `pending` servers; its id.
    pub(crate) fn start(&mut self, pending: usize) -> u64 {
        let id = self.next;
        self.next += 1;
        self.rounds.insert(
            id,
            Round {
                pending,
                ..Round::default()
            },
        );
        id
    }

    /// Drop round `id` (no server takes part).
    pub(crate) fn forget(&mut self, id: u64) {
        self.rounds.remove(&id);
    }

    /// Server reply `je` to round `id`; the line to print when the round
    /// is complete.
    pub(crate) fn reply(&mut self, id: u64, je: &Eta, now: Instant) -> Option<String> {
        let keep = self.keep_units;
        let r = self.rounds.get_mut(&id)?;
        sum(&mut r.sum, je, keep && r.replies == 0);
        r.replies += 1;
        self.done_one(id, now)
    }

    /// One server of round `id` will not answer (skipped, timed out, gone);
    /// the line to print when the round is complete.
    pub(crate) fn done_one(&mut self, id: u64, now: Instant) -> Option<String> {
        let r = self.rounds.get_mut(&id)?;
        r.pending = r.pending.saturating_sub(1);
        if r.pending > 0 {
            return None;
        }
        let r = self.rounds.remove(&id)?;
        Some(self.line.display(&r.sum, now))
    }
}

/// fio's `fio_client_sum_jobs_eta`; `units`: also take `je`'s units.
fn sum(dst: &mut Eta, je: &Eta, units: bool) {
    dst.nr_running = dst.nr_running.wrapping_add(je.nr_running);
    dst.nr_ramp = dst.nr_ramp.wrapping_add(je.nr_ramp);
    dst.nr_pending = dst.nr_pending.wrapping_add(je.nr_pending);
    dst.nr_setting_up = dst.nr_setting_up.wrapping_add(je.nr_setting_up);
    dst.files_open = dst.files_open.wrapping_add(je.files_open);
    for d in 0..3 {
        dst.m_rate[d] = dst.m_rate[d].wrapping_add(je.m_rate[d]);
        dst.t_rate[d] = dst.t_rate[d].wrapping_add(je.t_rate[d]);
        dst.m_iops[d] = dst.m_iops[d].wrapping_add(je.m_iops[d]);
        dst.t_iops[d] = dst.t_iops[d].wrapping_add(je.t_iops[d]);
        dst.rate[d] = dst.rate[d].wrapping_add(je.rate[d]);
        dst.iops[d] = dst.iops[d].wrapping_add(je.iops[d]);
    }
    dst.elapsed_sec = dst.elapsed_sec.wrapping_add(je.elapsed_sec);
    dst.eta_sec = dst.eta_sec.max(je.eta_sec);
    dst.nr_threads = dst.nr_threads.wrapping_add(je.nr_threads);
    dst.run_str.clone_from(&je.run_str);
    if units {
        dst.is_pow2 = je.is_pow2;
        dst.unit_base = je.unit_base;
        dst.sig_figs = je.sig_figs;
    }
}

/// The line's state between prints (fio's statics).
#[derive(Debug, Default)]
struct Line {
    linelen_last: usize,
    eta_good: bool,
    newline_ms: Option<u64>,
    newline_from: Option<Instant>,
    newline_pending: bool,
}

impl Line {
    /// fio's `display_thread_status` of `je`: the text, `\r` included.
    fn display(&mut self, je: &Eta, now: Instant) -> String {
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
        let _ = write!(
            out,
            "Jobs: {} (f={})",
            je.nr_running as i32, je.files_open as i32
        );
        let pow2 = je.is_pow2 != 0;
        let sig = je.sig_figs as usize;
        let m_rate: u64 = je.m_rate.iter().fold(0, |a, b| a.wrapping_add(*b));
        let t_rate: u64 = je.t_rate.iter().fold(0, |a, b| a.wrapping_add(*b));
        let m_iops: u32 = je.m_iops.iter().fold(0, |a, b| a.wrapping_add(*b));
        let t_iops: u32 = je.t_iops.iter().fold(0, |a, b| a.wrapping_add(*b));
        if m_rate > 0 || t_rate > 0 {
            let _ = write!(
                out,
                ", {}-{}",
                num2str_from(m_rate, sig, 0, pow2, Unit::BytePerSec),
                num2str_from(t_rate, sig, 0, pow2, Unit::BytePerSec)
            );
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
                if je.nr_setting_up > 0 {
                    mult *= 1.0 - f64::from(je.nr_setting_up) / f64::from(je.nr_running);
                }
                self.eta_good = true;
                perc *= mult;
                format!("{perc:3.1}%")
            };
            let _ = write!(out, ": [{}][{perc_str}]", je.run_str);
            out.push_str(&rates(je, pow2));
            let _ = write!(out, "[eta {}]", eta_to_str(je.eta_sec));
            let linelen = out.len();
            if linelen < self.linelen_last {
                out.push_str(&" ".repeat(self.linelen_last - linelen));
            }
            self.linelen_last = linelen;
        }
        out.push('\r');
        match (self.newline_from, self.newline_ms) {
            (None, _) => self.newline_from = Some(now),
            (Some(from), Some(every))
                if every > 0
                    && now.saturating_duration_since(from).as_millis() > u128::from(every) =>
            {
                self.newline_from = Some(now);
                self.newline_pending = true;
            }
            _ => {}
        }
        out
    }
}

/// fio's `gen_eta_str`: `[r=…,w=…][r=…,w=… IOPS]`, each rate with
/// `num2str(rate, 4, 1024, is_pow2, unit_base)`.
fn rates(je: &Eta, pow2: bool) -> String {
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
    let bw = list(&|d| unit_str(je.rate[d], pow2, je.unit_base));
    let iops = list(&|d| num2str_from(u64::from(je.iops[d]), 4, 0, false, Unit::None));
    format!("[{bw}][{iops} IOPS]")
}

/// `num2str(kib, 4, 1024, pow2, unit)` with fio's unit codes (0 none,
/// 1 `/s`, 2 `B`, 3 `bit`, 4 `B/s`, 5 `bit/s`).
fn unit_str(kib: u64, pow2: bool, unit: u32) -> String {
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

    fn eta(running: u32, rate: u64, iops: u32, elapsed: u64, left: u64, run: &str) -> Eta {
        Eta {
            nr_running: running,
            files_open: running,
            rate: [rate, rate, 0],
            iops: [iops, iops, 0],
            elapsed_sec: elapsed,
            eta_sec: left,
            is_pow2: 1,
            unit_base: 4,
            sig_figs: 4,
            run_str: run.into(),
            ..Eta::default()
        }
    }

    /// fio 3.33's client against a `timed` psync job: the sum has no
    /// units, so the rates print decimal without a unit, and the ETA of
    /// 0 before any good one shows `-.-%`.
    #[test]
    fn a_round_prints_fios_client_line() {
        let now = Instant::now();
        let mut r = Rounds::new(false, None);
        let id = r.start(1);
        let line = r.reply(id, &eta(1, 53_300, 13_300, 2, 0, "m(1)"), now);
        assert_eq!(
            line.as_deref(),
            Some(
                "Jobs: 1 (f=1): [m(1)][-.-%][r=53.3M,w=53.3M][r=13.3k,w=13.3k IOPS][eta 00m:00s]\r"
            )
        );
        // Kept units, called as rfio.
        let mut r = Rounds::new(true, None);
        let id = r.start(1);
        let line = r
            .reply(id, &eta(1, 53_300, 13_300, 2, 2, "m(1)"), now)
            .unwrap();
        assert!(line.contains("[50.0%][r=52.1MiB/s,w=52.1MiB/s]"), "{line}");
    }

    #[test]
    fn a_round_waits_for_every_server_and_sums() {
        let now = Instant::now();
        let mut r = Rounds::new(false, None);
        let id = r.start(3);
        assert!(r.reply(id, &eta(1, 1000, 10, 3, 5, "R(1)"), now).is_none());
        assert!(r.done_one(id, now).is_none());
        let line = r.reply(id, &eta(2, 1000, 10, 3, 9, "W(2)"), now).unwrap();
        // Elapsed times summed (6), the largest ETA (9): 40%.
        assert!(line.starts_with("Jobs: 3 (f=3): [W(2)][40.0%]"), "{line}");
        assert!(line.ends_with("[eta 00m:09s]\r"), "{line}");
        // A round whose servers were all busy prints fio's empty line.
        let id = r.start(1);
        assert_eq!(r.done_one(id, now).as_deref(), Some("Jobs: 0 (f=0)\r"));
        assert!(r.done_one(id, now).is_none());
    }
}
