//! The verify options of fio 3.33's `verify.c`, `trim.c` and `backend.c`
//! beyond the checks themselves, against real fio: `verify_backlog` reads
//! in a read/write mix (fio's t0008), trims of written blocks
//! (`trim_percentage`, `trim_backlog`, `trim_backlog_batch`,
//! `trim_verify_zero`), `experimental_verify` (t0025, t0026),
//! `verify_state_load` with state files of either, and the settings refused
//! with the job's file and line.
//!
//! The counts are fio's, run here beside rfio (the cross checks need real
//! fio 3.33 and fail, never skip, without it), or written down from it.

use crate::common;

use std::process::Output;

use common::{real_fio, run_in as run, stderr, stdout, LoopDevice, TempDir, RFIO};
use serde_json::Value;

/// The JSON report of a run (fio may print lines before it).
fn json(o: &Output) -> Value {
    let s = stdout(o);
    let at = s.find("\n{").map_or(0, |i| i + 1);
    serde_json::from_str(&s[at..]).unwrap_or_else(|e| panic!("{e}: {s}\n{}", stderr(o)))
}

/// Per job: (read, write, trim) KiB and I/Os, and the error.
type Counts = Vec<([(u64, u64); 3], i64)>;

fn counts(o: &Output) -> Counts {
    json(o)["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            let d = |k: &str| {
                (
                    j[k]["io_kbytes"].as_u64().expect("io_kbytes"),
                    j[k]["total_ios"].as_u64().expect("total_ios"),
                )
            };
            (
                [d("read"), d("write"), d("trim")],
                j["error"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// Run `bin` on `args` (JSON output) in a fresh directory of `d`.
fn run_fresh(bin: &str, d: &TempDir, sub: &str, args: &[&str]) -> Output {
    let dir = d.file(sub);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut a = args.to_vec();
    a.push("--output-format=json");
    run(bin, &dir, &a)
}

/// rfio and fio agree on `args`: the same counts and exit status.
fn same_as_fio(d: &TempDir, args: &[&str]) -> Counts {
    let f = run_fresh(real_fio(), d, "fio", args);
    let r = run_fresh(RFIO, d, "rfio", args);
    assert_eq!(r.status.code(), f.status.code(), "{args:?}: {}", stderr(&r));
    let c = counts(&r);
    assert_eq!(c, counts(&f), "{args:?}");
    c
}

const K4: (u64, u64) = (0, 0);

/// fio's t0008, scaled down: a read back in a read/write mix is not counted
/// against the size, so the pattern still moves all of its bytes.
#[test]
fn backlog_reads_do_not_count_against_the_size() {
    let d = TempDir::new("vt-backlog");
    let base = ["--name=j", "--filename=f", "--bs=4k", "--size=1m"];
    let mut a = base.to_vec();
    a.extend(["--rw=readwrite", "--verify=crc32c", "--verify_backlog=1"]);
    let c = same_as_fio(&d, &a);
    // 124 writes, each read back: 132 + 124 reads (1 MiB).
    assert_eq!(c, [([(1024, 256), (496, 124), K4], 0)]);
    let mut a = base.to_vec();
    a.extend([
        "--rw=randrw",
        "--verify=md5",
        "--verify_backlog=3",
        "--verify_backlog_batch=2",
        "--ioengine=libaio",
        "--iodepth=4",
    ]);
    same_as_fio(&d, &a);
}

/// Backlog reads and trims count toward `number_ios` (fio counts every
/// I/O there); and before anything completes fio's last direction is a
/// read, so the first backlog of an asynchronous job waits for a write to
/// complete.
#[test]
fn backlog_io_counts_toward_number_ios() {
    let d = TempDir::new("vt-nios");
    let base = [
        "--name=j",
        "--filename=f",
        "--bs=4k",
        "--size=1m",
        "--verify=crc32c",
    ];
    for (extra, want) in [
        (
            &["--rw=write", "--number_ios=50", "--verify_backlog=1"][..],
            [(100, 25), (100, 25), K4],
        ),
        (
            &[
                "--rw=randwrite",
                "--number_ios=50",
                "--verify_backlog=3",
                "--ioengine=libaio",
                "--iodepth=4",
            ][..],
            [(104, 26), (104, 26), K4],
        ),
        (
            &[
                "--rw=trimwrite",
                "--ioengine=null",
                "--number_ios=50",
                "--trim_percentage=50",
                "--trim_backlog=2",
            ][..],
            [(160, 40), (160, 40), (240, 60)],
        ),
    ] {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        let c = same_as_fio(&d, &a);
        assert_eq!(c, [(want, 0)], "{extra:?}");
    }
}

/// A read-only job that checks its reads makes one pass whatever `loops`
/// says: fio counts the bytes it reads while verifying as verified, and a
/// pass that did nothing else ends the job.
#[test]
fn a_read_only_verify_job_makes_one_pass() {
    let d = TempDir::new("vt-readonly");
    let w = [
        "--name=j",
        "--filename=f",
        "--bs=4k",
        "--size=64k",
        "--verify=crc32c",
        "--rw=write",
        "--minimal",
    ];
    assert!(run(RFIO, &d.0, &w).status.success());
    let mut r = w.to_vec();
    r.retain(|a| !a.starts_with("--rw") && *a != "--minimal");
    r.extend(["--rw=read", "--loops=3", "--output-format=json"]);
    let o = run(RFIO, &d.0, &r);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(counts(&o), [([(64, 16), K4, K4], 0)]);
}

fn trimwrite(extra: &[&'static str]) -> Vec<&'static str> {
    let mut a = vec![
        "--name=j",
        "--ioengine=null",
        "--bs=4k",
        "--size=256k",
        "--verify=md5",
        "--trim_percentage=40",
    ];
    a.extend_from_slice(extra);
    a
}

#[test]
fn trim_backlog_counts_are_fios() {
    let d = TempDir::new("vt-trim");
    for (extra, want) in [
        // 40% of 64 logged writes on the trim list: 25 trims of them, and
        // those no longer read back.
        (
            &["--rw=trimwrite", "--trim_backlog=4", "--trim_verify_zero=0"][..],
            [(156, 39), (256, 64), (356, 89)],
        ),
        (
            &[
                "--rw=trimwrite",
                "--trim_backlog=4",
                "--trim_backlog_batch=2",
                "--trim_verify_zero=0",
            ][..],
            [(156, 39), (256, 64), (356, 89)],
        ),
        // Read back before their turn to be trimmed: 20 trims.
        (
            &[
                "--rw=randtrimwrite",
                "--trim_backlog=3",
                "--verify_backlog=5",
            ][..],
            [(256, 64), (256, 64), (336, 84)],
        ),
        (
            &[
                "--rw=trimwrite",
                "--trim_backlog=3",
                "--verify_backlog=5",
                "--trim_verify_zero=0",
            ][..],
            [(168, 42), (256, 64), (344, 86)],
        ),
        (
            &["--rw=trimwrite", "--trim_backlog=5", "--loops=3"][..],
            [(768, 192), (768, 192), (1056, 264)],
        ),
    ] {
        let c = same_as_fio(&d, &trimwrite(extra));
        assert_eq!(c, [(want, 0)], "{extra:?}");
    }
}

/// Blocks left on the trim list when a pass ends: fio's complaint.
#[test]
fn leaked_trim_entries_are_reported_as_fio() {
    let d = TempDir::new("vt-leak");
    let mut a = trimwrite(&["--rw=trimwrite", "--trim_backlog=20", "--size=64k"]);
    a[5] = "--trim_percentage=50";
    let o = run_fresh(RFIO, &d, "r", &a);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "fio: 5 trim entries leaked?\n");
    let f = run_fresh(real_fio(), &d, "f", &a);
    assert_eq!(stderr(&f), stderr(&o));
    // Without trim_backlog nothing is trimmed: the entries leak at the end
    // of the pass, and the verify phase reads every block back.
    let a = [
        "--name=j",
        "--filename=f",
        "--bs=4k",
        "--size=64k",
        "--rw=write",
        "--verify=md5",
        "--trim_percentage=50",
    ];
    let o = run_fresh(RFIO, &d, "r", &a);
    assert_eq!(stderr(&o), "fio: 5 trim entries leaked?\n");
    assert_eq!(counts(&o), [([(64, 16), (64, 16), K4], 0)]);
}

/// `trim_verify_zero` failing: the falloc engine reads nothing, so the read
/// back of a trimmed block finds the block just written in its buffer.
#[test]
fn trim_verify_zero_fails_on_data_that_is_not_zero() {
    let d = TempDir::new("vt-zero");
    let a = [
        "--name=j",
        "--filename=tz",
        "--ioengine=falloc",
        "--rw=trimwrite",
        "--bs=4k",
        "--size=64k",
        "--verify=md5",
        "--trim_percentage=100",
        "--trim_backlog=1",
    ];
    let c = same_as_fio(&d, &a);
    assert_eq!(c, [([(4, 1), (64, 16), (128, 32)], libc::EILSEQ as i64)]);
    let o = run_fresh(RFIO, &d, "r", &a);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o)
            .starts_with("trim: verify failed at file tz offset 0, length 4096, block offset 0\n"),
        "{}",
        stderr(&o)
    );
    // trim_verify_zero=0: a trimmed block is not read back at all.
    let mut a = a.to_vec();
    a.push("--trim_verify_zero=0");
    let c = same_as_fio(&d, &a);
    assert_eq!(c, [([(0, 0), (64, 16), (128, 32)], 0)]);
}

/// A loop device reads trimmed blocks back as zeros: `trim_verify_zero`
/// passes there, in fio and rfio alike. (Needs root and losetup: fails
/// without, unless `RFIO_TEST_NO_LOOP=1`.)
#[test]
fn trim_verify_zero_passes_on_a_device_that_zeroes() {
    let d = TempDir::new("vt-loop");
    let Some(dev) = common::need("loop", LoopDevice::new(&d, 8 << 20)) else {
        return;
    };
    let filename = format!("--filename={}", dev.0);
    for extra in [
        &["--trim_backlog=4"][..],
        &["--trim_backlog=3", "--verify_backlog=5"],
    ] {
        let mut a = vec![
            "--name=j",
            filename.as_str(),
            "--ioengine=psync",
            "--rw=randtrimwrite",
            "--bs=4k",
            "--size=256k",
            "--verify=crc32c",
            "--trim_percentage=40",
        ];
        a.extend_from_slice(extra);
        let c = same_as_fio(&d, &a);
        assert_eq!(c[0].1, 0, "{extra:?}");
        assert_eq!(c[0].0[0], (256, 64), "{extra:?}: every block read back");
    }
}

/// fio's t0025 and t0026, scaled down, and the other patterns.
#[test]
fn experimental_verify_replays_the_pattern_as_fio() {
    let d = TempDir::new("vt-exp");
    let base = [
        "--name=j",
        "--filename=f",
        "--bs=4k",
        "--size=256k",
        "--verify=md5",
        "--experimental_verify=1",
    ];
    for (extra, want) in [
        (&["--rw=write"][..], [(256, 64), (256, 64), K4]),
        // The first read back counts as a pass of writes (fio's t0026).
        (
            &["--rw=randwrite", "--loops=3"][..],
            [(256, 64), (512, 128), K4],
        ),
        (&["--rw=rw"][..], [(256, 64), (140, 35), K4]),
        (
            &["--rw=randrw", "--rwmixread=30", "--loops=4"][..],
            [(424, 106), (600, 150), K4],
        ),
        (
            &["--rw=trimwrite", "--ioengine=null"][..],
            [(512, 128), (256, 64), (256, 64)],
        ),
    ] {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        let c = same_as_fio(&d, &a);
        assert_eq!(c, [(want, 0)], "{extra:?}");
    }
    // A replayed write whose block was overwritten since: fio's numberio
    // failure, word for word.
    let mut a = base.to_vec();
    a.extend(["--rw=randwrite", "--norandommap"]);
    let o = run_fresh(RFIO, &d, "r", &a);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with(
        "verify: bad header numberio 44, wanted 0 at file f offset 12288, length 4096 \
         (requested block: offset=12288, length=4096)\n"
    ));
}

fn state_job(rw: &'static str, extra: &[&'static str]) -> Vec<&'static str> {
    let mut a = vec![
        "--name=j",
        "--filename=f",
        "--bs=4k",
        "--size=256k",
        "--verify=crc32c",
        rw,
    ];
    a.extend_from_slice(extra);
    a
}

