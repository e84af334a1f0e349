//! Where each I/O goes: the file, and the offset in it (fio's `io_u.c`
//! `get_next_file`, `get_next_offset`, `get_next_block`,
//! `get_next_seq_offset`, `get_next_rand_offset`, the random map of
//! `lib/axmap.c` and the distributions of `lib/zipf.c`, `lib/gauss.c`).
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

use super::bs::BsGen;
use super::ddir::DirGen;
use super::rate::RateLimiter;
use super::zones::StridedZones;
use crate::plan::resolve::offsets::{Distribution, FileService, Share};
use crate::plan::spec::{Dir, JobSpec};
use crate::rand::{jhash, Axmap, FioRand, Gauss, Generator, Lfsr, Seeds, Slot, Zipf};

/// Why the I/O pattern of a job cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// fio's LFSR cannot cover this many blocks.
    #[error("fio: failed initializing LFSR")]
    Lfsr,
    /// A value the generators cannot use.
    #[error("fio: {0}")]
    Invalid(String),
}

/// The notes fio prints while setting up the I/O pattern of `spec`
/// (`log_info`, on stdout, once per job, before the job's `(g=N)` line),
/// in fio's wording.
pub fn setup_notes(spec: &JobSpec) -> Vec<&'static str> {
    let mut notes = Vec::new();
    if spec.pattern.random && spec.offsets.blockalign.is_some() && !spec.norandommap {
        notes.push("fio: Any use of blockalign= turns off randommap");
    }
    notes
}

/// The byte range of one file a job works on (fio's `fio_file` fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileRegion {
    /// Absolute start of the I/O region (fio's `file_offset`, normally
    /// [`start_offset`]).
    pub file_offset: u64,
    /// Bytes of the region (fio's `io_size`).
    pub io_size: u64,
    /// Size of the whole file (fio's `real_file_size`); for a file rfio
    /// creates, `file_offset + io_size`.
    pub real_file_size: u64,
}

impl FileRegion {
    /// A region of `io_size` bytes starting at `file_offset` in a file
    /// that ends with it.
    pub fn new(file_offset: u64, io_size: u64) -> FileRegion {
        FileRegion {
            file_offset,
            io_size,
            real_file_size: file_offset + io_size,
        }
    }

    /// Absolute end of the I/O region (fio's `io_size + get_start_offset`).
    pub fn end(&self) -> u64 {
        self.file_offset + self.io_size
    }
}

/// fio's `get_start_offset`: where job `spec` starts in a file of
/// `real_file_size` bytes: `offset` (bytes or a percentage of the file)
/// plus `subjob * offset_increment` (bytes or a percentage); percentages
/// are rounded up to `offset_align` or, without it, the smallest block
/// size.
pub fn start_offset(spec: &JobSpec, real_file_size: u64) -> u64 {
    let o = &spec.offsets;
    let mut align = false;
    let mut bytes = |share: Share| match share {
        Share::Percent(p) => {
            align = true;
            percent_of(p, real_file_size)
        }
        Share::Bytes(b) => b,
    };
    let sub = u64::from(spec.subjob).wrapping_mul(bytes(o.offset_increment));
    let mut offset = bytes(o.offset) + sub;
    if align {
        let align_bs = match o.offset_align {
            Some(b) => b,
            None => spec.bs.iter().map(|b| b.0).min().unwrap_or(4096).max(1),
        };
        offset = offset.div_ceil(align_bs) * align_bs;
    }
    offset
}

/// `p`% of `n` in fio's integer arithmetic (`n * p / 100`).
fn percent_of(p: f64, n: u64) -> u64 {
    if p.fract() == 0.0 {
        (u128::from(n) * p as u128 / 100) as u64
    } else {
        (n as f64 * p / 100.0) as u64
    }
}

/// One of the 100 entries fio's `zone_state_index` has per direction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ZoneIndex {
    size_perc: u64,
    size_perc_prev: u64,
    size: u64,
    size_prev: u64,
}

