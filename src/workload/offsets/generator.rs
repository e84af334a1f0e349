//! The offset generator of one job (fio's `get_next_offset`,
//! `get_next_block`, `get_next_seq_offset`): sequential offsets here,
//! random ones (the distributions, the random map) in `random`.

mod random;

use random::{dist_kind, DistKind};

use super::cursor::{FileCursor, FileDist, NextOffset};
use super::error::SetupError;
use super::region::FileRegion;
use super::sprandom::Sprandom;
use crate::ddir::Ddir;
use crate::plan::resolve::sprandom::SprandomOptions;
use crate::plan::spec::JobSpec;
use crate::rand::{jhash, Axmap, FioRand, Gauss, Generator, Lfsr, SeedRule, Seeds, Slot, Zipf};

/// The offset generator of one job.
#[derive(Debug, Clone)]
pub(crate) struct OffsetGen {
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
    /// Division by `ba` and `min_bs` on the I/O path.
    ba_div: [BlockDiv; 3],
    min_bs_div: [BlockDiv; 3],
    rw_min_bs: u64,
    time_based: bool,
    /// fio 3.38's `get_next_seq_offset`: a mixed job with `io_size` over
    /// `size` starts a direction over at the end of its region.
    pub(super) mixed_wrap: bool,
    /// `file_append`: fio's start offset of a file is its size.
    append: bool,
    nr_files: usize,
    nonuniform_files: bool,
    randtrimwrite: bool,
    norandommap: bool,
    /// `zonerange` with strided zones: random blocks are drawn in it.
    zone_range: Option<u64>,
    seeds: Seeds,
    /// `sprandom`: the writes' offsets come from the file's
    /// [`Sprandom`], set up with the file.
    sprandom: Option<Box<SprandomOptions>>,
    /// The physical size `sprandom` set up: what the job writes (fio
    /// sets `io_size` to it).
    pub(super) sprandom_io_size: Option<u64>,
}

