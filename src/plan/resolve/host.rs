//! How a job sits on its host besides its CPUs and priorities
//! (`placement`): the user and group it runs as (`uid`, `gid`), the time
//! keeping thread (`gtod_cpu`), NUMA nodes (`numa_cpu_nodes`,
//! `numa_mem_policy`), its control group (`cgroup`, `cgroup_weight`,
//! `cgroup_nodelete`), and two reporting switches read below the plan
//! (`error_dump`, `block_error_percentiles`).
//!
//! The job option `profile=` needs nothing here: fio 3.33 only stores its
//! text (a profile runs with `--profile=` on the command line,
//! `plan::profile`).
//!
//! fio 3.33's quirks kept here:
//!
//! - `uid` and `gid` count only where the job's own section sets them:
//!   fio's `get_new_job` resets them for every job it makes, so a value in
//!   `[global]` (or before `--name`) and the `numjobs` clones run as the
//!   invoking user ([`HostOptions::for_job`]).
//! - `block_error_percentiles` wants exactly one file per job
//!   (`init.c` `fixup_options`).
//! - `gtod_cpu` names a CPU the time thread pins itself to; fio does not
//!   check it, and its clock then never moves (its time thread fails to pin
//!   itself and exits): rfio refuses a CPU the machine does not have.

use super::numa::{self, MemPolicy, Nodes};
use super::placement::cpus_configured;
use super::read::Opts;
use crate::diag::Span;
use crate::options::Value;

/// fio's "unset" `uid`/`gid` (`-1U`).
const UNSET_ID: u32 = u32::MAX;

/// `cgroup=` with its weight and whether it stays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CgroupOptions {
    /// The group's path below the cgroup mount (fio's `cgroup=`).
    pub(crate) name: String,
    /// `cgroup_weight` (0: not set).
    pub(crate) weight: u32,
    /// `cgroup_nodelete`.
    pub(crate) nodelete: bool,
}

/// What `--profile=act` does while its jobs run (`plan::profile`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActHooks {
    /// Hour-long slices latencies are counted in (fio's `nr_slices`).
    pub(crate) slices: u64,
    /// `prep`: nothing is counted, the table is printed all the same.
    pub(crate) prep: bool,
}

/// The job's host settings (`JobSpec::host`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct HostOptions {
    /// `uid` and `gid` (set in the job's own section: see
    /// [`HostOptions::for_job`]).
    pub(crate) uid: Option<u32>,
    pub(crate) gid: Option<u32>,
    /// Where `uid`/`gid` were set, until [`HostOptions::for_job`] decides.
    uid_at: Option<Span>,
    gid_at: Option<Span>,
    /// `gtod_cpu`: time is read from a thread pinned to this CPU (for every
    /// job of the run), and a job with `cpus_allowed` leaves it out (unless
    /// it is CPU 0, which fio's test of the option skips).
    pub(crate) gtod_cpu: Option<usize>,
    /// The CPUs of the run's time thread (every job's `gtod_cpu`), when
    /// some job of the run sets one: every job then reads its time there
    /// ([`whole_run`]).
    pub(crate) time_thread: Option<Vec<usize>>,
    /// `numa_cpu_nodes`: run on these nodes' CPUs.
    pub(crate) numa_cpu_nodes: Option<Vec<usize>>,
    /// `numa_mem_policy`.
    pub(crate) numa_mem: Option<MemPolicy>,
    /// Bits of the kernel's node mask (for `set_mempolicy`).
    pub(crate) numa_mask_bits: usize,
    pub(crate) cgroup: Option<CgroupOptions>,
    /// `error_dump`: print every I/O error, also those `continue_on_error`
    /// lets through.
    pub(crate) error_dump: bool,
    /// `block_error_percentiles`: track trims per trim-sized block of the
    /// job's file.
    pub(crate) block_hist: bool,
    /// The act profile's latency slices, for its jobs.
    pub(crate) act: Option<ActHooks>,
    /// `comm` (fio 3.42): the name the job's thread takes (the kernel
    /// keeps its first 15 bytes), up to a NUL.
    pub(crate) comm: Option<std::ffi::CString>,
}

