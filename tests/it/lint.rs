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

/// The rules that ask the machine, on real targets: a file on tmpfs
/// (/dev/shm), one in `/` itself, a size no file system here has room for.
/// The lint creates nothing: none of the files exists afterwards.
#[test]
fn targets_on_tmpfs_on_root_and_without_room() {
    assert!(
        std::path::Path::new("/dev/shm").is_dir(),
        "Linux's /dev/shm (tmpfs) is needed"
    );
    let tail = "size=1m\nrw=randread\ndirect=1\nioengine=libaio\niodepth=4\n";
    let shm = format!("/dev/shm/rfio-lint-{}", std::process::id());
    shows(
        "tmpfs-target",
        &format!("[j]\nfilename={shm}\n{tail}"),
        ("j", 2),
        &format!("[j]\n# rfio: allow tmpfs-target\nfilename={shm}\n{tail}"),
    );
    assert!(!std::path::Path::new(&shm).exists());
    let probe = format!("rfio-lint-{}", std::process::id());
    shows(
        "root-fs-target",
        &format!("[j]\ndirectory=/\nfilename={probe}\n{tail}"),
        ("j", 3),
        &format!("[j]\n# rfio: allow root-fs-target\ndirectory=/\nfilename={probe}\n{tail}"),
    );
    assert!(!std::path::Path::new("/").join(&probe).exists());
    // 1 EiB: no file system here has it.
    let big = "[j]\nfilename=f\nrw=randwrite\ndirect=1\nioengine=libaio\niodepth=4\n\
               refill_buffers=1\n";
    shows(
        "no-room",
        &format!("{big}size=1024p\n"),
        ("j", 8),
        &format!("{big}size=1m\n"),
    );
}

/// A block device (a loop device with 4 KiB sectors and nr_requests 128):
/// writes to it, direct I/O below its logical block size, and a depth
/// above its queue are found; its node on devtmpfs is not "on tmpfs".
/// (Root and a loop device are needed: fails without, unless
/// `RFIO_TEST_NO_LOOP=1`.)
#[test]
fn a_block_device_target() {
    let dir = TempDir::new("loop");
    let dev = common::LoopDevice::with_sector_size(&dir, 8 << 20, 4096);
    let Some(dev) = common::need("loop", dev) else {
        return;
    };
    let nr_requests: u64 = std::fs::read_to_string(format!(
        "/sys/block/{}/queue/nr_requests",
        dev.0.trim_start_matches("/dev/")
    ))
    .unwrap()
    .trim()
    .parse()
    .unwrap();
    let head = format!(
        "[j]\nfilename={}\nsize=1m\nioengine=libaio\ndirect=1\n",
        dev.0
    );
    let (code, found) = lint(
        "loop",
        &format!(
            "{head}rw=randwrite\nrefill_buffers=1\nbs=512\niodepth={}\n",
            nr_requests + 1
        ),
    );
    let rules: Vec<&str> = found.iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(
        rules,
        [
            "raw-device-write",
            "direct-bs-alignment",
            "depth-over-nr-requests"
        ],
        "{found:?}"
    );
    assert_eq!(code, 1);
    assert_eq!(of(&found, "raw-device-write"), [("j".to_string(), 2)]);
    assert_eq!(of(&found, "direct-bs-alignment"), [("j".to_string(), 8)]);
    assert_eq!(of(&found, "depth-over-nr-requests"), [("j".to_string(), 9)]);
    let m = found[1]["message"].as_str().unwrap();
    assert!(m.contains("logical block size (4096)"), "{m}");
    // Reads of 4 KiB at a depth the queue holds: nothing to say.
    let (code, found) = lint("loop-ok", &format!("{head}rw=randread\nbs=4k\niodepth=8\n"));
    assert_eq!((code, found.len()), (0, 0), "{found:?}");
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
