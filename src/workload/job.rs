//! One job before it runs (fio's `backend.c` `thread_main` set-up and
//! `filesetup.c`): checked and made ready before any thread starts
//! ([`Prepared::new`]: its files' regions, its limits, its generators),
//! its files laid out by the runner ([`Prepared::lay_out`]); then it runs
//! on its own thread ([`super::thread`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::buffers::BufferFiller;
use super::errno::{engine_verror, open_place, strerror};
use super::error::RunError;
use super::layout::{self, Mode};
use super::links::Links;
use super::log::Log;
use super::offsets::{self, IoGen};
use super::placement::Placement;
use super::rate::RateLimiter;
use super::regions;
pub(crate) use super::regions::FileRegion;
use super::stop::Stop;
use super::think::ThinkTime;
use super::verify::{LoadedState, StateFormat};
use super::zbd::{self, ZbdRegistry};
use crate::ioengine::{self, Caps, EngineDef};
use crate::plan::resolve::files::LockMode;
use crate::plan::resolve::io::IoOptions;
use crate::plan::resolve::ZoneMode;
use crate::plan::spec::JobSpec;
use crate::rand::Seeds;
use crate::stats::Layout;

/// fio's note for a synchronous engine asked for a deeper queue.
pub(crate) const SYNC_DEPTH_NOTE: &str =
    "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1";

/// A job checked before any thread starts.
pub(crate) struct Prepared<'a> {
    pub(crate) spec: &'a JobSpec,
    pub(crate) set: IoOptions,
    pub(super) engine: &'static EngineDef,
    /// Capabilities with the job's settings (known before the engine runs).
    pub(crate) caps: Caps,
    pub(crate) files: Vec<FileRegion>,
    /// Bytes one pass issues at most (fio's `total_bytes`).
    pub(super) pass_bytes: u64,
    /// Limit on issued bytes over all passes (`io_size` or `size`, times
    /// `loops`) and on issued I/Os (`number_ios` times `loops`).
    pub(super) total_bytes: u64,
    pub(super) total_ios: u64,
    /// `io_size` or `size`: what keeps a job running past `loops` passes.
    pub(super) limit: u64,
    /// The largest block size of any direction.
    pub(super) max_bs: u64,
    /// The pattern generators, rate limiter, think time and buffer filler,
    /// set up once; each run starts from a copy. The generators (with the
    /// random map, a bit per block) are handed to the job's run instead
    /// ([`Prepared::take_gen`]): one map per job, gone when the job ends.
    pub(super) gen: Mutex<Option<IoGen>>,
    pub(super) rate: Option<RateLimiter>,
    pub(super) think: Option<ThinkTime>,
    pub(super) filler: BufferFiller,
    /// Affinity, priorities, buffer memory, pre- and post-run commands.
    pub(super) place: Placement,
    /// `fill_device` without a size: the files are not laid out, the job
    /// writes until ENOSPC.
    pub(super) fill: bool,
    /// The state file `verify_state_load` loaded (fio's `td->vstate`).
    pub(super) verify_state: Option<LoadedState>,
    /// `read_iolog`: the log the job replays instead of its pattern
    /// ([`Prepared::replaying`]).
    pub(crate) replay: Option<super::iolog::Replay>,
    /// What it shares with the run's other jobs (set by the runner).
    pub(super) links: Links,
    /// `zonemode=zbd`: fio's lines once the files are laid out (regions
    /// rounded to whole zones).
    pub(super) zbd_notes: Vec<String>,
    /// Files of the job with nothing to do: no `size`, and the file is
    /// empty or missing while the job's other files have a size (fio's
    /// `file NAME may be ignored`). The job opens them with the others,
    /// which creates them for a writer and fails a reader.
    pub(super) ignored: Vec<PathBuf>,
    /// `file_append` on regular files: only the first pass does I/O (fio
    /// starts every later loop at the end of the file as it is then,
    /// beyond the region, and stops when a loop moves nothing).
    pub(super) append_once: bool,
    /// Each file's region as the generators were set up over it, to set
    /// them up again ([`Prepared::restore_gen`]).
    pub(super) regions: Vec<offsets::FileRegion>,
    /// `lockfile=exclusive`: each file's lock (`None`: no locking).
    pub(super) locks: Option<Box<[super::lock::FileLock]>>,
}

