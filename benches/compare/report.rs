//! RESULTS.md: a pure function of the results and the run's context.

use crate::cases::{Case, Metric};
use crate::measure::{CaseResult, Summary, ToolResult};
use std::fmt::Write as _;
use std::time::Duration;

/// Everything about the run that is not a measurement.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    /// The command line that produced the file.
    pub command: String,
    pub date: String,
    pub nproc: usize,
    pub cpu_model: String,
    pub kernel: String,
    pub load_start: String,
    pub load_end: String,
    /// Path as shown in the commands, and `--version` plus git revision.
    pub rfio: String,
    pub rfio_version: String,
    pub fio: String,
    pub fio_version: String,
    pub reps: usize,
    /// The least peak RSS a child can report (see `child::floor`), KiB.
    pub rss_floor_kib: Option<u64>,
    /// How the scratch directory was prepared.
    pub setup: Vec<String>,
    /// Warnings that bear on the numbers (a stale binary).
    pub warnings: Vec<String>,
    /// The fast device: the commands that set it up, or why its cases were
    /// skipped; `None` when no case needs it.
    pub device: Option<Result<Vec<String>, String>>,
    /// `t/io_uring`'s path, or why it did not run.
    pub t_io_uring: Result<String, String>,
}

/// The ratio the table shows: above 1 means rfio is faster.
pub(crate) fn speed_ratio(case: &Case, rfio: &Summary, fio: &Summary) -> Option<f64> {
    match case.metric {
        Metric::WallTime => Some(fio.wall.as_secs_f64() / rfio.wall.as_secs_f64()),
        Metric::Iops(_) => Some(rfio.iops? / fio.iops?),
    }
}

/// The main results table alone (also printed at the end of a run).
pub(crate) fn results_table(results: &[CaseResult], notes: &mut Vec<String>) -> String {
    let mut t = String::from(
        "| case | measures | rfio | fio | rfio vs fio | target | met |\n\
         |---|---|---:|---:|---:|---|---|\n",
    );
    for r in results.iter().filter(|r| !r.case.device) {
        let rfio = r.rfio.summary();
        let fio = r.fio.summary();
        let ratio = rfio
            .as_ref()
            .zip(fio.as_ref())
            .and_then(|(a, b)| speed_ratio(&r.case, a, b));
        let target = r.case.target.map_or("—".to_string(), |x| format!("≥ {x}×"));
        let met = match (r.case.target, ratio, &r.rfio) {
            (None, _, _) => "—".to_string(),
            (Some(x), Some(got), _) if got >= x => "**met**".to_string(),
            (Some(_), Some(_), _) => "**not met**".to_string(),
            (Some(_), None, ToolResult::NotSupported(_)) => {
                "**not met** (not supported yet)".to_string()
            }
            (Some(_), None, _) => "**not met** (no figure)".to_string(),
        };
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {target} | {met} |",
            r.case.name,
            r.case.measures,
            cell(&r.case, &r.rfio, notes),
            cell(&r.case, &r.fio, notes),
            ratio.map_or("—".to_string(), |x| format!("{x:.2}×")),
        );
    }
    t
}

/// The fast-device cases: IOPS of the three tools and CPU per I/O beside
/// them (also printed at the end of a run). Empty without such cases.
pub(crate) fn fast_table(results: &[CaseResult], notes: &mut Vec<String>) -> String {
    let fast: Vec<&CaseResult> = results.iter().filter(|r| r.case.device).collect();
    if fast.is_empty() {
        return String::new();
    }
    let mut t = String::from(
        "| case | rfio | fio | t/io_uring | rfio vs fio | rfio CPU | fio CPU | t/io_uring CPU | rfio ÷ fio CPU |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in fast {
        let (rfio, fio) = (r.rfio.summary(), r.fio.summary());
        let third = r.third.as_ref().and_then(ToolResult::summary);
        let ratio = rfio
            .as_ref()
            .zip(fio.as_ref())
            .and_then(|(a, b)| speed_ratio(&r.case, a, b));
        let per_io = |s: &Option<Summary>| s.as_ref().and_then(|s| s.cpu_ns_per_io);
        let cpu = |s: &Option<Summary>| {
            per_io(s).map_or("—".to_string(), |ns| format!("{} /IO", nanos(ns)))
        };
        let third_cell = match &r.third {
            Some(result) => cell(&r.case, result, notes),
            None => "—".to_string(),
        };
        let _ = writeln!(
            t,
            "| {} | {} | {} | {third_cell} | {} | {} | {} | {} | {} |",
            r.case.name,
            cell(&r.case, &r.rfio, notes),
            cell(&r.case, &r.fio, notes),
            ratio.map_or("—".to_string(), |x| format!("{x:.2}×")),
            cpu(&rfio),
            cpu(&fio),
            cpu(&third),
            ratio_text(per_io(&rfio), per_io(&fio)),
        );
    }
    t
}

