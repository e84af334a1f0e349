//! I/O engines: how one I/O reaches the file.
//!
//! The contract is fio's (`queue`, `commit`, `getevents`, `event`), in
//! `engine.rs`, over the values of `io.rs`; each engine lives in its own
//! small file, and the workload asks capabilities, never engine names.
//! [`IoEngine::queue`] is `unsafe`: its caller guarantees the I/O's buffer
//! until the I/O completes (its `# Safety` section says what exactly).
//! What engines share lives once: the table of open files (`files.rs`,
//! fio's `generic_open_file`; an engine that keeps its files there hands
//! it to the trait's `files`, whose default methods invalidate, advise and
//! close them) and the command priorities (`cmdprio.rs`).
//!
//! # How an engine declares itself
//! An engine's file holds, besides its code (fio's `struct ioengine_ops`):
//!
//! - `FLAGS`, what it is ([`EngineFlags`]: fio's `.flags`, built from
//!   fio's `FIO_*` bits, plus rfio's own: it changes files, runs programs,
//!   where fio reports its failed open, ...), known by name without
//!   starting it ([`flags()`]): everything outside `src/ioengine` asks these,
//!   never an engine's name;
//! - `CAPS`, what it can do ([`Caps`]: fio's `FIO_SYNCIO`,
//!   `FIO_DISKLESSIO`, `FIO_NOEXTEND`, ...), or a `caps` function when that
//!   depends on the job (null is synchronous at iodepth 1 only);
//! - its own options, when it has any, as fio's engine `.options` table: a
//!   struct of their resolved values (`UringOptions`: `hipri`, `fixedbufs`,
//!   `registerfiles`, `sqthread_poll`, `sqthread_poll_cpu`, `nonvectored`,
//!   `uncached`, `nowait`, `force_async`, `cmdprio_*`; `LibaioOptions`:
//!   `userspace_reap`, `nowait`, `cmdprio_*`; `Pvsync2Options`: `hipri`,
//!   `hipri_percentage`, `uncached`, `nowait`; `MmapOptions`: `thp`;
//!   `FileStatOptions`: `stat_type`; `CpuioOptions`: `cpuload`, `cpumode`,
//!   `cpuchunks`, `exit_on_io_done`; `ExecOptions`: `program`,
//!   `arguments`, `grace_time`, `std_redirect`; `NetOptions` (net and
//!   netsplice): `hostname`, `port`, `protocol`, `listen`, `pingpong`,
//!   `nodelay`, `window_size`, `mss`, `ttl`, `interface`; `NbdOptions`:
//!   `uri`; `HttpOptions`: `https`, `http_*`; `E4defragOptions`:
//!   `donorname`, `inplace`; libpmem's `PmemOptions` and dev-dax's
//!   `DevdaxOptions` hold what they need of the job), `OPTIONS`, their
//!   fio names, and `options`, which builds the struct from the values the
//!   plan hands it ([`OptionValues`]: each option as set, else the option
//!   table's default; and the job's [`JobFacts`]) or refuses them
//!   ([`Refusal`]);
//! - `new`, which starts an instance from the options every engine reads
//!   ([`CommonOptions`]: `iodepth`, `direct`, `iodepth_batch_complete_min`,
//!   the job's priority), its own options and the job's buffer pool.
//!
//! Besides the I/O, the trait has hooks an engine overrides when it
//! needs them, each with a default that does nothing: `notice` (a line
//! for the user: cpuio's and exec's start lines, net's `waiting for
//! connection`), `think_us` (the think time a `no_io` engine sets),
//! `done` (fio's `td->done`), `watch_stop` (the stop request, for long
//! waits), `stats_start_at_open`, `close_error` and `take_dropped` (net),
//! `queue_error` (how fio reports an error of `queue`: nbd's is
//! `td_io_queue`'s). An engine with fio's `.setup` (nbd: the size of its
//! server's export) declares it in its [`EngineDef`].
//! Engines fio has and rfio does not run are refused by the plan
//! (`plan::engine::refusal`), naming what they need.
//!
//! The plan resolves a job's engine once (`src/plan/engine.rs`, the same
//! for every engine) into an [`EngineSpec`]: the common options and the
//! engine's variant of [`EngineOptions`], which the engine's `options`
//! builds. A new engine touches its own file, its line in
//! [`ENGINES`](registry::ENGINES) (with its variant of [`EngineOptions`]
//! when it has options) and its `mod` line here; one that a release after
//! 3.33 brought has its `Change::Engine` entry in `release::CHANGES`
//! (naming the engine whose options table it shares, if any), which is
//! how the options layer, the plan and `--enghelp` know it exists only
//! from that release (fio 3.37's dircreate, dirstat, dirdelete).
//! The six file-operation engines (filecreate, filestat, filedelete,
//! dircreate, dirstat, dirdelete) share one file and one engine,
//! `fileop::FileOp`: each is a `FileOpDef` there (its call, name, flags
//! and where fio reports a failed call) and a `file_op!` line in the list.
//! `plan::engine`'s tests check that each engine declares exactly the
//! options of its fio table that rfio runs.

mod buf;
/// `cmdprio_*`: which I/Os of a job get which priority.
pub(crate) mod cmdprio;
mod engine;
mod error;
mod files;
mod flags;
mod input;
mod io;
mod mem;
mod registry;
mod wait;

mod cpuio;
mod devdax;
mod e4defrag;
mod exec;
mod falloc;
mod fileop;
mod ftruncate;
mod http;
mod io_uring;
mod libaio;
mod libpmem;
mod mmap;
mod nbd;
mod net;
mod null;
mod posixaio;
mod psync;
mod pvsync;
mod pvsync2;
mod splice;
mod sync;
mod vsync;

pub use buf::AlignedBuf;
pub(crate) use buf::ALIGN;
pub(crate) use cmdprio::{CmdPrio, CmdPrioError, CmdPrioOptions, CmdPrioSetting, SplitEntry};
pub use engine::CommonOptions;
pub(crate) use engine::{mono_ns, Caps, IoEngine, QueueError, StopFlag};
pub(crate) use error::SetupError;
pub(crate) use files::{set_write_hint, sync_range};
pub(crate) use flags::not_run;
pub use flags::EngineFlags;
pub(crate) use flags::GENERIC_OPEN;
#[cfg(test)]
pub(crate) use flags::NOT_RUN;
pub(crate) use input::{JobFacts, OptionValues, Refusal};
pub(crate) use io::Completion;
pub(crate) use io::{EngineError, FileId, IoResult};
pub use io::{FileTarget, Io, IoMem, OpenFlags, Queued};
pub(crate) use mem::{IoMemory, MemKind, MemSpec};
pub(crate) use pvsync2::{RWF_DONTCACHE, RWF_UNCACHED};
#[cfg(test)]
pub(crate) use registry::ENGINES;
// The engines' option types, for the plan's tests of what each engine
// resolves (the plan itself hands the engines values, never builds them).
pub use registry::{flags, lookup, names, EngineSpec};
pub(crate) use registry::{EngineDef, EngineOptions};
#[cfg(test)]
pub(crate) use {
    cpuio::{CpuMode, CpuioOptions},
    e4defrag::E4defragOptions,
    exec::ExecOptions,
    fileop::{FileStatOptions, StatType},
    http::{HttpMode, HttpOptions},
    io_uring::UringOptions,
    libaio::LibaioOptions,
    nbd::NbdOptions,
    net::{NetOptions, Proto},
    pvsync2::Pvsync2Options,
};
