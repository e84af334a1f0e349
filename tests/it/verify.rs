//! Data verification against fio 3.33: the header layout rfio writes, files
//! written by one verified by the other (both ways), the verify phase's read
//! counts, and what a corrupted block prints, exits and dumps.
//!
//! The cross checks need real fio 3.33 and fail, never skip, without it.

use crate::common;

use std::process::Output;

use common::{real_fio, run_in as run, stderr, stdout, TempDir, RFIO};

/// Terse v3 fields of the first line.
fn terse(o: &Output) -> Vec<String> {
    let s = stdout(o);
    let line = s
        .lines()
        .find(|l| l.starts_with("3;"))
        .expect("a terse line");
    line.split(';').map(str::to_string).collect()
}

fn job(file: &str, rw: &str, verify: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "--name=j",
        &format!("--filename={file}"),
        "--ioengine=psync",
        "--bs=4k",
        "--size=64k",
        &format!("--rw={rw}"),
        &format!("--verify={verify}"),
        "--minimal",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn header_layout_is_fios() {
    let d = TempDir::new("verify-hdr");
    let a = job("f", "write", "md5", &["--do_verify=0"]);
    let o = run(RFIO, &d.0, &args(&a));
    assert!(o.status.success(), "{}", stderr(&o));
    let b = std::fs::read(d.file("f")).unwrap();
    assert_eq!(b.len(), 65536);
    for (i, h) in b.chunks(4096).enumerate() {
        assert_eq!(&h[0..2], &[0xca, 0xac], "magic");
        assert_eq!(u16::from_le_bytes([h[2], h[3]]), 2, "type md5");
        assert_eq!(u32::from_le_bytes(h[4..8].try_into().unwrap()), 4096);
        assert_eq!(
            u64::from_le_bytes(h[16..24].try_into().unwrap()),
            i as u64 * 4096
        );
        assert_eq!(u16::from_le_bytes([h[32], h[33]]), 1, "thread");
        assert_eq!(u16::from_le_bytes([h[34], h[35]]), i as u16, "numberio");
        let crc = !crc32c::crc32c(&h[..36]);
        assert_eq!(u32::from_le_bytes(h[36..40].try_into().unwrap()), crc);
        use md5::Digest;
        assert_eq!(&h[40..56], md5::Md5::digest(&h[56..]).as_slice());
    }
    // The first block's seed is fio's: two draws of the job's verify
    // generator multiplied.
    assert_eq!(
        u64::from_le_bytes(b[8..16].try_into().unwrap()),
        0x00a4_cc01_c509_543c
    );
}

#[test]
fn verify_phase_reads_back_what_was_written() {
    let d = TempDir::new("verify-phase");
    for (rw, extra, read_kb, write_kb) in [
        ("write", &[][..], 64, 64),
        ("randwrite", &[][..], 64, 64),
        ("write", &["--loops=2"][..], 128, 128),
        ("write", &["--io_size=256k"][..], 128, 128),
        ("randwrite", &["--norandommap"][..], 44, 64),
        ("readwrite", &[][..], 64, 24),
        ("write", &["--verify_backlog=4"][..], 64, 64),
        ("write", &["--do_verify=0"][..], 0, 64),
    ] {
        let _ = std::fs::remove_file(d.file("f"));
        let a = job("f", rw, "crc32c", extra);
        let o = run(RFIO, &d.0, &args(&a));
        assert!(o.status.success(), "{rw} {extra:?}: {}", stderr(&o));
        let t = terse(&o);
        assert_eq!(t[5], read_kb.to_string(), "{rw} {extra:?} read KiB");
        assert_eq!(t[46], write_kb.to_string(), "{rw} {extra:?} write KiB");
    }
}

#[test]
fn every_type_verifies_across_fio_and_rfio() {
    let fio = real_fio();
    let d = TempDir::new("verify-cross");
    for t in [
        "md5", "crc64", "crc32", "crc32c", "crc16", "crc7", "sha1", "sha256", "sha512", "sha3-224",
        "sha3-512", "xxhash", "meta",
    ] {
        for (writer, checker) in [(RFIO, fio), (fio, RFIO)] {
            let _ = std::fs::remove_file(d.file("x"));
            let w = job("x", "randwrite", t, &["--do_verify=0"]);
            let o = run(writer, &d.0, &args(&w));
            assert!(o.status.success(), "{writer} {t}: {}", stderr(&o));
            let c = job("x", "randwrite", t, &["--verify_only"]);
            let o = run(checker, &d.0, &args(&c));
            assert!(
                o.status.success(),
                "{checker} --verify_only on {writer}'s {t} file: {}",
                stderr(&o)
            );
            let f = terse(&o);
            assert_eq!((f[4].as_str(), f[5].as_str()), ("0", "64"), "{t}");
        }
    }
    // Patterns and intervals with a moved header, through both.
    for extra in [
        &["--verify_pattern=0xdeadbeef"][..],
        &["--verify_interval=1k", "--verify_offset=200"][..],
    ] {
        for (writer, checker) in [(RFIO, fio), (fio, RFIO)] {
            let _ = std::fs::remove_file(d.file("y"));
            let mut w: Vec<&str> = vec!["--do_verify=0"];
            w.extend_from_slice(extra);
            let a = job("y", "write", "sha256", &w);
            assert!(run(writer, &d.0, &args(&a)).status.success());
            let mut c: Vec<&str> = vec!["--verify_only"];
            c.extend_from_slice(extra);
            let a = job("y", "write", "sha256", &c);
            let o = run(checker, &d.0, &args(&a));
            assert!(o.status.success(), "{checker} {extra:?}: {}", stderr(&o));
        }
    }
}

/// Write a crc32c file with rfio, corrupt block 1's data, block 2's magic
/// and block 3's offset.
fn corrupted(d: &TempDir) {
    let a = [
        "--name=j",
        "--filename=c",
        "--size=16k",
        "--bs=4k",
        "--rw=write",
        "--verify=crc32c",
        "--do_verify=0",
        "--minimal",
    ];
    assert!(run(RFIO, &d.0, &a).status.success());
    let mut b = std::fs::read(d.file("c")).unwrap();
    b[4096 + 100] ^= 1;
    b[8192] ^= 1;
    b[12288 + 16] ^= 1;
    std::fs::write(d.file("c"), b).unwrap();
}

fn read_back(bin: &str, d: &TempDir, extra: &[&str]) -> Output {
    let mut a = vec![
        "--name=j",
        "--filename=c",
        "--size=16k",
        "--bs=4k",
        "--verify=crc32c",
        "--minimal",
    ];
    a.extend_from_slice(extra);
    run(bin, &d.0, &a)
}

/// stderr without the `fio: pid=` line (fio prints it on stdout too).
fn messages(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| !l.starts_with("fio: pid="))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_corrupted_block_fails_as_in_fio() {
    let d = TempDir::new("verify-bad");
    corrupted(&d);
    let o = read_back(RFIO, &d, &["--rw=read"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        messages(&o),
        [
            "crc32c: verify failed at file c offset 4096, length 4096 (requested block: offset=4096, length=4096, flags=8)",
            "       Expected CRC: 0b5c4cb7",
            "       Received CRC: 0dda1cbd",
        ]
    );
    assert!(stderr(&o).contains(
        "err=84/file:io_u.c:2152, func=io_u_sync_complete, error=Invalid or incomplete multibyte or wide character"
    ));
    let t = terse(&o);
    assert_eq!((t[4].as_str(), t[5].as_str()), ("84", "8"));

    // Queued engine: every block in flight is checked and reported.
    let o = read_back(RFIO, &d, &["--rw=read", "--ioengine=libaio", "--iodepth=4"]);
    let m = messages(&o);
    assert!(m.contains(&"verify: bad magic header accb, wanted acca at file c offset 8192, length 4096 (requested block: offset=8192, length=4096)".to_string()), "{m:?}");
    assert!(m.contains(&"verify: bad header offset 12289, wanted 12288 at file c offset 12288, length 4096 (requested block: offset=12288, length=4096)".to_string()), "{m:?}");
    assert!(stderr(&o).contains("func=io_u_queued_complete"));
    assert_eq!(terse(&o)[5], "16");

    // verify_only of the write job reads from the io piece list (flags 0x88).
    let o = read_back(RFIO, &d, &["--rw=write", "--verify_only"]);
    assert!(messages(&o)[0].ends_with("flags=88)"), "{:?}", messages(&o));

    // verify_dump writes what was read and what was expected.
    let o = read_back(RFIO, &d, &["--rw=read", "--verify_dump=1"]);
    let m = messages(&o);
    assert!(m.contains(&"       received data dumped as c.4096.received".to_string()));
    assert!(m.contains(&"       expected data dumped as c.4096.expected".to_string()));
    let got = std::fs::read(d.file("c.4096.received")).unwrap();
    assert_eq!(got, std::fs::read(d.file("c")).unwrap()[4096..8192]);
    let want = std::fs::read(d.file("c.4096.expected")).unwrap();
    assert_eq!(want.len(), 4096);
    assert_eq!(
        want[100..],
        {
            let mut b = got.clone();
            b[100] ^= 1;
            b
        }[100..]
    );

    // The same file through fio prints the same lines.
    let fio = real_fio();
    for extra in [
        &["--rw=read"][..],
        &["--rw=read", "--ioengine=libaio", "--iodepth=4"][..],
        &["--rw=write", "--verify_only"][..],
        &["--rw=read", "--continue_on_error=verify"][..],
    ] {
        let f = read_back(fio, &d, extra);
        let r = read_back(RFIO, &d, extra);
        assert_eq!(messages(&f), messages(&r), "{extra:?}");
        assert_eq!(terse(&f)[4..6], terse(&r)[4..6], "{extra:?}");
        if !extra.contains(&"--continue_on_error=verify") {
            assert_eq!(f.status.code(), r.status.code(), "{extra:?}");
        }
    }
}

/// fio 3.42 built from upstream, if this machine has it (see
/// `common::require`: `RFIO_TEST_NO_FIO_3_42=1` marks a machine without).
fn fio_42() -> Option<&'static str> {
    const FIO_42: &str = "/root/.cache/rfio-oracles/fio-3.42/fio";
    let missing = (!std::path::Path::new(FIO_42).exists()).then(|| format!("{FIO_42} is absent"));
    common::require::require("fio-3.42", missing).then_some(FIO_42)
}

/// The `verify:` lines of stderr.
fn verify_lines(o: &Output) -> Vec<String> {
    messages(o)
        .into_iter()
        .filter(|l| l.starts_with("verify:"))
        .collect()
}

/// `job` as release `compat` runs it (`--compat=fio-3.NN`).
fn job_as(compat: &str, file: &str, rw: &str, verify: &str, extra: &[&str]) -> Vec<String> {
    let mut v = vec![format!("--compat=fio-{compat}")];
    v.extend(job(file, rw, verify, extra));
    v
}

#[test]
fn fio_3_41_writes_the_versioned_header() {
    let d = TempDir::new("verify-hdr81");
    let a = job_as("3.41", "f", "write", "md5", &["--do_verify=0"]);
    let o = run(RFIO, &d.0, &args(&a));
    assert!(o.status.success(), "{}", stderr(&o));
    let b = std::fs::read(d.file("f")).unwrap();
    for (i, h) in b.chunks(4096).enumerate() {
        assert_eq!(&h[0..4], &[0xca, 0xac, 0x81, 2], "magic, version, md5");
        assert_eq!(u32::from_le_bytes(h[4..8].try_into().unwrap()), 4096);
        assert_eq!(
            u64::from_le_bytes(h[16..24].try_into().unwrap()),
            i as u64 * 4096
        );
        assert_eq!(
            u64::from_le_bytes(h[32..40].try_into().unwrap()),
            i as u64,
            "numberio"
        );
        assert_eq!(u16::from_le_bytes([h[40], h[41]]), 1, "thread");
        let crc = !crc32c::crc32c(&h[..44]);
        assert_eq!(u32::from_le_bytes(h[44..48].try_into().unwrap()), crc);
        use md5::Digest;
        assert_eq!(&h[48..64], md5::Md5::digest(&h[64..]).as_slice());
    }
    // 3.40 still writes 3.33's 40 bytes.
    let a = job_as("3.40", "g", "write", "md5", &["--do_verify=0"]);
    assert!(run(RFIO, &d.0, &args(&a)).status.success());
    let b = std::fs::read(d.file("g")).unwrap();
    assert_eq!(&b[0..4], &[0xca, 0xac, 2, 0]);
    assert_eq!(u16::from_le_bytes([b[4096 + 34], b[4096 + 35]]), 1);
    // A 3.33 file does not verify as 3.42: its "version" is its type.
    let a = job_as("3.42", "g", "write", "md5", &["--verify_only"]);
    let o = run(RFIO, &d.0, &args(&a));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(
        "\nverify: unsupported header version 2, wanted 81. Are you trying to verify across \
         versions of fio? at file g offset 0, length 4096 (requested block: offset=0, length=4096)\n"
    ), "{}", stderr(&o));
}

