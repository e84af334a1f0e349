//! `--status-interval`, SIGUSR1 and `--bandwidth-log` through the `rfio`
//! binary, against what fio 3.33 does (each expectation was seen from real
//! fio run the same way; the counts of timed reports and samples may be one
//! off either way, as fio's own are):
//!
//! - `fio --status-interval=300ms jobfiles/outputs/status-groups.fio`
//!   (group 0 for 400 ms, then group 1 for 400 ms) prints three reports
//!   while the jobs run, then the final one, all in the selected format and
//!   where the results go; `--minimal` prints three lines per report, the
//!   stonewall job's all zeros before it starts; JSON prints one complete
//!   document per report; the normal text starts each report with a blank
//!   line and ends it with every group's `Run status group` block.
//! - SIGUSR1 prints one report and the run goes on.
//! - `--bandwidth-log` writes `agg-read_bw.log`, `agg-write_bw.log` and
//!   `agg-trim_bw.log` in the working directory: empty unless the status
//!   line is shown (`--eta=always`), then `time, KiB/s, ddir, 0, 0` lines
//!   every 500-750 ms.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{run_in, Running, TempDir, RFIO, RUN_LIMIT};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("jobfiles/outputs")
        .join(name)
}

/// Run rfio with `args` in `dir`; it must succeed.
fn rfio_in(dir: &Path, args: &[&str]) -> Output {
    timed_rfio_in(dir, args).0
}

/// [`rfio_in`], and how many whole 300 ms intervals it ran at most: the
/// most reports `--status-interval=300ms` can print before the final one
/// (fio prints one every interval from its start). The wall clock only
/// bounds the count from above: on a loaded machine the run takes longer
/// than its jobs need, and may print fewer reports than that time allows.
fn timed_rfio_in(dir: &Path, args: &[&str]) -> (Output, usize) {
    let start = std::time::Instant::now();
    let out = run_in(RFIO, dir, args);
    assert!(
        out.status.success(),
        "rfio {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out, (start.elapsed().as_millis() / 300) as usize)
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 stdout")
}

/// Every JSON document of `text`, in order, each checked to be whole: it
/// starts with a line `{` and ends with a line `}`.
fn json_documents(text: &str) -> Vec<serde_json::Value> {
    let mut docs = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        assert!(rest.starts_with("{\n"), "a document starts: {rest:.40?}");
        let end = rest.find("\n}\n").expect("a document ends with a line `}`") + 3;
        docs.push(serde_json::from_str(&rest[..end]).expect("each document parses alone"));
        rest = &rest[end..];
    }
    docs
}

/// The jobs of status-groups.fio run 800 ms (two groups of 400 ms): at
/// least two 300 ms intervals pass while they run, however loaded the
/// machine.
const DUE_BY_THE_JOBS: usize = 2;

/// `n` reports (the final one included) for a run whose wall-clock time
/// allows at most `due` interval reports: at least the interval reports the
/// jobs' own run time makes due, at most those the wall clock allows, one
/// off either way (as fio's own counts are).
fn assert_reports(n: usize, due: usize, what: &str) {
    // The due interval reports and the final one, less or plus one.
    let (lo, hi) = (DUE_BY_THE_JOBS, due.max(DUE_BY_THE_JOBS) + 2);
    assert!(
        (lo..=hi).contains(&n),
        "{what}: {n}, expected {lo} to {hi} (the jobs need {DUE_BY_THE_JOBS} intervals, \
         the run took {due})"
    );
}

/// Three reports while the jobs run, then the final one: the normal text.
#[test]
fn normal_reports_come_every_interval_then_the_final_one() {
    let dir = TempDir::new("status-normal");
    let job = corpus("status-groups.fio");
    let (out, due) = timed_rfio_in(&dir.0, &["--status-interval=300ms", job.to_str().unwrap()]);
    let text = stdout(&out);
    // The banner once.
    assert_eq!(text.matches("fio-3.33\n").count(), 1, "{text}");
    assert_eq!(text.matches("Starting 3 processes\n").count(), 1);
    let starts: Vec<usize> = text
        .match_indices("\nRun status group 0 (all jobs):\n")
        .map(|(i, _)| i)
        .collect();
    assert!(due >= 2, "the run takes over 800 ms");
    assert_reports(
        starts.len(),
        due,
        "reports (every 300 ms, and the final one)",
    );
    // Every report has both groups' blocks, group 0 before group 1.
    assert_eq!(
        text.matches("\nRun status group 1 (all jobs):\n").count(),
        starts.len()
    );
    // Each report starts with a blank line, then the first job's block.
    let first = text.find("\na: (groupid=0, jobs=1): err= 0: pid=").unwrap();
    assert_eq!(&text[first - 1..first + 1], "\n\n", "a blank line before");
    // a's block is in every report once a runs (on a loaded machine the
    // first report may come before it has started), the final one included.
    let a_blocks = text.matches("a: (groupid=0, jobs=1)").count();
    assert!(
        (2..=starts.len()).contains(&a_blocks),
        "{a_blocks} blocks of a in {} reports",
        starts.len()
    );
    assert!(text[starts[starts.len() - 2]..].contains("\na: (groupid=0, jobs=1)"));
    // c runs in the last report (the final one) with its own block, and in
    // the first one it has not started: no block, an empty group 1.
    let tail = &text[text.rfind("\nRun status group 1 (all jobs):\n").unwrap()..];
    assert!(
        !tail.contains("a: (groupid=0"),
        "the final report ends the output"
    );
    let last = text
        .rfind("\nc: (groupid=1, jobs=1)")
        .expect("c's final block");
    assert!(last > starts[starts.len() - 2]);
    let first_report = &text[..text.find("\nRun status group 1 (all jobs):\n").unwrap()];
    assert!(!first_report.contains("c: (groupid=1"));
}

