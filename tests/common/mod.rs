//! Helpers the integration tests share: a plan from a command line, and a
//! temporary directory that cleans up after itself.
#![allow(dead_code)] // each test file uses some of these

use std::path::PathBuf;

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

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
