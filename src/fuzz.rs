//! Fuzz entry points: one function per parser of outside input (job files
//! are [`crate::front_end_check`]). Each takes any bytes and must return,
//! never panic, never allocate beyond a bound, whatever it is given. The
//! targets in `fuzz/fuzz_targets/` call them, and `tests/it/fuzz_corpus.rs`
//! replays each target's corpus (`fuzz/corpus/<target>/`) on every
//! `cargo test`.

/// Any bytes as a text iolog (fio's versions 2 and 3): the line reader
/// and the entry parser, as `read_iolog` uses them.
#[doc(hidden)]
pub fn iolog_check(bytes: &[u8]) {
    crate::workload::iolog::fuzz::text_check(bytes);
}

/// Any bytes as a blktrace trace: the record reader, as a replay and a
/// merge use it.
#[doc(hidden)]
pub fn blktrace_check(bytes: &[u8]) {
    crate::workload::iolog::fuzz::blktrace_check(bytes);
}

/// Any bytes as a fio log (`x_clat.1.log`) through `rfio plot`'s reader,
/// fed in uneven pieces as a file or an inflater gives them, then, if it
/// reads, into charts: an error or a log, never a panic.
#[doc(hidden)]
pub fn plot_log_check(bytes: &[u8]) {
    use crate::plot::{LogKind, LogReader};
    let kind = match bytes.first().map(|b| b % 5) {
        Some(0) => LogKind::Iops,
        Some(1) => LogKind::Bw,
        Some(2) => LogKind::Lat,
        Some(3) => LogKind::Clat,
        _ => LogKind::Slat,
    };
    let whole = crate::plot::parse_log(kind, bytes);
    let mut r = LogReader::new(kind);
    let pieces = bytes
        .chunks(bytes.len() / 3 + 1)
        .try_for_each(|c| r.push(c));
    let pieced = pieces.and_then(|()| r.finish());
    assert_eq!(whole, pieced, "read whole and in pieces differ");
    if let Ok(log) = whole {
        let input = crate::plot::Input::Log {
            name: "x_clat.1.log".into(),
            log,
        };
        crate::plot::charts(std::slice::from_ref(&input), false);
        crate::plot::charts(&[input], true);
    }
}

/// Any bytes as fio's JSON/JSON+ output through `rfio plot`'s reader and,
/// if it reads, into charts: an error or a report, never a panic.
#[doc(hidden)]
pub fn plot_json_check(bytes: &[u8]) {
    let _ = crate::plot::looks_like_json(bytes);
    if let Ok(report) = crate::plot::parse_json(bytes) {
        let input = crate::plot::Input::Report {
            name: "r.json".into(),
            report,
        };
        crate::plot::charts(&[input], false);
    }
}

/// The text at most inflated from one fuzz input: a bomb is cut there.
const INFLATE_TEXT_LIMIT: u64 = 4 << 20;

/// Any bytes as a `.log.fz` file (`--inflate-log`): the streaming
/// inflater must end with the text or an error, never panic, and hold no
/// more than its fixed buffers whatever the input inflates to.
#[doc(hidden)]
pub fn inflate_check(bytes: &[u8]) {
    let _ = crate::logs::inflate_from(
        &mut &bytes[..],
        "fuzz.fz",
        &mut std::io::sink(),
        INFLATE_TEXT_LIMIT,
    );
}
