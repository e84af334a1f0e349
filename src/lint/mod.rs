//! `rfio --lint`: methodology problems of a valid plan — settings that run
//! fine but measure something else than the user likely wants (the page
//! cache, RAM, a synchronous engine at depth 1, ...). Each finding names
//! its rule, the job, where (`file:line`), why it misleads and the fix.
//!
//! The lint reads the resolved plan (the typed parts of each `JobSpec`),
//! and the job's options where what the user wrote matters (whether an
//! option was set at all). A rule is silenced by a comment line
//! `# rfio: allow RULE` (or `; rfio: allow RULE`) in the job's section, a
//! `[global]` section or the file's header, or for every job by
//! `--lint-allow=RULE[,RULE...]` ([`allow_list`]).
//!
//! Findings are said once: jobs that share the problem's target (a file,
//! a device) or its line (an option of `[global]`) get one finding, at the
//! first job's line, naming them all.

mod extents;
mod report;
mod rules;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::diag::Span;
use crate::plan::{JobSpec, Plan};

pub(crate) use report::{json, text, warning_lines};

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) rule: &'static str,
    /// The rule's one-line summary (the warning before a run).
    pub(crate) summary: &'static str,
    /// The first job found at fault.
    pub(crate) job: String,
    /// Every job the finding is about (`job` first).
    pub(crate) jobs: Vec<String>,
    /// Where: the option behind the problem, or the job's section.
    pub(crate) span: Span,
    /// Why the result misleads.
    pub(crate) message: String,
    pub(crate) fix: String,
    /// The file or device the finding is about, when it is one.
    pub(crate) target: Option<PathBuf>,
}

/// The file system a target lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FsInfo {
    /// `statfs` `f_type`.
    pub(crate) fs_type: i64,
    /// The file system also holds `/`.
    pub(crate) is_root: bool,
    /// Bytes free to an unprivileged user (`statvfs` `f_bavail`).
    pub(crate) avail: u64,
    /// The backing device's logical block size and `nr_requests`, when
    /// it is a block device with a queue in sysfs.
    pub(crate) logical_block: Option<u64>,
    pub(crate) nr_requests: Option<u64>,
}

/// What the rules ask of the machine (a trait, so that tests can fake it).
pub(crate) trait Host {
    /// `MemTotal` in bytes.
    fn mem_total(&self) -> Option<u64>;
    /// The file system of the target `path` (a file that may not exist
    /// yet: its directory's).
    fn fs(&self, path: &Path) -> Option<FsInfo>;
    /// `path` is a block device.
    fn is_block_device(&self, path: &Path) -> bool;
    /// How much of bytes `start..start + len` of the regular file `path`
    /// reads back zeroes without touching the device: holes (a sparse
    /// file, `truncate`) and unwritten extents (`fallocate`). `None` when
    /// the file system cannot tell.
    fn unwritten(&self, path: &Path, start: u64, len: u64) -> Option<Unwritten>;
}

/// The parts of a file range with no data on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Unwritten {
    /// Bytes in holes.
    pub(crate) holes: u64,
    /// Bytes in allocated but unwritten extents (FIEMAP_EXTENT_UNWRITTEN).
    pub(crate) unwritten: u64,
}

/// The machine rfio runs on.
pub(crate) struct System;

impl Host for System {
    fn mem_total(&self) -> Option<u64> {
        mem_total(&std::fs::read_to_string("/proc/meminfo").ok()?)
    }

    fn fs(&self, path: &Path) -> Option<FsInfo> {
        use std::os::unix::fs::FileTypeExt;
        use std::os::unix::fs::MetadataExt;
        let dir = existing_dir(path)?;
        let (fs_type, avail) = statfs(&dir)?;
        let dev = std::fs::metadata(&dir).ok()?.dev();
        let root = std::fs::metadata("/").ok()?.dev();
        // A block device's own queue; a file's, that of its file system.
        let queue_dev = match std::fs::metadata(path) {
            Ok(m) if m.file_type().is_block_device() => m.rdev(),
            _ => dev,
        };
        let (major, minor) = (libc::major(queue_dev), libc::minor(queue_dev));
        let queue = |name: &str| -> Option<u64> {
            let base = format!("/sys/dev/block/{major}:{minor}");
            [
                format!("{base}/queue/{name}"),
                format!("{base}/../queue/{name}"),
            ]
            .iter()
            .find_map(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| t.trim().parse().ok())
        };
        Some(FsInfo {
            fs_type,
            is_root: dev == root,
            avail,
            logical_block: queue("logical_block_size"),
            nr_requests: queue("nr_requests"),
        })
    }