impl<'a> Prepared<'a> {
    /// `spec` checked and made ready, on its own (zoned files get zone
    /// tables of their own).
    #[cfg(test)]
    pub(crate) fn new(spec: &'a JobSpec) -> Result<Prepared<'a>, RunError> {
        Prepared::new_in(spec, Some(&ZbdRegistry::default()), &Stop::new())
    }

    /// `spec` checked and made ready; a zoned file's zones are the run's
    /// (`zbd`), shared with the other jobs using the file. Without `zbd`
    /// the zones are left for later: a job of a later group is made ready
    /// again when its group starts, and fio reads a file's zones once the
    /// jobs before it laid their files out. The run's `stop` cuts the
    /// engine's setup short (nbd's handshake with a silent server).
    pub(crate) fn new_in(
        spec: &'a JobSpec,
        zbd: Option<&ZbdRegistry>,
        stop: &Stop,
    ) -> Result<Prepared<'a>, RunError> {
        let engine = engine_of(spec)?;
        // fio loads the verify state before it sets the job's files up.
        let verify_state = load_verify_state(spec)?;
        let set = spec.io.clone();
        let place = Placement::of(spec);
        let caps = (engine.caps)(&spec.engine);
        if let Some(replay) = Prepared::load_replay(spec)? {
            return Prepared::replaying(spec, engine, caps, replay, verify_state);
        }
        check_files(spec, engine, caps)?;
        // fill_device: without a size, write until the filesystem is full
        // (fio's size of -1; an ENOSPC then ends the job without error).
        // The plan refuses it for a random pattern with a random map.
        let fill = spec.io.fill_device && spec.size.is_none();
        let engine_size = engine_setup(spec, engine, stop)?;
        let regions::Sized {
            files,
            mut regions,
            sizes,
            all_regular,
            ignored,
        } = regions::size_files(
            spec,
            caps,
            engine_size,
            self::block_size(spec, engine),
            fill,
        )?;
        let names: Vec<String> = files.iter().map(|f| f.path.display().to_string()).collect();
        let (zoned, zbd_notes) = match zbd {
            Some(zbd) => prepare_zones(spec, zbd, &files, &names, &sizes, &mut regions)?,
            None => (None, Vec::new()),
        };
        // One seed table for the job, shared as fio shares td->rand_seeds.
        let seeds = spec.seeds.clone();
        let mut gen = generators(spec, &seeds, &regions, &names)?;
        gen.zbd = zoned;
        let mut limits = Limits::of(spec, &files, gen.sprandom_io_size());
        if gen.zones.is_some() {
            // Strided zones wrap around the file: a pass ends when the job
            // has issued all it may, or when an I/O would pass the file's
            // end (fio's do_io), not after `size` bytes.
            limits.pass_bytes = limits.total_bytes;
        }
        let filler = BufferFiller::new(spec, &seeds).map_err(|e| refused(spec, e))?;
        Ok(Prepared {
            spec,
            set,
            engine,
            caps,
            files,
            pass_bytes: limits.pass_bytes,
            total_bytes: limits.total_bytes,
            total_ios: limits.total_ios,
            limit: limits.limit,
            max_bs: limits.max_bs,
            gen: Mutex::new(Some(gen)),
            rate: RateLimiter::new(spec, &seeds),
            think: ThinkTime::new(spec),
            filler,
            fill,
            place,
            verify_state,
            replay: None,
            links: Links::default(),
            zbd_notes,
            ignored,
            append_once: spec.file.append && all_regular,
            regions,
            locks: (spec.file.lock == LockMode::Exclusive).then(|| {
                spec.files
                    .iter()
                    .map(|f| super::lock::lock_of(&f.path))
                    .collect()
            }),
        })
    }

