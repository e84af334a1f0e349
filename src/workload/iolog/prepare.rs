//! A replaying job made ready ([`Prepared::replaying`]): its files are
//! the log's (not laid out: fio's `setup_files` skips them), its
//! directions and block sizes the log's, and the log alone ends its
//! passes (fio's `do_io` stops on its bytes only once the log is empty).

use std::sync::Mutex;

use super::Replay;
use crate::ioengine::{Caps, EngineDef, EngineSpec};
use crate::plan::spec::{JobSpec, Pattern};
use crate::workload::buffers::BufferFiller;
use crate::workload::error::RunError;
use crate::workload::job::{FileRegion, Prepared};
use crate::workload::offsets::{self, IoGen};
use crate::workload::placement::Placement;
use crate::workload::think::ThinkTime;
use crate::workload::verify::LoadedState;

impl<'a> Prepared<'a> {
    /// The log `spec` replays, read: `None` when it replays none.
    pub(crate) fn load_replay(spec: &JobSpec) -> Result<Option<Replay>, RunError> {
        Replay::load(spec).map_err(|source| RunError::Iolog {
            job: spec.name.clone(),
            source,
        })
    }

    /// Job `spec` replaying `replay` on `engine` (with the verify state
    /// it loaded, if any).
    pub(crate) fn replaying(
        spec: &'a JobSpec,
        engine: &'static EngineDef,
        caps: Caps,
        mut replay: Replay,
        verify_state: Option<LoadedState>,
    ) -> Result<Prepared<'a>, RunError> {
        if replay.trims && !caps.can_trim {
            return Err(RunError::Invalid {
                job: spec.name.clone(),
                at: spec.span.to_string(),
                msg: format!(
                    "the log replays trims: ioengine {} cannot trim",
                    engine.name
                ),
            });
        }
        let mut set = spec.io.clone();
        if let Some(d) = replay.depth {
            // fio's blktrace replay: the depth the trace reached.
            set.iodepth = d;
            set.iodepth_low = d;
            let mut e = spec.engine.clone();
            e.common.iodepth = d;
            replay.engine = Some(e);
        }
        let files: Vec<FileRegion> = replay
            .files
            .iter()
            .zip(&replay.ends)
            .map(|(path, end)| FileRegion {
                path: path.clone(),
                start: 0,
                len: (*end).max(1),
            })
            .collect();
        let names: Vec<String> = files.iter().map(|f| f.path.display().to_string()).collect();
        let regions: Vec<(offsets::FileRegion, &str)> = files
            .iter()
            .zip(&names)
            .map(|(f, n)| {
                let r = offsets::FileRegion {
                    file_offset: 0,
                    io_size: f.len,
                    real_file_size: f.len,
                };
                (r, n.as_str())
            })
            .collect();
        let refused = |source: offsets::SetupError| RunError::Generators {
            job: spec.name.clone(),
            source,
        };
        // Never drawn from: the loop asks the log instead.
        let gen = IoGen::new(spec, &spec.seeds, &regions).map_err(refused)?;
        let filler = BufferFiller::new(spec, &spec.seeds).map_err(refused)?;
        let plan_bs = spec.bs.iter().map(|b| b.0.max(b.1)).max().unwrap_or(4096);
        // lockfile=exclusive: the log's files, by name.
        let locks =
            (spec.file.lock == crate::plan::resolve::files::LockMode::Exclusive).then(|| {
                files
                    .iter()
                    .map(|f| super::super::lock::lock_of(&f.path))
                    .collect()
            });
        Ok(Prepared {
            spec,
            set,
            engine,
            caps,
            files,
            pass_bytes: u64::MAX,
            total_bytes: replay.bytes,
            total_ios: u64::MAX,
            limit: replay.limit,
            max_bs: replay.max_bs.max(plan_bs).max(1),
            gen: Mutex::new(Some(gen)),
            // fio's replay draws no rate waits (they are part of the
            // pattern's generators).
            rate: None,
            think: ThinkTime::new(spec),
            filler,
            place: Placement::of(spec),
            fill: false,
            verify_state,
            replay: Some(replay),
            links: Default::default(),
            zbd_notes: Vec::new(),
            ignored: Vec::new(),
            append_once: false,
            regions: regions.iter().map(|(r, _)| *r).collect(),
            locks,
        })
    }

    /// The engine's settings: with a blktrace replay's queue depth.
    pub(crate) fn engine_spec(&self) -> &EngineSpec {
        match self.replay.as_ref().and_then(|r| r.engine.as_ref()) {
            Some(e) => e,
            None => &self.spec.engine,
        }
    }

    /// The job's directions: the log's when it replays one.
    pub(crate) fn pattern(&self) -> Pattern {
        match &self.replay {
            Some(r) => Pattern {
                read: r.reads,
                write: r.writes,
                trim: r.trims,
                random: false,
                modifier: None,
            },
            None => self.spec.pattern,
        }
    }
}
