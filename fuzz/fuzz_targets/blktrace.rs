//! Any bytes as a blktrace trace: the record reader of a replay and of a
//! merge must never panic, whatever it is given.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rfio::fuzz::blktrace_check(data);
});
