//! `merge_blktrace_file` (fio's `merge_blktrace_iologs`): the blktrace
//! traces `read_iolog` lists are merged into one, in time order, which
//! the job then replays. Only the queue events of reads, writes and
//! discards are kept, without their payload. Trace N's times are scaled
//! by `merge_blktrace_scalars[N]` percent, and the trace is played
//! `merge_blktrace_iters[N]` times, each time after the previous one
//! ended (fio's formula: time = (time + iteration * length) * scalar /
//! 100, where the length is the last kept event's time, scaled).
//!
//! fio 3.33 reads each trace's events into the wrong place
//! (`fread(&t, ...)` with `t` a pointer), so its merge always fails with
//! `fio: iolog short read`, leaves an empty file and replays the first
//! trace alone: rfio merges as the options describe.

use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};

use super::blktrace::{probe, read_trace, skip_pdu, Trace, TRACE_SIZE};
use super::io_text;
use crate::plan::resolve::iolog::MergeOptions;

/// One input trace being merged (fio's `blktrace_cursor`).
struct Input {
    src: BufReader<std::fs::File>,
    swap: bool,
    /// The last kept event's time in the first iteration.
    length: u64,
    /// The current event.
    t: Trace,
    scalar: i64,
    iter: i64,
    iters: i64,
}

impl Input {
    /// The next kept event, with its time as merged; false at the end.
    fn advance(&mut self) -> std::io::Result<bool> {
        loop {
            let mut b = [0u8; TRACE_SIZE];
            if read_trace(&mut self.src, &mut b)? < TRACE_SIZE {
                if self.length == 0 {
                    self.length = self.t.time;
                }
                return Ok(false);
            }
            let t = Trace::decode(&b, self.swap);
            skip_pdu(&mut self.src, t.pdu_len)?;
            if !t.is_queued_io() {
                continue;
            }
            self.t = t;
            self.t.time = t
                .time
                .wrapping_add((self.iter as u64).wrapping_mul(self.length))
                .wrapping_mul(self.scalar as u64)
                / 100;
            self.t.pdu_len = 0;
            return Ok(true);
        }
    }

    /// The next event, from the next iteration when this one is over;
    /// false when the trace is done.
    fn next(&mut self) -> std::io::Result<bool> {
        if self.advance()? {
            return Ok(true);
        }
        self.iter += 1;
        if self.iter >= self.iters {
            return Ok(false);
        }
        self.src.seek(SeekFrom::Start(0))?;
        self.advance()
    }
}

/// fio's `init_merge_param_list`: one value per trace (`default` for
/// all when none is given), or an error when their numbers differ.
fn per_trace(vals: &[f64], n: usize, default: i64, name: &str) -> Result<Vec<i64>, String> {
    if vals.is_empty() {
        return Ok(vec![default; n]);
    }
    if vals.len() != n {
        return Err(format!("fio: {name}({}) != nr_logs({n})", vals.len()));
    }
    Ok(vals.iter().map(|v| *v as i64).collect())
}