/// fio 3.39's sha512 is the digest: the checksum area holds SHA-512 of the
/// interval's data, then the final padded block's last 64 bytes; 3.38's
/// is the last block it hashed.
#[test]
fn sha512_is_the_digest_from_fio_3_39() {
    use sha2::Digest;
    let d = TempDir::new("verify-sha512");
    for (compat, hl) in [("3.39", 40), ("3.41", 48)] {
        let a = job_as(compat, "f", "write", "sha512", &["--do_verify=0"]);
        assert!(run(RFIO, &d.0, &args(&a)).status.success());
        let b = std::fs::read(d.file("f")).unwrap();
        let data = &b[hl + 128..4096];
        assert_eq!(
            &b[hl..hl + 64],
            sha2::Sha512::digest(data).as_slice(),
            "{compat}"
        );
        let bits = ((data.len() as u128) * 8).to_be_bytes();
        assert_eq!(&b[hl + 112..hl + 128], &bits, "{compat}: the length");
    }
    let a = job_as("3.38", "f", "write", "sha512", &["--do_verify=0"]);
    assert!(run(RFIO, &d.0, &args(&a)).status.success());
    let b = std::fs::read(d.file("f")).unwrap();
    // 3.38: the data's first block, its tail over it (4096 - 168 = 30 * 128 + 88).
    let data = &b[168..4096];
    assert_eq!(&b[40..40 + 88], &data[data.len() - 88..]);
    assert_eq!(&b[40 + 88..168], &data[88..128]);
}

