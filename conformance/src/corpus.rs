//! Which job files to compare, and what their headers say about them.
//!
//! A folder contributes every `*.fio` below it (recursively, sorted by path); other files, such as
//! the `*.inc` fragments that job files include, are not run on their own. A file named directly
//! is run whatever its name.
//!
//! The header of a job file is its leading run of comment (`;` or `#`) and blank lines. A header
//! line `; conformance: DIRECTIVE...` tells this tool what to expect (see [`Directives`] and
//! [`RunMode`]); a header line `; expect-error: TEXT` is text rfio's stderr must contain wherever
//! rfio fails on this file.

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
    /// Whether the `run` and `pipelines` checks apply (`; conformance: run`).
    pub(crate) run: RunMode,
    /// `; expect-error: TEXT` lines: where rfio exits non-zero, its stderr must contain each.
    pub(crate) expect_errors: Vec<String>,
    /// `; known-diff: REASON`: a known rfio bug makes this file differ; its DIFFs show as
    /// KNOWN with the reason instead of failing.
    pub(crate) known_diff: Option<String>,
}

/// Whether a job file is really run (`run` and `pipelines` checks), and how it is judged.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum RunMode {
    /// No `run` directive: only parsed (`showcmd`, `parse-only`).
    #[default]
    ParseOnly,
    /// `; conformance: run`, with its options.
    Run(RunSpec),
    /// `; conformance: skip-run=REASON`: would be run, but is not, for this reason.
    Skipped(String),
}

/// How the outcome of a real run is judged (`; conformance: run, ...`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RunSpec {
    /// `tolerance=N`: timing figures (IOPS, bandwidth, runtimes, time-bound counts) of fio and
    /// rfio may differ by up to this factor (default [`DEFAULT_TOLERANCE`]).
    pub(crate) tolerance: f64,
    /// `timed`: the job is bound by time (time_based, runtime, rate limits that end it): its I/O
    /// counts and bytes are compared within the tolerance instead of exactly.
    pub(crate) timed: bool,
    /// `mixed`: a random read/write mix whose split is not reproducible: per direction, counts
    /// are only checked for plausibility; the total bytes of all directions are exact.
    pub(crate) mixed: bool,
    /// `terse-version=N`: the terse run uses `--output-format=terse --terse-version=N` instead
    /// of `--minimal`.
    pub(crate) terse_version: Option<u8>,
}

/// Default `tolerance`: timing figures may differ by a factor of 10 either way.
pub(crate) const DEFAULT_TOLERANCE: f64 = 10.0;

impl Default for RunSpec {
    fn default() -> RunSpec {
        RunSpec {
            tolerance: DEFAULT_TOLERANCE,
            timed: false,
            mixed: false,
            terse_version: None,
        }
    }
}

/// Everything a job file's header says.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Header {
    pub(crate) directives: Directives,
    pub(crate) run: RunMode,
    pub(crate) expect_errors: Vec<String>,
    pub(crate) known_diff: Option<String>,
}

