//! Which files a job works on, and what they are called.

use std::path::PathBuf;

use crate::diag::{path_of_string, path_of_text, text_of_os};

use super::error::{Error, ScanError};
use super::resolve::files::{FileOptions, OpenDir};
use super::resolve::offsets::Share;
use super::spec::{FileSpec, JobSpec};
use crate::options::jobopts::JobOptions;
use crate::options::Value;
use crate::rand::Slot;

/// Files of one job (`nrfiles`, `filename` lists).
pub(crate) const MAX_FILES_PER_JOB: i64 = 1 << 20;

/// fio's default `filename_format`.
const DEFAULT_FORMAT: &str = "$jobname.$jobnum.$filenum";

/// The files of job `section` (clone `jobnum`), with `size` (total bytes
/// over all files) split between them unless `filesize` is given.
///
/// With `directory=`, every name goes under a directory, absolute or not,
/// joined as fio joins them (`DIR/NAME`, plain concatenation: `/abs` under
/// `D` is `D//abs`, that is `D/abs`): names from `filename=` under the first
/// directory, generated names under directory `jobnum` (modulo their
/// number), as fio's `add_file` and `set_name_idx`. `..` is not stopped,
/// as fio does not stop it.
///
/// With `opendir=`, the files found under it come in the place of the
/// option among `filename=` (before or after its names, as the two were
/// set), under the first directory when `directory=` was set before it
/// (fio joins a name with the directory in force when it adds the file);
/// an `nrfiles` below their number keeps the first ones.
pub(crate) fn files(
    o: &JobOptions,
    file: &FileOptions,
    section: &str,
    jobnum: u32,
    size: Option<u64>,
) -> Result<Vec<FileSpec>, Error> {
    let dirs: Vec<String> = match o.value("directory") {
        Some(Value::Text(d)) if !d.is_empty() => split_colons(d),
        _ => Vec::new(),
    };
    if let Some(found) = &file.opendir {
        return Ok(with_opendir(
            o,
            &dirs,
            found,
            size,
            file.name_prefix.as_deref(),
        ));
    }
    // Every `filename=` in force adds its files (fio's `str_filename_cb`
    // appends to the job's list): a job's own after those of `[global]`.
    let given = given_names(o);
    let names: Vec<String> = match o.value("filename") {
        Some(Value::Text(f)) if !f.is_empty() => given,
        _ => {
            let nrfiles = match o.value("nrfiles") {
                Some(Value::Int(n)) => *n,
                _ => 1,
            };
            if nrfiles < 1 {
                return Err(Error::NoFile { nrfiles });
            }
            if nrfiles > MAX_FILES_PER_JOB {
                return Err(Error::TooManyFiles {
                    nrfiles,
                    max: MAX_FILES_PER_JOB,
                });
            }
            let format = match o.value("filename_format") {
                Some(Value::Text(f)) if !f.is_empty() => f.as_str(),
                _ => DEFAULT_FORMAT,
            };
            (0..nrfiles as u64)
                .map(|n| expand_format(format, section, jobnum, n))
                .collect()
        }
    };
    if names.is_empty() {
        // fio runs such a job with no files: it does nothing, silently.
        let given = match o.value("filename") {
            Some(Value::Text(f)) => f.as_str(),
            _ => "",
        };
        return Err(Error::NoFileNamed {
            given: given.to_string(),
        });
    }
    let whole = matches!(
        o.value("filesize"),
        Some(Value::Bytes(_) | Value::Ranges(_))
    );
    let per_file = match o.value("filesize") {
        Some(Value::Bytes(n)) => Some(*n),
        Some(Value::Ranges(r)) => r.first().copied().flatten().map(|(lo, _)| lo),
        _ => size.map(|s| s / names.len() as u64),
    };
    // fio adds `filename=` files once, as clone 0; generated names with the
    // clone's number.
    let dir_index = if matches!(o.value("filename"), Some(Value::Text(f)) if !f.is_empty()) {
        0
    } else {
        jobnum as usize
    };
    Ok(names
        .into_iter()
        .map(|name| {
            let path = match dirs.as_slice() {
                [] => path_of_string(name),
                _ => under(
                    &dirs[dir_index % dirs.len()],
                    &name,
                    file.name_prefix.as_deref(),
                ),
            };
            FileSpec {
                path,
                size: per_file,
                range: None,
                whole,
            }
        })
        .collect())
}

