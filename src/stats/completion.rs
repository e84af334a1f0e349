//! A finished I/O as it travels to the statistics ([`Completion`]), and
//! what the statistics hand a job's per-I/O logs: the [`IoLog`] trait,
//! implemented by `crate::logs` (statistics do not know how logs are
//! written, and import nothing of them), and the value of one logged I/O
//! ([`LoggedIo`]).
//!
//! A job without logs has no [`IoLog`]; one with logs pays one call per
//! completed I/O (and one per closed bandwidth/IOPS window), nothing else.

use super::hist::LatHist;

/// An error of a job's logs, as `IoLog::finish` hands it (the logs'
/// `logs::Error`, which stats cannot name).
pub type LogError = Box<dyn std::error::Error + Send + Sync>;
use crate::ddir::Ddir;

/// `slat_ns` of an I/O from an engine without a separate submission step
/// (sync engines): no submission latency is recorded and the total latency
/// is the completion latency, as fio reports them.
pub const NO_SLAT: u64 = u64::MAX;

/// One finished I/O, as the workload hands it to
/// [`ThreadStats::complete`](super::ThreadStats::complete).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// Read, write or trim.
    pub dir: Ddir,
    /// Bytes moved.
    pub bytes: u64,
    /// From issue to submission; [`NO_SLAT`] (the default) for an engine
    /// without a separate submission step.
    pub slat_ns: u64,
    /// From submission to completion.
    pub clat_ns: u64,
    /// When it completed, counted from the start of the job's I/O (for
    /// bandwidth/IOPS samples and logs).
    pub at_ns: u64,
    /// Its file offset (for `log_offset=1` logs).
    pub offset: u64,
    /// The statistics slot of the priority it carried (what the engine's
    /// `prio_slot` reports; 0 is the job's own priority): its latency also
    /// counts for that priority when the direction has command priorities,
    /// and its log lines show that priority.
    pub prio_slot: u16,
    pub timing: Timing,
}

impl Default for Completion {
    fn default() -> Completion {
        Completion {
            dir: Ddir::Read,
            bytes: 0,
            slat_ns: NO_SLAT,
            clat_ns: 0,
            at_ns: 0,
            offset: 0,
            prio_slot: 0,
            timing: Timing::Io,
        }
    }
}

/// What a [`Completion`]'s latencies are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Timing {
    /// An I/O: `slat_ns` and `clat_ns` are its latencies.
    #[default]
    Io,
    /// An I/O of a file-operation engine (filecreate, filestat, ...;
    /// fio's `FIO_NOSTATS`): left out of the latency statistics, its
    /// `slat_ns` and `clat_ns` unused. The file operation's time is
    /// recorded as a completion latency once per file open: `open_ns` on
    /// the first I/O after the file was opened, `None` on the others.
    FileOp { open_ns: Option<u64> },
}

/// The periodic samplers whose windows feed logs (fio's non-inline logs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rate {
    /// Bandwidth, KiB/s.
    Bw,
    /// I/Os per second.
    Iops,
}

/// One completed I/O as the logs see it: what the statistics recorded of
/// it, each value present when its log is fed.
#[derive(Debug, Clone, Copy)]
pub struct LoggedIo<'a> {
    /// Completion time, ms since the job's I/O start.
    pub(crate) t_ms: u64,
    /// 0 read, 1 write, 2 trim.
    pub(crate) dir: usize,
    pub(crate) bytes: u64,
    /// File offset (`log_offset=1`).
    pub(crate) offset: u64,
    /// The I/O priority it carried (fio's `io_u->ioprio`).
    pub(crate) ioprio: u16,
    /// A per-I/O bandwidth sample, B/s (a bandwidth log without
    /// `log_avg_msec`).
    pub(crate) bw: Option<u64>,
    /// A per-I/O IOPS sample (an IOPS log without `log_avg_msec`).
    pub(crate) iops: bool,
    pub(crate) lat_ns: Option<u64>,
    /// When the I/O was issued (ms since the I/O start) and its
    /// submission latency.
    pub(crate) slat: Option<(u64, u64)>,
    /// When the I/O was issued (submitted to the engine), ns since the
    /// I/O start: its completion time less its completion latency.
    pub(crate) issued_ns: u64,
    pub(crate) clat_ns: Option<u64>,
    /// Whether the I/O counts for the clat histogram log, and the
    /// direction's clat histogram (cumulative, this I/O included).
    pub(crate) hist: bool,
    pub(crate) clat_hist: Option<&'a LatHist>,
}

/// A job's per-I/O logs, fed by its [`ThreadStats`](super::ThreadStats).
pub trait IoLog: Send + std::fmt::Debug {
    /// The job's I/O starts, at `start_unix_ms` since the Unix epoch: open
    /// the files.
    fn start(&mut self, start_unix_ms: u64) -> std::io::Result<()>;

    /// One completed I/O.
    fn io(&mut self, io: &LoggedIo<'_>);

    /// A window of a periodic sampler closed at `t_ms` with `value` for
    /// direction `dir`.
    fn sampled(&mut self, rate: Rate, t_ms: u64, value: u64, dir: usize);

    /// The job ended at `end_ms`: write what is pending (partial windows,
    /// histogram rows from `clat`, the directions' clat histograms), flush
    /// and close. The first error (the logs' own, `logs::Error`: stats
    /// sits below logs and keeps only its text, as fio words it).
    fn finish(&mut self, end_ms: u64, clat: [Option<&LatHist>; 3]) -> Result<(), LogError>;
}
