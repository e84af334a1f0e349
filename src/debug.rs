//! fio's `--debug=CATEGORY[,CATEGORY...]` (`debug.h`, `init.c`
//! `set_debug`, `log.c` `log_prevalist`): a mask of categories, set once by
//! the command line before anything runs, and [`dprint!`], which writes a
//! diagnostic line when its category is on.
//!
//! A line reads as fio's: the category padded to 8, the thread id padded
//! to 5, the message (`parse    4242  set steady state IOPS threshold to
//! 10.000000`). fio writes it with `log_info`, where its normal output
//! goes: stdout, or the `--output` file ([`set_sink`]).
//!
//! A leaf: it imports nothing of rfio, and any layer may call it. Off (the
//! default) a [`dprint!`] costs one relaxed load and a branch; its
//! arguments are not even formatted.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

/// fio's debug categories, in its order (the bit of each is its index).
/// `--debug` takes them all; rfio prints lines in some.
#[allow(dead_code)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Cat {
    Process = 0,
    File,
    Io,
    Mem,
    Blktrace,
    Verify,
    Random,
    Parse,
    Diskutil,
    Job,
    Mutex,
    Profile,
    Time,
    Net,
    Rate,
    Compress,
    Steadystate,
    Helperthread,
    Zbd,
}

/// The categories' names as `--debug` takes them and the lines print
/// them, by [`Cat`] index.
pub(crate) const NAMES: [&str; 19] = [
    "process",
    "file",
    "io",
    "mem",
    "blktrace",
    "verify",
    "random",
    "parse",
    "diskutil",
    "job",
    "mutex",
    "profile",
    "time",
    "net",
    "rate",
    "compress",
    "steadystate",
    "helperthread",
    "zbd",
];

/// The categories on: bit `Cat as u32`.
static MASK: AtomicU32 = AtomicU32::new(0);
/// Where the lines go: a file descriptor (stdout unless `--output`).
static SINK: AtomicI32 = AtomicI32::new(1);

/// What a `--debug` value asks for: the mask it adds, the lines fio prints
/// while it reads the value (each `(on stderr, text)`, newline included),
/// and whether it asked for the list of categories (fio then exits 0).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Request {
    pub(crate) mask: u32,
    pub(crate) lines: Vec<(bool, String)>,
    pub(crate) help: bool,
    /// `job:N`: the job whose lines alone fio prints (of a run in
    /// processes); read and reported, not applied (rfio runs threads).
    pub(crate) jobno: Option<i64>,
}

/// Read one `--debug` value as fio's `set_debug`: `help` or `?` lists the
/// categories; otherwise each comma-separated piece that starts with a
/// category's name turns it on (`all`: every one), and a piece that names
/// none is reported on stderr and skipped.
pub(crate) fn request(value: &str) -> Request {
    let mut r = Request::default();
    if value == "?" || value == "help" {
        let mut line = String::from("fio: dumping debug options:");
        for n in NAMES {
            line.push_str(n);
            line.push(',');
        }
        line.push_str("all\n");
        r.lines.push((false, line));
        r.help = true;
        return r;
    }
    for piece in value.split(',') {
        if piece.starts_with("all") {
            r.lines
                .push((false, "fio: set all debug options\n".to_string()));
            r.mask = u32::MAX;
            continue;
        }
        let Some(i) = NAMES.iter().position(|n| piece.starts_with(n)) else {
            r.lines
                .push((true, format!("fio: debug mask {piece} not found\n")));
            continue;
        };
        if i == Cat::Job as usize {
            match piece.split_once(':') {
                None => r
                    .lines
                    .push((true, "fio: missing job number\n".to_string())),
                Some((_, n)) => {
                    let n = atoi(n);
                    r.jobno = Some(n);
                    r.lines.push((false, format!("fio: set debug jobno {n}\n")));
                }
            }
        } else {
            r.lines
                .push((false, format!("fio: set debug option {piece}\n")));
            r.mask |= 1 << i;
        }
    }
    r
}

/// C's `atoi` printed back as `%d`: leading blanks, a sign, the digits
/// that follow; 0 without any.
fn atoi(s: &str) -> i64 {
    let s = s.trim_start();
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut n: i64 = 0;
    for b in rest.bytes().take_while(u8::is_ascii_digit) {
        n = n.wrapping_mul(10).wrapping_add(i64::from(b - b'0'));
    }
    let n = if neg { n.wrapping_neg() } else { n };
    i64::from(n as i32)
}

