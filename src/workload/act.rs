//! `--profile=act` while its jobs run (fio's `profiles/act.c` hooks): each
//! job counts its I/Os' latencies in hour-long slices (over 1, 8 and 64
//! ms), checks ACT's pass criteria at the end of each slice (a job that
//! fails them ends with an error), and when the last act job of the run
//! ends, the slices of all of them are printed as ACT's table.
//!
//! fio 3.33 sizes the slices from `test-duration` in microseconds (one
//! slice per 3,600 µs of it), so the table has that many lines, and its
//! two halves ("trans" and "device") repeat the same numbers; rfio prints
//! the table as fio does.

use std::sync::Mutex;

use crate::plan::resolve::host::ActHooks;
use crate::plan::spec::Plan;

/// ACT's pass criteria: latency over `max_usec` for at most `max_perm`
/// per mille of the I/Os.
const CRITERIA: [(u64, u64); 3] = [(1000, 50), (8000, 10), (64000, 1)];
/// A slice lasts an hour.
const SLICE_NS: u64 = 3600 * 1_000_000_000;

/// One slice: I/Os over each criterion's latency, and all I/Os.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Slice {
    over: [u64; 3],
    total: u64,
}

/// One act job's slices.
#[derive(Debug, Clone)]
pub(crate) struct ActSlices {
    /// Slices used so far (the rest are empty).
    slices: Vec<Slice>,
    /// fio's `nr_slices`.
    nr: u64,
    cur: u64,
    /// When the current slice started, ns on the job's clock.
    start_ns: u64,
    prep: bool,
}

/// A slice that failed ACT's criterion `criterion` (an index of
/// `CRITERIA`): `perm` per mille of its I/Os over the latency, `max_perm`
/// allowed. The text is fio's line.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error(
    "act: {:.6}% exceeds pass criteria of {:.6}%\n",
    perm / 10.0,
    *max_perm as f64 / 10.0
)]
pub(crate) struct SliceFailed {
    pub(crate) criterion: usize,
    pub(crate) perm: f64,
    pub(crate) max_perm: u64,
}

impl ActSlices {
    pub(crate) fn new(h: &ActHooks) -> ActSlices {
        ActSlices {
            slices: Vec::new(),
            nr: h.slices,
            cur: 0,
            start_ns: 0,
            prep: h.prep,
        }
    }

    /// An I/O of latency `lat_ns` completed at `now_ns`: `Err` with fio's
    /// message when the slice it closes fails ACT's criteria.
    #[inline]
    pub(crate) fn record(&mut self, lat_ns: u64, now_ns: u64) -> Result<(), SliceFailed> {
        if self.prep || self.cur >= self.nr {
            return Ok(());
        }
        let i = self.cur as usize;
        if self.slices.len() <= i {
            self.slices.resize(i + 1, Slice::default());
        }
        let slice = &mut self.slices[i];
        slice.total += 1;
        let usec = lat_ns / 1000;
        if let Some(c) = (0..3).rev().find(|&c| usec > CRITERIA[c].0) {
            slice.over[c] += 1;
        }
        if now_ns.saturating_sub(self.start_ns) < SLICE_NS {
            return Ok(());
        }
        let slice = *slice;
        self.start_ns = now_ns;
        self.cur += 1;
        for (c, &(_, max_perm)) in CRITERIA.iter().enumerate() {
            let perm = 1000.0 * slice.over[c] as f64 / slice.total as f64;
            if perm >= max_perm as f64 {
                return Err(SliceFailed {
                    criterion: c,
                    perm,
                    max_perm,
                });
            }
        }
        Ok(())
    }
}

/// The act jobs of the run in progress: how many have not ended, and the
/// slices of those that have.
struct ActRun {
    pending: usize,
    nr: u64,
    slices: Vec<Slice>,
}

static RUN: Mutex<Option<ActRun>> = Mutex::new(None);

/// The run of `plan` starts: count its act jobs.
pub(crate) fn run_started(plan: &Plan) {
    let mut act = plan.jobs.iter().filter_map(|j| j.host.act.as_ref());
    let Some(first) = act.next() else {
        return;
    };
    *RUN.lock().unwrap_or_else(|e| e.into_inner()) = Some(ActRun {
        pending: 1 + act.count(),
        nr: first.slices,
        slices: Vec::new(),
    });
}

