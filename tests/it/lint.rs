//! `rfio --lint`: each rule on a job file that shows it (with its file and
//! line), silenced by `# rfio: allow RULE`, exit statuses 0/1/2, text and
//! JSON reports, command-line jobs.

use crate::common;
use common::{rfio, stderr, stdout, TempDir};

/// `rfio --lint --lint-format=json job.fio` on `text`: the exit status and
/// the findings.
fn lint(tag: &str, text: &str) -> (i32, Vec<serde_json::Value>) {
    let dir = TempDir::new(tag);
    dir.write("job.fio", text);
    let o = rfio(&dir, &["--lint", "--lint-format=json", "job.fio"]);
    let found: Vec<serde_json::Value> = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&o), stderr(&o)));
    (o.status.code().unwrap(), found)
}

/// The (job, line) of each finding of `rule`.
fn of(found: &[serde_json::Value], rule: &str) -> Vec<(String, u64)> {
    found
        .iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| {
            assert_eq!(f["file"], "job.fio", "{f}");
            assert!(!f["message"].as_str().unwrap().is_empty());
            assert!(!f["fix"].as_str().unwrap().is_empty());
            (
                f["job"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `bad` shows `rule` at (job, line); `good` (the same job with an allow
/// comment, or fixed) does not.
fn shows(rule: &str, bad: &str, at: (&str, u64), good: &str) {
    let (code, found) = lint(rule, bad);
    assert_eq!(of(&found, rule), [(at.0.to_string(), at.1)], "{found:?}");
    assert_eq!(code, 1);
    let (_, found) = lint(rule, good);
    assert_eq!(of(&found, rule), [], "{found:?}");
}

#[test]
fn buffered_io() {
    let job = "[j]\nioengine=psync\nfilename=f\nsize=1m\nrw=read\n";
    shows(
        "buffered-io",
        job,
        ("j", 1),
        &format!("# rfio: allow buffered-io\n{job}"),
    );
    shows(
        "buffered-io",
        &format!("{job}direct=0\n"),
        ("j", 6),
        &format!("{job}direct=1\n"),
    );
}

#[test]
fn async_without_direct() {
    let job = "[j]\nioengine=libaio\nfilename=f\nsize=1m\nrw=randread\n";
    shows(
        "async-without-direct",
        job,
        ("j", 2),
        &format!("{job}direct=1\n"),
    );
    shows(
        "async-without-direct",
        job,
        ("j", 2),
        &format!("[global]\n; rfio: allow async-without-direct\n{job}"),
    );
}

#[test]
fn sync_engine_depth() {
    let job = "[j]\nioengine=psync\nfilename=f\nsize=1m\niodepth=16\n";
    shows(
        "sync-engine-depth",
        job,
        ("j", 5),
        &format!("{job}# rfio: allow sync-engine-depth\n"),
    );
}

#[test]
fn zero_buffers() {
    let job = "[j]\nioengine=psync\nfilename=f\nsize=1m\nrw=write\n";
    shows(
        "zero-buffers",
        &format!("{job}zero_buffers=1\n"),
        ("j", 6),
        job,
    );
    shows(
        "zero-buffers",
        &format!("{job}\nscramble_buffers=0\n"),
        ("j", 7),
        &format!("{job}scramble_buffers=0\nrefill_buffers=1\n"),
    );
}

#[test]
fn no_ramp_random_write() {
    let job = "[j]\nioengine=null\nsize=1m\nrw=randwrite\ntime_based\nruntime=1\n";
    shows(
        "no-ramp-random-write",
        job,
        ("j", 5),
        &format!("{job}ramp_time=1\n"),
    );
}

#[test]
fn gtod_reduce_percentiles() {
    let job = "[j]\nioengine=null\nsize=1m\ngtod_reduce=1\n";
    shows(
        "gtod-reduce-percentiles",
        &format!("{job}percentile_list=50:99\n"),
        ("j", 4),
        job,
    );
}

#[test]
fn rwmix_default() {
    let job = "[j]\nioengine=null\nsize=1m\nrw=randrw\n";
    shows(
        "rwmix-default",
        job,
        ("j", 4),
        &format!("{job}rwmixread=70\n"),
    );
}

#[test]
fn short_runtime_log_avg() {
    let job = "[j]\nioengine=null\nsize=1m\ntime_based\nruntime=1\nwrite_bw_log=bw\n";
    shows(
        "short-runtime-log-avg",
        &format!("{job}log_avg_msec=1000\n"),
        ("j", 5),
        &format!("{job}log_avg_msec=100\n"),
    );
}

#[test]
fn allow_in_another_section_does_not_silence() {
    let text = "[a]\n# rfio: allow rwmix-default\nioengine=null\nsize=1m\nrw=randrw\n\
                [b]\nioengine=null\nsize=1m\nrw=randrw\n";
    let (code, found) = lint("other", text);
    assert_eq!(of(&found, "rwmix-default"), [("b".to_string(), 9)]);
    assert_eq!(code, 1);
}

#[test]
fn clean_job_exits_0_and_says_so() {
    let dir = TempDir::new("clean");
    dir.write("job.fio", "[j]\nioengine=null\nsize=1m\nrw=randread\n");
    let o = rfio(&dir, &["--lint", "job.fio"]);
    assert_eq!(stdout(&o), "rfio: lint: no problems found\n");
    assert_eq!(stderr(&o), "");
    assert_eq!(o.status.code(), Some(0));
    let o = rfio(&dir, &["--lint-format=json", "job.fio"]);
    assert_eq!((stdout(&o).as_str(), o.status.code()), ("[]\n", Some(0)));
}

#[test]
fn text_report_names_file_line_rule_and_fix() {
    let dir = TempDir::new("text");
    dir.write("job.fio", "[j]\nioengine=null\nsize=1m\nrw=randrw\n");
    let o = rfio(&dir, &["--lint", "job.fio"]);
    let out = stdout(&o);
    assert!(
        out.starts_with("job.fio:4: job 'j': rwmix-default: rw=randrw with rwmixread left"),
        "{out}"
    );
    assert!(out.contains("\n  fix: set rwmixread"), "{out}");
    assert!(out.ends_with("rfio: lint: 1 problem (silence a rule with `# rfio: allow RULE`)\n"));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn invalid_job_exits_2_with_the_plan_error() {
    let dir = TempDir::new("invalid");
    dir.write("job.fio", "[j]\nioengine=null\nsize=1m\nrw=sideways\n");
    let o = rfio(&dir, &["--lint", "job.fio"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("job.fio:4:"), "{}", stderr(&o));
}

#[test]
fn command_line_jobs_are_linted() {
    let dir = TempDir::new("cmdline");
    let o = rfio(
        &dir,
        &[
            "--lint",
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--rw=rw",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).starts_with("command line argument 5: job 'j': rwmix-default: "),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_run_prints_no_lint_warning_when_stderr_is_not_a_terminal() {
    let dir = TempDir::new("run");
    dir.write("job.fio", "[j]\nioengine=null\nsize=64k\nrw=randrw\n");
    let o = rfio(&dir, &["--output-format=terse", "job.fio"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "");
}

#[test]
fn the_example_job_files_lint_clean() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("jobfiles/examples");
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let o = rfio(&root, &["--lint", path.to_str().unwrap()]);
        assert_eq!(
            (stdout(&o).as_str(), o.status.code()),
            ("rfio: lint: no problems found\n", Some(0)),
            "{}",
            path.display()
        );
    }
}
