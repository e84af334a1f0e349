//! The runs of a `--repeat` as they come, in memory bounded per run
//! ([`Runs`]), and the reports kept to print the median run's
//! ([`Kept`]).
//!
//! What the summary needs of a run is a few numbers per reported entry
//! and direction (IOPS, bandwidth, mean completion latency, one value per
//! percentile of the list): [`Runs`] keeps those, 8 bytes each, and, for
//! the median run, the run's total bandwidth and number in order (16
//! bytes; a run's insertion moves the half above it, a copy far cheaper
//! than the run). The medians printed are exact, which needs every run's
//! value (no streaming estimate gives the same bytes as the sorted values,
//! and for a few runs the output must stay byte for byte what it was).
//! What grows with the runs is thus `(3 + percentiles) * 8` bytes per
//! entry and direction plus 16 bytes, where every run's whole report
//! (about 10 KiB) was kept ([`Runs::retained_values`]). The mean, the
//! variance, the minimum and the maximum come from the same values, in
//! run order, as [`Spread::of`] always computed them.
//!
//! The report printed is a whole run's, and which run is the median is
//! known only at the end: [`Kept`] holds at most [`KEPT_REPORTS`] reports.
//! Up to that many runs every report is held, and the median run's is
//! printed, as before. Past it, a held run goes first when it can no
//! longer be the median of the runs asked for (its rank among the runs
//! made tells), else the one farthest in bandwidth from the running median
//! but for the lowest and highest few that may still be it (under a
//! steady trend the median run is at an end). Runs of one bandwidth, runs
//! rising or falling, and noise over some thousands of runs keep the median
//! run's report; otherwise (a run stopped early by a signal, long noisy
//! repetitions) the report printed is the held run's nearest to the median
//! (in bandwidth, then run number), and the summary's `median_run` gives
//! that run's number.

use std::cmp::Ordering;

use super::{
    DirMetrics, DirRepeat, JobRepeat, RepeatSummary, RunMetrics, Spread, Stopped, DIR_NAMES,
};

/// At most this many runs' reports are held at a time.
pub const KEPT_REPORTS: usize = 64;

/// A run's total bandwidth and number: ordered by bandwidth, runs of
/// equal bandwidth in run order (the order [`super::median_run`]
/// sorts by).
#[derive(Debug, Clone, Copy)]
struct Key(f64, usize);