/// `random_distribution` as the offset generator uses it.
#[derive(Debug, Clone)]
enum DistKind {
    Random,
    Zipf {
        theta: f64,
        center: f64,
    },
    Pareto {
        h: f64,
        center: f64,
    },
    Normal {
        dev: f64,
        center: f64,
    },
    Zoned {
        absolute: bool,
        index: Vec<ZoneIndex>,
    },
}

/// A file's own distribution generator.
#[derive(Debug, Clone)]
enum FileDist {
    None,
    Zipf(Zipf),
    Gauss(Gauss),
}

/// The offset state of one file (fio's `fio_file`: `last_pos`,
/// `last_start`, random map or LFSR, distribution).
#[derive(Debug, Clone)]
pub struct FileCursor {
    pub region: FileRegion,
    /// fio's `f->file_offset`: where the region starts now. It is
    /// `region.file_offset` (fio's `get_start_offset`) except while strided
    /// zones move it ([`super::zones`]).
    file_offset: u64,
    last_pos: [u64; 3],
    last_start: [u64; 3],
    map: Option<Axmap>,
    lfsr: Option<Lfsr>,
    dist: FileDist,
    /// The file just started over inside a pass (fio's
    /// `loop_cache_invalidate` points): its page cache is to be dropped.
    wrapped: bool,
}

impl FileCursor {
    /// Where the last I/O of `dir` on this file started (`u64::MAX`
    /// before the first).
    pub fn last_start(&self, dir: Dir) -> u64 {
        self.last_start[dir as usize]
    }

    /// Where the last I/O of `dir` on this file ended.
    pub fn last_pos(&self, dir: Dir) -> u64 {
        self.last_pos[dir as usize]
    }

    /// The random map, when the file has one.
    pub fn map(&self) -> Option<&Axmap> {
        self.map.as_ref()
    }

    /// Where the region starts now (fio's `f->file_offset`): the start
    /// offset, or the current zone's start with strided zones.
    pub fn file_offset(&self) -> u64 {
        self.file_offset
    }

    /// Move the region's start (a strided zone switch).
    pub(super) fn set_file_offset(&mut self, offset: u64) {
        self.file_offset = offset;
    }

    /// Set where the last I/O of `dir` ended (a strided zone switch).
    pub(super) fn set_last_pos(&mut self, dir: Dir, pos: u64) {
        self.last_pos[dir as usize] = pos;
    }

    /// fio's `fio_file_reset`: positions back to the region's start,
    /// random map cleared, LFSR re-seeded with `block_seed`.
    pub fn reset(&mut self, block_seed: u64) {
        self.last_pos = [self.file_offset; 3];
        self.last_start = [u64::MAX; 3];
        if let Some(m) = &mut self.map {
            m.reset();
        } else if let Some(l) = &mut self.lfsr {
            l.reset(block_seed);
        }
    }
}

/// What the offset generator decided for one I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextOffset {
    /// Absolute offset in the file.
    pub offset: u64,
    /// Whether this I/O counts as random (`bs_is_seq_rand` reads it).
    pub is_random: bool,
    /// Whether the random map must not be marked (fio's `IO_U_F_BUSY_OK`).
    pub busy_ok: bool,
    /// The length fio imposes (a `randtrimwrite` write repeats its trim).
    pub len: Option<u64>,
}

/// The offset generator of one job.
#[derive(Debug, Clone)]
pub struct OffsetGen {
    random: bool,
    generator: Generator,
    dist: DistKind,
    /// fio's `random_state` (offsets), seeded from [`Slot::Block`].
    random_state: FioRand,
    /// fio's `seq_rand_state[dir]` (`percentage_random`).
    seq_rand: [FioRand; 3],
    /// fio's `zone_state` (zoned distributions).
    zone_state: FioRand,
    perc_rand: [u32; 3],
    /// `rw=randread:N`: N (1 when not given).
    seq_nr: u32,
    seq_nr_left: u32,
    /// `rw=read:N`: N bytes after each I/O (negative: backwards).
    seq_add: i64,
    /// `rw_sequencer=identical`.
    identical: bool,
    ba: [u64; 3],
    min_bs: [u64; 3],
    rw_min_bs: u64,
    time_based: bool,
    nr_files: usize,
    nonuniform_files: bool,
    randtrimwrite: bool,
    norandommap: bool,
    /// `zonerange` with strided zones: random blocks are drawn in it.
    zone_range: Option<u64>,
    seeds: Seeds,
}

