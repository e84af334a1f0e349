//! Plans made from command lines, for the unit tests of the plan and of the
//! stages that run it.

use super::build::Frontend;
use super::input::{push_job_option, Input};
use super::spec::{JobSpec, Plan};
use crate::diag::Span;
use crate::jobfile::subst::Keywords;

/// Fixed `$pagesize`, `$mb_memory` and `$ncpus`, so that a test does not
/// depend on the machine it runs on.
pub(crate) const KEYWORDS: Keywords = Keywords {
    pagesize: 4096,
    mb_memory: 1024,
    ncpus: 2,
};

/// The plan's input for the command line `argv` (program name excluded):
/// `--readonly`, `--parse-only`, `--showcmd`, and job options written
/// whole, as `--NAME=VALUE` or `--NAME`.
/// As fio 3.33, whose figures the unit tests hold ([`job_as`] chooses
/// another release).
pub(crate) fn input(argv: &[&str]) -> Input {
    let mut input = Input {
        release: crate::release::Release::V3_33,
        ..Input::default()
    };
    for (i, arg) in argv.iter().enumerate() {
        let body = arg.strip_prefix("--").unwrap_or(arg);
        match body {
            "readonly" => input.readonly = true,
            "parse-only" => input.parse_only = true,
            "showcmd" => input.showcmd = true,
            p if p.starts_with("profile=") => {
                let span = Span::Arg {
                    index: i as u32 + 1,
                };
                input.profile = Some((p["profile=".len()..].to_string(), span));
            }
            _ => {
                let (name, value) = match body.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (body, None),
                };
                let span = Span::Arg {
                    index: i as u32 + 1,
                };
                push_job_option(&mut input.cmd_sections, name, value, span);
            }
        }
    }
    input
}

/// The front end's result for the command line `argv`, diagnostics
/// included.
pub(crate) fn frontend(argv: &[&str]) -> Frontend {
    super::build(input(argv), &[], &KEYWORDS)
}

/// The plan of `argv`, which the front end must accept.
pub(crate) fn plan(argv: &[&str]) -> Plan {
    let fe = frontend(argv);
    assert!(fe.diags.is_empty(), "{}", fe.diags);
    fe.plan
}

/// The first job of `argv`'s plan.
pub(crate) fn job(argv: &[&str]) -> JobSpec {
    plan(argv)
        .jobs
        .into_iter()
        .next()
        .expect("the command line names a job")
}

/// The first job of `argv`'s plan when rfio behaves as `release`
/// (`3.NN`).
pub(crate) fn job_as(release: &str, argv: &[&str]) -> JobSpec {
    let mut input = input(argv);
    input.release = crate::release::Release::parse(release).expect("a release");
    let fe = super::build(input, &[], &KEYWORDS);
    assert!(fe.diags.is_empty(), "{}", fe.diags);
    fe.plan
        .jobs
        .into_iter()
        .next()
        .expect("the command line names a job")
}