    /// fio's lines about the job's zones once its files are laid out.
    pub(crate) fn zbd_notes(&self, log: &dyn Log) {
        for line in &self.zbd_notes {
            log.note(line);
        }
    }

    /// fio's `td_verror` text for the engine's failure `e` to open a file.
    pub(super) fn open_verror(&self, e: &crate::ioengine::EngineError) -> String {
        engine_verror(
            e,
            open_place(&self.engine.flags, &e.func, self.spec.release),
        )
    }

    /// The line fio logs after the engine failed to open `path`, if any:
    /// fio's falloc engine records its failed open but reports success, so
    /// fio goes on to invalidate the cache of a file it never opened.
    pub(super) fn open_failure_note(&self, path: &Path) -> Option<String> {
        (self.engine.flags.failed_open_looks_opened && self.set.invalidate)
            .then(|| cache_invalidation_failed(path))
    }

    /// `lockfile=exclusive`: hold file `fi`'s lock while an I/O of it is
    /// handed to the engine (`None`: the job does not lock).
    #[inline]
    pub(super) fn lock_file(&self, fi: usize) -> Option<std::sync::MutexGuard<'_, ()>> {
        self.locks.as_ref().map(|l| super::lock::hold(&l[fi]))
    }

    /// The offset generators, for the job's one run.
    pub(super) fn take_gen(&self) -> IoGen {
        self.gen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .expect("a prepared job runs once, with the generators it was prepared with")
    }

    /// Drop the generators of a job that is set up again before it runs
    /// (a later group's job: its files may change before then).
    pub(super) fn release_gen(&self) {
        *self.gen.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Set the generators up again after [`Prepared::release_gen`], over
    /// the same regions (fio sized the files once, when it set them up).
    pub(super) fn restore_gen(&self) -> Result<(), RunError> {
        let mut gen = self.gen.lock().unwrap_or_else(|e| e.into_inner());
        if gen.is_some() {
            return Ok(());
        }
        let names: Vec<String> = self
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        let with_names: Vec<_> = self
            .regions
            .iter()
            .zip(&names)
            .map(|(r, n)| (*r, n.as_str()))
            .collect();
        let fresh = IoGen::new(self.spec, &self.spec.seeds, &with_names).map_err(|source| {
            RunError::Generators {
                job: self.spec.name.clone(),
                source,
            }
        })?;
        *gen = Some(fresh);
        Ok(())
    }

    /// The files this job lays out before it starts, for the free-space
    /// check: path and the bytes the file will hold. A filled layout holds
    /// the whole file; a file only written (created empty, fio's
    /// `fallocate` failing quietly where there is no room) holds what the
    /// job writes: its share of `io_size` (or `size`) times `loops`, at
    /// most its region.
    pub(crate) fn layout_needs(&self) -> Vec<(PathBuf, u64)> {
        if !self.caps.needs_files || self.set.create_on_open || self.fill || self.replay.is_some() {
            return Vec::new();
        }
        let filled = self.mode().fill;
        let share = if self.spec.time_based {
            u64::MAX
        } else {
            self.total_bytes.div_ceil(self.files.len().max(1) as u64)
        };
        self.files
            .iter()
            .filter(|f| layout::needs_layout(&f.path, f.end()))
            .map(|f| {
                let bytes = if filled { f.end() } else { f.len.min(share) };
                (f.path.clone(), bytes)
            })
            .collect()
    }

    /// How this job lays its files out.
    fn mode(&self) -> Mode {
        let p = self.spec.pattern;
        Mode::appending(
            p.read,
            p.writes(),
            self.set.overwrite,
            self.caps.no_extend,
            self.spec.file.append,
        )
        .with(self.set.fallocate, self.set.create_fsync)
        .allow_create(self.spec.file.allow_create)
        .readonly(self.spec.readonly)
    }

    /// Whether the job may change the contents of its files (writes or
    /// trims through an engine that touches them).
    pub(crate) fn writes(&self) -> bool {
        self.pattern().writes() && self.caps.needs_files
    }

    /// Lay out the files that are too short (fio's `setup_files`, run for
    /// one job at a time before its group starts). Returns what was laid
    /// out, or the error that stops the job.
    ///
    /// As fio's `setup_files`, the layout is announced on `log`
    /// ([`Log::layout`]) before it starts: the files to lay out and their
    /// total size. A `stop` request (SIGINT) ends it early.
    pub(crate) fn lay_out(
        &self,
        log: &dyn Log,
        stop: &Stop,
    ) -> Result<Option<Layout>, layout::Failed> {
        for path in &self.ignored {
            // On stdout in fio, inside the report; rfio keeps stdout for it.
            log.err(&format!("fio: file {} may be ignored\n", path.display()));
            if !self.spec.readonly {
                layout::create_dirs(path)?;
            }
        }
        if !self.caps.needs_files || self.set.create_on_open || self.replay.is_some() {
            return Ok(None);
        }
        let mode = self.mode();
        if self.fill {
            // fio announces a layout of its -1 size and lets the writes
            // fill the filesystem.
            let announced = Layout {
                files: self.files.len() as u32,
                bytes: u64::MAX,
            };
            log.layout(&announced.line(&self.spec.name));
            for f in &self.files {
                if self.spec.readonly {
                    return Err(layout::Failed::new(libc::EROFS, "open").after(announced));
                }
                layout::create_dirs(&f.path).map_err(|e| e.after(announced))?;
                if let Err(e) = std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(&f.path)
                {
                    return Err(
                        layout::Failed::new(e.raw_os_error().unwrap_or(libc::EIO), "open")
                            .after(announced),
                    );
                }
            }
            return Ok(Some(announced));
        }
        let todo: Vec<&FileRegion> = self
            .files
            .iter()
            .filter(|f| layout::needs_layout(&f.path, f.end()))
            .collect();
        if todo.is_empty() {
            return Ok(None);
        }
        // fio announces the files and bytes it is about to lay out; its
        // report repeats that, however the layout ends.
        let announced = Layout {
            files: todo.len() as u32,
            bytes: todo.iter().map(|f| f.end()).sum(),
        };
        log.layout(&announced.line(&self.spec.name));
        let mut filler = self.filler.clone();
        for f in todo {
            if mode.readonly {
                // fio's extend_file refuses, and its cache invalidation
                // then fails on the file it never opened; the job goes on.
                log.err(layout::READONLY_NOTE);
                if self.set.invalidate {
                    log.err(&cache_invalidation_failed(&f.path));
                }
                if std::fs::symlink_metadata(&f.path).is_err() {
                    // Nothing there: opening it fails the job as in fio
                    // (`open(PATH)`, No such file or directory).
                    continue;
                }
                // A file too short for the job: rfio refuses to run on it
                // (fio reads past its end).
                return Err(layout::Failed::new(libc::EROFS, "extend").after(announced));
            }
            match layout::lay_out(&f.path, f.end(), mode, &mut |b| filler.fill(b), stop) {
                Ok(()) => {}
                // SIGINT: the partial file is gone; as fio, the job is not
                // failed, it is stopped (it starts terminated).
                Err(e) if e.stopped() => return Ok(Some(announced)),
                Err(e) => return Err(e.after(announced)),
            }
        }
        Ok(Some(announced))
    }
}

