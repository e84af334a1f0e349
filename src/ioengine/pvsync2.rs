//! `ioengine=pvsync2`: `preadv2(2)`/`pwritev2(2)` of one vector, with the
//! `RWF_*` flags of its options (fio's `engines/sync.c`): `RWF_HIPRI`
//! (polled completion) for `hipri_percentage` of the I/Os when `hipri` is
//! set, fio 3.33's `RWF_UNCACHED` for buffered I/O with `uncached`, and
//! `RWF_NOWAIT` with `nowait`. What the kernel makes of a flag (an error
//! for one it does not know) is what the job gets, as with fio.

use super::engine::{Caps, CommonOptions, IoEngine};
use super::files::{non_data, ret, Files};
use super::flags::{self, fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{EngineError, FileId, FileTarget, Io, IoMem, IoResult, Queued};
use crate::ddir::Ddir;
use crate::rand::FioRand;

/// fio 3.33's `RWF_UNCACHED` (`os/os-linux.h`): a flag of a proposed
/// kernel interface that never landed under that number (kernels from
/// 6.11 read it as `RWF_ATOMIC`). rfio passes what fio passes.
pub(crate) const RWF_UNCACHED: libc::c_int = 0x40;
/// `RWF_ATOMIC` (Linux 6.11): the write lands whole or not at all.
pub(crate) const RWF_ATOMIC: libc::c_int = 0x40;
/// `RWF_DONTCACHE` (Linux 6.14): buffered I/O that drops the page cache it
/// brought in once done (fio 3.40's `uncached`).
pub(crate) const RWF_DONTCACHE: libc::c_int = 0x80;

pub(crate) struct Pvsync2 {
    files: Files,
    /// `RWF_*` flags of every transfer (all but `RWF_HIPRI`).
    rwf: libc::c_int,
    /// Those a write adds (`RWF_ATOMIC`).
    write_rwf: libc::c_int,
    /// `hipri`: the percentage of transfers that get `RWF_HIPRI` (0: none).
    hipri_percentage: u32,
    /// fio's `sd->rand_state` (`init_rand(.., 0)`): one draw per read or
    /// write while `hipri` is set and its percentage below 100.
    rand: FioRand,
}

/// What `ioengine=pvsync2` is (fio's `engines/sync.c`).
pub(crate) const FLAGS: EngineFlags =
    EngineFlags::fio(fio::SYNCIO | fio::ATOMICWRITES).open_error_at(flags::GENERIC_OPEN);

/// What this engine can do.
pub(crate) const CAPS: Caps = Caps::SYNC_FILES;

/// pvsync2's own options (fio's `options[]` of `engines/sync.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pvsync2Options {
    /// `hipri`: `RWF_HIPRI` on the transfers.
    pub(crate) hipri: bool,
    /// `hipri_percentage` (0..=100, default 100): of the transfers with
    /// `hipri`.
    pub(crate) hipri_percentage: u32,
    /// `uncached` (an integer, non-zero: on): the flag it means in the
    /// job's release (fio 3.33's `RWF_UNCACHED`, none, `RWF_DONTCACHE`)
    /// unless the job is `direct`; 0: off.
    pub(crate) uncached: libc::c_int,
    /// `nowait`: `RWF_NOWAIT`.
    pub(crate) nowait: bool,
}

impl Default for Pvsync2Options {
    fn default() -> Self {
        Pvsync2Options {
            hipri: false,
            hipri_percentage: 100,
            uncached: 0,
            nowait: false,
        }
    }
}

/// The fio names of [`Pvsync2Options`].
pub(crate) const OPTIONS: &[&str] = &["hipri", "hipri_percentage", "uncached", "nowait"];

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<Pvsync2Options, Refusal> {
    Ok(Pvsync2Options {
        hipri: o.flag("hipri"),
        hipri_percentage: o.int("hipri_percentage").clamp(0, 100) as u32,
        uncached: if o.int("uncached") != 0 {
            o.job().uncached_rwf
        } else {
            0
        },
        nowait: o.flag("nowait"),
    })
}

pub(crate) fn new(
    common: &CommonOptions,
    opts: &Pvsync2Options,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    Ok(Box::new(Pvsync2::with(common, opts)))
}