impl OffsetGen {
    /// The offset generator of `spec`; `zone_range` is the size of a
    /// strided zone (`zonerange`), random blocks are drawn in it.
    pub fn new(spec: &JobSpec, seeds: &Seeds, zone_range: Option<u64>) -> OffsetGen {
        let p = spec.pattern;
        let o = &spec.offsets;
        let min_bs: [u64; 3] = std::array::from_fn(|d| spec.bs[d].0.max(1));
        let ba = std::array::from_fn(|d| o.blockalign.and_then(|ba| ba[d]).unwrap_or(min_bs[d]));
        let generator = seeds.generator;
        OffsetGen {
            random: p.random,
            generator,
            dist: dist_kind(&o.distribution),
            random_state: seeds.rand_job(Slot::Block),
            seq_rand: seq_rand_states(seeds),
            zone_state: seeds.rand(Slot::Zone, false),
            perc_rand: o.percentage_random,
            seq_nr: o.seq_nr,
            seq_nr_left: 1,
            seq_add: o.seq_add,
            identical: o.identical,
            ba,
            min_bs,
            rw_min_bs: min_bs.iter().copied().min().unwrap_or(4096),
            time_based: spec.time_based,
            nr_files: spec.files.len().max(1),
            nonuniform_files: o.file_service.as_ref().is_ok_and(|s| s.nonuniform()),
            randtrimwrite: p.random && p.write && p.trim,
            // fio: "Any use of blockalign= turns off randommap".
            norandommap: spec.norandommap || o.blockalign.is_some(),
            zone_range,
            seeds: seeds.clone(),
        }
    }

    /// The offset state of a file with `region`, named `name` as fio names
    /// it (the zipf/pareto/normal seed hashes it). Allocates its random map.
    pub fn file(&mut self, region: FileRegion, name: &str) -> Result<FileCursor, SetupError> {
        let fsize = region.real_file_size.min(region.io_size);
        let mut cursor = FileCursor {
            region,
            file_offset: region.file_offset,
            last_pos: [region.file_offset; 3],
            last_start: [u64::MAX; 3],
            map: None,
            lfsr: None,
            dist: FileDist::None,
            wrapped: false,
        };
        if !self.random {
            return Ok(cursor);
        }
        // init_rand_distribution: zipf, pareto, normal have no random map.
        let range = self.min_bs[0].min(self.min_bs[1]).max(1);
        let nranges = fsize.div_ceil(range);
        if nranges == 0 {
            return Ok(cursor);
        }
        let mut seed = jhash(name.as_bytes(), 0).wrapping_mul(self.seeds.thread_number);
        if !self.seeds.repeatable {
            seed = self.seeds.get(Slot::Mix) as u32;
        }
        match self.dist {
            DistKind::Zipf { theta, center } => {
                cursor.dist = FileDist::Zipf(Zipf::new(nranges, theta, center, seed));
                return Ok(cursor);
            }
            DistKind::Pareto { h, center } => {
                cursor.dist = FileDist::Zipf(Zipf::pareto(nranges, h, center, seed));
                return Ok(cursor);
            }
            DistKind::Normal { dev, center } => {
                cursor.dist = FileDist::Gauss(Gauss::new(nranges, dev, center, seed));
                return Ok(cursor);
            }
            DistKind::Random | DistKind::Zoned { .. } => {}
        }
        // init_random_map: with strided zones the map covers one zone.
        let blocks = self.zone_range.unwrap_or(fsize) / self.rw_min_bs;
        if blocks > u64::from(u32::MAX) && self.generator == Generator::Tausworthe {
            // check_rand_gen_limits: fio switches to tausworthe64.
            self.generator = Generator::Tausworthe64;
            self.random_state = FioRand::new(self.seeds.get(Slot::Block), true);
        }
        if self.generator == Generator::Lfsr {
            cursor.lfsr =
                Some(Lfsr::new(blocks, self.seeds.get(Slot::Block)).ok_or(SetupError::Lfsr)?);
        } else if !self.norandommap && matches!(self.dist, DistKind::Random) {
            // fio sets norandommap for any distribution but `random`.
            cursor.map = Some(Axmap::try_new(blocks).ok_or_else(|| {
                SetupError::Invalid(
                    "failed allocating random map. If running a large number of jobs, \
                     try the 'norandommap' option or set 'softrandommap'. Or give a \
                     larger --alloc-size to fio."
                        .into(),
                )
            })?);
        }
        Ok(cursor)
    }

