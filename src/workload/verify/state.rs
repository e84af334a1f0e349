//! The verify state file (fio's `verify-state.h`): written at the end of a
//! writing job that verifies (`verify_state_save`, on by default), loaded
//! before a job starts with `verify_state_load`, and then used to stop
//! reading back where the writes that were written stopped.
//!
//! The file, little-endian: a header (the release's version, size of the
//! rest, the crc32c of the rest), then fio's `thread_io_list` in the
//! layout of that version ([`format`]): the writing job's iodepth, writes
//! issued, index, offset generator and name, and its last completed
//! writes (versions 3, 4) or its writes in flight (5).

mod format;

pub(crate) use format::{Format, Saved};

use super::checksum::fio_crc32c;
use crate::plan::spec::JobSpec;
use crate::workload::errno::strerror;

/// fio's `verify_state_gen_name` with its `local` prefix: a `/` in the
/// job's name becomes a `.`.
pub(crate) fn state_name(name: &str, index: u32) -> String {
    format!("local-{}-{index}-verify.state", name.replace('/', "."))
}

/// The last completed writes of each file (fio's `last_write_comp`), a
/// ring of [`Format::comps_depth`] offsets per file. Allocated once; recording is
/// allocation free.
#[derive(Debug)]
pub(crate) struct WriteComps {
    depth: usize,
    ring: Box<[u64]>,
    next: Box<[usize]>,
    /// Writes completed (fio's `io_blocks[DDIR_WRITE]`).
    done: u64,
}

impl WriteComps {
    /// Rings of `depth` ([`Format::comps_depth`]) for `files` files.
    pub(crate) fn new(depth: usize, files: usize) -> WriteComps {
        let depth = depth.max(1);
        WriteComps {
            depth,
            ring: vec![0; depth * files].into_boxed_slice(),
            next: vec![0; files].into_boxed_slice(),
            done: 0,
        }
    }

    /// A write to `file` at `offset` completed.
    #[inline]
    pub(crate) fn record(&mut self, file: usize, offset: u64) {
        self.done += 1;
        let Some(i) = self.next.get_mut(file) else {
            return;
        };
        self.ring[file * self.depth + *i] = offset;
        *i = (*i + 1) % self.depth;
    }

    /// fio's `fill_file_completions`: per file, in file order, as many
    /// of its last offsets (newest first) as writes completed, at most
    /// the ring.
    fn entries(&self) -> Vec<(u64, u64)> {
        let n = (self.done as usize).min(self.depth);
        let mut out = Vec::with_capacity(n * self.next.len());
        for (f, &next) in self.next.iter().enumerate() {
            let mut j = next;
            for _ in 0..n {
                j = if j == 0 { self.depth - 1 } else { j - 1 };
                out.push((f as u64, self.ring[f * self.depth + j]));
            }
        }
        out
    }
}

/// The state file of a writing job in `format`: its name and bytes.
pub(crate) fn state_file(format: Format, saved: &Saved<'_>) -> (String, Vec<u8>) {
    let body = format::encode(format, saved);
    let mut out = Vec::with_capacity(24 + body.len());
    out.extend_from_slice(&format.version().to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&u64::from(fio_crc32c(&body)).to_le_bytes());
    out.extend_from_slice(&body);
    (state_name(saved.name, saved.index), out)
}

/// Write the state file of job `spec` (fio's `verify_save_state`) in its
/// release's format, after `numberio` writes issued, with its offset
/// generator `rand` and its last completions `comps` if it kept them,
/// over `files` files: in the `--aux-path` directory, or the working
/// directory. Err: fio's lines.
pub(crate) fn save(
    spec: &JobSpec,
    files: usize,
    numberio: u64,
    rand: [u8; 56],
    comps: Option<&WriteComps>,
) -> Result<(), StateError> {
    let saved = Saved {
        name: &spec.name,
        index: spec.thread_number.saturating_sub(1),
        iodepth: spec.iodepth.max(1),
        files: files as u32,
        numberio,
        rand,
        comps,
    };
    let (name, data) = state_file(Format::of(spec.release), &saved);
    let name = match &spec.aux_path {
        Some(dir) => format!("{}/{name}", dir.display()),
        None => name,
    };
    std::fs::write(&name, data).map_err(|source| StateError::Open {
        path: name.clone(),
        for_write: true,
        source,
    })
}

/// Why a state file could not be written or loaded: each text is fio's,
/// whole lines.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The file `path` could not be opened (`for_write`: to save it).
    #[error(
        "fio: open state file: {}\nfio: state file: {path} (for_write={})\n",
        strerror(errno_of(source)),
        u8::from(*for_write)
    )]
    Open {
        path: String,
        for_write: bool,
        #[source]
        source: std::io::Error,
    },
    #[error("fio: failed reading verify state header\n")]
    ShortHeader,
    #[error("fio: unsupported ({version}) version in verify state header\n")]
    Version { version: u32 },
    /// fio's words, its spelling kept.
    #[error("fio: failed reading verity state\n")]
    ShortBody,
    #[error("fio: verify state is corrupt\n")]
    Corrupt,
}

