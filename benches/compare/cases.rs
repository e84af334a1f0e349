//! The cases, and the scratch directory they run in.
//!
//! Every case is one command line given, unchanged, to both rfio and fio,
//! run with the scratch directory as working directory, so file names in it
//! are relative and the commands in RESULTS.md are exact.

use crate::child;
use crate::fio_output::Dir;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;

/// The job file of the parse-only case, and its number of job sections.
pub(crate) const JOBFILE: &str = "jobs-10k.fio";
pub(crate) const JOBFILE_JOBS: usize = 10_000;
/// The job file of the realistic parse-only case (the same number of
/// sections, each with a dozen options of every kind).
pub(crate) const REAL_JOBFILE: &str = "jobs-10k-real.fio";
/// The file the 4 KiB random-read cases read: laid out by fio, page cached.
pub(crate) const RAND_FILE: &str = "rand.dat";
pub(crate) const RAND_SIZE: u64 = 64 * MIB;
/// The file the sequential 1 MiB cases write and read.
pub(crate) const SEQ_FILE: &str = "seq.dat";
pub(crate) const SEQ_SIZE: u64 = 128 * MIB;

/// What a case compares, and which way is better for rfio.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Metric {
    /// Wall time of the whole invocation; the ratio is fio ÷ rfio (speedup).
    WallTime,
    /// IOPS of one direction as the tool prints it; the ratio is rfio ÷ fio.
    Iops(Dir),
}

/// One side-by-side case.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub name: String,
    /// One line for the README table and RESULTS.md.
    pub measures: String,
    pub metric: Metric,
    /// Arguments after the program name, the same for both tools.
    pub args: Vec<String>,
    /// Block size, to turn the amount of I/O printed into an I/O count.
    pub bs: u64,
    /// The amount of I/O every run must report (size × loops); `None` for
    /// a run for a fixed time (or no I/O).
    pub bytes: Option<u64>,
    /// The ratio the issue asks for, if any.
    pub target: Option<f64>,
    /// It runs on the fast device (its arguments name `device::DEV`).
    pub device: bool,
    /// Arguments of the third tool, fio's `t/io_uring`, if it runs too.
    pub third: Option<Vec<String>>,
    /// Seconds of a time-based run (`t/io_uring` prints IOPS, not totals).
    pub runtime: Option<u64>,
}

fn job(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| (*s).to_string()).collect()
}