/// Apply the command line's `--debug` values in order, as fio reads them:
/// their lines to `out` and `err`, their categories on. Returns whether one
/// asked for the list of categories (fio then exits 0, having read the
/// rest of its command line).
pub(crate) fn apply(
    values: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<bool> {
    let mut help = false;
    for v in values {
        let r = request(v);
        for (on_err, line) in &r.lines {
            let to: &mut dyn Write = if *on_err { &mut *err } else { &mut *out };
            to.write_all(line.as_bytes())?;
        }
        enable(r.mask);
        help |= r.help;
    }
    Ok(help)
}

/// Turn the categories of `mask` on (the command line, once, before the
/// job options are read).
pub(crate) fn enable(mask: u32) {
    MASK.fetch_or(mask, Ordering::Relaxed);
}

/// Send the lines to descriptor `fd` from now on (the `--output` file,
/// which must stay open while lines may come); nothing when no category
/// is on.
pub(crate) fn set_sink(fd: i32) {
    if MASK.load(Ordering::Relaxed) != 0 {
        SINK.store(fd, Ordering::Relaxed);
    }
}

/// Whether category `c` is on.
#[inline]
pub(crate) fn on(c: Cat) -> bool {
    MASK.load(Ordering::Relaxed) & (1 << c as u32) != 0
}

/// fio's line for category `c`: name, thread id, message.
pub(crate) fn line(c: Cat, tid: i64, msg: fmt::Arguments<'_>) -> String {
    format!("{:<8} {:<5} {}", NAMES[c as usize], tid, msg)
}

/// Write the line of `msg` in category `c` (on or not: see [`dprint!`]).
#[cold]
pub(crate) fn emit(c: Cat, msg: fmt::Arguments<'_>) {
    // SAFETY: gettid has no preconditions and cannot fail.
    let tid = unsafe { libc::gettid() };
    let text = line(c, i64::from(tid), msg);
    let fd = SINK.load(Ordering::Relaxed);
    let mut b = text.as_bytes();
    while !b.is_empty() {
        // SAFETY: `b` is a valid byte slice for the duration of the call.
        let n = unsafe { libc::write(fd, b.as_ptr().cast(), b.len()) };
        if n <= 0 {
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        b = &b[n as usize..];
    }
}

/// `dprint!(Cat::Parse, "format", args...)`: fio's `dprint`. The message
/// carries its own newline, as fio's do.
macro_rules! dprint {
    ($cat:expr, $($arg:tt)*) => {
        if $crate::debug::on($cat) {
            $crate::debug::emit($cat, format_args!($($arg)*));
        }
    };
}
pub(crate) use dprint;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_the_categories_as_fio() {
        let r = request("help");
        assert!(r.help && r.mask == 0);
        assert_eq!(
            r.lines,
            [(
                false,
                "fio: dumping debug options:process,file,io,mem,blktrace,verify,random,\
                 parse,diskutil,job,mutex,profile,time,net,rate,compress,steadystate,\
                 helperthread,zbd,all\n"
                    .to_string()
            )]
        );
        assert_eq!(request("?"), r);
    }

    #[test]
    fn pieces_set_bits_by_prefix_and_unknown_ones_are_reported() {
        let r = request("parse,iox,bogus,,steadystate");
        assert_eq!(
            r.mask,
            (1 << Cat::Parse as u32) | (1 << Cat::Io as u32) | (1 << Cat::Steadystate as u32)
        );
        assert_eq!(
            r.lines,
            [
                (false, "fio: set debug option parse\n".to_string()),
                (false, "fio: set debug option iox\n".to_string()),
                (true, "fio: debug mask bogus not found\n".to_string()),
                (true, "fio: debug mask  not found\n".to_string()),
                (false, "fio: set debug option steadystate\n".to_string()),
            ]
        );
        assert!(!r.help);
        assert_eq!(request("all").mask, u32::MAX);
    }

    #[test]
    fn job_takes_a_number() {
        let r = request("job");
        assert_eq!(r.mask, 0);
        assert_eq!(r.lines, [(true, "fio: missing job number\n".to_string())]);
        let r = request("job:3x");
        assert_eq!((r.mask, r.jobno), (0, Some(3)));
        assert_eq!(r.lines[0].1, "fio: set debug jobno 3\n");
    }

    #[test]
    fn lines_are_padded_as_fios() {
        let l = line(Cat::Parse, 4242, format_args!("x {}\n", 1));
        assert_eq!(l, "parse    4242  x 1\n");
        let l = line(Cat::Steadystate, 123456, format_args!("y\n"));
        assert_eq!(l, "steadystate 123456 y\n");
    }
}
