//! Running a case: one warm-up run of each tool, then `reps` runs of each,
//! alternating rfio, fio (, t/io_uring), rfio, fio, …, and the medians of
//! what they cost.

use crate::cases::{Case, Metric};
use crate::child::{self, Outcome};
use crate::device;
use crate::fio_output;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which tool a run was of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    Rfio,
    Fio,
    /// fio's `t/io_uring`, the third tool of the fast-device read cases.
    TIoUring,
}

/// The programs a case runs.
#[derive(Debug, Clone)]
pub(crate) struct Tools {
    pub rfio: PathBuf,
    pub fio: PathBuf,
    /// `t/io_uring`, or why there is none.
    pub t_io_uring: Result<PathBuf, String>,
}

/// One measured run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    pub wall: Duration,
    pub cpu: Duration,
    pub maxrss_kib: u64,
    /// For IOPS cases: the IOPS the tool printed, and the I/O count the
    /// amount it printed makes at the case's block size.
    pub iops: Option<f64>,
    pub ios: Option<f64>,
}

/// What became of one tool on one case.
#[derive(Debug, Clone)]
pub(crate) enum ToolResult {
    Measured(Vec<Sample>),
    /// rfio refused the job (non-zero exit on the warm-up run): an engine
    /// or option it does not implement yet. Holds its message.
    NotSupported(String),
    /// The tool ran and broke: a crash, a later failure, no figures in its
    /// output, or a different amount of I/O than the case asks for.
    Failed(String),
    /// Not run: the tool is not there (`t/io_uring` not built).
    Skipped(String),
}

/// Both tools on one case.
#[derive(Debug, Clone)]
pub(crate) struct CaseResult {
    pub case: Case,
    pub rfio: ToolResult,
    pub fio: ToolResult,
    /// `t/io_uring`, for the cases that run it.
    pub third: Option<ToolResult>,
}

/// Medians over a tool's samples.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Summary {
    pub wall: Duration,
    pub wall_min: Duration,
    pub wall_max: Duration,
    pub cpu: Duration,
    /// Nanoseconds of CPU (user + system) per I/O, for IOPS cases.
    pub cpu_ns_per_io: Option<f64>,
    pub maxrss_kib: u64,
    pub iops: Option<f64>,
    pub iops_min: Option<f64>,
    pub iops_max: Option<f64>,
}

impl ToolResult {
    pub(crate) fn summary(&self) -> Option<Summary> {
        let ToolResult::Measured(samples) = self else {
            return None;
        };
        let walls: Vec<f64> = samples.iter().map(|s| s.wall.as_secs_f64()).collect();
        let iops: Vec<f64> = samples.iter().filter_map(|s| s.iops).collect();
        let per_io: Vec<f64> = samples
            .iter()
            .filter_map(|s| Some(s.cpu.as_secs_f64() * 1e9 / s.ios.filter(|&n| n > 0.0)?))
            .collect();
        let secs = Duration::from_secs_f64;
        Some(Summary {
            wall: secs(median(&walls)?),
            wall_min: secs(walls.iter().copied().fold(f64::INFINITY, f64::min)),
            wall_max: secs(walls.iter().copied().fold(0.0, f64::max)),
            cpu: secs(median(
                &samples
                    .iter()
                    .map(|s| s.cpu.as_secs_f64())
                    .collect::<Vec<_>>(),
            )?),
            cpu_ns_per_io: median(&per_io),
            maxrss_kib: median(
                &samples
                    .iter()
                    .map(|s| s.maxrss_kib as f64)
                    .collect::<Vec<_>>(),
            )? as u64,
            iops: median(&iops),
            iops_min: iops.iter().copied().reduce(f64::min),
            iops_max: iops.iter().copied().reduce(f64::max),
        })
    }
}