/// All cases, in the order they run and appear in RESULTS.md; the
/// fast-device ones run `runtime` seconds each.
pub(crate) fn all(runtime: u64) -> Vec<Case> {
    let null_qd1 = [
        "--name=null",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=4g",
    ];
    let mut cases = vec![
        Case {
            name: "parse-only-10k".into(),
            measures: "`--parse-only` of a 10,000-job file: wall time".into(),
            metric: Metric::WallTime,
            args: job(&["--parse-only", JOBFILE]),
            bs: 0,
            bytes: None,
            target: Some(5.0),
            device: false,
            third: None,
            runtime: None,
        },
        Case {
            name: "parse-only-10k-real".into(),
            measures: "`--parse-only` of 10,000 realistic sections (sizes, times, \
                       strings, lists): wall time"
                .into(),
            metric: Metric::WallTime,
            args: job(&["--parse-only", REAL_JOBFILE]),
            bs: 0,
            bytes: None,
            target: Some(10.0),
            device: false,
            third: None,
            runtime: None,
        },
        Case {
            name: "startup-null-1io".into(),
            measures: "one 4 KiB I/O on the null engine, start to exit: wall time".into(),
            metric: Metric::WallTime,
            args: job(&["--name=x", "--ioengine=null", "--size=4k", "--bs=4k"]),
            bs: 4096,
            bytes: None,
            target: Some(20.0),
            device: false,
            third: None,
            runtime: None,
        },
        Case {
            name: "null-randread-4k-qd1".into(),
            measures: "null engine, 4 KiB random reads, iodepth 1, 4 GiB: IOPS".into(),
            metric: Metric::Iops(Dir::Read),
            args: job(&null_qd1),
            bs: 4096,
            bytes: Some(4096 * MIB),
            target: Some(1.5),
            device: false,
            third: None,
            runtime: None,
        },
        Case {
            name: "null-randread-4k-qd1-gtod_reduce".into(),
            measures: "the same with `--gtod_reduce=1`: IOPS".into(),
            metric: Metric::Iops(Dir::Read),
            args: job(&[&null_qd1[..], &["--gtod_reduce=1"]].concat()),
            bs: 4096,
            bytes: Some(4096 * MIB),
            target: None,
            device: false,
            third: None,
            runtime: None,
        },
        Case {
            name: "null-randread-4k-qd32".into(),
            measures: "null engine, 4 KiB random reads, iodepth 32, 4 GiB: IOPS".into(),
            metric: Metric::Iops(Dir::Read),
            args: job(&[&null_qd1[..], &["--iodepth=32"]].concat()),
            bs: 4096,
            bytes: Some(4096 * MIB),
            target: None,
            device: false,
            third: None,
            runtime: None,
        },
        Case {
            name: "psync-randread-4k-cached".into(),
            measures: "psync, 4 KiB random reads of a page-cached 64 MiB file \
                       (`invalidate=0`), 16 loops: IOPS"
                .into(),
            metric: Metric::Iops(Dir::Read),
            args: job(&[
                "--name=psync",
                "--ioengine=psync",
                "--rw=randread",
                "--bs=4k",
                "--filename=rand.dat",
                "--size=64m",
                "--loops=16",
                // fio's default, invalidate=1, drops the file from the page
                // cache before every loop, making this a disk benchmark.
                "--invalidate=0",
            ]),
            bs: 4096,
            bytes: Some(16 * RAND_SIZE),
            target: None,
            device: false,
            third: None,
            runtime: None,
        },
    ];
    for engine in ["libaio", "io_uring"] {
        cases.push(Case {
            name: format!("{engine}-randread-4k-qd32-direct"),
            measures: format!(
                "{engine}, `direct=1`, 4 KiB random reads, iodepth 32, 64 MiB file: IOPS"
            ),
            metric: Metric::Iops(Dir::Read),
            args: vec![
                format!("--name={engine}"),
                format!("--ioengine={engine}"),
                "--direct=1".into(),
                "--iodepth=32".into(),
                "--rw=randread".into(),
                "--bs=4k".into(),
                format!("--filename={RAND_FILE}"),
                "--size=64m".into(),
            ],
            bs: 4096,
            bytes: Some(RAND_SIZE),
            target: None,
            device: false,
            third: None,
            runtime: None,
        });
    }
    for (engine, depth) in [("psync", 1), ("libaio", 32), ("io_uring", 32)] {
        for (rw, dir) in [("write", Dir::Write), ("read", Dir::Read)] {
            cases.push(Case {
                name: format!("{engine}-seq{rw}-1m-direct"),
                measures: format!(
                    "{engine}, `direct=1`, sequential 1 MiB {rw}s, iodepth {depth}, 128 MiB: IOPS"
                ),
                metric: Metric::Iops(dir),
                args: vec![
                    format!("--name={engine}"),
                    format!("--ioengine={engine}"),
                    "--direct=1".into(),
                    format!("--iodepth={depth}"),
                    format!("--rw={rw}"),
                    "--bs=1m".into(),
                    format!("--filename={SEQ_FILE}"),
                    "--size=128m".into(),
                ],
                bs: MIB,
                bytes: Some(SEQ_SIZE),
                target: None,
                device: false,
                third: None,
                runtime: None,
            });
        }
    }
    cases.extend(crate::device::cases(runtime));
    cases
}