/// The names of every `filename=` in force, in order (fio's
/// `str_filename_cb` appends to the job's list: `[global]`'s first).
fn given_names(o: &JobOptions) -> Vec<String> {
    if o.get("filename").is_none() {
        return Vec::new();
    }
    o.settings
        .iter()
        .filter(|s| s.def.name == "filename")
        .filter_map(|s| match &s.value {
            Value::Text(f) if !f.is_empty() => Some(split_colons(f)),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The files of a job with `opendir=` (see [`files`]).
fn with_opendir(
    o: &JobOptions,
    dirs: &[String],
    found: &OpenDir,
    size: Option<u64>,
    prefix: Option<&str>,
) -> Vec<FileSpec> {
    let at = |name: &str| {
        (o.settings.iter().enumerate())
            .filter(|(_, s)| s.def.name == name)
            .map(|(i, _)| i)
            .last()
    };
    let opendir_at = at("opendir");
    let before = |name: &str| at(name).is_some_and(|i| Some(i) < opendir_at);
    let scanned = found.files.iter().map(|f| match dirs.first() {
        Some(d) if before("directory") => under(d, f, prefix),
        _ => path_of_text(f),
    });
    // Every `filename=` in force adds its files, as in [`files`].
    let listed: Vec<PathBuf> = given_names(o)
        .into_iter()
        .map(|n| match dirs.first() {
            Some(d) => under(d, &n, prefix),
            None => path_of_text(&n),
        })
        .collect();
    let mut paths: Vec<PathBuf> = if before("filename") {
        listed.into_iter().chain(scanned).collect()
    } else {
        scanned.chain(listed).collect()
    };
    if let (Some(Value::Int(n)), true) = (o.value("nrfiles"), o.get("nrfiles").is_some()) {
        if *n >= 1 && (*n as usize) < paths.len() {
            paths.truncate(*n as usize);
        }
    }
    let whole = matches!(
        o.value("filesize"),
        Some(Value::Bytes(_) | Value::Ranges(_))
    );
    let per_file = match o.value("filesize") {
        Some(Value::Bytes(n)) => Some(*n),
        Some(Value::Ranges(r)) => r.first().copied().flatten().map(|(lo, _)| lo),
        _ => size.map(|s| s / paths.len().max(1) as u64),
    };
    paths
        .into_iter()
        .map(|path| FileSpec {
            path,
            size: per_file,
            range: None,
            whole,
        })
        .collect()
}

/// `opendir=DIR`: every regular file below `DIR`, recursively, in
/// `readdir` order, as fio's `recurse_dir` adds them (`DIR/NAME`; symbolic
/// links and other files are passed over). The error is fio's
/// `opendir(DIR)` or `stat` failure.
pub(crate) fn scan_opendir(dir: &str) -> Result<Vec<String>, ScanError> {
    let mut out = Vec::new();
    recurse(dir, &mut out)?;
    Ok(out)
}

fn recurse(dir: &str, out: &mut Vec<String>) -> Result<(), ScanError> {
    let failed = |source| ScanError::OpenDir {
        dir: dir.to_string(),
        source,
    };
    let entries = std::fs::read_dir(path_of_text(dir)).map_err(failed)?;
    for entry in entries {
        let entry = entry.map_err(failed)?;
        let full = format!("{dir}/{}", text_of_os(&entry.file_name()));
        let meta = match std::fs::symlink_metadata(path_of_text(&full)) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(ScanError::Stat { path: full, source }),
        };
        if meta.file_type().is_file() {
            out.push(full);
        } else if meta.file_type().is_dir() {
            recurse(&full, out)?;
        }
    }
    Ok(())
}

/// Scan `opendir=` (when the job is to run) into `file`: the files found,
/// or the error that refuses the job. A scan that finds no file leaves the
/// job without files: it fails when it is set up, as fio's (`you need to
/// specify size=`).
pub(crate) fn resolve_opendir(o: &JobOptions, file: &mut FileOptions) -> Result<(), Error> {
    let Some(setting) = o.get("opendir") else {
        return Ok(());
    };
    let Value::Text(dir) = &setting.value else {
        return Ok(());
    };
    let files = scan_opendir(dir).map_err(|source| Error::OpenDir {
        dir: dir.clone(),
        source,
    })?;
    file.opendir = Some(std::sync::Arc::new(OpenDir {
        files,
        at: setting.span.to_string(),
    }));
    Ok(())
}

/// Why a job named `name` is refused: bytes that are not UTF-8 in it (a
/// job's name also names its logs and state files, which would not be
/// made of the bytes given).
pub(crate) fn name_refusal(name: &str) -> Option<String> {
    crate::diag::carries_bytes(name).then(|| {
        format!(
            "job '{}': the job name is not UTF-8 text; rfio takes bytes that are not UTF-8 \
             only in {}=",
            crate::diag::visible(name),
            crate::options::jobopts::BYTES_OPTIONS.join("=, ")
        )
    })
}

/// What fio refuses (or rfio cannot run) in a job's file options, checked
/// when the job is added to a run (not by `--parse-only`): rfio's words,
/// and fio's where fio refuses it when it adds the job.
pub(crate) fn refusals(job: &JobSpec) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let caps = crate::ioengine::lookup(&job.ioengine).map(|def| (def.caps)(&job.engine));
    if job.file.append && caps.is_some_and(|c| c.no_extend) {
        // fio's fixup_options: "can't append/extent with IO engine".
        out.push((
            format!(
                "file_append=1: fio can't append/extent with IO engine {}",
                job.ioengine
            ),
            Some(format!(
                "fio: can't append/extent with IO engine {}",
                job.ioengine
            )),
        ));
    }
    // fio 3.37's num_range (fixup_options): several ranges per trim only
    // on an engine that trims several (io_uring_cmd on NVMe, which rfio
    // does not have), never with trimwrite.
    let ranges = job.opts().int_or_default("num_range");
    if ranges > 1 && job.pattern.trim {
        if job.pattern.write {
            out.push((
                format!("num_range={ranges}: fio: trimwrite cannot be used with multiple ranges"),
                Some("fio: trimwrite cannot be used with multiple ranges.".into()),
            ));
        }
        out.push((
            format!(
                "num_range={ranges}: fio can't use multiple ranges with IO engine {} (only \
                 io_uring_cmd on NVMe trims several, and rfio has no such engine)",
                job.ioengine
            ),
            Some(format!(
                "fio: can't use multiple ranges with IO engine {}",
                job.ioengine
            )),
        ));
    }
    let percent = |s: &Share| matches!(s, Share::Percent(_));
    if job.opts().bytes("offset_align") == Some(0)
        && (percent(&job.offsets.offset) || percent(&job.offsets.offset_increment))
    {
        // fio's get_start_offset divides by the alignment it was given.
        out.push((
            "offset_align=0 with a percentage offset: fio divides by it (and dies with \
             SIGFPE); leave it unset to align to the smallest block size"
                .into(),
            None,
        ));
    }
    let registered = match &job.engine.options {
        crate::ioengine::EngineOptions::IoUring(u) => u.registerfiles || u.sqthread_poll,
        _ => false,
    };
    if registered && job.file.open_limit(job.files.len()) < job.files.len() {
        out.push((
            "rfio does not support openfiles below the number of files with io_uring's \
             registerfiles or sqthread_poll yet (every file is registered when the job starts)"
                .into(),
            None,
        ));
    }
    out
}

/// `name` under `dir`, as fio's `set_name_idx` then `add_file` join them:
/// `DIR` `/` `NAME`, whatever `NAME` starts with.
/// `name` under `dir`, as fio's `set_name_idx` joins them: on a server
/// with `unique_filename`, `prefix` (the server's address of the client's
/// connection) and a dot come before the name.
fn under(dir: &str, name: &str, prefix: Option<&str>) -> PathBuf {
    match prefix {
        Some(p) => path_of_text(&format!("{dir}/{p}.{name}")),
        None => path_of_text(&format!("{dir}/{name}")),
    }
}

/// `filesize=lo-hi`: give each file of `job` its own size in the range,
/// drawn as fio's `get_rand_file_size` draws it when it sets up the job's
/// files: from the job's file-size generator (seed slot
/// `FIO_RAND_FILE_SIZE_OFF`), one draw per file in order, `lo` plus that
/// fraction of `hi - lo`, rounded down to the job's smallest block size
/// (`rw_min_bs`, over all directions).
///
/// fio draws only for a file whose current size is outside the range (an
/// existing file already in range keeps its size, and takes no draw); the
/// plan draws for every file, as for files the job creates, and marks each
/// with the range (see [`FileSpec::range`]).
pub(crate) fn draw_ranged_sizes(job: &mut JobSpec) {
    let Some(Value::Ranges(r)) = job.opts().value("filesize") else {
        return;
    };
    let Some(Some((lo, hi))) = r.first().copied() else {
        return;
    };
    if lo == hi {
        return;
    }
    let min_bs = job.bs.iter().map(|b| b.0).min().unwrap_or(4096).max(1);
    let mut state = job.seeds.rand_job(Slot::FileSize);
    for f in &mut job.files {
        let size = lo + ((hi - lo) as f64 * state.frac()) as u64;
        f.size = Some(size - size % min_bs);
        f.range = Some((lo, hi));
    }
}

/// Split a `:`-separated list, where `\:` is a literal colon. Blanks at
/// both ends of each name are dropped, as fio's filename handler does.
pub(crate) fn split_colons(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                out.last_mut().expect("never empty").push(':');
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    out.iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `$jobname`, `$jobnum`, `$filenum` (case-insensitive, as fio).
fn expand_format(format: &str, jobname: &str, jobnum: u32, filenum: u64) -> String {
    let mut out = String::with_capacity(format.len() + jobname.len() + 16);
    let mut rest = format;
    // A keyword at the start of `rest`, in any case.
    let at = |rest: &str, word: &str| {
        rest.as_bytes()
            .get(..word.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(word.as_bytes()))
    };
    // Byte by byte, the numbers without the formatting machinery: every
    // job of a section without `filename=` names its file here.
    while let Some(pos) = rest.bytes().position(|b| b == b'$') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        if at(rest, "$jobname") {
            out.push_str(jobname);
            rest = &rest[8..];
        } else if at(rest, "$jobnum") {
            push_decimal(&mut out, u64::from(jobnum));
            rest = &rest[7..];
        } else if at(rest, "$filenum") {
            push_decimal(&mut out, filenum);
            rest = &rest[8..];
        } else {
            out.push('$');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

/// `n` in decimal, after `out`.
fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opendir_that_cannot_be_read_keeps_its_errno() {
        let e = scan_opendir("/nonexistent-rfio-dir").unwrap_err();
        assert!(
            matches!(&e, ScanError::OpenDir { dir, source }
                if dir == "/nonexistent-rfio-dir" && source.raw_os_error() == Some(libc::ENOENT)),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "opendir(/nonexistent-rfio-dir): No such file or directory"
        );
    }

    #[test]
    fn colon_lists_with_escapes() {
        assert_eq!(split_colons("a:b:c"), ["a", "b", "c"]);
        assert_eq!(split_colons(r"a\:b:c"), ["a:b", "c"]);
        assert_eq!(split_colons("/dev/sda"), ["/dev/sda"]);
    }

    #[test]
    fn filename_format_keywords() {
        assert_eq!(expand_format(DEFAULT_FORMAT, "job", 2, 1), "job.2.1");
        assert_eq!(
            expand_format("f.$JOBNAME.$jobnum.$filenum", "fmt", 0, 0),
            "f.fmt.0.0"
        );
        assert_eq!(expand_format("x$y", "j", 0, 0), "x$y");
        assert_eq!(
            expand_format("$jobnum-$FileNum$", "j", 4_294_967_295, 10),
            "4294967295-10$"
        );
    }

    use crate::plan::testing::frontend as plan_of;

    fn paths(argv: &[&str]) -> Vec<Vec<String>> {
        let fe = plan_of(argv);
        assert!(fe.diags.is_empty(), "{}", fe.diags);
        fe.plan
            .jobs
            .iter()
            .map(|j| {
                j.files
                    .iter()
                    .map(|f| f.path.display().to_string())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_name_goes_under_the_directory_as_fio_joins_it() {
        assert_eq!(
            paths(&[
                "--name=a",
                "--size=1m",
                "--directory=/D",
                "--filename=/t/x.dat"
            ]),
            [["/D//t/x.dat"]]
        );
        assert_eq!(
            paths(&[
                "--name=a",
                "--size=1m",
                "--directory=D",
                "--filename=/abs:../esc"
            ]),
            [["D//abs", "D/../esc"]]
        );
        assert_eq!(
            paths(&[
                "--name=a",
                "--size=1m",
                "--directory=D",
                "--filename_format=/f/$jobname"
            ]),
            [["D//f/a"]]
        );
        // filename= lists under the first directory, whatever the clone.
        assert_eq!(
            paths(&[
                "--name=a",
                "--size=1m",
                "--directory=D1:D2",
                "--filename=p:q",
                "--numjobs=2"
            ]),
            [["D1/p", "D1/q"], ["D1/p", "D1/q"]]
        );
        // Generated names under directory (clone number) modulo their count.
        assert_eq!(
            paths(&[
                "--name=a",
                "--size=1m",
                "--directory=D1:D2",
                "--nrfiles=2",
                "--numjobs=3"
            ]),
            [
                ["D1/a.0.0", "D1/a.0.1"],
                ["D1/a.2.0", "D1/a.2.1"],
                ["D2/a.1.0", "D2/a.1.1"]
            ]
        );
    }

    #[test]
    fn a_file_list_without_a_name_is_an_error() {
        for list in [":", "::", " : "] {
            let f = format!("--filename={list}");
            let fe = plan_of(&["--name=a", "--size=1m", &f]);
            assert!(fe.plan.jobs.is_empty());
            assert!(
                fe.diags.to_string().contains("names no file"),
                "{list:?}: {}",
                fe.diags
            );
        }
    }
}
