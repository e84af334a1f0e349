//! `io_submit_mode=offload` (fio 3.33's `rate-submit.c` and
//! `workqueue.c`): the job thread fills each I/O and hands it to a pool of
//! submit workers, one per unit of `iodepth`, each with its own instance of
//! the job's engine at one I/O at a time. A worker queues the I/O, commits
//! and waits for it when the engine did not complete it at once, and hands
//! the completion back; the job thread accounts it. With a synchronous
//! engine, `iodepth` I/Os are then in flight at once (fio too keeps
//! `iodepth` units, and only notes that a synchronous engine is capped).
//!
//! To the I/O loop the pool is one asynchronous engine, [`Offload`]: its
//! `queue` hands the I/O over, its `getevents` waits for the workers'
//! completions. What fio reports differently under offload follows from
//! that, as in fio:
//!
//! - the time an I/O waits for a worker is part of its latency (`lat` runs
//!   from when the I/O was filled); the worker's issue time starts `clat`;
//!   a synchronous engine records no `slat`, an asynchronous one (libaio,
//!   null at `iodepth` > 1) the time from filling to its submission;
//! - every worker runs at depth 1: the I/O depth distribution is all at 1,
//!   and each I/O is one submission and one completion;
//! - the pass counts no issued bytes (fio's `do_io` does not, for an
//!   offloaded I/O), as with an inline synchronous engine;
//! - a rate wait lets the I/O in flight go on (inline, fio quiesces
//!   first): the job keeps to its rate whatever the workers' latency;
//! - with `serialize_overlap`, a worker waits until no I/O in flight in any
//!   offloaded job with `serialize_overlap` overlaps its I/O's range (fio's
//!   `check_overlap`, which compares offsets only, whatever the file):
//!   [`Overlaps`], one per run (`super::links`);
//! - io_uring cannot be offloaded (fio's `FIO_NO_OFFLOAD`): the run is
//!   refused before any job runs, in fio's words ([`refusal`]).
//!
//! fio's verify phase (`do_verify`) submits inline even when offloaded;
//! here its reads go through the pool too.
//!
//! The workers' times are taken on the monotonic clock and turned into the
//! loop's clock when the loop reaps ([`Stamps`]). The engines (file
//! operation engines apart, which run inline) are opened, invalidated and
//! closed on every worker's instance, from the job thread.

use crate::release::places::Site;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::errno::{engine_verror, verror};
use super::job::Prepared;
use super::links::Overlaps;
use super::log::Log;
use super::placement::Failure;
use crate::ioengine::{
    Caps, Completion, EngineError, FileId, FileTarget, Io, IoEngine, IoMem, StopFlag,
};
use crate::ioengine::{IoResult, Queued};
use crate::plan::spec::JobSpec;

/// fio's refusal of a job whose engine cannot be offloaded (fio's
/// `FIO_NO_OFFLOAD`: io_uring), which it makes while it adds the job (its
/// `ioengine_load`), before any job runs.
pub(crate) fn refusal(spec: &JobSpec) -> Option<String> {
    spec.submit.engine_refuses.then(|| {
        format!(
            "{}: can't be used with offloaded submit. Use a sync engine\n\
             fio: failed to load engine",
            spec.ioengine
        )
    })
}

/// The engine the loop drives (the pool), and the stamps of its
/// completions.
pub(super) type Started = (Box<dyn IoEngine>, Arc<Stamps>);

/// The stack of a submit worker: it runs one engine call at a time.
const WORKER_STACK: usize = 256 * 1024;

/// Whether `job` submits through the pool: `io_submit_mode=offload`, on
/// an engine that moves data (a file operation engine does its work when
/// the loop opens the file, cpuio and exec none: they run inline).
pub(super) fn applies(job: &Prepared<'_>) -> bool {
    job.spec.submit.offload && !job.caps.file_op && !job.caps.no_io
}

