//! Conformance against real fio 3.33: runs the `rfio-conformance` tool over fio's own example job
//! files and our corpus in jobfiles/, comparing rfio with fio (and, as a check of the tool and
//! the corpus, fio with itself). Needs real fio installed; fails, never skips, without it.

use std::path::{Path, PathBuf};
use std::process::Command;

const NEED_FIO: &str =
    "real fio 3.33 is needed for conformance tests: apt-get install -y fio fio-examples";

/// The real fio on PATH, with its example job files; panics with the install hint otherwise.
fn real_fio() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let fio = std::env::split_paths(&path)
        .map(|dir| dir.join("fio"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("{NEED_FIO} (no fio on PATH)"));
    let version = Command::new(&fio)
        .arg("--version")
        .output()
        .unwrap_or_else(|err| panic!("{NEED_FIO} ({} does not run: {err})", fio.display()));
    assert!(
        version.status.success() && version.stdout.starts_with(b"fio-"),
        "{NEED_FIO} ({} --version: {:?})",
        fio.display(),
        String::from_utf8_lossy(&version.stdout)
    );
    assert!(
        Path::new("/usr/share/doc/fio/examples").is_dir(),
        "{NEED_FIO} (no /usr/share/doc/fio/examples)"
    );
    fio
}

/// Runs the tool comparing `fio` with `rfio` on fio's examples and jobfiles/, and asserts that
/// they agree everywhere, showing the tool's report otherwise.
fn assert_conforms(fio: &Path, rfio: &Path) {
    let jobfiles = Path::new(env!("CARGO_MANIFEST_DIR")).join("jobfiles");
    let output = Command::new(env!("CARGO_BIN_EXE_rfio-conformance"))
        .arg("--fio")
        .arg(fio)
        .arg("--rfio")
        .arg(rfio)
        .arg("--examples")
        .arg(&jobfiles)
        .output()
        .expect("run rfio-conformance");
    assert!(
        output.status.success(),
        "rfio-conformance --rfio {} reports differences ({}):\n{}\n{}",
        rfio.display(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn rfio_agrees_with_fio() {
    let fio = real_fio();
    assert_conforms(&fio, Path::new(env!("CARGO_BIN_EXE_rfio")));
}

/// fio compared with itself must agree everywhere: this checks the tool (fresh directories, same
/// environment, exact comparison) and that every corpus file gives fio a deterministic answer.
#[test]
fn fio_agrees_with_itself() {
    let fio = real_fio();
    assert_conforms(&fio, &fio);
}
