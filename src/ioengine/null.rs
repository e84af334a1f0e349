//! `ioengine=null`: no file I/O at all (fio's `engines/null.c`). Files are
//! neither created nor opened. At iodepth 1 every I/O completes in `queue`;
//! deeper, I/Os are queued, `commit` turns them into completions and
//! `getevents` hands them all back, as fio's engine does.

use crate::ddir::Ddir;
use std::time::Duration;

use super::engine::{Caps, CommonOptions, IoEngine};
use super::flags::{fio, EngineFlags};
use super::io::{Completion, EngineError, FileId, FileTarget, Io, IoMem, Queued};

pub(crate) struct Null {
    sync: bool,
    /// Tokens queued since the last commit, then the committed ones.
    tokens: Box<[u32]>,
    /// Completions of the last `getevents`: results per token.
    results: Box<[usize]>,
    queued: usize,
    /// Committed, not yet reaped.
    events: usize,
}

/// What `ioengine=null` is (fio's `engines/null.c`; its init adds
/// `FIO_SYNCIO` at iodepth 1, which [`caps`] says).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(fio::DISKLESSIO | fio::FAKEIO);

/// What the null engine can do: it is synchronous at iodepth 1 only
/// (fio's `fio_null_init` sets `FIO_SYNCIO` then).
pub(crate) fn caps(common: &CommonOptions) -> Caps {
    caps_for(common.iodepth <= 1)
}

fn caps_for(sync: bool) -> Caps {
    Caps {
        is_sync: sync,
        needs_files: false,
        can_trim: true,
        has_commit: true,
        fake_io: true,
        file_op: false,
        no_extend: false,
        no_io: false,
    }
}

pub(crate) fn new(common: &CommonOptions, _mem: IoMem) -> Result<Box<dyn IoEngine>, EngineError> {
    let depth = common.iodepth.max(1) as usize;
    Ok(Box::new(Null {
        sync: depth == 1,
        tokens: vec![0; depth].into_boxed_slice(),
        results: vec![0; depth].into_boxed_slice(),
        queued: 0,
        events: 0,
    }))
}

/// What a null I/O "transferred".
#[inline]
fn done(io: &Io) -> usize {
    match io.dir {
        Ddir::Sync | Ddir::DataSync => 0,
        _ => io.len,
    }
}

impl IoEngine for Null {
    fn name(&self) -> &'static str {
        "null"
    }

    fn caps(&self) -> Caps {
        caps_for(self.sync)
    }

    fn open(&mut self, _target: &FileTarget) -> Result<FileId, EngineError> {
        Ok(FileId(0))
    }

    #[inline]
    unsafe fn queue(&mut self, io: &Io) -> Queued {
        if self.sync {
            return Queued::Completed(Ok(done(io)));
        }
        if self.events > 0 || self.queued == self.tokens.len() {
            return Queued::Busy;
        }
        self.tokens[self.queued] = io.token;
        self.results[io.token as usize] = done(io);
        self.queued += 1;
        Queued::Queued
    }

    fn commit(&mut self) -> Result<(), i32> {
        if self.events == 0 {
            self.events = self.queued;
            self.queued = 0;
        }
        Ok(())
    }

    fn getevents(&mut self, min: usize, _max: usize, _t: Option<Duration>) -> Result<usize, i32> {
        // fio's null engine: everything committed completes at once, but
        // only for a caller that waits for something.
        if min == 0 {
            return Ok(0);
        }
        let n = self.events;
        self.events = 0;
        Ok(n)
    }

    fn event(&mut self, i: usize) -> Completion {
        let token = self.tokens[i];
        Completion {
            token,
            result: Ok(self.results[token as usize]),
        }
    }
}
