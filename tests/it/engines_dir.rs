//! fio 3.37's directory engines (`dircreate`, `dirstat`, `dirdelete`,
//! engines/fileoperations.c) under fio 3.42, their absence from fio 3.33,
//! and the engines later releases dropped (`pmemblk`) or that fio's build
//! lacks (`libblkio`). The counts are fio 3.42's, measured on the same jobs
//! (`/root/.cache/rfio-oracles/fio-3.42/fio`); the texts of 3.33 are
//! compared with Debian's fio at each run.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::json::{json_env, summary};
use crate::common::{output_within, real_fio, stderr, stdout, TempDir, RFIO, RUN_LIMIT};

/// rfio called as `fio` (a symlink beside the job's files), as `release`,
/// with `args` in `dir`.
fn as_fio(dir: &TempDir, release: &str, args: &[&str]) -> Output {
    run(&fio_link(dir), dir, release, args)
}

/// A `fio` symlink to rfio in `dir`'s `bin/`.
fn fio_link(dir: &TempDir) -> PathBuf {
    let link = dir.file("bin/fio");
    if !link.exists() {
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(RFIO, &link).expect("symlink fio");
    }
    link
}

/// `bin` with `args` in `dir`, `RFIO_FIO_VERSION=release`.
fn run(bin: &Path, dir: &TempDir, release: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.current_dir(&dir.0)
        .args(args)
        .env("RFIO_FIO_VERSION", release);
    let (out, timed_out) = output_within(&mut cmd, RUN_LIMIT);
    assert!(!timed_out, "{bin:?} {args:?} hung");
    out
}

/// rfio's JSON report of `args` as fio 3.42: the document, its stderr and
/// exit status.
fn json_342(dir: &TempDir, args: &[&str]) -> (serde_json::Value, String, i32) {
    json_env(RFIO, dir, args, &[("RFIO_FIO_VERSION", "3.42")])
}

/// The permission bits of `path`, and whether it is a directory.
fn mode(path: &Path) -> (u32, bool) {
    let m = std::fs::symlink_metadata(path).unwrap();
    (m.permissions().mode() & 0o7777, m.is_dir())
}

/// The job's clat samples (`N`) and total latency samples of `dir`.
fn samples(doc: &serde_json::Value, dir: &str) -> (u64, u64) {
    let d = &doc["jobs"][0][dir];
    (
        d["clat_ns"]["N"].as_u64().unwrap(),
        d["lat_ns"]["N"].as_u64().unwrap(),
    )
}

/// fio 3.42: nrfiles=3 size=12k is three reads of 4k, one per directory,
/// each with the engine's time as its completion latency (3 clat samples,
/// no total latency). dircreate leaves three directories of mode 0000
/// (fio passes S_IFDIR as mkdir's mode), dirstat three of mode 0700 (made
/// by its setup), dirdelete none.
#[test]
fn nrfiles_directories_made_statted_and_deleted_as_fio_3_42() {
    for (engine, left) in [
        ("dircreate", Some(0o000)),
        ("dirstat", Some(0o700)),
        ("dirdelete", None),
    ] {
        let dir = TempDir::new(&format!("dir-{engine}"));
        let e = format!("--ioengine={engine}");
        let args = ["--name=j", &e, "--nrfiles=3", "--size=12k"];
        let (doc, err, code) = json_342(&dir, &args);
        assert_eq!(code, 0, "{engine}: {err}");
        assert_eq!(
            summary(&doc, 0),
            (0, [(3, 12288), (0, 0), (0, 0)]),
            "{engine}"
        );
        assert_eq!(samples(&doc, "read"), (3, 0), "{engine}");
        for n in 0..3 {
            let p = dir.file(&format!("j.0.{n}"));
            match left {
                Some(bits) => {
                    assert_eq!(mode(&p), (bits, true), "{engine} {p:?}");
                    // So that the temporary directory can go.
                    std::fs::set_permissions(&p, PermissionsExt::from_mode(0o700)).unwrap();
                }
                None => assert!(!p.exists(), "{engine} {p:?}"),
            }
        }
    }
}