/// fio's line when it invalidates the cache of `path`, a file it never
/// opened (its falloc engine's failed open, or a layout refused under
/// `--readonly`).
fn cache_invalidation_failed(path: &Path) -> String {
    format!(
        "fio: cache invalidation of {} failed: {}\n",
        crate::diag::show_path(path),
        strerror(libc::EBADF)
    )
}

/// The engine job `spec` names.
fn engine_of(spec: &JobSpec) -> Result<&'static EngineDef, RunError> {
    ioengine::lookup(&spec.ioengine).ok_or_else(|| RunError::UnknownEngine {
        job: spec.name.clone(),
        engine: spec.ioengine.clone(),
    })
}

/// What the job of `spec` is refused for before its files are sized: no
/// files (an `opendir=` that found none is a job without a size), trims
/// on an engine that cannot trim, a `directory=` that is no directory
/// (fio checks it when it reads the option).
fn check_files(spec: &JobSpec, engine: &EngineDef, caps: Caps) -> Result<(), RunError> {
    let invalid = |msg: String| RunError::Invalid {
        job: spec.name.clone(),
        at: spec.span.to_string(),
        msg,
    };
    if spec.files.is_empty() {
        if spec.file.opendir.is_some() {
            return Err(RunError::NoSize {
                job: spec.name.clone(),
            });
        }
        return Err(RunError::NoFiles {
            job: spec.name.clone(),
        });
    }
    if spec.pattern.trim && !caps.can_trim {
        return Err(invalid(format!(
            "rw={}: ioengine {} cannot trim",
            spec.pattern.name(),
            engine.name
        )));
    }
    for dir in &spec.directories {
        // With lstat, as fio: a symbolic link is refused too.
        if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
            return Err(invalid(format!(
                "{} is not a directory",
                crate::diag::show_path(dir)
            )));
        }
    }
    Ok(())
}