/// A tool's headline figure, or why there is none (as a numbered note).
fn cell(case: &Case, result: &ToolResult, notes: &mut Vec<String>) -> String {
    let mut note = |label: &str, message: &str| {
        notes.push(message.to_string());
        format!("{label} [{}]", notes.len())
    };
    match result {
        ToolResult::NotSupported(m) => note("not supported yet", m),
        ToolResult::Failed(m) => note("failed", m),
        ToolResult::Skipped(m) => note("not run", m),
        ToolResult::Measured(_) => {
            let s = result.summary().expect("measured");
            match case.metric {
                Metric::WallTime => format!(
                    "{} ({}–{})",
                    time(s.wall),
                    time(s.wall_min),
                    time(s.wall_max)
                ),
                Metric::Iops(_) => format!(
                    "{} ({}–{})",
                    s.iops.map_or("—".into(), scaled),
                    s.iops_min.map_or("—".into(), scaled),
                    s.iops_max.map_or("—".into(), scaled)
                ),
            }
        }
    }
}

/// The whole of RESULTS.md.
pub(crate) fn markdown(ctx: &Context, results: &[CaseResult]) -> String {
    let mut notes = Vec::new();
    let mut md = String::new();
    let _ = writeln!(md, "# rfio vs fio: side-by-side benchmarks\n");
    let _ = writeln!(
        md,
        "Generated by `{}` on {}. Do not edit: run it again to regenerate \
         (see [README.md](README.md) for what each case measures).\n",
        ctx.command, ctx.date
    );
    for w in &ctx.warnings {
        let _ = writeln!(md, "> **Warning:** {w}\n");
    }

    let _ = writeln!(md, "## Machine\n\n| | |\n|---|---|");
    let _ = writeln!(md, "| CPUs (nproc) | {} |", ctx.nproc);
    let _ = writeln!(md, "| model name | {} |", ctx.cpu_model);
    let _ = writeln!(md, "| kernel | {} |", ctx.kernel);
    let _ = writeln!(
        md,
        "| load average (1, 5, 15 min) | {} at start, {} at end |",
        ctx.load_start, ctx.load_end
    );
    let _ = writeln!(md, "| rfio | `{}`: {} |", ctx.rfio, ctx.rfio_version);
    let _ = writeln!(md, "| fio | `{}`: {} |", ctx.fio, ctx.fio_version);
    let _ = writeln!(
        md,
        "| runs | {} of each tool per case, alternating rfio, fio, rfio, fio, …, \
         after one warm-up run of each; medians (min–max in brackets) |\n",
        ctx.reps
    );

    let _ = writeln!(md, "## Results\n");
    let _ = writeln!(
        md,
        "*rfio vs fio* is rfio's IOPS ÷ fio's for IOPS cases, and fio's wall time ÷ \
         rfio's for the parse case: above 1 means rfio is faster. Targets are those of \
         issue 5.\n"
    );
    md.push_str(&results_table(results, &mut notes));
    md.push('\n');

    let _ = writeln!(md, "## CPU and memory\n");
    let _ = writeln!(
        md,
        "CPU is user + system time of the whole invocation (`wait4` rusage, which \
         includes fio's forked job process), per I/O for I/O cases and in total for the \
         parse case; for the 1 MiB cases (128 I/Os) start-up and exit dominate it. Peak \
         RSS is `ru_maxrss`: the largest single process (for fio, the larger of its main \
         and job process). It cannot read below {}, what `/bin/true` reports when started \
         the same way (the kernel keeps the forking process's RSS as the child's \
         high-water mark); a figure at that floor shows as ≤ it. Ratios are rfio ÷ fio: \
         below 1 means rfio uses less.\n",
        ctx.rss_floor_kib
            .map_or("an unknown floor".into(), |f| kib(f as f64))
    );
    md.push_str(
        "| case | rfio CPU | fio CPU | rfio ÷ fio | rfio peak RSS | fio peak RSS | rfio ÷ fio | rfio wall | fio wall |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in results.iter().filter(|r| !r.case.device) {
        let (rfio, fio) = (r.rfio.summary(), r.fio.summary());
        let cpu = |s: &Option<Summary>| -> Option<(f64, String)> {
            let s = s.as_ref()?;
            Some(match r.case.metric {
                Metric::WallTime => (s.cpu.as_secs_f64(), time(s.cpu)),
                Metric::Iops(_) => {
                    let ns = s.cpu_ns_per_io?;
                    (ns, format!("{} /IO", nanos(ns)))
                }
            })
        };
        let rss = |s: &Option<Summary>| s.as_ref().map(|s| s.maxrss_kib as f64);
        let floor = ctx.rss_floor_kib.map_or(0.0, |f| f as f64);
        let rss_cell = |k: Option<f64>| match k {
            None => "—".to_string(),
            Some(k) if k <= floor => format!("≤ {}", kib(floor)),
            Some(k) => kib(k),
        };
        let wall = |s: &Option<Summary>| s.as_ref().map_or("—".into(), |s| time(s.wall));
        let (rc, fc) = (cpu(&rfio), cpu(&fio));
        let (rr, fr) = (rss(&rfio), rss(&fio));
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.case.name,
            rc.as_ref().map_or("—", |c| c.1.as_str()),
            fc.as_ref().map_or("—", |c| c.1.as_str()),
            ratio_text(rc.as_ref().map(|c| c.0), fc.as_ref().map(|c| c.0)),
            rss_cell(rr),
            rss_cell(fr),
            ratio_text(rr.filter(|&k| k > floor), fr.filter(|&k| k > floor)),
            wall(&rfio),
            wall(&fio),
        );
    }
    md.push('\n');

    if let Some(device) = &ctx.device {
        let _ = writeln!(md, "## Fast device: a loop device over tmpfs\n");
        match device {
            Err(why) => {
                let _ = writeln!(md, "Skipped: {why}.\n");
            }
            Ok(_) => {
                let _ = writeln!(
                    md,
                    "4 KiB random reads and 128 KiB sequential writes, `direct=1`, on a \
                     loop device over a file in `/dev/shm` (set up and torn down by the \
                     bench; see Commands), for a fixed time: the tools' own cost per I/O \
                     shows, not a disk's. The third tool is fio's `t/io_uring` ({}), with \
                     fio's default batching (`-s1 -c1`), no polling, registered buffers or \
                     files; `-a1` (its libaio mode) for the libaio cases. It prints IOPS \
                     once a second and no total: its IOPS are their mean, its I/O count \
                     that times the run's seconds. CPU is user + system time of the whole \
                     invocation per I/O (fio's start-up, about 0.1 s of CPU, included).\n",
                    match &ctx.t_io_uring {
                        Ok(path) => format!("`{path}`"),
                        Err(why) => format!("not run: {why}"),
                    }
                );
                md.push_str(&fast_table(results, &mut notes));
                md.push('\n');
            }
        }
    }

    if !notes.is_empty() {
        let _ = writeln!(md, "## Notes\n");
        for (i, n) in notes.iter().enumerate() {
            let _ = writeln!(md, "{}. {}", i + 1, n.replace('|', "\\|"));
        }
        md.push('\n');
    }

    let _ = writeln!(md, "## Commands\n");
    let _ = writeln!(
        md,
        "Every command ran with a fresh scratch directory as its working directory, \
         prepared once per invocation:\n\n```sh"
    );
    for line in &ctx.setup {
        let _ = writeln!(md, "{line}");
    }
    md.push_str("```\n\nThen, for each case, the same arguments to both tools:\n\n```sh\n");
    if let Some(Ok(lines)) = &ctx.device {
        md.push_str("# the fast device (as root)\n");
        for line in lines {
            let _ = writeln!(md, "{line}");
        }
    }
    for r in results {
        let args = r.case.args.join(" ");
        let _ = writeln!(
            md,
            "# {}\n{} {args}\n{} {args}",
            r.case.name, ctx.rfio, ctx.fio
        );
        if let (Some(third), Ok(path)) = (&r.case.third, &ctx.t_io_uring) {
            let _ = writeln!(md, "{path} {}", third.join(" "));
        }
    }
    md.push_str("```\n");
    md
}