    fn is_block_device(&self, path: &Path) -> bool {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
    }

    fn unwritten(&self, path: &Path, start: u64, len: u64) -> Option<Unwritten> {
        extents::unwritten(path, start, len)
    }
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
pub(crate) fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The directory a target file is (or will be) in.
fn existing_dir(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        return Some(path.to_path_buf());
    }
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.is_dir().then(|| p.to_path_buf()),
        _ => Some(PathBuf::from(".")),
    }
}

/// `statfs(2)`: the file system type and the bytes free to users.
fn statfs(dir: &Path) -> Option<(i64, u64)> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero `statfs` is a valid value to be overwritten.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a writable statfs.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    let avail = (st.f_bavail as u64).saturating_mul(st.f_bsize as u64);
    #[allow(clippy::unnecessary_cast)]
    Some((st.f_type as i64, avail))
}

/// Every finding of `plan` on this machine, minus those silenced in the
/// job files and the rules of `allow` (`--lint-allow`, checked by
/// [`allow_list`]).
pub(crate) fn lint(plan: &Plan, allow: &[String]) -> Vec<Finding> {
    lint_with(plan, &System, allow)
}

/// [`lint`] with the machine's facts from `host`.
pub(crate) fn lint_with(plan: &Plan, host: &dyn Host, allow: &[String]) -> Vec<Finding> {
    let mut allows = Allows::default();
    let mut found: Vec<Finding> = Vec::new();
    // A job's `numjobs` clones share its settings: lint the first.
    for (i, job) in plan.jobs.iter().enumerate() {
        if job.subjob != 0 {
            continue;
        }
        for f in rules::check(plan, i, host) {
            if allow.iter().any(|r| r == f.rule || r == "all") || allows.allowed(job, &f) {
                continue;
            }
            match found.iter_mut().find(|g| same_problem(g, &f)) {
                Some(g) => {
                    for j in f.jobs {
                        if !g.jobs.contains(&j) {
                            g.jobs.push(j);
                        }
                    }
                }
                None => found.push(f),
            }
        }
    }
    found
}

/// `a` and `b` say the same thing: one rule, about one target (or, for a
/// rule about settings, at one line or in the same words: sections that
/// inherit one `[global]` and leave the same option unset).
fn same_problem(a: &Finding, b: &Finding) -> bool {
    a.rule == b.rule
        && match (&a.target, &b.target) {
            (Some(x), Some(y)) => x == y,
            (None, None) => a.span == b.span || a.message == b.message,
            _ => false,
        }
}

/// `--lint-allow=RULE[,RULE...]`: the rules named (or `all`), or an error
/// naming the known ones.
pub(crate) fn allow_list(text: &str) -> Result<Vec<String>, UnknownRule> {
    let names: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect();
    match names
        .iter()
        .find(|n| *n != "all" && !rules::RULES.iter().any(|r| r.name == n.as_str()))
    {
        None => Ok(names),
        Some(bad) => Err(UnknownRule {
            text: text.to_string(),
            rule: bad.clone(),
        }),
    }
}

/// `--lint-allow=TEXT` naming `rule`, which is none of rfio's (the
/// message names them).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--lint-allow={text}: no lint rule '{rule}' (the rules: {}, or all)",
    rules::RULES.iter().map(|r| r.name).collect::<Vec<_>>().join(", ")
)]
pub struct UnknownRule {
    pub(crate) text: String,
    pub(crate) rule: String,
}

/// The `rfio: allow RULE` comments of the job files read so far.
#[derive(Default)]
struct Allows {
    files: HashMap<PathBuf, Vec<Section>>,
}

/// A part of a job file: the header (`name` empty) or a section, with the
/// rules its comments allow.
#[derive(Debug, Default, PartialEq)]
struct Section {
    name: String,
    /// First and last line (1-based).
    lines: (u32, u32),
    allowed: Vec<String>,
}

