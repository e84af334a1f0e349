//! I/O logs against real fio 3.33 (`write_iolog`, `read_iolog` and the
//! replay options): a log rfio writes is the log fio writes (but for its
//! times), a log either writes replays in the other with the same I/Os
//! (offsets, lengths, directions, counts) and the same JSON `io_bytes` and
//! `total_ios`; blktrace traces (written here, `struct blk_io_trace` of
//! fio's `blktrace_api.h`) replay as in fio; a bad log fails the job with
//! the log's name and line.

use std::path::Path;
use std::process::Output;

use crate::common::{real_fio, run_in, stderr, stdout, TempDir, RFIO};

/// One I/O of a per-I/O latency log (`log_offset=1`): direction, offset,
/// length.
type Io = (u8, u64, u64);

/// What a replay (or any run) did: its I/Os in order, per job the JSON
/// read/write/trim `(io_bytes, total_ios)`, its exit status.
#[derive(Debug)]
struct Ran {
    ios: Vec<Io>,
    counts: Vec<[(u64, u64); 3]>,
    code: Option<i32>,
    out: Output,
}

/// The JSON document of a run (fio may print lines around it).
fn json(o: &Output) -> serde_json::Value {
    let text = stdout(o);
    let (Some(a), Some(b)) = (
        text.find("\n{").map(|i| i + 1).or(text.find('{')),
        text.rfind('}'),
    ) else {
        panic!("no JSON: {text}\n{}", stderr(o));
    };
    serde_json::from_str(&text[a..=b]).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Run `bin` in `dir` with `args`, its I/Os logged (`lat` log) and its
/// report in JSON.
fn ran(bin: &str, dir: &Path, args: &[&str]) -> Ran {
    let _ = std::fs::remove_file(dir.join("lat_lat.1.log"));
    let mut all = args.to_vec();
    all.extend([
        "--write_lat_log=lat",
        "--log_offset=1",
        "--output-format=json",
    ]);
    let out = run_in(bin, dir, &all);
    let ios = std::fs::read_to_string(dir.join("lat_lat.1.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let f: Vec<u64> = l.split(", ").map(|v| v.parse().unwrap()).collect();
            (f[2] as u8, f[4], f[3])
        })
        .collect();
    let j = json(&out);
    let counts = j["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|job| {
            ["read", "write", "trim"].map(|d| {
                (
                    job[d]["io_bytes"].as_u64().unwrap(),
                    job[d]["total_ios"].as_u64().unwrap(),
                )
            })
        })
        .collect();
    Ran {
        ios,
        counts,
        code: out.status.code(),
        out,
    }
}

/// fio and rfio replay with `args` in copies of `dir` alike; rfio's run.
fn replays_alike(dir: &TempDir, args: &[&str]) -> Ran {
    let copy = |tag: &str| {
        let d = TempDir::new(tag);
        for e in std::fs::read_dir(&dir.0).unwrap().flatten() {
            std::fs::copy(e.path(), d.file(&e.file_name().to_string_lossy())).unwrap();
        }
        d
    };
    let (fd, rd) = (copy("iolog-fio"), copy("iolog-rfio"));
    let f = ran(real_fio(), &fd.0, args);
    let r = ran(RFIO, &rd.0, args);
    assert_eq!(
        r.code,
        f.code,
        "{args:?}\nrfio: {}\nfio: {}",
        stderr(&r.out),
        stderr(&f.out)
    );
    assert_eq!(r.ios, f.ios, "{args:?}: the I/Os");
    assert_eq!(r.counts, f.counts, "{args:?}: io_bytes and total_ios");
    r
}

/// A log without its times (the first field of a version 3 line).
fn untimed(log: &str) -> Vec<String> {
    log.lines()
        .map(|l| match l.split_once(' ') {
            Some((t, rest)) if t.bytes().all(|b| b.is_ascii_digit()) => rest.to_string(),
            _ => l.to_string(),
        })
        .collect()
}

/// The log `bin` writes for the job `args` (in a directory of its own).
fn written(bin: &str, args: &[&str]) -> String {
    let d = TempDir::new("iolog-w");
    let mut all = args.to_vec();
    all.extend(["--write_iolog=w.log", "--output-format=json"]);
    let out = run_in(bin, &d.0, &all);
    assert!(out.status.success(), "{bin} {args:?}: {}", stderr(&out));
    std::fs::read_to_string(d.file("w.log")).unwrap()
}