    /// Start a new loop: re-seed (with `randrepeat`) and reset `files`.
    pub fn reset(&mut self, files: &mut [FileCursor]) {
        if self.seeds.repeatable {
            self.random_state = FioRand::new(self.seeds.get(Slot::Block), self.generator.use64());
            self.seq_rand = seq_rand_states(&self.seeds);
            self.zone_state = self.seeds.rand(Slot::Zone, false);
        }
        self.seq_nr_left = 1;
        let seed = self.seeds.get(Slot::Block);
        for f in files {
            // clear_io_state: back to the start offset (zones moved it).
            f.file_offset = f.region.file_offset;
            f.reset(seed);
        }
    }

    /// Whether the job's files keep a random map (fio's `file_randommap`).
    pub fn uses_map(&self) -> bool {
        self.random
            && !self.norandommap
            && self.generator != Generator::Lfsr
            && matches!(self.dist, DistKind::Random)
    }

    /// The offset of the next I/O of `dir` on `f` (fio's
    /// `get_next_offset`); `None` when the file has no more I/O for this
    /// pass (fio then marks it done). Allocation free.
    #[inline]
    pub fn next_offset(&mut self, f: &mut FileCursor, dir: Dir) -> Option<NextOffset> {
        let mut hit = false;
        self.seq_nr_left -= 1;
        if self.seq_nr_left == 0 {
            hit = true;
            self.seq_nr_left = self.seq_nr;
        }
        let mut next = self.next_block(f, dir, hit)?;
        if next.offset >= f.region.io_size {
            return None;
        }
        next.offset += f.file_offset;
        if next.offset >= f.region.real_file_size {
            return None;
        }
        if self.randtrimwrite && dir == Dir::Trim && f.last_start[Dir::Trim as usize] == next.offset
        {
            let w = &mut f.last_start[Dir::Write as usize];
            *w = w.wrapping_sub(1);
        }
        Some(next)
    }

    /// fio's `get_next_block`; the offset returned is relative.
    fn next_block(&mut self, f: &mut FileCursor, dir: Dir, hit: bool) -> Option<NextOffset> {
        let d = dir as usize;
        let mut out = NextOffset {
            offset: 0,
            is_random: false,
            busy_ok: false,
            len: None,
        };
        let mut block = None;
        if self.randtrimwrite && dir == Dir::Write {
            let t = Dir::Trim as usize;
            out.busy_ok = true;
            out.is_random = true;
            out.offset = f.last_start[t].wrapping_sub(f.file_offset);
            out.len = Some(f.last_pos[t].wrapping_sub(f.last_start[t]));
            return Some(out);
        } else if hit {
            if self.random {
                if self.should_do_random(dir) {
                    block = Some(self.rand_block(f, dir)?);
                    out.is_random = true;
                } else {
                    out.busy_ok = true;
                    match self.seq_offset(f, dir) {
                        Some(o) => out.offset = o,
                        None => block = Some(self.rand_block(f, dir)?),
                    }
                }
            } else {
                out.offset = self.seq_offset(f, dir)?;
            }
        } else {
            out.busy_ok = true;
            if !self.identical {
                match self.seq_offset(f, dir) {
                    Some(o) => out.offset = o,
                    None => block = Some(self.rand_block(f, dir)?),
                }
            } else if f.last_start[d] != u64::MAX {
                out.offset = f.last_start[d] - f.file_offset;
            }
        }
        if let Some(b) = block {
            out.offset = b.wrapping_mul(self.ba[d]);
        }
        Some(out)
    }