/// `--minimal`: one line per job and report; c's line is all zeros while
/// it has not started; the numbers grow.
#[test]
fn terse_reports_print_every_job_each_time() {
    let dir = TempDir::new("status-terse");
    let job = corpus("status-groups.fio");
    let (out, due) = timed_rfio_in(
        &dir.0,
        &[
            "--status-interval=300ms",
            "--minimal",
            job.to_str().unwrap(),
        ],
    );
    let text = stdout(&out);
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(';').collect()).collect();
    assert_eq!(lines.len() % 3, 0, "{text}");
    assert_reports(lines.len() / 3, due, "reports");
    for (i, l) in lines.iter().enumerate() {
        // 121 fields, and 9 per disk under the files (none on a tmpfs).
        assert!(l.len() >= 121 && (l.len() - 121) % 9 == 0, "{}", l.len());
        let name = ["a", "b", "c"][i % 3];
        assert_eq!((l[0], l[1], l[2]), ("3", "fio-3.33", name));
        assert_eq!(l[3], if name == "c" { "1" } else { "0" }, "group id");
    }
    // First report: c has not started: no KiB, bandwidth, IOPS or runtime
    // in its read and write blocks.
    let c = &lines[2];
    assert!(
        [5, 6, 7, 8, 46, 47, 48, 49].iter().all(|&f| c[f] == "0"),
        "{c:?}"
    );
    // a's read KiB grow from report to report (cumulative).
    let a_kib: Vec<u64> = lines
        .iter()
        .step_by(3)
        .map(|l| l[5].parse().unwrap())
        .collect();
    assert!(a_kib.windows(2).all(|w| w[0] <= w[1]), "{a_kib:?}");
    // (The first report may come before a has started on a loaded machine.)
    assert!(a_kib[a_kib.len() - 1] > 0, "{a_kib:?}");
    // The final report: c wrote for its 400 ms (its write runtime; more
    // only on a machine too loaded to stop it on time).
    let c_final = &lines[lines.len() - 1];
    let runtime: u64 = c_final[49].parse().unwrap();
    assert!((399..=60_000).contains(&runtime), "c runtime {runtime}");
}

