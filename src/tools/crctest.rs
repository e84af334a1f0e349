//! `--crctest[=LIST]`: how fast rfio's checksums and hashes run, in fio
//! 3.33's table (`crc/test.c`). Each test runs its function 2,048 times
//! over one 128 KiB buffer of random data (256 MiB in all) and prints
//!
//! ```text
//! md5:<TAB><TAB>  198.39 MiB/sec
//! sha3-224:<TAB>  251.10 MiB/sec
//! ```
//!
//! (name, a colon, two TABs, one for names of 7 characters or more,
//! `%8.2f`, fio's "MiB" being 1.024² MB), in fio's order whatever the
//! order of LIST. The first test is preceded by a 100 ms spin and one
//! untimed run. LIST is a comma-separated list of fio's names; `help` or
//! `list` prints the names, and a list naming none of them prints
//! `fio: unknown hash `LIST`. Available:` on stderr and the names; both
//! exit 1, a test 0.
//!
//! The functions timed are rfio's own: the verify checksums
//! (`workload::verify::checksum`, which store what fio stores), `jhash`,
//! and fio's murmur3 and fnv (`rand::bloom`). Two differ from what rfio's
//! verify computes, and are timed as fio times them: `sha512` (fio's
//! verify never finalises it, and stores its buffer, so rfio's copies
//! bytes) times the SHA-512 compression over the data, and `xxhash` one
//! streaming XXH32 state fed every chunk.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use crate::plan::resolve::verify::Kind;
use crate::workload::checksum;

/// fio's `CHUNK`: the buffer hashed each time.
const CHUNK: usize = 128 * 1024;
/// fio's `NR_CHUNKS`: times each function runs over the buffer.
const NR_CHUNKS: usize = 2048;
/// fio's seed for the buffer, the hashes that take one and XXH32.
const SEED: u32 = 0x8989;

/// fio's tests, in its order.
const NAMES: [&str; 17] = [
    "md5", "crc64", "crc32", "crc32c", "crc16", "crc7", "sha1", "sha256", "sha512", "xxhash",
    "murmur3", "jhash", "fnv", "sha3-224", "sha3-256", "sha3-384", "sha3-512",
];