/// Start the pool for `job` on `engine` (the job's instance, which becomes
/// the first worker's) over `mem`, `depth` workers in all. Returns the
/// engine the loop drives and the stamps of its completions. Messages of
/// a failure go to `log`, as fio prints them.
pub(super) fn start(
    job: &Prepared<'_>,
    engine: Box<dyn IoEngine>,
    mem: IoMem,
    depth: usize,
    stop: StopFlag,
    log: &dyn Log,
) -> Result<Started, Failure> {
    let spec = job.spec;
    let mut engines = Vec::with_capacity(depth);
    engines.push(engine);
    while engines.len() < depth.max(1) {
        match (job.engine.new)(job.engine_spec(), mem, Some(stop)) {
            Ok(e) => engines.push(e),
            Err(e) => {
                log.err(&format!("fio: {} engine: {e}\n", job.engine.name));
                return Err(Failure::Error(e.errno, engine_verror(&e, None)));
            }
        }
    }
    let overlap = if spec.exec.serialize_overlap {
        job.links.overlap.clone()
    } else {
        None
    };
    let off = Offload::new(engines, depth.max(1), overlap).map_err(|e| {
        let errno = e.raw_os_error().unwrap_or(libc::EAGAIN);
        Failure::Error(
            errno,
            verror(
                spec.release.place(Site::WorkqueueInit),
                "workqueue_init",
                errno,
            ),
        )
    })?;
    let stamps = Arc::clone(&off.stamps);
    Ok((Box::new(off), stamps))
}

/// When each unit's last I/O was issued and completed, as the workers took
/// the times: ns since `base` on the monotonic clock. Written by
/// [`Offload::getevents`] and read by the loop as it accounts the
/// completion, both on the job thread.
#[derive(Debug)]
pub(crate) struct Stamps {
    base: Instant,
    issued: Box<[AtomicU64]>,
    done: Box<[AtomicU64]>,
    /// Whether a worker's I/O counts as a submission and as a completion
    /// in the job's batch distributions ([`Stamps::marks`]).
    marks: (bool, bool),
}

impl Stamps {
    fn new(depth: usize, inner: Caps) -> Stamps {
        let zeros = || (0..depth).map(|_| AtomicU64::new(0)).collect();
        // fio's td_io_queue counts one of each for an engine without a
        // commit; with one, its commit counts the submission (libaio; a
        // synchronous answer commits nothing) and getevents the
        // completion.
        let marks = if !inner.has_commit {
            (true, true)
        } else if inner.is_sync {
            (false, false)
        } else {
            (!inner.fake_io, true)
        };
        Stamps {
            base: Instant::now(),
            issued: zeros(),
            done: zeros(),
            marks,
        }
    }

    /// Whether each offloaded I/O counts as a submission of 1 and a
    /// completion of 1 (`iodepth_submit`, `iodepth_complete`).
    pub(crate) fn marks(&self) -> (bool, bool) {
        self.marks
    }

