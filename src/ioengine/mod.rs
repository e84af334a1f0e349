//! I/O engines: how one I/O reaches the file.
//!
//! Each engine lives in its own small file and declares what it can do in
//! [`Caps`]; the workload asks capabilities, never engine names. A new
//! engine touches its own file plus one line in [`engine`].

mod buf;
mod null;
mod psync;
mod sync;

use std::io;
use std::path::Path;

pub use buf::AlignedBuf;

use crate::plan::spec::Dir;

/// What an engine can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Every `submit` completes before it returns (iodepth is effectively 1).
    pub is_sync: bool,
    /// The engine works on real files, which must be laid out first.
    pub needs_files: bool,
}

/// How a file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenFlags {
    /// `direct=1`: `O_DIRECT`, buffers and offsets must be aligned.
    pub direct: bool,
    /// The job writes (open read-write rather than read-only).
    pub write: bool,
}

/// An opened file of an engine, as returned by [`IoEngine::open`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId(pub usize);

/// One engine instance, owned by one job thread.
pub trait IoEngine: Send {
    /// fio's name of the engine (`ioengine=`).
    fn name(&self) -> &'static str;

    /// What this engine can do.
    fn caps(&self) -> Caps;

    /// Open (prepare) one file for I/O.
    fn open(&mut self, path: &Path, flags: OpenFlags) -> io::Result<FileId>;

    /// Issue one I/O of `buf.len()` bytes at `offset` and wait for it.
    /// Returns the number of bytes transferred.
    fn submit(&mut self, file: FileId, dir: Dir, offset: u64, buf: &mut [u8]) -> io::Result<usize>;

    /// Close every file opened so far.
    fn close_all(&mut self);
}

/// The engine called `name`, fresh, or `None` if rfio has no such engine.
pub fn engine(name: &str) -> Option<Box<dyn IoEngine>> {
    match name {
        "null" => Some(Box::new(null::Null)),
        "psync" => Some(Box::new(psync::Psync::default())),
        "sync" => Some(Box::new(sync::Sync::default())),
        _ => None,
    }
}

/// Open `path` with the flags fio's sync engines use.
fn open_file(path: &Path, flags: OpenFlags) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true).write(flags.write);
    if flags.direct {
        opts.custom_flags(libc::O_DIRECT);
    }
    opts.open(path)
}

/// The error a sync engine returns for a direction it cannot do.
fn unsupported(dir: Dir) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("{dir:?} is not supported by this engine"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_knows_the_basic_engines() {
        for name in ["null", "psync", "sync"] {
            assert_eq!(engine(name).unwrap().name(), name);
        }
        assert!(engine("nosuch").is_none());
        assert!(!engine("null").unwrap().caps().needs_files);
        assert!(engine("psync").unwrap().caps().needs_files);
    }
}