/// The errno of `e` (`EIO` when it has none, as fio's `errno` would be).
fn errno_of(e: &std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

/// A loaded state file (fio's `td->vstate`): where the writes it
/// describes stopped, in the format it was read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoadedState {
    format: Format,
    state: format::Decoded,
}

impl LoadedState {
    /// Load the state file of job `name`, the `index`th job (fio's
    /// `verify_load_state`), from `dir`, in `format` (a file of another
    /// version is refused). Err: what fio prints, whole lines.
    pub(crate) fn load(
        dir: &std::path::Path,
        name: &str,
        index: u32,
        format: Format,
    ) -> Result<Self, StateError> {
        let mut file = state_name(name, index);
        if dir != std::path::Path::new(".") {
            // fio names the file with its `--aux-path` prefix.
            file = format!("{}/{file}", dir.display());
        }
        let data = std::fs::read(&file).map_err(|source| StateError::Open {
            path: file.clone(),
            for_write: false,
            source,
        })?;
        let word = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes"));
        if data.len() < 24 {
            return Err(StateError::ShortHeader);
        }
        let version = word(0);
        if version != format.version() {
            return Err(StateError::Version {
                version: version as u32,
            });
        }
        let (size, crc) = (word(8), word(16));
        let body = &data[24..];
        if (body.len() as u64) < size {
            return Err(StateError::ShortBody);
        }
        let body = &body[..size as usize];
        if u64::from(fio_crc32c(body)) != crc {
            return Err(StateError::Corrupt);
        }
        Ok(LoadedState {
            format,
            state: format::decode(format, body),
        })
    }

    /// Whether a read back stops before it (fio's
    /// `verify_state_should_stop`). Versions 3 and 4: the read of
    /// `offset` in file number `file`, after `reads` completed reads:
    /// within the last `iodepth` writes, only those seen completed are
    /// read back. Version 5: the read of the write numbered `seq` is past
    /// the writes issued, or was in flight.
    pub(crate) fn should_stop(&self, reads: u64, seq: u64, file: u64, offset: u64) -> Stop {
        let s = &self.state;
        if self.format == Format::V5 {
            return if seq >= s.numberio {
                Stop::Issued {
                    seq,
                    issued: s.numberio,
                }
            } else if s.inflight.contains(&seq) {
                Stop::InFlight(seq)
            } else {
                Stop::No
            };
        }
        let (depth, numberio) = (s.depth, s.numberio);
        if (reads < depth || numberio.wrapping_sub(reads) > depth) && numberio > depth {
            return Stop::No;
        }
        if s.comps.iter().any(|&(f, o)| f == file && o == offset) {
            Stop::No
        } else if self.format == Format::V3 {
            Stop::Silent
        } else {
            Stop::NotRecorded(offset)
        }
    }
}

/// What [`LoadedState::should_stop`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    No,
    /// The read back stops, fio saying nothing (3.33 … 3.38).
    Silent,
    /// The read of this offset stops: its write is not among the
    /// completions kept (3.39, 3.40).
    NotRecorded(u64),
    /// The read of write `seq` stops: `issued` writes were issued.
    Issued {
        seq: u64,
        issued: u64,
    },
    /// The read of write `seq` stops: it was in flight.
    InFlight(u64),
}

impl Stop {
    /// Whether the read back stops.
    pub(crate) fn stops(self) -> bool {
        self != Stop::No
    }

