//! The fuzz targets' way in (`crate::fuzz::iolog_check` and
//! `blktrace_check`): any bytes through the real readers, as a text log
//! and as a blktrace trace, with everything they hold bounded by the
//! input. Each checks what the readers promise: no panic, messages with
//! no control character and of bounded length, entries within the file
//! offsets a replay can use.

use super::error::Error;
use super::text::{ReadSettings, TextReader, MAX_LINE};
use super::{blktrace, merge, Act, Entry, Files};
use crate::plan::resolve::iolog::ReplayOptions;

/// The longest message a reader may say: a line quoted (256 characters,
/// each escaped to at most 10 bytes) with its place and fio's words.
const MAX_MESSAGE: usize = 4 * MAX_LINE;

fn settings(replay: ReplayOptions) -> ReadSettings {
    ReadSettings {
        replay,
        readonly: false,
        dir: None,
        name: "fuzz.log".into(),
    }
}

/// A message a reader said or failed with: visible and bounded.
fn message_ok(m: &str) {
    assert!(
        !m.chars().any(|c| c.is_control() && c != '\t'),
        "a message with a control character: {m:?}"
    );
    assert!(m.len() <= MAX_MESSAGE, "a message of {} bytes", m.len());
}

/// An entry a reader gave: within the files it added, and of an offset
/// and length a file can have.
fn entry_ok(e: &Entry, files: &Files, text: bool) {
    if !matches!(e.act, Act::Wait) {
        assert!((e.file as usize) < files.paths.len(), "{e:?}: no such file");
    }
    if text {
        assert!(e.len <= u64::from(u32::MAX), "{e:?}");
        assert!(
            e.offset
                .checked_add(e.len)
                .is_some_and(|end| end <= i64::MAX as u64),
            "{e:?}"
        );
    }
}

/// Read every entry of `next` until the end or an error.
fn drain(
    mut next: impl FnMut(&mut Files, &mut dyn FnMut(String)) -> Result<Option<Entry>, Error>,
    text: bool,
    limit: usize,
) {
    let mut files = Files::default();
    let mut say = |m: String| message_ok(&m);
    for _ in 0..limit {
        match next(&mut files, &mut say) {
            Ok(Some(e)) => entry_ok(&e, &files, text),
            Ok(None) => return,
            Err(m) => return message_ok(&m.to_string()),
        }
    }
    panic!("more than {limit} entries from {limit} bytes");
}

/// `bytes` as a whole text log (its first line included), then as the
/// body of a version 2 and of a version 3 log, with fio's default replay
/// and with scaled, aligned, unstalled offsets.
pub(crate) fn text_check(bytes: &[u8]) {
    // Each entry takes a line of at least one byte; file closes none.
    let limit = bytes.len() + 2;
    let scaled = ReplayOptions {
        scale: 3,
        align: 4096,
        no_stall: true,
        time_scale: 7,
        ..ReplayOptions::default()
    };
    for replay in [ReplayOptions::default(), scaled] {
        match TextReader::start(bytes, settings(replay.clone())) {
            Ok(mut r) => drain(|f, s| r.next(f, s), true, limit),
            Err(m) => message_ok(&m.to_string()),
        }
        for version in [2, 3] {
            let mut r = TextReader::new(bytes, version, settings(replay.clone()));
            drain(|f, s| r.next(f, s), true, limit);
        }
    }
}

/// `bytes` as a blktrace trace in either byte order (every device
/// redirected to one file: no search of `/dev`), whole and read in
/// chunks, with fio's default replay and with `replay_align`; then as
/// the trace of a merge, played twice.
pub(crate) fn blktrace_check(bytes: &[u8]) {
    let _ = bytes
        .get(..blktrace::TRACE_SIZE)
        .and_then(|b| blktrace::byte_order(b.try_into().ok()?));
    let redirect = ReplayOptions {
        redirect: Some("fuzz.dev".into()),
        ..ReplayOptions::default()
    };
    let aligned = ReplayOptions {
        align: 4096,
        scale: 5,
        ..redirect.clone()
    };
    // Each trace takes 48 bytes and gives at most an open and an I/O;
    // the end adds a close per file.
    let limit = 2 * (bytes.len() / blktrace::TRACE_SIZE) + 8;
    for replay in [redirect, aligned] {
        for swap in [false, true] {
            for chunked in [false, true] {
                let set = settings(replay.clone());
                let mut r = blktrace::BlktraceReader::new(bytes, swap, set, chunked);
                drain(|f, s| r.next(f, s), false, limit);
            }
        }
    }
    if let Err(m) = merge::merge_bytes(bytes) {
        message_ok(&m.to_string());
    }
}
