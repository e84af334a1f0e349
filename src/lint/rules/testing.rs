//! What the rules' tests share: a fake machine and the rules found for a
//! job on it.

use std::path::Path;

use super::super::{lint_with, FsInfo, Host, Unwritten};
use super::check;
use crate::plan::testing::plan;

/// A machine with 16 GiB, the targets on an ext4 that is not `/`.
pub(crate) struct Fake {
    pub(crate) fs: FsInfo,
    pub(crate) block: bool,
    /// What [`Host::unwritten`] says of every file.
    pub(crate) unwritten: Option<Unwritten>,
}

impl Default for Fake {
    fn default() -> Fake {
        Fake {
            fs: FsInfo {
                fs_type: 0xef53,
                is_root: false,
                avail: 1 << 40,
                logical_block: Some(4096),
                nr_requests: Some(64),
            },
            block: false,
            unwritten: None,
        }
    }
}

impl Host for Fake {
    fn mem_total(&self) -> Option<u64> {
        Some(16 << 30)
    }
    fn fs(&self, _: &Path) -> Option<FsInfo> {
        Some(self.fs)
    }
    fn is_block_device(&self, _: &Path) -> bool {
        self.block
    }
    fn unwritten(&self, _: &Path, _: u64, _: u64) -> Option<Unwritten> {
        self.unwritten
    }
}

/// The rules found for the job of `args` (after a `--name=j`).
pub(crate) fn rules_on(host: &Fake, args: &[&str]) -> Vec<&'static str> {
    let mut argv = vec!["--name=j", "--filename=/x/f"];
    argv.extend_from_slice(args);
    let p = plan(&argv);
    check(&p, 0, host).iter().map(|f| f.rule).collect()
}

/// The findings of the whole plan of `argv` (several jobs), as `(rule,
/// the jobs it names)`.
pub(crate) fn findings(host: &Fake, argv: &[&str]) -> Vec<(&'static str, Vec<String>)> {
    let p = plan(argv);
    let found = lint_with(&p, host, &[]);
    found.into_iter().map(|f| (f.rule, f.jobs)).collect()
}

/// A job that no rule finds fault with on [`Fake`].
pub(crate) const CLEAN: &[&str] = &[
    "--ioengine=libaio",
    "--direct=1",
    "--iodepth=8",
    "--rw=randread",
    "--size=64g",
    "--bs=4k",
];

/// The rules found for [`CLEAN`] plus `extra`.
pub(crate) fn with(extra: &[&str]) -> Vec<&'static str> {
    with_host(&Fake::default(), extra)
}

/// [`with`] on `host`.
pub(crate) fn with_host(host: &Fake, extra: &[&str]) -> Vec<&'static str> {
    let mut args = CLEAN.to_vec();
    args.extend_from_slice(extra);
    rules_on(host, &args)
}
