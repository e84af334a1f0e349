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

use super::errno::strerror;
use super::stop::Stop;
use crate::plan::resolve::io::Fallocate;

/// Bytes written per `write(2)` while filling a file.
const CHUNK: usize = 1 << 20;

/// How to lay a file out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mode {
    /// Write the data (jobs that read, or `overwrite=1`).
    pub(crate) fill: bool,
    /// Unlink an existing short file first (fio does for reads and for
    /// writes without `overwrite`).
    pub(crate) unlink_first: bool,
    pub(crate) fallocate: Fallocate,
    /// `create_fsync=1`: fsync a filled file.
    pub(crate) fsync: bool,
    /// `--readonly`: nothing may be written; a file that needs laying out
    /// is refused before anything is touched.
    pub(crate) readonly: bool,
    /// `allow_file_create` (default on): a missing file may be created.
    pub(crate) allow_create: bool,
}

impl Mode {
    /// fio's choice (`extend_file`) for a job that reads and/or writes;
    /// `no_extend`: the engine cannot grow files (fio's `FIO_NOEXTEND`).
    #[cfg(test)]
    pub(crate) fn for_job(
        reads: bool,
        writes: bool,
        overwrite: bool,
        no_extend: bool,
        fallocate: Fallocate,
        fsync: bool,
    ) -> Mode {
        Mode::appending(reads, writes, overwrite, no_extend, false).with(fallocate, fsync)
    }

    /// The same with `file_append` (`append`): a job that only writes
    /// keeps the file and extends it (fio neither unlinks nor refills it).
    pub(crate) fn appending(
        reads: bool,
        writes: bool,
        overwrite: bool,
        no_extend: bool,
        append: bool,
    ) -> Mode {
        let fill = reads || (writes && ((overwrite && !append) || no_extend));
        let unlink_first = fill || (writes && !overwrite && !append);
        Mode {
            fill,
            unlink_first,
            fallocate: Fallocate::Native,
            fsync: false,
            readonly: false,
            allow_create: true,
        }
    }

    /// The same, with `fallocate` and `create_fsync`.
    pub(crate) fn with(self, fallocate: Fallocate, fsync: bool) -> Mode {
        Mode {
            fallocate,
            fsync,
            ..self
        }
    }

    /// The same, with `allow_file_create` as given.
    pub(crate) fn allow_create(self, allow_create: bool) -> Mode {
        Mode {
            allow_create,
            ..self
        }
    }

    /// The same, under `--readonly` when `readonly` is set.
    pub(crate) fn readonly(self, readonly: bool) -> Mode {
        Mode { readonly, ..self }
    }
}

/// Why a file could not be laid out: the job's error, fio's `td_verror`
/// text (`file:filesetup.c:174, func=open, error=Permission denied`; in
/// fio's shape without the place where fio has no such failure:
/// `func=extend, error=Read-only file system`), and a line fio logs before
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failed {
    pub(crate) errno: i32,
    pub(crate) msg: String,
    /// A whole line (newline included) for stderr, as fio's `log_err`.
    pub(crate) note: Option<String>,
    /// The layout announced before it failed (fio's report prints its
    /// `Laying out IO file` line all the same).
    pub(crate) laid: Option<crate::stats::Layout>,
}

/// fio's line when `allow_file_create=0` keeps it from creating a file.
pub(crate) const CREATION_DISALLOWED: &str =
    "fio: file creation disallowed by allow_file_create=0\n";

/// fio's line when `--readonly` keeps it from laying a file out.
pub(crate) const READONLY_NOTE: &str = "fio: refusing extend of file due to read-only\n";

impl Failed {
    /// Error `errno` of `func`.
    pub(crate) fn new(errno: i32, func: &str) -> Failed {
        Failed {
            errno,
            msg: format!("func={func}, error={}", strerror(errno)),
            note: None,
            laid: None,
        }
    }

    fn io(e: &io::Error, func: &str) -> Failed {
        Failed::new(e.raw_os_error().unwrap_or(libc::EIO), func)
    }

