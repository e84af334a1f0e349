//! Where each I/O goes: the file, and the offset in it (fio's `io_u.c`
//! `get_next_file`, `get_next_offset`, `get_next_block`,
//! `get_next_seq_offset`, `get_next_rand_offset`, with the random map
//! and the distributions of [`crate::rand`]).
//!
//! - Sequential (`rw=read|write|trim|rw|trimwrite`): each I/O starts where
//!   the file's previous I/O of that direction ended. `rw=read:N` adds N
//!   bytes after each I/O (a hole); a negative N walks backwards, wrapping
//!   at the ends as fio does.
//! - Random (`rw=rand*`): with `random_distribution=random` (the default)
//!   block `b = lastb * u` from the job's offset generator; the random map
//!   ([`Axmap`]) makes every block come up once per pass: a busy block is
//!   replaced by the next free block after it (wrapping to the first free
//!   one). `norandommap` drops the map; `random_generator=lfsr` uses an
//!   [`Lfsr`] instead, which needs no map.
//!   `rw=randread:N` draws a new random offset every N I/Os and continues
//!   sequentially (or, with `rw_sequencer=identical`, repeats the offset) in
//!   between. `percentage_random` mixes sequential I/O in.
//! - `zipf`, `pareto`, `normal` follow fio's generators (seeded from the
//!   hash of the file name, hashed block numbers) and use no random map;
//!   `zoned`/`zoned_abs` pick a zone with fio's `zone_state` and a block in
//!   it with the offset generator (fio turns the random map off for every
//!   distribution but `random`).
//! - [`FileSelector`] is `file_service_type`: which file serves the next I/O.
//!
//! [`IoGen`] puts the generators together in fio's order and is what the
//! I/O loop calls: one [`IoGen::next_io`] per I/O gives file, direction,
//! offset and length; with the same options it gives fio's sequence.
//!
//! The files: `region` (where a job's region of a file starts),
//! `cursor` (a file's position, map and distribution state), `generator`
//! (the offset of the next I/O: sequential there, random in
//! `generator/random`), `sprandom` (fio 3.41's SSD preconditioning
//! writes), `files` ([`FileSelector`]), `error`. The options
//! come resolved by the plan ([`crate::plan::resolve::offsets`]).
//!
//! [`Axmap`]: crate::rand::Axmap
//! [`Lfsr`]: crate::rand::Lfsr

pub(crate) mod cursor;
pub(crate) mod error;
mod files;
mod generator;
pub(crate) mod open_limit;
mod region;
pub(crate) mod seeds;
pub(crate) mod sprandom;

pub(crate) use cursor::FileCursor;
pub(crate) use error::SetupError;
pub(crate) use files::FileSelector;
pub(crate) use generator::OffsetGen;
pub use region::{start_offset, FileRegion};

use super::bs::BsGen;
use super::ddir::DirGen;
use super::rate::RateLimiter;
use super::zbd::{Region, ZbdJob};
use super::zones::StridedZones;
use crate::ddir::Ddir;
use crate::plan::spec::JobSpec;
use crate::rand::{Seeds, Slot};

/// One I/O to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Io {
    /// Index into the job's files.
    pub file: usize,
    pub dir: Ddir,
    /// Absolute offset in the file.
    pub offset: u64,
    pub len: u64,
    /// Whether it counts as random (for `bs_is_seq_rand` and logs).
    pub is_random: bool,
    /// Nanoseconds to wait before issuing it, from the rate limiter (0
    /// without one). fio completes what is in flight first.
    pub wait_ns: u64,
    /// The file started over before this I/O (a time-based job wrapping
    /// around): fio drops its page cache there (`invalidate`, buffered).
    pub wrapped: bool,
}

/// Everything that decides what the next I/O is, in fio's order
/// (`get_io_u` → `set_io_u_file` → `fill_io_u`).
///
/// Per I/O the loop calls [`IoGen::next_io`] and issues what it returns, after
/// waiting `wait_ns`; at the start of each further loop it calls
/// [`IoGen::reset`]. The job ends (for this loop) when `next_io` returns
/// `None`: every file ran out, as in fio.
#[derive(Debug, Clone)]
pub struct IoGen {
    pub dirs: DirGen,
    pub(crate) offsets: OffsetGen,
    pub(crate) bs: BsGen,
    pub(crate) files: Vec<FileCursor>,
    pub(crate) select: FileSelector,
    /// `zonemode=strided`: the zone state of the job.
    pub(crate) zones: Option<StridedZones>,
    /// `zonemode=zbd`: the job's zones (set by the job's set-up).
    pub(crate) zbd: Option<ZbdJob>,
    seeds: Seeds,
    /// `write_iolog`: the files that ran out (fio closes them then), for
    /// the loop to log; `None` when nobody logs.
    pub(crate) closed: Option<Vec<usize>>,
}

impl IoGen {
    /// The generators of `spec` over `files`: each file's region and the
    /// name fio gives it (`jobname.N.M`, with its directory if any).
    /// `seeds` is the job's seed table ([`JobSpec::seeds`]), shared with
    /// the rate limiter and the buffer filler as fio shares it.
    pub fn new(
        spec: &JobSpec,
        seeds: &Seeds,
        files: &[(FileRegion, &str)],
    ) -> Result<IoGen, SetupError> {
        let seeds = seeds.clone();
        if spec.offsets.sprandom.is_some() && files.len() != 1 {
            return Err(sprandom::SprandomError::Files.into());
        }
        let zones = StridedZones::of(spec)?;
        let mut offsets = OffsetGen::new(spec, &seeds, zones.as_ref().map(|z| z.range));
        // fio's o->size: the files' total, if less or unset.
        let total: u64 = files.iter().map(|(r, _)| r.io_size).sum();
        let size = spec
            .size
            .filter(|&s| total == 0 || s <= total)
            .unwrap_or(total);
        offsets.mixed_wrap = spec.offsets.mixed_wraps
            && spec.pattern.read
            && spec.pattern.write
            && spec.io_size.is_some_and(|i| i > size);
        let cursors = files
            .iter()
            .map(|(r, name)| offsets.file(*r, name))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(IoGen {
            dirs: DirGen::new(spec, &seeds),
            bs: BsGen::new(spec, &seeds),
            select: FileSelector::new(spec, &seeds, files.len())?,
            zones,
            zbd: None,
            offsets,
            files: cursors,
            seeds,
            closed: None,
        })
    }

