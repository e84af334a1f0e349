//! Why the I/O pattern of a job cannot be set up, once its files are
//! known (what the plan cannot check: their sizes, the memory for a
//! random map), or as fio refuses a setting when it sets the job up.

/// Why the I/O pattern of a job cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// fio's LFSR cannot cover this many blocks.
    #[error("fio: failed initializing LFSR")]
    Lfsr,
    /// fio's `sprandom_init` failed (fio then reaps the job unstarted).
    #[error("fio: {0}")]
    Sprandom(#[from] super::sprandom::SprandomError),
    /// A value the generators cannot use.
    #[error("fio: {0}")]
    Invalid(String),
}
