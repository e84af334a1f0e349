//! fio's remaining command-line flags, each against real fio 3.33: the
//! usage text (called as `fio`, byte for byte), `--crctest`,
//! `--memcpytest`, `--cpuclock-test`, `--idle-prof`, the triggers,
//! `--aux-path`, `--alloc-size`, `--warnings-fatal`, `--max-jobs`, and the
//! client/server flags rfio refuses. Measured numbers are masked (`#`)
//! where outputs are compared.

use std::os::unix::process::CommandExt;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::{self, real_fio, rfio, stderr, stdout, TempDir};

/// Run `bin` with `args` in `dir` with `argv[0]` set to `fio` (as a
/// symlink named `fio` on `PATH` would); rfio as fio 3.33, the fio it is
/// compared with (fio ignores the variable).
fn as_fio(bin: &str, dir: &TempDir, args: &[&str]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.arg0("fio")
        .current_dir(&dir.0)
        .args(args)
        .env("RFIO_FIO_VERSION", "3.33");
    let (out, timed_out) = common::output_within(&mut cmd, common::RUN_LIMIT);
    assert!(!timed_out, "{bin} {args:?} hung");
    out
}

/// `s` with runs of spaces as one (`%-5u`, `%8.2f` pad to the number's
/// width).
fn squeeze(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if !(c == ' ' && out.ends_with(' ')) {
            out.push(c);
        }
    }
    out
}

/// `s` with every number (digits, with any `.` between them) as `#`.
fn mask(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == '.')
            {
                chars.next();
            }
            out.push('#');
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn masking_hides_numbers_only() {
    assert_eq!(
        mask("md5:\t\t  198.39 MiB/sec\ncpu  0: 12 clocks"),
        "md#:\t\t  # MiB/sec\ncpu  #: # clocks"
    );
}

/// Called as `fio`, `--help` and a command line without jobs print fio's
/// usage text, byte for byte (fio's `argv[0]` in its second line), with
/// fio's exit statuses.
#[test]
fn usage_called_as_fio_is_fios() {
    let dir = TempDir::new("flags-usage");
    let ours = as_fio(common::RFIO, &dir, &["--help"]);
    let fios = as_fio(real_fio(), &dir, &["--help"]);
    assert_eq!(stdout(&ours), stdout(&fios));
    assert_eq!((ours.status.code(), fios.status.code()), (Some(0), Some(0)));
    assert!(stdout(&ours).starts_with("fio-3.33\nfio [options] [job options] <job file(s)>\n"));
    let ours = as_fio(common::RFIO, &dir, &[]);
    let fios = as_fio(real_fio(), &dir, &[]);
    assert_eq!(
        (stdout(&ours), stderr(&ours)),
        (stdout(&fios), stderr(&fios))
    );
    assert_eq!((ours.status.code(), fios.status.code()), (Some(1), Some(1)));
}

