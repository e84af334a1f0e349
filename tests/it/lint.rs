//! `rfio --lint`: each rule on a job file that shows it (with its file and
//! line), silenced by `# rfio: allow RULE` or `--lint-allow`, one finding
//! per target, exit statuses 0/1/2, text and JSON reports, command-line
//! jobs, the one-line warnings before a run on a terminal.

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
    let job = "[j]\nioengine=psync\nfilename=f\nsize=1m\nrw=randwrite\ntime_based\nruntime=1\n";
    shows(
        "no-ramp-random-write",
        job,
        ("j", 6),
        &format!("{job}ramp_time=1\n"),
    );
    // The null engine writes to no device: nothing to ramp.
    let null = job.replace("ioengine=psync", "ioengine=null");
    assert_eq!(
        of(&lint("no-ramp-null", &null).1, "no-ramp-random-write"),
        []
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
    assert!(out.ends_with(
        "rfio: lint: 1 problem (silence a rule with `# rfio: allow RULE` or --lint-allow=RULE)\n"
    ));
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

/// The command lines of the README's code blocks that run a job: those
/// starting `rfio --name=` (`\`-continued lines joined), without `rfio`.
fn readme_command_lines(readme: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut in_code = false;
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code || !line.starts_with("rfio --name=") {
            continue;
        }
        let mut cmd = line.to_string();
        while cmd.ends_with('\\') {
            cmd.pop();
            cmd.push_str(lines.next().unwrap_or(""));
        }
        let words = cmd.split('#').next().unwrap().split_whitespace();
        out.push(words.skip(1).map(String::from).collect());
    }
    out
}

/// Every job the docs run lints clean: the example job files, each job
/// file the README names (`jobfiles/...fio`) and each of its command-line
/// jobs (run in a folder on the disk the tests build on, as a reader runs
/// them in theirs; a demo's folder on `/` is allowed on its command line).
#[test]
fn the_example_job_files_lint_clean() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = repo.join("jobfiles/examples");
    let clean = |o: &std::process::Output, what: &str| {
        assert_eq!(
            (stdout(o).as_str(), o.status.code()),
            ("rfio: lint: no problems found\n", Some(0)),
            "{what}: {}",
            stderr(o)
        );
    };
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    for word in readme.split(|c: char| c.is_whitespace() || "`()[]<>,;:".contains(c)) {
        if word.starts_with("jobfiles/") && word.ends_with(".fio") {
            let path = repo.join(word);
            assert!(
                path.is_file(),
                "the README names {word}, which is not there"
            );
            files.push(path);
        }
    }
    for path in &files {
        let o = rfio(&root, &["--lint", path.to_str().unwrap()]);
        clean(&o, &path.display().to_string());
    }
    let commands = readme_command_lines(&readme);
    assert!(
        !commands.is_empty(),
        "the README's command-line jobs are found"
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lint-readme");
    std::fs::create_dir_all(&dir).unwrap();
    for cmd in &commands {
        let mut argv = vec!["--lint"];
        argv.extend(cmd.iter().map(String::as_str));
        let o = rfio(&dir, &argv);
        clean(&o, &cmd.join(" "));
    }
}