impl HostOptions {
    /// The settings of the job defined at `span`, clone number `subjob`:
    /// `uid` and `gid` only when that section set them and this is not a
    /// clone (fio 3.33's `get_new_job` resets them).
    pub(crate) fn for_job(&self, span: &Span, subjob: u32) -> HostOptions {
        let own = |at: &Option<Span>| subjob == 0 && at.as_ref().is_some_and(|a| within(a, span));
        HostOptions {
            uid: self.uid.filter(|_| own(&self.uid_at)),
            gid: self.gid.filter(|_| own(&self.gid_at)),
            uid_at: None,
            gid_at: None,
            ..self.clone()
        }
    }
}

/// What the jobs of a plan share (`hosts`, one per job): fio's one time
/// thread, pinned to every job's `gtod_cpu`, which every job reads its
/// time from.
pub(crate) fn whole_run<'a>(hosts: impl Iterator<Item = &'a mut HostOptions>) {
    let mut hosts: Vec<&mut HostOptions> = hosts.collect();
    let mut cpus: Vec<usize> = hosts.iter().filter_map(|h| h.gtod_cpu).collect();
    if cpus.is_empty() {
        return;
    }
    cpus.sort_unstable();
    cpus.dedup();
    for h in &mut hosts {
        h.time_thread = Some(cpus.clone());
    }
}

/// How many names `filename=` lists (`:`-separated, `\:` a colon, blank
/// names dropped, as `plan::files` reads them).
fn file_names(text: &str) -> i64 {
    text.replace("\\:", "\0")
        .split(':')
        .filter(|n| !n.trim().is_empty())
        .count() as i64
}

/// Whether a setting at `at` belongs to the section that starts at
/// `section` (after its header, in the same file; after its `--name`).
fn within(at: &Span, section: &Span) -> bool {
    match (at, section) {
        (
            Span::File { path, line, .. },
            Span::File {
                path: p, line: l, ..
            },
        ) => path == p && line > l,
        (Span::Arg { index }, Span::Arg { index: i }) => index > i,
        _ => false,
    }
}

