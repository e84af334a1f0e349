//! A run's setup before any job starts: the files of `create_serialize`
//! jobs laid out in job order, the reports of jobs whose setup failed, and
//! the checks and notices fio gives while it adds the jobs.

use crate::release::places::Site;
use crate::release::Release;
use std::collections::HashSet;
use std::path::PathBuf;

use crate::plan::resolve::zones::ZoneMode;
use crate::plan::spec::{JobSpec, Plan};
use crate::stats::{JobReport, Layout};
use crate::workload::dedupe::DedupePeers;
use crate::workload::error::RunError;
use crate::workload::job::Prepared;
use crate::workload::layout::Failed;
use crate::workload::links::RunLinks;
use crate::workload::log::Log;
use crate::workload::progress::Progress;
use crate::workload::safety::{self, DeviceProblem};
use crate::workload::stop::Stop;
use crate::workload::zbd::ZbdRegistry;

/// fio's warning for a `time_based` job without a runtime, which then runs
/// through its size once (as if `time_based` were not set).
pub(crate) const NO_RUNTIME_WARNING: &str = "fio: time_based requires a runtime/timeout setting";

/// fio's `td_verror` text (in `release`) for a job whose files have no
/// size (`filesetup.c` `setup_files`, failing in `total_file_size`).
pub(super) fn no_size_verror(release: Release) -> String {
    let place = release.place(Site::TotalFileSize);
    format!("file:{place}, func=total_file_size, error=Invalid argument")
}

/// The report of a job whose setup failed with `e`, when fio reports such a
/// job as failed and runs the others (`None`: the whole run stops). Its
/// messages go to `log` now, as fio prints them before any job starts.
pub(super) fn setup_failure(spec: &JobSpec, e: &RunError, log: &dyn Log) -> Option<JobReport> {
    match e {
        RunError::NoSize { .. } => {
            log.err(&format!(
                "rfio: {}: job '{}': no size given and no file size to use \
                 (set size= or filesize=, or name an existing file or device)\n\
                 fio: pid=0, err={}/{}\n",
                spec.span,
                spec.name,
                libc::EINVAL,
                no_size_verror(spec.release)
            ));
            let mut report = JobReport::empty(spec.report.clone(), 0);
            report.error = libc::EINVAL;
            report.error_msg = Some(no_size_verror(spec.release));
            // The job never got to its latency target setup: fio's JSON
            // then has no `latency_depth`.
            report.latency_depth = Some(0);
            Some(report)
        }
        RunError::VerifyState { .. }
        | RunError::EngineSetup { .. }
        | RunError::Generators {
            source: crate::workload::offsets::SetupError::Sprandom(_),
            ..
        } => {
            // fio reaps the job unstarted: no error of its own, but the
            // run exits non-zero. (fio's sprandom line has no newline;
            // rfio ends it.)
            log.err(&e.to_string());
            if matches!(e, RunError::Generators { .. }) {
                log.err("\n");
            }
            let mut report = JobReport::empty(spec.report.clone(), 0);
            report.latency_depth = Some(0);
            report.setup_failed = true;
            Some(report)
        }
        RunError::SetupStopped { .. } => {
            let mut report = JobReport::empty(spec.report.clone(), 0);
            report.latency_depth = Some(0);
            Some(report)
        }
        RunError::Iolog { source, .. } => Some(super::super::iolog::replay::failed(
            spec,
            &source.to_string(),
            log,
        )),
        RunError::Zbd {
            lines,
            error,
            counted,
            ..
        } => {
            // Every line, stdout's too: rfio keeps its stdout for the
            // report, and a refusal must show whatever the format.
            for (_, line) in lines {
                log.err(line);
            }
            let mut report = JobReport::empty(spec.report.clone(), 0);
            if let Some((errno, verror)) = error {
                log.err(&format!("fio: pid=0, err={errno}/{verror}\n"));
                report.error = *errno;
                report.error_msg = Some(verror.clone());
            }
            // fio counts the job in its exit status, error or not.
            report.setup_failed = true;
            report.info.stats.count_zone_resets &= *counted;
            report.latency_depth = Some(0);
            Some(report)
        }
        _ => None,
    }
}

/// What laying a job's files out gave.
pub(super) type Laid = Result<Option<Layout>, Failed>;