/// The checks fio 3.40 adds: the header's seed (`verify_header_seed`, on
/// in any writing job, off with `verify_only` unless set), in fio 3.42's
/// words; 3.33 does not know the option.
#[test]
fn verify_header_seed_checks_the_seed_from_fio_3_40() {
    let d = TempDir::new("verify-seed");
    let w = job_as(
        "3.42",
        "f",
        "write",
        "crc32c",
        &["--randseed=1", "--do_verify=0"],
    );
    assert!(run(RFIO, &d.0, &args(&w)).status.success());
    let c = job_as(
        "3.42",
        "f",
        "write",
        "crc32c",
        &["--randseed=2", "--verify_only"],
    );
    let o = run(RFIO, &d.0, &args(&c));
    assert!(o.status.success(), "{}", stderr(&o));
    let mut c2 = c.clone();
    c2.push("--verify_header_seed=1".into());
    let o = run(RFIO, &d.0, &args(&c2));
    assert_eq!(o.status.code(), Some(1));
    let want = "verify: bad header rand_seed 2269289875017330490, wanted 7378811650592255237 \
                at file f offset 0, length 4096 (requested block: offset=0, length=4096)";
    assert_eq!(verify_lines(&o)[0], want);
    let mut c3 = job("f", "write", "crc32c", &["--verify_only"]);
    c3.push("--verify_header_seed=1".into());
    let o = run(RFIO, &d.0, &args(&c3));
    assert!(
        stderr(&o).contains("unknown option 'verify_header_seed'"),
        "{}",
        stderr(&o)
    );
    if let Some(fio) = fio_42() {
        let o = run(fio, &d.0, &args(&c2[1..]));
        assert_eq!(verify_lines(&o)[0], want);
    }
}

