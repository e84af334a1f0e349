//! `ioengine=sync`: `lseek(2)` then `read(2)`/`write(2)` (fio's `engines/sync.c`).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::{open_file, unsupported, Caps, FileId, IoEngine, OpenFlags};
use crate::plan::spec::Dir;

#[derive(Default)]
pub struct Sync {
    files: Vec<File>,
}

impl IoEngine for Sync {
    fn name(&self) -> &'static str {
        "sync"
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
        let f = &mut self.files[file.0];
        f.seek(SeekFrom::Start(offset))?;
        match dir {
            Dir::Read => f.read(buf),
            Dir::Write => f.write(buf),
            Dir::Trim => Err(unsupported(dir)),
        }
    }

    fn close_all(&mut self) {
        self.files.clear();
    }
}
