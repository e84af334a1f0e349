//! Any bytes as a text iolog (versions 2 and 3): the line reader and the
//! entry parser must never panic, whatever they are given.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rfio::fuzz::iolog_check(data);
});
