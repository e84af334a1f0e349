//! Writing a file by replacing it whole: the new contents go to a fresh
//! temporary file beside it, renamed over it once complete. A reader
//! never sees half a file, a failure leaves the old one as it was, and a
//! symbolic link planted at the name is replaced, never written through
//! (the temporary is created with `O_EXCL | O_NOFOLLOW`, and a rename
//! replaces the link itself).

use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A file being written to replace `dest`: [`Replacement::commit`] puts it
/// in place; dropped without that, its temporary file is removed.
#[derive(Debug)]
pub(crate) struct Replacement {
    file: File,
    tmp: PathBuf,
    dest: PathBuf,
    committed: bool,
}

impl Replacement {
    /// A fresh temporary file in `dest`'s directory (`.NAME.PID.N.tmp`,
    /// hidden, so never a name rfio writes).
    pub(crate) fn beside(dest: &Path) -> io::Result<Replacement> {
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let mut tries = 0;
        loop {
            tries += 1;
            let tmp = dir.join(format!(".{name}.{}.{tries}.tmp", std::process::id()));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&tmp)
            {
                Ok(file) => {
                    return Ok(Replacement {
                        file,
                        tmp,
                        dest: dest.to_path_buf(),
                        committed: false,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The temporary file, to write the new contents into.
    pub(crate) fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// Rename the temporary file over `dest`.
    pub(crate) fn commit(mut self) -> io::Result<()> {
        std::fs::rename(&self.tmp, &self.dest)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Replacement {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rfio-replace-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_committed_file_replaces_a_symlink_not_its_target() {
        let d = dir("link");
        std::fs::write(d.join("victim"), "keep").unwrap();
        std::os::unix::fs::symlink("victim", d.join("out")).unwrap();
        let mut r = Replacement::beside(&d.join("out")).unwrap();
        r.file().write_all(b"new").unwrap();
        r.commit().unwrap();
        assert_eq!(std::fs::read_to_string(d.join("victim")).unwrap(), "keep");
        assert!(std::fs::symlink_metadata(d.join("out")).unwrap().is_file());
        assert_eq!(std::fs::read_to_string(d.join("out")).unwrap(), "new");
        assert_eq!(names(&d), ["out", "victim"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_dropped_file_leaves_the_old_one_and_no_temporary() {
        let d = dir("drop");
        std::fs::write(d.join("out"), "old").unwrap();
        let mut r = Replacement::beside(&d.join("out")).unwrap();
        r.file().write_all(b"half").unwrap();
        drop(r);
        assert_eq!(std::fs::read_to_string(d.join("out")).unwrap(), "old");
        assert_eq!(names(&d), ["out"]);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
