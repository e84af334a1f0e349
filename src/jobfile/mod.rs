//! Job files: text → syntax tree with positions, includes expanded.
//! Substitutions (`${VAR}`, `$pagesize`, math) are applied per option line
//! by [`subst`], when the options are read.

pub(crate) mod arith;
pub(crate) mod ast;
pub(crate) mod error;
pub(crate) mod loader;
pub(crate) mod mode;
pub(crate) mod parser;
pub(crate) mod subst;

pub use ast::JobFile;
pub(crate) use error::Error;
pub use loader::{load, parse_bytes};
pub(crate) use loader::{load_partial, parse_partial};
pub use mode::Mode;