    /// fio's line saying why it stops (its `log_info`), of a read in the
    /// file named `file`.
    pub(crate) fn line(self, file: &str) -> Option<String> {
        match self {
            Stop::No | Stop::Silent => None,
            Stop::NotRecorded(offset) => Some(format!(
                "Stop verify because offset {offset} in {file} is not recorded in verify state\n"
            )),
            Stop::Issued { seq, issued } => {
                Some(format!("Stop verify because seq {seq} >= {issued}\n"))
            }
            Stop::InFlight(seq) => Some(format!(
                "Stop verify because seq {seq} was an inflight write\n"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("rfio-vstate-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn saved<'a>(comps: &'a WriteComps) -> Saved<'a> {
        Saved {
            name: "a/b",
            index: 2,
            iodepth: 2,
            files: 2,
            numberio: 4,
            rand: [0; 56],
            comps: Some(comps),
        }
    }

    #[test]
    fn the_last_writes_per_file_newest_first() {
        let mut c = WriteComps::new(2, 2);
        for (f, o) in [(0, 0), (1, 4096), (0, 8192), (0, 12288)] {
            c.record(f, o);
        }
        assert_eq!(c.entries(), [(0, 12288), (0, 8192), (1, 4096), (1, 0)]);
        let (name, bytes) = state_file(Format::V3, &saved(&c));
        assert_eq!(name, "local-a.b-2-verify.state");
        assert_eq!(bytes.len(), 24 + 152 + 16 * 4);
        let dir = dir("v3");
        std::fs::write(dir.join(&name), &bytes).unwrap();
        let s = LoadedState::load(&dir, "a/b", 2, Format::V3).unwrap();
        let st = |reads, file: u64, offset| s.should_stop(reads, 0, file, offset);
        // 4 writes, depth 2: reads 2 and 3 are checked against the last
        // completions; before, and past the writes, everything goes.
        assert_eq!(st(0, 0, 4096), Stop::No);
        assert_eq!(st(2, 0, 12288), Stop::No);
        assert_eq!(st(2, 0, 4096), Stop::Silent);
        assert_eq!(st(3, 1, 8192), Stop::Silent);
        assert_eq!(st(5, 1, 8192), Stop::No);
        let mut bad = bytes.clone();
        bad[40] ^= 1;
        std::fs::write(dir.join(&name), &bad).unwrap();
        let corrupt = LoadedState::load(&dir, "a/b", 2, Format::V3).unwrap_err();
        assert!(matches!(corrupt, StateError::Corrupt), "{corrupt:?}");
        assert_eq!(corrupt.to_string(), "fio: verify state is corrupt\n");
        // Named with the directory (fio's `--aux-path` prefix); the open's
        // errno kept.
        let missing = LoadedState::load(&dir, "none", 0, Format::V3).unwrap_err();
        assert!(
            matches!(&missing, StateError::Open { for_write: false, source, .. }
                if source.raw_os_error() == Some(libc::ENOENT)),
            "{missing:?}"
        );
        assert_eq!(
            missing.to_string(),
            format!(
                "fio: open state file: No such file or directory\n\
                 fio: state file: {}/local-none-0-verify.state (for_write=0)\n",
                dir.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Each release reads its own version only, and says which it found;
    /// a short header or body is refused in fio's words.
    #[test]
    fn another_version_or_a_short_file_is_refused() {
        let c = WriteComps::new(2, 2);
        let dir = dir("versions");
        let (name, v4) = state_file(Format::V4, &saved(&c));
        std::fs::write(dir.join(&name), &v4).unwrap();
        assert!(LoadedState::load(&dir, "a/b", 2, Format::V4).is_ok());
        for (format, text) in [
            (
                Format::V3,
                "fio: unsupported (4) version in verify state header\n",
            ),
            (
                Format::V5,
                "fio: unsupported (4) version in verify state header\n",
            ),
        ] {
            let e = LoadedState::load(&dir, "a/b", 2, format).unwrap_err();
            assert_eq!(e.to_string(), text);
        }
        std::fs::write(dir.join(&name), &v4[..100]).unwrap();
        let e = LoadedState::load(&dir, "a/b", 2, Format::V4).unwrap_err();
        assert_eq!(e.to_string(), "fio: failed reading verity state\n");
        std::fs::write(dir.join(&name), &v4[..10]).unwrap();
        let e = LoadedState::load(&dir, "a/b", 2, Format::V4).unwrap_err();
        assert_eq!(e.to_string(), "fio: failed reading verify state header\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Version 4 names the read it stops at; version 5 stops by sequence
    /// number: at the writes issued, or at a write in flight.
    #[test]
    fn later_versions_say_why_they_stop() {
        let mut c = WriteComps::new(2, 2);
        for (f, o) in [(0, 0), (1, 4096), (0, 8192), (0, 12288)] {
            c.record(f, o);
        }
        let dir = dir("stops");
        let (name, v4) = state_file(Format::V4, &saved(&c));
        std::fs::write(dir.join(&name), &v4).unwrap();
        let s = LoadedState::load(&dir, "a/b", 2, Format::V4).unwrap();
        assert_eq!(s.should_stop(2, 0, 0, 12288), Stop::No);
        let stop = s.should_stop(2, 0, 0, 4096);
        assert_eq!(stop, Stop::NotRecorded(4096));
        assert_eq!(
            stop.line("f.0.0").unwrap(),
            "Stop verify because offset 4096 in f.0.0 is not recorded in verify state\n"
        );
        let (_, mut v5) = state_file(Format::V5, &saved(&c));
        // A write in flight in the second slot: numberio 2.
        v5[24 + 144 + 8..24 + 144 + 16].copy_from_slice(&2u64.to_le_bytes());
        let crc = u64::from(fio_crc32c(&v5[24..]));
        v5[16..24].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(dir.join(&name), &v5).unwrap();
        let s = LoadedState::load(&dir, "a/b", 2, Format::V5).unwrap();
        let stop = |seq| s.should_stop(0, seq, 0, 0);
        assert_eq!(stop(1), Stop::No);
        assert_eq!(
            stop(2).line("f").unwrap(),
            "Stop verify because seq 2 was an inflight write\n"
        );
        assert_eq!(stop(3), Stop::No);
        assert_eq!(
            stop(4).line("f").unwrap(),
            "Stop verify because seq 4 >= 4\n"
        );
        assert_eq!(
            s.should_stop(0, 4, 0, 0),
            Stop::Issued { seq: 4, issued: 4 }
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