    /// fio's `should_do_random`.
    #[inline]
    fn should_do_random(&mut self, dir: Dir) -> bool {
        let perc = self.perc_rand[dir as usize];
        if perc == 100 {
            return true;
        }
        self.seq_rand[dir as usize].between(1, 100) <= u64::from(perc)
    }

    /// fio's `get_next_rand_block`: a random block, resetting the file once
    /// when its map is exhausted in a time-based job (or with a non-uniform
    /// `file_service_type`).
    fn rand_block(&mut self, f: &mut FileCursor, dir: Dir) -> Option<u64> {
        if let Some(b) = self.rand_offset(f, dir) {
            return Some(b);
        }
        if self.time_based || self.nonuniform_files {
            f.reset(self.seeds.get(Slot::Block));
            f.wrapped = true;
            return self.rand_offset(f, dir);
        }
        None
    }

    /// fio's `last_block`.
    fn last_block(&self, f: &FileCursor, dir: Dir) -> u64 {
        let d = dir as usize;
        let mut max_size = f.region.io_size.min(f.region.real_file_size);
        if let Some(range) = self.zone_range {
            max_size = range;
        }
        if self.min_bs[d] > self.ba[d] {
            max_size = max_size.saturating_sub(self.min_bs[d] - self.ba[d]);
        }
        max_size / self.ba[d]
    }

    /// fio's `get_next_rand_offset`: a block number by the distribution.
    fn rand_offset(&mut self, f: &mut FileCursor, dir: Dir) -> Option<u64> {
        match &mut f.dist {
            FileDist::Zipf(z) => return Some(z.next_value()),
            FileDist::Gauss(g) => return Some(g.next_value()),
            FileDist::None => {}
        }
        let lastb = self.last_block(f, dir);
        if lastb == 0 {
            return None;
        }
        let DistKind::Zoned { absolute, index } = &self.dist else {
            return self.uniform_block(f, lastb);
        };
        let v = self.zone_state.between(1, 100) as usize;
        let z = index[v - 1];
        if *absolute {
            let ba = self.ba[dir as usize];
            let (stotal, send) = (z.size_prev / ba, z.size / ba);
            if send > lastb {
                return None;
            }
            let b = self.uniform_block(f, send - stotal)?;
            Some(b + stotal)
        } else {
            let offset = if z.size_perc_prev != 0 {
                z.size_perc_prev * lastb / 100
            } else {
                0
            };
            let range = lastb * (z.size_perc - z.size_perc_prev) / 100;
            let b = self.uniform_block(f, range)?;
            Some(b + offset)
        }
    }

    /// fio's `__get_next_rand_offset`: `lastb * u`, or the LFSR, then the
    /// random map.
    #[inline]
    fn uniform_block(&mut self, f: &mut FileCursor, lastb: u64) -> Option<u64> {
        let b = match &mut f.lfsr {
            Some(l) => l.next_value()?,
            None => (lastb as f64 * self.random_state.frac()) as u64,
        };
        let Some(map) = &f.map else {
            return Some(b);
        };
        if !map.is_set(b) {
            return Some(b);
        }
        map.next_free(b)
    }

    /// fio's `get_next_seq_offset`: the relative offset after the last I/O
    /// of `dir`, with `rw=…:N` holes; `None` at the end of the file.
    fn seq_offset(&mut self, f: &mut FileCursor, dir: Dir) -> Option<u64> {
        let d = dir as usize;
        let r = f.region;
        let fo = f.file_offset;
        // fio compares with the start offset, not the (zone) file offset.
        if f.last_pos[d] >= r.end() && self.time_based && self.nr_files == 1 {
            f.last_pos[d] = fo;
            f.wrapped = true;
        }
        if f.last_pos[d] >= r.real_file_size {
            return None;
        }
        let add = self.seq_add;
        let end = if r.real_file_size > r.io_size {
            r.io_size
        } else {
            r.real_file_size
        };
        if f.last_pos[d] == fo && fo != 0 && add < 0 {
            f.last_pos[d] = end;
        }
        let mut pos = f.last_pos[d].wrapping_sub(fo);
        if pos != 0 && add != 0 {
            pos = pos.wrapping_add(add as u64);
            if pos >= r.real_file_size {
                pos = if add > 0 {
                    fo
                } else {
                    end.wrapping_add(add as u64)
                };
            }
        }
        Some(pos)
    }

