//! `fill_device=1` without a size writes until the filesystem is full,
//! then ends without an error, as fio does. Needs a small filesystem: a
//! tmpfs mounted for the test (it fails where mounting is not permitted,
//! unless `RFIO_TEST_NO_TMPFS=1`).

use crate::common;

use common::{TempDir, Tmpfs};

/// Run rfio with `args` and `--directory` of `dir` (killed past the suite's
/// time limit: a fill that never ends would fill the disk under it).
fn run(dir: &TempDir, args: &[&str]) -> std::process::Output {
    let mut argv = args.to_vec();
    let directory = dir.dir_arg();
    argv.push(&directory);
    common::run_in(common::RFIO, &dir.0, &argv)
}

#[test]
fn fill_device_writes_until_enospc_without_error() {
    let dir = TempDir::new("fill");
    let Some(_fs) = common::need("tmpfs", Tmpfs::mount(&dir, 8)) else {
        return;
    };
    let o = run(
        &dir,
        &[
            "--name=fill",
            "--rw=write",
            "--bs=64k",
            "--fill_device=1",
            "--output-format=json",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let file = dir.file("fill.0.0");
    assert_eq!(
        err,
        format!(
            "fio: io_u error on file {}: No space left on device: write offset=8388608, buflen=65536\n",
            file.display()
        )
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let job = &j["jobs"][0];
    assert_eq!(job["error"], 0);
    assert_eq!(job["write"]["io_bytes"], 8 << 20);
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 8 << 20);

    // The normal output announces fio's layout of "-1" bytes.
    std::fs::remove_file(&file).unwrap();
    let o = run(
        &dir,
        &["--name=fill", "--rw=write", "--bs=64k", "--fill_device=1"],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("fill: Laying out IO file (1 file / 17592186044415MiB)\n"),
        "{out}"
    );
    assert!(out.contains("err= 0:"), "{out}");
}

/// A random fill without norandommap would need a map of the whole "-1"
/// size (fio fails to allocate it): refused before any I/O.
#[test]
fn random_fill_needs_norandommap() {
    let dir = TempDir::new("fill-rand");
    let o = run(&dir, &["--name=r", "--rw=randwrite", "--fill_device=1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs norandommap"));
    assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 0);
}