    /// Error `e` of `func`, a step of fio's `extend_file` that fio reports
    /// from `filesetup.c` line `line` (`file:filesetup.c:150, func=unlink,
    /// error=...`). An error without an errno (a short write) has no
    /// place: fio's is another line.
    fn extend(e: &io::Error, line: u32, func: &str) -> Failed {
        let Some(errno) = e.raw_os_error() else {
            return Failed::io(e, func);
        };
        Failed {
            errno,
            msg: format!(
                "file:filesetup.c:{line}, func={func}, error={}",
                strerror(errno)
            ),
            note: None,
            laid: None,
        }
    }

    /// `allow_file_create=0` and the file is missing: fio says so and
    /// fails the job's set-up without an error of the job.
    pub(crate) fn creation_disallowed() -> Failed {
        Failed {
            errno: 0,
            msg: String::new(),
            note: Some(CREATION_DISALLOWED.to_string()),
            laid: None,
        }
    }

    fn with_note(self, note: String) -> Failed {
        Failed {
            note: Some(note),
            ..self
        }
    }

    /// The same, after the layout `laid` was announced.
    pub(crate) fn after(self, laid: crate::stats::Layout) -> Failed {
        Failed {
            laid: Some(laid),
            ..self
        }
    }

    /// The layout was stopped by a stop request (SIGINT), its file
    /// removed.
    pub(crate) fn stopped(&self) -> bool {
        self.errno == libc::EINTR && self.note.is_none()
    }
}

/// Whether `path` must be laid out to hold `size` bytes: a regular file
/// (or nothing yet) shorter than that. Devices never are.
pub(crate) fn needs_layout(path: &Path, size: u64) -> bool {
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_block_device() || m.file_type().is_char_device() => false,
        Ok(m) => m.len() < size,
        Err(_) => true,
    }
}