    /// Record an I/O of `len` bytes at absolute `offset` on `f`: mark the
    /// random map (which may shorten `len` to the free blocks, as fio's
    /// `mark_random_map`) and remember where it started and ended. Returns
    /// the length to issue.
    #[inline]
    pub fn commit(&mut self, f: &mut FileCursor, dir: Dir, next: &NextOffset, len: u64) -> u64 {
        let d = dir as usize;
        let mut len = len;
        if let (true, false, Some(map)) = (self.random, next.busy_ok, &mut f.map) {
            let min_bs = self.min_bs[d];
            let block = (next.offset - f.file_offset) / min_bs;
            let nr = len.div_ceil(min_bs);
            let set = map.set_nr(block, nr);
            if set > 0 && set * min_bs < len {
                len = set * min_bs;
            }
        }
        f.last_start[d] = next.offset;
        f.last_pos[d] = next.offset + len;
        len
    }
}

/// fio's `seq_rand_state[]`: every direction seeded from the read slot
/// (fio 3.33 `td_fill_rand_seeds`), 32-bit.
fn seq_rand_states(seeds: &Seeds) -> [FioRand; 3] {
    let r = seeds.rand(Slot::SeqRandRead, false);
    [r, r, r]
}

/// `random_distribution` as the generator uses it (fio's
/// `__td_zone_gen_index` for the zoned ones).
fn dist_kind(d: &Distribution) -> DistKind {
    // fio's center -1: a random offset.
    let c = |c: Option<f64>| c.unwrap_or(-1.0);
    match d {
        Distribution::Random => DistKind::Random,
        Distribution::Zipf { theta, center } => DistKind::Zipf {
            theta: *theta,
            center: c(*center),
        },
        Distribution::Pareto { h, center } => DistKind::Pareto {
            h: *h,
            center: c(*center),
        },
        Distribution::Normal { dev, center } => DistKind::Normal {
            dev: *dev,
            center: c(*center),
        },
        Distribution::Zoned { absolute, zones } => {
            // __td_zone_gen_index: 100 slots, each pointing at its zone.
            let mut index = vec![ZoneIndex::default(); 100];
            let (mut aprev, mut sprev, mut sprev_sz) = (0usize, 0u64, 0u64);
            for z in zones {
                let (perc, size) = if *absolute { (0, z.size) } else { (z.size, 0) };
                for slot in index.iter_mut().skip(aprev).take(z.io_pct as usize) {
                    *slot = ZoneIndex {
                        size_perc: sprev + perc,
                        size_perc_prev: sprev,
                        size: sprev_sz + size,
                        size_prev: sprev_sz,
                    };
                }
                aprev += z.io_pct as usize;
                sprev += perc;
                sprev_sz += size;
            }
            DistKind::Zoned {
                absolute: *absolute,
                index,
            }
        }
    }
}

/// `file_service_type`: how the next file is chosen.
#[derive(Debug, Clone)]
enum Service {
    RoundRobin,
    Sequential,
    Random(FioRand),
    Zipf(Zipf),
    Gauss(Gauss),
}

/// fio's `FIO_FSERVICE_SHIFT`: non-uniform file choices draw from
/// `nr_files << 10` values.
const FSERVICE_SHIFT: u32 = 10;

