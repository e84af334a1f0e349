//! Helpers the integration tests share: a plan from a command line, and a
//! temporary directory that cleans up after itself.
#![allow(dead_code)] // each test file uses some of these

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rfio::cli::args::Args;
use rfio::plan::Plan;

/// The command line `argv` (program name excluded), read.
pub fn args<S: AsRef<str>>(argv: &[S]) -> Args {
    let argv: Vec<String> = argv.iter().map(|s| s.as_ref().to_string()).collect();
    rfio::cli::args::parse(&argv).expect("command line parses")
}

/// The plan of a command-line-only invocation; the front end must accept it.
pub fn plan<S: AsRef<str>>(argv: &[S]) -> Plan {
    let fe = rfio::plan::build(
        &args(argv),
        &[],
        &rfio::jobfile::subst::Keywords::from_system(),
    );
    assert!(fe.diags.is_empty(), "front end diagnostics: {}", fe.diags);
    fe.plan
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p = std::env::temp_dir().join(format!("rfio-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    /// The path of `name` inside the directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// `--filename=` for `name` inside the directory.
    pub fn arg(&self, name: &str) -> String {
        format!("--filename={}", self.file(name).display())
    }

    /// `--directory=` for the directory.
    pub fn dir_arg(&self) -> String {
        format!("--directory={}", self.0.display())
    }

    /// Write `text` to `name` inside the directory; its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.file(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The rfio binary built for these tests.
pub const RFIO: &str = env!("CARGO_BIN_EXE_rfio");

/// Run `bin` (rfio or fio) with `args` in `dir`.
pub fn run_in(bin: &str, dir: impl AsRef<Path>, args: &[&str]) -> Output {
    Command::new(bin)
        .current_dir(dir.as_ref())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{bin} runs: {e}"))
}

/// Run rfio with `args` in `dir`.
pub fn rfio(dir: impl AsRef<Path>, args: &[&str]) -> Output {
    run_in(RFIO, dir, args)
}

/// Real fio, when installed (else the comparisons with it are skipped,
/// saying so).
pub fn fio() -> Option<&'static str> {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("fio is not installed: skipping the comparison with fio");
    }
    ok.then_some("fio")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
