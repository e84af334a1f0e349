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
use std::time::Instant;

use crate::cli::eta::display::{Line, LineUnits};
use crate::cli::eta::JobsEta;
use crate::wire::stats::eta::Eta;

/// The rounds of SEND_ETA in flight, and the line's state.
#[derive(Debug)]
pub(crate) struct Rounds {
    rounds: HashMap<u64, Round>,
    next: u64,
    /// Keep the first reply's units (fio leaves them zero).
    keep_units: bool,
    line: Line,
    /// What the `--eta-newline` period counts from.
    origin: Instant,
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
            line: Line::new(newline_ms),
            origin: Instant::now(),
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
        let (je, units) = as_line(&r.sum);
        let at_ms = now.saturating_duration_since(self.origin).as_millis() as u64;
        Some(self.line.display(&je, r.sum.nr_setting_up, units, at_ms))
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

/// The summed reply as the status line's numbers and units (fio's client
/// prints it with eta.c's `display_thread_status`).
fn as_line(je: &Eta) -> (JobsEta, LineUnits) {
    let wide = |a: [u32; 3]| a.map(u64::from);
    let numbers = JobsEta {
        nr_running: je.nr_running,
        nr_ramp: je.nr_ramp,
        nr_pending: je.nr_pending,
        files_open: je.files_open,
        m_rate: je.m_rate,
        t_rate: je.t_rate,
        m_iops: wide(je.m_iops),
        t_iops: wide(je.t_iops),
        rate: je.rate,
        iops: wide(je.iops),
        elapsed_sec: je.elapsed_sec,
        eta_sec: je.eta_sec,
        run_str: je.run_str.clone(),
    };
    let units = LineUnits {
        pow2: je.is_pow2 != 0,
        sig_figs: je.sig_figs as usize,
        unit: je.unit_base,
    };
    (numbers, units)
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