/// fio 3.42: bs=8k size=64k nrfiles=2 is 8 I/Os (4 per directory) but 2
/// samples, one per open; rw=write counts writes; numjobs=2 gives each
/// clone its own directories.
#[test]
fn dir_engines_count_blocks_and_opens_as_fio_3_42() {
    for engine in ["dircreate", "dirstat", "dirdelete"] {
        let dir = TempDir::new(&format!("dir-bs-{engine}"));
        let e = format!("--ioengine={engine}");
        let (doc, err, code) = json_342(
            &dir,
            &["--name=j", &e, "--nrfiles=2", "--size=64k", "--bs=8k"],
        );
        assert_eq!(code, 0, "{engine}: {err}");
        assert_eq!(
            summary(&doc, 0),
            (0, [(8, 65536), (0, 0), (0, 0)]),
            "{engine}"
        );
        assert_eq!(samples(&doc, "read"), (2, 0), "{engine}");
        let dir = TempDir::new(&format!("dir-w-{engine}"));
        let (doc, err, code) = json_342(
            &dir,
            &[
                "--name=j",
                &e,
                "--nrfiles=2",
                "--filesize=4k",
                "--rw=write",
                "--numjobs=2",
                "--unlink=1",
            ],
        );
        assert_eq!(code, 0, "{engine}: {err}");
        for job in 0..2 {
            assert_eq!(
                summary(&doc, job),
                (0, [(0, 0), (2, 8192), (0, 0)]),
                "{engine}"
            );
        }
        // unlink=1: fio's .unlink_file of these engines is rmdir.
        let left: Vec<_> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{engine}: {left:?}");
    }
}

/// fio 3.42: dircreate (as filecreate) sizes each file at one block, so a
/// job without size= or filesize= does one block per directory; dirstat
/// and dirdelete, whose setup makes the directories, need a size
/// (`you need to specify size=`, exit 1), after making them.
#[test]
fn without_a_size_dircreate_does_a_block_per_directory() {
    for (engine, ios) in [("dircreate", 2), ("filecreate", 2)] {
        let dir = TempDir::new(&format!("dir-nosize-{engine}"));
        let e = format!("--ioengine={engine}");
        let (doc, err, code) = json_342(&dir, &["--name=j", &e, "--nrfiles=2", "--bs=8k"]);
        assert_eq!(code, 0, "{engine}: {err}");
        assert_eq!(
            summary(&doc, 0),
            (0, [(ios, ios * 8192), (0, 0), (0, 0)]),
            "{engine}"
        );
        for n in 0..2 {
            let _ = std::fs::set_permissions(
                dir.file(&format!("j.0.{n}")),
                PermissionsExt::from_mode(0o700),
            );
        }
    }
    let dir = TempDir::new("dir-nosize-dirstat");
    let (doc, _, code) = json_342(&dir, &["--name=j", "--ioengine=dirstat", "--nrfiles=2"]);
    assert_eq!(code, 1);
    assert_eq!(summary(&doc, 0).0, 22);
    assert_eq!(mode(&dir.file("j.0.1")), (0o700, true));
}