/// Which file serves the next I/O (fio's `__get_next_file`).
///
/// `roundrobin` (default) switches file every `N` I/Os
/// (`roundrobin:N`, 1 by default), `sequential` stays on a file until it is
/// done, `random[:N]` picks uniformly with fio's `next_file_state`, and
/// `zipf`/`pareto`/`normal[:value]` pick with fio's generators (seeded from
/// the file slot, unhashed).
#[derive(Debug, Clone)]
pub struct FileSelector {
    service: Service,
    nr: usize,
    next_file: usize,
    done: Vec<bool>,
    nr_done: usize,
    current: Option<usize>,
    service_nr: u32,
    left: u32,
    seeds: Seeds,
    /// The generator as set up, for a new loop with `randrepeat` (fio's
    /// `td_fill_rand_seeds` seeds `next_file_state` again and sets up the
    /// zipf, pareto and normal choices afresh).
    initial: Service,
}

impl FileSelector {
    /// The file choice of `spec` over `nr_files` files, drawing from the
    /// job's `seeds`. fio's refusal of the `file_service_type` value comes
    /// out here, in fio's words.
    pub fn new(spec: &JobSpec, seeds: &Seeds, nr_files: usize) -> Result<FileSelector, SetupError> {
        let service = spec
            .offsets
            .file_service
            .as_ref()
            .map_err(|refusal| SetupError::Invalid(refusal.0.clone()))?;
        let nr = nr_files.max(1);
        let nranges = (nr as u64) << FSERVICE_SHIFT;
        let seed = seeds.get(Slot::File) as u32;
        let c = |c: Option<f64>| c.unwrap_or(-1.0);
        let (service, service_nr) = match *service {
            FileService::RoundRobin { nr } => (Service::RoundRobin, nr),
            FileService::Sequential { nr } => (Service::Sequential, nr),
            FileService::Random { nr } => (Service::Random(seeds.rand_job(Slot::File)), nr),
            FileService::Zipf { theta, center } => (
                Service::Zipf(Zipf::new(nranges, theta, c(center), seed).disable_hash()),
                1,
            ),
            FileService::Pareto { h, center } => (
                Service::Zipf(Zipf::pareto(nranges, h, c(center), seed).disable_hash()),
                1,
            ),
            FileService::Normal { dev, center } => (
                Service::Gauss(Gauss::new(nranges, dev, c(center), seed).disable_hash()),
                1,
            ),
        };
        Ok(FileSelector {
            initial: service.clone(),
            service,
            nr,
            next_file: 0,
            done: vec![false; nr],
            nr_done: 0,
            current: None,
            service_nr: service_nr.max(1),
            left: 0,
            seeds: seeds.clone(),
        })
    }

    /// Whether files are reset instead of finished when they run out
    /// (fio's `__FIO_FSERVICE_NONUNIFORM`: zipf, pareto, normal).
    pub fn nonuniform(&self) -> bool {
        matches!(self.service, Service::Zipf(_) | Service::Gauss(_))
    }

    /// The file for the next I/O; `None` when every file is done.
    #[inline]
    pub fn next_file(&mut self) -> Option<usize> {
        if self.nr_done >= self.nr {
            return None;
        }
        if let Some(f) = self.current.filter(|&f| !self.done[f]) {
            if matches!(self.service, Service::Sequential) {
                return Some(f);
            }
            if self.left > 0 {
                self.left -= 1;
                return Some(f);
            }
        }
        let f = match self.service {
            Service::RoundRobin | Service::Sequential => self.next_rr()?,
            _ => loop {
                let f = self.next_rand();
                if !self.done[f] {
                    break f;
                }
            },
        };
        self.current = Some(f);
        self.left = self.service_nr - 1;
        Some(f)
    }

    fn next_rr(&mut self) -> Option<usize> {
        let old = self.next_file;
        loop {
            let f = self.next_file;
            self.next_file = (self.next_file + 1) % self.nr;
            if !self.done[f] {
                return Some(f);
            }
            if self.next_file == old {
                return None;
            }
        }
    }

    fn next_rand(&mut self) -> usize {
        let n = match &mut self.service {
            Service::Random(r) => return (self.nr as f64 * r.frac()) as usize,
            Service::Zipf(z) => z.next_value(),
            Service::Gauss(g) => g.next_value(),
            _ => 0,
        };
        ((n >> FSERVICE_SHIFT) as usize).min(self.nr - 1)
    }

    /// Mark file `f` done for this pass.
    pub fn mark_done(&mut self, f: usize) {
        if !self.done[f] {
            self.done[f] = true;
            self.nr_done += 1;
        }
    }

