//! Per-job logs as fio 3.33 writes them (`iolog.c`, `stat.c`): bandwidth,
//! IOPS, latency (lat, clat, slat) and clat histogram logs.
//!
//! Names: `<prefix>_<type>.<N>.log`, N the job's global thread number
//! (1-based over all jobs and `numjobs` clones); with `per_job_logs=0`
//! `<prefix>_<type>.log`, opened for appending and shared. The prefix is
//! the option's value, or the job name when the option is bare.
//!
//! Lines: `time, value, ddir, bs[, offset], prio` separated by `", "`;
//! time in ms since the job's I/O start (since the Unix epoch with
//! `log_unix_epoch=1`); prio `0` or, with `log_prio=1`, `0x%04x`.
//! Without `log_avg_msec` every I/O is a line (bw: `bytes*1e6/clat_ns`,
//! iops: `1`, latencies in ns). With it, a direction's samples are averaged
//! (or their maximum taken, `log_max_value=1`; from fio 3.37
//! `log_window_value=max`, or both, avg then max, with `both`) over windows of that many ms;
//! bs and offset are then 0. Histogram rows are
//! `time, ddir, bs, c0, c1, ...`: fio's 1856 clat buckets merged by
//! `2^log_hist_coarseness`, counted since the previous row of that
//! direction, one row per direction every `log_hist_msec`.
//!
//! `log_unix_epoch=1` or `log_alternate_epoch=1` add the time of clock
//! `log_alternate_epoch_clock_id` (0: the Unix epoch) at the job's start.
//! `log_compression` and `log_store_compressed` keep the logs in memory as
//! fio's sample records, compressed in zlib streams ([`chunks`]), written
//! as text or as `.log.fz` files when the job ends; `--inflate-log` prints
//! such a file ([`inflate`]).
//!
//! The plan resolves which logs a job writes ([`LogConfig`]); the job's
//! statistics feed them through [`LogSink`](writer::LogSink), their
//! `stats::IoLog`. rfio writes the lines while the job runs, through a buffer (no
//! allocation per I/O). The final partial window of every windowed log
//! (including bw/iops and histogram rows, which fio 3.33 drops) is written
//! once when the job finishes.

pub(crate) mod agg;
mod chunks;
mod clock;
mod config;
mod error;
mod inflate;
mod sample;
mod writer;

pub(crate) use config::{LogConfig, LogKind, WindowValue};
pub(crate) use inflate::inflate_from;
pub use inflate::{inflate_file, InflateError};
// For `rfio plot`, which keeps an inflated log's text in memory.
#[allow(unused_imports)]
pub use inflate::inflate_file_capped;
pub use writer::sink;
