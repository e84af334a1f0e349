//! `lockfile=exclusive`: one lock per file name, shared by every job of
//! the run that names the file with this mode, held from just before an
//! I/O is handed to the engine until the engine returns (fio's
//! `lock_file` in `td_io_prep` and `unlock_file` after `->queue`). For a
//! synchronous engine that is the whole I/O; for an asynchronous one, its
//! submission.
//!
//! fio keeps the lock in the file's shared state, found by name through
//! its file hash when a job opens the file, so jobs that run at the same
//! time share it. `lockfile=readwrite` sets up a read-write lock in fio
//! 3.33 but `lock_file` only takes a lock when the file has an exclusive
//! one: on its own it locks nothing, and rfio takes none.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// The lock of one file name.
pub(crate) type FileLock = Arc<Mutex<()>>;

/// Every file name's lock, for the whole run.
fn registry() -> &'static Mutex<HashMap<PathBuf, FileLock>> {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, FileLock>>> = OnceLock::new();
    LOCKS.get_or_init(Mutex::default)
}

/// The lock of file `path` (by name, as given), made on first use.
pub(crate) fn lock_of(path: &Path) -> FileLock {
    let mut map = registry().lock().unwrap_or_else(|e| e.into_inner());
    Arc::clone(map.entry(path.to_path_buf()).or_default())
}

/// Hold `lock` (a job that panicked while holding it left nothing to
/// repair: the lock guards no data).
#[inline]
pub(crate) fn hold(lock: &FileLock) -> MutexGuard<'_, ()> {
    lock.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_lock_per_file_name() {
        let a = lock_of(Path::new("/tmp/rfio-lock-test-a"));
        let b = lock_of(Path::new("/tmp/rfio-lock-test-a"));
        let c = lock_of(Path::new("/tmp/rfio-lock-test-c"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        let held = hold(&a);
        assert!(b.try_lock().is_err(), "the other job waits");
        drop(held);
        assert!(b.try_lock().is_ok());
    }
}
