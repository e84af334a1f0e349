//! The zoned-block-device options of the later releases, as rfio runs
//! them on zones fio emulates on a regular file: `write_zone_remainder`
//! (3.42) and `recover_zbd_write_error` (3.40). Every figure is from the
//! real fio 3.42 (and 3.33) on the same job, the offsets from its
//! `write_iolog`.

use std::process::Output;

use crate::common::json::json_as;
use crate::common::{rfio_as, stderr, stdout, TempDir, RFIO};

const MIB: u64 = 1 << 20;

/// A 4 MiB file `zf` in `dir`, for zones of 1 MiB (fio reads the zones
/// before it would lay the file out).
fn zoned_file(dir: &TempDir) -> String {
    let f = std::fs::File::create(dir.file("zf")).unwrap();
    f.set_len(4 * MIB).unwrap();
    dir.arg("zf")
}

/// The job: 4 MiB in zones of 1 MiB, 12 KiB blocks (a zone holds 85 of
/// them and 4 KiB more), its writes logged to `io.log`, plus `extra`.
fn job<'a>(file: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "--name=z",
        file,
        "--ioengine=psync",
        "--size=4m",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--bs=12k",
        "--write_iolog=io.log",
        "--output-format=json",
    ];
    v.extend_from_slice(extra);
    v
}

/// The writes of `io.log` in `dir`: (offset, length), in order.
fn writes(dir: &TempDir) -> Vec<(u64, u64)> {
    let log = std::fs::read_to_string(dir.file("io.log")).unwrap();
    log.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 5 && w[2] == "write")
                .then(|| (w[3].parse().unwrap(), w[4].parse().unwrap()))
        })
        .collect()
}

fn written(doc: &serde_json::Value) -> (u64, u64) {
    let w = &doc["jobs"][0]["write"];
    (
        w["total_ios"].as_u64().unwrap(),
        w["io_bytes"].as_u64().unwrap(),
    )
}

fn short_writes(dir: &TempDir) -> Vec<(u64, u64)> {
    writes(dir).into_iter().filter(|w| w.1 != 12288).collect()
}

#[test]
fn write_zone_remainder_writes_each_zones_last_bytes_from_3_42() {
    let dir = TempDir::new("zbd-wzr-seq");
    let file = zoned_file(&dir);
    // fio 3.42 without it: each zone's last 4 KiB are finished, not
    // written: 340 writes of 12 KiB.
    let doc = json_as(&dir, "3.42", &job(&file, &["--rw=write"]));
    assert_eq!(written(&doc), (340, 4177920));
    assert!(short_writes(&dir).is_empty());
    std::fs::remove_file(dir.file("io.log")).unwrap();
    // With it: the 4 KiB of each zone are one more, shorter write.
    let doc = json_as(
        &dir,
        "3.42",
        &job(&file, &["--rw=write", "--write_zone_remainder=1"]),
    );
    assert_eq!(written(&doc), (344, 4 * MIB));
    assert_eq!(
        short_writes(&dir),
        [
            (1044480, 4096),
            (2093056, 4096),
            (3141632, 4096),
            (4190208, 4096)
        ]
    );
    let all = writes(&dir);
    assert_eq!(all.len(), 344);
    assert!(
        all.windows(2).all(|w| w[0].0 + w[0].1 == w[1].0),
        "one sweep"
    );
}

#[test]
fn write_zone_remainder_runs_random_writes_without_a_random_map() {
    let dir = TempDir::new("zbd-wzr-rand");
    let file = zoned_file(&dir);
    // fio 3.42: norandommap is set for it; 343 writes, two of them the
    // 4 KiB left in zones 3 and 0, and two zone resets (zones written
    // full reset as random offsets come back to them).
    let doc = json_as(
        &dir,
        "3.42",
        &job(&file, &["--rw=randwrite", "--write_zone_remainder=1"]),
    );
    assert_eq!(written(&doc), (343, 4198400));
    assert_eq!(short_writes(&dir), [(4190208, 4096), (1044480, 4096)]);
    assert_eq!(doc["jobs"][0]["job options"]["write_zone_remainder"], "1");
    // A random map asked for is refused, as fio refuses it when it adds
    // the job (--parse-only passes).
    let mut args = job(&file, &["--rw=randwrite", "--write_zone_remainder=1"]);
    args.push("--norandommap=0");
    let out = rfio_as(&dir, "3.42", &args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("fio: write_zone_remainder=1 requires norandommap=1"),
        "{}",
        stderr(&out)
    );
    args.push("--parse-only");
    assert_eq!(rfio_as(&dir, "3.42", &args).status.code(), Some(0));
    // Without it, the same job matches fio 3.42's 341 writes of 12 KiB.
    let doc = json_as(&dir, "3.42", &job(&file, &["--rw=randwrite"]));
    assert_eq!(written(&doc), (341, 4190208));
}

