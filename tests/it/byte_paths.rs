//! File names are bytes on Linux: a name that is not UTF-8, on the command
//! line or in a job file, names exactly the file fio 3.33 opens (fio uses
//! the bytes as given), and an error that quotes it shows the bytes
//! escaped (`\xff`), never as U+FFFD.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{self, real_fio, TempDir};

fn os(bytes: &[u8]) -> OsString {
    OsString::from_vec(bytes.to_vec())
}

/// Run `bin` with `args` (any bytes) in `dir`.
fn run(bin: &str, dir: &Path, args: &[&[u8]]) -> Output {
    run_as(bin, dir, None, args)
}

/// [`run`], rfio as fio `release` when given (fio ignores the variable).
fn run_as(bin: &str, dir: &Path, release: Option<&str>, args: &[&[u8]]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.current_dir(dir)
        .args(args.iter().map(|a| OsStr::from_bytes(a)));
    if let Some(r) = release {
        cmd.env("RFIO_FIO_VERSION", r);
    }
    let (out, killed) = common::output_within(&mut cmd, common::RUN_LIMIT);
    assert!(!killed, "{bin} {args:?} ran past {:?}", common::RUN_LIMIT);
    out
}

/// The names in `dir`, as bytes, sorted.
fn names(dir: &Path) -> Vec<Vec<u8>> {
    let mut all: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    all.sort();
    all
}

fn exit(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        common::stdout(o),
        common::stderr(o)
    );
}

/// rfio and fio, each in a fresh directory holding `files`, run with
/// `args`: both succeed and leave the same names; rfio's directory.
fn same_files_as_fio(tag: &str, files: &[(&[u8], &[u8])], args: &[&[u8]]) -> TempDir {
    let fio_dir = TempDir::new(&format!("{tag}-fio"));
    let rfio_dir = TempDir::new(tag);
    for dir in [&fio_dir, &rfio_dir] {
        for (name, text) in files {
            std::fs::write(dir.0.join(os(name)), text).unwrap();
        }
    }
    let fio = run(real_fio(), &fio_dir.0, args);
    exit(&fio, 0);
    // As the fio 3.33 it is compared with.
    let rfio = run_as(common::RFIO, &rfio_dir.0, Some("3.33"), args);
    exit(&rfio, 0);
    assert_eq!(names(&rfio_dir.0), names(&fio_dir.0));
    rfio_dir
}

#[test]
fn a_filename_that_is_not_utf8_on_the_command_line_is_the_file_created() {
    let args: &[&[u8]] = &[
        b"--name=x",
        b"--filename=a\xffb",
        b"--size=4k",
        b"--rw=write",
        b"--output-format=json",
    ];
    let dir = same_files_as_fio("bytes-cmdline", &[], args);
    assert_eq!(names(&dir.0), [b"a\xffb".to_vec()]);
    assert_eq!(
        std::fs::metadata(dir.0.join(os(b"a\xffb"))).unwrap().len(),
        4096
    );
    // The report is UTF-8 (fio prints the raw byte, which is not JSON):
    // the byte shown as U+FFFD.
    let o = run(common::RFIO, &dir.0, args);
    exit(&o, 0);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(report["jobs"][0]["job options"]["filename"], "a\u{fffd}b");
}

#[test]
fn a_filename_that_is_not_utf8_in_a_job_file_is_the_file_created() {
    let job: &[u8] = b"[x]\nfilename=c\xffd\nsize=4k\nrw=write\n";
    let dir = same_files_as_fio("bytes-jobfile", &[(b"j.fio", job)], &[b"j.fio"]);
    assert_eq!(names(&dir.0), [b"c\xffd".to_vec(), b"j.fio".to_vec()]);
    assert_eq!(
        std::fs::metadata(dir.0.join(os(b"c\xffd"))).unwrap().len(),
        4096
    );
}

#[test]
fn an_include_that_is_not_utf8_is_read_and_its_filename_created() {
    let job: &[u8] = b"[x]\ninclude i\xff.inc\n";
    let inc: &[u8] = b"size=4k\nrw=write\nfilename=n\xfe\n";
    let dir = same_files_as_fio(
        "bytes-include",
        &[(b"j.fio", job), (b"i\xff.inc", inc)],
        &[b"j.fio"],
    );
    assert!(names(&dir.0).contains(&b"n\xfe".to_vec()));
}

