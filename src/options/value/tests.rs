//! Every expectation here was checked against fio 3.33. Unless said
//! otherwise, numbers come from
//! `fio --debug=parse --parse-only --name=x --OPT=VAL` (the `out=` line) and
//! per-direction values from the header line of
//! `fio --name=x --ioengine=null --size=1m --rw=randrw --OPT=VAL`.

use super::*;
use crate::options::def::{FioType, PosVal, Split, Support, TimeUnit, ValueKind};

/// A minimal option definition for one test.
const fn def(kind: ValueKind, fio_type: FioType) -> OptionDef {
    OptionDef {
        name: "test",
        aliases: &[],
        fio_type,
        kind,
        time_unit: TimeUnit::Seconds,
        split: Split::One,
        default: None,
        min: None,
        max: None,
        posvals: &[],
        prio: 0,
        parent: None,
        category: "test",
        help: "",
        engines: &[],
        support: Support::Yes,
    }
}

const fn split(mut d: OptionDef, split: Split) -> OptionDef {
    d.split = split;
    d
}

const fn range(mut d: OptionDef, min: Option<i64>, max: Option<i64>) -> OptionDef {
    d.min = min;
    d.max = max;
    d
}

const fn unit(mut d: OptionDef, unit: TimeUnit) -> OptionDef {
    d.time_unit = unit;
    d
}

const fn posvals(mut d: OptionDef, posvals: &'static [PosVal]) -> OptionDef {
    d.posvals = posvals;
    d
}

const fn pv(value: &'static str) -> PosVal {
    PosVal { value, help: "" }
}

const SIZE: OptionDef = def(ValueKind::Size, FioType::StrVal);
const BS: OptionDef = range(
    split(def(ValueKind::Size, FioType::Ull), Split::ReadWriteTrim),
    Some(1),
    None,
);
const SIZE_PCT: OptionDef = def(ValueKind::SizeOrPercent, FioType::StrValZone);
const IODEPTH: OptionDef = range(def(ValueKind::Int, FioType::Int), Some(1), None);
const RWMIXREAD: OptionDef = range(def(ValueKind::Int, FioType::Int), Some(0), Some(100));
const NICE: OptionDef = range(def(ValueKind::Int, FioType::Int), Some(-20), Some(19));
const NUMBER_IOS: OptionDef = def(ValueKind::Int, FioType::StrVal);
const RUNTIME: OptionDef = def(ValueKind::Time, FioType::StrValTime);
const THINKTIME: OptionDef = range(
    unit(def(ValueKind::Time, FioType::Int), TimeUnit::Micros),
    Some(0),
    None,
);
const MAX_LATENCY: OptionDef = split(
    unit(def(ValueKind::Time, FioType::Ull), TimeUnit::Micros),
    Split::ReadWriteTrim,
);
const DIRECT: OptionDef = range(def(ValueKind::Bool, FioType::Bool), None, Some(1));
const TIME_BASED: OptionDef = def(ValueKind::Flag, FioType::StrSet);
const CMDPRIO_PCT: OptionDef = range(
    split(def(ValueKind::Int, FioType::Int), Split::ReadWrite),
    Some(0),
    Some(100),
);
const RW_VALUES: &[PosVal] = &[
    pv("read"),
    pv("write"),
    pv("trim"),
    pv("randread"),
    pv("randwrite"),
    pv("randtrim"),
    pv("rw"),
    pv("readwrite"),
    pv("randrw"),
    pv("trimwrite"),
    pv("randtrimwrite"),
];
const RW: OptionDef = posvals(def(ValueKind::ChoiceWithModifier, FioType::Str), RW_VALUES);
const MEM: OptionDef = posvals(
    def(ValueKind::Choice, FioType::Str),
    &[pv("malloc"), pv("mmap"), pv("mmaphuge")],
);
const SFR: OptionDef = posvals(
    def(ValueKind::Choice, FioType::StrMulti),
    &[pv("wait_before"), pv("write"), pv("wait_after")],
);
const KB_BASE: OptionDef = posvals(def(ValueKind::Int, FioType::Int), &[pv("1024"), pv("1000")]);
const TEXT: OptionDef = def(ValueKind::Text, FioType::StrStore);
const BSRANGE: OptionDef = range(
    split(
        def(ValueKind::SizeRange, FioType::Range),
        Split::ReadWriteTrim,
    ),
    Some(1),
    None,
);
const PERCENTILES: OptionDef = range(
    def(ValueKind::FloatList, FioType::FloatList),
    Some(0),
    Some(100),
);
const BSSPLIT: OptionDef = split(
    def(ValueKind::BsSplit, FioType::StrUll),
    Split::ReadWriteTrim,
);
const CPUS: OptionDef = def(ValueKind::CpuList, FioType::Str);
const DIST: OptionDef = def(ValueKind::RandomDistribution, FioType::Str);
const IGNORED: OptionDef = def(ValueKind::Ignored, FioType::SoftDeprecated);

const K1024: ParseCtx = ParseCtx {
    kb_base: 1024,
    mode: Mode::Strict,
    release: crate::release::Release::DEFAULT,
};
const K1000: ParseCtx = ParseCtx {
    kb_base: 1000,
    mode: Mode::Strict,
    release: crate::release::Release::DEFAULT,
};

fn ok(d: &OptionDef, raw: &str) -> Value {
    ok_in(d, raw, &K1024)
}

fn ok_in(d: &OptionDef, raw: &str, ctx: &ParseCtx) -> Value {
    parse_value(d, Some(raw), ctx).unwrap_or_else(|e| panic!("{raw:?}: {e}"))
}

fn err(d: &OptionDef, raw: &str) -> ValueError {
    match parse_value(d, Some(raw), &K1024) {
        Ok(v) => panic!("{raw:?} was accepted as {v:?}"),
        Err(e) => e,
    }
}

