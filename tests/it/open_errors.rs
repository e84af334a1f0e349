//! A job whose file cannot be opened or laid out, against real fio 3.33:
//! the same `fio: ` lines (fio's `td_verror` place only where it is fio's
//! own for that failure), the same exit status. rfio prints on stderr what
//! fio prints on stdout among its report (conformance/README.md).
//!
//! Also: setup errors say `fio:` once.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Output};

use common::{real_fio, run_in, stderr, stdout, TempDir};

/// Whether this test runs as root (then the permission cases run as user
/// nobody, whom permissions do bind).
fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Run `bin` with `args` in `dir`, as user nobody when `as_nobody` and the
/// test is root.
fn run(bin: &str, dir: &TempDir, args: &[&str], as_nobody: bool) -> Output {
    if as_nobody && root() {
        let mut all = vec!["--reuid=65534", "--regid=65534", "--clear-groups", bin];
        all.extend_from_slice(args);
        run_in("setpriv", &dir.0, &all)
    } else {
        run_in(bin, &dir.0, args)
    }
}

/// The `fio: ` lines of a run, stdout's then stderr's, the pid of
/// `fio: pid=N,` made `PID` unless it is 0 (a job that never started).
fn fio_lines(o: &Output) -> Vec<String> {
    let text = stdout(o) + &stderr(o);
    text.lines()
        .filter(|l| l.starts_with("fio: "))
        .map(|l| match l.strip_prefix("fio: pid=") {
            Some(rest) if !rest.starts_with("0,") => {
                let tail = rest.split_once(',').map_or("", |(_, t)| t);
                format!("fio: pid=PID,{tail}")
            }
            _ => l.to_string(),
        })
        .collect()
}

/// rfio and fio with `args` print the same `fio: ` lines (rfio all on
/// stderr), and exit alike; the lines, for the caller to check.
fn same_as_fio(dir: &TempDir, args: &[&str], as_nobody: bool) -> Vec<String> {
    let fio = run(real_fio(), dir, args, as_nobody);
    let rfio = run(common::RFIO, dir, args, as_nobody);
    let (mut want, mut got) = (fio_lines(&fio), fio_lines(&rfio));
    want.sort();
    got.sort();
    assert_eq!(
        got,
        want,
        "{args:?}\nrfio stdout:\n{}\nrfio stderr:\n{}\nfio stdout:\n{}\nfio stderr:\n{}",
        stdout(&rfio),
        stderr(&rfio),
        stdout(&fio),
        stderr(&fio)
    );
    assert_eq!(rfio.status.code(), fio.status.code(), "{args:?}");
    // The layout line too, announced before the layout failed.
    let layout = |o: &Output| -> Vec<String> {
        stdout(o)
            .lines()
            .filter(|l| l.contains(": Laying out IO file"))
            .map(String::from)
            .collect()
    };
    assert_eq!(layout(&rfio), layout(&fio), "{args:?}");
    assert!(
        !stdout(&rfio).lines().any(|l| l.starts_with("fio: ")),
        "rfio keeps fio's lines off stdout: {}",
        stdout(&rfio)
    );
    got
}

fn has(lines: &[String], line: &str) {
    assert!(lines.iter().any(|l| l == line), "no {line:?} in {lines:#?}");
}

#[test]
fn readonly_with_a_missing_parent_fails_the_open() {
    let dir = TempDir::new("oe-ro");
    let f = dir.file("nodir/f");
    let name = format!("--filename={}", f.display());
    let lines = same_as_fio(
        &dir,
        &["--name=a", &name, "--rw=read", "--size=1m", "--readonly"],
        false,
    );
    has(&lines, "fio: refusing extend of file due to read-only");
    has(
        &lines,
        &format!(
            "fio: pid=PID, err=2/file:filesetup.c:805, func=open({}), error=No such file or directory",
            f.display()
        ),
    );
    // fio creates the missing directory even so; rfio creates nothing.
    let dir = TempDir::new("oe-ro-rfio");
    let name = format!("--filename={}", dir.file("nodir/f").display());
    let o = run(
        common::RFIO,
        &dir,
        &["--name=a", &name, "--rw=read", "--size=1m", "--readonly"],
        false,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        !dir.file("nodir").exists(),
        "nothing created under --readonly"
    );
}

