//! Side-by-side benchmarks of rfio and real fio (issue 5, "Benchmarks").
//!
//! ```sh
//! cargo build --release --bin rfio
//! cargo bench --bench compare                  # 11 runs of each tool per case
//! cargo bench --bench compare -- --quick       # 3 runs
//! cargo bench --bench compare -- --only null   # cases whose name contains "null"
//! cargo bench --bench compare -- --only loop-   # the fast-device cases (root)
//! ```
//!
//! It builds nothing: it runs the release rfio binary next to this bench
//! (`target/release/rfio`) and `fio` from `PATH`, case by case, alternating
//! rfio, fio, rfio, fio, …, prints the table and rewrites
//! `benches/RESULTS.md` (not with `--only`, which would lose the other
//! cases). The pipeline:
//!
//! ```text
//! cases (command lines, scratch dir; device: the loop device over tmpfs
//!   and its cases) → measure (child: wait4 rusage; fio_output: IOPS from
//!   the normal output and t/io_uring's) → report (RESULTS.md)
//! ```
//!
//! Cargo runs bench targets with `--bench`; without it (`cargo test
//! --all-targets`) this only checks its own parsers and exits.

#[path = "compare/cases.rs"]
mod cases;
#[path = "compare/child.rs"]
mod child;
#[path = "compare/device.rs"]
mod device;
#[path = "compare/fio_output.rs"]
mod fio_output;
#[path = "compare/measure.rs"]
mod measure;
#[path = "compare/micro.rs"]
mod micro;
#[path = "compare/report.rs"]
mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

const USAGE: &str = "\
usage: cargo bench --bench compare [-- OPTIONS]

  --quick        3 runs of each tool per case (default 11)
  --reps N       N runs of each tool per case
  --only NAME    only the cases whose name contains NAME; RESULTS.md is
                 left alone
  --rfio PATH    the rfio binary (default: target/release/rfio)
  --fio PATH     the fio binary (default: fio on PATH)
  --runtime SECS seconds of each fast-device run (default 5; 2 with --quick)
  --t-io-uring PATH
                 fio's t/io_uring (default: beside `scripts/fio-oracle 3.42`)
";

/// What the command line asked for.
#[derive(Debug)]
struct Args {
    bench: bool,
    reps: usize,
    only: Option<String>,
    rfio: Option<PathBuf>,
    fio: Option<PathBuf>,
    runtime: Option<u64>,
    t_io_uring: Option<PathBuf>,
    /// The user's options, to quote the command in RESULTS.md.
    shown: Vec<String>,
}