fn bytes(d: &OptionDef, raw: &str, ctx: &ParseCtx) -> u64 {
    match ok_in(d, raw, ctx) {
        Value::Bytes(b) => b,
        v => panic!("{raw:?}: {v:?}"),
    }
}

fn micros(d: &OptionDef, raw: &str) -> u64 {
    match ok(d, raw) {
        Value::Micros(us) => us,
        v => panic!("{raw:?}: {v:?}"),
    }
}

fn int(d: &OptionDef, raw: &str) -> i64 {
    match ok(d, raw) {
        Value::Int(i) => i,
        v => panic!("{raw:?}: {v:?}"),
    }
}

fn per_dir_bytes(d: &OptionDef, raw: &str) -> [Option<u64>; 3] {
    match ok(d, raw) {
        Value::PerDir(v) => {
            let b = |x: &Option<Value>| match x {
                None => None,
                Some(Value::Bytes(b)) => Some(*b),
                Some(other) => panic!("{raw:?}: {other:?}"),
            };
            [b(&v[0]), b(&v[1]), b(&v[2])]
        }
        v => panic!("{raw:?}: {v:?}"),
    }
}

fn is_trailing(e: &ValueError) -> bool {
    matches!(e, ValueError::TrailingGarbage { .. })
}

fn is_bad_suffix(e: &ValueError) -> bool {
    matches!(e, ValueError::BadSuffix { .. })
}

fn is_invalid(e: &ValueError) -> bool {
    matches!(e, ValueError::Invalid { .. })
}

fn is_other(e: &ValueError) -> bool {
    matches!(e, ValueError::Other(_))
}

// ---- sizes ----------------------------------------------------------------

#[test]
fn size_suffixes_under_kb_base_1024() {
    let cases: &[(&str, u64)] = &[
        ("4k", 4096),
        ("4K", 4096),
        ("4kB", 4096),
        ("4kb", 4096),
        // fio's inverted "compatibility" rule: KiB is 1000 under kb_base=1024.
        ("4KiB", 4000),
        ("4kib", 4000),
        ("4KIB", 4000),
        ("4Ki", 4096),
        ("0x1000", 4096),
        ("4096b", 4096),
        ("1b", 1),
        ("4", 4),
        ("+4k", 4096),
        ("1g", 1 << 30),
        ("1gb", 1 << 30),
        ("1GiB", 1_000_000_000),
        ("1t", 1 << 40),
        ("1p", 1 << 50),
        ("1pib", 1_000_000_000_000_000),
        ("10m", 10 << 20),
    ];
    for &(raw, want) in cases {
        assert_eq!(bytes(&SIZE, raw, &K1024), want, "{raw}");
    }
}

#[test]
fn size_suffixes_under_kb_base_1000() {
    // fio --debug=parse --parse-only --name=x --kb_base=1000 --bs=VAL
    let cases: &[(&str, u64)] = &[
        ("10m", 10_000_000),
        ("10MiB", 10_485_760),
        ("4k", 4000),
        ("4kb", 4000),
        ("4KiB", 4096),
        ("4Ki", 4000),
        ("1g", 1_000_000_000),
        ("1gib", 1 << 30),
    ];
    for &(raw, want) in cases {
        assert_eq!(bytes(&SIZE, raw, &K1000), want, "{raw}");
    }
}

#[test]
fn size_refusals() {
    // fio reads `4 k` as 4 and `8*1024` as 8.
    assert!(is_trailing(&err(&SIZE, "4 k")));
    assert!(is_trailing(&err(&SIZE, "8*1024")));
    assert!(is_trailing(&err(&SIZE, "4k ")));
    // fio reads `12q` as 12, `4kx` as 4096, `1000x` as 4096 (hex: "0x" inside).
    assert_eq!(
        err(&SIZE, "12q"),
        ValueError::BadSuffix {
            value: "12q".into(),
            suffix: "q".into()
        }
    );
    assert!(is_bad_suffix(&err(&SIZE, "4kx")));
    assert!(is_bad_suffix(&err(&SIZE, "1000x")));
    assert!(is_bad_suffix(&err(&SIZE, "10e")));
    // fio never applies a suffix to hex: `0x10k` is 16.
    assert!(is_trailing(&err(&SIZE, "0x10k")));
    // fio reads `1.5k` as 1.
    assert!(is_invalid(&err(&SIZE, "1.5k")));
    assert!(is_invalid(&err(&SIZE, "")));
    assert!(is_invalid(&err(&SIZE, "k")));
    assert!(is_invalid(&err(&SIZE, "-4k")));
    // A job-file `bs = 4k` keeps the blank; fio 3.33 reads it as 4 bytes.
    assert_eq!(
        err(&SIZE, " 4k"),
        ValueError::LeadingBlank {
            value: " 4k".into()
        }
    );
    // Percentages and zones only where the option takes them: fio reads
    // `bs=50%` as a huge number and refuses `bs=10z`.
    assert!(is_bad_suffix(&err(&SIZE, "50%")));
    assert!(is_bad_suffix(&err(&SIZE, "10z")));
    // No arithmetic in this fio build: `bs=(4*1024)` fails.
    assert!(is_invalid(&err(&SIZE, "(4*1024)")));
    // 2^24 TiB = 2^64: fio wraps to 0.
    assert!(is_other(&err(&SIZE, "16777216t")));
}

#[test]
fn size_bounds_use_fios_messages() {
    // fio --bs=0: "bs: min value out of range: 0 (1 min)"
    let e = err(&BS, "0");
    assert_eq!(e, ValueError::BelowMin { value: 0, min: 1 });
    assert_eq!(e.to_string(), "min value out of range: 0 (1 min)");
}

