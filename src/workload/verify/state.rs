//! The verify state file (fio's `verify-state.h`): written at the end of a
//! writing job that verifies (`verify_state_save`, on by default), loaded
//! before a job starts with `verify_state_load`, and then used to stop
//! reading back where the writes that were written stopped.
//!
//! The file, little-endian: a header (version 3, size of the rest, the
//! crc32c of the rest), then fio's `thread_io_list`: completions kept,
//! iodepth, files, writes issued, the job's index, the offset
//! generator's state (56 bytes; rfio leaves it zero: fio never reads it
//! back), the name (64 bytes), and per file `iodepth` slots of
//! `(file number, offset)`: the last completed writes, newest first.

use super::checksum::fio_crc32c;
use crate::plan::spec::JobSpec;
use crate::workload::errno::strerror;

/// fio's `VSTATE_HDR_VERSION`.
const VERSION: u64 = 3;
/// `sizeof(struct thread_io_list)` before its completions.
const LIST_LEN: usize = 152;

/// fio's `verify_state_gen_name` with its `local` prefix: a `/` in the
/// job's name becomes a `.`.
pub(crate) fn state_name(name: &str, index: u32) -> String {
    format!("local-{}-{index}-verify.state", name.replace('/', "."))
}

/// The last completed writes of each file (fio's `last_write_comp`), a
/// ring of `iodepth` offsets per file. Allocated once; recording is
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
    /// Rings of `depth` (the job's `iodepth`) for `files` files.
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
    /// `iodepth`.
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

/// The state file of a writing job: its name and bytes. `index` is the
/// job's place among all jobs (0 first), `numberio` the writes it
/// issued.
pub(crate) fn state_file(
    name: &str,
    index: u32,
    numberio: u64,
    comps: &WriteComps,
) -> (String, Vec<u8>) {
    let entries = comps.entries();
    let nr_files = comps.next.len();
    let slots = comps.depth * nr_files;
    let mut s = Vec::with_capacity(LIST_LEN + 16 * slots);
    s.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    s.extend_from_slice(&(comps.depth as u32).to_le_bytes());
    s.extend_from_slice(&(nr_files as u32).to_le_bytes());
    s.extend_from_slice(&numberio.to_le_bytes());
    s.extend_from_slice(&u64::from(index).to_le_bytes());
    s.extend_from_slice(&[0u8; 56]);
    let mut nm = [0u8; 64];
    let b = name.as_bytes();
    let n = b.len().min(63);
    nm[..n].copy_from_slice(&b[..n]);
    s.extend_from_slice(&nm);
    for i in 0..slots {
        let (f, o) = entries.get(i).copied().unwrap_or((0, 0));
        s.extend_from_slice(&f.to_le_bytes());
        s.extend_from_slice(&o.to_le_bytes());
    }
    let mut out = Vec::with_capacity(24 + s.len());
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(&u64::from(fio_crc32c(&s)).to_le_bytes());
    out.extend_from_slice(&s);
    (state_name(name, index), out)
}

/// Write the state file of job `spec` (fio's `verify_save_state`), after
/// `numberio` writes issued, with its last completions `comps`: in the
/// `--aux-path` directory, or the working directory. Err: fio's lines.
pub(crate) fn save(spec: &JobSpec, numberio: u64, comps: &WriteComps) -> Result<(), StateError> {
    let (name, data) = state_file(
        &spec.name,
        spec.thread_number.saturating_sub(1),
        numberio,
        comps,
    );
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
/// describes stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoadedState {
    /// The writing job's `iodepth`.
    depth: u64,
    /// Writes it issued.
    numberio: u64,
    /// Its last completed writes: (file number, offset).
    comps: Vec<(u64, u64)>,
}

fn le64(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

fn le32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

impl LoadedState {
    /// Load the state file of job `name`, the `index`th job (fio's
    /// `verify_load_state`), from `dir`. Err: what fio prints, whole
    /// lines.
    pub(crate) fn load(dir: &std::path::Path, name: &str, index: u32) -> Result<Self, StateError> {
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
        if data.len() < 24 {
            return Err(StateError::ShortHeader);
        }
        let version = le64(&data, 0);
        if version != VERSION {
            return Err(StateError::Version {
                version: version as u32,
            });
        }
        let size = le64(&data, 8);
        let crc = le64(&data, 16);
        let body = &data[24..];
        if (body.len() as u64) < size {
            return Err(StateError::ShortBody);
        }
        let body = &body[..size as usize];
        if u64::from(fio_crc32c(body)) != crc {
            return Err(StateError::Corrupt);
        }
        let no_comps = le64(body, 0);
        let comps = (0..no_comps as usize)
            .map_while(|i| {
                let at = LIST_LEN + 16 * i;
                (at + 16 <= body.len()).then(|| (le64(body, at), le64(body, at + 8)))
            })
            .collect();
        Ok(LoadedState {
            depth: u64::from(le32(body, 8)),
            numberio: le64(body, 16),
            comps,
        })
    }

    /// Whether a read back of `offset` in file number `file`, after
    /// `reads` completed reads, is beyond what the writes completed
    /// (fio's `verify_state_should_stop`): within the last `iodepth`
    /// writes, only those seen completed are read back.
    pub(crate) fn should_stop(&self, reads: u64, file: u64, offset: u64) -> bool {
        let (depth, numberio) = (self.depth, self.numberio);
        if (reads < depth || numberio.wrapping_sub(reads) > depth) && numberio > depth {
            return false;
        }
        !self.comps.iter().any(|&(f, o)| f == file && o == offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_writes_per_file_newest_first() {
        let mut c = WriteComps::new(2, 2);
        for (f, o) in [(0, 0), (1, 4096), (0, 8192), (0, 12288)] {
            c.record(f, o);
        }
        assert_eq!(c.entries(), [(0, 12288), (0, 8192), (1, 4096), (1, 0)]);
        let (name, bytes) = state_file("a/b", 2, 4, &c);
        assert_eq!(name, "local-a.b-2-verify.state");
        assert_eq!(bytes.len(), 24 + LIST_LEN + 16 * 4);
        let dir = std::env::temp_dir().join(format!("rfio-vstate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(&name), &bytes).unwrap();
        let s = LoadedState::load(&dir, "a/b", 2).unwrap();
        assert_eq!((s.depth, s.numberio, s.comps.len()), (2, 4, 4));
        // 4 writes, depth 2: reads 2 and 3 are checked against the last
        // completions; before, and past the writes, everything goes.
        assert!(!s.should_stop(0, 0, 4096));
        assert!(!s.should_stop(2, 0, 12288));
        assert!(s.should_stop(2, 0, 4096));
        assert!(s.should_stop(3, 1, 8192));
        assert!(!s.should_stop(5, 1, 8192));
        let mut bad = bytes.clone();
        bad[40] ^= 1;
        std::fs::write(dir.join(&name), &bad).unwrap();
        let corrupt = LoadedState::load(&dir, "a/b", 2).unwrap_err();
        assert!(matches!(corrupt, StateError::Corrupt), "{corrupt:?}");
        assert_eq!(corrupt.to_string(), "fio: verify state is corrupt\n");
        // Named with the directory (fio's `--aux-path` prefix); the open's
        // errno kept.
        let missing = LoadedState::load(&dir, "none", 0).unwrap_err();
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
}
