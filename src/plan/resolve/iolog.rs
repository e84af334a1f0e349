//! I/O logs: `write_iolog`, `read_iolog` and its replay options
//! (`read_iolog_chunked`, `replay_no_stall`, `replay_redirect`,
//! `replay_scale`, `replay_align`, `replay_time_scale`, `replay_skip`),
//! and the blktrace merge (`merge_blktrace_file`,
//! `merge_blktrace_scalars`, `merge_blktrace_iters`), read only by
//! `workload::iolog` (fio's `iolog.c` and `blktrace.c`).

use super::read::Opts;
use crate::ddir::Ddir;
use crate::options::Value;

/// A job's I/O log settings (`JobSpec::iolog`).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct IologOptions {
    /// `write_iolog`: the file the job appends its log to. `None` when
    /// unset, or when `read_iolog` overrides it (fio's `fixup_options`).
    pub(crate) write: Option<String>,
    /// Both were set: fio warns `read iolog overrides write_iolog`.
    pub(crate) write_overridden: bool,
    /// `read_iolog`, split at `:`: the job with `numjobs` index N replays
    /// entry N modulo their number (fio's `get_name_by_idx`). Empty: no
    /// replay.
    pub(crate) read: Vec<String>,
    pub(crate) replay: ReplayOptions,
    /// `merge_blktrace_file` and its lists.
    pub(crate) merge: Option<MergeOptions>,
}

/// How a log is replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReplayOptions {
    /// `read_iolog_chunked`: read the log while replaying it.
    pub(crate) chunked: bool,
    /// `replay_no_stall`: ignore the log's timing.
    pub(crate) no_stall: bool,
    /// `replay_redirect`: every I/O goes to this file.
    pub(crate) redirect: Option<String>,
    /// `replay_scale`: offsets are divided by this (0: kept).
    pub(crate) scale: u64,
    /// `replay_align`: offsets are aligned down to this power of 2 (0:
    /// kept); blktrace lengths are aligned up to it.
    pub(crate) align: u64,
    /// `replay_time_scale`: the log's delays are scaled by 100/this.
    pub(crate) time_scale: u64,
    /// `replay_skip`: the directions a blktrace replay leaves out, a bit
    /// per [`Ddir::index`] (fio 3.33 applies it to blktrace only).
    pub(crate) skip: u8,
    /// `iodepth` is set: a blktrace replay keeps it (else it takes the
    /// depth the trace reached).
    pub(crate) iodepth_set: bool,
}

impl Default for ReplayOptions {
    fn default() -> ReplayOptions {
        ReplayOptions {
            chunked: false,
            no_stall: false,
            redirect: None,
            scale: 1,
            align: 0,
            time_scale: 100,
            skip: 0,
            iodepth_set: false,
        }
    }
}

impl ReplayOptions {
    /// Whether `replay_skip` leaves direction `d` out.
    pub(crate) fn skips(&self, d: Ddir) -> bool {
        self.skip & (1 << d.index()) != 0
    }
}

/// `merge_blktrace_file`: the traces of `read_iolog` are merged into
/// this file, which is then replayed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MergeOptions {
    pub(crate) file: String,
    /// `merge_blktrace_scalars`, up to the first 0 (fio's list end).
    pub(crate) scalars: Vec<f64>,
    /// `merge_blktrace_iters`, likewise.
    pub(crate) iters: Vec<f64>,
}