#[test]
fn the_zone_options_are_unknown_before_their_releases() {
    let dir = TempDir::new("zbd-wzr-old");
    let file = zoned_file(&dir);
    for (release, opt, added) in [
        ("3.41", "--write_zone_remainder=1", "3.42"),
        ("3.33", "--write_zone_remainder=1", "3.42"),
        ("3.39", "--recover_zbd_write_error=1", "3.40"),
    ] {
        let out = rfio_as(
            &dir,
            release,
            &job(&file, &["--rw=write", opt, "--parse-only"]),
        );
        assert_eq!(out.status.code(), Some(1), "{release} {opt}");
        let name = opt[2..].split('=').next().unwrap();
        assert!(
            stderr(&out).contains(&format!(
                "unknown option '{name}' (fio {added} added it; rfio behaves as fio-{release})"
            )),
            "{release}: {}",
            stderr(&out)
        );
    }
}

/// A terse run of `args` as `release`: its exit status, the terse
/// line's error and the KiB it wrote (fields 5 and 47), stderr.
fn terse(dir: &TempDir, release: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let mut a: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with("--output-format"))
        .collect();
    a.push("--minimal");
    let out = rfio_as(dir, release, &a);
    let line = stdout(&out);
    let f: Vec<&str> = line.trim_end().split(';').collect();
    let figures = format!("{};{}", f.get(4).unwrap_or(&"?"), f.get(46).unwrap_or(&"?"));
    (out.status.code(), figures, stderr(&out))
}

#[test]
fn recover_zbd_write_error_is_checked_as_fio_3_42_checks_it() {
    let dir = TempDir::new("zbd-recover-checks");
    let file = zoned_file(&dir);
    let with = |extra: &[&'static str]| {
        let mut v = vec!["--rw=write", "--bs=64k", "--recover_zbd_write_error=1"];
        v.extend_from_slice(extra);
        v
    };
    // fio 3.42: the job is refused as its zones are set up (its terse
    // line says nothing was done, error 0), exit 1.
    let (code, figures, err) = terse(&dir, "3.42", &job(&file, &with(&[])));
    assert_eq!((code, figures.as_str()), (Some(1), "0;0"), "{err}");
    assert!(
        err.contains("recover_zbd_write_error works only when continue_on_error is set\n"),
        "{err}"
    );
    let (code, _, err) = terse(
        &dir,
        "3.42",
        &job(
            &file,
            &with(&[
                "--continue_on_error=all",
                "--verify=crc32c",
                "--ioengine=libaio",
            ]),
        ),
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("recover_zbd_write_error for async IO engines does not support verify\n"),
        "{err}"
    );
    // A sync engine verifies; a job that only reads needs nothing.
    let (code, figures, err) = terse(
        &dir,
        "3.42",
        &job(
            &file,
            &with(&["--continue_on_error=all", "--verify=crc32c"]),
        ),
    );
    assert_eq!((code, figures.as_str()), (Some(0), "0;4096"), "{err}");
    let (code, _, err) = terse(
        &dir,
        "3.42",
        &job(&file, &["--rw=read", "--recover_zbd_write_error=1"]),
    );
    assert_eq!(code, Some(0), "{err}");
}

/// rfio as `release` on `args` in `dir`, its files limited to 2 MiB
/// (`ulimit -f`, SIGXFSZ ignored): writes past 2 MiB fail with EFBIG.
fn limited(dir: &TempDir, release: &str, args: &[&str]) -> Output {
    let mut script = format!("trap '' XFSZ; ulimit -f 2048; exec {RFIO}");
    for a in args {
        script.push_str(&format!(" '{a}'"));
    }
    let mut cmd = std::process::Command::new("bash");
    cmd.current_dir(&dir.0)
        .args(["-c", &script])
        .env("RFIO_FIO_VERSION", release);
    let (out, timed_out) = crate::common::output_within(&mut cmd, crate::common::RUN_LIMIT);
    assert!(!timed_out, "rfio {args:?} hung");
    out
}