#[test]
fn size_or_percent() {
    assert_eq!(ok(&SIZE_PCT, "50%"), Value::Percent(50.0));
    assert_eq!(ok(&SIZE_PCT, "100%"), Value::Percent(100.0));
    // A template's escaped `%`: fio reads `100%%` as 100% (and `50%%` runs
    // half the file).
    assert_eq!(ok(&SIZE_PCT, "100%%"), Value::Percent(100.0));
    assert_eq!(ok(&SIZE_PCT, "50%%"), Value::Percent(50.0));
    assert_eq!(ok(&SIZE_PCT, "1m"), Value::Bytes(1 << 20));
    assert_eq!(ok(&SIZE_PCT, "10z"), Value::Zones(10));
    // fio: 0% means "unset" (whole file); 150% is a huge byte count clamped
    // to the file; --io_size=200% "values greater than 100% aren't supported".
    assert!(is_other(&err(&SIZE_PCT, "0%")));
    assert!(is_other(&err(&SIZE_PCT, "150%")));
    // fio reads `1.5%` as 1 byte and `50%x` as 50%.
    assert!(is_invalid(&err(&SIZE_PCT, "1.5%")));
    assert!(is_trailing(&err(&SIZE_PCT, "50%x")));
    assert!(is_invalid(&err(&SIZE_PCT, "-50%")));
    // fio: "size: unexpected zone value '0x10z'"
    assert!(is_trailing(&err(&SIZE_PCT, "0x10z")));
}

// ---- integers -------------------------------------------------------------

#[test]
fn integers_take_size_suffixes() {
    // fio --iodepth=4k: out=4096; with --kb_base=1000 first: out=4000.
    assert_eq!(int(&IODEPTH, "4k"), 4096);
    assert_eq!(ok_in(&IODEPTH, "4k", &K1000), Value::Int(4000));
    assert_eq!(int(&IODEPTH, "0x10"), 16);
    assert_eq!(int(&IODEPTH, "32"), 32);
    assert_eq!(int(&NUMBER_IOS, "4k"), 4096);
    assert_eq!(int(&NICE, "-5"), -5);
}

#[test]
fn integer_refusals() {
    // fio: "iodepth: min value out of range: 0 (1 min)"
    assert_eq!(
        err(&IODEPTH, "0"),
        ValueError::BelowMin { value: 0, min: 1 }
    );
    // fio prints the same for -1 but exits 0 with iodepth unchanged (it
    // takes the `1` after the `-` as a second value).
    assert_eq!(
        err(&IODEPTH, "-1"),
        ValueError::BelowMin { value: -1, min: 1 }
    );
    // fio: "rwmixread: max value out of range: 150 (100 max)"
    let e = err(&RWMIXREAD, "150");
    assert_eq!(e.to_string(), "max value out of range: 150 (100 max)");
    // fio accepts rwmixread=-5 and ends with 5 (min=0 is never checked).
    assert_eq!(
        err(&RWMIXREAD, "-5"),
        ValueError::BelowMin { value: -5, min: 0 }
    );
    // fio: "nice: min value out of range: -25 (-20 min)"
    assert_eq!(
        err(&NICE, "-25"),
        ValueError::BelowMin {
            value: -25,
            min: -20
        }
    );
    // FIO_OPT_INT stores 32 bits: fio truncates 99999999999 silently.
    assert!(matches!(
        err(&IODEPTH, "99999999999"),
        ValueError::AboveMax { .. }
    ));
    // fio reads `iodepth=4,8`, `4:8` and `4-8` as 4; `1.5` as 1.
    assert!(is_trailing(&err(&IODEPTH, "4,8")));
    assert!(is_trailing(&err(&IODEPTH, "4:8")));
    assert!(is_trailing(&err(&IODEPTH, "4-8")));
    assert!(is_invalid(&err(&IODEPTH, "1.5")));
    assert!(is_invalid(&err(&IODEPTH, "")));
    assert!(is_bad_suffix(&err(&IODEPTH, "4%")));
}

#[test]
fn integer_posvals() {
    assert_eq!(int(&KB_BASE, "1000"), 1000);
    // fio: "failed parsing kb_base=1023" and lists the valid values.
    assert_eq!(
        err(&KB_BASE, "1023"),
        ValueError::NotAChoice {
            value: "1023".into()
        }
    );
}

// ---- times ----------------------------------------------------------------

#[test]
fn times_in_microseconds() {
    let cases: &[(&OptionDef, &str, u64)] = &[
        (&RUNTIME, "2", 2_000_000),
        (&RUNTIME, "2s", 2_000_000),
        (&RUNTIME, "2S", 2_000_000),
        (&RUNTIME, "1500ms", 1_500_000),
        (&RUNTIME, "1500msec", 1_500_000),
        (&RUNTIME, "500ms", 500_000),
        (&RUNTIME, "500000us", 500_000),
        (&RUNTIME, "20us", 20),
        (&RUNTIME, "20usec", 20),
        (&RUNTIME, "1m", 60_000_000),
        (&RUNTIME, "1h", 3_600_000_000),
        (&RUNTIME, "0", 0),
        // thinktime has no suffix unit µs (fio --thinktime=10: out=10).
        (&THINKTIME, "10", 10),
        (&THINKTIME, "1ms", 1_000),
        (&THINKTIME, "1H", 3_600_000_000),
        (&RUNTIME, "2H", 7_200_000_000),
    ];
    for &(d, raw, want) in cases {
        assert_eq!(micros(d, raw), want, "{raw}");
    }
    assert_eq!(micros(&RUNTIME, "3d"), 259_200_000_000);
}