/// Called as `rfio`, the usage is fio's (every flag, client and server
/// too), then rfio's own flags and the `plot` command.
#[test]
fn usage_called_as_rfio_lists_what_rfio_runs() {
    let dir = TempDir::new("flags-usage-rfio");
    let o = rfio(&dir, &["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(text.starts_with("fio-3.33 compatible (rfio "), "{text}");
    let fios = stdout(&common::run_in(real_fio(), &dir, &["--help"]));
    let flags: Vec<&str> = fios.lines().skip(2).take_while(|l| !l.is_empty()).collect();
    assert!(flags.iter().any(|l| l.starts_with("  --client=")));
    for line in flags {
        assert!(text.contains(&format!("\n{line}\n")), "{line}");
    }
    for own in [
        "  --repeat=N\t",
        "  --lint\t",
        "\nrfio plot FILE... -o DIR\t",
    ] {
        assert!(text.contains(own), "{own}");
    }
}

/// fio stops reading its command line at the first flag that exits: what
/// follows is never looked at.
#[test]
fn the_first_flag_that_exits_wins() {
    let dir = TempDir::new("flags-first");
    let o = as_fio(
        common::RFIO,
        &dir,
        &["--version", "--no-such-flag", "--help"],
    );
    let f = as_fio(real_fio(), &dir, &["--version", "--no-such-flag", "--help"]);
    assert_eq!(stdout(&o), "fio-3.33\n");
    assert_eq!((stdout(&o), o.status.code()), (stdout(&f), f.status.code()));
    let o = rfio(&dir, &["--crctest=list", "--version"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("md5\ncrc64\n"));
}

/// `--crctest=list` (or `help`) lists fio's names, a list naming none of
/// them says so first on stderr: both exit 1, as fio.
#[test]
fn crctest_lists_fios_names() {
    let dir = TempDir::new("flags-crclist");
    for args in [
        &["--crctest=list"][..],
        &["--crctest=help"],
        &["--crctest=foo"],
        &["--crctest=foo,bar"],
        &["--crctest="],
    ] {
        let o = rfio(&dir, args);
        let f = common::run_in(real_fio(), &dir, args);
        assert_eq!(
            (stdout(&o), stderr(&o), o.status.code()),
            (stdout(&f), stderr(&f), f.status.code()),
            "{args:?}"
        );
        assert_eq!(o.status.code(), Some(1));
    }
    let o = rfio(&dir, &["--crctest=foo"]);
    assert_eq!(stderr(&o), "fio: unknown hash `foo`. Available:\n");
    assert_eq!(stdout(&o).lines().count(), 17);
}

/// A test prints fio's line for each checksum asked for, in fio's order,
/// and exits 0.
#[test]
fn crctest_prints_fios_lines() {
    let dir = TempDir::new("flags-crc");
    let args = ["--crctest=bogus,crc32c"];
    let o = rfio(&dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let f = common::run_in(real_fio(), &dir, &args);
    // `%8.2f`: the padding depends on the speed (none from 10,000 MiB/s).
    let squeezed = |s: &str| mask(s).replace(' ', "");
    assert_eq!(squeezed(&stdout(&o)), squeezed(&stdout(&f)));
    assert_eq!(squeezed(&stdout(&o)), "crc#c:\t\t#MiB/sec\n");
    let line = stdout(&o);
    let num = line
        .strip_prefix("crc32c:\t\t")
        .and_then(|l| l.strip_suffix(" MiB/sec\n"))
        .expect("fio's line");
    assert!(
        num.len() >= 8 && num.trim_start().parse::<f64>().is_ok(),
        "{line}"
    );
    assert_eq!(stderr(&o), "");
}

/// `--memcpytest`'s names and its complaint are fio's.
#[test]
fn memcpytest_lists_fios_methods() {
    let dir = TempDir::new("flags-memcpy");
    for args in [&["--memcpytest=list"][..], &["--memcpytest=fast"]] {
        let o = rfio(&dir, args);
        let f = common::run_in(real_fio(), &dir, args);
        assert_eq!(
            (stdout(&o), stderr(&o), o.status.code()),
            (stdout(&f), stderr(&f), f.status.code()),
            "{args:?}"
        );
    }
}

/// `--cpuclock-test`: fio's lines (the calibration as fio's `time` debug
/// lines, one line per CPU's thread, the verdict), with rfio's own
/// measures; status 0 exactly when it says `cs: Pass!`.
#[test]
fn cpuclock_test_prints_fios_lines() {
    let dir = TempDir::new("flags-cpuclock");
    let o = rfio(&dir, &["--cpuclock-test"]);
    let f = common::run_in(real_fio(), &dir, &["--cpuclock-test"]);
    let (ours, fios) = (stdout(&o), stdout(&f));
    let head = |s: &str| -> Vec<String> {
        s.lines()
            .take_while(|l| !l.starts_with("cs: cpu"))
            .map(|l| {
                // The calibration's values decide how many shift lines
                // follow: keep the line shapes (the pid is padded).
                squeeze(&mask(l))
            })
            .collect()
    };
    let (h, fh) = (head(&ours), head(&fios));
    assert_eq!(h.first(), fh.first());
    assert!(h[0] == "cs: reliable_tsc: yes" || h[0] == "cs: reliable_tsc: no");
    assert_eq!(h[1], "time # cycles[#]=#");
    assert_eq!(h[51], "time # min=#, max=#, mean=#, S=#, N=#");
    assert_eq!(h[52], "time # trimmed mean=#, N=#");
    assert_eq!(h.last(), fh.last());
    assert_eq!(h.last().map(String::as_str), Some("cs: Testing # CPUs"));
    assert_eq!(h.len(), fh.len(), "rfio:\n{ours}\nfio:\n{fios}");
    let cpus = ours.lines().filter(|l| l.starts_with("cs: cpu")).count();
    let fio_cpus = fios.lines().filter(|l| l.starts_with("cs: cpu")).count();
    assert_eq!(cpus, fio_cpus);
    let last = ours.lines().last().unwrap_or_default();
    match o.status.code() {
        Some(0) => assert_eq!(last, "cs: Pass!"),
        Some(1) => assert!(last.starts_with("cs: Failed: "), "{last}"),
        s => panic!("status {s:?}"),
    }
}

/// `--idle-prof=calibrate` prints fio's two lines and exits 0; a bad mode
/// is refused.
#[test]
fn idle_prof_calibrate_prints_the_unit_of_work() {
    let dir = TempDir::new("flags-idle-cali");
    let o = rfio(&dir, &["--idle-prof=calibrate"]);
    let f = common::run_in(real_fio(), &dir, &["--idle-prof=calibrate"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(mask(&stdout(&o)), mask(&stdout(&f)));
    assert_eq!(
        mask(&stdout(&o)),
        "CPU idleness:\n  unit work: mean=#us, stddev=#\n"
    );
    let o = rfio(&dir, &["--idle-prof=often"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: command line argument 1: incorrect idle-prof option: often\n"
    );
}

/// `--idle-prof=percpu`: fio's section after the group's line in the
/// normal output, and `cpu_idleness` (system, each CPU, the unit of work)
/// at the end of the JSON document.
#[test]
fn idle_prof_reports_fios_sections() {
    let dir = TempDir::new("flags-idle");
    let args = [
        "--idle-prof=percpu",
        "--output-format=json,normal",
        "--name=j",
        "--ioengine=null",
        "--size=4m",
    ];
    let o = rfio(&dir, &args);
    let f = common::run_in(real_fio(), &dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tail = |s: &str| -> String {
        let at = s.rfind("\nCPU idleness:\n").expect("an idleness section");
        mask(&s[at..])
    };
    assert_eq!(tail(&stdout(&o)), tail(&stdout(&f)));
    assert!(tail(&stdout(&o)).starts_with("\nCPU idleness:\n  system: #%\n  percpu: #%"));
    let json = |s: &str| -> serde_json::Value {
        let start = s.find("\n{\n").expect("a JSON document") + 1;
        let end = s.find("\n}\n").expect("a JSON document") + 3;
        serde_json::from_str(&s[start..end]).expect("valid JSON")
    };
    let (ours, fios) = (json(&stdout(&o)), json(&stdout(&f)));
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object().expect("an object").keys().cloned().collect()
    };
    assert_eq!(keys(&ours), keys(&fios));
    assert_eq!(keys(&ours).last().map(String::as_str), Some("cpu_idleness"));
    assert_eq!(keys(&ours["cpu_idleness"]), keys(&fios["cpu_idleness"]));
    let idle = &ours["cpu_idleness"];
    assert_eq!(keys(idle)[..2], ["system".to_string(), "cpu-0".to_string()]);
    assert!(idle["unit_mean"].as_f64().is_some_and(|m| m > 0.0));
}

/// The job file of a long job: null engine, time based.
const LONG_JOB: [&str; 6] = [
    "--name=j",
    "--ioengine=null",
    "--size=64m",
    "--time_based",
    "--runtime=20",
    "--eta=never",
];

/// `--trigger-timeout`: after that many seconds the jobs stop, the
/// `--trigger` command runs (its output before the report), the report
/// follows, and the status is the jobs' (0). Every job leaves its verify
/// state file, the one of a later group that never started too (the same
/// bytes as fio's).
#[test]
fn a_trigger_timeout_stops_the_jobs_and_runs_the_command() {
    let mut args = LONG_JOB.to_vec();
    args.extend([
        "--iodepth=4",
        "--name=b",
        "--stonewall",
        "--ioengine=null",
        "--size=1m",
        "--rw=write",
        "--trigger-timeout=1",
        "--trigger=echo TRIGGERED",
    ]);
    let (dir, fdir) = (
        TempDir::new("flags-trigger-time"),
        TempDir::new("flags-trigger-fio"),
    );
    let t = Instant::now();
    let o = rfio(&dir, &args);
    let took = t.elapsed();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(took < Duration::from_secs(10), "{took:?}");
    let seen = "Starting 2 processes\nTRIGGERED\n\nj: (groupid=0, jobs=1): err= 0:";
    assert!(stdout(&o).contains(seen), "{}", stdout(&o));
    assert_eq!(stderr(&o), "");
    let f = common::run_in(real_fio(), &fdir, &args);
    assert!(stdout(&f).contains(seen));
    assert_eq!(f.status.code(), Some(0));
    assert!(dir.file("local-j-0-verify.state").exists());
    let state = |d: &TempDir| std::fs::read(d.file("local-b-1-verify.state")).expect("b's state");
    assert_eq!(state(&dir), state(&fdir));
    // Under a second of run time counts as none.
    let mut args = vec!["--name=j", "--ioengine=null", "--size=1m"];
    args.extend(["--trigger-timeout=500ms", "--trigger=echo TRIGGERED"]);
    let o = rfio(&dir, &args);
    assert!(!stdout(&o).contains("TRIGGERED"));
}

/// `--trigger-file`: the trigger fires once the file exists, and the file
/// is removed; the jobs that write with verify leave their state file.
#[test]
fn a_trigger_file_fires_and_is_removed() {
    let dir = TempDir::new("flags-trigger-file");
    let trig = dir.file("go");
    let mut args = LONG_JOB.to_vec();
    args.extend([
        "--rw=write",
        "--verify=crc32c",
        "--trigger-file=go",
        "--trigger=echo FIRED",
        "--trigger-remote=echo remote",
    ]);
    let toucher = {
        let trig = trig.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(700));
            std::fs::write(&trig, "").unwrap();
        })
    };
    let t = Instant::now();
    let o = rfio(&dir, &args);
    toucher.join().unwrap();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("\nFIRED\n"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("remote"));
    assert!(!trig.exists());
    assert!(dir.file("local-j-0-verify.state").exists());
}

/// A trigger timeout fio cannot read is refused.
#[test]
fn a_bad_trigger_timeout_is_refused() {
    let dir = TempDir::new("flags-trigger-bad");
    let o = rfio(
        &dir,
        &["--trigger-timeout=soon", "--name=j", "--ioengine=null"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: command line argument 1: failed parsing time soon\n"
    );
    let f = common::run_in(real_fio(), &dir, &["--trigger-timeout=soon"]);
    assert_eq!(stderr(&f), "fio: failed parsing time soon\n");
}

/// `--aux-path`: the verify state file is written to and read from that
/// directory (fio's `DIR/local-NAME-N-verify.state`), and the verify
/// dumps go there; a directory that does not exist gives fio's messages.
#[test]
fn aux_path_holds_the_state_files_and_dumps() {
    let dir = TempDir::new("flags-aux");
    std::fs::create_dir(dir.file("aux")).unwrap();
    let write = [
        "--aux-path=aux",
        "--name=j",
        "--ioengine=null",
        "--size=1m",
        "--rw=write",
        "--verify=crc32c",
        "--do_verify=0",
    ];
    let o = rfio(&dir, &write);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.file("aux/local-j-0-verify.state").exists());
    assert!(!dir.file("local-j-0-verify.state").exists());
    let read = [
        "--aux-path=aux",
        "--name=j",
        "--ioengine=null",
        "--size=1m",
        "--rw=read",
        "--verify=crc32c",
        "--verify_state_load=1",
    ];
    let o = rfio(&dir, &read);
    assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()));
    let mut missing = read.to_vec();
    missing[0] = "--aux-path=nowhere";
    let o = rfio(&dir, &missing);
    let f = common::run_in(real_fio(), &dir, &missing);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), stderr(&f));
    assert_eq!(
        stderr(&o),
        "fio: open state file: No such file or directory\n\
         fio: state file: nowhere/local-j-0-verify.state (for_write=0)\n"
    );
    let mut missing = write.to_vec();
    missing[0] = "--aux-path=nowhere";
    let o = rfio(&dir, &missing);
    let f = common::run_in(real_fio(), &dir, &missing);
    assert_eq!(stderr(&o), stderr(&f));
    // A block that fails its check is dumped there.
    std::fs::write(dir.file("data"), vec![0u8; 8192]).unwrap();
    let dump = [
        "--aux-path=aux",
        "--name=j",
        "--filename=data",
        "--size=8k",
        "--rw=read",
        "--verify=crc32c",
        "--verify_dump=1",
        "--verify_fatal=1",
    ];
    let o = rfio(&dir, &dump);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("       hdr_fail data dumped as aux/data.0.hdr_fail\n"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(dir.file("aux/data.0.hdr_fail")).unwrap(),
        vec![0u8; 4096]
    );
}

/// `--alloc-size` sizes fio's shared pool, which rfio does not have: any
/// size fio reads is accepted; a negative one (fio crashes) is refused.
#[test]
fn alloc_size_is_read_as_fio_reads_it() {
    let dir = TempDir::new("flags-alloc");
    for size in ["16384", "0", "4k", "abc"] {
        let arg = format!("--alloc-size={size}");
        let o = rfio(&dir, &[&arg, "--name=j", "--ioengine=null", "--size=1m"]);
        assert_eq!(o.status.code(), Some(0), "{size}: {}", stderr(&o));
    }
    let o = rfio(&dir, &["--alloc-size=-5", "--name=j", "--ioengine=null"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: command line argument 1: bad --alloc-size value '-5': \
         the pool size cannot be negative\n"
    );
}

/// `--max-jobs` is read and ignored, whatever its value, as fio 3.33 does.
#[test]
fn max_jobs_is_ignored() {
    let dir = TempDir::new("flags-maxjobs");
    for v in ["1", "abc"] {
        let arg = format!("--max-jobs={v}");
        let args = [
            &arg,
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--numjobs=2",
        ];
        let o = rfio(&dir, &args);
        assert_eq!(o.status.code(), Some(0), "{v}: {}", stderr(&o));
        assert!(stdout(&o).contains("Starting 2 processes"));
        assert_eq!(
            common::run_in(real_fio(), &dir, &args).status.code(),
            Some(0)
        );
    }
}

/// `--warnings-fatal`: the first job fio warns about is refused after its
/// warnings, the description lines of the jobs before it printed, no
/// usage text, status 1; byte for byte as fio.
#[test]
fn warnings_fatal_refuses_the_first_job_warned_about() {
    let dir = TempDir::new("flags-wfatal");
    dir.write(
        "w.fio",
        "[a]\nioengine=null\nsize=1m\n[b]\nioengine=null\nsize=1m\ntime_based\n\
         [c]\nioengine=null\nsize=1m\n",
    );
    let cases: [&[&str]; 4] = [
        &["--warnings-fatal", "w.fio"],
        &[
            "--warnings-fatal",
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--rw=randread",
            "--blockalign=8k",
        ],
        &[
            "--warnings-fatal",
            "--name=y",
            "--ioengine=null",
            "--size=1m",
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--rw=randwrite",
            "--verify=md5",
            "--bsrange=4k-8k",
            "--norandommap",
            "--time_based",
        ],
        &[
            "--warnings-fatal",
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--parse-only",
        ],
    ];
    for args in cases {
        let o = rfio(&dir, args);
        let f = common::run_in(real_fio(), &dir, args);
        assert_eq!(
            (stdout(&o), stderr(&o), o.status.code()),
            (stdout(&f), stderr(&f), f.status.code()),
            "{args:?}"
        );
    }
    let o = rfio(&dir, cases[0]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("a: (g=0): rw=read"));
    assert_eq!(
        stderr(&o),
        "fio: time_based requires a runtime/timeout setting\n"
    );
    // Without the flag, the same file runs.
    assert_eq!(rfio(&dir, &["w.fio"]).status.code(), Some(0));
}

/// fio's client/server flags without their mode (`--server`, `--client`:
/// tests/it/server.rs and client.rs).
#[test]
fn client_server_flags_without_their_mode() {
    let dir = TempDir::new("flags-server");
    let job = ["--name=j", "--ioengine=null", "--size=1m", "--minimal"];
    // --daemonize without --server: the job runs here, as with fio.
    let o = rfio(&dir, &[&["--daemonize=pid"][..], &job[..]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("3;fio-3.33;j;0;0;1024;"),
        "{}",
        stdout(&o)
    );
    assert!(!dir.file("pid").exists());
    // --remote-config without --client: fio exits 1 silently; rfio says
    // why, and as fio it is silent too.
    let o = rfio(&dir, &[&["--remote-config=x.fio"][..], &job[..]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: --remote-config needs --client (it names a job file on the server)\n"
    );
    assert_eq!(stdout(&o), "");
    let o = rfio(
        &dir,
        &[&["--compat=fio", "--remote-config=x.fio"][..], &job[..]].concat(),
    );
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(1), ""));
}