/// rfio writes for each job of `jobs` the log fio writes, times aside.
fn writes_as_fio(jobs: &[&str]) {
    for job in jobs {
        let args: Vec<&str> = job.split(' ').collect();
        let (f, r) = (written(real_fio(), &args), written(RFIO, &args));
        assert_eq!(untimed(&r), untimed(&f), "{job}");
        assert_eq!(r.lines().next(), Some("fio version 3 iolog"));
        let times: Vec<u64> = r
            .lines()
            .skip(1)
            .map(|l| l.split(' ').next().unwrap().parse().unwrap())
            .collect();
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "{job}: times go forward: {r}"
        );
    }
}

#[test]
fn rfio_writes_the_log_fio_writes() {
    writes_as_fio(&[
        "--name=j --size=64k --bs=4k --rw=randrw --nrfiles=2",
        "--name=j --size=64k --bs=4k --rw=write --fsync=3 --end_fsync=1",
        "--name=j --size=64k --bs=4k --rw=read:8k",
    ]);
}

#[test]
fn rfio_logs_file_closes_and_verify_reads_as_fio() {
    writes_as_fio(&[
        "--name=j --size=32k --bs=4k --rw=write --verify=crc32c --loops=2",
        "--name=j --size=64k --bs=4k --rw=randread --nrfiles=2 --file_service_type=sequential",
        "--name=j --size=64k --bs=4k --rw=trimwrite --ioengine=null",
    ]);
}

/// A log written by `writer` replays alike in fio and rfio.
fn round_trip(writer: &str) {
    let d = TempDir::new("iolog-rt");
    let out = run_in(
        writer,
        &d.0,
        &[
            "--name=w",
            "--nrfiles=2",
            "--size=256k",
            "--bsrange=4k-16k",
            "--rw=randrw",
            "--fsync=7",
            "--write_iolog=w.log",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let log = std::fs::read_to_string(d.file("w.log")).unwrap();
    let want: Vec<Io> = log
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let dir = match *f.get(2)? {
                "read" => 0,
                "write" => 1,
                _ => return None,
            };
            Some((dir, f[3].parse().unwrap(), f[4].parse().unwrap()))
        })
        .collect();
    assert!(want.len() > 20, "{log}");
    let r = replays_alike(
        &d,
        &["--name=r", "--read_iolog=w.log", "--replay_no_stall=1"],
    );
    assert_eq!(r.ios, want, "the log's I/Os, in its order");
    let bytes = |dir: u8| want.iter().filter(|i| i.0 == dir).map(|i| i.2).sum::<u64>();
    let n = |dir: u8| want.iter().filter(|i| i.0 == dir).count() as u64;
    assert_eq!(r.counts[0][0], (bytes(0), n(0)));
    assert_eq!(r.counts[0][1], (bytes(1), n(1)));
    // Read as it is replayed, the same.
    replays_alike(
        &d,
        &[
            "--name=r",
            "--read_iolog=w.log",
            "--replay_no_stall=1",
            "--read_iolog_chunked=1",
        ],
    );
}

#[test]
fn a_log_fio_wrote_replays_in_rfio_as_in_fio() {
    round_trip(real_fio());
}

#[test]
fn a_log_rfio_wrote_replays_in_fio_as_in_rfio() {
    round_trip(RFIO);
}

/// A version 3 log over files `a` and `b`.
const LOG3: &str = "fio version 3 iolog
0 a add
0 b add
10 a open
20 b open
30 a write 0 12288
40 b write 12345 8192
50 a read 5001 4096
60 b sync 0 0
70 a close
70 b close
";

/// fio and rfio replay `log` (as `l.log`) with each of `options` alike;
/// rfio's runs.
fn replays_with(log: &str, options: &[&[&str]]) -> Vec<Ran> {
    let d = TempDir::new("iolog-opts");
    d.write("l.log", log);
    options
        .iter()
        .map(|extra| {
            let mut a = vec!["--name=r", "--read_iolog=l.log"];
            a.extend_from_slice(extra);
            replays_alike(&d, &a)
        })
        .collect()
}