#[test]
fn time_refusals() {
    // fio: `2sec` and `2min` are 2 µs (only the exact `s`, `m` are units).
    assert_eq!(
        err(&RUNTIME, "2sec"),
        ValueError::BadSuffix {
            value: "2sec".into(),
            suffix: "sec".into()
        }
    );
    assert!(is_bad_suffix(&err(&RUNTIME, "2min")));
    // fio reads `1msfoo` as 1 ms and thinktime=4k as 4 µs.
    assert!(is_bad_suffix(&err(&THINKTIME, "1msfoo")));
    assert!(is_bad_suffix(&err(&THINKTIME, "4k")));
    // fio: `0.5` is 0, `1.5s` is 1 s, runtime=0x10 is 16 µs.
    assert!(is_invalid(&err(&RUNTIME, "0.5")));
    assert!(is_invalid(&err(&RUNTIME, "1.5s")));
    assert!(is_invalid(&err(&RUNTIME, "0x10")));
    // fio stores runtime=-5 as a huge number, then reads 5 as a second value.
    assert!(is_invalid(&err(&RUNTIME, "-5")));
    assert!(is_trailing(&err(&RUNTIME, "10 s")));
    assert!(is_trailing(&err(&RUNTIME, "10,20")));
    assert!(is_invalid(&err(&RUNTIME, "")));
    // thinktime is a 32-bit FIO_OPT_INT: 2h = 7.2e9 µs would wrap.
    assert!(matches!(err(&THINKTIME, "2h"), ValueError::AboveMax { .. }));
}

// ---- booleans and flags ---------------------------------------------------

#[test]
fn booleans() {
    assert_eq!(ok(&DIRECT, "1"), Value::Bool(true));
    assert_eq!(ok(&DIRECT, "0"), Value::Bool(false));
    assert_eq!(ok(&DIRECT, "0x1"), Value::Bool(true));
    assert_eq!(ok(&DIRECT, "01"), Value::Bool(true));
    // sscanf("%u") skips the blank: fio reads ` 1` correctly.
    assert_eq!(ok(&DIRECT, " 1"), Value::Bool(true));
    // fio: "max value out of range: 2 (1 max)"
    let e = err(&DIRECT, "2");
    assert_eq!(e.to_string(), "max value out of range: 2 (1 max)");
    // fio: `direct=-1` is accepted (true); `1x` is 1.
    assert_eq!(
        err(&DIRECT, "-1"),
        ValueError::BelowMin { value: -1, min: 0 }
    );
    assert!(is_trailing(&err(&DIRECT, "1x")));
    // fio: "failed parsing direct=true"; bare: "Option direct requires an argument".
    assert!(is_invalid(&err(&DIRECT, "true")));
    assert!(is_invalid(&err(&DIRECT, "")));
    assert_eq!(
        parse_value(&DIRECT, None, &K1024),
        Err(ValueError::MissingArgument)
    );
}

#[test]
fn flags() {
    assert_eq!(
        parse_value(&TIME_BASED, None, &K1024),
        Ok(Value::Bool(true))
    );
    assert_eq!(ok(&TIME_BASED, "0"), Value::Bool(false));
    assert_eq!(ok(&TIME_BASED, "1"), Value::Bool(true));
    // fio accepts time_based=2 (STR_SET has no maximum); rfio refuses it.
    assert_eq!(
        err(&TIME_BASED, "2"),
        ValueError::AboveMax { value: 2, max: 1 }
    );
    // fio: "failed parsing time_based=yes"
    assert!(is_invalid(&err(&TIME_BASED, "yes")));
}

// ---- choices --------------------------------------------------------------

fn choice(d: &OptionDef, raw: &str) -> (usize, Option<String>) {
    match ok(d, raw) {
        Value::Choice { index, modifier } => (index, modifier),
        v => panic!("{raw:?}: {v:?}"),
    }
}

#[test]
fn rw_choices_and_modifiers() {
    assert_eq!(choice(&RW, "read"), (0, None));
    assert_eq!(choice(&RW, "randread"), (3, None));
    assert_eq!(choice(&RW, "rw"), (6, None));
    assert_eq!(choice(&RW, "readwrite"), (7, None));
    assert_eq!(choice(&RW, "randtrimwrite"), (10, None));
    assert_eq!(choice(&RW, "randread:8"), (3, Some("8".into())));
    assert_eq!(choice(&RW, "write:4k"), (1, Some("4k".into())));
    assert_eq!(choice(&RW, "read:-8k"), (0, Some("-8k".into())));
    // get_opt_postfix strips blanks: fio reads `read: 4k` as 4k.
    assert_eq!(choice(&RW, "read: 4k"), (0, Some("4k".into())));
    assert_eq!(parse_signed_size("-8k", &K1024), Ok(-8192));
}

#[test]
fn rw_refusals() {
    let not = |raw: &str| ValueError::NotAChoice { value: raw.into() };
    // fio 3.33 compares the whole text before `,`/`:` (strncmp over the
    // longer length): these all print "valid values" and fail.
    for raw in [" randread", "Read", "rand", "randreadx", "read:4k,x", ""] {
        assert_eq!(err(&RW, raw), not(raw), "{raw:?}");
    }
    // fio reads `rw=read,write` as read.
    assert!(is_trailing(&err(&RW, "read,write")));
    // fio reads randread:8k as 8 and randread:0 / randread:abc as 0 (atoi).
    assert!(is_other(&err(&RW, "randread:8k")));
    assert!(is_other(&err(&RW, "randread:0")));
    assert!(is_other(&err(&RW, "randread:abc")));
    // fio: "rw postfix parsing failed" for read:abc and read: (real run).
    assert!(is_invalid(&err(&RW, "read:abc")));
    assert!(is_invalid(&err(&RW, "read:")));
    // fio reads read:4k:8k as 4k and read:1.5k as 1.
    assert!(is_trailing(&err(&RW, "read:4k:8k")));
    assert!(is_invalid(&err(&RW, "read:1.5k")));
    // A bare `rw` in a job file: fio prints the valid values on stdout and
    // "fio: failed parsing rw".
    assert_eq!(
        parse_value(&RW, None, &K1024),
        Err(ValueError::NotAChoice {
            value: String::new()
        })
    );
}

