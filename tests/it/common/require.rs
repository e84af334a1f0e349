//! What a test needs from the machine (an ioengine the kernel must start,
//! root, a loop device, ...). A test never skips silently: when what it
//! needs is missing, it fails with the reason, unless the environment
//! variable `RFIO_TEST_NO_<WHAT>=1` says that this machine lacks it; then
//! it says that it was skipped by that variable and passes.

use rfio::api::{lookup_engine, CommonOptions, EngineSpec, IoMem};

/// The variable that marks this machine as lacking `what`
/// (`io_uring` → `RFIO_TEST_NO_IO_URING`).
pub fn skip_var(what: &str) -> String {
    let key: String = what
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() {
            true => c.to_ascii_uppercase(),
            false => '_',
        })
        .collect();
    format!("RFIO_TEST_NO_{key}")
}

/// Whether the test goes on: `missing` is why `what` is not here (`None`:
/// it is). Panics with the reason, unless [`skip_var`]`(what)` is `1`: then
/// it prints that the test is skipped by that variable and returns false.
pub fn require(what: &str, missing: Option<String>) -> bool {
    let Some(why) = missing else {
        return true;
    };
    let var = skip_var(what);
    if std::env::var(&var).is_ok_and(|v| v == "1") {
        println!("skipped by {var}=1: {what} is missing here: {why}");
        return false;
    }
    panic!("{what} is needed and missing here: {why} (set {var}=1 on a machine without it)");
}

/// The value of `got`, or (see [`require`]) a panic with its error, or
/// `None` where [`skip_var`]`(what)` is `1`:
/// `let Some(dev) = need("loop", LoopDevice::new(..)) else { return };`.
pub fn need<T>(what: &str, got: Result<T, String>) -> Option<T> {
    match got {
        Ok(v) => Some(v),
        Err(why) => {
            require(what, Some(why));
            None
        }
    }
}

/// Whether the kernel lets `engine` start here with `depth` (its
/// `io_setup`, `io_uring_setup`, ...): see [`require`], with the kernel's
/// error text as the reason.
pub fn require_engine(engine: &str, depth: u32) -> bool {
    let def = lookup_engine(engine).expect("registered");
    let mut spec = EngineSpec::default();
    spec.common = CommonOptions {
        iodepth: depth,
        ..CommonOptions::default()
    };
    let refused = (def.new)(&spec, IoMem::NONE, None).err();
    require(
        engine,
        refused.map(|e| format!("the kernel cannot start it: {e}")),
    )
}

/// Whether the test runs as root: see [`require`] (`RFIO_TEST_NO_ROOT`).
pub fn require_root(for_what: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    require(
        "root",
        (!root).then(|| format!("{for_what} needs root, and the tests run as a user")),
    )
}
