//! How strictly job files and option values are read.
//!
//! fio 3.33 silently misreads some input: `bs = 4k` is 4 bytes, `size=12q`
//! is 12 bytes, `[job` names a job `jo`, `iodepth=-4` is dropped with a
//! warning. By default rfio refuses such input, naming fio's reading and
//! how to write what was meant ([`Mode::Strict`]). Called as `fio` (the
//! drop-in symlink) or with `--compat=fio`, rfio reads it the way fio
//! does, warnings included ([`Mode::Fio`]).

/// The reading rules in force for one invocation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// rfio's: refuse what fio would silently misread.
    #[default]
    Strict,
    /// fio 3.33's: read everything fio accepts as fio reads it.
    Fio,
}

impl Mode {
    /// Whether input is read as fio 3.33 reads it.
    pub(crate) fn is_fio(self) -> bool {
        self == Mode::Fio
    }
}

/// The end of every strict-mode refusal of input that fio 3.33 accepts:
/// the second way forward, after writing what was meant.
pub(crate) const COMPAT_HINT: &str = "or run with --compat=fio to read it as fio does";
