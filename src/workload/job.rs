//! One job: lay out its files, then issue I/O until a limit is reached.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::layout::lay_out;
use super::rng::Rng;
use super::runner::RunError;
use crate::ioengine::{self, AlignedBuf, FileId, IoEngine, OpenFlags};
use crate::plan::spec::{Dir, JobSpec};
use crate::stats::{JobReport, Layout, ThreadStats};

/// A job checked before any thread starts.
pub struct Prepared<'a> {
    spec: &'a JobSpec,
    /// Per file: path and the size of its I/O region (starting at `offset`).
    files: Vec<(PathBuf, u64)>,
    /// Bytes to move over all directions; `u64::MAX` when only time limits.
    byte_limit: u64,
    /// Block size per direction (the minimum of its range for now).
    bs: [u64; 3],
}

impl<'a> Prepared<'a> {
    pub fn new(spec: &'a JobSpec) -> Result<Prepared<'a>, RunError> {
        let Some(engine) = ioengine::engine(&spec.ioengine) else {
            return Err(RunError::UnknownEngine {
                job: spec.name.clone(),
                engine: spec.ioengine.clone(),
            });
        };
        if spec.files.is_empty() {
            return Err(RunError::NoFiles {
                job: spec.name.clone(),
            });
        }
        let nfiles = spec.files.len() as u64;
        let mut files = Vec::with_capacity(spec.files.len());
        for f in &spec.files {
            let existing = || {
                engine
                    .caps()
                    .needs_files
                    .then(|| {
                        std::fs::metadata(&f.path)
                            .ok()
                            .map(|m| m.len().saturating_sub(spec.offset))
                    })
                    .flatten()
            };
            let size = f.size.or(spec.size.map(|s| s / nfiles)).or_else(existing);
            match size {
                Some(s) if s > 0 => files.push((f.path.clone(), s)),
                _ => {
                    return Err(RunError::NoSize {
                        job: spec.name.clone(),
                    })
                }
            }
        }
        let total: u64 = files.iter().map(|f| f.1).sum();
        let byte_limit = if spec.time_based {
            u64::MAX
        } else {
            spec.io_size
                .or(spec.size)
                .unwrap_or(total)
                .saturating_mul(u64::from(spec.loops.max(1)))
        };
        let bs = std::array::from_fn(|d| spec.bs[d].0.max(1));
        Ok(Prepared {
            spec,
            files,
            byte_limit,
            bs,
        })
    }

    /// Run the job on the calling thread.
    pub fn run(&self) -> JobReport {
        let spec = self.spec;
        // SAFETY: gettid has no preconditions.
        let pid = unsafe { libc::gettid() } as u32;
        let mut ts = ThreadStats::default();
        let layout = self.execute(&mut ts);
        JobReport::new(spec.name.clone(), spec.group_id, pid, layout, &ts)
    }

    fn execute(&self, ts: &mut ThreadStats) -> Option<Layout> {
        let spec = self.spec;
        let mut engine = ioengine::engine(&spec.ioengine).expect("checked in Prepared::new");
        if spec.startdelay_us > 0 {
            std::thread::sleep(Duration::from_micros(spec.startdelay_us));
        }
        let mut layout = None;
        if engine.caps().needs_files {
            let mut laid = Layout { files: 0, bytes: 0 };
            for (path, size) in &self.files {
                match lay_out(path, spec.offset + size, spec.pattern.read) {
                    Ok(true) => {
                        laid.files += 1;
                        laid.bytes += spec.offset + size;
                    }
                    Ok(false) => {}
                    Err(e) => {
                        record_error(ts, &e, "file layout", path);
                        return None;
                    }
                }
            }
            layout = (laid.files > 0).then_some(laid);
        }
        let flags = OpenFlags {
            direct: spec.direct,
            write: spec.pattern.writes(),
        };
        let mut ids = Vec::with_capacity(self.files.len());
        for (path, _) in &self.files {
            match engine.open(path, flags) {
                Ok(id) => ids.push(id),
                Err(e) => {
                    record_error(ts, &e, "open", path);
                    return layout;
                }
            }
        }
        self.io_loop(engine.as_mut(), &ids, ts);
        engine.close_all();
        layout
    }

    /// The I/O loop: no allocation, no locking.
    fn io_loop(&self, engine: &mut dyn IoEngine, ids: &[FileId], ts: &mut ThreadStats) {
        let spec = self.spec;
        let p = spec.pattern;
        let mut buf = AlignedBuf::new(self.bs.iter().copied().max().unwrap_or(4096) as usize);
        fill_random(buf.as_mut_slice(), u64::from(spec.thread_number));
        let mut rng = Rng::new(u64::from(spec.thread_number) << 32 | 0x5eed);
        let runtime = (spec.runtime_us > 0).then(|| Duration::from_micros(spec.runtime_us));
        let max_ios = if spec.number_ios > 0 {
            spec.number_ios
        } else {
            u64::MAX
        };
        let mut next_seq: Vec<u64> = vec![0; ids.len()];
        let mut file_idx = 0usize;
        let (mut done_bytes, mut done_ios) = (0u64, 0u64);
        let start = Instant::now();
        ts.job_started();
        loop {
            let dir = match (p.read, p.write, p.trim) {
                (true, true, _) => {
                    if rng.below(100) < u64::from(spec.rwmixread) {
                        Dir::Read
                    } else {
                        Dir::Write
                    }
                }
                (true, false, _) => Dir::Read,
                (false, true, _) => Dir::Write,
                _ => Dir::Trim,
            };
            let bs = self.bs[dir as usize];
            if done_ios >= max_ios || done_bytes.saturating_add(bs) > self.byte_limit {
                break;
            }
            if runtime.is_some_and(|r| start.elapsed() >= r) {
                break;
            }
            let region = self.files[file_idx].1;
            if bs > region {
                break;
            }
            let rel = if p.random {
                rng.below(region / bs) * bs
            } else {
                let pos = &mut next_seq[file_idx];
                if *pos + bs > region {
                    *pos = 0;
                }
                let at = *pos;
                *pos += bs;
                at
            };
            let t0 = Instant::now();
            ts.io_submitted(1);
            let res = engine.submit(
                ids[file_idx],
                dir,
                spec.offset + rel,
                &mut buf.as_mut_slice()[..bs as usize],
            );
            let clat = t0.elapsed().as_nanos() as u64;
            match res {
                Ok(n) if n as u64 == bs => {
                    let at = start.elapsed().as_nanos() as u64;
                    ts.io_done(dir as usize, bs, 0, clat, at);
                }
                Ok(n) => {
                    // A short transfer: fio retries the rest; for now treat
                    // end-of-file (0 bytes) as an error and stop.
                    let e = std::io::Error::from_raw_os_error(if n == 0 {
                        libc::EIO
                    } else {
                        libc::EAGAIN
                    });
                    record_error(ts, &e, "io", &self.files[file_idx].0);
                    break;
                }
                Err(e) => {
                    record_error(ts, &e, "io", &self.files[file_idx].0);
                    break;
                }
            }
            done_bytes += bs;
            done_ios += 1;
            file_idx = (file_idx + 1) % ids.len();
        }
        ts.elapsed_us = start.elapsed().as_micros() as u64;
        ts.job_finished();
    }
}

fn record_error(ts: &mut ThreadStats, e: &std::io::Error, func: &str, path: &std::path::Path) {
    if ts.error == 0 {
        ts.error = e.raw_os_error().unwrap_or(libc::EIO);
        ts.error_msg = Some(format!("file {}: {func}: {e}", path.display()));
    }
}

/// Fill the write buffer once with pseudo-random bytes (fio's default).
fn fill_random(buf: &mut [u8], seed: u64) {
    let mut rng = Rng::new(seed);
    for chunk in buf.chunks_mut(8) {
        let v = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}