impl Pvsync2 {
    fn with(common: &CommonOptions, opts: &Pvsync2Options) -> Pvsync2 {
        let mut rwf = 0;
        if !common.direct {
            rwf |= opts.uncached;
        }
        if opts.nowait {
            rwf |= libc::RWF_NOWAIT;
        }
        Pvsync2 {
            files: Files::default(),
            rwf,
            write_rwf: if common.atomic_writes { RWF_ATOMIC } else { 0 },
            hipri_percentage: if opts.hipri {
                opts.hipri_percentage.min(100)
            } else {
                0
            },
            rand: FioRand::new(1, false),
        }
    }

    /// The flags of the next read or write: fio draws
    /// `rand_between(1, 100)` for each while `hipri` is set.
    #[inline]
    fn flags(&mut self) -> libc::c_int {
        if self.hipri_percentage == 0 {
            return self.rwf;
        }
        if self.rand.between(1, 100) <= u64::from(self.hipri_percentage) {
            self.rwf | libc::RWF_HIPRI
        } else {
            self.rwf
        }
    }

    /// # Safety
    /// As [`IoEngine::queue`]: `io.buf` is valid for `io.len` bytes, and
    /// untouched by anyone else, until this returns.
    #[inline]
    unsafe fn xfer(&mut self, io: &Io) -> IoResult {
        if let Some(r) = non_data(&self.files, io.file, io.dir, io.offset, io.len) {
            return r;
        }
        let rwf = self.flags();
        let fd = self.files.fd(io.file);
        let iov = libc::iovec {
            iov_base: io.buf.cast(),
            iov_len: io.len,
        };
        let off = io.offset as libc::off_t;
        // SAFETY: `iov` describes `io.buf`, valid for `io.len` bytes until
        // this returns (this function's contract).
        ret(unsafe {
            match io.dir {
                Ddir::Read => libc::preadv2(fd, &iov, 1, off, rwf),
                _ => libc::pwritev2(fd, &iov, 1, off, rwf | self.write_rwf),
            }
        })
    }
}

super::files::sync_file_engine!(Pvsync2, "pvsync2");

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(opts: Pvsync2Options, direct: bool) -> Pvsync2 {
        let common = CommonOptions {
            direct,
            ..CommonOptions::default()
        };
        Pvsync2::with(&common, &opts)
    }

    #[test]
    fn flags_follow_the_options() {
        let o = Pvsync2Options::default();
        assert_eq!(engine(o, false).flags(), 0);
        let o = Pvsync2Options {
            hipri: true,
            ..Default::default()
        };
        assert_eq!(engine(o, false).flags(), libc::RWF_HIPRI);
        let o = Pvsync2Options {
            uncached: RWF_DONTCACHE,
            nowait: true,
            ..Default::default()
        };
        assert_eq!(engine(o, false).flags(), RWF_DONTCACHE | libc::RWF_NOWAIT);
        // No uncached flag for direct I/O (fio checks td->o.odirect).
        assert_eq!(engine(o, true).flags(), libc::RWF_NOWAIT);
    }

    #[test]
    fn atomic_writes_are_flagged_on_writes_only() {
        let common = CommonOptions {
            direct: true,
            atomic_writes: true,
            ..CommonOptions::default()
        };
        let e = Pvsync2::with(&common, &Pvsync2Options::default());
        assert_eq!((e.rwf, e.write_rwf), (0, RWF_ATOMIC));
        let e = engine(Pvsync2Options::default(), true);
        assert_eq!(e.write_rwf, 0);
    }

    #[test]
    fn hipri_percentage_draws_from_seed_one() {
        let o = Pvsync2Options {
            hipri: true,
            hipri_percentage: 30,
            ..Default::default()
        };
        let mut e = engine(o, false);
        let mut r = FioRand::new(1, false);
        let mut hits = 0;
        for _ in 0..1000 {
            let want = r.between(1, 100) <= 30;
            let got = e.flags() & libc::RWF_HIPRI != 0;
            assert_eq!(got, want);
            hits += u32::from(got);
        }
        assert!((250..350).contains(&hits), "{hits}");
        let o = Pvsync2Options {
            hipri: true,
            hipri_percentage: 0,
            ..Default::default()
        };
        assert_eq!(engine(o, false).flags(), 0);
    }
}
