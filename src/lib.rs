//! rfio: a drop-in replacement for fio, the Flexible I/O Tester.
//!
//! Data moves forward through the modules as immutable values:
//!
//! ```text
//! argv ─ cli ─┐
//! job files ─ jobfile (text → syntax tree with spans, includes, ${ENV}) ─┐
//!             options (one static table: name, aliases, kind, default, help)
//!               → JobOptions (what the user wrote, parsed and validated)
//!             plan (global inheritance, numjobs, groups, files)
//!               → immutable Plan   (--parse-only and --showcmd stop here)
//! ```

pub mod cli;
pub mod diag;
pub mod ioengine;
pub mod jobfile;
pub mod logs;
pub mod options;
pub mod output;
pub mod plan;
pub mod stats;
pub mod workload;

/// Run the whole front end (grammar, options, plan, `--showcmd`) on `bytes`
/// as if they were a job file. Used by the fuzz target and the replay of its
/// corpus: it must return, never panic, for any input.
#[doc(hidden)]
pub fn front_end_check(bytes: &[u8]) {
    use std::path::Path;
    use std::sync::Arc;
    let (file, _diags) = jobfile::parse_partial(Arc::from(Path::new("fuzz.fio")), bytes);
    let args = cli::args::Args::default();
    let keywords = jobfile::subst::Keywords {
        pagesize: 4096,
        mb_memory: 1024,
        ncpus: 2,
    };
    let fe = plan::build(&args, std::slice::from_ref(&file), &keywords);
    let _ = cli::showcmd::render_file(&fe, 0, file.stop);
}