/// Files written by rfio as fio 3.42 verify with real fio 3.42 and the
/// other way round, every layout 3.42 writes (its header, sha512, a
/// pattern with a header and `verify_pattern_interval`, a moved header).
#[test]
fn fio_3_42_files_verify_across_fio_and_rfio() {
    let Some(fio) = fio_42() else {
        return;
    };
    let d = TempDir::new("verify-cross42");
    for (t, extra) in [
        ("md5", &[][..]),
        ("crc32c", &[][..]),
        ("sha512", &[][..]),
        (
            "sha256",
            &["--verify_interval=1k", "--verify_offset=200"][..],
        ),
        ("meta", &[][..]),
        (
            "pattern_hdr",
            &["--verify_pattern=0xabcd%o", "--verify_pattern_interval=512"][..],
        ),
        (
            "pattern",
            &["--verify_pattern=0x12%o", "--verify_pattern_interval=100"][..],
        ),
    ] {
        for (writer, checker) in [(RFIO, fio), (fio, RFIO)] {
            let _ = std::fs::remove_file(d.file("x"));
            let mut w = job_as("3.42", "x", "randwrite", t, &["--do_verify=0"]);
            w.extend(extra.iter().map(|s| s.to_string()));
            let skip = usize::from(writer != RFIO);
            let o = run(writer, &d.0, &args(&w[skip..]));
            assert!(o.status.success(), "{writer} {t}: {}", stderr(&o));
            let mut c = job_as("3.42", "x", "randwrite", t, &["--verify_only"]);
            c.extend(extra.iter().map(|s| s.to_string()));
            let skip = usize::from(checker != RFIO);
            let o = run(checker, &d.0, &args(&c[skip..]));
            assert!(
                o.status.success(),
                "{checker} on {writer}'s {t}: {}",
                stderr(&o)
            );
            let f = terse(&o);
            assert_eq!((f[4].as_str(), f[5].as_str()), ("0", "64"), "{t} {extra:?}");
        }
    }
}

