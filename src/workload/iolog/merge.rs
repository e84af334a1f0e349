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

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::blktrace::{byte_order, read_record, read_trace, Trace, TRACE_SIZE};
use super::error::MergeError;
use crate::diag::visible;
use crate::plan::resolve::iolog::MergeOptions;
use crate::replace::Replacement;

/// One input trace being merged (fio's `blktrace_cursor`).
struct Input<R> {
    src: R,
    /// The trace's name in messages (escaped).
    name: String,
    swap: bool,
    /// Where the next trace is in the file.
    offset: u64,
    /// The last kept event's time in the first iteration.
    length: u64,
    /// The current event.
    t: Trace,
    scalar: i64,
    iter: i64,
    iters: i64,
}

impl<R: Read + Seek> Input<R> {
    /// The next kept event, with its time as merged; false at the end.
    /// A trace cut short or that is not blktrace's is an error naming
    /// the file and the byte.
    fn advance(&mut self) -> Result<bool, MergeError> {
        loop {
            let t = match read_record(&mut self.src, self.swap, &mut self.offset) {
                Ok(Some(t)) => t,
                Ok(None) => {
                    if self.length == 0 {
                        self.length = self.t.time;
                    }
                    return Ok(false);
                }
                Err(source) => {
                    return Err(MergeError::Trace {
                        name: self.name.clone(),
                        source,
                    })
                }
            };
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
    fn next(&mut self) -> Result<bool, MergeError> {
        if self.advance()? {
            return Ok(true);
        }
        self.iter += 1;
        if self.iter >= self.iters {
            return Ok(false);
        }
        self.rewind()?;
        self.advance()
    }

    fn rewind(&mut self) -> Result<(), MergeError> {
        self.src
            .seek(SeekFrom::Start(0))
            .map_err(|source| MergeError::Rewind {
                name: self.name.clone(),
                source,
            })?;
        self.offset = 0;
        Ok(())
    }
}

/// fio's `init_merge_param_list`: one value per trace (`default` for
/// all when none is given), or an error when their numbers differ.
fn per_trace(
    vals: &[f64],
    n: usize,
    default: i64,
    option: &'static str,
) -> Result<Vec<i64>, MergeError> {
    if vals.is_empty() {
        return Ok(vec![default; n]);
    }
    if vals.len() != n {
        return Err(MergeError::Count {
            option,
            given: vals.len(),
            logs: n,
        });
    }
    Ok(vals.iter().map(|v| *v as i64).collect())
}

/// Open the trace `name` to merge it: an error naming it when it cannot
/// be opened, is `out` itself (the same device and inode, through a link
/// or not), or does not start with a blktrace trace.
fn open_input(name: &str, out: Option<(u64, u64)>) -> Result<(BufReader<File>, bool), MergeError> {
    let shown = || visible(name).into_owned();
    let open = |source| MergeError::Open {
        name: shown(),
        source,
    };
    let f = File::open(name).map_err(open)?;
    let m = f.metadata().map_err(open)?;
    if out == Some((m.dev(), m.ino())) {
        return Err(MergeError::IsOutput { name: shown() });
    }
    let mut src = BufReader::new(f);
    let mut b = [0u8; TRACE_SIZE];
    let got = read_trace(&mut src, &mut b).map_err(|source| MergeError::ReadInput {
        name: shown(),
        source,
    })?;
    if got < TRACE_SIZE {
        return Err(MergeError::ShortInput { name: shown(), got });
    }
    let Some(swap) = byte_order(&b) else {
        let magic = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
        return Err(MergeError::NotBlktrace {
            name: shown(),
            magic,
        });
    };
    src.seek(SeekFrom::Start(0))
        .map_err(|source| MergeError::SeekInput {
            name: shown(),
            source,
        })?;
    Ok((src, swap))
}

/// Where the merge ends up: `file`, or the file a symbolic link there
/// points at (so that the link stays).
fn destination(file: &str) -> PathBuf {
    let p = Path::new(file);
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(p).unwrap_or(p.into()),
        _ => p.into(),
    }
}

/// Merge the traces `names` as `m` says into `m.file`; an error says why
/// the merge failed, in fio's words where it has some, naming the trace
/// and the byte. Every input is checked before anything is written; the
/// merge is written beside `m.file` and renamed there once complete, so
/// that a failed merge leaves `m.file` as it was.
pub(crate) fn merge(names: &[String], m: &MergeOptions) -> Result<(), MergeError> {
    let n = names.len();
    let scalars = per_trace(&m.scalars, n, 100, "merge_blktrace_scalars")?;
    let iters = per_trace(&m.iters, n, 1, "merge_blktrace_iters")?;
    let dest = destination(&m.file);
    let out_id = std::fs::metadata(&dest).ok().map(|md| (md.dev(), md.ino()));
    let mut inputs = Vec::with_capacity(n);
    for (i, name) in names.iter().enumerate() {
        let (src, swap) = open_input(name, out_id)?;
        inputs.push(Input {
            src,
            name: visible(name).into_owned(),
            swap,
            offset: 0,
            length: 0,
            t: Trace::default(),
            scalar: scalars[i],
            iter: 0,
            iters: iters[i],
        });
    }
    let shown = visible(&m.file);
    let name = || shown.clone().into_owned();
    let mut out = Replacement::beside(&dest).map_err(|source| MergeError::OpenOutput {
        name: name(),
        source,
    })?;
    let mut buf = BufWriter::with_capacity(128 * 1024, out.file());
    write_merge(inputs, &mut buf, &shown)?;
    let write = |source| MergeError::Write {
        name: name(),
        source,
    };
    let f = buf.into_inner().map_err(|e| write(e.into_error()))?;
    f.sync_all().map_err(write)?;
    out.commit().map_err(|source| MergeError::Commit {
        name: name(),
        source,
    })
}

/// `bytes` merged as one trace played twice, its times halved, into
/// nothing (the fuzz target's check): the merge's error, if any.
pub(crate) fn merge_bytes(bytes: &[u8]) -> Result<(), MergeError> {
    let name = || "fuzz.bin".to_string();
    let mut src = std::io::Cursor::new(bytes);
    let mut b = [0u8; TRACE_SIZE];
    let got = read_trace(&mut src, &mut b).map_err(|source| MergeError::ReadInput {
        name: name(),
        source,
    })?;
    if got < TRACE_SIZE {
        return Err(MergeError::ShortInput { name: name(), got });
    }
    let swap = byte_order(&b).ok_or_else(|| MergeError::NotBlktrace {
        name: name(),
        magic: u32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
    })?;
    let mut input = Input {
        src,
        name: name(),
        swap,
        offset: 0,
        length: 0,
        t: Trace::default(),
        scalar: 50,
        iter: 0,
        iters: 2,
    };
    input.rewind()?;
    write_merge(vec![input], &mut std::io::sink(), "fuzz.out")
}

/// The events of `inputs`, merged in time order, into `out`.
fn write_merge<R: Read + Seek>(
    mut inputs: Vec<Input<R>>,
    out: &mut dyn Write,
    shown: &str,
) -> Result<(), MergeError> {
    inputs.retain(|i| i.iters > 0);
    let mut live = Vec::with_capacity(inputs.len());
    for mut input in inputs {
        if input.next()? {
            live.push(input);
        }
    }
    let mut inputs = live;
    let write_err = |source| MergeError::Write {
        name: shown.to_string(),
        source,
    };
    while !inputs.is_empty() {
        // The earliest event; the first trace of those at that time.
        let mut i = 0;
        for (k, input) in inputs.iter().enumerate() {
            if input.t.time < inputs[i].t.time {
                i = k;
            }
        }
        out.write_all(&inputs[i].t.encode()).map_err(write_err)?;
        if !inputs[i].next()? {
            // fio keeps the traces left contiguous: the last takes its place.
            inputs.swap_remove(i);
        }
    }
    out.flush().map_err(write_err)
}

/// The traces of a merged file (for tests).
#[cfg(test)]
pub(crate) fn events(mut src: impl std::io::Read) -> Vec<Trace> {
    let mut out = Vec::new();
    let mut offset = 0;
    while let Some(t) = read_record(&mut src, false, &mut offset).unwrap() {
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
        merge(&names, &opts).unwrap();
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
        let e = merge(&names, &bad).unwrap_err();
        assert!(
            matches!(
                e,
                MergeError::Count {
                    option: "merge_blktrace_scalars",
                    given: 1,
                    logs: 2
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "fio: merge_blktrace_scalars(1) != nr_logs(2)"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_merge_that_fails_writes_nothing() {
        let d = std::env::temp_dir().join(format!("rfio-merge-bad-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let (a, b, m) = (d.join("a.bin"), d.join("b.bin"), d.join("m.bin"));
        let good = [
            trace(100, 1, 4096, queued(TC_READ), 1),
            trace(200, 2, 4096, queued(TC_READ), 1),
        ];
        write(&a, &good);
        std::fs::write(&m, b"old").unwrap();
        let run = |inputs: &[&std::path::Path], out: &std::path::Path| {
            let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
            let opts = MergeOptions {
                file: out.display().to_string(),
                scalars: vec![],
                iters: vec![],
            };
            merge(&names, &opts)
        };
        let shown = |p: &std::path::Path| p.display().to_string();
        // Not a trace, missing, a bad magic after a good trace.
        std::fs::write(&b, [0x61u8; 100]).unwrap();
        assert_eq!(
            run(&[&a, &b], &m).unwrap_err().to_string(),
            format!(
                "fio: file is not a blktrace: {} (bad magic at byte 0: 61616161)",
                shown(&b)
            )
        );
        let e = run(&[&a, &d.join("none")], &m).unwrap_err().to_string();
        assert!(e.starts_with("fio: could not open file: "), "{e}");
        // A trace is opened by its own name, which messages show escaped.
        let odd = d.join("o\x1bdd.bin");
        std::fs::write(&odd, [0x61u8; 100]).unwrap();
        let e = run(&[&a, &odd], &m).unwrap_err();
        assert!(
            matches!(&e, MergeError::NotBlktrace { name, magic: 0x6161_6161 }
                if name.ends_with("o\\x1bdd.bin")),
            "{e:?}"
        );
        std::fs::remove_file(&odd).unwrap();
        let mut bad = good[1];
        bad.magic = 0x1234_5607;
        write(&b, &[good[0], bad]);
        assert_eq!(
            run(&[&a, &b], &m).unwrap_err().to_string(),
            format!(
                "fio: merge_blktrace_file: {}: the trace at byte 48: fio: bad magic in \
                 blktrace data: 12345607",
                shown(&b)
            )
        );
        assert_eq!(std::fs::read(&m).unwrap(), b"old", "nothing written");
        // The output is an input: by name, by a symbolic link, by a hard
        // link.
        let (sym, hard) = (d.join("sym.bin"), d.join("hard.bin"));
        std::os::unix::fs::symlink(&a, &sym).unwrap();
        std::fs::hard_link(&a, &hard).unwrap();
        for out in [&a, &sym, &hard] {
            let e = run(&[&b, &a], out).unwrap_err().to_string();
            assert!(
                e.contains(&format!("{}, one of the traces it merges", shown(&a))),
                "{e}"
            );
        }
        assert_eq!(events(std::fs::File::open(&a).unwrap()), good, "a is whole");
        // A merge through a link writes where it points, and leaves no
        // temporary file.
        write(&b, &good);
        std::fs::remove_file(&sym).unwrap();
        std::os::unix::fs::symlink(&m, &sym).unwrap();
        run(&[&a, &b], &sym).unwrap();
        assert!(std::fs::symlink_metadata(&sym)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(events(std::fs::File::open(&m).unwrap()).len(), 4);
        let mut left: Vec<String> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["a.bin", "b.bin", "hard.bin", "m.bin", "sym.bin"]);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
