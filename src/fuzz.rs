//! Fuzz entry points: one function per parser of outside input (job files
//! are [`crate::front_end_check`]). Each takes any bytes and must return,
//! never panic, never allocate beyond a bound, whatever it is given. The
//! targets in `fuzz/fuzz_targets/` call them, and `tests/it/fuzz_corpus.rs`
//! replays each target's corpus (`fuzz/corpus/<target>/`) on every
//! `cargo test`.

/// Any bytes as a text iolog (fio's versions 2 and 3): the line reader
/// and the entry parser, as `read_iolog` uses them.
#[doc(hidden)]
pub fn iolog_check(bytes: &[u8]) {
    crate::workload::iolog::fuzz::text_check(bytes);
}

/// Any bytes as a blktrace trace: the record reader, as a replay and a
/// merge use it.
#[doc(hidden)]
pub fn blktrace_check(bytes: &[u8]) {
    crate::workload::iolog::fuzz::blktrace_check(bytes);
}