/// fio 3.40 refuses a header moved past the interval in its words
/// (`verify_offset` plus the header, whatever the checksum).
#[test]
fn verify_offset_past_the_interval_is_refused_as_fio_3_40_does() {
    let d = TempDir::new("verify-offset");
    let extra = ["--verify_interval=1k", "--verify_offset=1000"];
    let o = run(
        RFIO,
        &d.0,
        &args(&job_as("3.42", "f", "write", "md5", &extra)),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("fio: cannot offset verify header beyond the verify interval."),
        "{}",
        stderr(&o)
    );
    let o = run(RFIO, &d.0, &args(&job("f", "write", "md5", &extra)));
    assert!(
        stderr(&o)
            .contains("verify_offset=1000: the header (56 bytes) must fit in verify_interval=1024"),
        "{}",
        stderr(&o)
    );
}

/// A job that reads and verifies without writing, with `loops=3` (fio's
/// t/jobs/t0029): fio 3.33 stops after one pass (its verified reads are
/// not counted as done, so the pass looks empty), fio 3.37 and later
/// (io_u.c 96a7e64c) counts them and makes all three passes, sequential
/// or random. Figures from fio 3.33 and 3.42.
#[test]
fn read_verify_job_makes_its_loops_from_3_37() {
    for (compat, rw, size, kib, ios) in [
        ("--compat=fio-3.33", "read", "4k", 4, 1),
        ("--compat=fio-3.42", "read", "4k", 12, 3),
        ("--compat=fio-3.33", "randread", "16k", 16, 4),
        ("--compat=fio-3.42", "randread", "16k", 48, 12),
    ] {
        let dir = TempDir::new("read-verify-loops");
        let size = format!("--size={size}");
        let rw = format!("--rw={rw}");
        let (doc, err) = common::json::json_run(
            &dir,
            &[
                compat,
                "--filename=f",
                &size,
                "--bs=4k",
                "--verify=md5",
                "--name=write",
                "--rw=write",
                "--do_verify=0",
                "--name=read",
                "--stonewall",
                &rw,
                "--loops=3",
                "--do_verify=1",
            ],
        );
        let read = common::json::read_of(&doc, 1);
        assert_eq!(
            (read["io_kbytes"].as_u64(), read["total_ios"].as_u64()),
            (Some(kib), Some(ios)),
            "{compat} {rw}: {err}"
        );
        assert_eq!(doc["jobs"][1]["error"].as_i64(), Some(0), "{compat} {rw}");
    }
}