/// Merge the traces `names` as `m` says into `m.file`. Messages go to
/// `say`; an error says why the merge failed, in fio's words.
pub(crate) fn merge(
    names: &[String],
    m: &MergeOptions,
    say: &mut dyn FnMut(String),
) -> Result<(), String> {
    let n = names.len();
    let scalars = per_trace(&m.scalars, n, 100, "merge_blktrace_scalars")?;
    let iters = per_trace(&m.iters, n, 1, "merge_blktrace_iters")?;
    let out = std::fs::File::create(&m.file)
        .map_err(|e| format!("fio: could not open merge file {}: {}", m.file, io_text(&e)))?;
    let mut out = BufWriter::with_capacity(128 * 1024, out);
    let mut inputs = Vec::with_capacity(n);
    for (i, name) in names.iter().enumerate() {
        let src = std::fs::File::open(name)
            .map_err(|e| format!("fio: could not open file: {name}: {}", io_text(&e)))?;
        let Some(swap) = probe(name.as_ref(), say) else {
            return Err(format!("fio: file is not a blktrace: {name}"));
        };
        let mut input = Input {
            src: BufReader::new(src),
            swap,
            length: 0,
            t: Trace::default(),
            scalar: scalars[i],
            iter: 0,
            iters: iters[i],
        };
        if input.iters > 0
            && input
                .next()
                .map_err(|e| format!("fio: read blktrace file {name}: {}", io_text(&e)))?
        {
            inputs.push(input);
        }
    }
    let write_err = |e: std::io::Error| format!("fio: writing {}: {}", m.file, io_text(&e));
    while !inputs.is_empty() {
        // The earliest event; the first trace of those at that time.
        let mut i = 0;
        for (k, input) in inputs.iter().enumerate() {
            if input.t.time < inputs[i].t.time {
                i = k;
            }
        }
        out.write_all(&inputs[i].t.encode()).map_err(write_err)?;
        if !inputs[i]
            .next()
            .map_err(|e| format!("fio: read blktrace file: {}", io_text(&e)))?
        {
            // fio keeps the traces left contiguous: the last takes its place.
            inputs.swap_remove(i);
        }
    }
    out.flush().map_err(write_err)?;
    Ok(())
}

/// The traces of a merged file (for tests).
#[cfg(test)]
pub(crate) fn events(mut src: impl std::io::Read) -> Vec<Trace> {
    let mut out = Vec::new();
    let mut b = [0u8; TRACE_SIZE];
    while read_trace(&mut src, &mut b).unwrap() == TRACE_SIZE {
        let t = Trace::decode(&b, false);
        skip_pdu(&mut src, t.pdu_len).unwrap();
        out.push(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::blktrace::tests::{queued, trace};
    use super::super::blktrace::{act, TA_COMPLETE, TC_COMPLETE, TC_READ, TC_WRITE};
    use super::*;

    fn write(path: &std::path::Path, traces: &[Trace]) {
        let mut out = Vec::new();
        for t in traces {
            out.extend_from_slice(&t.encode());
        }
        std::fs::write(path, out).unwrap();
    }

    #[test]
    fn traces_merge_in_time_order_scaled_and_repeated() {
        let d = std::env::temp_dir().join(format!("rfio-merge-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let (a, b, m) = (d.join("a.bin"), d.join("b.bin"), d.join("m.bin"));
        write(
            &a,
            &[
                trace(100, 1, 4096, queued(TC_READ), 1),
                trace(150, 1, 4096, TA_COMPLETE | act(TC_READ | TC_COMPLETE), 1),
                trace(300, 2, 4096, queued(TC_READ), 1),
            ],
        );
        write(
            &b,
            &[
                trace(100, 7, 512, queued(TC_WRITE), 2),
                trace(250, 8, 512, queued(TC_WRITE), 2),
            ],
        );
        let names = [a.display().to_string(), b.display().to_string()];
        let opts = MergeOptions {
            file: m.display().to_string(),
            scalars: vec![50.0, 100.0],
            iters: vec![1.0, 2.0],
        };
        merge(&names, &opts, &mut |_| {}).unwrap();
        let got: Vec<(u64, u64)> = events(std::fs::File::open(&m).unwrap())
            .iter()
            .map(|t| (t.time, t.sector))
            .collect();
        // a at half time: 50, 150; b twice: 100, 250, then 350, 500.
        assert_eq!(
            got,
            [(50, 1), (100, 7), (150, 2), (250, 8), (350, 7), (500, 8)]
        );
        let bad = MergeOptions {
            scalars: vec![50.0],
            ..opts
        };
        assert_eq!(
            merge(&names, &bad, &mut |_| {}).unwrap_err(),
            "fio: merge_blktrace_scalars(1) != nr_logs(2)"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