fn parse_args(argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut args = Args {
        bench: false,
        reps: 11,
        only: None,
        rfio: None,
        fio: None,
        runtime: None,
        t_io_uring: None,
        shown: Vec::new(),
    };
    let mut argv = argv.peekable();
    while let Some(arg) = argv.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let takes_value = matches!(
            flag.as_str(),
            "--reps" | "--only" | "--rfio" | "--fio" | "--runtime" | "--t-io-uring"
        );
        let value = if takes_value {
            match inline.or_else(|| argv.next()) {
                Some(v) => Some(v),
                None => return Err(format!("{flag} needs a value")),
            }
        } else if inline.is_some() {
            return Err(format!("{flag} takes no value"));
        } else {
            None
        };
        match flag.as_str() {
            "--bench" => {
                args.bench = true;
                continue;
            }
            "--quick" => args.reps = 3,
            "--reps" => {
                let v = value.clone().unwrap_or_default();
                args.reps = v
                    .parse()
                    .ok()
                    .filter(|&n: &usize| n > 0)
                    .ok_or_else(|| format!("--reps {v}: not a positive count"))?;
            }
            "--only" => args.only = value.clone(),
            "--rfio" => args.rfio = value.clone().map(PathBuf::from),
            "--fio" => args.fio = value.clone().map(PathBuf::from),
            "--runtime" => {
                let v = value.clone().unwrap_or_default();
                // t/io_uring prints its first figure after a second.
                args.runtime = Some(
                    v.parse()
                        .ok()
                        .filter(|&n: &u64| n >= 2)
                        .ok_or_else(|| format!("--runtime {v}: not a count of seconds ≥ 2"))?,
                );
            }
            "--t-io-uring" => args.t_io_uring = value.clone().map(PathBuf::from),
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown option {arg}")),
        }
        args.shown.push(flag);
        args.shown.extend(value);
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprint!("compare: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if !args.bench {
        fio_output::self_check();
        measure::self_check();
        report::self_check();
        device::self_check();
        let jobs = cases::jobfile(3);
        assert_eq!(jobs.matches("\n[job").count(), 3);
        let real = cases::real_jobfile(3);
        assert_eq!(real.matches("\n[job").count(), 3);
        assert_eq!(real.matches("\nbssplit=").count(), 3);
        println!(
            "compare: self-checks passed; run the benchmarks with `cargo bench --bench compare`"
        );
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("compare: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rfio = match &args.rfio {
        Some(p) => p.clone(),
        None => default_rfio(manifest).ok_or_else(|| {
            format!(
                "no release rfio binary at {}; build it first:\n    cargo build --release --bin rfio",
                manifest.join("target/release/rfio").display()
            )
        })?,
    };
    let rfio = rfio
        .canonicalize()
        .map_err(|e| format!("rfio binary {}: {e}", rfio.display()))?;
    let fio = match &args.fio {
        Some(p) => p.clone(),
        None => on_path("fio")
            .ok_or("fio is not on PATH; install it (Debian: apt-get install fio) or pass --fio")?,
    };
    // rfio behaves as the release of the fio it is compared with (Debian's
    // 3.33 by default, not rfio's own default, 3.42): like with like. Set
    // before any thread starts; every rfio run inherits it.
    let fio_version = version(&fio);
    match fio_version.strip_prefix("fio-") {
        Some(release) => std::env::set_var("RFIO_FIO_VERSION", release),
        None => return Err(format!("{} --version says {fio_version:?}", fio.display())),
    }
    let runtime = args.runtime.unwrap_or(if args.reps <= 3 { 2 } else { 5 });
    let mut all = cases::all(runtime);
    if let Some(only) = &args.only {
        all.retain(|c| c.name.contains(only.as_str()));
        if all.is_empty() {
            let names: Vec<String> = cases::all(runtime).into_iter().map(|c| c.name).collect();
            return Err(format!(
                "no case name contains {only:?}; the cases: {}",
                names.join(", ")
            ));
        }
    }

    let mut warnings = Vec::new();
    if let Some(w) = stale_warning(&rfio, &manifest.join("src")) {
        eprintln!("compare: warning: {w}");
        warnings.push(w);
    }
    let shown_rfio = rfio
        .strip_prefix(manifest)
        .map_or_else(|_| rfio.display().to_string(), |p| p.display().to_string());
    let mut ctx = report::Context {
        command: std::iter::once("cargo bench --bench compare".to_string())
            .chain((!args.shown.is_empty()).then(|| format!("-- {}", args.shown.join(" "))))
            .collect::<Vec<_>>()
            .join(" "),
        date: report::utc(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64),
        ),
        nproc: std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model: cpu_model(),
        kernel: read_trimmed("/proc/sys/kernel/osrelease")
            .map_or("unknown".into(), |r| format!("Linux {r}")),
        load_start: load_average(),
        load_end: String::new(),
        rfio_version: format!(
            "{}{}",
            version(&rfio),
            git_revision(manifest).map_or(String::new(), |r| format!(", git {r}"))
        ),
        rfio: shown_rfio,
        fio_version,
        fio: fio.display().to_string(),
        reps: args.reps,
        rss_floor_kib: None,
        setup: Vec::new(),
        warnings,
        device: None,
        t_io_uring: Err("no case runs it".into()),
    };
    // The fast device, if a case needs it; without it those cases alone
    // are skipped.
    let dev = if all.iter().any(|c| c.device) {
        match device::set_up() {
            Ok(d) => {
                ctx.device = Some(Ok(d.setup.clone()));
                Some(d)
            }
            Err(why) => {
                eprintln!("compare: skipping the fast-device cases: {why}");
                ctx.device = Some(Err(why));
                all.retain(|c| !c.device);
                None
            }
        }
    } else {
        None
    };
    let t_io_uring = if all.iter().any(|c| c.third.is_some()) {
        find_t_io_uring(args.t_io_uring.as_deref(), manifest)
    } else {
        Err("no case runs it".into())
    };
    if let Err(why) = &t_io_uring {
        if all.iter().any(|c| c.third.is_some()) {
            eprintln!("compare: t/io_uring will not run: {why}");
        }
    }
    ctx.t_io_uring = t_io_uring
        .as_ref()
        .map(|p| p.display().to_string())
        .map_err(Clone::clone);
    let tools = measure::Tools {
        rfio: rfio.clone(),
        fio: fio.clone(),
        t_io_uring,
    };

    eprintln!(
        "compare: {} case(s), {} run(s) of each tool per case\n  rfio: {} ({})\n  fio:  {} ({})",
        all.len(),
        args.reps,
        rfio.display(),
        ctx.rfio_version,
        ctx.fio,
        ctx.fio_version
    );
    let scratch = cases::prepare(&fio).map_err(|e| format!("preparing the scratch dir: {e}"))?;
    ctx.setup = std::iter::once(format!("cd \"$(mktemp -d)\"  # {}", scratch.dir.display()))
        .chain(scratch.setup.iter().cloned())
        .collect();
    let mut floors = vec![child::floor(&scratch.dir)];
    let mut results = Vec::new();
    for (i, case) in all.iter().enumerate() {
        eprint!("[{}/{}] {:<36} ", i + 1, all.len(), case.name);
        let r = measure::run_case(
            case,
            &tools,
            &scratch.dir,
            dev.as_ref().map(|d| d.path.as_path()),
            args.reps,
        );
        eprint!("rfio {}  fio {}", brief(&r.rfio, case), brief(&r.fio, case));
        match &r.third {
            Some(t) => eprintln!("  t/io_uring {}", brief(t, case)),
            None => eprintln!(),
        }
        results.push(r);
    }
    floors.push(child::floor(&scratch.dir));
    ctx.rss_floor_kib = floors.into_iter().flatten().max();
    drop(scratch);
    drop(dev);
    ctx.load_end = load_average();

    let mut notes = Vec::new();
    if results.iter().any(|r| !r.case.device) {
        println!("\n{}", report::results_table(&results, &mut notes));
    }
    let fast = report::fast_table(&results, &mut notes);
    if !fast.is_empty() {
        println!("\n{fast}");
    }
    for (i, n) in notes.iter().enumerate() {
        println!("[{}] {n}", i + 1);
    }
    if args.only.is_some() {
        println!("\n(--only: benches/RESULTS.md left as it was)");
    } else {
        eprintln!("micro benchmarks (in process) ...");
        let micros = micro::markdown(&micro::run(args.reps), args.reps);
        println!("\n{micros}");
        let path = manifest.join("benches/RESULTS.md");
        std::fs::write(
            &path,
            format!("{}\n{micros}", report::markdown(&ctx, &results)),
        )
        .map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!("\nwrote {}", path.display());
    }
    Ok(())
}

