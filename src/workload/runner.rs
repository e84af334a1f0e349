//! Runs a plan: each reporting group's jobs concurrently, groups in order.

mod setup;

use setup::{
    announce_opendir, check_devices, note_sprandom, serial_setup, setup_failure, warn_no_runtime,
    Laid,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::dedupe::DedupePeers;
pub(crate) use super::error::RunError;
use super::job::Prepared;
use super::links::RunLinks;
pub(crate) use super::log::{Log, StdLog};
use super::progress::{JobState, Progress};
use super::safety::{self};
use super::steadystate::Monitor;
use super::stop::{JobStops, Stop};
use super::zbd::ZbdRegistry;
use crate::plan::resolve::io::ExitWhat;
use crate::plan::resolve::zones::ZoneMode;
use crate::plan::spec::{JobSpec, Plan};
use crate::stats::{DiskWatch, JobReport, RunReport};

/// The most jobs a run may have, counted over all its groups: fio 3.33
/// keeps its jobs in shared-memory segments of 8, at most 511 of them, and
/// refuses the 4,089th job while it reads the job options (`--max-jobs` is
/// accepted and ignored).
pub(crate) const MAX_RUN_JOBS: usize = 4088;

/// What fio 3.33 refuses while it adds the jobs of a run (after
/// `--parse-only` would have stopped): the number of jobs added before the
/// refused one, and the refusal. An engine that cannot be offloaded
/// (`io_submit_mode=offload`), a job whose minimum rate is above its rate
/// in some direction (the first such job, in order: fio stops adding jobs
/// there), or more than [`MAX_RUN_JOBS`] jobs.
pub(crate) fn refusal_when_added(plan: &Plan) -> Result<(), (usize, RunError)> {
    for (i, spec) in plan.jobs.iter().enumerate() {
        if i == MAX_RUN_JOBS {
            return Err((i, RunError::TooManyJobs));
        }
        if let Some(msg) = super::offload::refusal(spec) {
            return Err((
                i,
                RunError::Refused {
                    job: spec.name.clone(),
                    msg,
                },
            ));
        }
        if let Some(msg) = sprandom_refusal(spec) {
            return Err((
                i,
                RunError::Refused {
                    job: spec.name.clone(),
                    msg,
                },
            ));
        }
        let dirs = spec.rate.min_above_rate();
        if !dirs.is_empty() {
            return Err((i, RunError::MinRateAboveRate { dirs }));
        }
        // After the job's description line.
        if let Some(e) = super::steadystate::refusal(plan, i) {
            return Err((i + 1, e));
        }
    }
    Ok(())
}

/// fio's refusal of a `sprandom` job that cannot run it (`fixup_options`):
/// its errors, then the notes of what it set.
fn sprandom_refusal(spec: &JobSpec) -> Option<String> {
    let s = spec.offsets.sprandom.as_ref()?;
    let mut msg = format!("fio: {}", s.refusal.as_ref()?.0);
    for note in &s.notes {
        msg.push('\n');
        msg.push_str(note);
    }
    Some(msg)
}

/// Run every job of `plan` and collect the results; live messages go to
/// stdout and stderr.
pub fn run(plan: &Plan) -> Result<RunReport, RunError> {
    run_with_log(plan, &StdLog)
}

/// Run every job of `plan`, sending live messages to `log`.
pub fn run_with_log(plan: &Plan, log: &dyn Log) -> Result<RunReport, RunError> {
    run_with_progress(plan, log, &Progress::new(plan.jobs.len()), &Stop::new())
}

/// Run every job of `plan`, sending live messages to `log` and publishing
/// each job's state and counters in `progress` (one entry per job of the
/// plan) while it runs.
///
/// Groups run one after another in group-id order (so a `stonewall` job
/// waits for all earlier ones). Before a group starts, its jobs' files are
/// laid out one job at a time (fio's `create_serialize`); then each job
/// gets its own OS thread. I/O errors of a job end that job and are
/// recorded in its report; only problems found before anything is written
/// are returned as [`RunError`].
///
/// A `stop` request (made by rfio's SIGINT handler) ends every running
/// job at its next I/O and keeps the groups not started from starting; the
/// report holds what was done.
pub(crate) fn run_with_progress(
    plan: &Plan,
    log: &dyn Log,
    progress: &Progress,
    stop: &Stop,
) -> Result<RunReport, RunError> {
    assert_eq!(progress.jobs().len(), plan.jobs.len());
    if plan.jobs.len() > MAX_RUN_JOBS {
        return Err(RunError::TooManyJobs);
    }
    // fio lists each job's seeds as it adds the job.
    super::offsets::seeds::list(plan);
    warn_no_runtime(plan, log);
    note_sprandom(plan, log);
    announce_opendir(plan, log);
    let started_ms = epoch_ms();
    // The time thread of `gtod_cpu`; the control groups the jobs make go
    // when the run is over.
    let _host = super::host::RunHost::start(plan, log);
    let run = RunCtx {
        plan,
        log,
        progress,
        stop,
        // dedupe_global: the working set spans every job's buffer generator.
        peers: &super::dedupe::DedupePeers::of(&plan.jobs),
        // Flows: every job joins its flow now (fio's `add_job`).
        links: &RunLinks::new(&plan.jobs),
        // zonemode=zbd: the zones of each file, shared by the run's jobs.
        zbd: &ZbdRegistry::default(),
    };
    let (mut prepared, mut setup_failed) = run.prepare_jobs()?;
    // Disk utilisation of the devices under the jobs' files (fio's
    // `disk_util`, on by default; diskless engines have none), found as
    // each group starts.
    let mut disks = DiskWatch::default();
    let ends = Ends {
        done: (0..plan.jobs.len())
            .map(|_| (Mutex::new(false), Condvar::new()))
            .collect(),
        stop_everything: AtomicBool::new(false),
        // fio's `exitall` is global: once set by any job, the first job to
        // finish stops the others of its group.
        exitall: prepared.iter().flatten().any(|p| p.set.exitall),
    };
    let mut jobs: Vec<Option<JobReport>> = vec![None; plan.jobs.len()];
    // create_serialize: every such job's files, in job order, now.
    let mut serial = serial_setup(
        plan,
        &mut prepared,
        &mut setup_failed,
        run.peers,
        run.links,
        run.zbd,
        progress,
        log,
        stop,
    )?;
    for g in 0..plan.groups() {
        let members = run.group_members(g, &mut prepared, &mut setup_failed, &mut jobs, &ends)?;
        // fio finds a job's disks as it creates its thread: after the
        // create_serialize layouts, before the job's own.
        for &i in &members {
            if let Some(p) = prepared[i].as_ref() {
                watch_disks(&mut disks, p, log);
            }
        }
        let layouts = run.group_layouts(&members, &prepared, &mut serial, &ends);
        run.run_group(&members, layouts, &prepared, &mut jobs, &ends);
    }
    let jobs: Vec<JobReport> = jobs.into_iter().flatten().collect();
    Ok(RunReport::new(
        jobs,
        crate::plan::report::global_options(plan),
        started_ms,
        epoch_ms(),
        disks.finish(),
    )
    .of_release(plan.release))
}

/// What the steps of a run read: the plan, where messages go, the status
/// line, the run's stop, and what its jobs share (the dedupe working set,
/// the flows, the zones).
struct RunCtx<'p, 'r> {
    plan: &'p Plan,
    log: &'r dyn Log,
    progress: &'r Progress,
    stop: &'r Stop,
    peers: &'r DedupePeers,
    links: &'r RunLinks,
    zbd: &'r ZbdRegistry,
}

/// How the jobs of a run end one another: each job's done flag (for
/// `wait_for`), the stop of every group to come (`exit_what=all`, a
/// signal), and `exitall`.
struct Ends {
    done: Vec<(Mutex<bool>, Condvar)>,
    stop_everything: AtomicBool,
    exitall: bool,
}

impl Ends {
    /// The run is stopping: no more job starts.
    fn stopped(&self, stop: &Stop) -> bool {
        self.stop_everything.load(Ordering::Relaxed) || stop.requested()
    }
}

impl<'p> RunCtx<'p, '_> {
    /// Every job made ready before the first group starts, and the report
    /// of each that failed its setup. A job that fails its setup is
    /// reported failed and the others run (fio's `setup_files` failing in
    /// `run_threads`); other problems (refused devices, no space) stop the
    /// whole run before anything is written.
    #[allow(clippy::type_complexity)]
    fn prepare_jobs(
        &self,
    ) -> Result<(Vec<Option<Prepared<'p>>>, Vec<Option<JobReport>>), RunError> {
        let (plan, log) = (self.plan, self.log);
        let mut setup_failed: Vec<Option<JobReport>> = vec![None; plan.jobs.len()];
        let mut prepared: Vec<Option<Prepared<'p>>> = Vec::with_capacity(plan.jobs.len());
        for (i, spec) in plan.jobs.iter().enumerate() {
            // A later group's zones are read when the group starts.
            let zones = (spec.group_id == 0).then_some(self.zbd);
            match Prepared::new_in(spec, zones, self.stop) {
                Ok(mut p) => {
                    p.filler.share_working_set(self.peers);
                    p.links = self.links.of(i, spec);
                    if spec.group_id > 0 {
                        // Set up again when its group starts: its generators
                        // (a random map is a bit per block) need not wait in
                        // memory until then, and a group that never starts
                        // never needs them.
                        p.release_gen();
                    }
                    prepared.push(Some(p))
                }
                // An earlier job's layout (or, without create_serialize, an
                // earlier group) may create the file this job needs a size
                // from: it is set up again then. Likewise the log a
                // replaying job of a later group reads (fio reads it as the
                // job starts).
                Err(RunError::NoSize { .. }) if i > 0 || !spec.file.create_serialize => {
                    prepared.push(None)
                }
                Err(RunError::Iolog { .. }) if spec.group_id > 0 => prepared.push(None),
                Err(e) => {
                    setup_failed[i] = Some(setup_failure(spec, &e, log).ok_or(e)?);
                    prepared.push(None);
                }
            }
        }
        // cpuio's exit_on_io_done waits for the jobs that do I/O.
        self.progress.count_io_jobs(plan.jobs.iter().map(|s| {
            crate::ioengine::lookup(&s.ioengine).is_some_and(|e| !(e.caps)(&s.engine).no_io)
        }));
        // fio 3.42's ramp_size with group_reporting: the group's bytes.
        self.progress.share_ramp_groups(
            plan.jobs
                .iter()
                .map(|s| (s.group_reporting && s.ramp_size > 0).then_some(s.group_id)),
        );
        check_devices(prepared.iter().flatten())?;
        for (p, job) in prepared.iter().zip(self.progress.jobs()) {
            if let Some(p) = p {
                job.set_total_bytes(p.total_bytes);
            }
        }
        let needs: Vec<_> = prepared
            .iter()
            .flatten()
            .flat_map(|p| p.layout_needs())
            .collect();
        safety::check_space(&needs)?;
        Ok((prepared, setup_failed))
    }

    /// The jobs of group `g` that start: set up as the group starts
    /// (unless the run is stopping), those that failed their setup left
    /// out, their report ready in `jobs` and whoever waits for them
    /// (`wait_for`) free to go on.
    fn group_members(
        &self,
        g: u32,
        prepared: &mut [Option<Prepared<'p>>],
        setup_failed: &mut [Option<JobReport>],
        jobs: &mut [Option<JobReport>],
        ends: &Ends,
    ) -> Result<Vec<usize>, RunError> {
        let plan = self.plan;
        let mut members: Vec<usize> = (0..plan.jobs.len())
            .filter(|&i| plan.jobs[i].group_id == g)
            .collect();
        if !ends.stopped(self.stop) {
            self.set_group_up(&members, prepared, setup_failed)?;
        }
        members.retain(|&i| match setup_failed[i].take() {
            Some(report) => {
                jobs[i] = Some(settle(i, report, &ends.done, self.progress));
                false
            }
            None => true,
        });
        Ok(members)
    }

    /// The layout of each of a group's `members`: done before the first
    /// group (`serial`, create_serialize), or now, one job after another
    /// (none once the run is stopping).
    fn group_layouts(
        &self,
        members: &[usize],
        prepared: &[Option<Prepared<'p>>],
        serial: &mut [Option<Laid>],
        ends: &Ends,
    ) -> Vec<Laid> {
        let (log, stop) = (self.log, self.stop);
        members
            .iter()
            .map(|&i| match serial[i].take() {
                Some(laid) => laid,
                None if ends.stopped(stop) => Ok(None),
                None => {
                    let p = prepared[i].as_ref().expect("set up");
                    let laid = p.lay_out(log, stop);
                    p.zbd_notes(log);
                    laid
                }
            })
            .collect()
    }

    /// A group starts: without create_serialize fio sets a job's files up
    /// when it starts, so sizes come from the files as the earlier groups
    /// left them. The others were set up before the first group: their
    /// generators come back.
    fn set_group_up(
        &self,
        members: &[usize],
        prepared: &mut [Option<Prepared<'p>>],
        setup_failed: &mut [Option<JobReport>],
    ) -> Result<(), RunError> {
        let log = self.log;
        for &i in members {
            if setup_failed[i].is_some() {
                continue;
            }
            let spec = &self.plan.jobs[i];
            let zbd_job = matches!(spec.zones, Ok(Some(ZoneMode::Zbd(_))));
            if let Some(p) = prepared[i]
                .as_ref()
                .filter(|_| spec.file.create_serialize && !zbd_job)
            {
                if let Err(e) = p.restore_gen() {
                    setup_failed[i] = Some(setup_failure(spec, &e, log).ok_or(e)?);
                }
                continue;
            }
            match Prepared::new_in(spec, Some(self.zbd), self.stop) {
                Ok(mut p) => {
                    p.filler.share_working_set(self.peers);
                    p.links = self.links.of(i, spec);
                    check_devices(std::iter::once(&p))?;
                    safety::check_space(&p.layout_needs())?;
                    self.progress.jobs()[i].set_total_bytes(p.total_bytes);
                    prepared[i] = Some(p);
                }
                Err(e) => {
                    prepared[i] = None;
                    setup_failed[i] = Some(setup_failure(spec, &e, log).ok_or(e)?);
                }
            }
        }
        Ok(())
    }

    /// Run the group's `members`, each on its own thread with its layout,
    /// all started together, and collect their reports in `jobs`. The
    /// group's stop is the run's, or another job's `exitall`; each job
    /// obeys its own (steady state stops one).
    fn run_group(
        &self,
        members: &[usize],
        layouts: Vec<Laid>,
        prepared: &[Option<Prepared<'p>>],
        jobs: &mut [Option<JobReport>],
        ends: &Ends,
    ) {
        let (plan, progress, stop) = (self.plan, self.progress, self.stop);
        let terminate = JobStops::new(plan.jobs.len());
        if ends.stopped(stop) {
            terminate.request_as(stop);
        }
        let group_over = AtomicBool::new(false);
        let gate = StartGate::default();
        progress.mark_genesis();
        std::thread::scope(|s| {
            let watcher =
                s.spawn(|| watch_stop(stop, &terminate, &ends.stop_everything, &group_over));
            let steady = Monitor::new(plan, members, progress.jobs()).map(|m| {
                let (terminate, group_over) = (&terminate, &group_over);
                s.spawn(move || m.run(progress.origin(), terminate, group_over))
            });
            let mut handles = Vec::with_capacity(members.len());
            // Opened below once every thread exists, or on the way out of a
            // panic here (the scope would wait for threads at the gate).
            let opener = OpenOnDrop(&gate);
            for (&i, layout) in members.iter().zip(layouts) {
                let Some(p) = prepared[i].as_ref() else {
                    // Its size was to come from an earlier group, and a
                    // stop kept it from being set up: it never started.
                    let spec = &plan.jobs[i];
                    let mut report = JobReport::empty(spec.report.clone(), 0);
                    report.latency_depth = Some(0);
                    jobs[i] = Some(settle(i, report, &ends.done, progress));
                    continue;
                };
                let (log, links, terminate, gate) = (self.log, self.links, &terminate, &gate);
                let spawned = std::thread::Builder::new()
                    .stack_size(JOB_STACK)
                    .spawn_scoped(s, move || {
                        job_thread(i, p, layout, (terminate, ends, gate), progress, links, log)
                    });
                match spawned {
                    Ok(h) => handles.push((i, h)),
                    Err(e) => {
                        // No thread for this job (out of threads or memory):
                        // it is reported failed, the others run.
                        let report = no_thread(&plan.jobs[i], &e, self.log);
                        jobs[i] = Some(settle(i, report, &ends.done, progress));
                    }
                }
            }
            // Every thread of the group exists: they start together.
            drop(opener);
            let joined: Vec<_> = handles.into_iter().map(|(i, h)| (i, h.join())).collect();
            // The watcher goes first: a panic below must not leave it waiting.
            group_over.store(true, Ordering::Relaxed);
            watcher.thread().unpark();
            for (i, report) in joined {
                jobs[i] = Some(report.expect("job thread panicked"));
            }
            if let Some(steady) = steady {
                steady.thread().unpark();
                for (i, ss) in steady.join().expect("steady-state monitor panicked") {
                    if let Some(j) = jobs[i].as_mut() {
                        j.steadystate = Some(ss);
                    }
                }
            }
        });
    }
}

/// The thread of job `i`: it waits at the group's gate and for the job it
/// waits for, runs with its `layout`, and ends as its options say (its
/// group's `terminate`, every group's with `exit_what=all`); then whoever
/// waits for it goes on.
fn job_thread(
    i: usize,
    p: &Prepared<'_>,
    layout: Laid,
    (terminate, ends, gate): (&JobStops, &Ends, &StartGate),
    progress: &Progress,
    links: &RunLinks,
    log: &dyn Log,
) -> JobReport {
    let job = &progress.jobs()[i];
    gate.wait();
    if let Some(w) = p.spec.wait_for {
        let (lock, cv) = &ends.done[w];
        let mut finished = lock.lock().expect("no poisoning");
        while !*finished {
            finished = cv.wait(finished).expect("no poisoning");
        }
    }
    job.set_state(JobState::Initialized);
    let report = p.run(layout, terminate.job(i), job, log);
    links.job_over(i);
    job.publish_final(&report);
    job.set_state(JobState::Exited);
    if ends.exitall || (p.set.exitall_on_error && report.error != 0) {
        terminate.request();
        if p.set.exit_what == ExitWhat::All {
            ends.stop_everything.store(true, Ordering::Relaxed);
        }
    }
    let (lock, cv) = &ends.done[i];
    *lock.lock().expect("no poisoning") = true;
    cv.notify_all();
    progress.reap(i, report.error != 0);
    report
}

/// Watch the devices under `p`'s files (fio's `init_disk_util`): a file
/// whose folder does not exist yet has none, and fio's `perror` line says
/// so.
///
/// A job that replays a log has no disk: fio reads the log, which adds its
/// files, in the job's thread (`init_iolog` in `thread_main`), after it
/// looked for the job's disks (`init_disk_util` in `run_threads`).
fn watch_disks(disks: &mut DiskWatch, p: &Prepared<'_>, log: &dyn Log) {
    if !(p.caps.needs_files && p.spec.io.disk_util) || p.replay.is_some() {
        return;
    }
    for f in &p.files {
        if let Err(e) = disks.add_file(&f.path) {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            log.err(&format!(
                "disk util stat: {}\n",
                super::errno::strerror(errno)
            ));
        }
    }
}

/// The stack of a job thread. The I/O loop keeps its state on the heap: in
/// a debug build the engine, verify, log and cmdprio tests all pass with
/// 96 KiB (48 KiB overflows), so this leaves five times that. Below 2 MiB
/// a stack is never backed by a transparent huge page, which would make
/// each job's stack cost 2 MiB of memory.
const JOB_STACK: usize = 512 * 1024;

/// The start line of a group (fio's startup semaphores): its job threads
/// wait here until every one of them has been created, then all go at
/// once, so that the first jobs do not run while the last are still being
/// started.
#[derive(Default)]
struct StartGate {
    open: Mutex<bool>,
    cv: Condvar,
}

impl StartGate {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while !*open {
            open = self.cv.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cv.notify_all();
    }
}

/// Opens its gate when dropped.
struct OpenOnDrop<'a>(&'a StartGate);

impl Drop for OpenOnDrop<'_> {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// Job `i` is over without having run on a thread (its setup failed, or
/// it never started): its report is final, whoever waits for it goes on.
fn settle(
    i: usize,
    report: JobReport,
    done: &[(Mutex<bool>, Condvar)],
    progress: &Progress,
) -> JobReport {
    let (lock, cv) = &done[i];
    *lock.lock().expect("no poisoning") = true;
    cv.notify_all();
    progress.jobs()[i].publish_final(&report);
    progress.reap(i, report.error != 0);
    report
}

/// The report of a job whose thread could not be created (fio logs
/// `pthread_create: ...` and leaves the job unstarted).
fn no_thread(spec: &JobSpec, e: &std::io::Error, log: &dyn Log) -> JobReport {
    let errno = e.raw_os_error().unwrap_or(libc::EAGAIN);
    let msg = super::errno::strerror(errno);
    log.err(&format!(
        "rfio: job '{}': cannot create its thread: {msg}\n",
        spec.name
    ));
    let mut report = JobReport::empty(spec.report.clone(), 0);
    report.error = errno;
    report.error_msg = Some(format!("pthread_create: {msg}"));
    report.latency_depth = Some(0);
    report
}

/// Until the group is over: once `stop` is requested, raise the group's
/// `terminate` and `stop_everything` (fio's `fio_terminate_threads(ALL)`
/// from its SIGINT handler).
fn watch_stop(
    stop: &Stop,
    terminate: &JobStops,
    stop_everything: &AtomicBool,
    group_over: &AtomicBool,
) {
    while !group_over.load(Ordering::Relaxed) {
        if stop.requested() {
            terminate.request_as(stop);
            stop_everything.store(true, Ordering::Relaxed);
            return;
        }
        std::thread::park_timeout(Duration::from_millis(10));
    }
}

/// Milliseconds since the Unix epoch.
fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Records the layout lines, each with whether the job's file existed
    /// when it came.
    struct Seen {
        file: PathBuf,
        lines: Mutex<Vec<(String, bool)>>,
    }

    impl Log for Seen {
        fn info(&self, _: &str) {}
        fn err(&self, _: &str) {}
        fn layout(&self, text: &str) {
            let exists = self.file.exists();
            self.lines.lock().unwrap().push((text.to_string(), exists));
        }
    }

    fn plan(argv: &[String]) -> Plan {
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        crate::plan::testing::plan(&argv)
    }

    /// The line comes before the layout writes anything (fio's
    /// `setup_files` logs it, then extends the files), and the report
    /// still says what was laid out.
    #[test]
    fn the_layout_line_comes_as_the_layout_starts() {
        let dir = std::env::temp_dir().join(format!("rfio-runner-layout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        let _ = std::fs::remove_file(&file);
        let argv: Vec<String> = [
            "--name=a".to_string(),
            format!("--filename={}", file.display()),
            "--rw=read".into(),
            "--size=8m".into(),
            "--bs=1m".into(),
        ]
        .into();
        let log = Seen {
            file: file.clone(),
            lines: Mutex::new(Vec::new()),
        };
        let report = run_with_log(&plan(&argv), &log).unwrap();
        assert_eq!(
            *log.lines.lock().unwrap(),
            [("a: Laying out IO file (1 file / 8MiB)\n".to_string(), false)]
        );
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 8 << 20);
        let laid = report.jobs[0].layout.expect("laid out");
        assert_eq!((laid.files, laid.bytes), (1, 8 << 20));
        // Laid out already: no line the second time.
        log.lines.lock().unwrap().clear();
        run_with_log(&plan(&argv), &log).unwrap();
        assert!(log.lines.lock().unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