pub(super) fn resolve(o: Opts<'_>, invalid: &mut Vec<String>) -> IologOptions {
    let read: Vec<String> = o.text("read_iolog").map(names).unwrap_or_default();
    let write = o.text("write_iolog").map(str::to_string);
    let align = o.bytes_or_zero("replay_align");
    if align != 0 && !align.is_power_of_two() {
        invalid.push("replay_align: must be a power-of-2".to_string());
    }
    let mut skip = 0u8;
    if let Some(list) = o.text("replay_skip") {
        for name in list.split(',') {
            let d = match name {
                "read" => Ddir::Read,
                "write" => Ddir::Write,
                "trim" => Ddir::Trim,
                "sync" => Ddir::Sync,
                other => {
                    invalid.push(format!("replay_skip: Unknown skip type: {other}"));
                    continue;
                }
            };
            skip |= 1 << d.index();
        }
    }
    let replay = ReplayOptions {
        chunked: o.is("read_iolog_chunked"),
        no_stall: o.is("replay_no_stall"),
        redirect: o.text("replay_redirect").map(str::to_string),
        scale: o.int_or_default("replay_scale").max(0) as u64,
        align,
        time_scale: o.int_or_default("replay_time_scale").max(1) as u64,
        skip,
        iodepth_set: o.set("iodepth"),
    };
    let floats = |name: &str| match o.value(name) {
        Some(Value::Floats(v)) => v.iter().copied().take_while(|f| *f != 0.0).collect(),
        _ => Vec::new(),
    };
    let merge = o.text("merge_blktrace_file").map(|f| MergeOptions {
        file: f.to_string(),
        scalars: floats("merge_blktrace_scalars"),
        iters: floats("merge_blktrace_iters"),
    });
    IologOptions {
        write_overridden: write.is_some() && !read.is_empty(),
        write: write.filter(|_| read.is_empty()),
        read,
        replay,
        merge,
    }
}

/// fio's `get_next_str` over a `:`-separated list: `\:` is a colon of
/// the name, empty names are skipped, blanks are kept.
fn names(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = list.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                cur.push(':');
            }
            ':' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::ddir::Ddir;
    use crate::plan::testing::{frontend, job};

    #[test]
    fn defaults_and_values() {
        let j = job(&["--name=x", "--size=1m"]).iolog;
        assert_eq!(j, super::IologOptions::default());
        assert_eq!((j.replay.scale, j.replay.time_scale), (1, 100));
        let j = job(&[
            "--name=x",
            "--read_iolog=a.log:b\\:c.log",
            "--write_iolog=w.log",
            "--read_iolog_chunked=1",
            "--replay_no_stall=1",
            "--replay_redirect=/dev/null",
            "--replay_scale=4",
            "--replay_align=4k",
            "--replay_time_scale=50",
            "--replay_skip=write,sync",
            "--merge_blktrace_file=m.bin",
            "--merge_blktrace_scalars=50:100",
            "--merge_blktrace_iters=2:0:3",
        ])
        .iolog;
        assert_eq!(j.read, ["a.log", "b:c.log"]);
        assert_eq!((j.write, j.write_overridden), (None, true));
        let r = &j.replay;
        assert!(r.chunked && r.no_stall);
        assert_eq!(r.redirect.as_deref(), Some("/dev/null"));
        assert_eq!((r.scale, r.align, r.time_scale), (4, 4096, 50));
        assert!(r.skips(Ddir::Write) && r.skips(Ddir::Sync) && !r.skips(Ddir::Read));
        let m = j.merge.expect("merge");
        assert_eq!(m.file, "m.bin");
        assert_eq!(m.scalars, [50.0, 100.0]);
        assert_eq!(m.iters, [2.0], "a 0 ends fio's list");
        let w = job(&["--name=x", "--size=1m", "--write_iolog=w.log"]).iolog;
        assert_eq!(
            (w.write.as_deref(), w.write_overridden),
            (Some("w.log"), false)
        );
    }

    #[test]
    fn log_names_split_as_fio_splits_them() {
        assert_eq!(super::names("a:b"), ["a", "b"]);
        assert_eq!(super::names(":a::b\\:c:"), ["a", "b:c"]);
        assert_eq!(super::names(" a "), [" a "]);
    }

    #[test]
    fn bad_values_are_refused_when_the_plan_runs() {
        for (arg, msg) in [
            ("--replay_align=1000", "replay_align: must be a power-of-2"),
            (
                "--replay_skip=read,foo",
                "replay_skip: Unknown skip type: foo",
            ),
        ] {
            let fe = frontend(&["--name=x", "--size=1m", "--read_iolog=l", arg]);
            assert!(fe.diags.to_string().contains(msg), "{arg}: {}", fe.diags);
            let fe = frontend(&["--parse-only", "--name=x", "--read_iolog=l", arg]);
            assert!(fe.diags.is_empty(), "{arg}: a dry run takes it");
        }
    }
}