/// One case's figure for the progress line.
fn brief(r: &measure::ToolResult, case: &cases::Case) -> String {
    match r {
        measure::ToolResult::NotSupported(_) => "not supported yet".into(),
        measure::ToolResult::Failed(m) => format!("FAILED ({m})"),
        measure::ToolResult::Skipped(m) => format!("not run ({m})"),
        measure::ToolResult::Measured(_) => match (r.summary(), case.metric) {
            (Some(s), cases::Metric::WallTime) => report::time(s.wall),
            (Some(s), cases::Metric::Iops(_)) => {
                s.iops.map_or("—".into(), |x| report::scaled(x) + " IOPS")
            }
            (None, _) => "no runs".into(),
        },
    }
}

/// `target/release/rfio` beside this bench binary (`target/release/deps/`),
/// whatever the target dir; else under the manifest.
fn default_rfio(manifest: &Path) -> Option<PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("rfio")));
    beside
        .into_iter()
        .chain(std::iter::once(manifest.join("target/release/rfio")))
        .find(|p| p.is_file())
}

/// fio's `t/io_uring`: `--t-io-uring`, else in the source tree of the fio
/// 3.42 that `scripts/fio-oracle 3.42` finds (or builds); or why not.
fn find_t_io_uring(given: Option<&Path>, manifest: &Path) -> Result<PathBuf, String> {
    let path = match given {
        Some(p) => p.to_path_buf(),
        None => {
            let out = std::process::Command::new(manifest.join("scripts/fio-oracle"))
                .arg("3.42")
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| format!("running scripts/fio-oracle 3.42: {e}"))?;
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                return Err(format!(
                    "scripts/fio-oracle 3.42 found no fio 3.42: {}",
                    err.lines().last().unwrap_or("").trim()
                ));
            }
            let fio = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_string());
            fio.parent().unwrap_or(Path::new(".")).join("t/io_uring")
        }
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} is not there (build it: make t/io_uring)",
            path.display()
        ))
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A warning when some file under `src` is newer than the binary.
fn stale_warning(binary: &Path, src: &Path) -> Option<String> {
    let built = binary.metadata().ok()?.modified().ok()?;
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = entry.path();
            let meta = entry.metadata().ok()?;
            if meta.is_dir() {
                stack.push(path);
            } else if meta.modified().ok()? > built {
                return Some(format!(
                    "{} is newer than the rfio binary; rebuild with `cargo build --release --bin rfio`",
                    path.display()
                ));
            }
        }
    }
    None
}

fn read_trimmed(path: &str) -> Option<String> {
    Some(std::fs::read_to_string(path).ok()?.trim().to_string())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn load_average() -> String {
    read_trimmed("/proc/loadavg").map_or("unknown".into(), |l| {
        l.split_whitespace().take(3).collect::<Vec<_>>().join(", ")
    })
}

/// The first line of `program --version`.
fn version(program: &Path) -> String {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_else(|| "unknown version".into())
}

/// The short commit, with `-dirty` when the tree has changes.
fn git_revision(repo: &Path) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["describe", "--always", "--dirty"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}
