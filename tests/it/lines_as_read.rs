//! What fio prints on stdout as it reads the jobs, before any format's
//! output. Options it ignores with a notice (its soft-deprecated ones:
//! `verifysort`, `verifysort_nr`, `flow_watermark`, and fio 3.38's and
//! 3.39's `uncached`): `Option NAME is deprecated` as it reads each,
//! between the description lines of the jobs it adds, in `--showcmd`'s
//! line too; called as `rfio`, a warning on stderr naming the file and
//! line, and stdout stays the report's. And the description line of each
//! command-line job it added while the output was still normal (it adds
//! one as it reads the next `--name`).

use std::os::unix::process::CommandExt;
use std::process::{Command, Output};

use crate::common::{self, stderr, stdout, TempDir};

/// Three sections: a global one and two jobs (one of two clones).
const JOBS: &str = "[global]\nverifysort=1\nioengine=null\nsize=64k\n\
                    [x]\nverifysort_nr=2\n\
                    [y]\nverifysort=1\nnumjobs=2\n";

/// `bin` (rfio, named `fio`, or real fio 3.33) with `args` in `dir`.
fn run(bin: &str, dir: &TempDir, args: &[&str]) -> Output {
    let mut cmd = Command::new(bin);
    if bin == common::RFIO {
        cmd.arg0("fio").env("RFIO_FIO_VERSION", "3.33");
    }
    cmd.current_dir(&dir.0).args(args);
    let (out, timed_out) = common::output_within(&mut cmd, common::RUN_LIMIT);
    assert!(!timed_out, "{bin} {args:?} hung");
    out
}

/// The stdout of rfio as fio and of real fio 3.33, which must be equal.
fn both(dir: &TempDir, args: &[&str]) -> String {
    let ours = run(common::RFIO, dir, args);
    let theirs = run(common::real_fio(), dir, args);
    assert_eq!(ours.status.code(), Some(0), "{}", stderr(&ours));
    assert_eq!(stdout(&ours), stdout(&theirs), "{args:?}");
    stdout(&ours)
}

#[test]
fn fio_notices_each_as_it_reads_it() {
    let dir = TempDir::new("deprecated");
    dir.write("d.fio", JOBS);
    let notice = |n: &str| format!("Option {n} is deprecated\n");
    let (sort, nr) = (notice("verifysort"), notice("verifysort_nr"));
    assert_eq!(
        both(&dir, &["--parse-only", "d.fio"]),
        format!("{sort}{nr}{sort}")
    );
    assert_eq!(
        both(&dir, &["--showcmd", "d.fio"]),
        format!(
            "fio {sort}--verifysort=1 --ioengine=null --size=64k --name=x {nr}--verifysort_nr=2 \
             --name=y {sort}--verifysort=1 --numjobs=2 \n"
        )
    );
    // A run: each section's notices, then its description line (the
    // lines up to the results; those vary).
    let args = ["--output-format=normal", "--eta=never", "d.fio"];
    let head_of = |o: Output| stdout(&o).lines().take(7).collect::<Vec<_>>().join("\n");
    let out = head_of(run(common::RFIO, &dir, &args));
    assert_eq!(out, head_of(run(common::real_fio(), &dir, &args)));
    let banner = |j: &str| {
        format!(
            "{j}: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
             ioengine=null, iodepth=1\n"
        )
    };
    let head = format!(
        "{sort}{nr}{}{sort}{}...\nfio-3.33",
        banner("x"),
        banner("y")
    );
    assert!(out.starts_with(&head), "{out}");
    // Another format: the notices come before it.
    let ours = run(common::RFIO, &dir, &["--output-format=terse", "d.fio"]);
    let text = stdout(&ours);
    assert!(
        text.starts_with(&format!("{sort}{nr}{sort}3;fio-3.33;x;")),
        "{text}"
    );
    assert_eq!(text.lines().count(), 3 + 3, "{text}");
}

