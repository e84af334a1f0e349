//! Logs kept in memory as fio keeps them when they are compressed
//! (`log_compression`) or stored compressed (`log_store_compressed`):
//! arrays of sample records ([`super::sample`]), the first of
//! `log_entries` samples, each next one twice the last (at most
//! 1,048,576), as fio 3.33's `get_new_log` sizes them.
//!
//! With `log_compression`, an array that is full when the next sample
//! comes is handed to the job's [`Compressor`] thread (fio's compression
//! workqueue: one thread, `nice` +1, on the `log_compression_cpus`), which
//! deflates it into one zlib stream; fio leaves the emptied array in its
//! list, so the stored file gets one empty stream for each, before the
//! last array's. Without it, the arrays stay whole until the job ends,
//! then each is one stream. At the end the streams go to the `.log.fz`
//! file as they are, or are inflated and printed as text.

use std::io::{self, Write};
use std::sync::mpsc;
use std::thread::JoinHandle;

use super::config::LogKind;
use super::error::Error;
use super::sample::{self, Layout, Sample, MAX_LOG_ENTRIES};

/// One log's records.
#[derive(Debug)]
pub(crate) struct PackedLog {
    layout: Layout,
    entry: usize,
    /// The array being filled and its capacity in bytes (fio's
    /// `cur_log_max` samples).
    chunk: Vec<u8>,
    chunk_bytes: usize,
    /// Full arrays kept until the end (no compressor).
    kept: Vec<Vec<u8>>,
    /// Arrays handed to the compressor.
    handed: usize,
}

impl PackedLog {
    /// An empty log of `layout` whose first array holds `entries` samples.
    pub(crate) fn new(layout: Layout, entries: usize) -> PackedLog {
        let entry = layout.entry_bytes();
        let chunk_bytes = entries.clamp(1, MAX_LOG_ENTRIES) * entry;
        PackedLog {
            layout,
            entry,
            chunk: Vec::with_capacity(chunk_bytes),
            chunk_bytes,
            kept: Vec::new(),
            handed: 0,
        }
    }

    /// Add `s`; when the array is full, start the next (handing the full
    /// one to `gz`, if compressing).
    #[inline]
    pub(crate) fn push(&mut self, s: &Sample, gz: Option<&Compressor>, kind: LogKind) {
        if self.chunk.len() + self.entry > self.chunk_bytes {
            self.next_chunk(gz, kind);
        }
        self.layout.encode(s, &mut self.chunk);
    }

    #[cold]
    fn next_chunk(&mut self, gz: Option<&Compressor>, kind: LogKind) {
        let entries = (self.chunk_bytes / self.entry * 2).min(MAX_LOG_ENTRIES);
        self.chunk_bytes = entries * self.entry;
        let full = std::mem::replace(&mut self.chunk, Vec::with_capacity(self.chunk_bytes));
        match gz {
            Some(c) => {
                c.send(kind, full);
                self.handed += 1;
            }
            None => self.kept.push(full),
        }
    }

    /// The log's zlib streams in the order fio writes them: `compressed`
    /// (what the compressor made of the handed arrays), an empty stream
    /// for each handed array, then the arrays still here.
    pub(crate) fn streams(self, compressed: Vec<Vec<u8>>) -> impl Iterator<Item = Vec<u8>> {
        // The last array is empty only when the log never got a sample.
        let last = (!self.chunk.is_empty()).then_some(self.chunk);
        compressed
            .into_iter()
            .chain((0..self.handed).map(|_| sample::deflate(&[])))
            .chain(
                self.kept
                    .into_iter()
                    .chain(last)
                    .map(|r| sample::deflate(&r)),
            )
    }

    /// Print the log as text into `w`: the compressor's streams inflated,
    /// then the arrays still here.
    pub(crate) fn write_text(self, compressed: &[Vec<u8>], w: &mut dyn Write) -> io::Result<()> {
        for z in compressed {
            super::inflate::inflate_bytes(z, w).map_err(|e| io::Error::other(e.to_string()))?;
        }
        for raw in self.kept.iter().chain(std::iter::once(&self.chunk)) {
            sample::write_text(raw, w)?;
        }
        Ok(())
    }
}

/// A job's compression thread: deflates the arrays handed to it, one
/// zlib stream each, kept by log kind in the order handed.
#[derive(Debug)]
pub(crate) struct Compressor {
    tx: Option<mpsc::Sender<(LogKind, Vec<u8>)>>,
    thread: Option<JoinHandle<Done>>,
}

/// What the thread made: the streams of each log kind, and a problem
/// setting its CPUs.
type Done = (Vec<(LogKind, Vec<u8>)>, Option<Error>);

