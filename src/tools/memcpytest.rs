//! `--memcpytest[=LIST]`: fio 3.33's memory copy speed test
//! (`lib/memcpy.c`). For each method of LIST (`memcpy`, `memmove`,
//! `simple`, `hybrid`; all without a LIST), in fio's order: a 100 ms spin
//! and one untimed pass, the method's name, then one line per copy size
//! (8 bytes to 512 KiB), each the time to copy a 32 MiB buffer 64 times
//! in pieces of that size:
//!
//! ```text
//! memcpy
//! <TAB>8 bytes:<TAB> 1309.20 MiB/sec
//! ```
//!
//! `simple` copies a byte at a time, `hybrid` does so for pieces of 64
//! bytes or more and calls `memcpy` for smaller ones. `help`, `list` and
//! a LIST naming no method print the names (the last after fio's `fio:
//! unknown hash` line on stderr), status 1.

use std::io::{self, Write};
use std::time::{Duration, Instant};

/// fio's `BUF_SIZE` and `NR_ITERS`.
const BUF_SIZE: usize = 32 * 1024 * 1024;
const NR_ITERS: usize = 64;

/// The copy sizes.
const SIZES: [usize; 11] = [
    8, 16, 96, 128, 256, 512, 2048, 8192, 131_072, 262_144, 524_288,
];

/// The methods, in fio's order.
const METHODS: [&str; 4] = ["memcpy", "memmove", "simple", "hybrid"];

/// Run `--memcpytest` with its value; the exit status.
pub(crate) fn run(list: Option<&str>, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let on = match super::crctest::choose(list, &METHODS, out, err)? {
        Ok(on) => on,
        Err(status) => return Ok(status),
    };
    let mut src = vec![0u8; BUF_SIZE];
    let seed = crate::rand::FioRand::new(0x8989, false).next_u64();
    crate::workload::buffers::fill_random(&mut src, seed);
    let mut dst = vec![0u8; BUF_SIZE];
    for (m, name) in METHODS.iter().enumerate().filter(|(m, _)| on[*m]) {
        let t = Instant::now();
        while t.elapsed() < Duration::from_millis(100) {
            std::hint::spin_loop();
        }
        copy_all(m, SIZES[0], &src, &mut dst);
        writeln!(out, "{name}")?;
        for size in SIZES {
            let t = Instant::now();
            copy_all(m, size, &src, &mut dst);
            let usec = t.elapsed().as_micros() as u64;
            writeln!(out, "{}", line(size, usec))?;
            out.flush()?;
        }
    }
    Ok(0)
}

/// fio's line for `size` when the copies took `usec`.
fn line(size: usize, usec: u64) -> String {
    if usec == 0 {
        return format!("\t{size} bytes:inf MiB/sec");
    }
    let mb_sec = (NR_ITERS * BUF_SIZE) as f64 / usec as f64 / (1.024 * 1.024);
    format!("\t{size} bytes:\t{mb_sec:8.2} MiB/sec")
}

/// Copy `src` into `dst` [`NR_ITERS`] times, `size` bytes at a time, with
/// method `m` (an index into [`METHODS`]).
fn copy_all(m: usize, size: usize, src: &[u8], dst: &mut [u8]) {
    for _ in 0..NR_ITERS {
        for (d, s) in dst.chunks_mut(size).zip(src.chunks(size)) {
            match (METHODS[m], size >= 64) {
                ("memcpy", _) | ("hybrid", false) => d.copy_from_slice(s),
                ("memmove", _) => {
                    // SAFETY: both slices are `d.len()` bytes long and
                    // valid; `copy` allows them to overlap.
                    unsafe { std::ptr::copy(s.as_ptr(), d.as_mut_ptr(), d.len()) }
                }
                _ => simple(d, s),
            }
        }
        std::hint::black_box(&mut *dst);
    }
}

/// fio's `simple_memcpy`: one byte at a time (volatile, so that the
/// compiler does not turn the loop into a `memcpy` call).
fn simple(d: &mut [u8], s: &[u8]) {
    for (d, s) in d.iter_mut().zip(s) {
        // SAFETY: `d` is a valid, exclusive reference to one byte.
        unsafe { std::ptr::write_volatile(d, *s) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_fios() {
        // 2 GiB in 2 seconds.
        assert_eq!(line(8, 2_000_000), "\t8 bytes:\t 1024.00 MiB/sec");
        assert_eq!(line(524_288, 0), "\t524288 bytes:inf MiB/sec");
    }

    #[test]
    fn every_method_copies_every_byte() {
        let src: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        for (m, name) in METHODS.iter().enumerate() {
            for size in [8, 96] {
                let mut dst = vec![0u8; 1000];
                copy_all(m, size, &src, &mut dst);
                assert_eq!(dst, src, "{name} by {size}");
            }
        }
    }

    #[test]
    fn unknown_methods_list_the_methods() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(run(Some("fast"), &mut out, &mut err).unwrap(), 1);
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "fio: unknown hash `fast`. Available:\n"
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "memcpy\nmemmove\nsimple\nhybrid\n"
        );
    }
}