/// A state file written by either (20 writes, iodepth 4) stops either's
/// read back after the last write it saw complete.
#[test]
fn verify_state_load_resumes_from_fio_and_rfio_state_files() {
    let d = TempDir::new("vt-state");
    let fio = real_fio();
    let write = state_job(
        "--rw=write",
        &["--number_ios=20", "--iodepth=4", "--minimal"],
    );
    let mut files = Vec::new();
    for writer in [fio, RFIO] {
        for (reader, rw, extra, want) in [
            (RFIO, "--rw=read", &[][..], [(80, 20), K4, K4]),
            (fio, "--rw=read", &[][..], [(80, 20), K4, K4]),
            (
                RFIO,
                "--rw=write",
                &["--verify_only=1"][..],
                [(80, 20), (256, 64), K4],
            ),
        ] {
            let _ = std::fs::remove_file(d.file("f"));
            let o = run(writer, &d.0, &write);
            assert!(o.status.success(), "{}", stderr(&o));
            let state = std::fs::read(d.file("local-j-0-verify.state")).unwrap();
            files.push(state);
            let mut a = state_job(rw, extra);
            a.extend(["--verify_state_load=1", "--output-format=json"]);
            let o = run(reader, &d.0, &a);
            assert!(
                o.status.success(),
                "{reader} after {writer}: {}",
                stderr(&o)
            );
            assert_eq!(counts(&o), [(want, 0)], "{reader} {rw} after {writer}");
        }
    }
    // fio's file and rfio's agree but for the offset generator's state,
    // which fio never reads back (bytes 64..112: the header's 24, then 40
    // into fio's thread_io_list), and the crc over it.
    let (f, r) = (&files[0], &files[3]);
    assert_eq!(f.len(), 24 + 152 + 16 * 4);
    assert_eq!(f.len(), r.len());
    assert_eq!(f[..16], r[..16]);
    assert_eq!(f[24..64], r[24..64]);
    assert_eq!(f[112..], r[112..]);
}

