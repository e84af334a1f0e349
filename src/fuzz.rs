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
        crate::plot::charts(std::slice::from_ref(&input), &PLOT_APART);
        crate::plot::charts(&[input], &PLOT_OVERLAY);
    }
}

/// Any bytes as fio's JSON/JSON+ output through `rfio plot`'s reader and,
/// if it reads, into charts: an error or a report, never a panic.
#[doc(hidden)]
pub fn plot_json_check(bytes: &[u8]) {
    let _ = crate::plot::looks_like_json(bytes);
    if crate::plot::looks_like_stream(bytes) {
        if let Ok(stream) = crate::plot::parse_stream(bytes) {
            let input = crate::plot::Input::Stream {
                name: "s.ndjson".into(),
                stream,
            };
            crate::plot::charts(std::slice::from_ref(&input), &PLOT_APART);
            crate::plot::charts(&[input], &PLOT_OVERLAY);
        }
    }
    if let Ok(report) = crate::plot::parse_json(bytes) {
        let input = crate::plot::Input::Report {
            name: "r.json".into(),
            report,
        };
        crate::plot::charts(std::slice::from_ref(&input), &PLOT_APART);
        crate::plot::charts(&[input], &PLOT_OVERLAY);
    }
}

const PLOT_APART: crate::plot::Options = crate::plot::Options {
    overlay: false,
    log_latency: true,
};
const PLOT_OVERLAY: crate::plot::Options = crate::plot::Options {
    overlay: true,
    log_latency: false,
};

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

use crate::wire::body;
use crate::wire::frame::{self, Accept, Message, Op, Reader, HEADER_LEN, MAX_FRAGMENT};
use crate::wire::stats::{du::Du, eta::Eta, gs::decode_gs, iolog::decode_iolog, ts::decode_ts};

/// Any bytes as a stream of fio wire frames, as a client or server reads
/// them: the frame reader (headers, CRCs, versions, MORE chains, the size
/// cap), then each message's body through its decoder. Twice: as given,
/// and with every header's and payload's CRC made right, so that the
/// fuzzer reaches reassembly and the body decoders.
#[doc(hidden)]
pub fn wire_frame_check(bytes: &[u8]) {
    wire_stream(bytes);
    wire_stream(&with_crcs(bytes));
}

/// Read `bytes` to their end or first error, decoding every message.
fn wire_stream(bytes: &[u8]) {
    let mut reader = Reader::new(bytes, Accept::Range(0, u16::MAX), 1 << 20);
    while let Ok(msg) = reader.next_message() {
        decode(&msg);
    }
}

/// What the client's and the server's dispatch decode of a message.
fn decode(msg: &Message) {
    let b = &msg.body[..];
    match msg.op {
        Op::Probe => {
            let _ = body::ProbeRequest::decode(b);
            let _ = body::ProbeReply::decode(b);
        }
        Op::Text => {
            if let Ok(t) = body::Text::decode(b) {
                let _ = crate::diag::printable(&t.text);
            }
        }
        Op::Start => {
            let _ = body::Start::decode(b);
        }
        Op::Stop => {
            let _ = body::Stop::decode(b);
        }
        Op::JobOpt => {
            let _ = body::JobOpt::decode(b);
        }
        Op::JobLine => {
            let _ = body::JobLine::decode(b);
        }
        Op::Job => {
            let _ = body::Job::decode(b);
        }
        Op::LoadFile => {
            let _ = body::LoadFile::decode(b);
        }
        Op::SendFile => {
            let _ = body::decode_sendfile(b);
        }
        Op::Du => {
            if let Ok(du) = Du::decode(b) {
                let _ = du.aggregate();
            }
        }
        Op::Eta => {
            let _ = Eta::decode(b);
        }
        Op::Gs => {
            let _ = decode_gs(b);
        }
        Op::Ts => {
            let _ = decode_ts(b, msg.version);
        }
        Op::IoLog => {
            let _ = decode_iolog(b, msg.version);
        }
        _ => {}
    }
}

/// `bytes` read as frames (a header, then its payload, up to fio's
/// fragment size) with each frame's two CRCs set to the right values.
fn with_crcs(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let mut at = 0;
    while at + HEADER_LEN <= out.len() {
        let h = at;
        let len = u32::from_le_bytes([out[h + 16], out[h + 17], out[h + 18], out[h + 19]]) as usize;
        let crc = frame::crc16(&out[h..h + 20]);
        out[h + 20..h + 22].copy_from_slice(&crc.to_le_bytes());
        let start = h + HEADER_LEN;
        if len > MAX_FRAGMENT || start + len > out.len() {
            break;
        }
        let payload = if len == 0 {
            0
        } else {
            frame::crc16(&out[start..start + len])
        };
        out[h + 22..h + 24].copy_from_slice(&payload.to_le_bytes());
        at = start + len;
    }
    out
}

/// Any bytes as a baseline file (`--baseline-compare`): decoded and
/// checked as one read from disk; an error's text is bounded whatever the
/// input.
#[doc(hidden)]
pub fn baseline_check(bytes: &[u8]) {
    if let Err(e) = crate::baseline::parse("fuzz.json", bytes) {
        let e = e.to_string();
        assert!(
            e.len() < 4096,
            "a baseline error of {} bytes: {}",
            e.len(),
            crate::diag::quote(&e, 300)
        );
    }
}
