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
pub mod jobfile;
pub mod options;
pub mod plan;
