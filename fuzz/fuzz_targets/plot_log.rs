//! Any bytes as a fio log through `rfio plot`'s reader
//! and into charts: an error or charts, never a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rfio::fuzz::plot_log_check(data);
});