    /// `sprandom`: the bytes the job writes (the file's physical size,
    /// which fio makes the job's `io_size`).
    pub(crate) fn sprandom_io_size(&self) -> Option<u64> {
        self.offsets.sprandom_io_size
    }

    /// `sprandom` wrote its last block: the job is done (fio's
    /// `td->done`), whatever passes or time it has left.
    pub(crate) fn finished(&self) -> bool {
        self.files.iter().any(FileCursor::sprandom_done)
    }

    /// The seeds everything was drawn from.
    pub fn seeds(&self) -> &Seeds {
        &self.seeds
    }

    /// Start a new loop (fio's `clear_io_state`): files back to their
    /// start and every file available, generators re-seeded with
    /// `randrepeat`.
    pub(crate) fn reset(&mut self) {
        self.dirs.reset(&self.seeds);
        self.bs.reset(&self.seeds);
        self.offsets.reset(&mut self.files);
        self.select.reset();
        if let Some(z) = &mut self.zones {
            z.reset();
        }
    }

    /// The next I/O; `None` when every file is done. With a rate limiter,
    /// `now_ns` (since the job's I/O started) decides the wait, and the
    /// I/O is counted as issued for the rate. Allocation free.
    #[inline]
    pub fn next_io(&mut self, mut rate: Option<&mut RateLimiter>, now_ns: u64) -> Option<Io> {
        // Files that fail in a row; bounded so a file that can never hold
        // an I/O (reset forever by a non-uniform service) ends the job.
        let mut failures = 0usize;
        loop {
            if self.zbd.as_ref().is_some_and(ZbdJob::failed) {
                return None;
            }
            let file = self.select.next_file()?;
            if let Some(io) = self.fill(file, rate.as_deref_mut(), now_ns) {
                if let Some(l) = self.select.limit.as_mut() {
                    l.get(file);
                }
                self.dirs.issued(io.dir);
                if let Some(r) = rate {
                    r.issued(io.dir, io.len);
                }
                return Some(io);
            }
            if let Some(c) = self.closed.as_mut() {
                c.push(file);
            }
            if self.select.nonuniform() {
                self.files[file].reset(self.seeds.get(Slot::Block));
                // fio closes the file it resets (it opens again when
                // picked): with `openfiles`, that frees its place.
                if let Some(l) = self.select.limit.as_mut() {
                    l.close(file);
                }
                failures += 1;
                if failures > 2 * self.files.len() {
                    return None;
                }
            } else {
                self.select.mark_done(file);
            }
        }
    }

    /// fio's `fill_io_u` for file `fi`.
    #[inline]
    fn fill(&mut self, fi: usize, rate: Option<&mut RateLimiter>, now_ns: u64) -> Option<Io> {
        let mut dir = self.dirs.next_dir();
        let mut wait_ns = 0;
        if let Some(r) = rate {
            let (d, w) = r.next_dir(dir, now_ns, &self.dirs);
            self.dirs.set_current(d);
            dir = d;
            wait_ns = w;
        }
        let f = &mut self.files[fi];
        if let Some(z) = &self.zbd {
            let wrote = f.last_start(Ddir::Write) != u64::MAX;
            dir = z.adjust_dir(fi, dir, wrote, self.dirs.mix_share(Ddir::Write));
        }
        dir = self
            .dirs
            .for_file(dir, f.last_start(Ddir::Write), f.last_start(Ddir::Trim));
        if let Some(z) = &mut self.zones {
            z.before_io(f, dir, self.seeds.get(Slot::Block));
        }
        if let Some(z) = &mut self.zbd {
            z.before_offset(fi, f, dir);
        }
        if f.sprandom_done() {
            return None;
        }
        let next = self.offsets.next_offset(f, dir)?;
        let len = match next.len {
            Some(l) => l,
            None => self
                .bs
                .next_len(dir, next.is_random, next.offset, f.region.end()),
        };
        let (offset, len) = match &mut self.zbd {
            // zonemode=zbd moves the I/O onto the zones (the random map
            // still marks the offset drawn, as fio's).
            Some(z) => {
                let offsets = &mut self.offsets;
                let placed =
                    z.adjust_block(fi, Region::of(f), dir, (next.offset, len), |o, l| {
                        if l == 0 || o + l > f.region.real_file_size {
                            return None;
                        }
                        let l = offsets.commit(f, dir, &next, l);
                        f.moved(dir, o, l);
                        Some(l)
                    })?;
                z.issued(placed.1);
                placed
            }
            None => {
                if len == 0 || next.offset + len > f.region.real_file_size {
                    return None;
                }
                (next.offset, self.offsets.commit(f, dir, &next, len))
            }
        };
        if let Some(z) = &mut self.zones {
            z.done(len);
        }
        Some(Io {
            file: fi,
            dir,
            offset,
            len,
            is_random: next.is_random,
            wait_ns,
            wrapped: std::mem::take(&mut f.wrapped),
        })
    }
}
