//! The `rfio` command line end to end: exit statuses, error text on
//! stderr (file:line:col, option, reason), and `--showcmd` output.

use std::process::Command;

use crate::common;
use common::{rfio, stderr, stdout, TempDir};

/// Parse `text` as job file `job.fio` with `--parse-only`; return the exit
/// status and stderr.
fn parse_only(tag: &str, text: &str) -> (i32, String) {
    let dir = TempDir::new(tag);
    dir.write("job.fio", text);
    let o = rfio(&dir, &["--parse-only", "job.fio"]);
    (o.status.code().unwrap(), stderr(&o))
}

#[test]
fn unknown_option_suggests_the_closest() {
    let (code, err) = parse_only("typo", "[x]\nblocksiz=4k\n");
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "rfio: job.fio:2:1: job 'x': unknown option 'blocksiz' (did you mean 'blocksize'?)\n"
    );
}

#[test]
fn every_problem_is_reported_in_one_pass() {
    let (code, err) = parse_only("many", "[a]\nsize=12q\niodepth=-4\n[b]\nbs=4 k\nnosuch=1\n");
    assert_eq!(code, 1);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 4, "{err}");
    assert!(
        lines[0].starts_with("rfio: job.fio:2:1: job 'a': size=12q: fio reads this as 12 bytes "),
        "{err}"
    );
    assert!(
        lines[0].contains("the unknown unit 'q' is ignored"),
        "{err}"
    );
    assert!(
        lines[1].starts_with("rfio: job.fio:3:1: job 'a': iodepth=-4: fio reads this as no value"),
        "{err}"
    );
    assert!(
        lines[1].contains("min value out of range: -4 (1 min)"),
        "{err}"
    );
    assert!(
        lines[2].starts_with("rfio: job.fio:5:1: job 'b': bs=4 k: fio reads this as 4 bytes "),
        "{err}"
    );
    assert!(
        lines[3].starts_with("rfio: job.fio:6:1: job 'b': unknown option 'nosuch'"),
        "{err}"
    );
}

#[test]
fn syntax_errors_name_file_line_and_column() {
    let (code, err) = parse_only("outside", "size=1m\n[x]\n");
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "rfio: job.fio:1:1: option 'size=1m' is outside of any [section]: put it under [global] or a job section\n"
    );
    let (code, err) = parse_only("header", "[job\nbs=4k\n");
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "rfio: job.fio:1:1: section header '[job' has no closing ']'; fio reads this as job 'jo' \
         (it drops the last character as if it were ']'); write [jo] if you mean that, [job] for \
         job 'job', or run with --compat=fio to read it as fio does\n"
    );
    let (code, err) = parse_only("binary", "[x]\n\u{1}\u{0}\n");
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "rfio: job.fio:2:1: line holds a NUL byte at column 2: this is not a job file\n"
    );
}

