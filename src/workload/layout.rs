//! Laying out files before a job starts (fio's `filesetup.c`).

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;

/// Bytes written per `write(2)` while filling a file.
const CHUNK: usize = 1 << 20;

/// Make `path` at least `size` bytes long. With `fill`, the new bytes are
/// written (read jobs need real data); otherwise the file is only extended.
/// Returns whether the file had to be created or extended.
pub fn lay_out(path: &Path, size: u64, fill: bool) -> io::Result<bool> {
    let current = std::fs::metadata(path).map(|m| m.len()).ok();
    if current.is_some_and(|len| len >= size) {
        return Ok(false);
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    if fill {
        let chunk = vec![0u8; CHUNK];
        let mut pos = 0;
        f.set_len(0)?;
        while pos < size {
            let n = (size - pos).min(CHUNK as u64) as usize;
            f.write_all(&chunk[..n])?;
            pos += n as u64;
        }
        f.sync_all()?;
    } else {
        f.set_len(size)?;
    }
    Ok(true)
}