/// rfio run with `RFIO_FIO_VERSION=release` in `d`.
fn rfio_as(release: &str, d: &TempDir, args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(RFIO);
    cmd.current_dir(&d.0)
        .args(args)
        .env("RFIO_FIO_VERSION", release);
    let (out, timed_out) = common::output_within(&mut cmd, common::RUN_LIMIT);
    assert!(!timed_out, "rfio {args:?} hung");
    out
}

/// The reads of a `write_iolog` file, as `FILE@OFFSET`.
fn logged_reads(d: &TempDir, log: &str) -> Vec<String> {
    let text = std::fs::read_to_string(d.file(log)).expect("the iolog");
    text.lines()
        .filter_map(|l| match l.split(' ').collect::<Vec<_>>()[..] {
            [_, file, "read", offset, _] => Some(format!("{file}@{offset}")),
            _ => None,
        })
        .collect()
}

/// A sequential writer over several files (`nrfiles=2`, or `filename=a:b`)
/// reads back in write order from fio 3.40 (iolog.c `log_io_piece`: a list
/// unless offsets may overlap), each read drawing the seed its write drew,
/// so `verify_header_seed`, on by default there, passes; fio 3.33 sorted
/// the blocks by file and offset. Orders from fio 3.42's and 3.33's
/// `write_iolog`.
#[test]
fn several_files_read_back_in_write_order_from_3_40() {
    let interleaved = |a: &str, b: &str| -> Vec<String> {
        (0..4)
            .flat_map(|i| [format!("{a}@{}", i * 4096), format!("{b}@{}", i * 4096)])
            .collect()
    };
    let sorted = |a: &str, b: &str| -> Vec<String> {
        let mut v = interleaved(a, b);
        v.sort_by_key(|r| r.starts_with(b));
        v
    };
    for (files, a, b) in [
        ("--nrfiles=2", "j.0.0", "j.0.1"),
        ("--filename=a:b", "a", "b"),
    ] {
        for (release, seed, want) in [
            ("3.42", &[][..], interleaved(a, b)),
            ("3.42", &["--verify_header_seed=1"][..], interleaved(a, b)),
            ("3.33", &[][..], sorted(a, b)),
        ] {
            let d = TempDir::new("verify-files");
            let mut argv = vec![
                "--name=j",
                files,
                "--filesize=16k",
                "--ioengine=psync",
                "--bs=4k",
                "--rw=write",
                "--verify=crc32c",
                "--write_iolog=log",
                "--minimal",
            ];
            argv.extend(seed);
            let o = rfio_as(release, &d, &argv);
            assert!(
                o.status.success() && verify_lines(&o).is_empty(),
                "{release} {files} {seed:?}: {}",
                stderr(&o)
            );
            assert_eq!(terse(&o)[5], "32", "{release} {files}: KiB read back");
            assert_eq!(logged_reads(&d, "log"), want, "{release} {files} {seed:?}");
        }
    }
    let argv = [
        "--name=j",
        "--nrfiles=2",
        "--filesize=16k",
        "--bs=4k",
        "--rw=write",
        "--verify=crc32c",
        "--write_iolog=log",
    ];
    let d = TempDir::new("verify-files-33");
    let o = run(real_fio(), &d.0, &argv);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(logged_reads(&d, "log"), sorted("j.0.0", "j.0.1"));
    if let Some(fio) = fio_42() {
        let d = TempDir::new("verify-files-42");
        let o = run(
            fio,
            &d.0,
            &[&argv[..], &["--verify_header_seed=1"]].concat(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(logged_reads(&d, "log"), interleaved("j.0.0", "j.0.1"));
    }
}
