//! Reading fio's normal (human) output, which rfio prints the same way:
//!
//! ```text
//!   read: IOPS=13.1M, BW=50.0GiB/s (53.7GB/s)(4096MiB/80msec)
//!   write: IOPS=367, BW=368MiB/s (386MB/s)(256MiB/696msec); 0 zone resets
//! ```
//!
//! fio 3.33 writes IOPS with `num2str` in base 1000 (`k`, `M`, `G`, ...),
//! the amount of I/O in base 1024 (`KiB`, `MiB`, ...) unless `kb_base=1000`
//! (`kB`, `MB`, ...), and the runtime always in `msec`.

/// The data direction a case reads figures for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    Read,
    Write,
}

impl Dir {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Dir::Read => "read",
            Dir::Write => "write",
        }
    }
}

/// The figures of one direction line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DirLine {
    pub iops: f64,
    pub io_bytes: f64,
    pub run_ms: u64,
}

/// Finds the first `  read: IOPS=...` (or `write:`) line and reads it.
pub(crate) fn parse_dir_line(output: &str, dir: Dir) -> Option<DirLine> {
    let prefix = format!("{}: IOPS=", dir.label());
    let rest = output
        .lines()
        .find_map(|line| line.trim_start().strip_prefix(prefix.as_str()))?;
    let iops = parse_scaled(rest.split(',').next()?.trim())?;
    let end = rest.find("msec)")?;
    let open = rest[..end].rfind('(')?;
    let (amount, ms) = rest[open + 1..end].split_once('/')?;
    Some(DirLine {
        iops,
        io_bytes: parse_bytes(amount.trim())?,
        run_ms: ms.trim().parse().ok()?,
    })
}

/// `13.1M` → 13 100 000; `5578k` → 5 578 000; `367` → 367.
pub(crate) fn parse_scaled(text: &str) -> Option<f64> {
    let (digits, scale) = match text.char_indices().last()? {
        (i, 'k') => (&text[..i], 1e3),
        (i, 'M') => (&text[..i], 1e6),
        (i, 'G') => (&text[..i], 1e9),
        (i, 'T') => (&text[..i], 1e12),
        (i, 'P') => (&text[..i], 1e15),
        _ => (text, 1.0),
    };
    let value: f64 = digits.parse().ok()?;
    value.is_finite().then_some(value * scale)
}

/// `4096MiB` → 4 294 967 296; `64.0MiB`; `512KiB`; `4096B`; `134MB`.
pub(crate) fn parse_bytes(text: &str) -> Option<f64> {
    const UNITS: [(&str, f64); 11] = [
        ("KiB", 1024.0),
        ("MiB", 1048576.0),
        ("GiB", 1073741824.0),
        ("TiB", 1099511627776.0),
        ("PiB", 1125899906842624.0),
        ("kB", 1e3),
        ("MB", 1e6),
        ("GB", 1e9),
        ("TB", 1e12),
        ("PB", 1e15),
        ("B", 1.0),
    ];
    let (digits, scale) = UNITS
        .iter()
        .find_map(|&(unit, scale)| text.strip_suffix(unit).map(|d| (d, scale)))?;
    let value: f64 = digits.parse().ok()?;
    value.is_finite().then_some(value * scale)
}

/// The mean of the once-a-second `IOPS=152.31K, BW=594MiB/s, IOS/call=1/1`
/// lines of fio's `t/io_uring` (it prints no totals; `Maximum IOPS=` is not
/// one of them). `IOPS=` is a plain count below 100,000, `K` then `M`
/// above, with two decimals.
pub(crate) fn parse_t_io_uring(output: &str) -> Option<f64> {
    let per_second: Vec<f64> = output
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("IOPS=")?;
            let value = rest.split(',').next()?.trim();
            match value.strip_suffix('K') {
                Some(k) => Some(k.parse::<f64>().ok()? * 1e3),
                None => match value.strip_suffix('M') {
                    Some(m) => Some(m.parse::<f64>().ok()? * 1e6),
                    None => value.parse().ok(),
                },
            }
        })
        .collect();
    (!per_second.is_empty()).then(|| per_second.iter().sum::<f64>() / per_second.len() as f64)
}

/// Checks run by `cargo test --benches` (the bench has no test harness).
pub(crate) fn self_check() {
    assert_eq!(parse_scaled("13.1M"), Some(13.1e6));
    assert_eq!(parse_scaled("5578k"), Some(5578e3));
    assert_eq!(parse_scaled("367"), Some(367.0));
    assert_eq!(parse_scaled("M"), None);
    assert_eq!(parse_bytes("4096MiB"), Some(4096.0 * 1048576.0));
    assert_eq!(parse_bytes("64.0MiB"), Some(64.0 * 1048576.0));
    assert_eq!(parse_bytes("4096B"), Some(4096.0));
    assert_eq!(parse_bytes("134MB"), Some(134e6));
    let normal = "x: (groupid=0, jobs=1): err= 0: pid=1: Sun Nov 29 23:35:55 2026\n\
                  \x20 read: IOPS=13.1M, BW=50.0GiB/s (53.7GB/s)(1024MiB/20msec)\n\
                  \x20 write: IOPS=367, BW=368MiB/s (386MB/s)(256MiB/696msec); 0 zone resets\n\
                  \x20  READ: bw=50.0GiB/s (53.7GB/s), io=1024MiB (1074MB), run=20-20msec\n";
    assert_eq!(
        parse_dir_line(normal, Dir::Read),
        Some(DirLine {
            iops: 13.1e6,
            io_bytes: 1024.0 * 1048576.0,
            run_ms: 20
        })
    );
    assert_eq!(
        parse_dir_line(normal, Dir::Write),
        Some(DirLine {
            iops: 367.0,
            io_bytes: 256.0 * 1048576.0,
            run_ms: 696
        })
    );
    assert_eq!(parse_dir_line("Starting 1 process\n", Dir::Read), None);
    let t = "Engine=io_uring, sq_ring=32, cq_ring=32\n\
             IOPS=90000, BW=351MiB/s, IOS/call=1/1\n\
             IOPS=110.00K, BW=429MiB/s, IOS/call=1/1\n\
             Exiting on timeout\nMaximum IOPS=110.00K\n";
    assert_eq!(parse_t_io_uring(t), Some(100e3));
    assert_eq!(
        parse_t_io_uring("IOPS=1.50M, BW=5.86GiB/s, IOS/call=32/32\n"),
        Some(1.5e6)
    );
    assert_eq!(
        parse_t_io_uring("Exiting on timeout\nMaximum IOPS=110.00K\n"),
        None
    );
}
