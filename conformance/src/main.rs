//! `rfio-conformance`: runs job files through real fio and through rfio, side by side, and
//! compares what they print and how they exit. See conformance/README.md.
//!
//! ```text
//! argv ─ cli ─┐
//! paths ─ corpus (job files + `; conformance:` headers) ─┐
//! tools (locate fio, probe its version; locate rfio) ────┴─ pool (files in parallel)
//!     └─ check (per file × check: run both via run, judge) ─ report (table, details, JSON)
//!          ├─ showcmd, parse-only: exit status and stdout (verdict)
//!          ├─ run: runcheck ─ jsoncmp (json+), terse (--minimal), logs (files left behind)
//!          └─ pipelines: awk and jq on both outputs
//! ```
//!
//! Imports go one way, from the leaves up: run, spec, show (leaves) ← registry (the checks and
//! run modes) ← corpus, verdict (outcomes, differences, verdicts) ← judge (value roles and
//! tolerances) ← logs, jsoncmp, terse ← runcheck, pipelines ← check ← report ← main.
//!
//! Exit status: 0 when everything agrees, 1 when anything differs, 2 on usage errors or when fio
//! cannot be run.

mod check;
mod cli;
mod corpus;
mod jsoncmp;
mod judge;
mod logs;
mod pipelines;
mod pool;
mod registry;
mod report;
mod run;
mod runcheck;
mod show;
mod spec;
mod terse;
mod threads;
mod tools;
mod verdict;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use check::{Binaries, FileResult};
use report::{Setup, Table};

fn main() -> ExitCode {
    let args = match cli::parse(std::env::args_os().skip(1)) {
        Ok(cli::Command::Compare(args)) => args,
        Ok(cli::Command::Help) => {
            print(cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(cli::Command::Threads(pgid)) => {
            print(&threads::describe(pgid));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("rfio-conformance: {message}");
            eprintln!("(rfio-conformance --help shows the usage)");
            return ExitCode::from(2);
        }
    };
    match compare(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("rfio-conformance: {message}");
            ExitCode::from(2)
        }
    }
}

/// Compares every job file; `Ok(true)` when fio and rfio agree everywhere. The error is a
/// setup problem (exit status 2).
fn compare(args: &cli::Args) -> Result<bool, String> {
    let fio = tools::locate_fio(args.fio.as_deref())?;
    let fio_version = tools::fio_version(&fio)?;
    if let Some(release) = fio_version.strip_prefix("fio-") {
        run::follow_release(release);
    }
    let rfio = tools::locate_rfio(args.rfio.as_deref())?;
    // rfio runs with RFIO_FIO_VERSION set to the oracle's release; it says
    // which one it follows in its `--version` (an unknown one: none).
    let outcome = run::run_in_temp_dir(&rfio, &["--version".into()], Duration::from_secs(20));
    let shown = String::from_utf8_lossy(&outcome.stdout).into_owned();
    let follows = followed_release(&shown).unwrap_or(tools::FIO_VERSION);
    if follows != fio_version {
        eprintln!(
            "rfio-conformance: warning: {} is {fio_version}; rfio follows {follows}",
            fio.display(),
        );
    }
    if args.checks.contains(&registry::Check::Pipelines) {
        tools::require_programs(&pipelines::PROGRAMS, "the pipelines check")?;
    }
    let release = fio_version.strip_prefix("fio-").unwrap_or(&fio_version);
    let jobs = corpus::collect(&args.paths, args.examples, release)?;

    let directives_apply = !tools::same_binary(&fio, &rfio);
    let (fio_shown, rfio_shown) = (fio.display().to_string(), rfio.display().to_string());
    let setup = Setup {
        fio: &fio_shown,
        fio_version: &fio_version,
        rfio: &rfio_shown,
        directives_apply,
        checks: &args.checks,
        timeout: args.timeout,
        retries: args.retries,
    };
    let bins = Binaries {
        fio: &fio,
        rfio: &rfio,
        limit: args.timeout,
        retries: args.retries,
        directives_apply,
    };
    let workers = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });

    let table = Table::new(jobs.iter().map(|job| job.display.as_str()), &args.checks);
    if !args.quiet {
        print(&report::setup_lines(&setup));
        print(&table.header(&args.checks));
    }
    let mut results: Vec<FileResult> = Vec::with_capacity(jobs.len());
    pool::for_each_in_order(
        &jobs,
        workers,
        |job| check::check_file(job, &args.checks, &bins),
        |_, result| {
            if !args.quiet {
                print(&table.row(&result));
            }
            results.push(result);
        },
    );

    let skips = report::skips(&results);
    if !skips.is_empty() && !args.quiet {
        print("\n");
        print(&skips);
    }
    let details = report::details(&results);
    if !details.is_empty() {
        print("\n");
        print(&details);
    } else if !args.quiet {
        print("\n");
    }
    print(&report::summary_line(&results));

    if let Some(path) = &args.json {
        std::fs::write(path, report::render(&report::json(&setup, &results)))
            .map_err(|err| format!("cannot write the JSON report {}: {err}", path.display()))?;
    }
    Ok(report::counts(&results).1 == 0)
}

/// Writes to stdout now. A closed stdout (`| head`) is not an error: the exit status still tells.
fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The fio release an rfio `--version` line says rfio follows
/// (`rfio-0.1.0 (fio-3.42 compatible)` → `fio-3.42`).
fn followed_release(version: &str) -> Option<&str> {
    let inner = version.lines().next()?.split_once('(')?.1;
    let release = inner.strip_suffix(" compatible)")?;
    release.starts_with("fio-").then_some(release)
}

#[cfg(test)]
mod follow_tests {
    use super::followed_release;

    #[test]
    fn the_release_rfio_follows_is_read_from_its_version() {
        assert_eq!(
            followed_release("rfio-0.1.0 (fio-3.42 compatible)\n"),
            Some("fio-3.42")
        );
        assert_eq!(
            followed_release("rfio-0.1.0 (fio-3.33 compatible)"),
            Some("fio-3.33")
        );
        assert_eq!(followed_release(""), None);
        assert_eq!(followed_release("fio-3.42"), None);
    }
}
