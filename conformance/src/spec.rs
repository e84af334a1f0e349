//! What a job file's header says about how it is judged: the real run's [`RunSpec`] (timed,
//! mixed, tolerances per [`TimingKey`], terse version) and the [`Directives`] about rfio's
//! deliberate differences. Plain values, parsed by corpus.rs and read by every check.

/// Whether a job file is really run (`run` and `pipelines` checks), and how it is judged.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum RunMode {
    /// No `run` directive: only parsed (`showcmd`, `parse-only`).
    #[default]
    ParseOnly,
    /// `; conformance: run`, with its options.
    Run(RunSpec),
    /// `; conformance: skip-run=REASON`: would be run, but is not, for this reason.
    Skipped(String),
}

/// How the outcome of a real run is judged (`; conformance: run, ...`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RunSpec {
    /// `tolerance=N` and `tolerance.KEY=N`: how far apart fio's and rfio's timing figures may
    /// be, per kind of figure.
    pub(crate) tolerance: Tolerances,
    /// `timed`: the job is bound by time (time_based, runtime, rate limits that end it): its I/O
    /// counts and bytes are compared within the tolerance instead of exactly.
    pub(crate) timed: bool,
    /// `mixed`: a random read/write mix whose split is not reproducible: per direction, counts
    /// are only checked for plausibility; the total bytes of all directions are exact.
    pub(crate) mixed: bool,
    /// `unsteady`: fio's own counts on this job depend on the machine's scheduling (loopback
    /// sockets under load can split a block or stall a pong): a difference of any kind, not only
    /// a timing figure, is run again (`--retries`), and one attempt that agrees passes.
    pub(crate) unsteady: bool,
    /// `terse-version=N`: the terse run uses `--output-format=terse --terse-version=N` instead
    /// of `--minimal`.
    pub(crate) terse_version: Option<u8>,
}

/// Default `tolerance`: timing figures may differ by a factor of 10 either way.
pub(crate) const DEFAULT_TOLERANCE: f64 = 10.0;

/// The kinds of timing figure that have a tolerance of their own (`tolerance.KEY=N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimingKey {
    /// I/O counts and bytes of `timed` jobs (`io_bytes`, `io_kbytes`, `total_ios`, `N`,
    /// terse io KiB), and log line counts.
    Counts,
    /// Bandwidth: `bw_bytes`, `bw`, terse bandwidth.
    Bw,
    /// `iops`, terse IOPS.
    Iops,
    /// `runtime`, `job_runtime`, terse runtime.
    Runtime,
    /// The means of the bandwidth and IOPS samples (`bw_mean`, `iops_mean`): compared only
    /// where the header sets `tolerance.samples`.
    Samples,
}

impl TimingKey {
    pub(crate) const ALL: [TimingKey; 5] = [
        TimingKey::Counts,
        TimingKey::Bw,
        TimingKey::Iops,
        TimingKey::Runtime,
        TimingKey::Samples,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            TimingKey::Counts => "counts",
            TimingKey::Bw => "bw",
            TimingKey::Iops => "iops",
            TimingKey::Runtime => "runtime",
            TimingKey::Samples => "samples",
        }
    }
}

/// The tolerance of each [`TimingKey`]: the larger value may be at most this factor times the
/// smaller one. `samples` is `None` unless the header sets it (not compared).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Tolerances {
    pub(crate) counts: f64,
    pub(crate) bw: f64,
    pub(crate) iops: f64,
    pub(crate) runtime: f64,
    pub(crate) samples: Option<f64>,
}

impl Tolerances {
    /// Every kind of figure within `factor` (`samples` compared too).
    #[cfg(test)]
    pub(crate) fn all(factor: f64) -> Tolerances {
        Tolerances {
            counts: factor,
            bw: factor,
            iops: factor,
            runtime: factor,
            samples: Some(factor),
        }
    }

    /// The tolerance for `key`, `None` where that kind is not compared.
    pub(crate) fn get(&self, key: TimingKey) -> Option<f64> {
        match key {
            TimingKey::Counts => Some(self.counts),
            TimingKey::Bw => Some(self.bw),
            TimingKey::Iops => Some(self.iops),
            TimingKey::Runtime => Some(self.runtime),
            TimingKey::Samples => self.samples,
        }
    }

    /// Sets the tolerance of `key` (`None`: every kind but `samples`) to `factor`.
    pub(crate) fn set(&mut self, key: Option<TimingKey>, factor: f64) {
        match key {
            None => {
                self.counts = factor;
                self.bw = factor;
                self.iops = factor;
                self.runtime = factor;
            }
            Some(TimingKey::Counts) => self.counts = factor,
            Some(TimingKey::Bw) => self.bw = factor,
            Some(TimingKey::Iops) => self.iops = factor,
            Some(TimingKey::Runtime) => self.runtime = factor,
            Some(TimingKey::Samples) => self.samples = Some(factor),
        }
    }
}

impl Default for Tolerances {
    fn default() -> Tolerances {
        Tolerances {
            counts: DEFAULT_TOLERANCE,
            bw: DEFAULT_TOLERANCE,
            iops: DEFAULT_TOLERANCE,
            runtime: DEFAULT_TOLERANCE,
            samples: None,
        }
    }
}

/// What `; conformance:` header lines say about rfio's deliberate differences from fio.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Directives {
    /// `rfio-refuses`: fio accepts this file but rfio deliberately rejects it (for example a
    /// silent misread such as `bs=4 k`). Where fio exits 0, rfio must exit non-zero.
    pub(crate) rfio_refuses: bool,
    /// `rfio-accepts`: fio rejects this file but rfio deliberately runs it (for example a UTF-8
    /// byte order mark, which fio reads as part of the first line). Where fio exits non-zero,
    /// rfio must exit 0.
    pub(crate) rfio_accepts: bool,
    /// Not a header directive: set for every file when "rfio" is really rfio (not fio compared
    /// with itself). rfio's stdout must then hold nothing but the report: one JSON document, or
    /// terse lines only, where fio also prints some errors on stdout.
    pub(crate) pure_output: bool,
}

impl Directives {
    /// The directive names that are set, as written in headers.
    pub(crate) fn names(self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if self.rfio_refuses {
            names.push(RFIO_REFUSES);
        }
        if self.rfio_accepts {
            names.push(RFIO_ACCEPTS);
        }
        names
    }
}

/// `rfio-refuses`, as written in headers.
pub(crate) const RFIO_REFUSES: &str = "rfio-refuses";
/// `rfio-accepts`, as written in headers.
pub(crate) const RFIO_ACCEPTS: &str = "rfio-accepts";
