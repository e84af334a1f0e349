//! Any bytes as a `.log.fz` file (`--inflate-log`): the streaming
//! inflater must never panic, and a bomb is cut at a bound.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rfio::fuzz::inflate_check(data);
});
