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
use std::time::Duration;

use crate::registry::Check;
use crate::spec::{Directives, RunMode, RunSpec, TimingKey, RFIO_ACCEPTS, RFIO_REFUSES};

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
    /// `; known-diff: CHECK PLACE: REASON` lines: each waives the differences of one check at
    /// one place (and below it), nothing else.
    pub(crate) known_diffs: Vec<Waiver>,
    /// Whether an unqualified `; known-diff:` that covers nothing is an error: against the
    /// release the headers state ([`STATED_RELEASE`]); against another, fio may have fixed
    /// what the line waives.
    pub(crate) strict_waivers: bool,
    /// `; fio-3.NN: skip: REASON` for the oracle's release: no check is run on this file.
    pub(crate) skipped: Option<String>,
    /// `; expect: ok` or `; expect-exit: N`: how rfio exits on this file.
    pub(crate) expect: Option<Expect>,
    /// `rfio-refuses=CHECK+CHECK`: the checks the refusal applies to (`None`: every check).
    pub(crate) refuses_in: Option<Vec<Check>>,
    /// How long the job file needs to run at least, from its `runtime`, `ramp_time` and
    /// `startdelay` values: the time limit of its runs grows with it.
    pub(crate) needs: Duration,
}

impl JobFile {
    /// Whether `check` applies to this file.
    pub(crate) fn applies(&self, check: Check) -> Applies<'_> {
        if let Some(why) = &self.skipped {
            return Applies::Skipped(why);
        }
        match (check, &self.run) {
            (Check::Showcmd | Check::ParseOnly, _) => Applies::Yes(None),
            (Check::Run | Check::Pipelines, RunMode::Run(spec)) => Applies::Yes(Some(spec)),
            (Check::Run | Check::Pipelines, RunMode::Skipped(reason)) => Applies::Skipped(reason),
            (Check::Run | Check::Pipelines, RunMode::ParseOnly) => Applies::No,
        }
    }

    /// Whether the header says fio's own results on this file vary (`unsteady`).
    pub(crate) fn unsteady(&self) -> bool {
        matches!(&self.run, RunMode::Run(spec) if spec.unsteady)
    }
}

/// Whether a check applies to a job file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Applies<'a> {
    Yes(Option<&'a RunSpec>),
    /// Not for this file (a parse-only file and a check that needs a real run).
    No,
    /// The file's header skips real runs, for this reason.
    Skipped(&'a str),
}

/// One `; known-diff: CHECK PLACE: REASON` line: a known difference at one place of one check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Waiver {
    /// `; fio-3.42: known-diff: ...`: only against that fio release; `None`: against any.
    pub(crate) release: Option<String>,
    pub(crate) check: Check,
    /// Where, as the report names it (`json+ .jobs[0].read.slat_ns.N`, `minimal line 1 $8`);
    /// it also covers every place below it (`json+ .jobs[0].read.slat_ns` covers `...slat_ns.N`).
    pub(crate) place: String,
    pub(crate) reason: String,
}

impl Waiver {
    /// Whether this waiver covers a difference found by `check` at `place`.
    pub(crate) fn covers(&self, check: Check, place: &str) -> bool {
        check == self.check
            && place
                .strip_prefix(self.place.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[', ' ']))
    }
}

/// What a file's header says rfio does with it: `; expect: ok` (exit 0 everywhere) or
/// `; expect-exit: N` (rfio exits N: when parsing, or for a `run` file whose error only a real
/// run finds, when running; wherever else rfio fails, with N too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    Ok,
    Exit(i32),
}

/// A tolerance as written: a factor (`2`, `1.05`, at least 1) or a percentage (`5%`: 1.05).
fn parse_tolerance(value: &str) -> Option<f64> {
    let factor = match value.strip_suffix('%') {
        Some(percent) => 1.0 + percent.parse::<f64>().ok().filter(|p| *p >= 0.0)? / 100.0,
        None => value.parse::<f64>().ok()?,
    };
    (factor.is_finite() && factor >= 1.0).then_some(factor)
}

/// Everything a job file's header says.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Header {
    pub(crate) directives: Directives,
    pub(crate) run: RunMode,
    pub(crate) expect_errors: Vec<String>,
    pub(crate) known_diffs: Vec<Waiver>,
    pub(crate) expect: Option<Expect>,
    /// `; fio-3.NN: expect...` lines: how rfio exits against that release, where it differs.
    pub(crate) expect_in: Vec<(String, Expect)>,
    /// `; fio-3.NN: skip: REASON` lines: the file is not compared with that release.
    pub(crate) skip_in: Vec<(String, String)>,
    pub(crate) refuses_in: Option<Vec<Check>>,
}