/// Create the directories above `path` that do not exist yet, mode 0700,
/// one at a time from the top, as fio's `create_work_dirs`; an existing
/// one (even a file: the open finds out) is passed.
pub(crate) fn create_dirs(path: &Path) -> Result<(), Failed> {
    use std::os::unix::fs::DirBuilderExt;
    let Some(parent) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    let mut missing: Vec<&Path> = parent
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && std::fs::symlink_metadata(d).is_err())
        .collect();
    missing.reverse();
    for dir in missing {
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                let failed = Failed::io(&e, &format!("mkdir({})", crate::diag::show_path(dir)));
                let note = format!(
                    "fio: failed to create dir ({}): {}\n",
                    crate::diag::show_path(dir),
                    strerror(failed.errno)
                );
                return Err(failed.with_note(note));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Lay out `path` to `size` bytes with `mode`, the data made by `fill`
/// (called for every chunk, as fio refills its layout buffer). Parent
/// directories are created as fio does.
///
/// Under `--readonly` nothing is created or written: the file is refused
/// (fio warns, then runs the job on what is there). A `stop` request
/// (SIGINT) ends the layout within a chunk
/// and removes the partly laid out file, as fio's `extend_file` does.
pub(crate) fn lay_out(
    path: &Path,
    size: u64,
    mode: Mode,
    fill: &mut dyn FnMut(&mut [u8]),
    stop: &Stop,
) -> Result<(), Failed> {
    if mode.readonly {
        let note = READONLY_NOTE.to_string();
        return Err(match std::fs::metadata(path) {
            Err(e) => {
                Failed::io(&e, &format!("open({})", crate::diag::show_path(path))).with_note(note)
            }
            Ok(_) => Failed::new(libc::EROFS, "extend").with_note(note),
        });
    }
    create_dirs(path)?;
    // fio stats the file first (`get_file_sizes`): a path through a
    // regular file fails there.
    match std::fs::metadata(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(Failed::io(&e, "fstat")),
        _ => {}
    }
    if mode.unlink_first {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                return Err(Failed::extend(&e, 150, "unlink"))
            }
            _ => {}
        }
    }
    let mut f = match OpenOptions::new()
        .write(true)
        .create(mode.allow_create)
        .truncate(mode.fill)
        .mode(0o644)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound && !mode.allow_create => {
            return Err(Failed::creation_disallowed())
        }
        Err(e) => return Err(Failed::extend(&e, 174, "open")),
    };
    fallocate(&f, size, mode.fallocate);
    if !mode.fill {
        return Ok(());
    }
    f.set_len(size)
        .map_err(|e| Failed::extend(&e, 195, "ftruncate"))?;
    let mut chunk = vec![0u8; CHUNK.min(size as usize).max(1)];
    let mut left = size;
    while left > 0 && !stop.requested() {
        let n = left.min(chunk.len() as u64) as usize;
        fill(&mut chunk[..n]);
        if let Err(e) = f.write_all(&chunk[..n]) {
            let failed = Failed::extend(&e, 240, "write");
            return Err(match failed.errno {
                libc::ENOSPC => {
                    failed.with_note("fio: ENOSPC on laying out file, stopping\n".into())
                }
                libc::EDQUOT => {
                    failed.with_note("fio: EDQUOT on laying out file, stopping\n".into())
                }
                _ => failed,
            });
        }
        left -= n as u64;
    }
    if stop.requested() {
        // fio's extend_file: a terminated layout unlinks its file.
        drop(f);
        let _ = std::fs::remove_file(path);
        return Err(Failed::new(libc::EINTR, "write"));
    }
    if mode.fsync {
        f.sync_all().map_err(|e| Failed::extend(&e, 253, "fsync"))?;
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
/// (`pre_read=1`); a `stop` request (SIGINT) ends it at the next chunk.
pub(crate) fn pre_read(path: &Path, len: u64, stop: &Stop) -> io::Result<()> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut buf = vec![0u8; CHUNK];
    let mut left = len;
    while left > 0 && !stop.requested() {
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
        lay_out(&p, 64 << 10, m, &mut |b| b.fill(0xa5), &Stop::new()).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 64 << 10);
        let data = std::fs::read(&p).unwrap();
        assert!(data.iter().any(|&b| b != 0));
        std::fs::remove_file(&p).unwrap();

        let p = tmp("w");
        let m = Mode::for_job(false, true, false, false, Fallocate::None, false);
        lay_out(&p, 64 << 10, m, &mut |_| {}, &Stop::new()).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 0, "fallocate=none");
        let m = Mode::for_job(false, true, false, false, Fallocate::Truncate, false);
        lay_out(&p, 64 << 10, m, &mut |_| {}, &Stop::new()).unwrap();
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

    #[test]
    fn readonly_touches_nothing() {
        let dir = tmp("ro");
        let p = dir.join("sub/f");
        let m = Mode::for_job(true, false, false, false, Fallocate::Native, false).readonly(true);
        let e = lay_out(
            &p,
            4096,
            m,
            &mut |_| panic!("no data under --readonly"),
            &Stop::new(),
        )
        .unwrap_err();
        assert_eq!(e.errno, libc::ENOENT);
        assert_eq!(e.note.as_deref(), Some(READONLY_NOTE));
        assert!(!dir.exists(), "nothing created");

        let p = tmp("ro-short");
        std::fs::write(&p, [7u8; 100]).unwrap();
        let e = lay_out(&p, 4096, m, &mut |_| panic!(), &Stop::new()).unwrap_err();
        assert_eq!(
            (e.errno, e.msg.as_str()),
            (libc::EROFS, "func=extend, error=Read-only file system")
        );
        assert_eq!(std::fs::read(&p).unwrap(), [7u8; 100]);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn errors_name_what_failed_without_c_locations() {
        let file = tmp("plain");
        std::fs::write(&file, b"x").unwrap();
        let m = Mode::for_job(true, false, false, false, Fallocate::None, false);
        let e = lay_out(&file.join("x"), 4096, m, &mut |_| {}, &Stop::new()).unwrap_err();
        assert_eq!(
            (e.errno, e.msg.as_str(), e.note),
            (libc::ENOTDIR, "func=fstat, error=Not a directory", None)
        );
        std::fs::remove_file(&file).unwrap();

        let under_proc = format!("/proc/rfio-layout-{}", std::process::id());
        let e = lay_out(
            &Path::new(&under_proc).join("f"),
            4096,
            m,
            &mut |_| {},
            &Stop::new(),
        )
        .unwrap_err();
        let note = e.note.unwrap();
        assert!(
            note.starts_with(&format!("fio: failed to create dir ({under_proc}): ")),
            "{note}"
        );
        assert!(!e.msg.contains(".c:"), "{}", e.msg);
    }
}