/// No state file: fio's messages, the job reported without I/O and error
/// 0, the other job run, exit status 1.
#[test]
fn verify_state_load_without_a_state_file_fails_the_job_only() {
    let d = TempDir::new("vt-nostate");
    let a = [
        "--name=w",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--name=k",
        "--rw=read",
        "--size=64k",
        "--verify=md5",
        "--verify_state_load=1",
    ];
    let o = run_fresh(RFIO, &d, "r", &a);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "fio: open state file: No such file or directory\n\
         fio: state file: local-k-1-verify.state (for_write=0)\n"
    );
    assert_eq!(counts(&o), [([K4, (64, 16), K4], 0), ([K4, K4, K4], 0)],);
    let f = run_fresh(real_fio(), &d, "f", &a);
    assert_eq!(f.status.code(), Some(1));
    assert_eq!(counts(&f), counts(&o));
}

/// Settings fio cannot run (or never ends) are refused before any I/O,
/// naming the job file, its line and the job.
#[test]
fn settings_fio_cannot_run_are_errors_with_file_and_line() {
    let d = TempDir::new("vt-bad");
    for (body, msg) in [
        (
            "rw=write\nverify=md5\ntrim_percentage=10\ntrim_backlog=4\n",
            "trim_backlog=4 with trim_percentage=10: trimming written blocks needs a job \
             that trims (rw=trimwrite or randtrimwrite); fio 3.33 aborts at the first trim",
        ),
        (
            "rw=randwrite\nnorandommap\nverify=md5\ntrim_percentage=10\n",
            "trim_percentage=10 without trim_backlog or verify_backlog on a random pattern \
             without a random map: fio 3.33 never ends the job (its trim list never empties)",
        ),
        (
            "verify=md5\nverify_async=1\nverify_async_cpus=1000\n",
            "CPU 1000 too large",
        ),
    ] {
        let text = format!("; a bad job\n\n[bad]\nsize=64k\nioengine=null\n{body}");
        let path = d.write("bad.fio", &text);
        let o = run(RFIO, &d.0, &[path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{body}");
        let e = stderr(&o);
        assert!(
            e.starts_with(&format!("rfio: {}:3:1: job 'bad': ", path.display())) && e.contains(msg),
            "{body}: {e}"
        );
        assert!(stdout(&o).is_empty(), "{body}: no I/O, no report");
        // A dry run accepts what fio's dry run accepts.
        let o = run(RFIO, &d.0, &["--parse-only", path.to_str().unwrap()]);
        assert!(o.status.success(), "{body}: {}", stderr(&o));
    }
}

/// The deprecated `verifysort` and `verifysort_nr` are read and ignored.
#[test]
fn verifysort_is_ignored() {
    let d = TempDir::new("vt-sort");
    let a = [
        "--name=j",
        "--filename=f",
        "--bs=4k",
        "--size=64k",
        "--rw=randwrite",
        "--verify=crc32c",
        "--verifysort=1",
        "--verifysort_nr=16",
    ];
    let o = run_fresh(RFIO, &d, "r", &a);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(counts(&o), [([(64, 16), (64, 16), K4], 0)]);
}