#[test]
fn includes_missing_and_cyclic() {
    let dir = TempDir::new("inc");
    dir.write("a.inc", "include b.inc\n");
    dir.write("b.inc", "include a.inc\n");
    dir.write("job.fio", "[x]\ninclude a.inc\ninclude nosuch.inc\n");
    let o = rfio(&dir, &["--parse-only", "job.fio"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("b.inc:1:1: include cycle: 'a.inc' is already being read"),
        "{err}"
    );
    assert!(
        err.contains("job.fio:3:1: cannot include 'nosuch.inc': No such file or directory"),
        "{err}"
    );
}

#[test]
fn command_line_only_options_are_refused_in_job_files() {
    let (code, err) = parse_only("cmdonly", "[x]\noutput=foo\n");
    assert_eq!(code, 1);
    assert_eq!(err, "rfio: job.fio:2:1: job 'x': 'output' is a command-line option (--output), not a job option\n");
}

#[test]
fn engine_options_need_their_engine() {
    let (code, err) = parse_only("engopt", "[x]\nioengine=psync\nuserspace_reap\n");
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "rfio: job.fio:3:1: job 'x': option 'userspace_reap' belongs to ioengine libaio, but this job uses ioengine=psync\n"
    );
    let (code, err) = parse_only("engok", "[x]\nioengine=libaio\nuserspace_reap\n");
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn missing_job_file() {
    let dir = TempDir::new("missing");
    let o = rfio(&dir, &["nosuch.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: unable to open 'nosuch.fio' job file: No such file or directory\n"
    );
}

#[test]
fn command_line_errors() {
    let dir = TempDir::new("args");
    let o = rfio(&dir, &["--parse-only", "--name=x", "--iodept=4"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with(
        "rfio: command line argument 3: option '--iodept' is ambiguous; possibilities: --iodepth "
    ));
    let o = rfio(&dir, &["--parse-only", "--name=x", "--nosuchopt=3"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: command line argument 3: unrecognized option '--nosuchopt'\n"
    );
    let o = rfio(&dir, &["--output-format=xml"]);
    assert_eq!(o.status.code(), Some(1));
    let o = rfio(&dir, &["--section=global", "x.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: command line argument 1: can't use global as only section\n"
    );
    // Unambiguous prefixes and single dashes work, as with getopt_long_only.
    let o = rfio(
        &dir,
        &[
            "--parse-only",
            "-name=x",
            "--time_bas",
            "--readwrite=randread",
            "--bs",
            "8k",
        ],
    );
    assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()));
}

#[test]
fn no_jobs() {
    let dir = TempDir::new("nojobs");
    let o = rfio(&dir, &[]);
    assert_eq!(o.status.code(), Some(1));
    // fio's line ends in a blank line.
    assert_eq!(stderr(&o), "No job(s) defined\n\n");
    assert_eq!(
        stderr(&common::run_in(common::real_fio(), &dir, &[])),
        stderr(&o)
    );
    assert!(stdout(&o).contains("--parse-only"));
    let o = rfio(&dir, &["--parse-only"]);
    assert_eq!(o.status.code(), Some(0));
}

/// A minimum rate above the rate is refused as fio refuses it while it
/// adds the jobs: fio's line for each direction on stderr, the description
/// lines of the jobs added before on stdout (or, with none, the usage and
/// `No job(s) defined`), status 1; `--parse-only` accepts it.
#[test]
fn a_minimum_rate_above_the_rate_is_refused_when_jobs_are_added() {
    let dir = TempDir::new("rate-min");
    let ok = ["--name=c", "--ioengine=null", "--size=1m", "--numjobs=2"];
    let bad = [
        "--name=a",
        "--ioengine=null",
        "--size=1m",
        "--rate=1k,2k",
        "--rate_min=2k,1k",
    ];
    let bad_iops = [
        "--name=b",
        "--ioengine=null",
        "--size=1m",
        "--rate_iops=1",
        "--rate_iops_min=2",
    ];
    // (A third section after the refused one changes fio's course in ways
    // not reproduced: it may run the first job and still exit 1.)
    let after_one: Vec<&str> = ok.iter().chain(&bad_iops).copied().collect();
    let o = rfio(&dir, &after_one);
    let f = common::run_in(common::real_fio(), &dir, &after_one);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "fio: minimum rate exceeds rate, ddir 0\n\
         fio: minimum rate exceeds rate, ddir 1\n\
         fio: minimum rate exceeds rate, ddir 2\n"
    );
    assert!(
        stdout(&o).starts_with("c: (g=0): rw=read"),
        "{}",
        stdout(&o)
    );
    assert_eq!((stdout(&o), stderr(&o)), (stdout(&f), stderr(&f)));
    assert_eq!(f.status.code(), Some(1));
    // The first job refused: only the read direction is above its rate.
    let first: Vec<&str> = bad.iter().chain(&ok).copied().collect();
    let o = rfio(&dir, &first);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "fio: minimum rate exceeds rate, ddir 0\nNo job(s) defined\n\n"
    );
    assert_eq!(
        stderr(&o),
        stderr(&common::run_in(common::real_fio(), &dir, &first))
    );
    let mut parse_only = first.clone();
    parse_only.push("--parse-only");
    assert_eq!(rfio(&dir, &parse_only).status.code(), Some(0));
}

#[test]
fn showcmd_prints_fios_command_line() {
    let dir = TempDir::new("showcmd");
    dir.write(
        "job.fio",
        "[global]\nblocksize=4k\nfilename=foo\nkb_base=1000\ndescription=hello world\ntime_based\n\
         [j1]\nbs=8k\n[global]\niodepth=4\n[j2]\nnumjobs=2\n",
    );
    let o = rfio(&dir, &["--showcmd", "job.fio"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // fio 3.33: options sorted by priority (kb_base first, filename last),
    // canonical names, a later [global] reprints every global option.
    assert_eq!(
        stdout(&o),
        "fio --kb_base=1000 --bs=4k --description=\"hello world\" --time_based --filename=foo \
         --name=j1 --bs=8k --kb_base=1000 --bs=4k --description=\"hello world\" --time_based \
         --filename=foo --iodepth=4 --name=j2 --numjobs=2 \n"
    );
}

#[test]
fn version_names_the_fio_release() {
    let dir = TempDir::new("version");
    let o = rfio(&dir, &["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("fio-3.33"), "{}", stdout(&o));
}

#[test]
fn options_rfio_cannot_run_yet_are_refused_before_any_io() {
    // Every core option of fio 3.33 runs (write_barrier, the last one
    // refused here, with the file options of issue 11): only options of
    // engines rfio does not run are left, and those engines are refused
    // (tests/it/engines_list.rs).
    let left: Vec<&str> = rfio::api::OPTIONS
        .iter()
        .filter(|o| o.engines.is_empty() && o.support == rfio::api::Support::NotYet)
        .map(|o| o.name)
        .collect();
    assert_eq!(left, Vec::<&str>::new());
    let dir = TempDir::new("notyet");
    dir.write(
        "job.fio",
        "[x]\nioengine=null\nsize=1m\nnumjobs=2\nwrite_barrier=4\n",
    );
    let o = rfio(&dir, &["job.fio"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // --parse-only accepts what fio accepts.
    let o = rfio(&dir, &["--parse-only", "job.fio"]);
    assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()));
    // Restating the default is no reason to refuse.
    dir.write(
        "job.fio",
        "[x]\nioengine=null\nsize=1m\nio_submit_mode=inline\nread_iolog_chunked=0\n",
    );
    let o = rfio(&dir, &["job.fio"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn runs_a_null_job_and_prints_fios_header() {
    let dir = TempDir::new("run");
    let o = rfio(
        &dir,
        &[
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--bs=4k",
            "--rw=randread",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with(
        "x: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=null, iodepth=1\nfio-3.33\nStarting 1 process\n"
    ), "{text}");
    assert!(
        text.contains("\nRun status group 0 (all jobs):\n   READ: bw="),
        "{text}"
    );
    assert!(text.contains(", io=1024KiB (1049kB), run="), "{text}");
}

#[test]
fn devices_and_directories_are_not_job_files() {
    let dir = TempDir::new("devices");
    dir.write("job.fio", "[x]\ninclude /dev/zero\n");
    let o = rfio(&dir, &["--parse-only", "job.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: job.fio:2:1: cannot include '/dev/zero': it is a device, not a job file\n"
    );
    let o = rfio(&dir, &["--parse-only", "."]);
    assert_eq!(
        stderr(&o),
        "rfio: unable to open '.' job file: it is a directory\n"
    );
}

#[test]
fn a_fifo_is_never_laid_out_over() {
    let dir = TempDir::new("fifo");
    let fifo = dir.0.join("ff");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let o = rfio(
        &dir,
        &["--name=x", "--filename=ff", "--size=1m", "--rw=write"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: command line argument 1: job 'x': failed to get file size of ff: \
         not a regular file or a device\n"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

/// fio 3.33 exits with the number of jobs that ended with an error; an
/// error that `continue_on_error` lets through is reported (terse `$5`)
/// but does not count.
#[test]
fn exit_status_counts_failed_jobs() {
    let dir = TempDir::new("exit");
    let full = ["--filename=/dev/full", "--rw=write", "--size=16k"];
    let mut argv = vec!["--minimal", "--name=a"];
    argv.extend(full);
    argv.push("--name=b");
    argv.extend(full);
    argv.extend(["--name=c", "--ioengine=null", "--size=16k"]);
    let o = rfio(&dir, &argv);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let text = stdout(&o);
    let err: Vec<&str> = text.lines().map(|l| l.split(';').nth(4).unwrap()).collect();
    assert_eq!(err, ["28", "28", "0"]);

    let mut argv = vec!["--minimal", "--name=a"];
    argv.extend(full);
    argv.extend(["--continue_on_error=write", "--ignore_error=,ENOSPC"]);
    let o = rfio(&dir, &argv);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).split(';').nth(4), Some("28"));
    assert_eq!(stderr(&o), "");
}

/// `--output` is opened as the command line is read, as fio opens it: a job
/// file fio refuses leaves the valid values of the failed choice in it
/// (fio's own `failed parsing` lines follow there; rfio's errors go to
/// stderr).
#[test]
fn output_file_gets_the_valid_values_of_a_refused_job_file() {
    let dir = TempDir::new("cli-output-invalid");
    dir.write("bad.fio", "[x]\nrw=bogus\nsize=1m\n");
    let o = rfio(&dir, &["--output=out.txt", "bad.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("'bogus' is not a valid value"));
    let f = common::run_in(common::real_fio(), &dir, &["--output=fio.txt", "bad.fio"]);
    assert_eq!(f.status.code(), Some(1));
    let ours = std::fs::read_to_string(dir.file("out.txt")).expect("rfio made out.txt");
    let fios = std::fs::read_to_string(dir.file("fio.txt")).expect("fio made fio.txt");
    assert!(ours.starts_with("        valid values: read       Sequential read\n"));
    assert!(fios.starts_with(&ours), "rfio:\n{ours}\nfio:\n{fios}");
}

/// No job to run: fio's usage text goes to stdout even with `--output`.
#[test]
fn usage_goes_to_stdout_whatever_output_says() {
    let dir = TempDir::new("cli-output-nojobs");
    dir.write("g.fio", "[global]\nbs=4k\n");
    let o = rfio(&dir, &["--output=out.txt", "g.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).starts_with("fio-3.33 compatible"),
        "{}",
        stdout(&o)
    );
    assert_eq!(stderr(&o), "No job(s) defined\n\n");
    assert_eq!(std::fs::read_to_string(dir.file("out.txt")).unwrap(), "");
}
