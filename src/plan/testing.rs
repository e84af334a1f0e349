//! Plans made from command lines, for the unit tests of the plan and of the
//! stages that run it.

use super::build::Frontend;
use super::spec::{JobSpec, Plan};
use crate::jobfile::subst::Keywords;

/// Fixed `$pagesize`, `$mb_memory` and `$ncpus`, so that a test does not
/// depend on the machine it runs on.
pub(crate) const KEYWORDS: Keywords = Keywords {
    pagesize: 4096,
    mb_memory: 1024,
    ncpus: 2,
};

/// The front end's result for the command line `argv` (program name
/// excluded), diagnostics included.
pub(crate) fn frontend(argv: &[&str]) -> Frontend {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let args = crate::cli::args::parse(&argv).expect("the command line parses");
    super::build(&args, &[], &KEYWORDS)
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