#[test]
fn replay_scale_and_align_move_the_offsets() {
    let r = replays_with(
        LOG3,
        &[&[], &["--replay_scale=2"], &["--replay_align=4096"]],
    );
    assert_eq!(r[0].ios, [(1, 0, 12288), (1, 12345, 8192), (0, 5001, 4096)]);
    assert_eq!(r[1].ios, [(1, 0, 12288), (1, 6172, 8192), (0, 2500, 4096)]);
    assert_eq!(r[2].ios, [(1, 0, 12288), (1, 12288, 8192), (0, 4096, 4096)]);
}

#[test]
fn replay_redirect_and_chunked_reads() {
    let r = replays_with(
        LOG3,
        &[
            &[
                "--replay_redirect=red",
                "--replay_scale=3",
                "--replay_align=1024",
            ],
            &["--read_iolog_chunked=1", "--replay_time_scale=50"],
        ],
    );
    assert_eq!(r[0].ios, [(1, 0, 12288), (1, 4096, 8192), (0, 1024, 4096)]);
    assert_eq!(r[0].counts[0][0], (4096, 1));
    assert_eq!(r[1].ios.len(), 3);
}

#[test]
fn version_2_logs_and_their_bad_lines() {
    // Bad lines are skipped, each with fio's message, here with the log's
    // name and line.
    let v2 = "fio version 2 iolog\na add\na open\na write 0 4096\na wait 50 0\n\
              a trim 0 4096\na bogus 0 0\na read 4096\na read 0 4096\na datasync 0 0\n\
              a close\n";
    let r = replays_with(v2, &[&[]]);
    assert_eq!(r[0].ios, [(1, 0, 4096), (0, 0, 4096)]);
    let err = stderr(&r[0].out);
    for msg in [
        "l.log:6: bad ddir: 2",
        "l.log:7: fio: bad iolog file action: bogus",
        "l.log:8: bad iolog2: a read 4096",
    ] {
        assert!(err.contains(msg), "{msg}: {err}");
    }
}

#[test]
fn readonly_replays_leave_the_writes_out() {
    let d = TempDir::new("iolog-ro");
    d.write("l.log", LOG3);
    std::fs::write(d.file("a"), vec![0u8; 16384]).unwrap();
    std::fs::write(d.file("b"), vec![0u8; 16384]).unwrap();
    let r = replays_alike(&d, &["--readonly", "--name=r", "--read_iolog=l.log"]);
    assert_eq!(r.ios, [(0, 5001, 4096)]);
}

#[test]
fn a_replay_keeps_the_logs_time_unless_told_otherwise() {
    let d = TempDir::new("iolog-time");
    d.write(
        "l.log",
        "fio version 3 iolog\n0 a add\n1 a open\n2 a write 0 4096\n300000 a write 4096 4096\n\
         300001 a close\n",
    );
    // When the second write completed, in ms since the job began: at
    // least the log's 300 ms after the first write was issued.
    let second = |extra: &[&str]| {
        let mut a = vec!["--name=r", "--read_iolog=l.log"];
        a.extend_from_slice(extra);
        let r = ran(RFIO, &d.0, &a);
        assert_eq!(r.code, Some(0), "{}", stderr(&r.out));
        let lat = std::fs::read_to_string(d.file("lat_lat.1.log")).unwrap();
        let t: Vec<u64> = lat
            .lines()
            .map(|l| l.split(", ").next().unwrap().parse().unwrap())
            .collect();
        t[1]
    };
    assert!(second(&[]) >= 300, "300 ms after the first");
    let fast = second(&["--replay_time_scale=400"]);
    assert!((75..300).contains(&fast), "a quarter: {fast} ms");
    assert!(second(&["--replay_no_stall=1"]) < 75, "no stall");
}

