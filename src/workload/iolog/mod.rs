//! I/O logs (fio's `iolog.c`, `blktrace.c`): the log a job writes of the
//! I/O it issues (`write_iolog`), and the logs a job replays instead of
//! its pattern (`read_iolog`): fio's text logs, versions 2 and 3, and
//! blktrace binary traces, which `merge_blktrace_file` merges first.
//!
//! A log is read into [`Entry`]s: the I/Os, syncs, waits and file
//! actions in the log's order, each with the delay to keep before it.
//! [`replay::Replay`] is a job's log made ready before the job starts (its
//! files, what it reads and writes, its largest block per direction); the
//! I/O loop draws from it through [`replay::Cursor`] (the loop's side is
//! `exec/iolog.rs`) instead of the offset generators. `read_iolog_chunked`
//! reads the log while it is replayed, so that only its summary is held.
//!
//! The files: `text` (fio's text logs), `blktrace` (the binary trace
//! format of `blktrace_api.h`), `merge` (`merge_blktrace_file`), `replay`
//! (loading a log and drawing from it), `writer` (`write_iolog`), `fuzz`
//! (the fuzz targets' checks).

pub(crate) mod blktrace;
pub(crate) mod error;
pub(crate) mod fuzz;
pub(crate) mod merge;
mod prepare;
pub(crate) mod replay;
pub(crate) mod text;
pub(crate) mod writer;

use std::path::PathBuf;

use crate::ddir::Ddir;

pub(crate) use replay::{Cursor, Replay};
pub(crate) use writer::IologWriter;

/// What an entry of a log does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    /// A read, write or trim of `len` bytes at `offset`.
    Io(Ddir),
    /// A sync or datasync of the file.
    Sync(Ddir),
    /// Version 2 `wait`: nothing before `offset` ms since the job began.
    Wait,
    /// File actions: they only keep their delay (the loop opens every
    /// file of the log as a pass starts, and closes them as it ends).
    Add,
    Open,
    Close,
}

/// One entry of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) act: Act,
    /// Index into the log's files.
    pub(crate) file: u32,
    pub(crate) offset: u64,
    pub(crate) len: u64,
    /// µs to keep after the previous I/O was issued (0: none).
    pub(crate) delay_us: u64,
}

impl Entry {
    /// A file action on `file`, after `delay_us`.
    pub(crate) fn file(act: Act, file: u32, delay_us: u64) -> Entry {
        Entry {
            act,
            file,
            offset: 0,
            len: 0,
            delay_us,
        }
    }
}

/// The files a log names, in the order it adds them (fio's `add_file`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Files {
    pub(crate) paths: Vec<PathBuf>,
    /// A blktrace device's major and minor number, per file (0, 0 for
    /// the files of a text log).
    pub(crate) devices: Vec<(u32, u32)>,
}

impl Files {
    /// The index of `path`, if it was added.
    pub(crate) fn find(&self, path: &std::path::Path) -> Option<u32> {
        self.paths.iter().position(|p| p == path).map(|i| i as u32)
    }

    /// Add `path` unless it is there (fio's `add_file_exclusive`); its
    /// index.
    pub(crate) fn add(&mut self, path: PathBuf) -> u32 {
        if let Some(i) = self.find(&path) {
            return i;
        }
        self.paths.push(path);
        self.devices.push((0, 0));
        (self.paths.len() - 1) as u32
    }
}

/// What a log holds, counted as it is read: fio's `td_ddir`, block sizes
/// and total size come from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    /// I/Os per direction (read, write, trim), and syncs.
    pub(crate) ios: [u64; 3],
    pub(crate) syncs: u64,
    /// Version 2 waits kept.
    pub(crate) waits: u64,
    /// The largest I/O per direction.
    pub(crate) max_bs: [u64; 3],
    /// Bytes fio adds to the job's size for the entries (`td->o.size`).
    pub(crate) bytes: u64,
    /// Entries of any kind.
    pub(crate) entries: u64,
}

impl Summary {
    /// Count `e`.
    pub(crate) fn count(&mut self, e: &Entry) {
        self.entries += 1;
        match e.act {
            Act::Io(d) => {
                let i = d.index().min(2);
                self.ios[i] += 1;
                self.max_bs[i] = self.max_bs[i].max(e.len);
                self.bytes += e.len;
            }
            Act::Sync(_) => {
                self.syncs += 1;
                self.bytes += e.len;
            }
            Act::Wait => self.waits += 1,
            Act::Add | Act::Open | Act::Close => {}
        }
    }
}

/// fio's `delay_since_ttime`: the time since the previous timestamp of
/// the log (`last`, 0 before the first), scaled by 100/`time_scale`; 0
/// when the log goes back in time or `no_stall` ignores its timing.
pub(crate) fn delay_since(time: u64, last: u64, time_scale: u64, no_stall: bool) -> u64 {
    if last == 0 || no_stall || time < last {
        0
    } else if time_scale == 100 {
        time - last
    } else {
        ((time - last) as f64 * (100.0 / time_scale as f64)) as u64
    }
}

/// fio's `ipo_bytes_align` and `replay_scale`: an offset of the log as
/// replayed.
pub(crate) fn replay_offset(offset: u64, scale: u64, align: u64) -> u64 {
    let o = offset.checked_div(scale).unwrap_or(offset);
    if align > 0 {
        o & !(align - 1)
    } else {
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_follow_the_log_scaled() {
        assert_eq!(delay_since(500, 0, 100, false), 0, "the first entry");
        assert_eq!(delay_since(500, 200, 100, false), 300);
        assert_eq!(delay_since(500, 200, 50, false), 600);
        assert_eq!(delay_since(500, 200, 200, false), 150);
        assert_eq!(delay_since(500, 200, 100, true), 0, "replay_no_stall");
        assert_eq!(delay_since(100, 200, 100, false), 0, "back in time");
    }

    #[test]
    fn offsets_are_scaled_then_aligned_down() {
        assert_eq!(replay_offset(12345, 1, 0), 12345);
        assert_eq!(replay_offset(12345, 0, 0), 12345, "0: no scale");
        assert_eq!(replay_offset(12345, 2, 0), 6172);
        assert_eq!(replay_offset(12345, 1, 4096), 12288);
        assert_eq!(replay_offset(12345, 2, 4096), 4096);
    }

    #[test]
    fn files_are_added_once() {
        let mut f = Files::default();
        assert_eq!(f.add("a".into()), 0);
        assert_eq!(f.add("b".into()), 1);
        assert_eq!(f.add("a".into()), 0);
        assert_eq!(f.find("b".as_ref()), Some(1));
        assert_eq!(f.find("c".as_ref()), None);
    }
}