#[test]
fn plain_choice_keeps_the_postfix_unchecked() {
    assert_eq!(
        choice(&MEM, "mmaphuge:/hugepages/file"),
        (2, Some("/hugepages/file".into()))
    );
    assert_eq!(choice(&MEM, "malloc"), (0, None));
    assert!(is_trailing(&err(&MEM, "malloc,mmap")));
}

#[test]
fn choice_sets() {
    // fio --sync_file_range=wait_before,write:8 is accepted.
    assert_eq!(
        ok(&SFR, "wait_before,write:8"),
        Value::ChoiceSet {
            indices: vec![0, 1],
            modifier: Some("8".into())
        }
    );
    assert_eq!(
        ok(&SFR, "write"),
        Value::ChoiceSet {
            indices: vec![1],
            modifier: None
        }
    );
    // fio matches `wait_before:8` against nothing and keeps only `write`.
    assert!(is_other(&err(&SFR, "wait_before:8,write")));
    assert!(matches!(
        err(&SFR, "write,bogus"),
        ValueError::NotAChoice { .. }
    ));
}

// ---- text and ignored -----------------------------------------------------

#[test]
fn text_and_ignored() {
    assert_eq!(ok(&TEXT, "hello world"), Value::Text("hello world".into()));
    assert_eq!(ok(&TEXT, " kept"), Value::Text(" kept".into()));
    // fio: "failed parsing description=".
    assert!(is_invalid(&err(&TEXT, "")));
    assert_eq!(
        parse_value(&TEXT, None, &K1024),
        Err(ValueError::MissingArgument)
    );
    assert_eq!(ok(&IGNORED, "whatever"), Value::Nothing);
    assert_eq!(parse_value(&IGNORED, None, &K1024), Ok(Value::Nothing));
}

// ---- per-direction values -------------------------------------------------

#[test]
fn per_direction_sizes() {
    const K: u64 = 1024;
    let cases: &[(&str, [Option<u64>; 3])] = &[
        ("4k", [Some(4 * K), Some(4 * K), Some(4 * K)]),
        ("4k,8k", [Some(4 * K), Some(8 * K), Some(8 * K)]),
        ("1k,2k,3k", [Some(K), Some(2 * K), Some(3 * K)]),
        ("4k:8k", [Some(4 * K), Some(8 * K), Some(8 * K)]),
        ("4k-8k", [Some(4 * K), Some(8 * K), Some(8 * K)]),
        // An empty piece leaves its direction at the default.
        (",8k", [None, Some(8 * K), Some(8 * K)]),
        (":8k", [None, Some(8 * K), Some(8 * K)]),
        ("1k,,3k", [Some(K), None, Some(3 * K)]),
        (",,3k", [None, None, Some(3 * K)]),
        // A trailing `,` is an empty write value, not dropped:
        // bs=8k, -> (R) 8192B (W) 4096B (T) 4096B; bs=8k,16k, -> T 4096B.
        ("8k,", [Some(8 * K), None, None]),
        ("8k,16k,", [Some(8 * K), Some(16 * K), None]),
        (",8k,", [None, Some(8 * K), None]),
        ("8k:", [Some(8 * K), None, None]),
        ("8k-", [Some(8 * K), None, None]),
        // After the last `,` fio looks for `:` again.
        ("1k,2k:3k", [Some(K), Some(2 * K), Some(3 * K)]),
    ];
    for (raw, want) in cases {
        assert_eq!(per_dir_bytes(&BS, raw), *want, "{raw}");
    }
}

#[test]
fn per_direction_refusals() {
    // fio: bs=1k:2k,3k -> R 1k W 3k (the 2k vanishes).
    assert!(is_trailing(&err(&BS, "1k:2k,3k")));
    // fio ignores a fourth value.
    assert!(is_other(&err(&BS, "1k,2k,3k,4k")));
    // fio leaves read at the default for `foo,8k`, write for `1k,foo`.
    assert!(is_invalid(&err(&BS, "foo,8k")));
    assert!(is_invalid(&err(&BS, "1k,foo")));
    // fio: "failed parsing bs=,".
    assert!(is_invalid(&err(&BS, ",")));
    // fio: bs=-8k gives reads a 16 EiB block size.
    assert!(is_invalid(&err(&BS, "-8k")));
    assert!(is_invalid(&err(&BS, "4k,-8k")));
    // fio: "bs: min value out of range: 0 (1 min)" (twice for 0,0).
    assert_eq!(err(&BS, "4k,0"), ValueError::BelowMin { value: 0, min: 1 });
}

#[test]
fn per_direction_read_write_and_times() {
    let two = ok(&CMDPRIO_PCT, "10,20");
    assert_eq!(
        two,
        Value::PerDir(vec![Some(Value::Int(10)), Some(Value::Int(20)), None])
    );
    let one = ok(&CMDPRIO_PCT, "10");
    assert_eq!(
        one,
        Value::PerDir(vec![Some(Value::Int(10)), Some(Value::Int(10)), None])
    );
    assert!(is_other(&err(&CMDPRIO_PCT, "10,20,30")));
    // fio --max_latency=10ms,20ms: out=10000, out=20000.
    assert_eq!(
        ok(&MAX_LATENCY, "10ms,20ms"),
        Value::PerDir(vec![
            Some(Value::Micros(10_000)),
            Some(Value::Micros(20_000)),
            Some(Value::Micros(20_000)),
        ])
    );
}

