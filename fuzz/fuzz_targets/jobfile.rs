//! Any bytes as a job file: the front end (grammar, options, plan) must
//! never panic, whatever it is given.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rfio::front_end_check(data);
});