/// A scratch directory, removed when dropped.
pub(crate) struct Scratch {
    pub dir: PathBuf,
    /// The commands that prepared it, for RESULTS.md.
    pub setup: Vec<String>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Creates the scratch directory: the 10,000-job file, and the two data
/// files laid out by fio (buffered writes, so they start page cached; the
/// random-read file is read once more to make sure).
pub(crate) fn prepare(fio: &Path) -> io::Result<Scratch> {
    let dir = std::env::temp_dir().join(format!("rfio-bench-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir)?;
    let mut scratch = Scratch {
        dir,
        setup: Vec::new(),
    };
    fs::write(scratch.dir.join(JOBFILE), jobfile(JOBFILE_JOBS))?;
    scratch.setup.push(format!(
        "# {JOBFILE}: [global] (ioengine=null, size=1m, bs=4k) and {JOBFILE_JOBS} sections \
         [jobN] with rw, iodepth, offset, description (see benches/compare/cases.rs)"
    ));
    fs::write(scratch.dir.join(REAL_JOBFILE), real_jobfile(JOBFILE_JOBS))?;
    scratch.setup.push(format!(
        "# {REAL_JOBFILE}: [global] (ioengine=null) and {JOBFILE_JOBS} sections [jobN] with \
         rw, iodepth, offset, description, bs, size, bssplit, filename, rwmixread, runtime, \
         ramp_time (see benches/compare/cases.rs)"
    ));
    for (file, size) in [(RAND_FILE, RAND_SIZE), (SEQ_FILE, SEQ_SIZE)] {
        let args = vec![
            "--name=layout".to_string(),
            format!("--filename={file}"),
            format!("--size={}m", size / MIB),
            "--rw=write".into(),
            "--bs=1m".into(),
        ];
        let out = child::run(fio, &args, &scratch.dir)?;
        if !out.status.success() {
            return Err(io::Error::other(format!(
                "laying out {file} with fio failed: {}",
                out.first_error_line()
            )));
        }
        scratch
            .setup
            .push(format!("{} {}", fio.display(), args.join(" ")));
    }
    // Read in small pieces: our RSS is the floor of every child's peak RSS.
    let mut file = fs::File::open(scratch.dir.join(RAND_FILE))?;
    let mut buf = vec![0u8; 1 << 16];
    while file.read(&mut buf)? > 0 {}
    Ok(scratch)
}

/// A `[global]` section and `jobs` small job sections, a few options each.
pub(crate) fn jobfile(jobs: usize) -> String {
    const RW: [&str; 5] = ["read", "write", "randread", "randwrite", "randrw"];
    let mut text = String::from(
        "; generated by benches/compare.rs: parser throughput\n\
         [global]\nioengine=null\nsize=1m\nbs=4k\n\n",
    );
    for i in 0..jobs {
        let _ = write!(
            text,
            "[job{i}]\nrw={}\niodepth={}\noffset={}k\ndescription=job number {i}\n\n",
            RW[i % RW.len()],
            1 + i % 32,
            4 * (i % 256),
        );
    }
    text
}

/// A `[global]` section and `jobs` sections of a dozen options each, of
/// every kind the parser reads: choices, integers, sizes with units, times,
/// strings, a `bssplit` list (the per-option costs show here).
pub(crate) fn real_jobfile(jobs: usize) -> String {
    const RW: [&str; 5] = ["read", "write", "randread", "randwrite", "randrw"];
    let mut text = String::from(
        "; generated by benches/compare.rs: parser throughput, realistic sections\n\
         [global]\nioengine=null\n\n",
    );
    for i in 0..jobs {
        let _ = write!(
            text,
            "[job{i}]\nrw={}\niodepth={}\noffset={}k\ndescription=job number {i}\n\
             bs=4k\nsize=1g\nbssplit=4k/50:8k/30:64k/20\nfilename=/tmp/data{}.dat\n\
             rwmixread=70\nruntime=10s\nramp_time=1s\n\n",
            RW[i % RW.len()],
            1 + i % 32,
            4 * (i % 256),
            i % 8,
        );
    }
    text
}