impl Allows {
    fn allowed(&mut self, job: &JobSpec, f: &Finding) -> bool {
        let Span::File { path, .. } = &job.span else {
            return false;
        };
        let job_line = match &job.span {
            Span::File { line, .. } => *line,
            Span::Arg { .. } => 0,
        };
        let sections = self
            .files
            .entry(path.to_path_buf())
            .or_insert_with(|| match std::fs::read(path) {
                Ok(bytes) => sections(&String::from_utf8_lossy(&bytes)),
                Err(_) => Vec::new(),
            });
        sections.iter().any(|s| {
            let applies = s.name.is_empty()
                || s.name.starts_with("global")
                || (s.lines.0..=s.lines.1).contains(&job_line);
            applies && s.allowed.iter().any(|r| r == f.rule || r == "all")
        })
    }
}

/// Split a job file into its header and sections, with their allow
/// comments.
fn sections(text: &str) -> Vec<Section> {
    let mut out = vec![Section::default()];
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let t = raw.trim();
        if let Some(rest) = t.strip_prefix('[') {
            let name = rest.split(']').next().unwrap_or("").trim().to_string();
            out.push(Section {
                name,
                lines: (line, line),
                allowed: Vec::new(),
            });
        } else if let Some(c) = t.strip_prefix('#').or_else(|| t.strip_prefix(';')) {
            if let Some(rules) = c.trim().strip_prefix("rfio: allow") {
                if let Some(cur) = out.last_mut() {
                    let names = rules.split([',', ' ']).filter(|r| !r.is_empty());
                    cur.allowed.extend(names.map(str::to_string));
                }
            }
        }
        if let Some(cur) = out.last_mut() {
            cur.lines.1 = line;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_list_names_the_rule_it_does_not_have() {
        assert_eq!(
            allow_list(" buffered-io, all,").unwrap(),
            ["buffered-io", "all"]
        );
        let e = allow_list("buffered-io,nope").unwrap_err();
        assert_eq!(
            (e.text.as_str(), e.rule.as_str()),
            ("buffered-io,nope", "nope")
        );
        let text = e.to_string();
        assert!(
            text.starts_with(
                "--lint-allow=buffered-io,nope: no lint rule 'nope' (the rules: buffered-io, async-without-direct, "
            ) && text.ends_with(", or all)"),
            "{text}"
        );
    }

    /// Four sections that inherit `ioengine=psync` and leave `iodepth`
    /// high from `[global]`, two of them randrw left at 50/50: one
    /// finding each, naming the jobs, at the first culprit's line.
    #[test]
    fn a_problem_shared_by_jobs_is_said_once() {
        let p = crate::plan::testing::plan(&[
            "--ioengine=psync",
            "--iodepth=8",
            "--filename=/x/f",
            "--size=1m",
            "--name=a",
            "--rw=randrw",
            "--name=b",
            "--rw=randrw",
            "--stonewall",
            "--name=c",
            "--stonewall",
        ]);
        let host = rules::testing::Fake::default();
        let found = lint_with(&p, &host, &["buffered-io".into(), "zero-buffers".into()]);
        let said: Vec<(&str, Vec<&str>, &Span)> = found
            .iter()
            .map(|f| (f.rule, f.jobs.iter().map(String::as_str).collect(), &f.span))
            .collect();
        assert_eq!(
            said,
            [
                (
                    "sync-engine-depth",
                    vec!["a", "b", "c"],
                    &Span::Arg { index: 2 }
                ),
                ("rwmix-default", vec!["a", "b"], &Span::Arg { index: 6 }),
            ]
        );
        let found = lint_with(&p, &host, &["all".into()]);
        assert_eq!(found, []);
    }

    #[test]
    fn allow_comments_belong_to_their_section() {
        let s = sections(
            "# rfio: allow a\n[global]\n; rfio: allow b, c\n[job]\n# rfio: allow d\nrw=read\n",
        );
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].allowed, ["a"]);
        assert_eq!((s[1].name.as_str(), s[1].lines), ("global", (2, 3)));
        assert_eq!(s[1].allowed, ["b", "c"]);
        assert_eq!((s[2].name.as_str(), s[2].lines), ("job", (4, 6)));
        assert_eq!(s[2].allowed, ["d"]);
    }
}