#[test]
fn a_file_that_cannot_be_unlinked_for_its_layout() {
    let dir = TempDir::new("oe-proc");
    let lines = same_as_fio(
        &dir,
        &[
            "--name=a",
            "--filename=/proc/version",
            "--rw=write",
            "--size=1m",
        ],
        false,
    );
    has(
        &lines,
        "fio: pid=0, err=1/file:filesetup.c:150, func=unlink, error=Operation not permitted",
    );
}

/// A file nobody may read or write, opened by each engine that opens
/// files: fio names its own place per engine.
#[test]
fn a_file_without_permission_fails_each_engines_open() {
    let dir = TempDir::new("oe-perm");
    let f = dir.file("noperm");
    std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).unwrap();
    let name = format!("--filename={}", f.display());
    for (engine, rw, line) in [
        ("psync", "read", "filesetup.c:805, func=open"),
        ("sync", "write", "filesetup.c:805, func=open"),
        ("libaio", "randread", "filesetup.c:805, func=open"),
        ("mmap", "read", "filesetup.c:805, func=open"),
        // fio's falloc goes on after its failed open and prints
        // `fio: cache invalidation of PATH failed: Bad file descriptor`.
        ("falloc", "write", "engines/falloc.c:45, func=open"),
        (
            "filecreate",
            "write",
            "engines/fileoperations.c:91, func=open",
        ),
    ] {
        let engine_arg = format!("--ioengine={engine}");
        let rw_arg = format!("--rw={rw}");
        let lines = same_as_fio(
            &dir,
            &["--name=a", &name, &engine_arg, &rw_arg, "--size=64k"],
            true,
        );
        has(
            &lines,
            &format!(
                "fio: pid=PID, err=13/file:{line}({}), error=Permission denied",
                f.display()
            ),
        );
        assert!(
            !lines.iter().any(|l| l.starts_with("fio: open(")),
            "{engine}: no extra open line: {lines:#?}"
        );
    }
}

/// fio opens a character device read-write for a job that only reads
/// (unless `--readonly`): a device node that nobody may write fails a
/// reader's open with EACCES (fio 3.33's line), and under `--readonly`
/// opens read-only and is read. The node is /dev/zero's (1, 5), mode
/// 0444, made here.
#[test]
fn a_character_device_is_opened_read_write_by_a_reader_as_fio() {
    if !root() {
        println!("skipped: mknod needs root");
        return;
    }
    let dir = TempDir::new("oe-chr");
    std::fs::set_permissions(&dir.0, std::fs::Permissions::from_mode(0o755)).unwrap();
    let node = dir.file("zero");
    let c = std::ffi::CString::new(node.to_str().unwrap()).unwrap();
    // SAFETY: `c` is NUL-terminated; mknod takes no other pointer.
    let r = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o444, libc::makedev(1, 5)) };
    assert_eq!(r, 0, "mknod {node:?}: {}", std::io::Error::last_os_error());
    std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o444)).unwrap();
    let name = format!("--filename={}", node.display());
    let args = ["--name=a", &name, "--rw=read", "--bs=4k", "--size=64k"];
    let lines = same_as_fio(&dir, &args, true);
    has(
        &lines,
        &format!(
            "fio: pid=PID, err=13/file:filesetup.c:805, func=open({}), error=Permission denied",
            node.display()
        ),
    );
    let mut ro = vec!["--readonly", "--output-format=terse"];
    ro.extend_from_slice(&args);
    let out = run(common::RFIO, &dir, &ro, true);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let terse = stdout(&out);
    let f: Vec<&str> = terse.trim().split(';').collect();
    assert_eq!((f[4], f[5]), ("0", "64"), "no error, 64 KiB read: {terse}");
}