#[test]
fn a_failed_write_moves_no_write_pointer_and_recovery_says_why_it_cannot() {
    let dir = TempDir::new("zbd-recover-efbig");
    let file = zoned_file(&dir);
    let base = [
        "--name=z",
        file.as_str(),
        "--ioengine=psync",
        "--size=4m",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--bs=64k",
        "--rw=write",
        "--continue_on_error=all",
        "--ignore_error=,EFBIG",
        "--write_iolog=io.log",
    ];
    for release in ["3.33", "3.42"] {
        // fio 3.33 and 3.42: zones 0 and 1 are written (32 writes); every
        // write after them fails at zone 2's start, whose write pointer
        // does not move: 32 errors, all at 2 MiB.
        let _ = std::fs::remove_file(dir.file("io.log"));
        let out = limited(&dir, release, &base);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("issued rwts: total=0,64,0,0"), "{text}");
        assert!(
            text.contains("errors    : total=32, first_error=27/<File too large>"),
            "{text}"
        );
        let w = writes(&dir);
        assert_eq!(w.len(), 64);
        assert!(w[32..].iter().all(|&(o, _)| o == 2 * MIB), "{:?}", &w[32..]);
        assert!(!stderr(&out).contains("BLKREPORTZONE"));
    }
    // fio 3.42 with recover_zbd_write_error: after each failed write it
    // asks the file for the zone's write pointer, which a regular file
    // cannot tell (ENOTTY): three lines each time, the figures the same.
    let _ = std::fs::remove_file(dir.file("io.log"));
    let mut args = base.to_vec();
    args.push("--recover_zbd_write_error=1");
    let out = limited(&dir, "3.42", &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("errors    : total=32, first_error=27/<File too large>"),
        "{text}"
    );
    let name = dir.file("zf").display().to_string();
    let err = stderr(&out);
    let count = |s: &str, line: &str| s.lines().filter(|l| *l == line).count();
    assert_eq!(
        count(
            &err,
            &format!("{name}: BLKREPORTZONE ioctl failed, ret=-1, err=-25.")
        ),
        32,
        "{err}"
    );
    assert_eq!(
        count(
            &err,
            &format!("{name}: report zones from sector 4096 failed (nr_zones=1; errno=25).")
        ),
        32,
        "{err}"
    );
    assert_eq!(
        count(
            &text,
            &format!("fio: Report zone for write recovery failed for {name}")
        ),
        32,
        "{text}"
    );
    assert_eq!(writes(&dir).len(), 64);
}

// The NVMe options of the later releases on the engines rfio runs:
// io_uring_cmd's command fields, which io_uring parses and ignores; the
// protection information of io_uring's md_per_io_size (3.41); data
// placement, whose IDs only NVMe commands carry.

/// A 1 MiB write of 64 KiB blocks to `pf` in `dir`, plus `extra`.
fn one_mib<'a>(file: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["--name=j", file, "--size=1m", "--bs=64k", "--rw=write"];
    v.extend_from_slice(extra);
    v
}

