//! fio 3.33's usage text (`init.c` `usage`), printed by `--help` and when
//! no job is given: rfio called as `fio` prints it byte for byte, with the
//! program name as it was called (fio prints its `argv[0]`), every flag
//! fio lists included (`--server`, `--client`, ... which rfio refuses).
//! Called as `rfio`, the usage is rfio's own ([`usage`]).

use std::path::Path;

use crate::release::{Change, Release};

/// The fio release whose behaviour rfio reproduces.
pub(crate) const FIO_VERSION: &str = "fio-3.33";

/// `--help`, and the usage printed when there is no job: fio's (as
/// `release` prints it), called as `fio`; rfio's otherwise.
pub(crate) fn usage(release: Release) -> String {
    as_fio(release).unwrap_or_else(|| rfio_usage(release))
}

/// fio's text, or `None` when rfio was not called as `fio` (the file name
/// of `argv[0]`).
pub(crate) fn as_fio(release: Release) -> Option<String> {
    let argv0 = std::env::args_os().next()?;
    let named_fio = Path::new(&argv0).file_name().is_some_and(|n| n == "fio");
    named_fio.then(|| fio_usage(&argv0.to_string_lossy(), release))
}

/// The program name as called when it is `fio` (glibc's messages start
/// with it, as written: `/usr/bin/fio`), else `fio`.
pub(crate) fn program() -> String {
    let argv0 = std::env::args_os().next();
    let named_fio = argv0
        .as_ref()
        .is_some_and(|a| Path::new(a).file_name().is_some_and(|n| n == "fio"));
    match (argv0, named_fio) {
        (Some(a), true) => a.to_string_lossy().into_owned(),
        _ => "fio".to_string(),
    }
}

/// fio's `show_debug_categories`: the `--debug` categories, three TABs
/// before each line, lines broken before a name that would reach column
/// 80 (counting each TAB as 8 columns).
pub(crate) fn debug_categories(release: Release) -> String {
    let later = ["sprandom"]
        .into_iter()
        .filter(|_| release.has(Change::DebugSprandom));
    let names: Vec<&str> = crate::debug::NAMES.iter().copied().chain(later).collect();
    let mut out = String::new();
    let mut curlen = 0usize;
    for (i, name) in names.iter().enumerate() {
        let has_next = i + 1 < names.len();
        if i == 0 || curlen + name.len() >= 80 {
            if i != 0 {
                out.push('\n');
            }
            out.push_str("\t\t\t");
            out.push_str(name);
            curlen = 3 + name.len() + 3 * (8 - 1);
        } else {
            out.push_str(name);
            curlen += name.len();
        }
        if has_next {
            out.push(',');
            curlen += 1;
        }
    }
    out.push('\n');
    out
}

/// fio's usage text as `release` prints it, for program `name`.
pub(crate) fn fio_usage(name: &str, release: Release) -> String {
    let mut s = format!("{release}\n{name} [options] [job options] <job file(s)>\n");
    s.push_str(&flags(|_| true, release));
    s.push_str("\nFio was written by Jens Axboe <axboe@kernel.dk>\n");
    s
}

/// rfio's usage text (called as `rfio`): fio's flags, then rfio's own
/// flags and its `plot` command.
pub(crate) fn rfio_usage(release: Release) -> String {
    let mut s = format!(
        "{release} compatible (rfio {})\nrfio [options] [job options] <job file(s)>\n",
        env!("CARGO_PKG_VERSION")
    );
    s.push_str(&flags(|_| true, release));
    for line in RFIO_FLAGS {
        s.push_str(line);
        s.push('\n');
    }
    s.push_str("\nrfio reproduces fio, which was written by Jens Axboe <axboe@kernel.dk>\n");
    s
}

/// rfio's own flags, as usage lines.
const RFIO_FLAGS: &[&str] = &[
    "  --compat=fio\t\tRead job files and values as fio 3.33 does (the default when called as fio)",
    "  --compat=strict\tRefuse what fio silently misreads (the default when called as rfio)",
    "  --status-format=ndjson\tStatus dumps as JSON lines (--output-format=ndjson: the results too)",
    "  --status-output=file\tWhere --status-format=ndjson lines go (default stderr)",
    "  --lint\t\tReport the jobs' methodology problems and run nothing (exit 0: none, 1: some, 2: invalid job)",
    "  --lint-format=json\tThe --lint report as a JSON array",
    "  --quiet-lint\t\tNo lint warnings on stderr before a run",
    "  --lint-allow=RULE[,RULE...]\tSilence these lint rules (or all) for every job",
    "  --repeat=N\t\tRun the jobs N times: the median run's report, then each metric's median, min, max, cv",
    "  --baseline-save=FILE\tSave the host, targets, job text and results to FILE (JSON)",
    "  --baseline-compare=FILE\tRun the same jobs and compare with FILE (exit 3: a metric got worse)",
    "  --baseline-threshold=PCT\tThe change that counts as better or worse (default 10)",
    "  --baseline-metrics=LIST\tThe metrics that decide the exit status (default iops,bw,p99)",
    "\nrfio plot FILE... -o DIR\tCharts of fio's logs and JSON output (rfio plot --help)",
];

/// fio's lines for its flags, those `keep` keeps (by flag name).
fn flags(keep: impl Fn(&str) -> bool, release: Release) -> String {
    let mut s = String::new();
    for (flag, lines) in FIO_FLAGS {
        if !keep(flag) {
            continue;
        }
        for line in *lines {
            s.push_str(line);
            s.push('\n');
        }
        if *flag == "--debug" {
            s.push_str(&debug_categories(release));
        }
    }
    s
}

