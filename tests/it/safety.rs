//! Data safety, end to end through the rfio binary: `--readonly` writes
//! nothing, `directory=` holds every file, bad sizes and lists are errors
//! (never a panic or an abort), errors say what failed, and SIGINT stops a
//! layout and removes its partial file.

use crate::common;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{rfio, stderr, stdout, TempDir, Tmpfs};

/// Bytes, length and modification time of a file, to show it untouched.
#[derive(Debug, PartialEq)]
struct Snapshot {
    bytes: Vec<u8>,
    mtime_ns: (i64, i64),
    ctime_ns: (i64, i64),
}

fn snapshot(p: &Path) -> Snapshot {
    let m = std::fs::metadata(p).unwrap();
    Snapshot {
        bytes: std::fs::read(p).unwrap(),
        mtime_ns: (m.mtime(), m.mtime_nsec()),
        ctime_ns: (m.ctime(), m.ctime_nsec()),
    }
}

/// Every path under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(base).unwrap().display().to_string());
            if std::fs::symlink_metadata(&p).unwrap().is_dir() {
                walk(base, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A file of `len` bytes that are not a layout's, dated in the past.
fn data_file(dir: &TempDir, name: &str, len: usize) -> PathBuf {
    let p = dir.file(name);
    let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4096) as u8).collect();
    std::fs::write(&p, bytes).unwrap();
    let ok = Command::new("touch")
        .args(["-d", "2020-01-02 03:04:05"])
        .arg(&p)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    p
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

#[test]
fn readonly_never_extends_a_short_file() {
    let dir = TempDir::new("ro-extend");
    let f = data_file(&dir, "r.dat", 1 << 20);
    let before = snapshot(&f);
    let o = rfio(
        &dir,
        &["--readonly", "--name=a", "--filename=r.dat", "--size=2m"],
    );
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    // fio's own line (it then reads what is there and fails at the end).
    assert!(
        stderr(&o).contains("fio: refusing extend of file due to read-only\n"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("err=30/func=extend, error=Read-only file system"));
    assert_eq!(snapshot(&f), before, "the file was written");
    assert_eq!(tree(&dir.0), ["r.dat"]);
}

#[test]
fn readonly_never_creates_a_missing_file_or_directory() {
    for extra in [None, Some("--create_on_open=1"), Some("--pre_read=1")] {
        let dir = TempDir::new("ro-missing");
        let mut args = vec![
            "--readonly",
            "--name=a",
            "--filename=sub/m.dat",
            "--size=1m",
        ];
        args.extend(extra);
        let o = rfio(&dir, &args);
        assert_eq!(code(&o), Some(1), "{extra:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("fio: refusing extend of file due to read-only\n"),
            "{extra:?}: {}",
            stderr(&o)
        );
        assert!(
            stderr(&o).contains(
                "err=2/file:filesetup.c:805, func=open(sub/m.dat), error=No such file or directory"
            ),
            "{}",
            stderr(&o)
        );
        assert!(tree(&dir.0).is_empty(), "{extra:?}: {:?}", tree(&dir.0));
    }
}

/// Every option that would change a file is refused before anything is
/// opened (fio runs the engines, `unlink` and `mem=mmap:FILE` under
/// `--readonly`, deleting or creating files).
#[test]
fn readonly_refuses_every_option_that_writes() {
    let cases: &[(&str, &str)] = &[
        ("--rw=write", "rw=write writes"),
        ("--rw=randrw", "rw=randrw writes"),
        ("--rw=trim", "rw=trim writes"),
        ("--rw=trimwrite", "rw=trimwrite writes"),
        ("--ioengine=falloc", "ioengine=falloc changes files"),
        ("--ioengine=ftruncate", "ioengine=ftruncate changes files"),
        ("--ioengine=filecreate", "ioengine=filecreate changes files"),
        ("--ioengine=filedelete", "ioengine=filedelete changes files"),
        ("--unlink=1", "unlink=1 deletes the job's files"),
        ("--unlink_each_loop=1", "unlink_each_loop=1 deletes"),
        ("--fill_device=1", "fill_device=1 lays out files"),
        (
            "--mem=mmap:buf.mem",
            "mem=...:buf.mem creates and sizes buf.mem",
        ),
    ];
    for (opt, why) in cases {
        let dir = TempDir::new("ro-refuse");
        let f = data_file(&dir, "r.dat", 1 << 20);
        let before = snapshot(&f);
        let o = rfio(
            &dir,
            &[
                "--readonly",
                "--name=a",
                "--filename=r.dat",
                "--size=1m",
                opt,
            ],
        );
        assert_eq!(code(&o), Some(1), "{opt}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(why) && stderr(&o).contains("--readonly forbids every write"),
            "{opt}: {}",
            stderr(&o)
        );
        assert_eq!(snapshot(&f), before, "{opt}: the file changed");
        assert_eq!(tree(&dir.0), ["r.dat"], "{opt}");
    }
}

/// What `--readonly` allows runs and leaves the file as it was.
#[test]
fn readonly_reads_leave_the_file_alone() {
    for extra in [
        "--pre_read=1",
        "--rw=randread",
        "--ioengine=mmap",
        "--verify=crc32c",
    ] {
        let dir = TempDir::new("ro-read");
        let f = data_file(&dir, "r.dat", 1 << 20);
        let before = snapshot(&f);
        let o = rfio(
            &dir,
            &[
                "--readonly",
                "--name=a",
                "--filename=r.dat",
                "--size=1m",
                extra,
            ],
        );
        // verify finds no headers in data it did not write: an error, but
        // a read-only one.
        if extra != "--verify=crc32c" {
            assert_eq!(code(&o), Some(0), "{extra}: {}", stderr(&o));
        }
        assert_eq!(snapshot(&f), before, "{extra}: the file changed");
        assert_eq!(tree(&dir.0), ["r.dat"], "{extra}");
    }
}

#[test]
fn readonly_is_part_of_the_plan() {
    let p = common::plan(&["--readonly", "--name=a", "--size=1m", "--numjobs=2"]);
    assert!(p.jobs.iter().all(|j| j.readonly));
    let p = common::plan(&["--name=a", "--size=1m"]);
    assert!(!p.jobs[0].readonly);
}

/// The files rfio creates with `args` in a fresh directory holding `D`
/// (and `x/y/D`), as paths relative to that directory.
fn created(bin: &str, args: &[&str]) -> Vec<String> {
    let dir = TempDir::new("dir-join");
    std::fs::create_dir_all(dir.file("x/y/D")).unwrap();
    std::fs::create_dir_all(dir.file("D2")).unwrap();
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("@", &dir.0.display().to_string()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = common::run_in(bin, &dir, &args);
    assert_eq!(code(&o), Some(0), "{bin} {args:?}: {}", stderr(&o));
    // The temp dir's own path, where it shows inside a name, as `@`.
    let own = dir.0.display().to_string();
    tree(&dir.0)
        .into_iter()
        .filter(|p| std::fs::metadata(dir.file(p)).unwrap().is_file())
        .map(|p| p.replace(own.trim_start_matches('/'), "@"))
        .collect()
}

const JOIN_CASES: &[&[&str]] = &[
    // An absolute filename= goes under the directory, as fio joins it.
    &["--directory=@/x/y/D", "--filename=@/abs.dat"],
    &["--directory=@/x/y/D", "--filename_format=/abs/$jobname"],
    // A device name is a name like any other: a regular file under D.
    &["--directory=@/x/y/D", "--filename=/dev/null"],
    // fio does not stop `..`; neither does rfio.
    &["--directory=@/x/y/D", "--filename=/abs/x:../../esc"],
    // filename= lists go under the first directory ...
    &["--directory=@/x/y/D:@/D2", "--filename=/p:q"],
    // ... generated names under the clone's.
    &["--directory=@/x/y/D:@/D2", "--nrfiles=2", "--numjobs=3"],
];

#[test]
fn directory_holds_every_file_as_fio_joins_it() {
    let expected: &[&[&str]] = &[
        &["x/y/D/@/abs.dat"],
        &["x/y/D/abs/a"],
        &["x/y/D/dev/null"],
        &["x/esc", "x/y/D/abs/x"],
        &["x/y/D/p", "x/y/D/q"],
        &[
            "D2/a.1.0",
            "D2/a.1.1",
            "x/y/D/a.0.0",
            "x/y/D/a.0.1",
            "x/y/D/a.2.0",
            "x/y/D/a.2.1",
        ],
    ];
    for (case, want) in JOIN_CASES.iter().zip(expected) {
        let mut args = vec!["--name=a", "--size=64k", "--output-format=terse"];
        args.extend_from_slice(case);
        assert_eq!(created(common::RFIO, &args), *want, "{case:?}");
    }
}

#[test]
fn directory_joining_matches_fio() {
    let fio = common::real_fio();
    for case in JOIN_CASES {
        let mut args = vec!["--name=a", "--size=64k", "--output-format=terse"];
        args.extend_from_slice(case);
        assert_eq!(
            created(common::RFIO, &args),
            created(fio, &args),
            "{case:?}"
        );
    }
}

#[test]
fn an_absolute_filename_never_overwrites_a_file_outside_the_directory() {
    let dir = TempDir::new("dir-abs");
    std::fs::create_dir(dir.file("D")).unwrap();
    let outside = data_file(&dir, "outside.dat", 4096);
    let before = snapshot(&outside);
    let d = dir.dir_arg() + "/D";
    let f = dir.arg("outside.dat");
    let o = rfio(&dir, &["--name=a", &d, &f, "--size=64k", "--rw=write"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(snapshot(&outside), before);
    let inside = dir.file("D").join(outside.strip_prefix("/").unwrap());
    assert_eq!(std::fs::metadata(inside).unwrap().len(), 64 << 10);
}

#[test]
fn a_directory_that_is_a_symbolic_link_is_refused_as_fio() {
    let dir = TempDir::new("dir-link");
    std::fs::create_dir(dir.file("D")).unwrap();
    std::os::unix::fs::symlink(dir.file("D"), dir.file("link")).unwrap();
    let d = dir.dir_arg() + "/link";
    let o = rfio(&dir, &["--name=a", &d, "--size=64k"]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("{}/link is not a directory", dir.0.display())),
        "{}",
        stderr(&o)
    );
    assert_eq!(tree(&dir.0), ["D", "link"]);
    if let Some(fio) = common::fio() {
        let o = common::run_in(fio, &dir, &["--name=a", &d, "--size=64k"]);
        assert_eq!(code(&o), Some(1));
        assert!(stderr(&o).contains("link is not a directory"));
    }
}

#[test]
fn file_lists_without_a_name_are_errors_not_panics() {
    let dir = TempDir::new("colons");
    for list in [":", "::", " : "] {
        let f = format!("--filename={list}");
        let o = rfio(&dir, &["--name=a", &f, "--size=64k"]);
        assert_eq!(code(&o), Some(1), "{list:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("job 'a': filename='{list}' names no file")),
            "{list:?}: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"));
    }
    assert!(tree(&dir.0).is_empty());
}

#[test]
fn io_memory_that_cannot_be_had_is_enomem_not_an_abort() {
    let dir = TempDir::new("enomem");
    // 10^8 buffers of 1 GiB: more than any address space.
    let o = rfio(
        &dir,
        &[
            "--name=a",
            "--ioengine=null",
            "--iodepth=100000000",
            "--bs=1g",
            "--size=1g",
        ],
    );
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "err=12/file:memory.c:332, func=iomem allocation, error=Cannot allocate memory"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_random_map_that_cannot_be_had_is_an_error_not_an_abort() {
    let dir = TempDir::new("axmap");
    // 2^53 blocks: a map of 2^50 bytes.
    let o = rfio(
        &dir,
        &[
            "--name=a",
            "--ioengine=null",
            "--size=4096p",
            "--bs=512",
            "--rw=randread",
        ],
    );
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("failed allocating random map"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_path_through_a_regular_file_says_so_without_c_locations() {
    let dir = TempDir::new("enotdir");
    dir.write("plain", "x");
    let f = dir.arg("plain/x");
    let o = rfio(&dir, &["--name=a", &f, "--size=64k"]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.starts_with("fio: pid="))
        .unwrap_or_else(|| panic!("no error line: {err}"));
    assert!(
        line.ends_with(", err=20/func=fstat, error=Not a directory"),
        "{line}"
    );
    assert!(!err.contains("filesetup.c"), "{err}");
}

#[test]
fn a_directory_that_cannot_be_created_says_so() {
    let dir = TempDir::new("mkdir");
    // /proc holds no directories of ours: mkdir fails, nothing is made.
    let name = format!("/proc/rfio-safety-{}/sub/f", std::process::id());
    let f = format!("--filename={name}");
    let o = rfio(&dir, &["--name=a", &f, "--size=64k"]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    let want = format!(
        "fio: failed to create dir (/proc/rfio-safety-{}): ",
        std::process::id()
    );
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    assert!(!stderr(&o).contains("free space"), "{}", stderr(&o));
}

/// A write job without `overwrite` writes `io_size`, not `size`: the free
/// space check asks for that much (it refused this job, which fio runs).
#[test]
fn free_space_check_counts_what_a_write_job_writes() {
    let dir = TempDir::new("space");
    let Some(_fs) = common::need("tmpfs", Tmpfs::mount(&dir, 13)) else {
        return;
    };
    let o = rfio(
        &dir,
        &[
            "--name=a",
            "--filename=f",
            "--rw=write",
            "--size=64m",
            "--io_size=4m",
        ],
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("WRITE: bw="), "{}", stdout(&o));
    assert_eq!(std::fs::metadata(dir.file("f")).unwrap().len(), 4 << 20);
    // What does not fit is still refused before anything is written.
    let o = rfio(
        &dir,
        &["--name=b", "--filename=g", "--rw=read", "--size=64m"],
    );
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not enough free space"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.file("g").exists());
}

/// SIGINT while a file is laid out stops the layout, removes the partial
/// file and ends the run with status 128, as fio.
#[test]
fn sigint_during_layout_stops_and_removes_the_partial_file() {
    let dir = TempDir::new("sigint-layout");
    let big = dir.file("big.dat");
    let mut child = Command::new(common::RFIO)
        .current_dir(&dir)
        .args(["--name=a", "--filename=big.dat", "--size=4g", "--rw=read"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // rfio says the layout starts as fio does, before the first byte; it
    // is under way once the file has data.
    let mut stdout_pipe = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = std::io::Read::read(&mut stdout_pipe, &mut buf) {
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
            let _ = tx.send(String::from_utf8_lossy(&all).into_owned());
        }
        all
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("rfio printed no layout line");
        if seen.contains("a: Laying out IO file (1 file / 4096MiB)\n") {
            break;
        }
    }
    while !std::fs::metadata(&big).is_ok_and(|m| m.blocks() > 0) {
        assert!(Instant::now() < deadline, "no layout began");
        assert!(child.try_wait().unwrap().is_none(), "rfio ended early");
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: kill only sends a signal to our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let sent = Instant::now();
    let o = child.wait_with_output().unwrap();
    let took = sent.elapsed();
    let out = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    assert_eq!(code(&o), Some(128), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("fio: terminating on signal 2"),
        "rfio's on stderr: {}",
        stderr(&o)
    );
    assert!(!out.contains("terminating"), "{out}");
    assert_eq!(out.matches("Laying out IO file").count(), 1, "{out}");
    assert!(!big.exists(), "the partial file was left");
    // fio stops within a chunk; a generous bound for a loaded machine
    // (the old layout ran to its end: 4 GiB).
    assert!(took < Duration::from_secs(20), "{took:?}");
}