fn ratio_text(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "—".into(),
    }
}

/// Three significant digits.
fn sig3(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// `13.1M`, `79.9k`, `367`.
pub(crate) fn scaled(x: f64) -> String {
    if x >= 1e9 {
        format!("{}G", sig3(x / 1e9))
    } else if x >= 1e6 {
        format!("{}M", sig3(x / 1e6))
    } else if x >= 1e3 {
        format!("{}k", sig3(x / 1e3))
    } else {
        sig3(x)
    }
}

pub(crate) fn time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{} s", sig3(s))
    } else if s >= 1e-3 {
        format!("{} ms", sig3(s * 1e3))
    } else {
        format!("{} µs", sig3(s * 1e6))
    }
}

fn nanos(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{} ms", sig3(ns / 1e6))
    } else if ns >= 1e3 {
        format!("{} µs", sig3(ns / 1e3))
    } else {
        format!("{} ns", sig3(ns))
    }
}

fn kib(k: f64) -> String {
    format!("{} MiB", sig3(k / 1024.0))
}

/// `YYYY-MM-DD HH:MM UTC` for seconds since the epoch (no date crate).
pub(crate) fn utc(epoch_secs: i64) -> String {
    let days = epoch_secs.div_euclid(86_400);
    let secs = epoch_secs.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// Checks run by `cargo test --benches`.
pub(crate) fn self_check() {
    assert_eq!(utc(0), "1970-01-01 00:00 UTC");
    assert_eq!(utc(20_000 * 86_400 + 3_660), "2024-10-04 01:01 UTC");
    assert_eq!(utc(11_016 * 86_400), "2000-02-29 00:00 UTC");
    assert_eq!(utc(-60), "1969-12-31 23:59 UTC");
    assert_eq!(scaled(13.1e6), "13.1M");
    assert_eq!(scaled(5_578_000.0), "5.58M");
    assert_eq!(scaled(367.0), "367");
    assert_eq!(time(Duration::from_micros(39_240)), "39.2 ms");
    // The fast-device table: CPU per I/O beside IOPS, the third column
    // empty where no third tool runs, a note where it could not.
    let sample = |iops: f64, cpu_ms: u64| crate::measure::Sample {
        wall: Duration::from_secs(2),
        cpu: Duration::from_millis(cpu_ms),
        maxrss_kib: 4096,
        iops: Some(iops),
        ios: Some(iops * 2.0),
    };
    let mut cases = crate::device::cases(2).into_iter();
    let (read, write) = (cases.next().unwrap(), cases.nth(2).unwrap());
    let results = [
        CaseResult {
            case: read,
            rfio: ToolResult::Measured(vec![sample(100e3, 600)]),
            fio: ToolResult::Measured(vec![sample(80e3, 640)]),
            third: Some(ToolResult::Skipped("t/io_uring is not there".into())),
        },
        CaseResult {
            case: write,
            rfio: ToolResult::Measured(vec![sample(10e3, 300)]),
            fio: ToolResult::Measured(vec![sample(10e3, 400)]),
            third: None,
        },
    ];
    let mut notes = Vec::new();
    let table = fast_table(&results, &mut notes);
    let rows: Vec<&str> = table.lines().skip(2).collect();
    assert_eq!(
        rows,
        [
            "| loop-io_uring-randread-4k-qd1 | 100k (100k–100k) | 80.0k (80.0k–80.0k) | \
             not run [1] | 1.25× | 3.00 µs /IO | 4.00 µs /IO | — | 0.75 |",
            "| loop-io_uring-seqwrite-128k-qd1 | 10.0k (10.0k–10.0k) | 10.0k (10.0k–10.0k) | \
             — | 1.00× | 15.0 µs /IO | 20.0 µs /IO | — | 0.75 |",
        ]
    );
    assert_eq!(notes, ["t/io_uring is not there"]);
    assert_eq!(results_table(&results, &mut notes).lines().count(), 2);
}
