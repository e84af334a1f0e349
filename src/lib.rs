//! rfio: a drop-in replacement for fio, the Flexible I/O Tester.
//!
//! Data moves forward through the modules as immutable values (the whole
//! map, with who may import whom, is ARCHITECTURE.md at the repository
//! root; `tests/it/architecture.rs` checks it):
//!
//! ```text
//! argv ─ cli ─ run::Invocation ─┐
//! job files ─ jobfile (text → syntax tree with spans, includes, ${ENV})
//!             options (one static table: name, aliases, kind, default, help)
//!               → JobOptions (what the user wrote, parsed and validated)
//!             plan (global inheritance, numjobs, groups, files; every
//!                   option resolved once into typed parts of each JobSpec)
//!               → immutable Plan   (--parse-only and --showcmd stop here)
//!             workload (a thread per job, reading only the plan)
//!               ↔ ioengine
//!               → stats::Completion per I/O → stats, logs
//!               → RunReport (serde) → output (pure functions of it)
//! ```
//!
//! [`run`] drives that pipeline for one invocation; `cli`
//! parses argv into it and prints. Across machines, [`wire`] is fio's
//! client/server protocol as bytes ↔ the report's types: [`remote`]'s
//! `--server` sends a run's report in it, and `--client` prints what
//! servers send with the same output printers. The public surface is [`api`] (what
//! the integration tests and the benchmarks drive), [`cli::main`] (the
//! binary) and [`front_end_check`] (the fuzz target); the modules are
//! private, their items `pub(crate)`. These docs are for rfio's own
//! developers: read them with `cargo doc --document-private-items` (the
//! public items link to private ones freely).

#![allow(rustdoc::private_intra_doc_links)]

pub mod api;
mod baseline;
pub mod cli;
mod ddir;
mod debug;
mod diag;
#[doc(hidden)]
pub mod fuzz;
mod ioengine;
mod jobfile;
mod lint;
mod logs;
mod options;
mod output;
mod plan;
mod plot;
mod rand;
mod release;
mod remote;
mod replace;
mod run;
mod stats;
mod tools;
mod wire;
mod workload;

/// Run the whole front end (grammar, options, plan, `--showcmd`, the job
/// banners) on `bytes` as if they were a job file, with and without
/// `--readonly`, and check what every plan promises the run: each job has
/// a file to work on, a queue depth (and batches within it), its place
/// in creation order and in the groups, nothing that writes under
/// `--readonly`, as the oldest and the newest release rfio follows (3.33,
/// 3.42: the default). Used by the fuzz target and the replay of its
/// corpus: it must return, never panic, for any input.
#[doc(hidden)]
pub fn front_end_check(bytes: &[u8]) {
    use std::path::Path;
    use std::sync::Arc;
    let keywords = jobfile::subst::Keywords {
        pagesize: 4096,
        mb_memory: 1024,
        ncpus: 2,
    };
    let modes = [jobfile::Mode::Strict, jobfile::Mode::Fio];
    let releases = [release::Release::OLDEST, release::Release::NEWEST];
    let runs = releases.into_iter().flat_map(|r| {
        modes
            .into_iter()
            .flat_map(move |m| [(r, m, false), (r, m, true)])
    });
    for (release, mode, readonly) in runs {
        let (file, _diags) = jobfile::parse_partial(Arc::from(Path::new("fuzz.fio")), bytes, mode);
        let input = plan::Input {
            readonly,
            mode,
            release,
            ..plan::Input::default()
        };
        let fe = plan::build(input, std::slice::from_ref(&file), &keywords);
        let _ = cli::showcmd::render_file(&fe, 0, file.stop);
        check_plan(&fe.plan, readonly);
        let _ = output::normal::banners(fe.plan.jobs.iter().map(|j| &j.report));
        let _ = output::normal::starting(fe.plan.jobs.iter().map(|j| &j.report));
    }
}

/// What a built plan promises the run (a broken promise panics, for the
/// fuzzer to find).
fn check_plan(plan: &plan::Plan, readonly: bool) {
    let mut group = 0;
    for (i, job) in plan.jobs.iter().enumerate() {
        assert_eq!(job.thread_number as usize, i + 1, "creation order");
        assert!(job.group_id >= group, "groups in order");
        group = job.group_id;
        assert!(!job.files.is_empty(), "job {} has no file", job.name);
        assert!(job.iodepth >= 1);
        let io = &job.io;
        assert_eq!(io.iodepth, job.iodepth, "one queue depth");
        assert!(
            (1..=io.iodepth).contains(&io.batch_submit),
            "batch within the depth"
        );
        assert!(
            (1..=io.iodepth).contains(&io.iodepth_low),
            "low mark within the depth"
        );
        assert!(io.batch_complete_min <= io.batch_complete_max);
        assert_eq!(job.readonly, readonly);
        if readonly {
            assert!(!io.unlink && !io.unlink_each_loop && !io.create_on_open);
        }
        assert!(
            job.wait_for.is_none_or(|w| w < i),
            "wait_for an earlier job"
        );
        for f in &job.files {
            assert!(!f.path.as_os_str().is_empty(), "a file without a name");
            if let (Some(size), Some((lo, hi))) = (f.size, f.range) {
                assert!(lo <= hi && size <= hi, "filesize draw out of its range");
            }
        }
    }
}