/// fio's usage lines, by flag, in its order (the `--debug` categories
/// follow its line).
const FIO_FLAGS: &[(&str, &[&str])] = &[
    ("--debug", &["  --debug=options\tEnable debug logging. May be one/more of:"]),
    ("--parse-only", &["  --parse-only\t\tParse options only, don't start any IO"]),
    ("--merge-blktrace-only", &["  --merge-blktrace-only\tMerge blktraces only, don't start any IO"]),
    ("--output", &["  --output\t\tWrite output to file"]),
    ("--bandwidth-log", &["  --bandwidth-log\tGenerate aggregate bandwidth logs"]),
    ("--minimal", &["  --minimal\t\tMinimal (terse) output"]),
    ("--output-format", &["  --output-format=type\tOutput format (terse,json,json+,normal)"]),
    ("--terse-version", &["  --terse-version=type\tSet terse version output format (default 3, or 2 or 4 or 5)"]),
    ("--version", &["  --version\t\tPrint version info and exit"]),
    ("--help", &["  --help\t\tPrint this page"]),
    ("--cpuclock-test", &["  --cpuclock-test\tPerform test/validation of CPU clock"]),
    ("--crctest", &["  --crctest=[type]\tTest speed of checksum functions"]),
    ("--cmdhelp", &["  --cmdhelp=cmd\t\tPrint command help, \"all\" for all of them"]),
    (
        "--enghelp",
        &[
            "  --enghelp=engine\tPrint ioengine help, or list available ioengines",
            "  --enghelp=engine,cmd\tPrint help for an ioengine cmd",
        ],
    ),
    ("--showcmd", &["  --showcmd\t\tTurn a job file into command line options"]),
    (
        "--eta",
        &[
            "  --eta=when\t\tWhen ETA estimate should be printed",
            "            \t\tMay be \"always\", \"never\" or \"auto\"",
        ],
    ),
    ("--eta-newline", &["  --eta-newline=t\tForce a new line for every 't' period passed"]),
    ("--status-interval", &["  --status-interval=t\tForce full status dump every 't' period passed"]),
    ("--readonly", &["  --readonly\t\tTurn on safety read-only checks, preventing writes"]),
    (
        "--section",
        &["  --section=name\tOnly run specified section in job file, multiple sections can be specified"],
    ),
    ("--alloc-size", &["  --alloc-size=kb\tSet smalloc pool to this size in kb (def 16384)"]),
    ("--warnings-fatal", &["  --warnings-fatal\tFio parser warnings are fatal"]),
    ("--max-jobs", &["  --max-jobs=nr\t\tMaximum number of threads/processes to support"]),
    ("--server", &["  --server=args\t\tStart a backend fio server"]),
    ("--daemonize", &["  --daemonize=pidfile\tBackground fio server, write pid to file"]),
    ("--client", &["  --client=hostname\tTalk to remote backend(s) fio server at hostname"]),
    ("--remote-config", &["  --remote-config=file\tTell fio server to load this local job file"]),
    (
        "--idle-prof",
        &[
            "  --idle-prof=option\tReport cpu idleness on a system or percpu basis",
            "\t\t\t(option=system,percpu) or run unit work",
            "\t\t\tcalibration only (option=calibrate)",
        ],
    ),
    ("--inflate-log", &["  --inflate-log=log\tInflate and output compressed log"]),
    ("--trigger-file", &["  --trigger-file=file\tExecute trigger cmd when file exists"]),
    ("--trigger-timeout", &["  --trigger-timeout=t\tExecute trigger at this time"]),
    ("--trigger", &["  --trigger=cmd\t\tSet this command as local trigger"]),
    ("--trigger-remote", &["  --trigger-remote=cmd\tSet this command as remote trigger"]),
    ("--aux-path", &["  --aux-path=path\tUse this path for fio state generated files"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_categories_wrap_as_fios() {
        assert_eq!(
            debug_categories(Release::V3_33),
            "\t\t\tprocess,file,io,mem,blktrace,verify,random,parse,\n\
             \t\t\tdiskutil,job,mutex,profile,time,net,rate,compress,\n\
             \t\t\tsteadystate,helperthread,zbd\n"
        );
    }

    #[test]
    fn rfios_usage_is_fios_flags_then_its_own() {
        let u = rfio_usage(Release::V3_33);
        assert!(u.starts_with("fio-3.33 compatible (rfio "));
        assert!(u.contains("\nrfio [options] [job options] <job file(s)>\n  --debug=options\t"));
        // fio's flags as fio lists them, client and server too.
        let fio = fio_usage("fio", Release::V3_33);
        let flags = &fio[fio.find("  --debug").unwrap()..fio.find("\nFio was written").unwrap()];
        assert!(u.contains(flags));
        assert!(u.contains("\n  --server=args\t") && u.contains("\n  --client=hostname\t"));
        assert!(u.contains(&format!("{flags}  --compat=fio\t")));
        assert!(u.contains("\nrfio plot FILE... -o DIR\t"));
        assert!(u.ends_with(
            "\nrfio reproduces fio, which was written by Jens Axboe <axboe@kernel.dk>\n"
        ));
    }

    #[test]
    fn the_usage_names_the_program() {
        let u = fio_usage("/usr/bin/fio", Release::V3_33);
        assert!(u.starts_with(
            "fio-3.33\n/usr/bin/fio [options] [job options] <job file(s)>\n  --debug=options\t"
        ));
        assert!(u.ends_with("path\tUse this path for fio state generated files\n\nFio was written by Jens Axboe <axboe@kernel.dk>\n"));
        assert_eq!(u.lines().count(), 45);
    }
}
