//! Which job files to compare, and what their headers say about them.
//!
//! A folder contributes every `*.fio` below it (recursively, sorted by path); other files, such as
//! the `*.inc` fragments that job files include, are not run on their own. A file named directly
//! is run whatever its name.
//!
//! The header of a job file is its leading run of comment (`;` or `#`) and blank lines. A header
//! line `; conformance: DIRECTIVE...` tells this tool what to expect; see [`Directives`].

use std::fs;
use std::path::{Path, PathBuf};

/// Where the fio-examples package puts fio's own example job files.
pub(crate) const EXAMPLES_DIR: &str = "/usr/share/doc/fio/examples";

/// One job file to compare.
#[derive(Clone, Debug)]
pub(crate) struct JobFile {
    /// Absolute, as passed to fio and rfio (they run in a temporary directory).
    pub(crate) path: PathBuf,
    /// As the user named it, for the report.
    pub(crate) display: String,
    pub(crate) directives: Directives,
}

/// What `; conformance:` header lines say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Directives {
    /// `rfio-refuses`: fio accepts this file but rfio deliberately rejects it (for example a
    /// silent misread such as `bs=4 k`). Where fio exits 0, rfio must exit non-zero.
    pub(crate) rfio_refuses: bool,
    /// `rfio-accepts`: fio rejects this file but rfio deliberately runs it (for example a UTF-8
    /// byte order mark, which fio reads as part of the first line). Where fio exits non-zero,
    /// rfio must exit 0.
    pub(crate) rfio_accepts: bool,
}

impl Directives {
    /// The directive names that are set, as written in headers.
    pub(crate) fn names(self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if self.rfio_refuses {
            names.push(RFIO_REFUSES);
        }
        if self.rfio_accepts {
            names.push(RFIO_ACCEPTS);
        }
        names
    }
}

const RFIO_REFUSES: &str = "rfio-refuses";
const RFIO_ACCEPTS: &str = "rfio-accepts";

/// The job files named by `paths` (files or folders), after those of fio's examples when
/// `examples` is set; each file once. Every error is a message for the user.
pub(crate) fn collect(paths: &[PathBuf], examples: bool) -> Result<Vec<JobFile>, String> {
    let mut found: Vec<PathBuf> = Vec::new();
    if examples {
        let dir = Path::new(EXAMPLES_DIR);
        if !dir.is_dir() {
            return Err(format!(
                "--examples: no folder {EXAMPLES_DIR} \
                 (install real fio: apt-get install -y fio fio-examples)"
            ));
        }
        found.extend(job_files_in(dir, false)?);
    }
    for path in paths {
        let meta = fs::metadata(path).map_err(|err| format!("{}: {err}", path.display()))?;
        if meta.is_dir() {
            let files = job_files_in(path, true)?;
            if files.is_empty() {
                return Err(format!("{}: no *.fio files in this folder", path.display()));
            }
            found.extend(files);
        } else {
            found.push(path.clone());
        }
    }

    let mut jobs: Vec<JobFile> = Vec::new();
    for display_path in found {
        let path = std::path::absolute(&display_path)
            .map_err(|err| format!("{}: {err}", display_path.display()))?;
        if jobs.iter().any(|job| job.path == path) {
            continue;
        }
        let bytes = fs::read(&path).map_err(|err| format!("{}: {err}", display_path.display()))?;
        let directives =
            parse_directives(&bytes).map_err(|err| format!("{}:{err}", display_path.display()))?;
        jobs.push(JobFile {
            path,
            display: tidy(&display_path),
            directives,
        });
    }
    Ok(jobs)
}

/// `path` without `.` components (`./jobs/a.fio` → `jobs/a.fio`), for display.
fn tidy(path: &Path) -> String {
    let tidy: PathBuf = path
        .components()
        .filter(|part| *part != std::path::Component::CurDir)
        .collect();
    if tidy.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        tidy.display().to_string()
    }
}

/// The `*.fio` files in `dir` (and below it if `recursive`), sorted by path.
fn job_files_in(dir: &Path, recursive: bool) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = fs::read_dir(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|err| format!("{}: {err}", dir.display()))?
                .path();
            if path.is_dir() {
                if recursive {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "fio") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Reads the `; conformance:` lines of a job file's header. The error is `LINE: message`.
pub(crate) fn parse_directives(bytes: &[u8]) -> Result<Directives, String> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut directives = Directives::default();
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = String::from_utf8_lossy(line);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix([';', '#']) else {
            break;
        };
        let comment = comment.trim_start_matches([';', '#']).trim_start();
        let Some(list) = comment.strip_prefix("conformance:") else {
            continue;
        };
        for word in list.split([',', ' ', '\t']).filter(|w| !w.is_empty()) {
            match word {
                RFIO_REFUSES => directives.rfio_refuses = true,
                RFIO_ACCEPTS => directives.rfio_accepts = true,
                _ => {
                    return Err(format!(
                        "{}: unknown `; conformance:` directive '{word}' (known: {RFIO_REFUSES}, {RFIO_ACCEPTS})",
                        index + 1
                    ))
                }
            }
        }
    }
    Ok(directives)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_come_from_the_header_only() {
        let file = b"; what this checks\n;\n# conformance: rfio-refuses\n\n[job]\nbs=4 k\n";
        assert!(parse_directives(file).unwrap().rfio_refuses);
        let later = b"; header\n[job]\n; conformance: rfio-refuses\n";
        assert!(!parse_directives(later).unwrap().rfio_refuses);
        let none = b"; expect: ok\n[job]\n";
        assert_eq!(parse_directives(none).unwrap(), Directives::default());
    }

    #[test]
    fn header_survives_crlf_bom_and_garbage() {
        let file = b"\xef\xbb\xbf; x\r\n;conformance:rfio-refuses\r\n\xff\xfe[job\n";
        assert!(parse_directives(file).unwrap().rfio_refuses);
    }

    #[test]
    fn display_names_lose_dot_components() {
        assert_eq!(tidy(Path::new("./jobs/./a.fio")), "jobs/a.fio");
        assert_eq!(tidy(Path::new("/x/../y.fio")), "/x/../y.fio");
        assert_eq!(tidy(Path::new(".")), ".");
    }

    #[test]
    fn unknown_directives_are_errors() {
        let err = parse_directives(b"; a\n; conformance: rfio-refuse\n").unwrap_err();
        assert!(err.starts_with("2: unknown"), "{err}");
    }

    #[test]
    fn folders_give_sorted_fio_files_only() {
        let dir = crate::run::TempDir::new().unwrap();
        for name in ["b.fio", "a.fio", "sub/c.fio", "sub/frag.inc", "notes.md"] {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "[job]\n").unwrap();
        }
        let jobs = collect(&[dir.path().to_path_buf()], false).unwrap();
        let names: Vec<_> = jobs
            .iter()
            .map(|job| job.path.strip_prefix(dir.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(names, ["a.fio", "b.fio", "sub/c.fio"].map(PathBuf::from));

        let again = collect(&[dir.path().join("a.fio"), dir.path().to_path_buf()], false).unwrap();
        assert_eq!(again.len(), 3, "each file once");
        assert!(collect(&[dir.path().join("sub/none.fio")], false).is_err());
    }
}
