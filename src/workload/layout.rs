//! Laying out files before a job starts (fio's `filesetup.c`
//! `extend_file`).
//!
//! A regular file shorter than the end of the job's I/O region is laid out
//! again: a job that reads (or writes with `overwrite=1`) gets the whole
//! file written with data, so that reads find real blocks; a write-only job
//! gets the file created empty and space reserved by the `fallocate` mode,
//! its writes fill it. In both cases an existing short file is unlinked
//! first, as fio does. Block and character devices are never laid out.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use super::settings::Fallocate;

/// Bytes written per `write(2)` while filling a file.
const CHUNK: usize = 1 << 20;

/// How to lay a file out.
#[derive(Debug, Clone, Copy)]
pub struct Mode {
    /// Write the data (jobs that read, or `overwrite=1`).
    pub fill: bool,
    /// Unlink an existing short file first (fio does for reads and for
    /// writes without `overwrite`).
    pub unlink_first: bool,
    pub fallocate: Fallocate,
    /// `create_fsync=1`: fsync a filled file.
    pub fsync: bool,
}

impl Mode {
    /// fio's choice (`extend_file`) for a job that reads and/or writes;
    /// `no_extend`: the engine cannot grow files (fio's `FIO_NOEXTEND`).
    pub fn for_job(
        reads: bool,
        writes: bool,
        overwrite: bool,
        no_extend: bool,
        fallocate: Fallocate,
        fsync: bool,
    ) -> Mode {
        let fill = reads || (writes && (overwrite || no_extend));
        let unlink_first = fill || (writes && !overwrite);
        Mode {
            fill,
            unlink_first,
            fallocate,
            fsync,
        }
    }
}

/// Whether `path` must be laid out to hold `size` bytes: a regular file
/// (or nothing yet) shorter than that. Devices never are.
pub fn needs_layout(path: &Path, size: u64) -> bool {
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_block_device() || m.file_type().is_char_device() => false,
        Ok(m) => m.len() < size,
        Err(_) => true,
    }
}

/// Lay out `path` to `size` bytes with `mode`, the data made by `fill`
/// (called for every chunk, as fio refills its layout buffer). Parent
/// directories are created as fio does.
pub fn lay_out(
    path: &Path,
    size: u64,
    mode: Mode,
    fill: &mut dyn FnMut(&mut [u8]),
) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    if mode.unlink_first {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(mode.fill)
        .mode(0o644)
        .open(path)?;
    fallocate(&f, size, mode.fallocate);
    if !mode.fill {
        return Ok(());
    }
    f.set_len(size)?;
    let mut chunk = vec![0u8; CHUNK.min(size as usize).max(1)];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        fill(&mut chunk[..n]);
        f.write_all(&chunk[..n])?;
        left -= n as u64;
    }
    if mode.fsync {
        f.sync_all()?;
    }
    Ok(())
}

/// Reserve space as `fallocate=` asks; failures are not fatal (fio goes on
/// and lets the writes find out).
fn fallocate(f: &std::fs::File, size: u64, how: Fallocate) {
    let fd = f.as_raw_fd();
    let len = size as libc::off_t;
    // SAFETY: the calls only take the descriptor and integers.
    unsafe {
        match how {
            Fallocate::None => {}
            Fallocate::Native => {
                libc::fallocate(fd, 0, 0, len);
            }
            Fallocate::Posix => {
                libc::posix_fallocate(fd, 0, len);
            }
            Fallocate::Keep => {
                libc::fallocate(fd, libc::FALLOC_FL_KEEP_SIZE, 0, len);
            }
            Fallocate::Truncate => {
                libc::ftruncate(fd, len);
            }
        }
    }
}

/// Read `len` bytes of `path` once so that they are in the page cache
/// (`pre_read=1`).
pub fn pre_read(path: &Path, len: u64) -> io::Result<()> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut buf = vec![0u8; CHUNK];
    let mut left = len;
    while left > 0 {
        let n = f.read(&mut buf[..left.min(CHUNK as u64) as usize])?;
        if n == 0 {
            break;
        }
        left -= n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(tag: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("rfio-layout-{tag}-{}", std::process::id()))
    }

    #[test]
    fn read_jobs_get_data_write_jobs_get_space() {
        let p = tmp("r");
        let m = Mode::for_job(true, false, false, false, Fallocate::Native, false);
        lay_out(&p, 64 << 10, m, &mut |b| b.fill(0xa5)).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 64 << 10);
        let data = std::fs::read(&p).unwrap();
        assert!(data.iter().any(|&b| b != 0));
        std::fs::remove_file(&p).unwrap();

        let p = tmp("w");
        let m = Mode::for_job(false, true, false, false, Fallocate::None, false);
        lay_out(&p, 64 << 10, m, &mut |_| {}).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 0, "fallocate=none");
        let m = Mode::for_job(false, true, false, false, Fallocate::Truncate, false);
        lay_out(&p, 64 << 10, m, &mut |_| {}).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 64 << 10);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn only_short_regular_files_need_layout() {
        let p = tmp("n");
        assert!(needs_layout(&p, 1));
        std::fs::write(&p, [0u8; 10]).unwrap();
        assert!(needs_layout(&p, 11));
        assert!(!needs_layout(&p, 10));
        std::fs::remove_file(&p).unwrap();
        assert!(!needs_layout(Path::new("/dev/null"), 1 << 30));
    }
}