impl Compressor {
    /// Start the thread, on `cpus` if given.
    pub(crate) fn spawn(cpus: Option<Vec<usize>>) -> io::Result<Compressor> {
        let (tx, rx) = mpsc::channel::<(LogKind, Vec<u8>)>();
        let thread = std::thread::Builder::new()
            .name("rfio-log-gz".into())
            .spawn(move || {
                let problem = cpus.and_then(|c| set_affinity(&c).err());
                // SAFETY: nice() only changes this thread's scheduling
                // priority (Linux threads have their own); fio's workqueue
                // worker lowers itself the same way. A failure is harmless.
                unsafe {
                    libc::nice(1);
                }
                let streams = rx
                    .iter()
                    .map(|(kind, raw)| (kind, sample::deflate(&raw)))
                    .collect();
                (streams, problem)
            })?;
        Ok(Compressor {
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    fn send(&self, kind: LogKind, raw: Vec<u8>) {
        if let Some(tx) = &self.tx {
            // The thread ends only when the sender is dropped.
            let _ = tx.send((kind, raw));
        }
    }

    /// Wait for the thread: the streams by kind (indexed by `LogKind`),
    /// and a problem to report.
    pub(crate) fn finish(mut self) -> ([Vec<Vec<u8>>; 6], Option<Error>) {
        self.tx = None;
        let mut by_kind: [Vec<Vec<u8>>; 6] = Default::default();
        let Some(thread) = self.thread.take() else {
            return (by_kind, None);
        };
        match thread.join() {
            Ok((streams, problem)) => {
                for (kind, z) in streams {
                    by_kind[kind as usize].push(z);
                }
                (by_kind, problem)
            }
            Err(_) => (by_kind, Some(Error::CompressionThread)),
        }
    }
}

/// Pin the calling thread to `cpus`.
fn set_affinity(cpus: &[usize]) -> Result<(), Error> {
    // SAFETY: an all-zero cpu_set_t is a valid empty set; CPU_SET only
    // writes inside it for CPUs below CPU_SETSIZE, which is checked.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c < libc::CPU_SETSIZE as usize {
            unsafe { libc::CPU_SET(c, &mut set) };
        }
    }
    // SAFETY: `set` is a valid cpu_set_t of the size passed; pid 0 is the
    // calling thread.
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r == 0 {
        Ok(())
    } else {
        Err(Error::Affinity {
            errno: io::Error::last_os_error().raw_os_error().unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Layout = Layout {
        offset: false,
        prio: false,
    };

    fn sample(k: u64) -> Sample {
        Sample {
            time: k,
            value: k,
            bs: 512,
            ..Sample::default()
        }
    }

    /// Samples per stream of `streams`.
    fn counts(streams: impl Iterator<Item = Vec<u8>>) -> Vec<usize> {
        streams
            .map(|z| {
                let mut out = Vec::new();
                let mut d = flate2::read::ZlibDecoder::new(&z[..]);
                std::io::Read::read_to_end(&mut d, &mut out).unwrap();
                out.len() / 32
            })
            .collect()
    }

    #[test]
    fn stored_arrays_double_as_fios() {
        let mut log = PackedLog::new(PLAIN, 1024);
        for k in 0..3000 {
            log.push(&sample(k), None, LogKind::Iops);
        }
        assert_eq!(counts(log.streams(Vec::new())), [1024, 1976]);
        let mut log = PackedLog::new(PLAIN, 2048);
        for k in 0..3000 {
            log.push(&sample(k), None, LogKind::Iops);
        }
        assert_eq!(counts(log.streams(Vec::new())), [2048, 952]);
        let log = PackedLog::new(PLAIN, 1024);
        assert_eq!(counts(log.streams(Vec::new())), Vec::<usize>::new());
    }

    #[test]
    fn compressed_arrays_leave_empty_streams_as_fios() {
        // fio 3.33, 5000 samples, log_compression: streams of 1024, 2048,
        // 0, 0 and 1928 samples; 3072 samples: 1024, 0, 2048.
        for (n, want) in [
            (5000, vec![1024, 2048, 0, 0, 1928]),
            (3072, vec![1024, 0, 2048]),
        ] {
            let gz = Compressor::spawn(None).unwrap();
            let mut log = PackedLog::new(PLAIN, 1024);
            for k in 0..n {
                log.push(&sample(k), Some(&gz), LogKind::Bw);
            }
            let (mut done, problem) = gz.finish();
            assert!(problem.is_none(), "{problem:?}");
            let z = std::mem::take(&mut done[LogKind::Bw as usize]);
            assert_eq!(counts(log.streams(z)), want, "{n} samples");
        }
    }

    /// A CPU this thread may run on.
    fn allowed_cpu() -> usize {
        // SAFETY: a zeroed cpu_set_t is valid; sched_getaffinity fills it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        assert_eq!(unsafe { libc::sched_getaffinity(0, size, &mut set) }, 0);
        (0..libc::CPU_SETSIZE as usize)
            .find(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .expect("a CPU")
    }

    #[test]
    fn text_is_the_records_in_order() {
        let gz = Compressor::spawn(Some(vec![allowed_cpu()])).unwrap();
        let mut log = PackedLog::new(PLAIN, 1024);
        for k in 0..2500 {
            log.push(&sample(k), Some(&gz), LogKind::Lat);
        }
        let (done, problem) = gz.finish();
        assert!(problem.is_none(), "{problem:?}");
        let mut out = Vec::new();
        log.write_text(&done[LogKind::Lat as usize], &mut out)
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2500);
        assert!(lines
            .iter()
            .enumerate()
            .all(|(k, l)| *l == format!("{k}, {k}, 0, 512, 0")));
    }
}