// ---- ranges ---------------------------------------------------------------

#[test]
fn size_ranges() {
    const K: u64 = 1024;
    let all = |r: (u64, u64)| Value::Ranges(vec![Some(r), Some(r), Some(r)]);
    // fio --bsrange=1k-4k: bs=(R) 1024B-4096B, (W) 1024B-4096B, (T) 1024B-4096B
    assert_eq!(ok(&BSRANGE, "1k-4k"), all((K, 4 * K)));
    assert_eq!(ok(&BSRANGE, "4k-1k"), all((K, 4 * K)));
    assert_eq!(ok(&BSRANGE, "1k:4k"), all((K, 4 * K)));
    assert_eq!(ok(&BSRANGE, "0x400-0x1000"), all((K, 4 * K)));
    assert_eq!(
        ok(&BSRANGE, "1k-4k,8k-16k"),
        Value::Ranges(vec![
            Some((K, 4 * K)),
            Some((8 * K, 16 * K)),
            Some((8 * K, 16 * K))
        ])
    );
    assert_eq!(
        ok(&BSRANGE, ",8k-16k"),
        Value::Ranges(vec![None, Some((8 * K, 16 * K)), Some((8 * K, 16 * K))])
    );
    // bsrange=1k-4k, -> (W) 4096B-4096B (T) 4096B-4096B: the defaults.
    assert_eq!(
        ok(&BSRANGE, "1k-4k,"),
        Value::Ranges(vec![Some((K, 4 * K)), None, None])
    );
    // fio: "failed parsing bsrange=4k".
    assert!(is_invalid(&err(&BSRANGE, "4k")));
    // fio reads 1k-2k-3k as 1k-2k and drops the `2k` of `1k-4k,2k`.
    assert!(is_trailing(&err(&BSRANGE, "1k-2k-3k")));
    assert!(is_invalid(&err(&BSRANGE, "1k-4k,2k")));
    assert!(is_other(&err(&BSRANGE, "1k-1k,1k-1k,1k-1k,1k-1k")));
    assert_eq!(
        err(&BSRANGE, "0-4k"),
        ValueError::BelowMin { value: 0, min: 1 }
    );
}

// ---- float lists ----------------------------------------------------------

#[test]
fn float_lists() {
    assert_eq!(
        ok(&PERCENTILES, "1:5:99.5"),
        Value::Floats(vec![1.0, 5.0, 99.5])
    );
    assert_eq!(ok(&PERCENTILES, "1e1:.5"), Value::Floats(vec![10.0, 0.5]));
    assert_eq!(ok(&PERCENTILES, " 50"), Value::Floats(vec![50.0]));
    assert_eq!(ok(&PERCENTILES, "0"), Value::Floats(vec![0.0]));
    // fio prints "value out of range: 101.000000 (range max: 100.000000)"
    // and exits 0 with the list cut to 50.
    assert_eq!(
        err(&PERCENTILES, "50:101"),
        ValueError::Other("value out of range: 101.000000 (range max: 100.000000)".into())
    );
    assert!(is_other(&err(&PERCENTILES, "-1")));
    // fio: "not a floating point value: abc" (ignored after the first).
    assert!(is_invalid(&err(&PERCENTILES, "50:abc")));
    assert!(is_invalid(&err(&PERCENTILES, "50:")));
    assert!(is_invalid(&err(&PERCENTILES, ":50")));
    // fio reads `50,60` and `50x` as 50.
    assert!(is_invalid(&err(&PERCENTILES, "50,60")));
    assert!(is_invalid(&err(&PERCENTILES, "50x")));
    assert!(is_invalid(&err(&PERCENTILES, "nan")));
    assert!(is_invalid(&err(&PERCENTILES, "")));
}

// ---- bssplit --------------------------------------------------------------

fn entry(bs: u64, pct: Option<u32>) -> SplitEntry {
    SplitEntry { bs, pct }
}

#[test]
fn bssplit() {
    const K: u64 = 1024;
    let mix = vec![
        entry(4 * K, Some(50)),
        entry(16 * K, Some(25)),
        entry(64 * K, Some(25)),
    ];
    assert_eq!(
        ok(&BSSPLIT, "4k/50:16k/25:64k/25"),
        Value::BsSplit(vec![mix.clone(), mix.clone(), mix])
    );
    // fio: bs=(R) 4096B-8192B, (W) 16.0KiB-16.0KiB, (T) 16.0KiB-16.0KiB
    let r = vec![entry(4 * K, Some(50)), entry(8 * K, Some(50))];
    let w = vec![entry(16 * K, Some(100))];
    assert_eq!(
        ok(&BSSPLIT, "4k/50:8k/50,16k/100"),
        Value::BsSplit(vec![r.clone(), w.clone(), w.clone()])
    );
    assert_eq!(
        ok(&BSSPLIT, "4k/50,8k/50,16k/100"),
        Value::BsSplit(vec![
            vec![entry(4 * K, Some(50))],
            vec![entry(8 * K, Some(50))],
            vec![entry(16 * K, Some(100))]
        ])
    );
    // An empty list leaves the direction to bs: fio (R) 4096B (W,T) 16.0KiB.
    assert_eq!(
        ok(&BSSPLIT, ",16k/100"),
        Value::BsSplit(vec![vec![], w.clone(), w.clone()])
    );
    assert_eq!(
        ok(&BSSPLIT, "16k/100,"),
        Value::BsSplit(vec![w.clone(), vec![], vec![]])
    );
    let shared = vec![entry(4 * K, None), entry(8 * K, None)];
    assert_eq!(
        ok(&BSSPLIT, "4k/:8k/"),
        Value::BsSplit(vec![shared.clone(), shared.clone(), shared])
    );
    // fio treats a 0 percentage as "share the remainder".
    let zero = vec![entry(4 * K, None), entry(8 * K, Some(100))];
    assert_eq!(
        ok(&BSSPLIT, "4k/0:8k/100"),
        Value::BsSplit(vec![zero.clone(), zero.clone(), zero])
    );
    // str_bssplit_cb strips blanks; `%` after a percentage is what atoi reads.
    let one = vec![entry(4 * K, Some(100))];
    assert_eq!(
        ok(&BSSPLIT, " 4k/100 "),
        Value::BsSplit(vec![one.clone(), one.clone(), one.clone()])
    );
    assert_eq!(
        ok(&BSSPLIT, "4k/100%"),
        Value::BsSplit(vec![one.clone(), one.clone(), one])
    );
    let lone = vec![entry(4 * K, None)];
    assert_eq!(
        ok(&BSSPLIT, "4k"),
        Value::BsSplit(vec![lone.clone(), lone.clone(), lone])
    );
    assert_eq!(ok(&BSSPLIT, "4k/50:8k/50:"), ok(&BSSPLIT, "4k/50:8k/50"));
}