impl PartialEq for Key {
    fn eq(&self, o: &Key) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Key) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key {
    fn cmp(&self, o: &Key) -> Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// One direction of one entry over the runs in which it moved data.
#[derive(Debug, Default)]
struct DirRuns {
    runs: u32,
    iops: Vec<f64>,
    bw_bytes: Vec<f64>,
    clat_mean_ns: Vec<f64>,
    /// The percentile list of the first run with the direction, and each
    /// percentile's values.
    list: Vec<f64>,
    percentiles: Vec<Vec<f64>>,
}

impl DirRuns {
    fn add(&mut self, m: &DirMetrics) {
        if self.runs == 0 {
            self.list = m.clat_percentiles.iter().map(|&(p, _)| p).collect();
            self.percentiles = vec![Vec::new(); self.list.len()];
        }
        self.runs += 1;
        self.iops.push(m.iops);
        self.bw_bytes.push(m.bw_bytes);
        self.clat_mean_ns.push(m.clat_mean_ns);
        for (vals, &(_, v)) in self.percentiles.iter_mut().zip(&m.clat_percentiles) {
            vals.push(v as f64);
        }
    }

    #[cfg(test)]
    fn values(&self) -> usize {
        self.iops.len()
            + self.bw_bytes.len()
            + self.clat_mean_ns.len()
            + self.percentiles.iter().map(Vec::len).sum::<usize>()
    }
}

/// The runs so far, as the summary needs them.
#[derive(Debug, Default)]
pub struct Runs {
    /// Every run's total bandwidth and number, in [`Key`] order.
    sorted: Vec<Key>,
    /// By entry (report order), by direction.
    entries: Vec<[DirRuns; 3]>,
}

impl Runs {
    pub fn new() -> Runs {
        Runs::default()
    }

    /// The runs added.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Add the next run; its number (0-based).
    pub fn add(&mut self, m: &RunMetrics) -> usize {
        let run = self.len();
        let key = Key(m.total_bw(), run);
        // Last among equal bandwidths: the run numbers grow.
        let at = self.sorted.partition_point(|k| *k <= key);
        self.sorted.insert(at, key);
        if self.entries.len() < m.jobs.len() {
            self.entries.resize_with(m.jobs.len(), Default::default);
        }
        for (e, job) in self.entries.iter_mut().zip(&m.jobs) {
            for (d, dir) in e.iter_mut().zip(&job.dirs) {
                if let Some(dir) = dir {
                    d.add(dir);
                }
            }
        }
        run
    }

    /// The median run (0-based) and its total bandwidth: the lower median
    /// of the total bandwidths, runs of equal bandwidth in run order.
    pub fn median(&self) -> Option<(usize, f64)> {
        let n = self.sorted.len();
        let k = self.sorted.get(n.saturating_sub(1) / 2)?;
        Some((k.1, k.0))
    }

    /// How many runs are below run `run` of bandwidth `bw`.
    fn rank(&self, run: usize, bw: f64) -> usize {
        let key = Key(bw, run);
        self.sorted.partition_point(|k| *k < key)
    }

    /// The f64 values held for the spreads (not counting the two heaps of
    /// the total bandwidths, one entry a run).
    #[cfg(test)]
    pub fn retained_values(&self) -> usize {
        self.entries.iter().flatten().map(DirRuns::values).sum()
    }

    /// Sum up the runs, of which run `reported` (0-based), whose metrics
    /// are `shape`, is printed.
    pub fn summarize(
        &self,
        requested: u32,
        reported: usize,
        shape: &RunMetrics,
        stopped: Option<Stopped>,
    ) -> RepeatSummary {
        let jobs = shape
            .jobs
            .iter()
            .enumerate()
            .map(|(i, job)| {
                let mut dirs = Vec::new();
                for (d, name) in DIR_NAMES.iter().enumerate() {
                    let Some(r) = self.entries.get(i).map(|e| &e[d]) else {
                        continue;
                    };
                    if r.runs == 0 {
                        continue;
                    }
                    let ddir = if job.mixed && d == 0 { "mixed" } else { name };
                    dirs.push(DirRepeat {
                        ddir: ddir.to_string(),
                        runs: r.runs,
                        iops: Spread::of(&r.iops),
                        bw_bytes: Spread::of(&r.bw_bytes),
                        clat_mean_ns: Spread::of(&r.clat_mean_ns),
                        clat_percentiles: r
                            .list
                            .iter()
                            .zip(&r.percentiles)
                            .map(|(&p, vals)| (p, Spread::of(vals)))
                            .collect(),
                    });
                }
                JobRepeat {
                    jobname: job.jobname.clone(),
                    groupid: job.groupid,
                    dirs,
                }
            })
            .collect();
        RepeatSummary {
            requested,
            runs: self.len() as u32,
            median_run: reported as u32 + 1,
            stopped,
            jobs,
        }
    }
}

/// The reports of at most [`KEPT_REPORTS`] runs, those that may still be
/// the median run, nearest to it.
#[derive(Debug)]
pub struct Kept<R> {
    cap: usize,
    /// The runs asked for.
    requested: usize,
    held: Vec<(usize, f64, R)>,
}

/// Of the held runs that may still be the median, this many of the lowest
/// and of the highest are never let go for nearness: under a trend (each
/// run faster, or slower, than the last) the median run is at one end.
const ENDS: usize = KEPT_REPORTS / 8;

impl<R> Kept<R> {
    /// Room for `cap` reports (at least `2 * ENDS + 1`) of `requested` runs.
    pub fn new(cap: usize, requested: u32) -> Kept<R> {
        Kept {
            cap: cap.max(2 * ENDS + 1),
            requested: requested.max(1) as usize,
            held: Vec::new(),
        }
    }

    /// The reports held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Hold the report of run `run` (total bandwidth `bw`, already added to
    /// `runs`); past the room one goes: one that can no longer be the
    /// median run of the runs asked for, or else, but for the ends, the one
    /// farthest from the running median's bandwidth.
    pub fn offer(&mut self, run: usize, bw: f64, runs: &Runs, report: R) {
        self.held.push((run, bw, report));
        if self.held.len() <= self.cap {
            return;
        }
        let (seen, n) = (runs.len(), self.requested.max(runs.len()));
        let k = (n - 1) / 2;
        let median = runs.median().map_or(0.0, |(_, b)| b);
        // (rank, held index) of each; a run of rank r among `seen` ends at
        // rank k only if r <= k and seen - 1 - r <= n - 1 - k.
        let mut ranked: Vec<(usize, usize)> = self
            .held
            .iter()
            .enumerate()
            .map(|(i, &(r, b, _))| (runs.rank(r, b), i))
            .collect();
        ranked.sort_unstable();
        let possible = |r: usize| r <= k && seen - 1 - r <= n - 1 - k;
        let go = match ranked.iter().find(|&&(r, _)| !possible(r)) {
            Some(&(_, i)) => i,
            None => {
                let middle = &ranked[ENDS..ranked.len() - ENDS];
                let far = |&&(_, i): &&(usize, usize)| (self.held[i].1 - median).abs();
                middle
                    .iter()
                    .max_by(|a, b| far(a).total_cmp(&far(b)))
                    .map_or(0, |&(_, i)| i)
            }
        };
        self.held.swap_remove(go);
    }

    /// The report of run `run` (total bandwidth `bw`), or else of the held
    /// run nearest to it (by bandwidth, then run number); with its run
    /// number.
    pub fn take(mut self, run: usize, bw: f64) -> Option<(usize, R)> {
        let near = |&(r, b, _): &(usize, f64, R)| ((b - bw).abs(), r.abs_diff(run));
        let at = (0..self.held.len()).min_by(|&a, &b| {
            let (da, db) = (near(&self.held[a]), near(&self.held[b]));
            da.0.total_cmp(&db.0).then(da.1.cmp(&db.1))
        })?;
        let (r, _, report) = self.held.swap_remove(at);
        Some((r, report))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{JobMetrics, RunMetrics};
    use super::*;

    /// A run of one entry reading at `bw` with a percentile list of `p`.
    fn run(bw: f64, p: usize) -> RunMetrics {
        let d = DirMetrics {
            iops: bw / 4096.0,
            bw_bytes: bw,
            clat_mean_ns: 1e6 / bw,
            clat_percentiles: (0..p).map(|k| (k as f64, k as u64 * 10)).collect(),
        };
        RunMetrics {
            jobs: vec![JobMetrics {
                jobname: "j".into(),
                groupid: 0,
                dirs: [Some(d.clone()), None, Some(d)],
                mixed: false,
            }],
        }
    }

    /// A deterministic spread of bandwidths.
    fn bw(i: usize) -> f64 {
        1e6 + ((i * 7919) % 1000) as f64
    }

    #[test]
    fn what_is_held_is_a_few_numbers_a_run_and_a_fixed_set_of_reports() {
        let n = 20_000;
        let mut runs = Runs::new();
        let mut kept = Kept::new(KEPT_REPORTS, n as u32);
        for i in 0..n {
            let m = run(bw(i), 17);
            let r = runs.add(&m);
            // A stand-in for the report: 1 KiB.
            kept.offer(r, m.total_bw(), &runs, vec![0u8; 1024]);
            assert!(kept.len() <= KEPT_REPORTS);
        }
        // Two directions of (3 + 17) values a run, nothing else.
        assert_eq!(runs.retained_values(), n * 2 * 20);
        assert_eq!(runs.len(), n);
        let s = runs.summarize(n as u32, 0, &run(1.0, 17), None);
        let d = &s.jobs[0].dirs;
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].ddir.as_str(), d[1].ddir.as_str()), ("read", "trim"));
        assert_eq!(d[0].runs, n as u32);
        assert_eq!(d[0].bw_bytes.min, 1e6);
        assert_eq!(d[0].bw_bytes.max, 1e6 + 999.0);
        assert_eq!(d[0].clat_percentiles.len(), 17);
    }

    #[test]
    fn the_median_runs_report_is_held() {
        for (n, f) in [
            (5000usize, bw as fn(usize) -> f64),
            (5000, |_| 7.0),
            (5000, |i| i as f64),
            (5000, |i| -(i as f64)),
            (10, bw),
        ] {
            let mut runs = Runs::new();
            let mut kept = Kept::new(KEPT_REPORTS, n as u32);
            let mut all = Vec::new();
            for i in 0..n {
                let m = run(f(i), 0);
                let r = runs.add(&m);
                kept.offer(r, m.total_bw(), &runs, r);
                all.push(m);
            }
            let (median, bw) = runs.median().unwrap();
            assert_eq!(median, super::super::median_run(&all));
            let mut order: Vec<(f64, usize)> = (0..n).map(|i| (f(i), i)).collect();
            order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            assert_eq!(median, order[(n - 1) / 2].1);
            assert_eq!(kept.take(median, bw), Some((median, median)), "{n} runs");
        }
    }

    #[test]
    fn a_report_not_held_gives_way_to_the_nearest() {
        // Room for 17 of 1000 runs, stopped after 100 rising ones: the
        // lowest and the highest are held (each may still be the median of
        // 1000), the median of the 100 made (run 49) is not; the held run
        // nearest to it in bandwidth is printed.
        let (mut runs, mut kept) = (Runs::new(), Kept::new(0, 1000));
        for i in 0..100 {
            let m = run(i as f64, 0);
            let r = runs.add(&m);
            kept.offer(r, m.total_bw(), &runs, r);
        }
        let mut held: Vec<usize> = kept.held.iter().map(|x| x.0).collect();
        held.sort_unstable();
        let want: Vec<usize> = (0..=8).chain(92..100).collect();
        assert_eq!(held, want);
        let (median, bw) = runs.median().unwrap();
        assert_eq!(median, 49);
        assert_eq!(kept.take(median, bw), Some((8, 8)));
    }
}
