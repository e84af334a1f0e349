//! `ioengine=null`: no file I/O at all; every I/O completes at once
//! (fio's `engines/null.c`). Files are neither created nor opened.

use std::io;
use std::path::Path;

use super::{Caps, FileId, IoEngine, OpenFlags};
use crate::plan::spec::Dir;

pub struct Null;

impl IoEngine for Null {
    fn name(&self) -> &'static str {
        "null"
    }

    fn caps(&self) -> Caps {
        Caps {
            is_sync: true,
            needs_files: false,
        }
    }

    fn open(&mut self, _path: &Path, _flags: OpenFlags) -> io::Result<FileId> {
        Ok(FileId(0))
    }

    fn submit(
        &mut self,
        _file: FileId,
        _dir: Dir,
        _offset: u64,
        buf: &mut [u8],
    ) -> io::Result<usize> {
        Ok(buf.len())
    }

    fn close_all(&mut self) {}
}
