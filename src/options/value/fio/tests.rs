//! fio's readings, each checked against fio 3.33: `--showcmd` and
//! `--parse-only` for what it accepts and prints, a real run with
//! `--output-format=json` (I/O counts and sizes, per-I/O logs) for what it
//! reads.

use super::*;
use crate::options::lookup;

fn fio_reads(name: &str, text: &str) -> Option<FioReading> {
    let def = lookup(name).expect("option exists");
    read(def, Some(text), &ParseCtx::default())
}

fn value(name: &str, text: &str) -> Option<Value> {
    fio_reads(name, text)
        .unwrap_or_else(|| panic!("fio reads {name}={text}"))
        .value
}

fn dirs(v: [Option<Value>; 3]) -> Value {
    Value::PerDir(v.to_vec())
}

fn bytes3(a: u64, b: u64, c: u64) -> Value {
    dirs([
        Some(Value::Bytes(a)),
        Some(Value::Bytes(b)),
        Some(Value::Bytes(c)),
    ])
}

/// `strtoll` stops at a blank and the unit is looked for right after the
/// digits: `4 k` and ` 8k` are 4 and 8 bytes (4 and 8 bytes per I/O in a
/// real run: 262144 and 131072 I/Os of 1 MiB).
#[test]
fn blanks_hide_the_unit() {
    assert_eq!(value("bs", "4 k"), Some(bytes3(4, 4, 4)));
    assert_eq!(value("bs", " 8k"), Some(bytes3(8, 8, 8)));
    assert_eq!(value("size", " 1m"), Some(Value::Bytes(1)));
    assert_eq!(value("size", "1m"), Some(Value::Bytes(1 << 20)));
}

/// An unknown unit is ignored (`size=12q`: `size too small ... 12 <
/// 4096`); units match by prefix (`kx` is kilo); `1.5k` is 1.
#[test]
fn unknown_units_are_ignored() {
    assert_eq!(value("size", "12q"), Some(Value::Bytes(12)));
    assert_eq!(value("size", "2kx"), Some(Value::Bytes(2048)));
    assert_eq!(value("size", "1.5k"), Some(Value::Bytes(1)));
    assert_eq!(value("size", "0x10k"), Some(Value::Bytes(16)));
    assert_eq!(value("size", "2KiB"), Some(Value::Bytes(2000)));
    assert!(fio_reads("size", "abc").is_none());
}

/// Times: an unknown unit is 1 µs even where a bare number is seconds
/// (`runtime=5x` with `time_based` runs 0 ms); `s`, `m`, `h` only exactly.
#[test]
fn unknown_time_units_are_microseconds() {
    assert_eq!(value("runtime", "5x"), Some(Value::Micros(5)));
    assert_eq!(value("runtime", "5"), Some(Value::Micros(5_000_000)));
    assert_eq!(value("runtime", "2sec"), Some(Value::Micros(2)));
    assert_eq!(value("runtime", "2ms"), Some(Value::Micros(2_000)));
    assert_eq!(value("thinktime", "10parsecs"), Some(Value::Micros(10)));
}

/// `iodepth=-4`: the `-` starts a second piece, read but stored nowhere;
/// the first is out of range, reported, and not stored: iodepth stays 1
/// (256 I/Os at depth 1), exit 0.
#[test]
fn out_of_range_is_reported_and_dropped() {
    let r = fio_reads("iodepth", "-4").unwrap();
    assert_eq!(r.value, None);
    assert_eq!(r.warnings, ["iodepth: min value out of range: -4 (1 min)"]);
    // log_avg_msec has no minimum in fio: -5 is stored in an unsigned int.
    let r = fio_reads("log_avg_msec", "-5").unwrap();
    assert_eq!(r.value, Some(Value::Int(4_294_967_291)));
    assert!(r.warnings.is_empty());
}

/// Per-direction values: a fourth is read and dropped; a piece that does
/// not read leaves its direction as it was (`rate_iops=1k,abc` limits
/// reads only).
#[test]
fn per_direction_pieces() {
    assert_eq!(
        value("bs", "4k:8k:16k:32k"),
        Some(bytes3(4096, 8192, 16384))
    );
    let int = |n| Some(Value::Int(n));
    assert_eq!(
        value("rate_iops", "1k,abc"),
        Some(dirs([int(1024), None, None]))
    );
    assert_eq!(
        value("bs", "8k,"),
        Some(dirs([Some(Value::Bytes(8192)), None, None]))
    );
    assert_eq!(
        value("bs", ",8k"),
        Some(dirs([
            None,
            Some(Value::Bytes(8192)),
            Some(Value::Bytes(8192))
        ]))
    );
}

/// Flags: any number but 0 is on (`stonewall=2` runs `b` after `a`).
#[test]
fn flags_take_any_number() {
    assert_eq!(value("stonewall", "2"), Some(Value::Bool(true)));
    assert_eq!(value("stonewall", "0"), Some(Value::Bool(false)));
    assert!(fio_reads("time_based", "yes").is_none());
}

/// `percentile_list=50:101`: 101 is reported and left out.
#[test]
fn float_lists_drop_bad_entries() {
    let r = fio_reads("percentile_list", "50:101").unwrap();
    assert_eq!(r.value, Some(Value::Floats(vec![50.0])));
    assert_eq!(
        r.warnings,
        ["value out of range: 101.000000 (range max: 100.000000)"]
    );
}