#[test]
fn bssplit_refusals() {
    // fio accepts 4k/60:8k/60 (it only checks the sum when two or more
    // percentages are empty) and clamps 4k/150 to 100.
    assert!(is_other(&err(&BSSPLIT, "4k/60:8k/60")));
    assert!(is_other(&err(&BSSPLIT, "4k/60:8k/60:16k/")));
    assert!(is_other(&err(&BSSPLIT, "4k/150")));
    // fio stops at the empty entry: 4k/50::8k/50 is just 4k.
    assert!(is_invalid(&err(&BSSPLIT, "4k/50::8k/50")));
    // fio reads 4kx as 4k.
    assert!(is_bad_suffix(&err(&BSSPLIT, "4kx/100")));
    assert!(is_invalid(&err(&BSSPLIT, "4k/abc")));
    assert!(is_other(&err(&BSSPLIT, "4k/25,4k/25,4k/25,4k/25")));
    assert_eq!(
        err(&BSSPLIT, "0/100"),
        ValueError::BelowMin { value: 0, min: 1 }
    );
    assert!(is_invalid(&err(&BSSPLIT, ",")));
    // fio: "hit max of 64 split entries" and drops the rest.
    let many = vec!["512/"; 65].join(":");
    assert!(is_other(&err(&BSSPLIT, &many)));
    let max = vec!["512/"; 64].join(":");
    assert!(parse_value(&BSSPLIT, Some(&max), &K1024).is_ok());
}

// ---- CPU lists ------------------------------------------------------------

#[test]
fn cpu_lists() {
    let mut want = vec![0, 5];
    want.extend(8..=15);
    assert_eq!(ok(&CPUS, "0,5,8-15"), Value::Cpus(want));
    assert_eq!(ok(&CPUS, "3,1,1-2"), Value::Cpus(vec![1, 2, 3]));
    assert_eq!(ok(&CPUS, " 0-1 "), Value::Cpus(vec![0, 1]));
    assert_eq!(ok(&CPUS, "0,1,"), Value::Cpus(vec![0, 1]));
    assert_eq!(ok(&CPUS, "0-1023"), Value::Cpus((0..1024).collect()));
    // fio: "your OS only supports up to 1024 CPUs".
    assert!(is_other(&err(&CPUS, "1024")));
    // fio sets no CPU for 2-1, stops at the empty entry of 0,,1, and reads
    // `a` as CPU 0 and 1-3-5 as 1-5.
    assert!(is_other(&err(&CPUS, "2-1")));
    assert!(is_invalid(&err(&CPUS, "0,,1")));
    assert!(is_invalid(&err(&CPUS, "a")));
    assert!(is_invalid(&err(&CPUS, "1-3-5")));
    assert!(is_invalid(&err(&CPUS, "")));
}

// ---- random distributions -------------------------------------------------

fn dist(raw: &str) -> Distribution {
    match ok(&DIST, raw) {
        Value::Distribution(d) => d,
        v => panic!("{raw:?}: {v:?}"),
    }
}

#[test]
fn distributions() {
    assert_eq!(dist("random"), Distribution::Random);
    assert_eq!(
        dist("zipf:1.2"),
        Distribution::Zipf {
            theta: 1.2,
            center: None
        }
    );
    assert_eq!(
        dist("zipf"),
        Distribution::Zipf {
            theta: 1.1,
            center: None
        }
    );
    assert_eq!(
        dist("zipf:1.2:0.25"),
        Distribution::Zipf {
            theta: 1.2,
            center: Some(0.25)
        }
    );
    // fio accepts zipf:0 (only 1.0 is refused).
    assert_eq!(
        dist("zipf:0"),
        Distribution::Zipf {
            theta: 0.0,
            center: None
        }
    );
    assert_eq!(
        dist("pareto:0.5"),
        Distribution::Pareto {
            h: 0.5,
            center: None
        }
    );
    assert_eq!(
        dist("pareto"),
        Distribution::Pareto {
            h: 0.2,
            center: None
        }
    );
    assert_eq!(
        dist("normal:5"),
        Distribution::Normal {
            dev: 5.0,
            center: None
        }
    );
    assert_eq!(
        dist("normal"),
        Distribution::Normal {
            dev: 0.0,
            center: None
        }
    );
    assert_eq!(
        dist("normal:5:1"),
        Distribution::Normal {
            dev: 5.0,
            center: Some(1.0)
        }
    );
}

