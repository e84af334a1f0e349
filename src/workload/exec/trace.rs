//! The loop's `--debug` lines (`crate::debug`): `io` for each I/O queued
//! and completed (fio's `dprint_io_u`), `file` for each file opened and
//! closed. Called only when the category is on.

use super::super::clock::Clock;
use super::Exec;
use crate::debug::{emit, Cat};

impl<C: Clock> Exec<'_, '_, C> {
    /// `io` line of unit `t` at step `what` (`queue`, `complete`).
    #[cold]
    pub(super) fn trace_io(&self, what: &str, t: u32) {
        let u = self.units.get(t);
        let file = self.job.files.get(u.file).map(|f| f.path.display());
        emit(
            Cat::Io,
            format_args!(
                "{what}: io_u {t}: off=0x{:x},len=0x{:x},ddir={},file={}\n",
                u.io.offset,
                u.io.len,
                u.io.dir.index(),
                file.map(|f| f.to_string()).unwrap_or_default()
            ),
        );
    }

    /// `file` line of every file of the job (`fd open`, `fd close`).
    #[cold]
    pub(super) fn trace_files(&self, what: &str) {
        for f in &self.job.files {
            emit(Cat::File, format_args!("{what} {}\n", f.path.display()));
        }
    }
}