/// What fails as fio 3.42 fails it: an existing directory for dircreate
/// (err=17 at engines/fileoperations.c:123, `func=open(d)`), one that is
/// not empty for dirdelete (err=39 at :244, `func=delete(d)`), a second
/// pass of dircreate (loops=2: err=17 after the first pass's 2 I/Os), and
/// a dirstat directory whose parent is missing (its setup's line, the job
/// reaped unstarted with no error of its own, exit 1, the next job run).
#[test]
fn dir_engine_failures_as_fio_3_42() {
    let dir = TempDir::new("dir-fail");
    std::fs::create_dir(dir.file("d")).unwrap();
    std::fs::write(dir.file("d/x"), "").unwrap();
    let link = fio_link(&dir);
    for (engine, errno, line) in [
        (
            "dircreate",
            17,
            "err=17/file:engines/fileoperations.c:123, func=open(d), error=File exists",
        ),
        (
            "dirdelete",
            39,
            "err=39/file:engines/fileoperations.c:244, func=delete(d), error=Directory not empty",
        ),
    ] {
        let e = format!("--ioengine={engine}");
        let args = ["--name=j", &e, "--filename=d", "--size=4k"];
        let out = run(&link, &dir, "3.42", &args);
        assert_eq!(out.status.code(), Some(1), "{engine}");
        assert!(stdout(&out).contains(line), "{engine}: {}", stdout(&out));
        let (doc, _, code) = json_342(&dir, &args);
        assert_eq!((code, summary(&doc, 0).0), (1, errno), "{engine}");
    }
    let (doc, _, code) = json_342(
        &dir,
        &[
            "--name=j",
            "--ioengine=dircreate",
            "--nrfiles=2",
            "--size=8k",
            "--loops=2",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(summary(&doc, 0), (17, [(2, 8192), (0, 0), (0, 0)]));
    let (doc, err, code) = json_342(
        &dir,
        &[
            "--name=a",
            "--ioengine=dirstat",
            "--filename=no/such/d",
            "--size=4k",
            "--name=b",
            "--ioengine=dirstat",
            "--filename=ok",
            "--size=4k",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("create directory no/such/d failed with 2\n"),
        "{err}"
    );
    assert_eq!(summary(&doc, 0), (0, [(0, 0), (0, 0), (0, 0)]));
    assert_eq!(summary(&doc, 1), (0, [(1, 4096), (0, 0), (0, 0)]));
    for n in ["j.0.0", "j.0.1"] {
        let _ = std::fs::set_permissions(dir.file(n), PermissionsExt::from_mode(0o700));
    }
}

/// A failed open (the engine's operation) of one of the job's files: fio's
/// file service goes on to the next file in the same pick, that I/O is
/// issued, then the job stops on the error (the first one is reported).
/// Counts measured with fio 3.33 (filecreate) and fio 3.42 on these jobs
/// (nrfiles=4 filesize=4k, the files in `d/`; the broken ones made
/// directories, non-empty for dirdelete): file 1 broken is 2 writes, file
/// 3 broken 3 (the pick after the third finds every other file done),
/// files 1 and 2 broken 2; bs=1k with openfiles=1 is 5 (file 0's four,
/// file 2's first).
/// Release, engine, broken files, more options, errno, writes, bytes.
type Case = (
    &'static str,
    &'static str,
    &'static [usize],
    &'static [&'static str],
    i64,
    u64,
    u64,
);

#[test]
fn a_failed_file_operation_goes_on_to_the_next_file_as_fio() {
    let dir = TempDir::new("dir-next");
    let cases: [Case; 8] = [
        ("3.33", "filecreate", &[1], &[], 21, 2, 8192),
        ("3.33", "filecreate", &[3], &[], 21, 3, 12288),
        ("3.33", "filecreate", &[0], &[], 21, 1, 4096),
        ("3.33", "filecreate", &[1, 2], &[], 21, 2, 8192),
        (
            "3.33",
            "filecreate",
            &[1],
            &["--bs=1k", "--openfiles=1"],
            21,
            5,
            5120,
        ),
        ("3.42", "dircreate", &[1], &["--openfiles=2"], 17, 2, 8192),
        ("3.42", "dirdelete", &[2], &[], 39, 3, 12288),
        (
            "3.42",
            "dirdelete",
            &[0, 2],
            &["--file_service_type=sequential"],
            39,
            1,
            4096,
        ),
    ];
    for (release, engine, broken, extra, errno, ios, bytes) in cases {
        let d = dir.file("d");
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir(&d).unwrap();
        for b in broken {
            let f = d.join(format!("j.0.{b}"));
            std::fs::create_dir(&f).unwrap();
            if engine == "dirdelete" {
                std::fs::write(f.join("x"), "").unwrap();
            }
        }
        let e = format!("--ioengine={engine}");
        let mut args = vec![
            "--name=j",
            &e,
            "--directory=d",
            "--nrfiles=4",
            "--filesize=4k",
            "--bs=4k",
            "--rw=write",
        ];
        args.extend_from_slice(extra);
        let what = format!("{release} {engine} broken {broken:?} {extra:?}");
        let (doc, _, code) = json_env(RFIO, &dir, &args, &[("RFIO_FIO_VERSION", release)]);
        assert_eq!(code, 1, "{what}");
        assert_eq!(
            summary(&doc, 0),
            (errno, [(0, 0), (ios, bytes), (0, 0)]),
            "{what}"
        );
        if broken.len() == 1 {
            continue;
        }
        let out = run(RFIO.as_ref(), &dir, release, &args);
        let first = format!("d/j.0.{}), error=", broken[0]);
        assert!(stdout(&out).contains(&first), "{what}: {}", stdout(&out));
    }
    let _ = std::fs::set_permissions(dir.file("d/j.0.1"), PermissionsExt::from_mode(0o700));
}

/// fio 3.42's own test t0035 (t/jobs/t0035.fio, checked by
/// t/run-fio-tests.py: exit 0 and an empty stderr) passes, leaving what
/// fio leaves: t0035file1 (0600, empty), t0035file2 (laid out, 4k),
/// t0035dir1 (0000), t0035dir2 (0700), neither file3 nor dir3; each job's
/// clat log holds one line, its block size 0 as fio logs a file
/// operation.
#[test]
fn fio_3_42_t0035_passes() {
    let dir = TempDir::new("t0035");
    let job = dir.write(
        "t0035.fio",
        "[global]\nsize=4k\nwrite_lat_log=log\n\n\
         [job1]\nioengine=filecreate\nfilename=t0035file1\n\n\
         [job2]\nioengine=filestat\nfilename=t0035file2\n\n\
         [job3]\nioengine=filedelete\nfilename=t0035file3\n\n\
         [job4]\nioengine=dircreate\nfilename=t0035dir1\n\n\
         [job5]\nioengine=dirstat\nfilename=t0035dir2\n\n\
         [job6]\nioengine=dirdelete\nfilename=t0035dir3\n",
    );
    let out = as_fio(
        &dir,
        "3.42",
        &[
            "--max-jobs=16",
            "--output-format=normal",
            "--output=t0035.fio.output",
            job.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let file = |name: &str| {
        let m = std::fs::metadata(dir.file(name)).unwrap();
        (m.permissions().mode() & 0o777, m.is_dir(), m.len())
    };
    assert_eq!(file("t0035file1"), (0o600, false, 0));
    assert_eq!(file("t0035file2").2, 4096);
    assert_eq!(file("t0035dir1").0, 0o000);
    assert!(file("t0035dir1").1);
    assert_eq!(file("t0035dir2").0, 0o700);
    for gone in ["t0035file3", "t0035dir3"] {
        assert!(!dir.file(gone).exists(), "{gone}");
    }
    for n in 1..=6 {
        let log = std::fs::read_to_string(dir.file(&format!("log_clat.{n}.log"))).unwrap();
        let fields: Vec<&str> = log.trim_end().split(", ").collect();
        assert_eq!(log.lines().count(), 1, "job{n}: {log}");
        assert_eq!(
            (fields.len(), fields[2], fields[3], fields[4]),
            (5, "0", "0", "0"),
            "job{n}: {log}"
        );
        let lat = std::fs::read_to_string(dir.file(&format!("log_lat.{n}.log"))).unwrap();
        assert_eq!(lat, "", "job{n}: no total latency");
    }
    std::fs::set_permissions(dir.file("t0035dir1"), PermissionsExt::from_mode(0o700)).unwrap();
    // Under 3.33 the directory engines are unknown: t0035 fails there,
    // as it would on fio 3.33.
    let out = as_fio(&dir, "3.33", &[job.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "fio: engine dircreate not loadable\nfio: failed to load engine\n"
    );
}

/// fio 3.33 has no directory engines: called as fio under 3.33, rfio
/// refuses them with fio 3.33's words and exit status, from a job file
/// (when it runs; `--parse-only` passes) and from the command line (even
/// under `--parse-only`: fio loads the engine as it reads --ioengine).
/// rfio's own refusal says which release brought them. `--enghelp` lists
/// them from 3.37 only.
#[test]
fn dir_engines_are_unknown_to_fio_3_33() {
    let dir = TempDir::new("dir-3.33");
    let job = dir.write("j.fio", "[x]\nioengine=dirstat\nfilename=d\nsize=4k\n");
    let job = job.to_str().unwrap();
    let fio = real_fio();
    for args in [
        &[job][..],
        &["--parse-only", job][..],
        &[
            "--name=x",
            "--ioengine=dircreate",
            "--filename=d",
            "--parse-only",
        ][..],
        &[
            "--name=x",
            "--ioengine=dirdelete",
            "--stat_type=lstat",
            "--size=4k",
        ][..],
        &["--enghelp=dirstat"][..],
    ] {
        let ours = as_fio(&dir, "3.33", args);
        let theirs = run(Path::new(fio), &dir, "3.33", args);
        assert_eq!(
            (ours.status.code(), stderr(&ours)),
            (theirs.status.code(), stderr(&theirs)),
            "{args:?}"
        );
    }
    assert!(!dir.file("d").exists(), "nothing made");
    let strict = run(Path::new(RFIO), &dir, "3.33", &[job]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(
        stderr(&strict).contains(
            "job 'x': ioengine=dirstat: no such I/O engine (fio: engine dirstat not loadable; \
             fio 3.37 added it, rfio behaves as fio-3.33)"
        ),
        "{}",
        stderr(&strict)
    );
    let list = |release: &str| stdout(&as_fio(&dir, release, &["--enghelp"]));
    let dirs = |text: &str| {
        text.lines()
            .map(str::trim)
            .filter(|l| l.starts_with("dir"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert!(dirs(&list("3.36")).is_empty());
    assert_eq!(dirs(&list("3.37")), ["dircreate", "dirstat", "dirdelete"]);
    assert!(list("3.42").contains("\tfiledelete\n\tdircreate\n\tdirstat\n\tdirdelete\n"));
}

/// fio 3.34 removed pmemblk: under 3.42, called as fio, `ioengine=pmemblk`
/// is unknown in fio 3.42's words (`fio: engine pmemblk not loadable`,
/// `fio: failed to load engine`, exit 1), and `--enghelp=pmemblk` says it
/// is not found; under 3.33 it is fio's engine that rfio cannot run.
/// libblkio, which Debian's build lacks, is refused as fio 3.42 built
/// without it refuses it, when the command line is read (`--parse-only`).
#[test]
fn removed_and_unbuilt_engines_are_unknown_as_fio_3_42_says() {
    let dir = TempDir::new("dir-pmemblk");
    let not_loadable =
        |e: &str| format!("fio: engine {e} not loadable\nfio: failed to load engine\n");
    let out = as_fio(
        &dir,
        "3.42",
        &[
            "--name=x",
            "--ioengine=pmemblk",
            "--filename=f",
            "--size=4k",
        ],
    );
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (Some(1), not_loadable("pmemblk"))
    );
    let out = as_fio(&dir, "3.42", &["--enghelp=pmemblk"]);
    assert_eq!(
        (out.status.code(), stdout(&out), stderr(&out)),
        (
            Some(1),
            "IO engine pmemblk not found\n".to_string(),
            "fio: engine pmemblk not loadable\n".to_string()
        )
    );
    let out = as_fio(&dir, "3.33", &["--enghelp=pmemblk"]);
    assert_eq!(stdout(&out), "IO engine pmemblk has no options\n");
    let strict = run(
        Path::new(RFIO),
        &dir,
        "3.33",
        &[
            "--name=x",
            "--ioengine=pmemblk",
            "--filename=f",
            "--size=4k",
        ],
    );
    assert!(
        stderr(&strict).contains("ioengine=pmemblk needs a persistent memory pool"),
        "{}",
        stderr(&strict)
    );
    for release in ["3.33", "3.42"] {
        let out = as_fio(
            &dir,
            release,
            &[
                "--ioengine=libblkio",
                "--name=x",
                "--filename=/dev/null",
                "--parse-only",
            ],
        );
        assert_eq!(
            (out.status.code(), stderr(&out)),
            (Some(1), not_loadable("libblkio")),
            "{release}"
        );
    }
    assert!(!dir.file("f").exists(), "nothing laid out");
}