#[test]
fn io_uring_cmd_fields_change_nothing_on_io_uring() {
    let dir = TempDir::new("uring-cmd-fields");
    let file = dir.arg("pf");
    // fio 3.42: 16 writes, exit 0, as without them.
    let fields = [
        "--ioengine=io_uring",
        "--readfua=1",
        "--writefua=1",
        "--write_mode=zeroes",
        "--verify_mode=compare",
        "--deac=1",
        "--pi_act=0",
        "--pi_chk=GUARD",
        "--apptag=0x11",
        "--apptag_mask=0xff",
        "--output-format=json",
    ];
    let doc = json_as(&dir, "3.42", &one_mib(&file, &fields));
    assert_eq!(written(&doc), (16, MIB));
    // write_mode is one of its values: fio lists them on stdout, exit 1.
    let out = rfio_as(
        &dir,
        "3.42",
        &one_mib(
            &file,
            &["--ioengine=io_uring", "--write_mode=bogus", "--parse-only"],
        ),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).starts_with("        valid values: write      Issue Write commands"),
        "{}",
        stdout(&out)
    );
    // fio 3.37 does not know them.
    let out = rfio_as(
        &dir,
        "3.37",
        &one_mib(
            &file,
            &["--ioengine=io_uring", "--readfua=1", "--parse-only"],
        ),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn md_per_io_size_needs_protection_information_from_3_41() {
    let dir = TempDir::new("uring-md");
    let file = dir.arg("pf");
    let md = ["--ioengine=io_uring", "--md_per_io_size=512"];
    // fio 3.40's io_uring reads it only for io_uring_cmd: 16 writes.
    let mut args = one_mib(&file, &md);
    args.push("--output-format=json");
    assert_eq!(written(&json_as(&dir, "3.40", &args)), (16, MIB));
    // fio 3.42 asks the file for its protection information ("pf: failed
    // to query protection information capabilities; error 25", no I/O):
    // rfio refuses the job before it starts, naming what it needs.
    let out = rfio_as(&dir, "3.42", &one_mib(&file, &md));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "md_per_io_size with ioengine=io_uring needs a block device with protection \
             information"
        ),
        "{}",
        stderr(&out)
    );
    // An apptag_mask other than 0xffff fails fio's engine init first.
    let mut args = one_mib(&file, &md);
    args.push("--apptag_mask=0xff");
    let out = rfio_as(&dir, "3.42", &args);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("fio: io_uring with metadata requires an apptag_mask of 0xffff"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn fdp_is_refused_and_streams_run_as_without_them() {
    let dir = TempDir::new("dataplacement");
    let file = dir.arg("pf");
    let name = dir.file("pf").display().to_string();
    let refused = |release: &str, extra: &[&str]| {
        let out = rfio_as(&dir, release, &one_mib(&file, extra));
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {}", stderr(&out));
        stderr(&out)
    };
    // fio 3.42 fails the job as it sets its files up: psync has no FDP
    // reclaim unit handles to give. Called as fio, its words; as rfio, what
    // it needs.
    for fdp in ["--fdp=1", "--dataplacement=fdp"] {
        let err = refused("3.42", &["--compat=fio", "--ioengine=psync", fdp]);
        assert!(
            err.contains(&format!(
                "{name}: engine (psync) lacks fetch ruhs\nfio: ruh info failed for {name} (22)"
            )),
            "{err}"
        );
        let err = refused("3.42", &["--ioengine=psync", fdp]);
        assert!(
            err.contains("needs an NVMe device with Flexible Data Placement"),
            "{err}"
        );
    }
    let err = refused("3.42", &["--fdp=1", "--dataplacement=streams"]);
    assert!(
        err.contains("fio: fdp=1 is not compatible with dataplacement={streams, none}"),
        "{err}"
    );
    let err = refused("3.42", &["--dataplacement=streams"]);
    assert!(
        err.contains("fio: stream IDs must be provided for dataplacement=streams"),
        "{err}"
    );
    // Streams with their IDs: fio 3.42 writes 16 blocks, as without them.
    std::fs::write(dir.file("scheme"), "0,524288,1\n").unwrap();
    let scheme = format!("--dp_scheme={}", dir.file("scheme").display());
    for extra in [
        vec!["--dataplacement=streams", "--plids=1,2"],
        vec![
            "--data_placement=streams",
            "--fdp_pli=1-3",
            "--fdp_pli_select=random",
        ],
        vec![
            "--dataplacement=streams",
            "--plids=1",
            "--plid_select=scheme",
            scheme.as_str(),
        ],
    ] {
        let mut args = one_mib(&file, &extra);
        args.push("--output-format=json");
        assert_eq!(
            written(&json_as(&dir, "3.42", &args)),
            (16, MIB),
            "{extra:?}"
        );
    }
    // plids as fio reads it: refused when the job file is read.
    for (plids, line) in [
        ("--plids=99999", "Placement IDs cannot exceed 0xFFFF"),
        ("--plids=0-128", "fio: only 128 IDs supported"),
    ] {
        let err = refused("3.42", &[plids, "--parse-only"]);
        assert!(err.contains(line), "{plids}: {err}");
    }
    // fio 3.37 has fdp (3.34) but not dataplacement (3.38).
    let err = refused("3.37", &["--dataplacement=streams", "--parse-only"]);
    assert!(err.contains("unknown option 'dataplacement'"), "{err}");
    let err = refused("3.37", &["--ioengine=psync", "--fdp=1"]);
    assert!(err.contains("needs an NVMe device"), "{err}");
}