/// fio's reading of a test list (`--crctest=md5,crc32c`, `--memcpytest=...`):
/// which of `names` run, or, for `help`/`list` or a list naming none of them
/// (fio's "unknown hash" message on `err`), the names printed on `out` and
/// the exit status 1.
pub(super) fn choose(
    list: Option<&str>,
    names: &[&str],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Result<Vec<bool>, i32>> {
    let listing: String = names.iter().map(|n| format!("{n}\n")).collect();
    if matches!(list, Some("help" | "list")) {
        write!(out, "{listing}")?;
        return Ok(Err(1));
    }
    let mut on = vec![list.is_none(); names.len()];
    for name in list.unwrap_or("").split(',') {
        if let Some(i) = names.iter().position(|n| *n == name) {
            on[i] = true;
        }
    }
    if !on.contains(&true) {
        writeln!(
            err,
            "fio: unknown hash `{}`. Available:",
            list.unwrap_or("")
        )?;
        err.flush()?;
        write!(out, "{listing}")?;
        return Ok(Err(1));
    }
    Ok(Ok(on))
}

/// Run `--crctest` with its value; the exit status.
pub(crate) fn run(list: Option<&str>, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let on = match choose(list, &NAMES, out, err)? {
        Ok(on) => on,
        Err(status) => return Ok(status),
    };
    let mut buf = vec![0u8; CHUNK];
    let seed = crate::rand::FioRand::new(u64::from(SEED), false).next_u64();
    crate::workload::buffers::fill_random(&mut buf, seed);
    let mut first = true;
    for (i, name) in NAMES.iter().enumerate().filter(|(i, _)| on[*i]) {
        if first {
            spin(Duration::from_millis(100));
            test(i, &buf);
        }
        let t = Instant::now();
        test(i, &buf);
        let usec = t.elapsed().as_micros() as u64;
        writeln!(out, "{}", line(name, usec))?;
        out.flush()?;
        first = false;
    }
    Ok(0)
}

/// fio's line for test `name` that took `usec` microseconds.
fn line(name: &str, usec: u64) -> String {
    if usec == 0 {
        return format!("{name}:inf MiB/sec");
    }
    let mb_sec = (CHUNK * NR_CHUNKS) as f64 / usec as f64 / (1.024 * 1.024);
    let tabs = if name.len() >= 7 { "\t" } else { "\t\t" };
    format!("{name}:{tabs}{mb_sec:8.2} MiB/sec")
}

/// Keep the CPU busy for `d` (fio's `usec_spin`), so that it runs at
/// speed when the first test starts.
fn spin(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// Run test `i` (an index into [`NAMES`]) over `buf` [`NR_CHUNKS`] times.
fn test(i: usize, buf: &[u8]) {
    let kind = match NAMES[i] {
        "md5" => Kind::Md5,
        "crc64" => Kind::Crc64,
        "crc32" => Kind::Crc32,
        "crc32c" => Kind::Crc32c,
        "crc16" => Kind::Crc16,
        "crc7" => Kind::Crc7,
        "sha1" => Kind::Sha1,
        "sha256" => Kind::Sha256,
        "sha3-224" => Kind::Sha3_224,
        "sha3-256" => Kind::Sha3_256,
        "sha3-384" => Kind::Sha3_384,
        "sha3-512" => Kind::Sha3_512,
        other => return hash_test(other, buf),
    };
    let mut out = [0u8; 128];
    for _ in 0..NR_CHUNKS {
        checksum(kind, std::hint::black_box(buf), &mut out);
        std::hint::black_box(&out);
    }
}

/// The tests that are not a verify checksum of rfio's.
fn hash_test(name: &str, buf: &[u8]) {
    let mut sum = 0u64;
    match name {
        "sha512" => {
            use sha2::Digest;
            let mut h = sha2::Sha512::new();
            for _ in 0..NR_CHUNKS {
                h.update(std::hint::black_box(buf));
            }
            std::hint::black_box(h);
        }
        "xxhash" => {
            let mut h = xxhash_rust::xxh32::Xxh32::new(SEED);
            for _ in 0..NR_CHUNKS {
                h.update(std::hint::black_box(buf));
            }
            sum = u64::from(h.digest());
        }
        "murmur3" => {
            for _ in 0..NR_CHUNKS {
                sum += u64::from(crate::rand::murmurhash3(std::hint::black_box(buf), SEED));
            }
        }
        "jhash" => {
            for _ in 0..NR_CHUNKS {
                sum += u64::from(crate::rand::jhash(std::hint::black_box(buf), SEED));
            }
        }
        "fnv" => {
            for _ in 0..NR_CHUNKS {
                sum =
                    sum.wrapping_add(crate::rand::fnv(std::hint::black_box(buf), u64::from(SEED)));
            }
        }
        _ => {}
    }
    std::hint::black_box(sum);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_fios() {
        // 256 MiB in one second.
        assert_eq!(line("md5", 1_000_000), "md5:\t\t  256.00 MiB/sec");
        assert_eq!(line("sha3-224", 2_000_000), "sha3-224:\t  128.00 MiB/sec");
        assert_eq!(line("murmur3", 1_000), "murmur3:\t256000.00 MiB/sec");
        assert_eq!(line("fnv", 0), "fnv:inf MiB/sec");
    }

    /// Which names `list` turns on; `None` when it names none of them.
    fn selected(list: Option<&str>) -> Option<Vec<bool>> {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        choose(list, &NAMES, &mut out, &mut err).unwrap().ok()
    }

    #[test]
    fn lists_select_fios_names_only() {
        let on = selected(Some("crc32c,bogus,md5")).unwrap();
        let picked: Vec<&str> = NAMES.iter().zip(on).filter(|p| p.1).map(|p| *p.0).collect();
        assert_eq!(picked, ["md5", "crc32c"]);
        assert_eq!(selected(Some("")), None);
        assert_eq!(selected(Some("MD5")), None);
        assert!(!selected(None).unwrap().contains(&false));
    }

    #[test]
    fn a_list_of_unknown_names_lists_the_names() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(run(Some("foo"), &mut out, &mut err).unwrap(), 1);
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "fio: unknown hash `foo`. Available:\n"
        );
        let names = String::from_utf8(out).unwrap();
        assert_eq!(names, NAMES.map(|n| format!("{n}\n")).concat());
        assert!(names.starts_with("md5\ncrc64\ncrc32\n"));
        assert!(names.ends_with("fnv\nsha3-224\nsha3-256\nsha3-384\nsha3-512\n"));
    }
}