/// The size the engine gives each file of `spec` that has none: the
/// job's smallest block, for an engine whose files are one block each
/// (fio's `get_file_size` of filecreate and dircreate).
fn block_size(spec: &JobSpec, engine: &EngineDef) -> Option<u64> {
    let smallest = spec.bs.iter().map(|b| b.0).min().unwrap_or(4096);
    engine.flags.block_sized_files.then_some(smallest.max(1))
}

/// The engine's setup of the job's files (fio's `.setup`, before the
/// sizes): nbd's export has a size of its own, that of the first file;
/// dirstat makes its directories. The run's `stop` cuts it short: the job
/// then never starts, with no error.
fn engine_setup(spec: &JobSpec, engine: &EngineDef, stop: &Stop) -> Result<Option<u64>, RunError> {
    // SAFETY: `stop` outlives the setup, which keeps no copy.
    let flag = unsafe { ioengine::StopFlag::new(stop.flag(), stop.deadline()) };
    let paths: Vec<&std::path::Path> = spec.files.iter().map(|f| f.path.as_path()).collect();
    (engine.setup)(&spec.engine, &paths, flag).map_err(|source| {
        if stop.requested() {
            RunError::SetupStopped {
                job: spec.name.clone(),
            }
        } else {
            RunError::EngineSetup {
                job: spec.name.clone(),
                source,
            }
        }
    })
}

/// The offset generators of `spec` (seed table `seeds`) over its
/// `regions`, the files named `names`.
fn generators(
    spec: &JobSpec,
    seeds: &Seeds,
    regions: &[offsets::FileRegion],
    names: &[String],
) -> Result<IoGen, RunError> {
    let with_names: Vec<_> = regions
        .iter()
        .zip(names)
        .map(|(r, n)| (*r, n.as_str()))
        .collect();
    IoGen::new(spec, seeds, &with_names).map_err(|e| refused(spec, e))
}

/// The job refused for the generators' or the filler's error `e`, worded
/// as fio's (`fio: ` included).
fn refused(spec: &JobSpec, source: offsets::SetupError) -> RunError {
    RunError::Generators {
        job: spec.name.clone(),
        source,
    }
}

/// How much a job issues, per pass and over its passes.
struct Limits {
    /// Bytes one pass issues at most (fio's `total_bytes`).
    pass_bytes: u64,
    /// Issued bytes and I/Os over all passes.
    total_bytes: u64,
    total_ios: u64,
    /// `io_size` or `size`.
    limit: u64,
    /// The largest block size of any direction.
    max_bs: u64,
}