#[test]
fn rfio_warns_on_stderr_and_keeps_stdout_the_reports() {
    let dir = TempDir::new("deprecated-rfio");
    dir.write("d.fio", JOBS);
    let out = common::rfio_as(&dir, "3.33", &["--output-format=json", "d.fio"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON alone");
    assert_eq!(doc["jobs"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        stderr(&out),
        "rfio: d.fio:2:1: option 'verifysort' is deprecated: fio ignores it\n\
         rfio: d.fio:6:1: option 'verifysort_nr' is deprecated: fio ignores it\n\
         rfio: d.fio:8:1: option 'verifysort' is deprecated: fio ignores it\n"
    );
}

/// `uncached` of pvsync2 and io_uring: fio 3.38 and 3.39 ignore it with
/// the notice (`FIO_OPT_SOFT_DEPRECATED`); 3.33 (RWF_UNCACHED) and 3.40
/// (RWF_DONTCACHE) take it without one.
#[test]
fn uncached_is_noticed_by_3_38_and_3_39_only() {
    let dir = TempDir::new("deprecated-uncached");
    let args = [
        "--name=u",
        "--ioengine=pvsync2",
        "--uncached=1",
        "--size=64k",
        "--parse-only",
    ];
    for (release, notice) in [
        ("3.33", ""),
        ("3.38", "Option uncached is deprecated\n"),
        ("3.39", "Option uncached is deprecated\n"),
        ("3.40", ""),
    ] {
        let mut cmd = Command::new(common::RFIO);
        cmd.arg0("fio")
            .env("RFIO_FIO_VERSION", release)
            .current_dir(&dir.0)
            .args(args);
        let (out, _) = common::output_within(&mut cmd, common::RUN_LIMIT);
        assert_eq!(out.status.code(), Some(0), "{release}: {}", stderr(&out));
        assert_eq!(stdout(&out), notice, "{release}");
    }
    // 3.38's --enghelp leaves it out, as fio's does a deprecated option.
    let out = common::rfio_as(&dir, "3.38", &["--enghelp=pvsync2"]);
    assert!(!stdout(&out).contains("uncached"), "{}", stdout(&out));
    let out = common::rfio_as(&dir, "3.40", &["--enghelp=pvsync2"]);
    assert!(stdout(&out).contains("uncached"), "{}", stdout(&out));
}

/// `fio --name=a ... --name=b ... --output-format=terse`: job a is added
/// (and described) as fio reads `--name=b`, before the format changes;
/// with the format first, only the last job, added at the end, is
/// described when the format ends normal. Called as `rfio`, a format is
/// the whole output's.
#[test]
fn command_line_jobs_are_described_as_they_are_added() {
    let dir = TempDir::new("described-as-added");
    let job = |n: &'static str| [n, "--ioengine=null", "--size=8k"];
    let mut late = Vec::new();
    late.extend(job("--name=a"));
    late.extend(job("--name=b"));
    late.push("--output-format=terse");
    // The lines as fio's, up to the terse lines' timing fields.
    let cut = |o: Output| {
        let text = stdout(&o);
        let lines = text.lines().map(|l| l.chars().take(40).collect::<String>());
        lines.collect::<Vec<_>>().join("\n")
    };
    let out = cut(run(common::RFIO, &dir, &late));
    assert_eq!(out, cut(run(common::real_fio(), &dir, &late)));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("a: (g=0): rw=read, bs=(R) 4096B-4096B"),
        "{out}"
    );
    assert!(lines[1].starts_with("3;fio-3.33;a;") && lines[2].starts_with("3;fio-3.33;b;"));
    let mut early = vec!["--output-format=terse"];
    early.extend(job("--name=a"));
    early.extend(job("--name=b"));
    early.push("--output-format=normal");
    let args: Vec<&str> = early.iter().copied().chain(["--eta=never"]).collect();
    let head = |o: Output| stdout(&o).lines().take(3).collect::<Vec<_>>().join("\n");
    let ours = head(run(common::RFIO, &dir, &args));
    assert_eq!(ours, head(run(common::real_fio(), &dir, &args)));
    assert!(
        ours.starts_with("b: (g=0)") && ours.ends_with("Starting 2 processes"),
        "{ours}"
    );
    let strict = common::rfio_as(&dir, "3.33", &late);
    assert_eq!(stdout(&strict).lines().count(), 2, "{}", stdout(&strict));
}