/// A missing file in a directory nobody may write: its layout's open
/// fails.
#[test]
fn a_layout_that_cannot_create_its_file() {
    let dir = TempDir::new("oe-rodir");
    let sub = dir.file("ro");
    std::fs::create_dir(&sub).unwrap();
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o555)).unwrap();
    let name = format!("--filename={}", sub.join("f").display());
    let lines = same_as_fio(&dir, &["--name=a", &name, "--rw=read", "--size=1m"], true);
    has(
        &lines,
        "fio: pid=0, err=13/file:filesetup.c:174, func=open, error=Permission denied",
    );
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Setup errors fio words itself are printed once, as fio prints them
/// (they read `fio: job a: fio: ...` before).
#[test]
fn setup_errors_say_fio_once() {
    let dir = TempDir::new("oe-setup");
    for args in [
        &["--name=a", "--size=1m", "--zonemode=none", "--zonesize=1m"][..],
        &["--name=a", "--size=1m", "--zonemode=strided"][..],
        &[
            "--name=a",
            "--size=1m",
            "--nrfiles=2",
            "--file_service_type=zipf:1",
        ][..],
    ] {
        let fio = run_in(real_fio(), &dir.0, args);
        let rfio = run_in(common::RFIO, &dir.0, args);
        assert_eq!(rfio.status.code(), fio.status.code(), "{args:?}");
        // The layout line too, announced before the layout failed.
        let layout = |o: &Output| -> Vec<String> {
            stdout(o)
                .lines()
                .filter(|l| l.contains(": Laying out IO file"))
                .map(String::from)
                .collect()
        };
        assert_eq!(layout(&rfio), layout(&fio), "{args:?}");
        let err = stderr(&rfio);
        let first = stderr(&fio).lines().next().unwrap_or("").to_string();
        assert!(first.starts_with("fio: "), "{args:?}: fio says {first:?}");
        // fio adds `fio: failed parsing file_service_type=zipf:1`, as it
        // refuses the option while parsing; rfio refuses the job later.
        assert_eq!(err.lines().next(), Some(first.as_str()), "{args:?}: {err}");
        for l in err.lines() {
            assert!(
                !l.contains("fio: job") && !l.contains("fio: fio:"),
                "{args:?}: {l}"
            );
        }
    }
}

/// An error rfio words itself says `rfio:`.
#[test]
fn rfios_own_setup_errors_say_rfio() {
    let dir = TempDir::new("oe-own");
    let fifo = dir.file("ff");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let o = run_in(
        common::RFIO,
        &dir.0,
        &["--name=x", "--filename=ff", "--size=1m", "--rw=write"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: command line argument 1: job 'x': failed to get file size of ff: \
         not a regular file or a device\n"
    );
}

/// PerfKitBenchmarker's generated job files: a `filename=` in `[global]`
/// that does not exist, the job's own file, `size=100%`. fio gives the
/// missing file no I/O ("may be ignored") but opens it: the reader fails
/// with ENOENT after its first I/O, and the run exits 1.
#[test]
fn a_missing_file_without_size_fails_a_reader_with_enoent() {
    let args = [
        "--filename=missing",
        "--name=a",
        "--filename=exists",
        "--rw=randread",
        "--bs=8k",
        "--size=100%",
    ];
    let setup = |tag: &str| {
        let dir = TempDir::new(tag);
        std::fs::write(dir.file("exists"), vec![0u8; 1 << 20]).unwrap();
        dir
    };
    let lines = same_as_fio(&setup("oe-ign"), &args, false);
    has(&lines, "fio: file missing may be ignored");
    has(
        &lines,
        "fio: pid=PID, err=2/file:filesetup.c:805, func=open(missing), error=No such file or directory",
    );
    // The job's error, its one I/O, in the JSON and the terse line.
    let mut json = vec!["--output-format=json"];
    json.extend(&args);
    let dir = setup("oe-ign-json");
    let o = run_in(common::RFIO, &dir.0, &json);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let job = &doc["jobs"][0];
    assert_eq!(
        (job["error"].as_i64(), job["read"]["io_bytes"].as_i64()),
        (Some(2), Some(8192))
    );
    // rfio says why on stderr; as fio, only fio's lines, on stdout as fio's.
    let err = stderr(&o);
    assert!(
        err.contains("rfio: command line argument 3: job 'a': file missing has no size"),
        "{err}"
    );
    let mut terse = vec!["--compat=fio", "--minimal"];
    terse.extend(&args);
    let o = run_in(common::RFIO, &setup("oe-ign-fio").0, &terse);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.len() == 3
            && lines[0] == "fio: file missing may be ignored"
            && lines[1].starts_with("fio: pid=")
            && lines[1].ends_with(", func=open(missing), error=No such file or directory")
            && lines[2].starts_with("3;fio-3.33;a;0;2;8;"),
        "{out}"
    );
    assert!(!stderr(&o).contains("rfio:"), "{}", stderr(&o));
}
