//! Output formats: pure functions of a [`crate::stats::RunReport`].

pub mod normal;
pub mod num2str;