/// Resolve the host settings; values rfio refuses go to `bad`.
pub(super) fn resolve(o: Opts<'_>, bad: &mut Vec<String>) -> HostOptions {
    let id = |name: &str| {
        let s = o.0.get(name)?;
        let v = match s.value {
            Value::Int(n) => n as u32,
            _ => return None,
        };
        (v != UNSET_ID).then(|| (v, s.span.clone()))
    };
    let (uid, uid_at) = id("uid").unzip();
    let (gid, gid_at) = id("gid").unzip();
    let nodes = Nodes::of_machine();
    let mut cpu_nodes = None;
    let mut mem = None;
    for name in ["numa_cpu_nodes", "numa_mem_policy"] {
        let Some(text) = o.text(name) else { continue };
        let done = match (name, text) {
            (_, "") => Err(format!("option {name} requires an argument")),
            ("numa_cpu_nodes", t) => numa::cpu_nodes(t, nodes)
                .map(|n| cpu_nodes = Some(n))
                .map_err(|e| e.to_string()),
            (_, t) => numa::mem_policy(t, nodes)
                .map(|p| mem = Some(p))
                .map_err(|e| e.to_string()),
        };
        if let Err(e) = done {
            bad.push(e);
        }
    }
    let gtod_cpu = o.int("gtod_cpu").map(|c| c as u32 as usize);
    if let Some(c) = gtod_cpu {
        let max = cpus_configured();
        if c >= max {
            bad.push(format!(
                "gtod_cpu={c}: CPU {c} too large (max={}); fio's time thread \
                 cannot pin itself there and its clock never moves",
                max - 1
            ));
        }
    }
    let block_hist = o.is("block_error_percentiles");
    if block_hist {
        let files = match o.text("filename") {
            Some(f) if !f.is_empty() => file_names(f),
            _ => o.int_or_default("nrfiles"),
        };
        if files != 1 {
            bad.push(format!(
                "block_error_percentiles: block error histogram only available \
                 with a single file per job, but {files} files provided"
            ));
        }
    }
    HostOptions {
        uid,
        gid,
        uid_at,
        gid_at,
        gtod_cpu,
        time_thread: None,
        numa_cpu_nodes: cpu_nodes,
        numa_mem: mem,
        numa_mask_bits: nodes.mask_bits,
        cgroup: o.text("cgroup").map(|name| CgroupOptions {
            name: name.to_string(),
            weight: o.int_or_zero("cgroup_weight") as u32,
            nodelete: o.is("cgroup_nodelete"),
        }),
        error_dump: o.is("error_dump"),
        block_hist,
        act: None,
        comm: o.text("comm").map(|t| {
            let upto = t.split('\0').next().unwrap_or_default();
            std::ffi::CString::new(upto).unwrap_or_default()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::testing::frontend;

    fn host(args: &[&str]) -> Result<Vec<HostOptions>, String> {
        let mut a = vec!["--ioengine=null", "--size=16k"];
        a.extend_from_slice(args);
        let fe = frontend(&a);
        match fe.diags.0.first() {
            Some(d) => Err(d.message.clone()),
            None => Ok(fe.plan.jobs.iter().map(|j| j.host.clone()).collect()),
        }
    }

    #[test]
    fn defaults_are_off() {
        let h = &host(&["--name=j"]).unwrap()[0];
        assert_eq!(
            *h,
            HostOptions {
                numa_mask_bits: h.numa_mask_bits,
                ..HostOptions::default()
            }
        );
    }

    /// fio resets uid and gid for each job it makes: only the section's
    /// own values count, and only for the original of `numjobs` clones.
    #[test]
    fn ids_only_from_the_jobs_own_section() {
        let h = host(&[
            "--uid=65534",
            "--name=a",
            "--name=b",
            "--gid=7",
            "--numjobs=2",
        ])
        .unwrap();
        assert_eq!(
            h.iter().map(|h| (h.uid, h.gid)).collect::<Vec<_>>(),
            [(None, None), (None, Some(7)), (None, None)]
        );
        assert_eq!(
            host(&["--name=a", "--uid=4294967295"]).unwrap()[0].uid,
            None
        );
    }

    #[test]
    fn switches_and_cgroup() {
        let h = &host(&[
            "--name=j",
            "--error_dump=1",
            "--block_error_percentiles=1",
            "--cgroup=x/y",
            "--cgroup_weight=500",
            "--cgroup_nodelete=1",
            "--gtod_cpu=0",
        ])
        .unwrap()[0];
        assert!(h.error_dump && h.block_hist);
        assert_eq!(h.gtod_cpu, Some(0));
        assert_eq!(
            h.cgroup,
            Some(CgroupOptions {
                name: "x/y".into(),
                weight: 500,
                nodelete: true
            })
        );
    }

    #[test]
    fn refusals_name_the_job() {
        let e = host(&["--name=j", "--block_error_percentiles=1", "--nrfiles=2"]).unwrap_err();
        assert_eq!(
            e,
            "job 'j': block_error_percentiles: block error histogram only \
             available with a single file per job, but 2 files provided"
        );
        let e = host(&[
            "--name=j",
            "--block_error_percentiles=1",
            "--filename=a:b:c",
        ])
        .unwrap_err();
        assert!(e.ends_with("but 3 files provided"), "{e}");
        let cpu = format!("--gtod_cpu={}", cpus_configured());
        let e = host(&["--name=j", &cpu]).unwrap_err();
        assert!(
            e.starts_with(&format!("job 'j': gtod_cpu={}: ", cpus_configured())),
            "{e}"
        );
        let e = host(&["--name=j", "--numa_mem_policy=bind"]).unwrap_err();
        assert_eq!(
            e,
            "job 'j': numa_mem_policy=bind: a nodelist is needed for 'bind'"
        );
        let e = host(&["--name=j", "--numa_cpu_nodes=x"]).unwrap_err();
        assert_eq!(
            e,
            "job 'j': numa_cpu_nodes=x: unparseable node description `x' \
             (fio: numa_parse_nodestring failed)"
        );
    }

    /// A dry run takes what only fio's option callbacks refuse.
    #[test]
    fn dry_runs_take_them() {
        for flag in ["--parse-only", "--showcmd"] {
            let fe = frontend(&[
                flag,
                "--name=j",
                "--size=16k",
                "--numa_cpu_nodes=x",
                "--nrfiles=2",
                "--block_error_percentiles=1",
            ]);
            assert!(fe.diags.is_empty(), "{flag}: {}", fe.diags);
        }
    }
}