#[test]
fn bad_logs_fail_the_job_naming_the_log_and_its_line() {
    let d = TempDir::new("iolog-bad");
    let fails = |log: &str, text: &str| {
        d.write("l.log", log);
        for bin in [RFIO, real_fio()] {
            let o = run_in(bin, &d.0, &["--name=r", "--read_iolog=l.log"]);
            assert_eq!(o.status.code(), Some(1), "{bin} {log:?}: {}", stderr(&o));
            let all = stdout(&o) + &stderr(&o);
            assert!(
                all.contains("err=22/file:iolog.c:795, func=failed initializing iolog"),
                "{bin}: {all}"
            );
        }
        let o = run_in(RFIO, &d.0, &["--name=r", "--read_iolog=l.log"]);
        assert!(stderr(&o).contains(text), "{text}: {}", stderr(&o));
        assert!(!stdout(&o).contains("fio: pid="), "errors stay off stdout");
    };
    fails(
        "fio version 1 iolog\na add\n",
        "l.log: fio: iolog version 1 is no longer supported",
    );
    fails(
        "fio version 2 iolog\na add\n",
        "l.log: the log has no reads, writes or waits to replay",
    );
    // An empty log (fio reports a stale errno for it).
    d.write("l.log", "");
    let o = run_in(RFIO, &d.0, &["--name=r", "--read_iolog=l.log"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("l.log: fio: unable to read iolog"),
        "{}",
        stderr(&o)
    );
    // fio crashes on a file never added; rfio names the line.
    d.write("l.log", "fio version 2 iolog\na add\nb read 0 4096\n");
    let o = run_in(RFIO, &d.0, &["--name=r", "--read_iolog=l.log"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("l.log:3: file b is not in the log (no 'b add' line before this one)"),
        "{}",
        stderr(&o)
    );
    let o = run_in(RFIO, &d.0, &["--name=r", "--read_iolog=nothere.log"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nothere.log: fopen read iolog: No such file or directory"));
    // The other jobs run.
    let o = run_in(
        RFIO,
        &d.0,
        &[
            "--name=r",
            "--read_iolog=nothere.log",
            "--name=ok",
            "--size=4k",
            "--ioengine=null",
            "--output-format=json",
        ],
    );
    let j = json(&o);
    assert_eq!(j["jobs"][0]["error"], 22);
    assert_eq!(j["jobs"][1]["read"]["io_bytes"], 4096);
}

/// `struct blk_io_trace` (blktrace_api.h): 48 bytes in the tracing
/// machine's byte order.
fn trace(time: u64, sector: u64, bytes: u32, action: u32, device: u32, swap: bool) -> Vec<u8> {
    let w32 = |v: u32| if swap { v.swap_bytes() } else { v }.to_ne_bytes();
    let w64 = |v: u64| if swap { v.swap_bytes() } else { v }.to_ne_bytes();
    let mut b = Vec::with_capacity(48);
    b.extend(w32(0x6561_7407)); // magic | version
    b.extend(w32(0)); // sequence
    b.extend(w64(time));
    b.extend(w64(sector));
    b.extend(w32(bytes));
    b.extend(w32(action));
    b.extend(w32(1234)); // pid
    b.extend(w32(device));
    b.extend(w32(0)); // cpu
    b.extend([0u8; 4]); // error, pdu_len
    b
}

const QUEUE: u32 = 1;
const COMPLETE: u32 = 8;
const TC_READ: u32 = 1 << 16;
const TC_WRITE: u32 = 2 << 16;
const TC_FLUSH: u32 = 4 << 16;
const TC_QUEUE: u32 = 16 << 16;

/// A small trace: reads and writes of one device, a flush, a zero-byte
/// read fio ignores, two writes queued at once.
fn a_trace(swap: bool) -> Vec<u8> {
    let dev = 8 << 20;
    [
        trace(1000, 0, 4096, QUEUE | TC_QUEUE | TC_READ, dev, swap),
        trace(1010, 0, 4096, COMPLETE | TC_READ, dev, swap),
        trace(2_000_000, 8, 8192, QUEUE | TC_QUEUE | TC_WRITE, dev, swap),
        trace(2_000_010, 100, 4096, QUEUE | TC_QUEUE | TC_WRITE, dev, swap),
        trace(2_000_020, 8, 8192, COMPLETE | TC_WRITE, dev, swap),
        trace(3_000_000, 0, 0, QUEUE | TC_QUEUE | TC_FLUSH, dev, swap),
        trace(5_000_000, 200, 0, QUEUE | TC_QUEUE | TC_READ, dev, swap),
        trace(6_000_000, 300, 1000, QUEUE | TC_QUEUE | TC_READ, dev, swap),
    ]
    .concat()
}

/// fio and rfio replay the trace `t` (with `replay_redirect` to a 1 MiB
/// file) with each of `options` alike; rfio's runs.
fn trace_replays(t: Vec<u8>, options: &[&[&str]]) -> Vec<Ran> {
    let d = TempDir::new("iolog-blk");
    std::fs::write(d.file("t.bin"), t).unwrap();
    std::fs::write(d.file("red"), vec![0u8; 1 << 20]).unwrap();
    options
        .iter()
        .map(|extra| {
            let mut a = vec!["--name=r", "--read_iolog=t.bin", "--replay_redirect=red"];
            a.extend_from_slice(extra);
            replays_alike(&d, &a)
        })
        .collect()
}

#[test]
fn blktrace_traces_replay_as_in_fio() {
    let r = trace_replays(
        a_trace(false),
        &[
            &["--iodepth=1"],
            &[
                "--iodepth=1",
                "--replay_align=4096",
                "--replay_scale=4",
                "--replay_no_stall=1",
            ],
            &[
                "--iodepth=1",
                "--replay_skip=read,sync",
                "--replay_no_stall=1",
            ],
        ],
    );
    assert_eq!(
        r[0].ios,
        [
            (0, 0, 4096),
            (1, 4096, 8192),
            (1, 51200, 4096),
            (0, 153600, 1000)
        ]
    );
    assert!(stderr(&r[0].out).contains("t.bin: blktrace: ignoring zero byte trace: action=110001"));
    assert_eq!(
        r[1].ios,
        [
            (0, 0, 4096),
            (1, 0, 8192),
            (1, 12288, 4096),
            (0, 36864, 4096)
        ]
    );
    assert_eq!(r[2].ios, [(1, 4096, 8192), (1, 51200, 4096)]);
}

#[test]
fn blktrace_byte_order_readonly_and_chunked_replays() {
    // Written on a machine of the other byte order.
    let r = trace_replays(
        a_trace(true),
        &[
            &["--iodepth=1", "--replay_no_stall=1"],
            &["--iodepth=1", "--readonly", "--replay_no_stall=1"],
        ],
    );
    assert_eq!(r[0].ios.len(), 4);
    assert_eq!(r[1].ios, [(0, 0, 4096), (0, 153600, 1000)]);
    // Read in chunks, fio 3.33 now and then takes a wrong first offset
    // from a byte-swapped trace (28,678 instead of 0, seen in CI), so
    // rfio's chunked replay is held to the whole replay both agree on.
    let d = TempDir::new("iolog-blk-chunked");
    std::fs::write(d.file("t.bin"), a_trace(true)).unwrap();
    std::fs::write(d.file("red"), vec![0u8; 1 << 20]).unwrap();
    let chunked = ran(
        RFIO,
        &d.0,
        &[
            "--name=r",
            "--read_iolog=t.bin",
            "--replay_redirect=red",
            "--iodepth=1",
            "--read_iolog_chunked=1",
            "--replay_no_stall=1",
        ],
    );
    assert_eq!(chunked.code, Some(0), "{}", stderr(&chunked.out));
    assert_eq!(chunked.ios, r[0].ios);
    assert_eq!(chunked.counts, r[0].counts);
}

#[test]
fn the_depth_a_trace_reached_is_the_jobs_iodepth() {
    let d = TempDir::new("iolog-depth");
    std::fs::write(d.file("t.bin"), a_trace(false)).unwrap();
    std::fs::write(d.file("red"), vec![0u8; 1 << 20]).unwrap();
    let args = [
        "--name=r",
        "--read_iolog=t.bin",
        "--replay_redirect=red",
        "--ioengine=libaio",
        "--replay_no_stall=1",
        "--output-format=json",
    ];
    for bin in [real_fio(), RFIO] {
        let j = json(&run_in(bin, &d.0, &args));
        assert_eq!(
            j["jobs"][0]["latency_depth"], 2,
            "{bin}: two writes queued at once"
        );
    }
}

#[test]
fn merged_traces_replay_in_time_order() {
    let d = TempDir::new("iolog-merge");
    let dev = 8 << 20;
    let w = QUEUE | TC_QUEUE | TC_WRITE;
    let r = QUEUE | TC_QUEUE | TC_READ;
    std::fs::write(
        d.file("a.bin"),
        [
            trace(100, 1, 4096, r, dev, false),
            trace(300, 2, 4096, r, dev, false),
        ]
        .concat(),
    )
    .unwrap();
    std::fs::write(
        d.file("b.bin"),
        [
            trace(100, 16, 512, w, dev, false),
            trace(250, 17, 512, w, dev, false),
        ]
        .concat(),
    )
    .unwrap();
    // fio 3.33 cannot merge (its read_trace reads into a pointer): rfio
    // merges as the HOWTO describes.
    let args = [
        "--name=m",
        "--read_iolog=a.bin:b.bin",
        "--merge_blktrace_file=m.bin",
        "--merge_blktrace_scalars=50:100",
        "--merge_blktrace_iters=1:2",
        "--replay_redirect=red",
    ];
    let o = run_in(
        RFIO,
        &d.0,
        &[&args[..], &["--merge-blktrace-only"]].concat(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "m: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
         ioengine=psync, iodepth=1\n",
        "the job's line, nothing run"
    );
    assert!(!d.file("red").exists());
    std::fs::write(d.file("red"), vec![0u8; 1 << 20]).unwrap();
    let merged = std::fs::read(d.file("m.bin")).unwrap();
    let times: Vec<(u64, u64)> = merged
        .chunks(48)
        .map(|t| {
            let at = |i: usize| u64::from_ne_bytes(t[i..i + 8].try_into().unwrap());
            (at(8), at(16))
        })
        .collect();
    assert_eq!(
        times,
        [
            (50, 1),
            (100, 16),
            (150, 2),
            (250, 17),
            (350, 16),
            (500, 17)
        ]
    );
    let r = ran(RFIO, &d.0, &[&args[..], &["--replay_no_stall=1"]].concat());
    assert_eq!(r.code, Some(0), "{}", stderr(&r.out));
    assert_eq!(
        r.ios,
        [
            (0, 512, 4096),
            (1, 8192, 512),
            (0, 1024, 4096),
            (1, 8704, 512),
            (1, 8192, 512),
            (1, 8704, 512)
        ]
    );
}

/// rfio's run of `args` in `dir` fails (exit 1, the job's `err=22`)
/// with `text` on stderr; its stderr.
fn refused(dir: &TempDir, args: &[&str], text: &str) -> String {
    let o = run_in(RFIO, &dir.0, args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(text), "{args:?}: want {text:?} in: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn a_log_without_line_ends_is_refused_at_its_line() {
    let d = TempDir::new("iolog-long");
    // fio reads the first line of /dev/zero as a version 1 log; rfio
    // reads no line beyond 8 KiB (it used to abort, out of memory).
    let args = ["--name=r", "--read_iolog=/dev/zero"];
    let f = run_in(real_fio(), &d.0, &args);
    assert_eq!(f.status.code(), Some(1), "{}", stderr(&f));
    refused(
        &d,
        &args,
        "/dev/zero:1: line longer than 8192 bytes (no line end; an iolog line is at most \
         8192 bytes)",
    );
    // A line past the bound after a good first line (fio reads it 4095
    // bytes at a time, each a bad line).
    d.write(
        "l.log",
        &format!("fio version 2 iolog\n{}", "a".repeat(9000)),
    );
    refused(
        &d,
        &["--name=r", "--read_iolog=l.log"],
        "l.log:2: line longer than 8192 bytes",
    );
    // A line of 8192 bytes with its end is read.
    let line = format!("a add{}\n", " ".repeat(8192 - 6));
    d.write(
        "l.log",
        &format!("fio version 2 iolog\n{line}a read 0 4096\n"),
    );
    std::fs::write(d.file("a"), vec![0u8; 4096]).unwrap();
    let o = run_in(RFIO, &d.0, &["--name=r", "--read_iolog=l.log"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn negative_and_overflowing_numbers_are_refused_at_their_line() {
    let d = TempDir::new("iolog-neg");
    std::fs::write(d.file("data"), vec![0u8; 1 << 20]).unwrap();
    let log = |line: &str| {
        d.write(
            "l.log",
            &format!("fio version 3 iolog\n0 data add\n1 data open\n{line}\n3 data close\n"),
        );
    };
    // fio reads -4096 as 4294963200 bytes and fails the I/O (EIO), exit 1.
    log("2 data read 0 -4096");
    let args = ["--name=r", "--read_iolog=l.log"];
    let f = run_in(real_fio(), &d.0, &args);
    assert_eq!(f.status.code(), Some(1), "{}", stderr(&f));
    for (line, text) in [
        ("2 data read 0 -4096", "l.log:4: bad length -4096: negative"),
        (
            "2 data read -4096 4096",
            "l.log:4: bad offset -4096: negative",
        ),
        (
            "2 data read 99999999999999999999 4096",
            "l.log:4: bad offset 99999999999999999999: over 9223372036854775807",
        ),
        (
            "2 data write 0 4294971392",
            "l.log:4: bad length 4294971392: over 4294967295",
        ),
        ("-2 data read 0 4096", "l.log:4: bad time -2: negative"),
    ] {
        log(line);
        let err = refused(&d, &args, text);
        assert!(
            err.contains("err=22/file:iolog.c:795, func=failed initializing iolog"),
            "{err}"
        );
    }
}

#[test]
fn messages_quoting_a_log_escape_its_control_characters() {
    let d = TempDir::new("iolog-esc");
    d.write(
        "junk.log",
        "fio version 2 iolog\n\x1b]0;pwned\x07\x1b[2J read 0 4096\n",
    );
    let err = refused(
        &d,
        &["--name=r", "--read_iolog=junk.log"],
        "junk.log:2: file \\x1b]0;pwned\\x07\\x1b[2J is not in the log",
    );
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
    d.write(
        "junk.log",
        "fio version 2 iolog\na add\na \x1b[2Jx 0 0\n\x1b[31m read 1\na read 0 4096\n",
    );
    std::fs::write(d.file("a"), vec![0u8; 4096]).unwrap();
    let o = run_in(RFIO, &d.0, &["--name=r", "--read_iolog=junk.log"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("junk.log:3: fio: bad iolog file action: \\x1b[2Jx"),
        "{err}"
    );
    assert!(
        err.contains("junk.log:4: bad iolog2: \\x1b[31m read 1"),
        "{err}"
    );
    assert!(!err.contains('\x1b'), "{err:?}");
    // A file the log names, which cannot be opened.
    d.write(
        "junk.log",
        "fio version 2 iolog\n/nonexistent/\x1b[2Jx add\n/nonexistent/\x1b[2Jx read 0 4096\n",
    );
    let o = run_in(RFIO, &d.0, &["--name=r", "--read_iolog=junk.log"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("func=open(/nonexistent/\\x1b[2Jx)"), "{err}");
    assert!(!err.contains('\x1b'), "{err:?}");
    // A file the log names, which fails its I/O (a directory).
    std::fs::create_dir(d.file("d\x1b[2J")).unwrap();
    d.write(
        "junk.log",
        "fio version 2 iolog\nd\x1b[2J add\nd\x1b[2J read 0 4096\n",
    );
    let o = run_in(RFIO, &d.0, &["--name=r", "--read_iolog=junk.log"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("fio: io_u error on file d\\x1b[2J: Is a directory"),
        "{err}"
    );
    assert!(!err.contains('\x1b'), "{err:?}");
}

#[test]
fn a_trace_cut_short_fails_the_replay_naming_its_byte() {
    let d = TempDir::new("iolog-blk-cut");
    std::fs::write(d.file("red"), vec![0u8; 1 << 20]).unwrap();
    let t = a_trace(false);
    let args = ["--name=r", "--read_iolog=t.bin", "--replay_redirect=red"];
    // fio replays what comes before a trace cut short, and exits 0.
    std::fs::write(d.file("t.bin"), &t[..t.len() - 20]).unwrap();
    refused(
        &d,
        &args,
        "t.bin: the trace at byte 336 is cut short: the file ends after 28 of its 48 bytes",
    );
    // A payload longer than what is left.
    let mut t = t;
    t[48 * 7 + 46..48 * 7 + 48].copy_from_slice(&64u16.to_ne_bytes());
    std::fs::write(d.file("t.bin"), &t).unwrap();
    refused(
        &d,
        &args,
        "t.bin: the trace at byte 336 is cut short: the file ends within its 64 bytes of payload",
    );
    // fio crashes on a bad magic after good traces (a double free).
    t[48 * 7..48 * 7 + 4].copy_from_slice(&0x1234_5607u32.to_ne_bytes());
    std::fs::write(d.file("t.bin"), &t).unwrap();
    refused(
        &d,
        &args,
        "t.bin: the trace at byte 336: fio: bad magic in blktrace data: 12345607",
    );
}

/// `--merge-blktrace-only` of `inputs` into `out` in `dir`: its exit
/// status and stderr.
fn merge_only(dir: &TempDir, inputs: &str, out: &str) -> (Option<i32>, String) {
    let read = format!("--read_iolog={inputs}");
    let file = format!("--merge_blktrace_file={out}");
    let o = run_in(
        RFIO,
        &dir.0,
        &["--name=m", &read, &file, "--merge-blktrace-only"],
    );
    (o.status.code(), stderr(&o))
}

#[test]
fn a_merge_never_overwrites_its_inputs() {
    let d = TempDir::new("iolog-merge-self");
    let t = a_trace(false);
    std::fs::write(d.file("a.bin"), &t).unwrap();
    std::fs::write(d.file("b.bin"), &t).unwrap();
    std::os::unix::fs::symlink(d.file("a.bin"), d.file("sym.bin")).unwrap();
    std::fs::hard_link(d.file("a.bin"), d.file("hard.bin")).unwrap();
    for out in ["a.bin", "b.bin", "sym.bin", "hard.bin", "./a.bin"] {
        let (code, err) = merge_only(&d, "a.bin:b.bin", out);
        assert_eq!(code, Some(1), "{out}: {err}");
        assert!(
            err.contains("one of the traces it merges: refusing to overwrite it"),
            "{out}: {err}"
        );
        assert_eq!(std::fs::read(d.file("a.bin")).unwrap(), t, "{out}");
        assert_eq!(std::fs::read(d.file("b.bin")).unwrap(), t, "{out}");
    }
}

#[test]
fn a_merge_of_bad_inputs_fails_and_writes_nothing() {
    let d = TempDir::new("iolog-merge-bad");
    let t = a_trace(false);
    std::fs::write(d.file("a.bin"), &t).unwrap();
    std::fs::write(
        d.file("text.log"),
        "fio version 2 iolog\na add\na read 0 4096\na read 4096 4096\n",
    )
    .unwrap();
    let mut bad = t.clone();
    bad[48 * 2..48 * 2 + 4].copy_from_slice(&0x1234_5607u32.to_ne_bytes());
    std::fs::write(d.file("bad.bin"), &bad).unwrap();
    std::fs::write(d.file("cut.bin"), &t[..100]).unwrap();
    for (input, text) in [
        (
            "nothere.bin",
            "fio: could not open file: nothere.bin: No such file or directory",
        ),
        (
            "text.log",
            "fio: file is not a blktrace: text.log (bad magic at byte 0: 206f6966)",
        ),
        (
            "bad.bin",
            "fio: merge_blktrace_file: bad.bin: the trace at byte 96: fio: bad magic in \
             blktrace data: 12345607",
        ),
        (
            "cut.bin",
            "fio: merge_blktrace_file: cut.bin: the trace at byte 96 is cut short: the file \
             ends after 4 of its 48 bytes",
        ),
    ] {
        let (code, err) = merge_only(&d, &format!("a.bin:{input}"), "m.bin");
        assert_eq!(code, Some(1), "{input}: {err}");
        assert!(err.contains(text), "{input}: want {text:?} in: {err}");
        assert!(!d.file("m.bin").exists(), "{input}: nothing written");
    }
    // An output there before stays as it was; no temporary file is left.
    std::fs::write(d.file("m.bin"), b"old").unwrap();
    let (code, _) = merge_only(&d, "a.bin:bad.bin", "m.bin");
    assert_eq!(code, Some(1));
    assert_eq!(std::fs::read(d.file("m.bin")).unwrap(), b"old");
    let (code, err) = merge_only(&d, "a.bin:a.bin", "m.bin");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read(d.file("m.bin")).unwrap().len(), 48 * 10);
    let mut names: Vec<String> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.bin", "bad.bin", "cut.bin", "m.bin", "text.log"]);
}