#[test]
fn distribution_refusals() {
    // fio: "zipf theta must different than 1.0"
    assert!(is_other(&err(&DIST, "zipf:1")));
    assert!(is_other(&err(&DIST, "zipf:1.0")));
    // fio: "distribution center out of range (0 <= center <= 1.0)"
    assert!(is_other(&err(&DIST, "zipf:1.2:1.5")));
    // fio: "pareto input out of range (0 < input < 1.0)"
    assert!(is_other(&err(&DIST, "pareto:1")));
    assert!(is_other(&err(&DIST, "pareto:0")));
    // fio: "normal deviation out of range (0 <= input < 100.0)"
    assert!(is_other(&err(&DIST, "normal:100")));
    assert!(is_other(&err(&DIST, "normal:-1")));
    // fio: "random postfix parsing failed"; zipf:1.2x is read as 1.2.
    assert!(is_invalid(&err(&DIST, "zipf:abc")));
    assert!(is_invalid(&err(&DIST, "zipf:1.2x")));
    assert!(is_invalid(&err(&DIST, "zipf:1.2:")));
    // fio ignores the 5 of random:5.
    assert!(is_other(&err(&DIST, "random:5")));
    // fio 3.33 fails both (the name before the first `,` is not a choice).
    assert!(is_other(&err(&DIST, "zipf:1.2,pareto:0.5")));
    assert!(is_other(&err(&DIST, "zoned:50/50:50/50,100/100")));
    // fio reads zipf,1.2 as zipf with the default theta.
    assert!(is_other(&err(&DIST, "zipf,1.2")));
    assert!(matches!(
        err(&DIST, " zipf:1.2"),
        ValueError::NotAChoice { .. }
    ));
    assert!(matches!(err(&DIST, "gauss"), ValueError::NotAChoice { .. }));
}

fn zones(raw: &str) -> (bool, Vec<(u32, u64)>) {
    match dist(raw) {
        Distribution::Zoned { absolute, zones } => {
            (absolute, zones.iter().map(|z| (z.io_pct, z.size)).collect())
        }
        d => panic!("{raw:?}: {d:?}"),
    }
}

#[test]
fn zoned_distributions() {
    // fio --debug=parse: "zone ddir 0 (nr=4): 0: 60/10 1: 30/20 2: 8/30 3: 2/40"
    assert_eq!(
        zones("zoned:60/10:30/20:8/30:2/40"),
        (false, vec![(60, 10), (30, 20), (8, 30), (2, 40)])
    );
    // fio: "0: 60/10 1: 40/90"
    assert_eq!(zones("zoned:60/10:40"), (false, vec![(60, 10), (40, 90)]));
    assert_eq!(zones("zoned:100/100"), (false, vec![(100, 100)]));
    // fio: "0: 60/21474836480 1: 30/107374182400 2: 10/214748364800"
    assert_eq!(
        zones("zoned_abs:60/20g:30/100g:10/200g"),
        (true, vec![(60, 20 << 30), (30, 100 << 30), (10, 200 << 30)])
    );
}

#[test]
fn zoned_refusals() {
    // fio: "access percentage don't add up to 100 for zoned random
    // distribution (got=90)" (and then crashes, exit 139).
    assert!(is_other(&err(&DIST, "zoned:60/10:30/20")));
    // fio: "zone_split percentages add to more than 100%"
    assert!(is_other(&err(&DIST, "zoned:60/10:50/20")));
    assert!(is_other(&err(&DIST, "zoned:60/50:40/60")));
    assert!(is_other(&err(&DIST, "zoned:150/10")));
    // fio gives a lone zone without a range share 0% of the range: every
    // I/O lands at offset 0 (checked with --write_iolog).
    assert!(is_other(&err(&DIST, "zoned:100")));
    // fio: zoned_abs:60/20g:40 is "1: 40/0" (a zone of 0 bytes).
    assert!(is_other(&err(&DIST, "zoned_abs:60/20g:40")));
    // fio: "mismatch in zoned input <zoned>"; `zoned:` gives no zones.
    assert!(is_invalid(&err(&DIST, "zoned")));
    assert!(is_invalid(&err(&DIST, "zoned:")));
    assert!(is_invalid(&err(&DIST, "zoned:60/10::40/90")));
}

#[test]
fn error_messages_name_the_problem() {
    assert_eq!(
        err(&SIZE, "4 k").to_string(),
        "'4 k': unexpected ' k' after the number"
    );
    assert_eq!(
        err(&SIZE, "12q").to_string(),
        "'12q': unknown unit suffix 'q'"
    );
    assert_eq!(
        ValueError::MissingArgument.to_string(),
        "requires an argument"
    );
}

proptest::proptest! {
    /// No text makes a parser panic (slicing, overflow), whatever the kind.
    #[test]
    fn never_panics(raw in "\\PC{0,24}|[0-9a-zA-Z%:,/ .+-]{0,24}") {
        let defs = [
            &SIZE, &BS, &SIZE_PCT, &IODEPTH, &NICE, &RUNTIME, &THINKTIME, &MAX_LATENCY,
            &DIRECT, &TIME_BASED, &CMDPRIO_PCT, &RW, &MEM, &SFR, &KB_BASE, &TEXT, &BSRANGE,
            &PERCENTILES, &BSSPLIT, &CPUS, &DIST, &IGNORED,
        ];
        for d in defs {
            let _ = parse_value(d, Some(&raw), &K1024);
            let _ = parse_value(d, Some(&raw), &K1000);
        }
    }

    /// Every decimal size with a suffix reads as number times multiplier.
    #[test]
    fn sizes_multiply(n in 0u64..1_000_000, s in 0usize..6, upper: bool) {
        let (suffix, mult) = [("", 1u64), ("b", 1), ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("kib", 1000)][s];
        let suffix = if upper { suffix.to_uppercase() } else { suffix.to_string() };
        let raw = format!("{n}{suffix}");
        proptest::prop_assert_eq!(parse_size(&raw, &K1024), Ok(n * mult));
    }
}