/// The jobs named by each finding of `rule`.
fn jobs_of(found: &[serde_json::Value], rule: &str) -> Vec<Vec<String>> {
    found
        .iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| {
            let jobs = f["jobs"].as_array().unwrap();
            jobs.iter()
                .map(|j| j.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

/// Four sections on one file with four `rw` and nothing between them run
/// all at once: one finding, at the second section's header, naming the
/// four; a stonewall in each (or group_reporting) says otherwise.
#[test]
fn concurrent_workloads() {
    let section = |rw: &str, extra: &str| {
        format!(
            "[{rw}]\n{extra}filename=f\nioengine=libaio\ndirect=1\niodepth=8\nsize=1m\n\
             refill_buffers=1\nrw={rw}\n"
        )
    };
    let rws = ["randread", "randwrite", "read", "write"];
    let file = |extra: &str| -> String {
        rws.iter()
            .enumerate()
            .map(|(i, rw)| section(rw, if i == 0 { "" } else { extra }))
            .collect()
    };
    let bad = file("");
    shows(
        "concurrent-workloads",
        &bad,
        ("randwrite", 9),
        &file("stonewall\n"),
    );
    let (_, found) = lint("concurrent", &bad);
    assert_eq!(
        jobs_of(&found, "concurrent-workloads"),
        [rws.map(String::from)]
    );
    let m = found
        .iter()
        .find(|f| f["rule"] == "concurrent-workloads")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        m.starts_with("sections 'randread' (randread), 'randwrite' (randwrite), 'read' (read), 'write' (write) run at the same time on /"),
        "{m}"
    );
    let (_, found) = lint("grouped", &format!("[global]\ngroup_reporting\n{bad}"));
    assert_eq!(of(&found, "concurrent-workloads"), []);
}

#[test]
fn numjobs_shared_file() {
    let job = "[j]\nfilename=f\nioengine=libaio\ndirect=1\niodepth=8\nsize=1m\n\
               refill_buffers=1\nrw=randwrite\nnumjobs=4\n";
    shows(
        "numjobs-shared-file",
        job,
        ("j", 9),
        &format!("{job}offset_increment=1m\n"),
    );
    let (_, found) = lint("numjobs", job);
    let f = found.iter().find(|f| f["rule"] == "numjobs-shared-file");
    let m = f.unwrap()["message"].as_str().unwrap();
    assert!(m.starts_with("numjobs=4 write "), "{m}");
}

/// A file made with `fallocate` (unwritten extents) and one made with
/// `set_len` (a hole), read as they are: found; the same read of a written
/// file, or a size larger than the file (fio lays it out), is not.
#[test]
fn read_unwritten() {
    use std::os::unix::io::AsRawFd;
    let dir = TempDir::new("unwritten");
    let job = |name: &str, size: &str| {
        format!(
            "[j]\nfilename={}\nioengine=libaio\ndirect=1\niodepth=8\nsize={size}\n\
             rw=randread\n",
            dir.file(name).display()
        )
    };
    let f = std::fs::File::create(dir.file("falloc")).unwrap();
    // SAFETY: fallocate on an open descriptor.
    assert_eq!(unsafe { libc::fallocate(f.as_raw_fd(), 0, 0, 1 << 20) }, 0);
    std::fs::File::create(dir.file("sparse"))
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    dir.write("written", &"x".repeat(1 << 20));
    let fs = std::process::Command::new("stat")
        .args(["-f", "-c", "%T"])
        .arg(&dir.0)
        .output()
        .unwrap();
    let fs = String::from_utf8_lossy(&fs.stdout).trim().to_string();
    let falloc = job("falloc", "1m");
    let (_, found) = lint("falloc", &falloc);
    // FIEMAP on ext4, xfs, btrfs; tmpfs answers SEEK_DATA with data.
    if fs != "tmpfs" {
        assert_eq!(
            of(&found, "read-unwritten"),
            [("j".to_string(), 2)],
            "{fs}: {found:?}"
        );
        let m = found
            .iter()
            .find(|f| f["rule"] == "read-unwritten")
            .unwrap()["message"]
            .as_str()
            .unwrap();
        assert!(
            m.contains("1.0 MiB unwritten (fallocated) of the 1.0 MiB"),
            "{m}"
        );
    }
    shows(
        "read-unwritten",
        &job("sparse", "1m"),
        ("j", 2),
        &job("written", "1m"),
    );
    let (_, found) = lint("sparse", &job("sparse", "1m"));
    let m = found
        .iter()
        .find(|f| f["rule"] == "read-unwritten")
        .unwrap()["message"]
        .as_str()
        .unwrap();
    assert!(m.contains("1.0 MiB in holes (sparse)"), "{m}");
    let (_, found) = lint("laid-out", &job("falloc", "2m"));
    assert_eq!(of(&found, "read-unwritten"), []);
    // An earlier job writes it first.
    let written_first = format!(
        "[w]\nfilename={}\nioengine=libaio\ndirect=1\niodepth=8\nsize=1m\nrw=write\n\
         refill_buffers=1\n{}",
        dir.file("falloc").display(),
        job("falloc", "1m").replace("[j]", "[j]\nstonewall")
    );
    let (_, found) = lint("written-first", &written_first);
    assert_eq!(of(&found, "read-unwritten"), []);
}

/// fio 3.33 warns "time_based requires a runtime/timeout setting" and runs
/// the job through its size.
#[test]
fn time_based_no_runtime() {
    let job = "[j]\nioengine=null\nsize=1m\ntime_based\n";
    shows(
        "time-based-no-runtime",
        job,
        ("j", 4),
        &format!("{job}runtime=1\n"),
    );
}

#[test]
fn log_every_io() {
    let job = "[j]\nfilename=f\nsize=1m\nioengine=libaio\ndirect=1\niodepth=8\ntime_based\n\
               runtime=30\nwrite_bw_log=bw\n";
    shows(
        "log-every-io",
        job,
        ("j", 9),
        &format!("{job}log_avg_msec=1000\n"),
    );
}

/// Four jobs on one file in `/`: one root-fs-target finding naming the
/// four, at the line of `[global]`'s `directory=` (the culprit).
#[test]
fn one_finding_per_target() {
    let probe = format!("rfio-lint-once-{}", std::process::id());
    let mut text = format!(
        "[global]\ndirectory=/\nfilename={probe}\nioengine=libaio\ndirect=1\niodepth=4\n\
         size=1m\n"
    );
    for rw in ["randread", "read", "randread", "read"] {
        text.push_str(&format!("[{rw}{}]\nstonewall\nrw={rw}\n", text.len()));
    }
    let (code, found) = lint("once", &text);
    assert_eq!(code, 1);
    let at = of(&found, "root-fs-target");
    assert_eq!(at.len(), 1, "{found:?}");
    assert_eq!(at[0].1, 3);
    assert_eq!(jobs_of(&found, "root-fs-target")[0].len(), 4);
    assert!(!std::path::Path::new("/").join(&probe).exists());
}

/// `--lint-allow` silences rules of job files and command-line jobs; a name
/// that is no rule is refused, naming the rules.
#[test]
fn lint_allow_flag() {
    let dir = TempDir::new("allow");
    dir.write(
        "job.fio",
        "[j]\nioengine=null\nsize=1m\nrw=randrw\ntime_based\n",
    );
    let o = rfio(&dir, &["--lint", "job.fio"]);
    assert_eq!(o.status.code(), Some(1));
    let o = rfio(
        &dir,
        &[
            "--lint",
            "--lint-allow=rwmix-default,time-based-no-runtime",
            "job.fio",
        ],
    );
    assert_eq!(
        (stdout(&o).as_str(), o.status.code()),
        ("rfio: lint: no problems found\n", Some(0))
    );
    let o = rfio(&dir, &["--lint", "--lint-allow=all", "job.fio"]);
    assert_eq!(o.status.code(), Some(0));
    let cmdline = ["--name=j", "--ioengine=null", "--size=1m", "--rw=rw"];
    let mut args = vec!["--lint", "--lint-allow=rwmix-default"];
    args.extend_from_slice(&cmdline);
    let o = rfio(&dir, &args);
    assert_eq!(
        (stdout(&o).as_str(), o.status.code()),
        ("rfio: lint: no problems found\n", Some(0))
    );
    let o = rfio(&dir, &["--lint", "--lint-allow=rwmix-defualt", "job.fio"]);
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        err.contains(
            "--lint-allow=rwmix-defualt: no lint rule 'rwmix-defualt' (the rules: buffered-io, "
        ),
        "{err}"
    );
    assert!(err.contains("rwmix-default"), "{err}");
}

/// Run `bin` with its stderr on a new terminal (a pty): its exit status
/// and what it wrote there.
fn on_terminal(bin: &str, dir: &TempDir, args: &[&str]) -> (i32, String) {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two descriptors; the other arguments may be null.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors are ours alone from here on.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut child = std::process::Command::new(bin)
        .current_dir(&dir.0)
        .args(args)
        .env("RFIO_FIO_VERSION", "3.33")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::from(slave))
        .spawn()
        .unwrap();
    let status = child.wait().unwrap();
    let mut text = Vec::new();
    // EIO once the terminal's other end is closed and read out.
    let _ = std::fs::File::from(master).read_to_end(&mut text);
    let text = String::from_utf8_lossy(&text).replace("\r\n", "\n");
    (status.code().unwrap_or(-1), text)
}

