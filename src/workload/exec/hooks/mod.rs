//! The loop's hooks: what `verify`, `latency_target`/`max_latency`,
//! `write_iolog`, `read_iolog`, `zonemode=zbd`, flows and
//! `--profile=act` add to the I/O loop. Each is one struct (or, for the
//! zones, which the generator holds, a few functions over them) in its
//! own file with its own tests, held by the loop in an `Option`: `None`
//! when the job does not use it, so that the loop pays one test of an
//! `Option` per call point, with no dynamic dispatch and no allocation.
//! A hook owns its state and decides; what it asks of the loop (complete
//! the I/O in flight, fail the job, issue a sync) it returns, and the
//! loop does it, so that every I/O it causes goes through the same
//! queue and completion path as the others.
//!
//! The call points, in the order of fio's `do_io` (`backend.c`):
//!
//! | point | where in the loop | hooks | fio |
//! |---|---|---|---|
//! | start | `Exec::new` | iolog and replay open their logs | `init_iolog` |
//! | pass start | `pass_starts` | latency (the search at depth 1), zbd (zone resets), verify (re-seed) | `lat_target_init`, `clear_io_state`, `zbd_file_reset` |
//! | before issue | top of `run_pass`'s loop | flow (held back: quiesce and sleep) | `flow_threshold_exceeded` |
//! | draw | `next_unit` | verify (`verify_backlog` read, `trim_backlog` trim first), replay (the log's I/O instead of the pattern's), zbd (quiesce before, resets after), iolog (closed files), verify (runstate, state stop) | `get_io_u`: `check_get_verify`, `check_get_trim`, `read_iolog_get`, `fill_io_u` |
//! | fill | `issue` | verify (`numberio`, the logged piece, the header) | `populate_verify_io_u`, `log_io_piece` |
//! | queue | `submit` | iolog (the I/O's line), zbd (a trim resets its zone) | `td_io_queue`: `log_io_u`, `zbd_queue_io_u` |
//! | sync | `sync_file` | iolog (the sync's line) | `log_io_u` |
//! | complete | `complete` | replay (lost I/O), zbd (zone closes), verify (landed, checked), latency (`max_latency`, the target), act (slices) | `io_completed`: `account_io_completion`, `zbd_put_io_u`, `verify_io_u` |
//! | after issue | `submit_turn` | latency (quiesce, the window's verdict) | `lat_target_check` |
//! | pass end | `run_one_pass`, `end_of_pass` | verify (leaked trims, the verify phase, forget), iolog (files closed), replay (its depth) | `do_io`'s end, `do_verify`, `close_files` |
//! | job end | `job_ends` | latency (the depth reported), verify (state file), act (its slices) | `thread_main`'s end |

pub(super) mod act;
pub(super) mod flow;
pub(super) mod iolog;
pub(super) mod latency;
pub(super) mod replay;
pub(super) mod verify;
pub(super) mod zbd;

use self::act::Act;
use self::flow::Flow;
use self::iolog::Iolog;
use self::latency::Latency;
use self::replay::Replayer;
use self::verify::Verify;
use crate::workload::job::Prepared;
use crate::workload::log::Log;

/// A hook's verdict that the job fails: the line said first (if any),
/// then fio's errno and error text (the first error is the one reported).
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) say: Option<String>,
    pub(crate) errno: i32,
    pub(crate) msg: String,
}

/// The hooks of one job (the zones are the generator's: see `zbd`).
pub(crate) struct Hooks<'j> {
    pub(crate) verify: Option<Verify>,
    pub(crate) latency: Option<Latency>,
    pub(crate) replay: Option<Replayer<'j>>,
    pub(crate) iolog: Option<Iolog>,
    pub(crate) flow: Option<Flow>,
    pub(crate) act: Option<Act>,
}

impl<'j> Hooks<'j> {
    /// The hooks `job` uses on an engine that `is_sync`, whose passes
    /// count no bytes (`no_pass_bytes`: a synchronous engine's, or
    /// offloaded), and the failure of a log that could not be opened.
    pub(crate) fn new(
        job: &'j Prepared<'_>,
        is_sync: bool,
        no_pass_bytes: bool,
        log: &dyn Log,
    ) -> (Hooks<'j>, Result<(), Fail>) {
        let spec = job.spec;
        let replay = Replayer::start(job, log);
        let (iolog, started) = match Iolog::start(job, log) {
            Ok(l) => (l, Ok(())),
            Err(f) => (None, Err(f)),
        };
        let hooks = Hooks {
            verify: Verify::new(job, no_pass_bytes),
            latency: Latency::new(spec),
            replay,
            iolog,
            flow: Flow::new(job.links.flow.clone()),
            act: Act::new(spec.host.act.as_ref(), is_sync, spec.release),
        };
        (hooks, started)
    }
}
