//! `--cmdhelp` and `--enghelp` against real fio 3.33: stdout, stderr and exit
//! status must match byte for byte, for every option in the table.
//!
//! These tests run /usr/bin/fio and fail (never skip) without it.

use crate::common;

use std::process::Command;

use rfio::api::{
    cmdhelp, cmdhelp_all, cmdhelp_output, enghelp, enghelp_cmd, enghelp_list, enghelp_output,
    lookup_option, valid_values, FioType, HelpOutput, ENGINES, OPTIONS,
};

const FIO: &str = "/usr/bin/fio";

/// Run real fio with one argument.
fn fio(arg: &str) -> HelpOutput {
    if let Err(e) = std::fs::metadata(FIO) {
        panic!("real fio 3.33 is needed: apt-get install -y fio ({FIO}: {e})");
    }
    let (out, timed_out) = common::output_within(Command::new(FIO).arg(arg), common::RUN_LIMIT);
    assert!(!timed_out, "{FIO} {arg} hung: killed");
    HelpOutput {
        stdout: String::from_utf8(out.stdout).expect("fio stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("fio stderr is UTF-8"),
        status: out.status.code().expect("fio exited normally"),
    }
}

fn check_version() {
    let v = fio("--version");
    assert_eq!(
        v.stdout.trim(),
        "fio-3.33",
        "real fio 3.33 is needed: apt-get install -y fio"
    );
}

#[track_caller]
fn same(arg: &str, ours: HelpOutput) {
    let theirs = fio(arg);
    assert_eq!(ours.stdout, theirs.stdout, "stdout of fio {arg}");
    assert_eq!(ours.stderr, theirs.stderr, "stderr of fio {arg}");
    assert_eq!(ours.status, theirs.status, "exit status of fio {arg}");
}

#[test]
fn cmdhelp_all_matches_fio() {
    check_version();
    same("--cmdhelp", cmdhelp_output(None));
    same("--cmdhelp=all", cmdhelp_output(Some("all")));
    assert_eq!(cmdhelp_all(), fio("--cmdhelp=all").stdout);
    assert_eq!(
        cmdhelp("all").as_deref(),
        Ok(fio("--cmdhelp").stdout.as_str())
    );
}

#[test]
fn cmdhelp_of_every_core_option_matches_fio() {
    check_version();
    let mut n = 0;
    for o in OPTIONS.iter().filter(|o| !o.is_engine_option()) {
        for name in std::iter::once(o.name).chain(o.aliases.iter().copied()) {
            let arg = format!("--cmdhelp={name}");
            same(&arg, cmdhelp_output(Some(name)));
            let theirs = fio(&arg);
            match cmdhelp(name) {
                Ok(text) => assert_eq!((text, 0), (theirs.stdout, theirs.stderr.len()), "{arg}"),
                Err(text) => assert_eq!(text, theirs.stderr, "{arg}"),
            }
            n += 1;
        }
    }
    assert!(n > 240, "only {n} names checked");
}

#[test]
fn cmdhelp_misses_match_fio() {
    check_version();
    // closest match, none, empty name, an engine option, a deprecated one,
    // a profile option, an abbreviation
    for name in [
        "iodept",
        "zzzzzzzzz",
        "",
        "hipri",
        "rwmixcycle",
        "threads",
        "dir",
        "blocksiz",
        "ALL",
        "Rw",
    ] {
        same(&format!("--cmdhelp={name}"), cmdhelp_output(Some(name)));
    }
}

#[test]
fn enghelp_list_matches_fio() {
    check_version();
    same("--enghelp", enghelp_output(None));
    same("--enghelp=", enghelp_output(Some("")));
    assert_eq!(enghelp_list(), fio("--enghelp").stdout);
}

#[test]
fn enghelp_of_every_engine_matches_fio() {
    check_version();
    for e in
        ENGINES
            .iter()
            .copied()
            .chain(["nosuch", "LIBAIO", "external", "external:/nonexistent.so"])
    {
        let arg = format!("--enghelp={e}");
        same(&arg, enghelp_output(Some(e)));
        let theirs = fio(&arg);
        match enghelp(e) {
            Ok(text) => assert_eq!(
                (text.as_str(), theirs.status),
                (theirs.stdout.as_str(), 0),
                "{arg}"
            ),
            Err(_) => assert_ne!(theirs.status, 0, "{arg}"),
        }
    }
    assert_eq!(enghelp("libaio"), Ok(fio("--enghelp=libaio").stdout));
}

#[test]
fn enghelp_of_every_engine_option_matches_fio() {
    check_version();
    let mut n = 0;
    for o in OPTIONS.iter().filter(|o| o.is_engine_option()) {
        // (Engines Debian's fio lacks, such as http, have no fio to ask.)
        for e in o.engines.iter().filter(|e| ENGINES.contains(e)) {
            for name in std::iter::once(o.name).chain(o.aliases.iter().copied()) {
                let arg = format!("--enghelp={e},{name}");
                same(&arg, enghelp_output(Some(&format!("{e},{name}"))));
                assert_eq!(enghelp_cmd(e, name), Ok(fio(&arg).stdout), "{arg}");
                n += 1;
            }
        }
    }
    assert!(n > 80, "only {n} engine options checked");
    assert_eq!(
        enghelp_cmd("io_uring", "hipri"),
        Ok(fio("--enghelp=io_uring,hipri").stdout)
    );
}

#[test]
fn enghelp_misses_match_fio() {
    check_version();
    for arg in [
        "libaio,nosuch",
        "libaio,nowai",
        "libaio,",
        "libaio,all",
        "libaio,nowait,foo",
        "sync,foo",
        ",hipri",
        "net,hostnam",
        "cpuio,cpuchunks",
        "nosuch,hipri",
    ] {
        same(&format!("--enghelp={arg}"), enghelp_output(Some(arg)));
    }
}

/// fio prints the valid values on stdout when a choice fails to parse:
/// `fio --parse-only` with `rw=foo` writes exactly that table.
#[test]
fn valid_values_match_a_failed_choice() {
    check_version();
    let dir = std::env::temp_dir().join(format!("rfio-cmdhelp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for o in OPTIONS
        .iter()
        .filter(|o| !o.is_engine_option() && o.fio_type == FioType::Str && !o.posvals.is_empty())
    {
        let job = dir.join(format!("{}.fio", o.name));
        std::fs::write(&job, format!("[j]\n{}=zzzz\n", o.name)).unwrap();
        let (out, timed_out) = common::output_within(
            Command::new(FIO).arg("--parse-only").arg(&job),
            common::RUN_LIMIT,
        );
        assert!(!timed_out, "{FIO} --parse-only {}: hung", job.display());
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            valid_values(o),
            "{}=zzzz",
            o.name
        );
        assert_eq!(out.status.code(), Some(1), "{}=zzzz", o.name);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(valid_values(lookup_option("rw").unwrap())
        .starts_with("        valid values: read       Sequential read\n"));
}
