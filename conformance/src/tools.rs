//! Finding the two binaries: the real fio (which must run) and the rfio under test.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::run::{self, Status};

/// The fio version these comparisons are written against.
pub(crate) const FIO_VERSION: &str = "fio-3.33";

const INSTALL_HINT: &str = "install real fio: apt-get install -y fio fio-examples";

/// The real fio: `given`, or `fio` on PATH. The error is the complete message for the user.
pub(crate) fn locate_fio(given: Option<&Path>) -> Result<PathBuf, String> {
    let wanted = given.unwrap_or(Path::new("fio"));
    let found = if is_bare_name(wanted) {
        find_on_path(wanted).ok_or_else(|| "not found on PATH".to_owned())
    } else if is_executable(wanted) {
        Ok(wanted.to_path_buf())
    } else if wanted.exists() {
        Err("not an executable file".to_owned())
    } else {
        Err("no such file".to_owned())
    };
    found
        .and_then(|path| absolute(&path))
        .map_err(|why| cannot_run_fio(wanted, &why))
}

/// Binaries run with a temporary directory as cwd, so a relative path must be made absolute
/// against ours first.
fn absolute(path: &Path) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|err| err.to_string())
}

/// `fio --version`, e.g. `fio-3.33`. The error is the complete message for the user.
pub(crate) fn fio_version(fio: &Path) -> Result<String, String> {
    let outcome = run::run_in_temp_dir(fio, &["--version".into()], Duration::from_secs(20));
    let stdout = String::from_utf8_lossy(&outcome.stdout);
    let version: String = stdout
        .trim()
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(60)
        .collect();
    match outcome.status {
        Status::Exited(0) if version.starts_with("fio-") => Ok(version),
        Status::Exited(0) => Err(cannot_run_fio(
            fio,
            &format!("`--version` printed {version:?}, which is not a fio version"),
        )),
        status => Err(cannot_run_fio(fio, &format!("`--version` gave {status}"))),
    }
}

fn cannot_run_fio(fio: &Path, why: &str) -> String {
    format!(
        "cannot run fio at '{}': {why} ({INSTALL_HINT})",
        fio.display()
    )
}

/// The rfio under test: `given`, else the `rfio` next to this executable, else `rfio` on PATH.
pub(crate) fn locate_rfio(given: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(given) = given {
        let found = if is_bare_name(given) {
            find_on_path(given)
        } else {
            Some(given.to_path_buf()).filter(|path| is_executable(path))
        };
        return found
            .ok_or_else(|| "not an executable file".to_owned())
            .and_then(|path| absolute(&path))
            .map_err(|why| format!("cannot run rfio at '{}': {why}", given.display()));
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("rfio")))
        .filter(|path| is_executable(path));
    beside
        .or_else(|| find_on_path(Path::new("rfio")))
        .ok_or_else(|| {
            "cannot find rfio: none next to this program and none on PATH \
             (build it with `cargo build --bin rfio`, or pass --rfio PATH)"
                .to_owned()
        })
}

/// Checks that every program in `programs` is on PATH; the error names the missing ones and
/// what needs them.
pub(crate) fn require_programs(programs: &[&str], needed_by: &str) -> Result<(), String> {
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|name| find_on_path(Path::new(name)).is_none())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{needed_by} needs {} on PATH (apt-get install -y {}), or leave it out with --checks",
            missing.join(" and "),
            missing.join(" ")
        ))
    }
}

/// Whether both paths name the same file (after following links).
pub(crate) fn same_binary(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// `fio` rather than `./fio` or `/usr/bin/fio`: looked up on PATH, as a shell would.
fn is_bare_name(path: &Path) -> bool {
    path.components().count() == 1 && !path.as_os_str().as_encoded_bytes().contains(&b'/')
}

fn find_on_path(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names() {
        assert!(is_bare_name(Path::new("fio")));
        assert!(!is_bare_name(Path::new("./fio")));
        assert!(!is_bare_name(Path::new("/usr/bin/fio")));
    }

    #[test]
    fn missing_fio_is_explained() {
        let err = locate_fio(Some(Path::new("/nonexistent/fio"))).unwrap_err();
        assert_eq!(
            err,
            "cannot run fio at '/nonexistent/fio': no such file \
             (install real fio: apt-get install -y fio fio-examples)"
        );
    }

    #[test]
    fn a_program_that_is_not_fio_is_refused() {
        let err = fio_version(Path::new("/bin/false")).unwrap_err();
        assert!(
            err.starts_with("cannot run fio at '/bin/false': `--version` gave exit 1"),
            "{err}"
        );
    }

    #[test]
    fn relative_paths_become_absolute() {
        // This test program, named relative to the cwd (cargo runs tests in the package root).
        let cwd = std::env::current_dir().unwrap();
        let exe = std::env::current_exe().unwrap();
        // `cwd` and `exe` may sit in different trees (CARGO_TARGET_DIR):
        // climb from cwd to their common ancestor, then down to exe.
        let common = cwd.ancestors().find(|a| exe.starts_with(a)).unwrap();
        let up = cwd.strip_prefix(common).unwrap().components().count();
        let mut relative = std::path::PathBuf::from(".");
        relative.extend(std::iter::repeat_n("..", up));
        relative.push(exe.strip_prefix(common).unwrap());
        for found in [locate_rfio(Some(&relative)), locate_fio(Some(&relative))] {
            let found = found.unwrap();
            assert!(found.is_absolute(), "{}", found.display());
            assert!(same_binary(&found, &exe));
        }
    }

    #[test]
    fn same_binary_follows_paths() {
        assert!(same_binary(
            Path::new("/bin/sh"),
            Path::new("/bin/../bin/sh")
        ));
        assert!(!same_binary(
            Path::new("/bin/sh"),
            Path::new("/nonexistent")
        ));
    }
}