impl OffsetGen {
    /// The offset generator of `spec`; `zone_range` is the size of a
    /// strided zone (`zonerange`), random blocks are drawn in it.
    pub(crate) fn new(spec: &JobSpec, seeds: &Seeds, zone_range: Option<u64>) -> OffsetGen {
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
            ba_div: ba.map(BlockDiv::new),
            min_bs_div: min_bs.map(BlockDiv::new),
            rw_min_bs: min_bs.iter().copied().min().unwrap_or(4096),
            time_based: spec.time_based,
            mixed_wrap: false,
            append: spec.file.append,
            nr_files: spec.files.len().max(1),
            nonuniform_files: o.file_service.as_ref().is_ok_and(|s| s.nonuniform()),
            randtrimwrite: p.random && p.write && p.trim,
            // fio: "Any use of blockalign= turns off randommap".
            norandommap: spec.norandommap || o.blockalign.is_some(),
            zone_range,
            seeds: seeds.clone(),
            sprandom: o.sprandom.clone().map(Box::new),
            sprandom_io_size: None,
        }
    }

    /// The offset state of a file with `region`, named `name` as fio names
    /// it (the zipf/pareto/normal seed hashes it). Allocates its random map.
    pub(crate) fn file(
        &mut self,
        region: FileRegion,
        name: &str,
    ) -> Result<FileCursor, SetupError> {
        let fsize = region.real_file_size.min(region.io_size);
        let mut cursor = FileCursor {
            region,
            file_offset: region.file_offset,
            last_pos: [region.file_offset; 3],
            last_start: [u64::MAX; 3],
            map: None,
            lfsr: None,
            dist: FileDist::None,
            spr: None,
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
        match self.seeds.rule {
            SeedRule::Fio333 if !self.seeds.repeatable => seed = self.seeds.get(Slot::Mix) as u32,
            SeedRule::Fio333 => {}
            // 3.35 ("filesetup: better handle non-uniform distributions"):
            // the file's name always counts, so files differ.
            SeedRule::FromRandseed => {
                seed = seed.wrapping_mul(self.seeds.get(Slot::Block) as u32);
            }
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
        if blocks > u64::from(u32::MAX)
            && self.generator == Generator::Tausworthe
            && !self.seeds.generator_set
        {
            // check_rand_gen_limits: fio switches the option to
            // tausworthe64 (a set random_generator stays). 3.42 re-seeds
            // the offset generator then; before, only a later loop's
            // re-seeding (`randrepeat`) followed the option.
            self.generator = Generator::Tausworthe64;
            if self.seeds.switch_reseeds {
                self.random_state = FioRand::new(self.seeds.get(Slot::Block), true);
            }
        }
        if self.generator == Generator::Lfsr {
            cursor.lfsr =
                Some(Lfsr::new(blocks, self.seeds.get(Slot::Block)).ok_or(SetupError::Lfsr)?);
            if let Some(o) = &self.sprandom {
                // fio's sprandom_init, over the write block size.
                let bs = self.min_bs[Ddir::Write.index()];
                let rand = self.seeds.rand(Slot::Sprandom, false);
                let (spr, geometry) =
                    Sprandom::new(o, fsize, bs, rand).map_err(SetupError::Sprandom)?;
                self.sprandom_io_size = Some(geometry.physical_size);
                cursor.spr = Some(Box::new(spr));
            }
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

    /// The offset generator as the verify state file keeps it (fio's
    /// `random_state`, `offset_state` in 3.42): before 3.35 fio seeded it
    /// only for random offsets, so a sequential job's is all zero.
    pub(crate) fn saved_state(&self) -> [u8; 56] {
        if !self.random && self.seeds.rule == SeedRule::Fio333 {
            return [0; 56];
        }
        self.random_state.saved()
    }

    /// Start a new loop: re-seed (with `randrepeat`) and reset `files`.
    pub(crate) fn reset(&mut self, files: &mut [FileCursor]) {
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

    /// The offset of the next I/O of `dir` on `f` (fio's
    /// `get_next_offset`); `None` when the file has no more I/O for this
    /// pass (fio then marks it done). Allocation free.
    #[inline]
    pub(crate) fn next_offset(&mut self, f: &mut FileCursor, dir: Ddir) -> Option<NextOffset> {
        let mut hit = false;
        // A count of 0 (`rw=randread:0`, fio's reading of `randread:foo`
        // under --compat=fio) never picks a new random offset.
        if self.seq_nr != 0 {
            self.seq_nr_left -= 1;
            if self.seq_nr_left == 0 {
                hit = true;
                self.seq_nr_left = self.seq_nr;
            }
        }
        let mut next = self.next_block(f, dir, hit)?;
        if next.offset >= f.region.io_size {
            return None;
        }
        next.offset += f.file_offset;
        if next.offset >= f.region.real_file_size {
            return None;
        }
        if self.randtrimwrite
            && dir == Ddir::Trim
            && f.last_start[Ddir::Trim.index()] == next.offset
        {
            let w = &mut f.last_start[Ddir::Write.index()];
            *w = w.wrapping_sub(1);
        }
        Some(next)
    }

    /// fio's `get_next_block`; the offset returned is relative. Inlined
    /// into [`OffsetGen::next_offset`], its only caller.
    #[inline(always)]
    fn next_block(&mut self, f: &mut FileCursor, dir: Ddir, hit: bool) -> Option<NextOffset> {
        let d = dir.index();
        let mut out = NextOffset {
            offset: 0,
            is_random: false,
            busy_ok: false,
            len: None,
        };
        let mut block = None;
        if self.randtrimwrite && dir == Ddir::Write {
            let t = Ddir::Trim.index();
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

    /// fio's `get_next_seq_offset`: the relative offset after the last I/O
    /// of `dir`, with `rw=…:N` holes; `None` at the end of the file.
    fn seq_offset(&mut self, f: &mut FileCursor, dir: Ddir) -> Option<u64> {
        let d = dir.index();
        let r = f.region;
        let fo = f.file_offset;
        // fio compares with the start offset, not the (zone) file offset:
        // with file_append, the file's size (a time-based job then never
        // starts the file over).
        let start = if self.append {
            r.real_file_size
        } else {
            r.file_offset
        };
        if f.last_pos[d] >= start + r.io_size && self.time_based && self.nr_files == 1 {
            f.last_pos[d] = fo;
            f.wrapped = true;
        }
        if self.mixed_wrap && f.last_pos[d] >= start + r.io_size {
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
    #[inline(always)]
    pub(crate) fn commit(
        &mut self,
        f: &mut FileCursor,
        dir: Ddir,
        next: &NextOffset,
        len: u64,
    ) -> u64 {
        let d = dir.index();
        let mut len = len;
        if let (true, false, Some(map)) = (self.random, next.busy_ok, &mut f.map) {
            let min_bs = self.min_bs[d];
            let div = self.min_bs_div[d];
            let block = div.of(next.offset - f.file_offset);
            let nr = div.of(len + (min_bs - 1));
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

/// Division by a block size: a shift when it is a power of two (the
/// usual case), sparing the I/O path a 64-bit division.
#[derive(Debug, Clone, Copy)]
pub(super) struct BlockDiv {
    bs: u64,
    /// `log2(bs)`, or `u32::MAX` when `bs` is no power of two.
    shift: u32,
}

impl BlockDiv {
    fn new(bs: u64) -> BlockDiv {
        let shift = if bs.is_power_of_two() {
            bs.trailing_zeros()
        } else {
            u32::MAX
        };
        BlockDiv { bs, shift }
    }

    /// `x / bs`.
    #[inline(always)]
    pub(super) fn of(self, x: u64) -> u64 {
        if self.shift != u32::MAX {
            x >> self.shift
        } else {
            x / self.bs
        }
    }
}

/// fio's `seq_rand_state[]`: every direction seeded from the read slot
/// (fio 3.33 `td_fill_rand_seeds`), 32-bit.
fn seq_rand_states(seeds: &Seeds) -> [FioRand; 3] {
    let r = seeds.rand(Slot::SeqRandRead, false);
    [r, r, r]
}
