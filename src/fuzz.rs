//! Fuzz entry points: one function per parser of outside input (job files
//! are [`crate::front_end_check`]). Each takes any bytes and must return,
//! never panic, never allocate beyond a bound, whatever it is given. The
//! targets in `fuzz/fuzz_targets/` call them, and `tests/it/fuzz_corpus.rs`
//! replays each target's corpus (`fuzz/corpus/<target>/`) on every
//! `cargo test`.
