//! Job files: text → syntax tree with positions, includes expanded.
//! Substitutions (`${VAR}`, `$pagesize`, math) are applied per option line
//! by [`subst`], when the options are read.

pub mod arith;
pub mod ast;
pub mod loader;
pub mod parser;
pub mod subst;

pub use ast::{Entry, JobFile, Section};
pub use loader::{load, load_partial, parse_bytes, parse_partial};
