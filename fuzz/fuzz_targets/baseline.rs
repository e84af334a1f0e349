//! Any bytes as a baseline file (the reader and its checks of every field)
//! must never panic, whatever they are given.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rfio::fuzz::baseline_check(data);
});