impl Limits {
    /// The limits of `spec` over its sized `files`; `sprandom` sets the
    /// job's `io_size` (fio's `sprandom_init`).
    fn of(spec: &JobSpec, files: &[FileRegion], sprandom: Option<u64>) -> Limits {
        let io_size = sprandom.or(spec.io_size);
        let region: u64 = files.iter().map(|f| f.len).sum();
        let size = spec.size.unwrap_or(region);
        let p = spec.pattern;
        let loops = u64::from(spec.loops.max(1));
        let mut pass_bytes = size;
        // fio's do_io: random overwrites without a map may go past `size`
        // within one pass, up to io_size. (The pass limit only counts I/O
        // the engine queues; see the executor's run_pass.)
        if let Some(io_size) = io_size.filter(|_| p.write && p.random && spec.norandommap) {
            pass_bytes = pass_bytes.max(io_size);
        }
        // fio 3.38's do_io: a sequential mixed job does all its io_size
        // in one pass (each direction wraps at the end of its file).
        if let Some(io_size) =
            io_size.filter(|_| spec.offsets.mixed_wraps && p.read && p.write && !p.random)
        {
            pass_bytes = pass_bytes.max(io_size);
        }
        // ... and with verify_backlog a writing job's pass may also take
        // its verify reads, `size` more bytes.
        if spec.io.backlog_verifies && p.write {
            pass_bytes = pass_bytes.saturating_add(size);
        }
        let limit = io_size.unwrap_or(size);
        let (mut total_bytes, mut total_ios) = (
            limit.saturating_mul(loops),
            if spec.number_ios > 0 {
                spec.number_ios.saturating_mul(loops)
            } else {
                u64::MAX
            },
        );
        if p.write && p.trim {
            // trimwrite: every block is trimmed, then written.
            // fio's do_io adds the job's total_io_size to the pass.
            pass_bytes = pass_bytes.saturating_add(total_bytes);
            total_bytes = total_bytes.saturating_mul(2);
            total_ios = total_ios.saturating_mul(2);
        }
        let max_bs = spec
            .bs
            .iter()
            .map(|b| b.1.max(b.0))
            .max()
            .unwrap_or(4096)
            .max(1);
        Limits {
            pass_bytes,
            total_bytes,
            total_ios,
            limit,
            max_bs,
        }
    }
}

/// `zonemode=zbd`: the zones of the job's `files` (`names`, `sizes`
/// before any layout) from the run's `zbd`, their `regions` rounded to
/// whole zones; the job's zone state and fio's lines about it. A job in
/// no such mode has neither.
#[allow(clippy::type_complexity)]
fn prepare_zones(
    spec: &JobSpec,
    zbd: &ZbdRegistry,
    files: &[FileRegion],
    names: &[String],
    sizes: &[u64],
    regions: &mut [offsets::FileRegion],
) -> Result<(Option<zbd::ZbdJob>, Vec<String>), RunError> {
    let Ok(Some(ZoneMode::Zbd(opts))) = &spec.zones else {
        return Ok((None, Vec::new()));
    };
    let infos: Vec<zbd::FileInfo<'_>> = files
        .iter()
        .zip(names)
        .zip(sizes)
        .map(|((f, name), &size)| zbd::FileInfo {
            path: &f.path,
            name,
            size,
        })
        .collect();
    match zbd::prepare(spec, opts, &infos, regions, zbd) {
        Ok(ready) => Ok((Some(ready.job), ready.notes)),
        Err(r) => Err(RunError::Zbd {
            job: spec.name.clone(),
            lines: r.lines,
            error: r.error,
            counted: r.counted,
        }),
    }
}

/// fio's `verify_load_state` for a job with `verify_state_load`: the
/// state file `local-NAME-INDEX-verify.state` in the working directory
/// (or the `--aux-path` directory).
/// A file that cannot be read fails the job before it starts, with fio's
/// messages.
fn load_verify_state(spec: &JobSpec) -> Result<Option<LoadedState>, RunError> {
    if !spec.verify_state_load {
        return Ok(None);
    }
    LoadedState::load(
        spec.aux_path.as_deref().unwrap_or(Path::new(".")),
        &spec.name,
        spec.thread_number.saturating_sub(1),
        StateFormat::of(spec.release),
    )
    .map(Some)
    .map_err(|source| RunError::VerifyState {
        job: spec.name.clone(),
        source,
    })
}