/// When each job's files are set up (fio's `create_serialize`): with
/// `create_serialize=1` (fio's default) fio sets up every job's files in
/// `run_threads`, one job after another in job order, before the first
/// job starts: each job is sized from its files as the jobs before it left
/// them (their layouts, not their I/O), and laid out. With
/// `create_serialize=0` a job sets its files up when it starts (rfio: when
/// its group starts, after the groups before it ran).
///
/// Set up, in job order, the files of every job with `create_serialize`
/// (fio's `run_threads` before any job starts). A job is prepared again
/// when an earlier job laid out one of its files, or when it had no size
/// before. Returns each such job's layout, by job index.
#[allow(clippy::too_many_arguments)]
pub(super) fn serial_setup<'p>(
    plan: &'p Plan,
    prepared: &mut [Option<Prepared<'p>>],
    setup_failed: &mut [Option<JobReport>],
    peers: &DedupePeers,
    links: &RunLinks,
    zbd: &ZbdRegistry,
    progress: &Progress,
    log: &dyn Log,
    stop: &Stop,
) -> Result<Vec<Option<Laid>>, RunError> {
    let mut laid: Vec<Option<Laid>> = (0..plan.jobs.len()).map(|_| None).collect();
    let mut touched: HashSet<PathBuf> = HashSet::new();
    for (i, spec) in plan.jobs.iter().enumerate() {
        if !spec.file.create_serialize || setup_failed[i].is_some() {
            continue;
        }
        if prepared[i].is_none() && !spec.iolog.read.is_empty() {
            // The log it replays may come from an earlier group: fio reads
            // it as the job starts.
            continue;
        }
        // zonemode=zbd: the zones are read once (as the first group's jobs
        // are made ready, or when a later group starts), not again here.
        let zbd_job = matches!(spec.zones, Ok(Some(ZoneMode::Zbd(_))));
        if zbd_job && (spec.group_id > 0 || prepared[i].is_none()) {
            continue;
        }
        let stale = !zbd_job
            && (prepared[i].is_none() || spec.files.iter().any(|f| touched.contains(&f.path)));
        if stale {
            match Prepared::new_in(spec, Some(zbd), stop) {
                Ok(mut p) => {
                    p.filler.share_working_set(peers);
                    p.links = links.of(i, spec);
                    check_devices(std::iter::once(&p))?;
                    safety::check_space(&p.layout_needs())?;
                    progress.jobs()[i].set_total_bytes(p.total_bytes);
                    prepared[i] = Some(p);
                }
                Err(e) => {
                    prepared[i] = None;
                    setup_failed[i] = Some(setup_failure(spec, &e, log).ok_or(e)?);
                    continue;
                }
            }
        }
        let Some(p) = prepared[i].as_ref() else {
            continue;
        };
        let result = if stop.requested() {
            Ok(None)
        } else {
            let laid = p.lay_out(log, stop);
            p.zbd_notes(log);
            laid
        };
        let wrote = match &result {
            Ok(l) => l.is_some(),
            Err(e) => e.laid.is_some(),
        };
        if wrote {
            touched.extend(p.files.iter().map(|f| f.path.clone()));
        }
        if spec.group_id > 0 {
            // Its generators are set up again when its group starts.
            p.release_gen();
        }
        laid[i] = Some(result);
    }
    Ok(laid)
}

/// [`NO_RUNTIME_WARNING`] for each `time_based` job without a runtime:
/// fio warns once per job section (its clones copy the fixed options).
pub(super) fn warn_no_runtime(plan: &Plan, log: &dyn Log) {
    for spec in plan.jobs.iter().filter(|s| s.subjob == 0) {
        if spec.time_based_dropped {
            log.err(&format!("{NO_RUNTIME_WARNING}\n"));
        }
    }
}

/// fio's notes for each `sprandom` job whose options it set
/// (`sprandom sets random_generator=lfsr`, ...), once per job section:
/// `log_info` lines, on stdout, which rfio keeps for the report: they go
/// where an engine's notes go ([`Log::note`], with the normal output).
pub(super) fn note_sprandom(plan: &Plan, log: &dyn Log) {
    for spec in plan.jobs.iter().filter(|s| s.subjob == 0) {
        for note in spec.offsets.sprandom.iter().flat_map(|s| &s.notes) {
            log.note(&format!("{note}\n"));
        }
    }
}

/// fio's line for each `opendir=` setting, with the number of files it
/// added (fio prints it on stdout as it reads the option; rfio keeps
/// stdout for the report).
pub(super) fn announce_opendir(plan: &Plan, log: &dyn Log) {
    let mut seen = HashSet::new();
    for spec in &plan.jobs {
        if let Some(found) = &spec.file.opendir {
            if seen.insert(found.at.as_str()) {
                log.err(&format!("fio: opendir added {} files\n", found.files.len()));
            }
        }
    }
}

/// Refuse to write a block device that is mounted or holds a filesystem,
/// unless the job allows it (fio's `allow_mounted_write`).
pub(super) fn check_devices<'a, 'p: 'a>(
    prepared: impl Iterator<Item = &'a Prepared<'p>>,
) -> Result<(), RunError> {
    for p in prepared {
        if !p.writes() || p.set.allow_mounted_write {
            continue;
        }
        for f in &p.files {
            let path = crate::diag::show_path(&f.path);
            match safety::device_problem(&f.path) {
                None => {}
                Some(DeviceProblem::Mounted) => return Err(RunError::Mounted { path }),
                Some(DeviceProblem::Filesystem(fs)) => {
                    return Err(RunError::Filesystem { path, fs })
                }
            }
        }
    }
    Ok(())
}
