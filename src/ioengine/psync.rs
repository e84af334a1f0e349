//! `ioengine=psync`: positioned `pread(2)`/`pwrite(2)` (fio's `engines/sync.c`).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::{open_file, unsupported, Caps, FileId, IoEngine, OpenFlags};
use crate::plan::spec::Dir;

#[derive(Default)]
pub struct Psync {
    files: Vec<File>,
}

impl IoEngine for Psync {
    fn name(&self) -> &'static str {
        "psync"
    }

    fn caps(&self) -> Caps {
        Caps {
            is_sync: true,
            needs_files: true,
        }
    }

    fn open(&mut self, path: &Path, flags: OpenFlags) -> io::Result<FileId> {
        self.files.push(open_file(path, flags)?);
        Ok(FileId(self.files.len() - 1))
    }

    fn submit(&mut self, file: FileId, dir: Dir, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let f = &self.files[file.0];
        // `read_at`/`write_at` are `pread(2)`/`pwrite(2)`, one system call each.
        match dir {
            Dir::Read => f.read_at(buf, offset),
            Dir::Write => f.write_at(buf, offset),
            Dir::Trim => Err(unsupported(dir)),
        }
    }

    fn close_all(&mut self) {
        self.files.clear();
    }
}