/// What `; conformance:` header lines say about rfio's deliberate differences from fio.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Directives {
    /// `rfio-refuses`: fio accepts this file but rfio deliberately rejects it (for example a
    /// silent misread such as `bs=4 k`). Where fio exits 0, rfio must exit non-zero.
    pub(crate) rfio_refuses: bool,
    /// `rfio-accepts`: fio rejects this file but rfio deliberately runs it (for example a UTF-8
    /// byte order mark, which fio reads as part of the first line). Where fio exits non-zero,
    /// rfio must exit 0.
    pub(crate) rfio_accepts: bool,
    /// Not a header directive: set for every file when "rfio" is really rfio (not fio compared
    /// with itself). rfio's stdout must then hold nothing but the report: one JSON document, or
    /// terse lines only, where fio also prints some errors on stdout.
    pub(crate) pure_output: bool,
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
const RUN: &str = "run";
const SKIP_RUN: &str = "skip-run=";
const TIMED: &str = "timed";
const MIXED: &str = "mixed";
const TOLERANCE: &str = "tolerance=";
const TERSE_VERSION: &str = "terse-version=";
const KNOWN: &str = "rfio-refuses, rfio-accepts, run, skip-run=REASON, timed, mixed, \
                     tolerance=N, terse-version=N";

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
        let header =
            parse_header(&bytes).map_err(|err| format!("{}:{err}", display_path.display()))?;
        jobs.push(JobFile {
            path,
            display: tidy(&display_path),
            directives: header.directives,
            run: header.run,
            expect_errors: header.expect_errors,
            known_diff: header.known_diff,
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

/// Reads the `; conformance:` and `; expect-error:` lines of a job file's header. The error is
/// `LINE: message`.
pub(crate) fn parse_header(bytes: &[u8]) -> Result<Header, String> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut header = Header::default();
    let mut run = false;
    let mut skip: Option<String> = None;
    let mut spec = RunSpec::default();
    let mut run_options: Option<(usize, &'static str)> = None;
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = index + 1;
        let line = String::from_utf8_lossy(line);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix([';', '#']) else {
            break;
        };
        let comment = comment.trim_start_matches([';', '#']).trim_start();
        if let Some(reason) = comment.strip_prefix("known-diff:") {
            let reason = reason.trim();
            if reason.is_empty() {
                return Err(format!("{number}: `; known-diff:` needs the reason"));
            }
            header.known_diff = Some(reason.to_owned());
            continue;
        }
        if let Some(text) = comment.strip_prefix("expect-error:") {
            let text = text.trim();
            if text.is_empty() {
                return Err(format!(
                    "{number}: `; expect-error:` needs the text rfio prints"
                ));
            }
            header.expect_errors.push(text.to_owned());
            continue;
        }
        let Some(mut list) = comment.strip_prefix("conformance:") else {
            continue;
        };
        // `skip-run=REASON` takes the rest of the line.
        if let Some(at) = list.find(SKIP_RUN) {
            let reason = list[at + SKIP_RUN.len()..].trim();
            if reason.is_empty() {
                return Err(format!("{number}: `skip-run=` needs a reason"));
            }
            skip = Some(reason.to_owned());
            list = &list[..at];
        }
        for word in list.split([',', ' ', '\t']).filter(|w| !w.is_empty()) {
            match word {
                RFIO_REFUSES => header.directives.rfio_refuses = true,
                RFIO_ACCEPTS => header.directives.rfio_accepts = true,
                RUN => run = true,
                TIMED => {
                    spec.timed = true;
                    run_options.get_or_insert((number, TIMED));
                }
                MIXED => {
                    spec.mixed = true;
                    run_options.get_or_insert((number, MIXED));
                }
                _ if word.starts_with(TOLERANCE) => {
                    let value = &word[TOLERANCE.len()..];
                    spec.tolerance = match value.parse::<f64>() {
                        Ok(n) if n.is_finite() && n >= 1.0 => n,
                        _ => {
                            return Err(format!(
                                "{number}: `tolerance=` needs a number of at least 1, not '{value}'"
                            ))
                        }
                    };
                    run_options.get_or_insert((number, "tolerance"));
                }
                _ if word.starts_with(TERSE_VERSION) => {
                    let value = &word[TERSE_VERSION.len()..];
                    spec.terse_version = match value.parse::<u8>() {
                        Ok(n @ 2..=5) => Some(n),
                        _ => {
                            return Err(format!(
                                "{number}: `terse-version=` needs 2, 3, 4 or 5, not '{value}'"
                            ))
                        }
                    };
                    run_options.get_or_insert((number, "terse-version"));
                }
                _ => {
                    return Err(format!(
                        "{number}: unknown `; conformance:` directive '{word}' (known: {KNOWN})"
                    ))
                }
            }
        }
    }
    if let Some((number, name)) = run_options.filter(|_| !run && skip.is_none()) {
        return Err(format!(
            "{number}: `; conformance: {name}` describes a real run: add `run`"
        ));
    }
    header.run = match (skip, run) {
        (Some(reason), _) => RunMode::Skipped(reason),
        (None, true) => RunMode::Run(spec),
        (None, false) => RunMode::ParseOnly,
    };
    Ok(header)
}

/// Reads only the `; conformance:` directives about rfio's deliberate differences.
#[cfg(test)]
pub(crate) fn parse_directives(bytes: &[u8]) -> Result<Directives, String> {
    parse_header(bytes).map(|header| header.directives)
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
        for (file, message) in [
            (
                &b"; conformance: timed\n"[..],
                "1: `; conformance: timed` describes a real run",
            ),
            (
                b"; conformance: run tolerance=0.5\n",
                "1: `tolerance=` needs a number",
            ),
            (
                b"; conformance: run terse-version=6\n",
                "1: `terse-version=` needs 2",
            ),
            (
                b"; conformance: skip-run=\n",
                "1: `skip-run=` needs a reason",
            ),
            (b"; expect-error:\n", "1: `; expect-error:` needs"),
        ] {
            let err = parse_header(file).unwrap_err();
            assert!(err.starts_with(message), "{err}");
        }
    }

    #[test]
    fn run_directives() {
        let header = parse_header(
            b"; checks x\n; conformance: run, timed tolerance=3\n; conformance: terse-version=5\n\
              ; expect-error: bad thing\n; expect-error:  other  \n[job]\n; expect-error: no\n",
        )
        .unwrap();
        assert_eq!(
            header.run,
            RunMode::Run(RunSpec {
                tolerance: 3.0,
                timed: true,
                mixed: false,
                terse_version: Some(5),
            })
        );
        assert_eq!(header.expect_errors, ["bad thing", "other"]);
        let header = parse_header(b"; conformance: run mixed\n").unwrap();
        assert_eq!(
            header.run,
            RunMode::Run(RunSpec {
                mixed: true,
                ..RunSpec::default()
            })
        );
        let header =
            parse_header(b"; conformance: run, skip-run=needs a block device, sorry\n").unwrap();
        assert_eq!(
            header.run,
            RunMode::Skipped("needs a block device, sorry".into())
        );
        assert_eq!(parse_header(b"[job]\n").unwrap().run, RunMode::ParseOnly);
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
