//! The data direction of each I/O (fio's `get_rw_ddir`/`set_rw_ddir`).
//!
//! - `rw=read|write|trim` (and their `rand` forms): always that direction.
//! - `rw=rw|randrw`: fio does not flip a coin per I/O. It draws a direction
//!   (`rand_between(rwmix_state, 1, 100) <= rwmixread` is a read) and then
//!   keeps issuing it until that direction's issued count catches up with
//!   the other's scaled by its mix share (`set_rwmix_bytes`); only then it
//!   draws again. [`DirGen`] is that state machine, seeded like fio's
//!   `rwmix_state`, so the read/write sequence equals fio's.
//! - `rw=trimwrite|randtrimwrite`: per file, a trim, then a write of the
//!   block just trimmed, and so on (fio compares the file's last trim and
//!   last write start offsets).
//!
//! How the I/O loop uses it, per I/O: `d = next_dir()`; if a rate limit is set,
//! the rate limiter's `next_dir` may pick the other direction (then
//! `set_current(d)`); `d = for_file(d, last_write, last_trim)` with the
//! file's last write and trim offsets; after the I/O is issued,
//! `issued(d)`. The offset generator (`offsets::IoGen`) does all of this.

use crate::ddir::Ddir;
use crate::plan::spec::JobSpec;
use crate::rand::{FioRand, Seeds, Slot};

/// What kind of direction sequence a job has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Fixed(Ddir),
    Mix,
    TrimWrite,
}

/// The direction generator of one job (fio's `rwmix_*` state).
#[derive(Debug, Clone)]
pub struct DirGen {
    mode: Mode,
    /// `rwmixread`, `rwmixwrite` (they add up to 100).
    rwmix: [u32; 2],
    /// fio's `rwmix_state` (32-bit, seeded from [`Slot::Mix`]).
    state: FioRand,
    /// fio's `rwmix_ddir`: the direction in force.
    current: Ddir,
    /// fio's `rwmix_issues`: issue count of `current` at which to draw again.
    switch_at: u64,
    /// fio's `io_issues`: I/Os issued per direction (over all loops).
    issues: [u64; 3],
}

impl DirGen {
    pub(crate) fn new(spec: &JobSpec, seeds: &Seeds) -> DirGen {
        let p = spec.pattern;
        let mode = if p.write && p.trim {
            Mode::TrimWrite
        } else if p.read && p.write {
            Mode::Mix
        } else if p.read {
            Mode::Fixed(Ddir::Read)
        } else if p.write {
            Mode::Fixed(Ddir::Write)
        } else {
            Mode::Fixed(Ddir::Trim)
        };
        let read = spec.rwmixread.min(100);
        DirGen {
            mode,
            rwmix: [read, 100 - read],
            state: seeds.rand(Slot::Mix, false),
            current: Ddir::Read,
            switch_at: 0,
            issues: [0; 3],
        }
    }

    /// Start a new loop (fio's `clear_io_state`): the switch point goes
    /// back to zero (so the next I/O draws a direction) and, with
    /// `randrepeat`, the mix generator is re-seeded. Like fio, the issue
    /// counts and the direction in force carry over.
    pub(crate) fn reset(&mut self, seeds: &Seeds) {
        self.switch_at = 0;
        if seeds.repeatable {
            self.state = seeds.rand(Slot::Mix, false);
        }
    }

    /// Whether the job mixes reads and writes (fio's `td_rw`).
    pub(crate) fn is_mixed(&self) -> bool {
        self.mode == Mode::Mix
    }

    /// `rwmixread`/`rwmixwrite` share of `dir` (0 for trim and syncs).
    pub(crate) fn mix_share(&self, dir: Ddir) -> u32 {
        match dir {
            Ddir::Read => self.rwmix[0],
            Ddir::Write => self.rwmix[1],
            Ddir::Trim | Ddir::Sync | Ddir::DataSync => 0,
        }
    }

    /// The direction of the next I/O before any rate limit and before the
    /// trimwrite rule (fio's `get_rw_ddir` up to `rate_ddir`). Allocation
    /// free; draws from the mix generator only when fio does.
    #[inline]
    pub(crate) fn next_dir(&mut self) -> Ddir {
        match self.mode {
            Mode::Fixed(d) => d,
            Mode::TrimWrite => Ddir::Write,
            Mode::Mix => {
                if self.issues[self.current as usize] >= self.switch_at {
                    let v = self.state.between(1, 100);
                    let d = if v <= u64::from(self.rwmix[0]) {
                        Ddir::Read
                    } else {
                        Ddir::Write
                    };
                    if d != self.current {
                        // set_rwmix_bytes: issues of the old direction
                        // times the new direction's share.
                        self.switch_at =
                            self.issues[self.current as usize] * u64::from(self.mix_share(d)) / 100;
                    }
                    self.current = d;
                }
                self.current
            }
        }
    }

    /// Make `dir` the direction in force (fio assigns `rate_ddir`'s choice
    /// to `rwmix_ddir`).
    pub(crate) fn set_current(&mut self, dir: Ddir) {
        if self.mode == Mode::Mix {
            self.current = dir;
        }
    }

    /// fio's `set_rw_ddir` trimwrite rule: on a file whose last write and
    /// last trim started at `last_write` and `last_trim`, a trim when they
    /// are the same offset (or neither ran), else a write.
    #[inline]
    pub(crate) fn for_file(&self, dir: Ddir, last_write: u64, last_trim: u64) -> Ddir {
        if self.mode != Mode::TrimWrite {
            return dir;
        }
        if last_write == last_trim {
            Ddir::Trim
        } else {
            Ddir::Write
        }
    }

    /// Count an issued I/O (fio's `io_issues[dir]++`).
    #[inline]
    pub(crate) fn issued(&mut self, dir: Ddir) {
        self.issues[dir.index()] += 1;
    }
}
