//! Which file serves the next I/O (`file_service_type`, fio's
//! `__get_next_file`).

use super::error::SetupError;
use super::open_limit::OpenLimit;
use crate::plan::resolve::offsets::FileService;
use crate::plan::spec::JobSpec;
use crate::rand::{FioRand, Gauss, Seeds, Slot, Zipf};

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
pub(crate) struct FileSelector {
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
    /// `openfiles` below the number of files: files open on first pick,
    /// at most so many at once (`None`: all open for the whole pass).
    pub(crate) limit: Option<Box<OpenLimit>>,
    /// The last pick was refused (fio's `-EBUSY`): reap, then ask again.
    busy: bool,
    /// One file, round-robin or sequential, no `openfiles` limit: every
    /// pick is that file until it is done (`current` and `left` are never
    /// read then).
    single: bool,
    /// Files whose open failed when the pass opened them all (the
    /// file-operation engines, whose open is the operation): fio opens a
    /// file when its service first picks it, and on a failed open goes on
    /// to the next file in the same pick ([`FileSelector::set_broken`]).
    broken: Option<Box<[bool]>>,
    /// The first broken file a pick passed over since the last
    /// [`FileSelector::take_broken_hit`].
    broken_hit: Option<usize>,
}

/// The file service's answer (fio's `__get_next_file`).
enum Pick {
    File(usize),
    /// Every file is done.
    Done,
    /// The file picked is closed and `openfiles` are open.
    Busy,
}

