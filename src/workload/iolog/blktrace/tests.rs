use super::*;
use crate::plan::resolve::iolog::ReplayOptions;

/// A trace of `action` (basic action and categories), as blktrace
/// writes it on this machine.
pub(crate) fn trace(time: u64, sector: u64, bytes: u32, action: u32, device: u32) -> Trace {
    Trace {
        magic: MAGIC | VERSION,
        time,
        sector,
        bytes,
        action,
        device,
        ..Trace::default()
    }
}

pub(crate) fn queued(tc: u32) -> u32 {
    TA_QUEUE | act(TC_QUEUE | tc)
}

fn settings(redirect: &str) -> ReadSettings {
    ReadSettings {
        replay: ReplayOptions {
            redirect: Some(redirect.to_string()),
            ..ReplayOptions::default()
        },
        readonly: false,
        dir: None,
        name: "t.bin".into(),
    }
}

fn bytes(traces: &[(Trace, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (t, pdu) in traces {
        let mut t = *t;
        t.pdu_len = pdu.len() as u16;
        out.extend_from_slice(&t.encode());
        out.extend_from_slice(pdu);
    }
    out
}

fn read_all(data: &[u8], swap: bool, set: ReadSettings) -> (Vec<Entry>, Files, Vec<String>, i64) {
    let mut r = BlktraceReader::new(data, swap, set, false);
    let (mut files, mut said, mut out) = (Files::default(), Vec::new(), Vec::new());
    while let Some(e) = r.next(&mut files, &mut |m| said.push(m)).unwrap() {
        out.push(e);
    }
    let depth = (0..3).map(|i| r.depth(i)).max().unwrap();
    (out, files, said, depth)
}

#[test]
fn a_trace_encodes_and_decodes_both_ways() {
    let t = trace(123_456, 8, 4096, queued(TC_WRITE), 8 << 20);
    let b = t.encode();
    assert_eq!(Trace::decode(&b, false), t);
    let mut swapped = b;
    for (range, len) in [(0..4, 4), (4..8, 4), (8..16, 8), (16..24, 8), (24..28, 4)] {
        swapped[range.clone()].reverse();
        assert_eq!(range.len(), len);
    }
    for start in [28, 32, 36, 40] {
        swapped[start..start + 4].reverse();
    }
    swapped[44..46].reverse();
    swapped[46..48].reverse();
    assert_eq!(Trace::decode(&swapped, true), t);
}

#[test]
fn queue_events_become_entries_with_their_delays() {
    let dev = 8 << 20;
    let data = bytes(&[
        (trace(0, 0, 0, act(TC_NOTIFY), dev), b"proc\0"),
        (trace(1000, 0, 4096, queued(TC_READ), dev), b""),
        (
            trace(1010, 0, 4096, TA_COMPLETE | act(TC_READ | TC_COMPLETE), dev),
            b"",
        ),
        (trace(2_000_000, 8, 8192, queued(TC_WRITE), dev), b""),
        (trace(2_000_010, 100, 4096, queued(TC_WRITE), dev), b""),
        (
            trace(
                2_000_020,
                8,
                8192,
                TA_COMPLETE | act(TC_WRITE | TC_COMPLETE),
                dev,
            ),
            b"",
        ),
        (trace(3_000_000, 0, 0, queued(TC_FLUSH), dev), b""),
        (trace(4_000_000, 64, 65536, queued(TC_DISCARD), dev), b""),
        (trace(5_000_000, 200, 0, queued(TC_READ), dev), b""),
        (trace(6_000_000, 300, 1000, queued(TC_READ), dev), b""),
    ]);
    let (e, files, said, depth) = read_all(&data, false, settings("red"));
    assert_eq!(files.paths, [PathBuf::from("red")]);
    assert_eq!(files.devices, [(8, 0)]);
    assert_eq!(
        said,
        ["t.bin: blktrace: ignoring zero byte trace: action=110001"]
    );
    let got: Vec<(Act, u64, u64, u64)> = e
        .iter()
        .map(|e| (e.act, e.offset, e.len, e.delay_us))
        .collect();
    assert_eq!(
        got,
        [
            (Act::Open, 0, 0, 0),
            (Act::Io(Ddir::Read), 0, 4096, 0),
            (Act::Io(Ddir::Write), 4096, 8192, 1999),
            (Act::Io(Ddir::Write), 51200, 4096, 0),
            (Act::Sync(Ddir::Sync), 0, 0, 999),
            (Act::Io(Ddir::Trim), 32768, 65536, 1000),
            // After the zero-byte read, whose time counts.
            (Act::Io(Ddir::Read), 153600, 1000, 1000),
            (Act::Close, 0, 0, 0),
        ]
    );
    assert_eq!(depth, 2, "two writes queued before a completion");
}

#[test]
fn skips_alignment_and_readonly() {
    let dev = 8 << 20;
    let data = bytes(&[
        (trace(10, 1, 1000, queued(TC_READ), dev), b""),
        (trace(20, 3, 512, queued(TC_WRITE), dev), b""),
        (trace(30, 9, 0, queued(TC_FLUSH), dev), b""),
    ]);
    let mut set = settings("red");
    set.replay.align = 4096;
    set.replay.skip = 1 << Ddir::Sync.index();
    let (e, _, _, _) = read_all(&data, false, set.clone());
    let got: Vec<(Act, u64, u64)> = e.iter().map(|e| (e.act, e.offset, e.len)).collect();
    assert_eq!(
        got,
        [
            (Act::Open, 0, 0),
            (Act::Io(Ddir::Read), 0, 4096),
            (Act::Io(Ddir::Write), 0, 4096),
            (Act::Close, 0, 0),
        ]
    );
    set.readonly = true;
    let (e, _, said, _) = read_all(&data, false, set);
    assert_eq!(e.len(), 3, "open, the read, close");
    assert_eq!(
        said,
        ["t.bin: fio: skips replay of 1 writes due to read-only"]
    );
}

#[test]
fn bad_magic_and_version_end_the_read() {
    let mut t = trace(10, 1, 1000, queued(TC_READ), 0);
    t.magic = MAGIC | 6;
    let b = t.encode();
    let mut r = BlktraceReader::new(&b[..], false, settings("r"), false);
    let err = r.next(&mut Files::default(), &mut |_| {}).unwrap_err();
    // The error keeps the trace's file, its byte and the version found.
    assert!(
        matches!(
            &err,
            Error::Trace {
                name,
                source: TraceError::BadVersion { at: 0, version: 6 },
            } if name == "t.bin"
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "t.bin: the trace at byte 0: fio: bad blktrace version 6"
    );
    // After a good trace (and its payload), the bad one is at byte 53.
    let good = bytes(&[(trace(1, 0, 512, queued(TC_READ), 0), b"12345")]);
    let b = [good, t.encode().to_vec()].concat();
    let mut r = BlktraceReader::new(&b[..], false, settings("r"), false);
    let mut files = Files::default();
    let err = loop {
        match r.next(&mut files, &mut |_| {}) {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the bad trace is read"),
            Err(e) => break e.to_string(),
        }
    };
    assert_eq!(
        err,
        "t.bin: the trace at byte 53: fio: bad blktrace version 6"
    );
    t.magic = 0x1234_5607;
    let b = t.encode();
    let mut r = BlktraceReader::new(&b[..], false, settings("r"), false);
    let err = r
        .next(&mut Files::default(), &mut |_| {})
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "t.bin: the trace at byte 0: fio: bad magic in blktrace data: 12345607"
    );
}

#[test]
fn a_trace_cut_short_is_an_error_naming_its_byte() {
    let good = bytes(&[(trace(1, 0, 512, queued(TC_READ), 0), b"12345")]);
    let next = trace(2, 8, 512, queued(TC_READ), 0).encode();
    let mut with_pdu = next;
    with_pdu[46..48].copy_from_slice(&100u16.to_ne_bytes());
    for (tail, want) in [
        (
            &next[..20],
            "t.bin: the trace at byte 53 is cut short: the file ends after 20 of its 48 \
             bytes (fio: iolog short read)",
        ),
        (
            &with_pdu[..],
            "t.bin: the trace at byte 53 is cut short: the file ends within its 100 bytes \
             of payload",
        ),
    ] {
        let b = [good.as_slice(), tail].concat();
        let mut r = BlktraceReader::new(&b[..], false, settings("r"), false);
        let mut files = Files::default();
        let err = loop {
            match r.next(&mut files, &mut |_| {}) {
                Ok(Some(_)) => {}
                Ok(None) => panic!("the cut trace is read"),
                Err(e) => break e.to_string(),
            }
        };
        assert_eq!(err, want);
    }
}