/// `bssplit`: a percentage read with `atoi` (`x` is 0: share the rest);
/// percentages over 100 in all are not checked.
#[test]
fn bssplit_reads_percentages_with_atoi() {
    let e = |bs, pct| SplitEntry { bs, pct };
    let split = |entries: Vec<SplitEntry>| Some(Value::BsSplit(vec![entries; 3]));
    assert_eq!(
        value("bssplit", "4k/50:8k/x"),
        split(vec![e(4096, Some(50)), e(8192, None)])
    );
    assert_eq!(
        value("bssplit", "4k/60:8k/50"),
        split(vec![e(4096, Some(60)), e(8192, Some(50))])
    );
    assert_eq!(value("bssplit", "4k/150"), split(vec![e(4096, Some(100))]));
    // Two left empty with the rest over 100%: fio fails too.
    assert!(fio_reads("bssplit", "4k/60:8k/50:16k:32k").is_none());
}

/// `rw=randread:foo`: the count is `atoi("foo")`, 0 (never a new random
/// offset: fio reads sequentially); `rw=read,write` is `read`.
#[test]
fn rw_modifiers() {
    let rw = lookup("rw").unwrap();
    let index = |n: &str| rw.posvals.iter().position(|p| p.value == n).unwrap();
    assert_eq!(
        value("rw", "randread:foo"),
        Some(Value::Choice {
            index: index("randread"),
            modifier: Some("0".into())
        })
    );
    assert_eq!(
        value("rw", "read,write"),
        Some(Value::Choice {
            index: index("read"),
            modifier: None
        })
    );
    assert_eq!(
        value("rw", "write:4k"),
        Some(Value::Choice {
            index: index("write"),
            modifier: Some("4096".into())
        })
    );
}

/// fio's own tests: `bsrange=512/25:1k:25:2k:25:4k/25` (t0023, t0024) is
/// the range 512-1k (I/Os of 512 and 1024 bytes only), and
/// `--filesize=65536)` (t/strided.py) is 65536.
#[test]
fn upstream_test_values() {
    assert_eq!(
        value("bsrange", "512/25:1k:25:2k:25:4k/25"),
        Some(Value::Ranges(vec![Some((512, 1024)); 3]))
    );
    assert_eq!(
        value("filesize", "65536)"),
        Some(Value::Ranges(vec![Some((65536, 65536)), None, None]))
    );
    // A reversed filesize stays refused in both modes (fio draws sizes far
    // above both ends and fills the disk).
    assert!(fio_reads("filesize", "64k-16k").is_none());
}

/// `ioengine = null` keeps the blank: the engine ` null`, which fails to
/// load when the job runs.
#[test]
fn engine_names_keep_blanks() {
    assert_eq!(
        value("ioengine", " null"),
        Some(Value::Text(" null".into()))
    );
}

/// Where the strict parser accepts a value, fio reads it the same way: the
/// strict reading refuses only what fio misreads, and the two readers agree
/// on everything else.
#[test]
fn strict_readings_are_fios() {
    let values = [
        "0",
        "1",
        "4",
        "4k",
        "4K",
        "4kb",
        "4KiB",
        "1m",
        "1M",
        "2g",
        "1t",
        "10%",
        "100%",
        "0x10",
        "0X1f",
        "-1",
        "+5",
        "4k,8k",
        "4k,8k,16k",
        ",8k",
        "8k,",
        "4k:8k",
        "1k-4k",
        "512-4k,1k-8k",
        "5",
        "5s",
        "5ms",
        "5us",
        "2m",
        "1h",
        "1d",
        "10msec",
        "1k:4k",
        "4k/50:8k/50",
        "4k/50:8k/",
        "4k/100",
        "4k/50:8k/50,16k/100",
        "50:90:99.9",
        "1.5",
        "read",
        "randread:8",
        "write:4k",
        "rw",
        "randrw",
        "yes",
        "",
        "3z",
        "5s-10s",
        "1-3",
        "10s:20s",
        "1:3",
    ];
    let ctx = ParseCtx::default();
    let mut differs = Vec::new();
    for def in crate::options::table::OPTIONS.iter() {
        for v in values {
            let Ok(strict) = super::super::parse_value(def, Some(v), &ctx) else {
                continue;
            };
            if let Some(FioReading {
                value: Some(fio), ..
            }) = read(def, Some(v), &ctx)
            {
                let same = match (&strict, &fio) {
                    // Strict spreads the last value over every direction
                    // of a one-value range option; fio fills those it has.
                    (Value::Ranges(a), Value::Ranges(b)) => a[0] == b[0],
                    // fio's modifier comes back as the number it reads
                    // (`write:4k` is 4096), checked in `rw_modifiers`.
                    (Value::Choice { index: a, .. }, Value::Choice { index: b, .. }) => a == b,
                    (a, b) => a == b,
                };
                if !same {
                    differs.push(format!("{}={v}: strict {strict:?}, fio {fio:?}", def.name));
                }
            }
        }
    }
    assert!(differs.is_empty(), "{}", differs.join("\n"));
}