impl FileSelector {
    /// The file choice of `spec` over `nr_files` files, drawing from the
    /// job's `seeds`. fio's refusal of the `file_service_type` value comes
    /// out here, in fio's words.
    pub(crate) fn new(
        spec: &JobSpec,
        seeds: &Seeds,
        nr_files: usize,
    ) -> Result<FileSelector, SetupError> {
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
        let limit = {
            let max = spec.file.open_limit(nr_files);
            (max < nr_files).then(|| Box::new(OpenLimit::new(max, nr_files)))
        };
        let single = nr == 1
            && limit.is_none()
            && matches!(service, Service::RoundRobin | Service::Sequential);
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
            limit,
            busy: false,
            single,
            broken: None,
            broken_hit: None,
        })
    }

    /// Whether files are reset instead of finished when they run out
    /// (fio's `__FIO_FSERVICE_NONUNIFORM`: zipf, pareto, normal).
    pub(crate) fn nonuniform(&self) -> bool {
        matches!(self.service, Service::Zipf(_) | Service::Gauss(_))
    }

    /// The file for the next I/O; `None` when every file is done, or
    /// when, with `openfiles`, the file picked cannot be opened before an
    /// I/O in flight completes ([`FileSelector::take_busy`]).
    #[inline]
    pub(crate) fn next_file(&mut self) -> Option<usize> {
        loop {
            match self.pick() {
                Pick::File(f) => return Some(f),
                Pick::Done => return None,
                // Nothing in flight: nothing will change, ask again (fio's
                // I/O loop reaps nothing and asks again).
                Pick::Busy if !self.limit.as_ref().is_some_and(|l| l.in_flight()) => {}
                Pick::Busy => {
                    self.busy = true;
                    return None;
                }
            }
        }
    }

    /// Whether the last `None` of [`FileSelector::next_file`] was a
    /// refused pick (cleared by asking).
    pub(crate) fn take_busy(&mut self) -> bool {
        std::mem::take(&mut self.busy)
    }

    #[inline]
    fn usable(&self, f: usize) -> bool {
        !self.done[f] && self.limit.as_ref().is_none_or(|l| l.usable(f))
    }

    /// [`FileSelector::pick_one`], passing over the broken files: each is
    /// done once picked, and the pick goes on (fio's `get_next_file_rr`
    /// and `_rand` after a failed `td_io_open_file`).
    #[inline]
    fn pick(&mut self) -> Pick {
        loop {
            match self.pick_one() {
                Pick::File(f) if self.broken.as_ref().is_some_and(|b| b[f]) => self.pass_over(f),
                p => return p,
            }
        }
    }

    #[cold]
    fn pass_over(&mut self, f: usize) {
        self.mark_done(f);
        self.current = None;
        self.broken_hit.get_or_insert(f);
    }

    #[inline]
    fn pick_one(&mut self) -> Pick {
        if self.nr_done >= self.nr {
            return Pick::Done;
        }
        if self.single {
            return Pick::File(0);
        }
        if let Some(f) = self.current.filter(|&f| self.usable(f)) {
            if matches!(self.service, Service::Sequential) {
                return Pick::File(f);
            }
            if self.left > 0 {
                self.left -= 1;
                return Pick::File(f);
            }
        }
        let f = match self.service {
            Service::RoundRobin | Service::Sequential => match self.next_rr() {
                Pick::File(f) => f,
                other => return other,
            },
            _ => loop {
                let f = self.next_rand();
                if self.done[f] {
                    continue;
                }
                if let Some(l) = self.limit.as_mut() {
                    if l.open_for_pick(f).is_none() {
                        return Pick::Busy;
                    }
                    // A closing file is done: it never comes here.
                }
                break f;
            },
        };
        self.current = Some(f);
        self.left = self.service_nr - 1;
        Pick::File(f)
    }

    fn next_rr(&mut self) -> Pick {
        let old = self.next_file;
        loop {
            let f = self.next_file;
            self.next_file = (self.next_file + 1) % self.nr;
            if !self.done[f] {
                let Some(l) = self.limit.as_mut() else {
                    return Pick::File(f);
                };
                match l.open_for_pick(f) {
                    None => return Pick::Busy,
                    Some(_) if l.usable(f) => return Pick::File(f),
                    // Open and closing: not for new I/O.
                    Some(_) => {}
                }
            }
            if self.next_file == old {
                return Pick::Done;
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

    /// With `openfiles`: open file `f` for an I/O outside the service (a
    /// verify read), whatever the limit, as fio's verify path does, and
    /// hold it open until that I/O completes. A file done for the pass
    /// then closes again: fio 3.33 keeps it open, which can leave every
    /// open file done with the limit reached, and its I/O loop asking for
    /// a file forever.
    pub(crate) fn open_outside(&mut self, f: usize) {
        let done = self.done[f];
        if let Some(l) = self.limit.as_mut() {
            l.open(f);
            l.get(f);
            if done {
                l.close(f);
            }
        }
    }

    /// File `f` failed to open as the pass opened every file: the first
    /// pick of it passes over it to the next file, and says so
    /// ([`FileSelector::take_broken_hit`]).
    pub(crate) fn set_broken(&mut self, f: usize) {
        let nr = self.nr;
        self.broken.get_or_insert_with(|| vec![false; nr].into())[f] = true;
    }

    /// No file broken (a pass opens them again).
    pub(crate) fn clear_broken(&mut self) {
        self.broken = None;
        self.broken_hit = None;
    }

    /// The first broken file passed over since the last call.
    #[inline]
    pub(crate) fn take_broken_hit(&mut self) -> Option<usize> {
        self.broken_hit.take()
    }

    /// With `openfiles`: file `f`, just picked, failed to open. It is done,
    /// not open, and the I/O drawn for it is dropped; the loop draws again
    /// (fio's file service goes on to the next file).
    pub(crate) fn open_failed(&mut self, f: usize) {
        if let Some(l) = self.limit.as_mut() {
            l.open_failed(f);
        }
        self.mark_done(f);
        self.current = None;
    }

    /// Mark file `f` done for this pass (with `openfiles`, it closes).
    pub(crate) fn mark_done(&mut self, f: usize) {
        if let Some(l) = self.limit.as_mut() {
            l.close(f);
        }
        if !self.done[f] {
            self.done[f] = true;
            self.nr_done += 1;
        }
    }

    /// Start a new loop: every file available again, generators re-seeded
    /// with `randrepeat`.
    pub(crate) fn reset(&mut self) {
        self.done.iter_mut().for_each(|d| *d = false);
        self.nr_done = 0;
        self.current = None;
        self.busy = false;
        if let Some(l) = self.limit.as_mut() {
            l.reset();
        }
        if self.seeds.repeatable {
            self.service = self.initial.clone();
        }
    }
}