/// An act job ended with `job`'s slices: when it is the last, the table
/// (fio prints it as it reaps that job).
pub(crate) fn job_done(job: &ActSlices) -> Option<String> {
    let mut run = RUN.lock().unwrap_or_else(|e| e.into_inner());
    let r = run.as_mut()?;
    if r.slices.len() < job.slices.len() {
        r.slices.resize(job.slices.len(), Slice::default());
    }
    for (dst, src) in r.slices.iter_mut().zip(&job.slices) {
        dst.total += src.total;
        for c in 0..3 {
            dst.over[c] += src.over[c];
        }
    }
    r.pending = r.pending.saturating_sub(1);
    if r.pending > 0 {
        return None;
    }
    run.take().map(|r| table(&r))
}

/// The run is over: the table, if some act job never ended on its thread
/// (fio reaps those too).
pub(crate) fn run_over() -> Option<String> {
    RUN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .map(|r| table(&r))
}

/// fio's `act_show_all_stats`.
fn table(r: &ActRun) -> String {
    let mut out = String::from(
        "        trans                   device\n        %>(ms)                  %>(ms)\n slice",
    );
    for _ in 0..2 {
        for (usec, _) in CRITERIA {
            out.push_str(&format!("\t {:2}", usec / 1000));
        }
    }
    out.push_str("\n -----  -----   -----  ------   -----   -----  ------\n");
    let mut fails = 0;
    for i in 0..r.nr {
        let s = r.slices.get(i as usize).copied().unwrap_or_default();
        let perc: Vec<f64> = (0..3)
            .map(|c| match s.total {
                0 => 0.0,
                t => 100.0 * s.over[c] as f64 / t as f64,
            })
            .collect();
        fails += perc
            .iter()
            .zip(CRITERIA)
            .filter(|(p, (_, max_perm))| *p * 10.0 >= *max_perm as f64)
            .count();
        out.push_str(&format!("   {:2}", i + 1));
        for _ in 0..2 {
            for p in &perc {
                out.push_str(&format!("\t{p:2.2}"));
            }
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "\nact: test complete, device(s): {}\n",
        if fails > 0 { "FAILED" } else { "PASSED" }
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn latencies_go_to_the_highest_bucket_they_pass() {
        let mut a = ActSlices::new(&ActHooks {
            slices: 2,
            prep: false,
        });
        for lat in [500_000, 2 * MS, 9 * MS, 65 * MS] {
            a.record(lat, 0).unwrap();
        }
        assert_eq!(
            a.slices[0],
            Slice {
                over: [1, 1, 1],
                total: 4
            }
        );
        // The hour is over: 25% over 1 ms fails the first criterion.
        let e = a.record(0, SLICE_NS).unwrap_err();
        assert_eq!((e.criterion, e.max_perm), (0, 50));
        assert_eq!(
            e.to_string(),
            "act: 20.000000% exceeds pass criteria of 5.000000%\n"
        );
        assert_eq!(a.cur, 1);
        let mut p = ActSlices::new(&ActHooks {
            slices: 2,
            prep: true,
        });
        p.record(65 * MS, 0).unwrap();
        assert!(p.slices.is_empty());
    }

    #[test]
    fn the_table_as_fio_prints_it() {
        let r = ActRun {
            pending: 0,
            nr: 2,
            slices: vec![Slice {
                over: [17, 1, 0],
                total: 300,
            }],
        };
        assert_eq!(
            table(&r),
            "        trans                   device\n        %>(ms)                  %>(ms)\n \
             slice\t  1\t  8\t 64\t  1\t  8\t 64\n \
             -----  -----   -----  ------   -----   -----  ------\n    \
             1\t5.67\t0.33\t0.00\t5.67\t0.33\t0.00\n    \
             2\t0.00\t0.00\t0.00\t0.00\t0.00\t0.00\n\nact: test complete, device(s): FAILED\n"
        );
    }
}
