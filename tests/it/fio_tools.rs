//! The tools Debian's fio package ships for fio's output take rfio's
//! output as they take fio's: `fio_generate_plots` and `fio2gnuplot` (logs
//! to plots, through gnuplot), `fio_jsonplus_clat2csv` (JSON+ to CSV) and
//! `fiologparser_hist.py` (histogram logs). Each tool runs on one rfio run
//! and one fio run of the same job; the exit status, the files it makes,
//! its messages and its CSV headers must agree.
//!
//! `scripts/test` installs what these need (fio, gnuplot-nox, pandas); a
//! machine without them fails here with the command that installs them.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::TempDir;

const RFIO: &str = env!("CARGO_BIN_EXE_rfio");
const HIST_PARSER: &str = "/usr/share/doc/fio/fiologparser_hist.py.gz";

/// One second of rate-limited null I/O with every log fio writes.
const JOB: &str = "\
[global]
ioengine=null
size=64M
bs=4k
rw=randrw
rate_iops=2000
time_based
runtime=1
write_bw_log=j
write_iops_log=j
write_lat_log=j
log_avg_msec=100
write_hist_log=j
log_hist_msec=100
[j]
";

fn require(cmd: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "{cmd} is missing: run scripts/test, or apt-get install -y fio gnuplot-nox"
    );
}

/// A Python that has pandas (fiologparser_hist.py needs it): `python3` on PATH may be another
/// interpreter than Debian's (pyenv's, say), whose `python3-pandas` lives in /usr/bin/python3.
fn python_with_pandas() -> &'static str {
    let candidates = ["python3", "/usr/bin/python3"];
    candidates
        .into_iter()
        .find(|python| {
            Command::new(python)
                .args(["-c", "import pandas"])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .unwrap_or_else(|| {
            panic!(
                "fiologparser_hist.py needs pandas and none of {candidates:?} has it: \
                 run scripts/test, or apt-get install -y python3-pandas"
            )
        })
}

fn run_in(dir: &Path, program: &str, args: &[&str]) -> Output {
    let (out, timed_out) = common::output_within(
        Command::new(program).args(args).current_dir(dir),
        common::RUN_LIMIT,
    );
    assert!(
        !timed_out,
        "{program} {args:?} hung: killed after {:?}",
        common::RUN_LIMIT
    );
    assert!(
        out.status.success(),
        "{program} {args:?} in {}: {}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The job run by `program` (rfio or fio) in a fresh directory, with its
/// JSON+ output in `out.json`.
fn job_run(program: &str, tag: &str) -> TempDir {
    let dir = TempDir::new(tag);
    dir.write("job.fio", JOB);
    run_in(
        &dir.0,
        program,
        &["--output-format=json+", "--output=out.json", "job.fio"],
    );
    dir
}

/// The names in `dir` that end with `suffix`, sorted.
fn names(dir: &Path, suffix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect();
    v.sort();
    v
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// How many plotted lines an SVG holds.
fn svg_paths(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap()
        .matches("<path")
        .count()
}

#[test]
fn fio_tools_read_rfio_output_as_they_read_fio_output() {
    common::real_fio();
    for cmd in ["gnuplot", "fio_generate_plots", "fio2gnuplot"] {
        require(cmd);
    }
    require("fio_jsonplus_clat2csv");
    let ours = job_run(RFIO, "tools-rfio");
    let theirs = job_run("fio", "tools-fio");
    assert_eq!(names(&ours.0, ".log"), names(&theirs.0, ".log"));

    // fio_generate_plots: one SVG per log kind, the same messages.
    let a = run_in(&ours.0, "fio_generate_plots", &["t"]);
    let b = run_in(&theirs.0, "fio_generate_plots", &["t"]);
    let svgs = names(&ours.0, ".svg");
    assert_eq!(
        svgs,
        [
            "t-bw.svg",
            "t-clat.svg",
            "t-iops.svg",
            "t-lat.svg",
            "t-slat.svg"
        ]
    );
    assert_eq!(svgs, names(&theirs.0, ".svg"));
    assert!(!text(&a).contains("No log files found"), "{}", text(&a));
    let header = |o: &Output| {
        text(o)
            .lines()
            .filter(|l| l.starts_with("Title:") || l.starts_with("File type:"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(header(&a), header(&b));
    // Data lines were drawn from rfio's logs (slat: the null engine has
    // none, in fio too).
    for kind in ["bw", "clat", "iops", "lat"] {
        let n = svg_paths(&ours.0.join(format!("t-{kind}.svg")));
        assert!(n > 10, "t-{kind}.svg has {n} paths");
    }

    // fio2gnuplot: the bandwidth and IOPS renderings.
    for flag in ["-b", "-i"] {
        let a = run_in(&ours.0, "fio2gnuplot", &[flag, "-g"]);
        let b = run_in(&theirs.0, "fio2gnuplot", &[flag, "-g"]);
        let files = |o: &Output| {
            text(o)
                .lines()
                .filter(|l| l.contains("|->"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(files(&a), files(&b), "fio2gnuplot {flag}");
        assert!(!files(&a).is_empty(), "{}", text(&a));
    }
    assert_eq!(names(&ours.0, ".png"), names(&theirs.0, ".png"));
    assert!(names(&ours.0, ".png").len() >= 7);

    // fio_jsonplus_clat2csv: one CSV per job, fio's columns.
    run_in(&ours.0, "fio_jsonplus_clat2csv", &["out.json", "lat"]);
    run_in(&theirs.0, "fio_jsonplus_clat2csv", &["out.json", "lat"]);
    let csv = |d: &TempDir| std::fs::read_to_string(d.file("lat_job0")).unwrap();
    let (ca, cb) = (csv(&ours), csv(&theirs));
    assert_eq!(ca.lines().next(), cb.lines().next());
    assert!(ca.lines().count() > 10, "{ca}");

    // fiologparser_hist.py: percentiles per interval from the hist log.
    let script = std::process::Command::new("sh")
        .args(["-c", &format!("zcat {HIST_PARSER}")])
        .output()
        .expect("zcat");
    assert!(script.status.success(), "{HIST_PARSER} is missing");
    let parser = ours.write(
        "fiologparser_hist.py",
        &String::from_utf8(script.stdout).unwrap(),
    );
    let python = python_with_pandas();
    let hist = |d: &TempDir| {
        let out = run_in(
            &d.0,
            python,
            &[
                parser.to_str().unwrap(),
                "--interval",
                "200",
                "j_clat_hist.1.log",
            ],
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let (ha, hb) = (hist(&ours), hist(&theirs));
    assert_eq!(ha.lines().next(), hb.lines().next());
    assert_eq!(
        ha.lines().next(),
        Some("end-time, samples, min, avg, median, 90%, 95%, 99%, max")
    );
    let rows = |s: &str| s.lines().count() as i64;
    assert!(
        (rows(&ha) - rows(&hb)).abs() <= 1 && rows(&ha) >= 5,
        "rfio:\n{ha}\nfio:\n{hb}"
    );
}