    fn since_base(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.base).as_nanos() as u64
    }

    /// The monotonic time now, as the stamps count it.
    pub(crate) fn now(&self) -> u64 {
        self.since_base(Instant::now())
    }

    /// Unit `token`'s issue and completion times on the loop's clock,
    /// which reads `loop_now` at monotonic time `mono_now` ([`Self::now`]).
    pub(crate) fn times(&self, token: u32, loop_now: u64, mono_now: u64) -> (u64, u64) {
        let t = token as usize;
        let on_loop = |mono: u64| loop_now.saturating_sub(mono_now.saturating_sub(mono));
        (
            on_loop(self.issued[t].load(Ordering::Relaxed)),
            on_loop(self.done[t].load(Ordering::Relaxed)),
        )
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An engine instance that moves to a worker thread (engines are `Send`).
struct EngineBox(Box<dyn IoEngine>);

/// An I/O on its way to a worker.
#[derive(Clone, Copy)]
struct SendIo(Io);

// SAFETY: the buffer an `Io` points into stays valid and untouched by the
// job thread until the I/O's completion comes back (the loop's contract
// with `IoEngine::queue`, which `Offload::queue` passes on to the worker).
unsafe impl Send for SendIo {}

/// One worker's engine and its ids of the job's files, by the first
/// engine's id.
struct Slot {
    engine: EngineBox,
    files: Vec<FileId>,
}

/// A completed I/O, as a worker hands it back.
#[derive(Clone, Copy)]
struct Done {
    token: u32,
    result: IoResult,
    issued: u64,
    done: u64,
    prio: u16,
}

#[derive(Default)]
struct Queue {
    ios: VecDeque<SendIo>,
    closing: bool,
    /// Workers waiting for an I/O (a hand-over wakes one only then).
    idle: usize,
}

/// The completions handed back, and whether the job thread waits for them.
#[derive(Default)]
struct DoneQueue {
    done: VecDeque<Done>,
    waiting: bool,
}

struct Shared {
    slots: Box<[Mutex<Slot>]>,
    queue: Mutex<Queue>,
    queue_cv: Condvar,
    done: Mutex<DoneQueue>,
    done_cv: Condvar,
    overlap: Option<Arc<Overlaps>>,
    caps: Caps,
    base: Instant,
}

/// The pool, as the loop's engine.
pub(crate) struct Offload {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    name: &'static str,
    caps: Caps,
    /// The completions the last `getevents` took.
    events: Vec<Done>,
    /// The priority slot of each unit's last completion.
    prio: Box<[u16]>,
    stamps: Arc<Stamps>,
}

impl Offload {
    fn new(
        engines: Vec<Box<dyn IoEngine>>,
        depth: usize,
        overlap: Option<Arc<Overlaps>>,
    ) -> std::io::Result<Offload> {
        let inner = engines[0].caps();
        let name = engines[0].name();
        let stamps = Arc::new(Stamps::new(depth, inner));
        let shared = Arc::new(Shared {
            slots: engines
                .into_iter()
                .map(|e| {
                    Mutex::new(Slot {
                        engine: EngineBox(e),
                        files: Vec::new(),
                    })
                })
                .collect(),
            queue: Mutex::new(Queue {
                ios: VecDeque::with_capacity(depth),
                closing: false,
                idle: 0,
            }),
            queue_cv: Condvar::new(),
            done: Mutex::new(DoneQueue {
                done: VecDeque::with_capacity(depth),
                waiting: false,
            }),
            done_cv: Condvar::new(),
            overlap,
            caps: inner,
            base: stamps.base,
        });
        let mut off = Offload {
            shared: Arc::clone(&shared),
            workers: Vec::with_capacity(depth),
            name,
            // The loop hands each I/O over in `queue`: nothing to commit.
            caps: Caps {
                has_commit: false,
                ..inner
            },
            events: Vec::with_capacity(depth),
            prio: vec![0; depth].into_boxed_slice(),
            stamps,
        };
        for w in 0..depth {
            let shared = Arc::clone(&shared);
            let h = std::thread::Builder::new()
                .name(format!("rfio-submit-{w}"))
                .stack_size(WORKER_STACK)
                .spawn(move || worker(&shared, w))?;
            off.workers.push(h);
        }
        Ok(off)
    }

    /// Run `f` on every worker's engine, in turn.
    fn each<R>(&mut self, mut f: impl FnMut(&mut Slot) -> R) -> Vec<R> {
        self.shared.slots.iter().map(|s| f(&mut lock(s))).collect()
    }
}

/// Worker `w`: take the next I/O, do it on its engine, hand it back.
fn worker(shared: &Shared, w: usize) {
    loop {
        let io = {
            let mut q = lock(&shared.queue);
            loop {
                if let Some(io) = q.ios.pop_front() {
                    break io.0;
                }
                if q.closing {
                    return;
                }
                q.idle += 1;
                q = shared.queue_cv.wait(q).unwrap_or_else(|e| e.into_inner());
                q.idle -= 1;
            }
        };
        let range = (io.offset, io.offset + io.len as u64);
        if let Some(o) = &shared.overlap {
            o.enter(range.0, range.1);
        }
        let done = {
            let mut slot = lock(&shared.slots[w]);
            slot.run(io, shared)
        };
        if let Some(o) = &shared.overlap {
            o.leave(range.0, range.1);
        }
        let mut d = lock(&shared.done);
        d.done.push_back(done);
        let wake = d.waiting;
        drop(d);
        if wake {
            shared.done_cv.notify_one();
        }
    }
}

impl Slot {
    /// Do `io` on this worker's engine, at depth 1 (fio's
    /// `io_workqueue_fn` with the worker's `iodepth=1`).
    fn run(&mut self, mut io: Io, shared: &Shared) -> Done {
        let caps = shared.caps;
        let now = || shared.base.elapsed().as_nanos() as u64;
        if let Some(&id) = self.files.get(io.file.0 as usize) {
            io.file = id;
        }
        let e = &mut self.engine.0;
        let mut issued = now();
        let result = loop {
            // SAFETY: the loop's guarantees for `io` (valid buffer, token
            // unique in flight, file open) hold until its completion comes
            // back, after this returns; this engine has nothing else in
            // flight.
            match unsafe { e.queue(&io) } {
                Queued::Completed(r) => break r,
                Queued::Queued => {
                    if caps.has_commit {
                        let c = e.commit();
                        issued = now();
                        if let Err(errno) = c {
                            break Err(errno);
                        }
                    } else if !caps.is_sync {
                        issued = now();
                    }
                    break match e.getevents(1, 1, None) {
                        Ok(n) if n > 0 => e.event(0).result,
                        Ok(_) => Err(libc::EIO),
                        Err(errno) => Err(errno),
                    };
                }
                Queued::Busy => {
                    // Nothing of this engine is in flight: submit what it
                    // holds and try again.
                    let _ = e.commit();
                    std::thread::yield_now();
                    issued = now();
                }
            }
        };
        Done {
            token: io.token,
            result,
            issued,
            done: now(),
            prio: e.prio_slot(io.token),
        }
    }
}

impl IoEngine for Offload {
    fn name(&self) -> &'static str {
        self.name
    }

    fn caps(&self) -> Caps {
        self.caps
    }

    fn open(&mut self, target: &FileTarget) -> Result<FileId, EngineError> {
        let mut first = None;
        for s in self.shared.slots.iter() {
            let mut s = lock(s);
            let id = s.engine.0.open(target)?;
            let key = *first.get_or_insert(id);
            let k = key.0 as usize;
            if s.files.len() <= k {
                s.files.resize(k + 1, FileId(0));
            }
            s.files[k] = id;
        }
        Ok(first.unwrap_or(FileId(0)))
    }

    fn post_init(&mut self) -> Result<(), EngineError> {
        self.each(|s| s.engine.0.post_init()).into_iter().collect()
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        let mut q = lock(&self.shared.queue);
        q.ios.push_back(SendIo(*io));
        let wake = q.idle > 0;
        drop(q);
        if wake {
            self.shared.queue_cv.notify_one();
        }
        Queued::Queued
    }

    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        timeout: Option<Duration>,
    ) -> Result<usize, i32> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut done = lock(&self.shared.done);
        let cv = &self.shared.done_cv;
        while done.done.len() < min {
            done.waiting = true;
            done = match deadline {
                None => cv.wait(done).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    match cv.wait_timeout(done, left) {
                        Ok((g, _)) => g,
                        Err(e) => e.into_inner().0,
                    }
                }
            };
        }
        done.waiting = false;
        self.events.clear();
        let n = done.done.len().min(max.max(min));
        self.events.extend(done.done.drain(..n));
        drop(done);
        for d in &self.events {
            let t = d.token as usize;
            self.stamps.issued[t].store(d.issued, Ordering::Relaxed);
            self.stamps.done[t].store(d.done, Ordering::Relaxed);
            self.prio[t] = d.prio;
        }
        Ok(n)
    }

    fn event(&mut self, i: usize) -> Completion {
        let d = self.events[i];
        Completion {
            token: d.token,
            result: d.result,
        }
    }

    fn new_loop(&mut self) {
        self.each(|s| s.engine.0.new_loop());
    }

    fn prio_slot(&self, token: u32) -> u16 {
        self.prio[token as usize]
    }

    fn invalidate(&mut self, file: FileId) -> Result<(), i32> {
        let mut s = lock(&self.shared.slots[0]);
        s.engine.0.invalidate(file)
    }

    fn fadvise(&mut self, file: FileId, offset: u64, len: u64, advice: i32) -> Result<(), i32> {
        let mut s = lock(&self.shared.slots[0]);
        s.engine.0.fadvise(file, offset, len, advice)
    }

    fn close_all(&mut self) {
        self.each(|s| {
            s.engine.0.close_all();
            s.files.clear();
        });
    }
}

impl Drop for Offload {
    fn drop(&mut self) {
        lock(&self.shared.queue).closing = true;
        self.shared.queue_cv.notify_all();
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}
