//! `write_iolog` (fio's `init_iolog_write`, `log_io_u`, `log_file`): the
//! job appends to the file a version 3 log of what it does, which
//! `read_iolog` replays:
//!
//! ```text
//! fio version 3 iolog
//! 0 FILE add                      (every file of the job, first)
//! 112 FILE open                   (before the pass's first I/O to it)
//! 118 FILE write 0 4096           (each I/O queued: µs, offset, length)
//! 140 FILE sync 4096 0            (a sync: the unit's last offset)
//! 301 FILE close                  (each file opened, as a pass ends)
//! ```
//!
//! fio opens a job's files as its pass first uses them and logs each open
//! then; rfio opens them all as the pass starts, and logs each open
//! where fio would, before the first I/O to the file. Times are µs since
//! the job's I/O began.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};

use super::text::VERSION_3;
use crate::ddir::Ddir;

/// The log a job writes.
pub(crate) struct IologWriter {
    out: BufWriter<File>,
    /// The job's files as the log names them.
    names: Vec<String>,
    /// Whether the pass logged the file's open.
    opened: Vec<bool>,
    /// Per I/O unit, the offset of its last I/O (fio logs a sync with
    /// the offset its unit last had).
    unit_offsets: Vec<u64>,
}

impl IologWriter {
    /// Start the log at `path` (appended to, as fio does): the version
    /// line and an `add` line for each of `names`.
    pub(crate) fn open(path: &str, names: Vec<String>) -> std::io::Result<IologWriter> {
        let f = OpenOptions::new().append(true).create(true).open(path)?;
        let mut out = BufWriter::with_capacity(8192, f);
        writeln!(out, "{VERSION_3}")?;
        for n in &names {
            writeln!(out, "0 {n} add")?;
        }
        Ok(IologWriter {
            out,
            opened: vec![false; names.len()],
            names,
            unit_offsets: Vec::new(),
        })
    }

    /// An I/O of `dir` on file `file` was queued at `now_ns`. Write
    /// errors are ignored, as fio ignores them.
    pub(crate) fn io(&mut self, now_ns: u64, file: usize, dir: Ddir, offset: u64, len: u64) {
        let us = now_ns / 1000;
        let Some(name) = self.names.get(file) else {
            return;
        };
        if !std::mem::replace(&mut self.opened[file], true) {
            let _ = writeln!(self.out, "{us} {name} open");
        }
        let _ = writeln!(self.out, "{us} {name} {} {offset} {len}", dir.name());
    }

    /// I/O unit `t` went out at `offset`.
    pub(crate) fn unit_offset(&mut self, t: u32, offset: u64) {
        let t = t as usize;
        if self.unit_offsets.len() <= t {
            self.unit_offsets.resize(t + 1, 0);
        }
        self.unit_offsets[t] = offset;
    }

    /// The offset of unit `t`'s last I/O (0 before any).
    pub(crate) fn last_offset(&self, t: u32) -> u64 {
        self.unit_offsets.get(t as usize).copied().unwrap_or(0)
    }

    /// File `file` ran out at `now_ns`: closed, if it was opened (the
    /// next I/O to it opens it again).
    pub(crate) fn close(&mut self, now_ns: u64, file: usize) {
        if let (Some(name), Some(opened)) = (self.names.get(file), self.opened.get_mut(file)) {
            if std::mem::take(opened) {
                let _ = writeln!(self.out, "{} {name} close", now_ns / 1000);
            }
        }
    }

    /// The pass ended at `now_ns`: the files it opened are closed.
    pub(crate) fn pass_over(&mut self, now_ns: u64) {
        let us = now_ns / 1000;
        for (name, opened) in self.names.iter().zip(self.opened.iter_mut()) {
            if std::mem::take(opened) {
                let _ = writeln!(self.out, "{us} {name} close");
            }
        }
        let _ = self.out.flush();
    }
}

impl Drop for IologWriter {
    fn drop(&mut self) {
        let _ = self.out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_of_two_passes() {
        let p = std::env::temp_dir().join(format!("rfio-iolog-writer-{}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        let path = p.display().to_string();
        {
            let mut w = IologWriter::open(&path, vec!["a".into(), "b".into()]).unwrap();
            w.io(5_000, 1, Ddir::Write, 0, 4096);
            w.io(7_999, 1, Ddir::Sync, 0, 0);
            w.pass_over(9_000);
            w.io(10_000, 0, Ddir::Read, 8192, 512);
            w.pass_over(11_000);
        }
        // A second job appends its own log.
        drop(IologWriter::open(&path, vec!["c".into()]).unwrap());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "fio version 3 iolog\n0 a add\n0 b add\n5 b open\n5 b write 0 4096\n\
             7 b sync 0 0\n9 b close\n10 a open\n10 a read 8192 512\n11 a close\n\
             fio version 3 iolog\n0 c add\n"
        );
        std::fs::remove_file(&p).unwrap();
    }
}
