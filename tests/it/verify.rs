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
