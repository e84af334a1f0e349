//! Fuzz entry points: one function per parser of outside input (job files
//! are [`crate::front_end_check`]). Each takes any bytes and must return,
//! never panic, never allocate beyond a bound, whatever it is given. The
//! targets in `fuzz/fuzz_targets/` call them, and `tests/it/fuzz_corpus.rs`
//! replays each target's corpus (`fuzz/corpus/<target>/`) on every
//! `cargo test`.

/// The text at most inflated from one fuzz input: a bomb is cut there.
const INFLATE_TEXT_LIMIT: u64 = 4 << 20;

/// Any bytes as a `.log.fz` file (`--inflate-log`): the streaming
/// inflater must end with the text or an error, never panic, and hold no
/// more than its fixed buffers whatever the input inflates to.
#[doc(hidden)]
pub fn inflate_check(bytes: &[u8]) {
    let _ = crate::logs::inflate_from(
        &mut &bytes[..],
        "fuzz.fz",
        &mut std::io::sink(),
        INFLATE_TEXT_LIMIT,
    );
}