/// fio's examples for engines Debian's fio 3.33 is built without but rfio runs (fio's
/// `engines/http.c`): Debian's fio refuses them ("engine http not loadable"), rfio reads them
/// as a fio built with the engine does, so they count as `rfio-accepts` (the files cannot carry
/// a header). The other http examples set `https=on`, which rfio refuses too (no TLS).
const EXAMPLES_BEYOND_BUILD: &[&str] = &["http-webdav.fio"];

/// The fio release the corpus's unqualified header lines state (Debian's fio).
pub(crate) const STATED_RELEASE: &str = "3.33";

const REFUSES_IN: &str = "rfio-refuses=";
const RUN: &str = "run";
const SKIP_RUN: &str = "skip-run=";
const TIMED: &str = "timed";
const MIXED: &str = "mixed";
const UNSTEADY: &str = "unsteady";
const TERSE_VERSION: &str = "terse-version=";
const KNOWN: &str = "rfio-refuses, rfio-refuses=CHECK+CHECK, rfio-accepts, run, \
                     skip-run=REASON, timed, mixed, unsteady, tolerance=N, tolerance.KEY=N, terse-version=N";

/// The job files named by `paths` (files or folders), after those of fio's examples when
/// `examples` is set; each file once. Every error is a message for the user.
/// Every job file of `paths` (and fio's examples), with the header lines that hold against
/// fio `release` (`3.33`): its own `; fio-RELEASE:` lines and the unqualified ones, an
/// expectation of its own replacing the unqualified one.
pub(crate) fn collect(
    paths: &[PathBuf],
    examples: bool,
    release: &str,
) -> Result<Vec<JobFile>, String> {
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
        let mut header =
            parse_header(&bytes).map_err(|err| format!("{}:{err}", display_path.display()))?;
        if path.parent() == Some(Path::new(EXAMPLES_DIR)) {
            header.directives.rfio_accepts |= path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| EXAMPLES_BEYOND_BUILD.contains(&n));
        }
        jobs.push(JobFile {
            path,
            display: tidy(&display_path),
            directives: header.directives,
            run: header.run,
            expect_errors: header.expect_errors,
            known_diffs: header
                .known_diffs
                .into_iter()
                .filter(|w| w.release.as_deref().is_none_or(|r| r == release))
                .collect(),
            expect: header
                .expect_in
                .iter()
                .find(|(r, _)| r == release)
                .map(|(_, e)| *e)
                .or(header.expect),
            strict_waivers: release == STATED_RELEASE,
            skipped: header
                .skip_in
                .iter()
                .find(|(r, _)| r == release)
                .map(|(r, why)| format!("against fio {r}: {why}")),
            refuses_in: header.refuses_in,
            needs: time_needed(&bytes),
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
        // `; fio-3.42: LINE`: LINE holds against that fio release only.
        if let Some((release, line)) = release_qualified(comment) {
            if let Some(reason) = line.strip_prefix("skip:").map(str::trim) {
                if reason.is_empty() {
                    return Err(format!("{number}: `; fio-{release}: skip:` needs a reason"));
                }
                header.skip_in.push((release.to_owned(), reason.to_owned()));
                continue;
            }
            let (expect, rest) = if let Some(text) = line.strip_prefix("known-diff:") {
                let waiver = parse_waiver(text).map_err(|err| format!("{number}: {err}"))?;
                header.known_diffs.push(Waiver {
                    release: Some(release.to_owned()),
                    ..waiver
                });
                continue;
            } else if line.trim() == "expect: ok" {
                (Expect::Ok, "")
            } else if let Some(code) = line.strip_prefix("expect-exit:") {
                match code.trim().parse::<i32>() {
                    Ok(code @ 1..=255) => (Expect::Exit(code), ""),
                    _ => (Expect::Ok, code),
                }
            } else {
                (Expect::Ok, line)
            };
            if !rest.is_empty() {
                return Err(format!(
                    "{number}: `; fio-{release}:` takes `known-diff:`, `expect: ok`, \
                     `expect-exit: N` or `skip: REASON`, not '{}'",
                    rest.trim()
                ));
            }
            header.expect_in.push((release.to_owned(), expect));
            continue;
        }
        if let Some(text) = comment.strip_prefix("known-diff:") {
            header
                .known_diffs
                .push(parse_waiver(text).map_err(|err| format!("{number}: {err}"))?);
            continue;
        }
        if let Some(text) = comment.strip_prefix("expect:") {
            if text.trim() != "ok" {
                return Err(format!(
                    "{number}: `; expect:` says `ok` (rfio exits 0), not '{}'; \
                     use `; expect-exit: N` for a failure",
                    text.trim()
                ));
            }
            set_expect(&mut header.expect, Expect::Ok, number)?;
            continue;
        }
        if let Some(text) = comment.strip_prefix("expect-exit:") {
            let code = match text.trim().parse::<i32>() {
                Ok(code @ 1..=255) => code,
                _ => {
                    return Err(format!(
                        "{number}: `; expect-exit:` needs an exit status from 1 to 255, not '{}'",
                        text.trim()
                    ))
                }
            };
            set_expect(&mut header.expect, Expect::Exit(code), number)?;
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
                _ if word.starts_with(REFUSES_IN) => {
                    let mut checks = Vec::new();
                    for name in word[REFUSES_IN.len()..].split('+') {
                        checks.push(check_named(name).map_err(|err| format!("{number}: {err}"))?);
                    }
                    header.directives.rfio_refuses = true;
                    header.refuses_in = Some(checks);
                }
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
                UNSTEADY => {
                    spec.unsteady = true;
                    run_options.get_or_insert((number, UNSTEADY));
                }
                _ if word.starts_with("tolerance") && word.contains('=') => {
                    let (name, value) = word.split_once('=').unwrap_or((word, ""));
                    let key = match name.strip_prefix("tolerance.") {
                        None if name == "tolerance" => None,
                        Some(key) => Some(
                            TimingKey::ALL
                                .into_iter()
                                .find(|k| k.name() == key)
                                .ok_or_else(|| {
                                    let known: Vec<&str> =
                                        TimingKey::ALL.iter().map(|k| k.name()).collect();
                                    format!(
                                        "{number}: unknown tolerance key '{key}' (known: {})",
                                        known.join(", ")
                                    )
                                })?,
                        ),
                        None => {
                            return Err(format!(
                                "{number}: unknown `; conformance:` directive '{word}' \
                                 (known: {KNOWN})"
                            ))
                        }
                    };
                    let factor = parse_tolerance(value).ok_or_else(|| {
                        format!(
                            "{number}: `{name}=` needs a factor of at least 1 or a percentage \
                             (`5%`), not '{value}'"
                        )
                    })?;
                    spec.tolerance.set(key, factor);
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

/// `CHECK PLACE: REASON`, the text of a `; known-diff:` line.
/// `fio-3.NN: LINE` → (`3.NN`, `LINE`).
fn release_qualified(comment: &str) -> Option<(&str, &str)> {
    let rest = comment.strip_prefix("fio-")?;
    let (release, line) = rest.split_once(':')?;
    let (major, minor) = release.split_once('.')?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    (digits(major) && digits(minor)).then_some((release, line.trim_start()))
}

fn parse_waiver(text: &str) -> Result<Waiver, String> {
    const FORM: &str = "`; known-diff: CHECK PLACE: REASON` (for example \
                        `; known-diff: run json+ .jobs[0].read.slat_ns.N: fio never sets it`)";
    let text = text.trim();
    let (check, rest) = text.split_once(' ').unwrap_or((text, ""));
    let check = check_named(check).map_err(|err| format!("{err}; the form is {FORM}"))?;
    let Some((place, reason)) = rest.split_once(": ") else {
        return Err(format!(
            "`; known-diff:` needs a place and a reason: {FORM}"
        ));
    };
    let (place, reason) = (place.trim(), reason.trim());
    if place.is_empty() || reason.is_empty() {
        return Err(format!(
            "`; known-diff:` needs a place and a reason: {FORM}"
        ));
    }
    Ok(Waiver {
        release: None,
        check,
        place: place.to_owned(),
        reason: reason.to_owned(),
    })
}

fn check_named(name: &str) -> Result<Check, String> {
    Check::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
        format!("unknown check '{name}' (known: {})", known.join(", "))
    })
}

fn set_expect(slot: &mut Option<Expect>, expect: Expect, number: usize) -> Result<(), String> {
    match slot {
        Some(old) if *old != expect => Err(format!(
            "{number}: a second, different expectation (`; expect: ok` and `; expect-exit: N` \
             exclude each other)"
        )),
        _ => {
            *slot = Some(expect);
            Ok(())
        }
    }
}

/// How long the jobs of a file take at least: for each of `runtime`, `ramp_time` and
/// `startdelay` its largest value in the file, added up, times the number of sections (jobs
/// that `stonewall` run one after the other). A rough upper bound, for the time limit only.
pub(crate) fn time_needed(bytes: &[u8]) -> Duration {
    let text = String::from_utf8_lossy(bytes);
    let mut largest = [0.0_f64; 3];
    let mut sections = 0u32;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            sections += 1;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let slot = match key.trim() {
            "runtime" | "timeout" => 0,
            "ramp_time" => 1,
            "startdelay" => 2,
            _ => continue,
        };
        // `startdelay=1-2` is a range: its upper end.
        let value = value.trim();
        let value = value.rsplit_once('-').map_or(value, |(_, hi)| hi);
        if let Some(seconds) = seconds_of(value) {
            largest[slot] = largest[slot].max(seconds);
        }
    }
    let total = largest.iter().sum::<f64>() * f64::from(sections.max(1));
    Duration::from_secs_f64(total.min(86_400.0))
}

/// A fio time value in seconds: a number with an optional unit (`us`, `ms`, `s`, `m`, `h`,
/// `d`; seconds without one). `None` for anything else.
fn seconds_of(value: &str) -> Option<f64> {
    let value = value.trim().to_ascii_lowercase();
    let split = value
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(value.len());
    let (number, unit) = value.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit.trim() {
        "" | "s" | "sec" => 1.0,
        "us" | "usec" => 1e-6,
        "ms" | "msec" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return None,
    };
    Some(number * scale)
}

/// Reads only the `; conformance:` directives about rfio's deliberate differences.
#[cfg(test)]
pub(crate) fn parse_directives(bytes: &[u8]) -> Result<Directives, String> {
    parse_header(bytes).map(|header| header.directives)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Tolerances;

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
                "1: `tolerance=` needs a factor",
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
                tolerance: Tolerances {
                    counts: 3.0,
                    bw: 3.0,
                    iops: 3.0,
                    runtime: 3.0,
                    samples: None,
                },
                timed: true,
                mixed: false,
                unsteady: false,
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
        let header = parse_header(b"; conformance: run, unsteady\n").unwrap();
        assert_eq!(
            header.run,
            RunMode::Run(RunSpec {
                unsteady: true,
                ..RunSpec::default()
            })
        );
        assert!(parse_header(b"; conformance: unsteady\n").is_err());
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
        let jobs = collect(&[dir.path().to_path_buf()], false, STATED_RELEASE).unwrap();
        let names: Vec<_> = jobs
            .iter()
            .map(|job| job.path.strip_prefix(dir.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(names, ["a.fio", "b.fio", "sub/c.fio"].map(PathBuf::from));

        let again = collect(
            &[dir.path().join("a.fio"), dir.path().to_path_buf()],
            false,
            STATED_RELEASE,
        )
        .unwrap();
        assert_eq!(again.len(), 3, "each file once");
        assert!(collect(&[dir.path().join("sub/none.fio")], false, STATED_RELEASE).is_err());
    }

    #[test]
    fn tolerances_per_key() {
        let header = parse_header(
            b"; conformance: run tolerance=3 tolerance.iops=5% tolerance.samples=1.1\n",
        )
        .unwrap();
        let RunMode::Run(spec) = header.run else {
            panic!("{:?}", header.run)
        };
        assert_eq!(spec.tolerance.get(TimingKey::Counts), Some(3.0));
        assert_eq!(spec.tolerance.get(TimingKey::Iops), Some(1.05));
        assert_eq!(spec.tolerance.get(TimingKey::Samples), Some(1.1));
        assert_eq!(RunSpec::default().tolerance.get(TimingKey::Samples), None);
        for (file, message) in [
            (
                &b"; conformance: run tolerance.eta=2\n"[..],
                "1: unknown tolerance key 'eta'",
            ),
            (
                b"; conformance: run tolerance.bw=-5%\n",
                "1: `tolerance.bw=` needs a factor",
            ),
            (
                b"; conformance: run tolerancex=2\n",
                "1: unknown `; conformance:` directive",
            ),
        ] {
            let err = parse_header(file).unwrap_err();
            assert!(err.starts_with(message), "{err}");
        }
    }

    #[test]
    fn lines_for_one_release_hold_against_it_only() {
        let dir = crate::run::TempDir::new().unwrap();
        std::fs::write(
            dir.path().join("a.fio"),
            "; x\n; expect: ok\n; fio-3.42: expect-exit: 2\n\
             ; known-diff: run json+ .jobs[0].a: always\n\
             ; fio-3.42: known-diff: run json+ .jobs[0].b: only 3.42\n[j]\nsize=1m\n",
        )
        .unwrap();
        let places = |job: &JobFile| {
            job.known_diffs
                .iter()
                .map(|w| w.place.clone())
                .collect::<Vec<_>>()
        };
        let old = collect(&[dir.path().join("a.fio")], false, "3.33").unwrap();
        assert_eq!(old[0].expect, Some(Expect::Ok));
        assert_eq!(places(&old[0]), ["json+ .jobs[0].a"]);
        assert!(old[0].strict_waivers);
        let new = collect(&[dir.path().join("a.fio")], false, "3.42").unwrap();
        assert_eq!(new[0].expect, Some(Expect::Exit(2)));
        assert_eq!(places(&new[0]), ["json+ .jobs[0].a", "json+ .jobs[0].b"]);
        assert!(!new[0].strict_waivers);
        let skip = parse_header(b"; fio-3.42: skip: no rbd in that build\n").unwrap();
        assert_eq!(
            skip.skip_in,
            [("3.42".to_string(), "no rbd in that build".to_string())]
        );
        let err = parse_header(b"; fio-3.42: conformance: run\n").unwrap_err();
        assert!(err.starts_with("1: `; fio-3.42:` takes"), "{err}");
    }

    #[test]
    fn waivers_name_a_check_and_a_place() {
        let header = parse_header(
            b"; conformance: run\n; known-diff: run json+ .jobs[0].read.slat_ns: fio bug: no slat\n",
        )
        .unwrap();
        let waiver = &header.known_diffs[0];
        assert_eq!(waiver.check, Check::Run);
        assert_eq!(waiver.place, "json+ .jobs[0].read.slat_ns");
        assert_eq!(waiver.reason, "fio bug: no slat");
        assert!(waiver.covers(Check::Run, "json+ .jobs[0].read.slat_ns"));
        assert!(waiver.covers(Check::Run, "json+ .jobs[0].read.slat_ns.N"));
        assert!(!waiver.covers(Check::Run, "json+ .jobs[0].read.slat_nsx"));
        assert!(!waiver.covers(Check::Run, "json+ .jobs[0].read.clat_ns.N"));
        assert!(!waiver.covers(Check::Pipelines, "json+ .jobs[0].read.slat_ns.N"));
        for (file, message) in [
            (
                &b"; known-diff: some reason\n"[..],
                "1: unknown check 'some'",
            ),
            (
                b"; known-diff: run\n",
                "1: `; known-diff:` needs a place and a reason",
            ),
            (
                b"; known-diff: run json+ .x\n",
                "1: `; known-diff:` needs a place and a reason",
            ),
            (
                b"; known-diff: run json+ .x: \n",
                "1: `; known-diff:` needs a place and a reason",
            ),
        ] {
            let err = parse_header(file).unwrap_err();
            assert!(err.starts_with(message), "{err}");
        }
    }

    #[test]
    fn expectations() {
        assert_eq!(
            parse_header(b"; expect: ok\n").unwrap().expect,
            Some(Expect::Ok)
        );
        assert_eq!(
            parse_header(b"; expect-exit: 1\n; expect-exit: 1\n")
                .unwrap()
                .expect,
            Some(Expect::Exit(1))
        );
        assert_eq!(
            parse_header(b"; x\n[j]\n; expect: ok\n").unwrap().expect,
            None
        );
        for (file, message) in [
            (&b"; expect: fine\n"[..], "1: `; expect:` says `ok`"),
            (
                b"; expect-exit: 0\n",
                "1: `; expect-exit:` needs an exit status",
            ),
            (
                b"; expect: ok\n; expect-exit: 1\n",
                "2: a second, different expectation",
            ),
        ] {
            let err = parse_header(file).unwrap_err();
            assert!(err.starts_with(message), "{err}");
        }
    }

    #[test]
    fn scoped_refusals() {
        let header = parse_header(b"; conformance: run rfio-refuses=run+pipelines\n").unwrap();
        assert!(header.directives.rfio_refuses);
        assert_eq!(header.refuses_in, Some(vec![Check::Run, Check::Pipelines]));
        let err = parse_header(b"; conformance: rfio-refuses=parse\n").unwrap_err();
        assert!(err.starts_with("1: unknown check 'parse'"), "{err}");
    }

    #[test]
    fn time_needed_by_a_file() {
        assert_eq!(time_needed(b"[a]\nsize=1m\n"), Duration::ZERO);
        assert_eq!(
            time_needed(b"[global]\nruntime=2\nramp_time=500ms\n[a]\n[b]\nstartdelay=1-3s\n"),
            Duration::from_secs_f64(3.0 * 5.5)
        );
        assert_eq!(seconds_of("10parsecs"), None);
        assert_eq!(seconds_of("2m"), Some(120.0));
    }
}
