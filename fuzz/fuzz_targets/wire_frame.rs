//! Any bytes as a stream of fio wire frames (the frame reader, the
//! reassembly of MORE chains, every message body decoder) must never panic,
//! whatever they are given.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rfio::fuzz::wire_frame_check(data);
});
