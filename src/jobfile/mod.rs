//! jobfile