/// The median; the mean of the middle two for an even count.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// Runs `case` with its tools in `dir`, the fast device being `dev`.
pub(crate) fn run_case(
    case: &Case,
    tools: &Tools,
    dir: &Path,
    dev: Option<&Path>,
    reps: usize,
) -> CaseResult {
    let args = device::on(&case.args, dev);
    let mut runs: Vec<(Tool, &Path, Vec<String>)> = vec![
        (Tool::Rfio, &tools.rfio, args.clone()),
        (Tool::Fio, &tools.fio, args),
    ];
    let mut third = None;
    if let Some(t) = &case.third {
        match &tools.t_io_uring {
            Ok(program) => runs.push((Tool::TIoUring, program, device::on(t, dev))),
            Err(why) => third = Some(ToolResult::Skipped(why.clone())),
        }
    }
    // Warm-up: page cache for the binaries and files, and the support check.
    let mut results: Vec<ToolResult> = runs
        .iter()
        .map(
            |(tool, program, args)| match measure(case, *tool, program, args, dir, true) {
                Ok(_) => ToolResult::Measured(Vec::with_capacity(reps)),
                Err(result) => result,
            },
        )
        .collect();
    for _ in 0..reps {
        for ((tool, program, args), result) in runs.iter().zip(results.iter_mut()) {
            let ToolResult::Measured(samples) = result else {
                continue;
            };
            match measure(case, *tool, program, args, dir, false) {
                Ok(sample) => samples.push(sample),
                Err(failed) => *result = failed,
            }
        }
    }
    let mut results = results.into_iter();
    let rfio = results.next().expect("rfio ran");
    let fio = results.next().expect("fio ran");
    CaseResult {
        case: case.clone(),
        rfio,
        fio,
        third: results.next().or(third),
    }
}

/// One run of one tool, checked and turned into a sample.
fn measure(
    case: &Case,
    tool: Tool,
    program: &Path,
    args: &[String],
    dir: &Path,
    warm_up: bool,
) -> Result<Sample, ToolResult> {
    let out = child::run(program, args, dir)
        .map_err(|e| ToolResult::Failed(format!("could not run {}: {e}", program.display())))?;
    if !out.status.success() {
        let message = out.first_error_line();
        // A clean refusal on the first try is rfio saying "not yet"; a
        // signal, or a failure after a successful run, is a bug.
        return Err(
            if tool == Tool::Rfio && warm_up && out.status.code().is_some() {
                ToolResult::NotSupported(message)
            } else {
                ToolResult::Failed(message)
            },
        );
    }
    match tool {
        Tool::TIoUring => sample_t_io_uring(case, &out),
        _ => sample(case, &out),
    }
    .map_err(ToolResult::Failed)
}

/// `t/io_uring` prints IOPS once a second and no total: the I/O count is
/// their mean times the run's seconds.
fn sample_t_io_uring(case: &Case, out: &Outcome) -> Result<Sample, String> {
    let iops = fio_output::parse_t_io_uring(&out.stdout)
        .ok_or("no `IOPS=` line in its output (a run under 2 s prints none)")?;
    Ok(Sample {
        wall: out.wall,
        cpu: out.cpu,
        maxrss_kib: out.maxrss_kib,
        iops: Some(iops),
        ios: case.runtime.map(|s| iops * s as f64),
    })
}

fn sample(case: &Case, out: &Outcome) -> Result<Sample, String> {
    let mut sample = Sample {
        wall: out.wall,
        cpu: out.cpu,
        maxrss_kib: out.maxrss_kib,
        iops: None,
        ios: None,
    };
    if let Metric::Iops(dir) = case.metric {
        let line = fio_output::parse_dir_line(&out.stdout, dir)
            .ok_or_else(|| format!("no `{}: IOPS=` line in its output", dir.label()))?;
        // The printed amount has three or four significant digits.
        if let Some(expected) = case.bytes.map(|b| b as f64) {
            if (line.io_bytes - expected).abs() > expected * 0.01 {
                return Err(format!(
                    "it did {:.0} bytes of I/O, the case asks for {expected:.0}",
                    line.io_bytes
                ));
            }
        }
        sample.iops = Some(line.iops);
        sample.ios = Some(line.io_bytes / case.bs as f64);
    }
    Ok(sample)
}

/// Checks run by `cargo test --benches`.
pub(crate) fn self_check() {
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
}