    /// Start a new loop: every file available again, generators re-seeded
    /// with `randrepeat`.
    pub fn reset(&mut self) {
        self.done.iter_mut().for_each(|d| *d = false);
        self.nr_done = 0;
        self.current = None;
        if self.seeds.repeatable {
            self.service = self.initial.clone();
        }
    }
}

/// One I/O to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Io {
    /// Index into the job's files.
    pub file: usize,
    pub dir: Dir,
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
    pub offsets: OffsetGen,
    pub bs: BsGen,
    pub files: Vec<FileCursor>,
    pub select: FileSelector,
    /// `zonemode=strided`: the zone state of the job.
    pub zones: Option<StridedZones>,
    seeds: Seeds,
}

impl IoGen {
    /// The generators of `spec` over `files`: each file's region and the
    /// name fio gives it (`jobname.N.M`, with its directory if any).
    /// `seeds` is the job's seed table ([`Seeds::for_job`]), shared with
    /// the rate limiter and the buffer filler as fio shares it.
    pub fn new(
        spec: &JobSpec,
        seeds: &Seeds,
        files: &[(FileRegion, &str)],
    ) -> Result<IoGen, SetupError> {
        let seeds = seeds.clone();
        let zones = StridedZones::of(spec)?;
        let mut offsets = OffsetGen::new(spec, &seeds, zones.as_ref().map(|z| z.range));
        let cursors = files
            .iter()
            .map(|(r, name)| offsets.file(*r, name))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(IoGen {
            dirs: DirGen::new(spec, &seeds),
            bs: BsGen::new(spec, &seeds),
            select: FileSelector::new(spec, &seeds, files.len())?,
            zones,
            offsets,
            files: cursors,
            seeds,
        })
    }

    /// The seeds everything was drawn from.
    pub fn seeds(&self) -> &Seeds {
        &self.seeds
    }

    /// Start a new loop (fio's `clear_io_state`): files back to their
    /// start and every file available, generators re-seeded with
    /// `randrepeat`.
    pub fn reset(&mut self) {
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
            let file = self.select.next_file()?;
            if let Some(io) = self.fill(file, rate.as_deref_mut(), now_ns) {
                self.dirs.issued(io.dir);
                if let Some(r) = rate {
                    r.issued(io.dir, io.len);
                }
                return Some(io);
            }
            if self.select.nonuniform() {
                self.files[file].reset(self.seeds.get(Slot::Block));
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
        dir = self
            .dirs
            .for_file(dir, f.last_start(Dir::Write), f.last_start(Dir::Trim));
        if let Some(z) = &mut self.zones {
            z.before_io(f, dir, self.seeds.get(Slot::Block));
        }
        let next = self.offsets.next_offset(f, dir)?;
        let len = match next.len {
            Some(l) => l,
            None => self
                .bs
                .next_len(dir, next.is_random, next.offset, f.region.end()),
        };
        if len == 0 || next.offset + len > f.region.real_file_size {
            return None;
        }
        let len = self.offsets.commit(f, dir, &next, len);
        if let Some(z) = &mut self.zones {
            z.done(len);
        }
        Some(Io {
            file: fi,
            dir,
            offset: next.offset,
            len,
            is_random: next.is_random,
            wait_ns,
            wrapped: std::mem::take(&mut f.wrapped),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_index_like_fio() {
        use crate::plan::resolve::offsets::Zone;
        let d = Distribution::Zoned {
            absolute: false,
            zones: vec![
                Zone {
                    io_pct: 60,
                    size: 10,
                },
                Zone {
                    io_pct: 40,
                    size: 90,
                },
            ],
        };
        let DistKind::Zoned { index, .. } = dist_kind(&d) else {
            panic!()
        };
        assert_eq!((index[0].size_perc_prev, index[0].size_perc), (0, 10));
        assert_eq!((index[59].size_perc_prev, index[59].size_perc), (0, 10));
        assert_eq!((index[60].size_perc_prev, index[60].size_perc), (10, 100));
    }
}
