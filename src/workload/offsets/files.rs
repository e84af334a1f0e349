//! Which file serves the next I/O (`file_service_type`, fio's
//! `__get_next_file`).

use super::error::SetupError;
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
    pub(crate) fn nonuniform(&self) -> bool {
        matches!(self.service, Service::Zipf(_) | Service::Gauss(_))
    }

    /// The file for the next I/O; `None` when every file is done.
    #[inline]
    pub(crate) fn next_file(&mut self) -> Option<usize> {
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
    pub(crate) fn mark_done(&mut self, f: usize) {
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
        if self.seeds.repeatable {
            self.service = self.initial.clone();
        }
    }
}