/// JSON: one complete document per report, the jobs in each; json+ too,
/// to an `--output` file, nothing on stdout.
#[test]
fn json_reports_are_whole_documents() {
    let dir = TempDir::new("status-json");
    let job = corpus("status-groups.fio");
    let (out, due) = timed_rfio_in(
        &dir.0,
        &[
            "--status-interval=300ms",
            "--output-format=json",
            job.to_str().unwrap(),
        ],
    );
    let docs = json_documents(&stdout(&out));
    assert_reports(docs.len(), due, "documents");
    for d in &docs {
        assert_eq!(d["fio version"], "fio-3.33");
        let names: Vec<&str> = d["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["jobname"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
    }
    assert_eq!(docs[0]["jobs"][2]["write"]["io_bytes"], 0, "c not started");
    let last = &docs[docs.len() - 1]["jobs"][2]["write"];
    assert!(last["io_bytes"].as_u64().unwrap() > 0, "c ran");
    let a_last = &docs[docs.len() - 1]["jobs"][0]["read"]["io_bytes"];
    assert!(a_last.as_u64().unwrap() > 0, "a ran");

    let file = dir.file("out.json");
    let (out, due) = timed_rfio_in(
        &dir.0,
        &[
            "--status-interval=300ms",
            "--output-format=json+",
            &format!("--output={}", file.display()),
            job.to_str().unwrap(),
        ],
    );
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    let docs = json_documents(&std::fs::read_to_string(&file).unwrap());
    assert_reports(docs.len(), due, "documents in the file");
    assert!(docs[0]["jobs"][0]["read"]["clat_ns"]["bins"].is_object());
}

/// A job asleep in its rate limit cannot answer at once: the reports still
/// come on time with what it served last. (One I/O a second: it does its
/// I/O at 0 s and 1 s; its next slot, 2 s, is past its runtime, so it ends
/// at 1.2 s with two, as fio 3.33 does: 8 KiB in 1201 ms. fio waits for
/// such a job and prints fewer reports.)
#[test]
fn a_sleeping_job_does_not_hold_the_reports() {
    let dir = TempDir::new("status-sleep");
    let start = std::time::Instant::now();
    let (out, _) = timed_rfio_in(
        &dir.0,
        &[
            "--status-interval=200ms",
            "--minimal",
            "--name=slow",
            "--ioengine=null",
            "--size=1m",
            "--rate_iops=1",
            "--time_based",
            "--runtime=1200ms",
        ],
    );
    let most = (start.elapsed().as_millis() / 200) as usize + 1;
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // Before its first answer (at its I/O at 1 s) the job shows zeros;
    // the final report has its two I/Os (0 and 1 s).
    let field = |l: &str, i: usize| l.split(';').nth(i).unwrap().parse::<u64>().unwrap();
    let kib = |l: &str| field(l, 5);
    assert_eq!(kib(lines[0]), 0, "{text}");
    assert_eq!(kib(lines[lines.len() - 1]), 8, "{text}");
    // Reports came while the job slept in its rate limit (0 to 1 s):
    // several with nothing served yet; a job holding the reports would
    // allow one per I/O at most.
    let while_asleep = |k| {
        lines[..lines.len() - 1]
            .iter()
            .filter(|l| kib(l) == k)
            .count()
    };
    assert!(while_asleep(0) >= 2, "{text}");
    assert!(lines.len() <= most + 1, "at most one a 200 ms: {text}");
    // The job ends at its runtime, not at its next slot (2 s) nor later.
    let runtime = field(lines[lines.len() - 1], 8);
    assert!((1150..1900).contains(&runtime), "runtime {runtime}: {text}");
}

/// SIGUSR1: one report at once, and the run goes on to its final report.
#[test]
fn sigusr1_prints_one_report() {
    let dir = TempDir::new("status-usr1");
    let mut child = Running::start(
        Command::new(RFIO)
            .args([
                "--output-format=terse,normal",
                "--name=a",
                "--ioengine=null",
                "--size=1g",
                "--time_based",
                "--runtime=2s",
            ])
            .current_dir(&dir.0),
    );
    // The handlers are in place before `Starting` is printed.
    child.wait_for_stdout("Starting", RUN_LIMIT, |s| {
        s.contains("Starting 1 process\n")
    });
    child.signal(libc::SIGUSR1);
    let out = child.finish(RUN_LIMIT, "its 2 s job");
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("3;")).collect();
    assert_eq!(lines.len(), 2, "{text}");
    let runtime = |l: &str| l.split(';').nth(8).unwrap().parse::<u64>().unwrap();
    assert!(runtime(lines[0]) < runtime(lines[1]), "{lines:?}");
    assert!(runtime(lines[1]) >= 2000, "{lines:?}");
}

/// `--bandwidth-log`: the three agg logs, empty without the status line,
/// sampled with it.
#[test]
fn bandwidth_logs_follow_the_status_line() {
    let job = corpus("agg-randrw.fio");
    let quiet = TempDir::new("agg-quiet");
    rfio_in(&quiet.0, &["--bandwidth-log", job.to_str().unwrap()]);
    for name in ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"] {
        let len = std::fs::metadata(quiet.file(name)).expect(name).len();
        assert_eq!(len, 0, "{name} is empty without the status line");
    }

    let shown = TempDir::new("agg-shown");
    rfio_in(
        &shown.0,
        &["--bandwidth-log", "--eta=always", job.to_str().unwrap()],
    );
    let mut counts = Vec::new();
    for (d, name) in ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"]
        .iter()
        .enumerate()
    {
        let text = std::fs::read_to_string(shown.file(name)).unwrap();
        let rows: Vec<Vec<u64>> = text
            .lines()
            .map(|l| l.split(", ").map(|f| f.parse().unwrap()).collect())
            .collect();
        for r in &rows {
            assert_eq!(r.len(), 5, "{name}: {r:?}");
            assert_eq!(r[2], d as u64, "ddir");
            assert_eq!((r[3], r[4]), (0, 0), "bs and prio");
            // Taken with the status line, every 500-750 ms: never before
            // the first interval (later on a loaded machine).
            assert!((400..60_000).contains(&r[0]), "time {}", r[0]);
            if d == 2 {
                assert_eq!(r[1], 0, "nobody trims");
            } else {
                assert!(r[1] > 0, "{name} moves data");
            }
        }
        counts.push(rows.len());
    }
    // fio 3.33 wrote one line per file for this 900 ms job (two at most:
    // one a 500 ms, however long a loaded machine makes the run).
    assert!(counts.iter().all(|&n| n == counts[0]), "{counts:?}");
    assert!((1..=2).contains(&counts[0]), "agg lines: {counts:?}");
}

#[test]
fn a_status_interval_below_a_millisecond_is_refused() {
    let out = run_in(
        RFIO,
        std::env::temp_dir(),
        &["--status-interval=999us", "--name=a", "--ioengine=null"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("status-interval"), "{err}");
}