/// Before a run on a terminal: one short line per finding, naming the rule;
/// `--lint-allow` silences it; called as `fio`, nothing is printed.
#[test]
fn a_run_on_a_terminal_prints_one_short_line_per_finding() {
    let dir = TempDir::new("tty");
    dir.write("job.fio", "[j]\nioengine=null\nsize=64k\nrw=randrw\n");
    let run = ["--output-format=terse", "job.fio"];
    let (code, err) = on_terminal(common::RFIO, &dir, &run);
    assert_eq!(code, 0);
    assert_eq!(
        err,
        "rfio: lint: job.fio:4: rwmix-default: a mixed workload with rwmixread left at 50 \
         (rfio --lint explains)\n"
    );
    let (code, err) = on_terminal(
        common::RFIO,
        &dir,
        &[
            "--lint-allow=rwmix-default",
            "--output-format=terse",
            "job.fio",
        ],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let bin = TempDir::new("tty-bin");
    std::os::unix::fs::symlink(common::RFIO, bin.file("fio")).unwrap();
    let (code, err) = on_terminal(bin.file("fio").to_str().unwrap(), &dir, &run);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn steadystate_size_bound() {
    let job = "[j]\nioengine=null\nsize=1m\nss=iops:2%\nss_dur=5\n";
    shows(
        "steadystate-size-bound",
        job,
        ("j", 4),
        &format!("{job}time_based\nruntime=10\n"),
    );
}