#[test]
fn a_directory_that_is_not_utf8_holds_the_files() {
    let dir = TempDir::new("bytes-directory");
    let args: &[&[u8]] = &[
        b"--name=y",
        b"--directory=d\xffe",
        b"--filename_format=f\xfe.$jobnum",
        b"--size=4k",
        b"--rw=write",
    ];
    // Missing: the error shows the bytes.
    let o = run(common::RFIO, &dir.0, args);
    exit(&o, 1);
    assert_eq!(
        common::stderr(&o),
        "rfio: command line argument 1: job 'y': d\\xffe is not a directory \
         (fio: failed parsing directory=d\\xffe)\n"
    );
    std::fs::create_dir(dir.0.join(os(b"d\xffe"))).unwrap();
    let o = run(common::RFIO, &dir.0, args);
    exit(&o, 0);
    assert_eq!(names(&dir.0.join(os(b"d\xffe"))), [b"f\xfe.0".to_vec()]);
}

#[test]
fn opendir_that_is_not_utf8_finds_files_that_are_not() {
    let dir = TempDir::new("bytes-opendir");
    let sub = dir.0.join(os(b"o\xffp")).join(os(b"q\xfe"));
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join(os(b"f\xfd")), b"hi\n").unwrap();
    let o = run(
        common::RFIO,
        &dir.0,
        &[
            b"--name=z",
            b"--opendir=o\xffp",
            b"--rw=read",
            b"--size=3",
            b"--bs=1",
            b"--output-format=json",
        ],
    );
    exit(&o, 0);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(report["jobs"][0]["read"]["io_bytes"], 3);
}

#[test]
fn a_job_file_name_that_is_not_utf8_is_shown_escaped() {
    let dir = TempDir::new("bytes-jobname");
    let o = run(common::RFIO, &dir.0, &[b"bad\xff.fio"]);
    exit(&o, 1);
    assert_eq!(
        common::stderr(&o),
        "rfio: unable to open 'bad\\xff.fio' job file: No such file or directory\n"
    );
    std::fs::write(dir.0.join(os(b"bad\xff.fio")), "[x]\nbogus=1\n").unwrap();
    let o = run(common::RFIO, &dir.0, &[b"bad\xff.fio"]);
    exit(&o, 1);
    assert_eq!(
        common::stderr(&o),
        "rfio: bad\\xff.fio:2:1: job 'x': unknown option 'bogus' (did you mean 'bs'?)\n"
    );
}

#[test]
fn include_errors_show_bytes_and_control_characters_escaped() {
    let dir = TempDir::new("bytes-include-error");
    std::fs::write(dir.0.join("j.fio"), b"[x]\ninclude i\xff\x1b.inc\n").unwrap();
    let o = run(common::RFIO, &dir.0, &[b"j.fio"]);
    exit(&o, 1);
    let err = common::stderr(&o);
    assert!(
        err.starts_with(
            "rfio: j.fio:2:1: cannot include 'i\\xff\\x1b.inc': No such file or directory;"
        ),
        "{err}"
    );
}

#[test]
fn bytes_that_are_not_utf8_elsewhere_are_refused() {
    let dir = TempDir::new("bytes-refused");
    // A log's name: rfio would not create it with the bytes given.
    let o = run(
        common::RFIO,
        &dir.0,
        &[
            b"--name=y",
            b"--write_bw_log=l\xff",
            b"--size=4k",
            b"--rw=write",
        ],
    );
    exit(&o, 1);
    assert_eq!(
        common::stderr(&o),
        "rfio: command line argument 2: job 'y': bad value for option 'write_bw_log' \
         ('l\\xff'): it is not UTF-8 text; rfio takes bytes that are not UTF-8 only in \
         filename=, directory=, filename_format=, opendir=, description=\n"
    );
    // A job's name (it names its logs and state files too).
    std::fs::write(dir.0.join("m.fio"), b"[m\xff]\nsize=4k\n").unwrap();
    let o = run(common::RFIO, &dir.0, &[b"m.fio"]);
    exit(&o, 1);
    assert_eq!(
        common::stderr(&o),
        "rfio: m.fio:1:1: job 'm\\xff': the job name is not UTF-8 text; rfio takes bytes \
         that are not UTF-8 only in filename=, directory=, filename_format=, opendir=, \
         description=\n"
    );
    assert_eq!(names(&dir.0), [b"m.fio".to_vec()]);
}
