//! A job thread's identity, NUMA placement and control group (fio's
//! `thread_main` set-up: `setgid`/`setuid`, `numa_run_on_node_mask` and
//! the memory policy, `cgroup.c`), and what a run shares: the time thread
//! of `gtod_cpu` and the control groups its jobs made ([`RunHost`]).
//!
//! rfio runs each job on a thread of one process. Linux keeps user and
//! group ids, CPU affinity and memory policy per thread, so the raw system
//! calls (not glibc's `setuid`, which changes every thread of the
//! process) give a job thread what fio gives a job process: `uid=65534`
//! makes the files the job creates (`ioengine=filecreate`, `exec_prerun`'s
//! output) belong to that user, and takes root's privileges from that
//! thread only. fio with `--thread` changes the whole process instead.
//!
//! Control groups: the first mount of a v1 hierarchy with `blkio` or of
//! cgroup v2 in /proc/mounts (as fio picks it). The job's thread is moved
//! into `MOUNT/NAME` (v1 `tasks`: that thread alone; v2 `cgroup.procs`:
//! the kernel moves the whole process, as for fio with `--thread`), and
//! back to the root when the job ends; a group the run made is removed
//! when the run ends unless `cgroup_nodelete`. `cgroup_weight` is written
//! to v1's `blkio.weight`; fio 3.33 refuses it on cgroup v2 ("cgroup weit
//! doesn't work with cgroup2") and so does rfio.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::cpus::{last_errno, set_affinity};
use super::errno::{strerror, verror};
use super::gtod::GtodThread;
use super::log::Log;
use crate::plan::resolve::host::{CgroupOptions, HostOptions};
use crate::plan::resolve::numa::MemPolicy;
use crate::plan::spec::Plan;

/// `MPOL_*` of `<linux/mempolicy.h>`.
const MPOL_DEFAULT: libc::c_int = 0;
const MPOL_PREFERRED: libc::c_int = 1;
const MPOL_BIND: libc::c_int = 2;
const MPOL_INTERLEAVE: libc::c_int = 3;
const MPOL_LOCAL: libc::c_int = 4;

/// How a job's set-up failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Failure {
    /// The job's error: errno and fio's `td_verror` text.
    Error(i32, String),
    /// The job ends without an error (fio's `goto err` with `td->error`
    /// unset): no I/O, err=0.
    Quiet,
}

pub(super) fn error(errno: i32, src: &str, func: &str) -> Failure {
    Failure::Error(errno, verror(src, func, errno))
}

/// `gid`, then `uid` (a new group needs the privilege the user id gives
/// up), for the calling thread only.
pub(super) fn switch_ids(host: &HostOptions) -> Result<(), Failure> {
    if let Some(gid) = host.gid {
        // SAFETY: setgid takes a plain integer; the raw call changes the
        // calling thread's credentials only.
        if unsafe { libc::syscall(libc::SYS_setgid, gid) } == -1 {
            return Err(error(last_errno(), "backend.c:1675", "setgid"));
        }
    }
    if let Some(uid) = host.uid {
        // SAFETY: as above.
        if unsafe { libc::syscall(libc::SYS_setuid, uid) } == -1 {
            return Err(error(last_errno(), "backend.c:1679", "setuid"));
        }
    }
    Ok(())
}

/// `numa_cpu_nodes` and `numa_mem_policy` on the calling thread, as
/// libnuma applies them for fio.
pub(super) fn numa(host: &HostOptions, log: &dyn Log) -> Result<(), Failure> {
    if host.numa_cpu_nodes.is_none() && host.numa_mem.is_none() {
        return Ok(());
    }
    // libnuma's numa_available: the kernel answers get_mempolicy.
    // SAFETY: null pointers ask for nothing back.
    let r = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            std::ptr::null_mut::<libc::c_int>(),
            std::ptr::null_mut::<libc::c_ulong>(),
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    };
    if r < 0 {
        return Err(error(
            last_errno(),
            "backend.c:1728",
            "Does not support NUMA API\n",
        ));
    }
    if let Some(nodes) = &host.numa_cpu_nodes {
        let mut cpus = Vec::new();
        for &n in nodes {
            match node_cpus(n) {
                Some(c) => cpus.extend(c),
                None => log.err("libnuma: Warning: Cannot read node cpumask from sysfs\n"),
            }
        }
        if let Err(e) = set_affinity(&cpus) {
            log.err(&format!(
                "numa_sched_setaffinity_v2_int() failed: {}\n",
                strerror(e)
            ));
            return Err(error(e, "backend.c:1737", "numa_run_on_node_mask failed\n"));
        }
    }
    if let Some(policy) = &host.numa_mem {
        let bits = host.numa_mask_bits.max(64);
        let (mode, nodes): (libc::c_int, Vec<usize>) = match policy {
            MemPolicy::Default => return Ok(()),
            MemPolicy::Interleave(n) if n.is_empty() => (MPOL_DEFAULT, Vec::new()),
            MemPolicy::Interleave(n) => (MPOL_INTERLEAVE, n.clone()),
            MemPolicy::Bind(n) => (MPOL_BIND, n.clone()),
            MemPolicy::Local => (MPOL_LOCAL, Vec::new()),
            // libnuma sets the node's bit when the mask has it: none left
            // means local allocation.
            MemPolicy::Prefer(n) => match usize::try_from(*n).ok().filter(|&n| n < bits) {
                Some(n) => (MPOL_PREFERRED, vec![n]),
                None => (MPOL_LOCAL, Vec::new()),
            },
        };
        let mut mask = vec![0 as libc::c_ulong; bits.div_ceil(64)];
        for n in nodes.into_iter().filter(|&n| n < bits) {
            mask[n / 64] |= 1 << (n % 64);
        }
        // SAFETY: `mask` holds `bits` bits; the kernel reads maxnode - 1.
        let r = unsafe {
            libc::syscall(
                libc::SYS_set_mempolicy,
                mode,
                mask.as_ptr(),
                (bits + 1) as libc::c_ulong,
            )
        };
        if r < 0 {
            // libnuma's numa_error: perror, and the job goes on.
            log.err(&format!("set_mempolicy: {}\n", strerror(last_errno())));
        }
    }
    Ok(())
}

/// The CPUs of NUMA node `n`.
fn node_cpus(n: usize) -> Option<Vec<usize>> {
    let list = std::fs::read_to_string(format!("/sys/devices/system/node/node{n}/cpulist")).ok()?;
    let mut cpus = Vec::new();
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().ok()?..=b.parse::<usize>().ok()?),
            None => cpus.push(part.parse().ok()?),
        }
    }
    Some(cpus)
}

/// The control groups made by runs of this process, to remove when their
/// run ends.
static MADE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The cgroup mount fio picks: its directory and whether it is cgroup v2.
fn cgroup_mount() -> Option<(PathBuf, bool)> {
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    for line in mounts.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let (Some(dir), Some(kind), Some(opts)) = (f.get(1), f.get(2), f.get(3)) else {
            continue;
        };
        let v1 = *kind == "cgroup" && opts.contains("blkio");
        if v1 || *kind == "cgroup2" {
            return Some((PathBuf::from(unescape(dir)), !v1));
        }
    }
    None
}

/// A /proc/mounts field with its `\NNN` octal escapes decoded.
fn unescape(field: &str) -> String {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// fio's `write_int_to_file`: a failed open is the job's error; what
/// happens to the write is not looked at.
fn write_int(dir: &Path, file: &str, val: u32, onerr: &str) -> Result<(), Failure> {
    match std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(dir.join(file))
    {
        Ok(mut f) => {
            let _ = write!(f, "{val}");
            Ok(())
        }
        Err(e) => Err(error(
            e.raw_os_error().unwrap_or(libc::EIO),
            "cgroup.c:136",
            onerr,
        )),
    }
}

/// The calling thread's id (fio's `td->pid` with `--thread`).
fn tid() -> u32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() as u32 }
}

/// A job thread in its control group; [`Cgroup::leave`] moves it back to
/// the root.
pub(super) struct Cgroup {
    mount: PathBuf,
    v2: bool,
}

impl Cgroup {
    /// fio's `cgroup_setup` for the calling thread.
    pub(super) fn join(opts: &CgroupOptions, log: &dyn Log) -> Result<Cgroup, Failure> {
        let Some((mount, v2)) = cgroup_mount() else {
            log.err("fio: cgroup blkio does not appear to be mounted\n");
            return Err(Failure::Quiet);
        };
        let root = mount.join(&opts.name);
        match std::fs::create_dir(&root) {
            Ok(()) => {
                if !opts.nodelete {
                    MADE.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(root.clone());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                log.err(&format!("fio: path {}\n", root.display()));
                return Err(error(errno, "cgroup.c:185", "cgroup mkdir"));
            }
        }
        if opts.weight != 0 {
            if v2 {
                log.err("fio: cgroup weit doesn't work with cgroup2\n");
                return Err(Failure::Quiet);
            }
            write_int(&root, "blkio.weight", opts.weight, "cgroup open weight")?;
        }
        let cg = Cgroup { mount, v2 };
        write_int(&root, cg.pids_file(), tid(), "cgroup write pid")?;
        Ok(cg)
    }

    fn pids_file(&self) -> &'static str {
        if self.v2 {
            "cgroup.procs"
        } else {
            "tasks"
        }
    }

    /// fio's `cgroup_shutdown`: back to the root group.
    pub(super) fn leave(self) {
        let _ = write_int(&self.mount, self.pids_file(), tid(), "cgroup write pid");
    }
}

/// What the jobs of a run share while it runs: the time thread, and on
/// drop the removal of the control groups the run made.
pub(crate) struct RunHost<'l> {
    _gtod: Option<GtodThread>,
    log: &'l dyn Log,
}

impl RunHost<'_> {
    /// Start what `plan` needs before its jobs start.
    pub(crate) fn start<'l>(plan: &Plan, log: &'l dyn Log) -> RunHost<'l> {
        let cpus = plan.jobs.first().and_then(|j| j.host.time_thread.as_ref());
        super::act::run_started(plan);
        RunHost {
            _gtod: cpus.and_then(|c| GtodThread::start(c, log)),
            log,
        }
    }
}

impl Drop for RunHost<'_> {
    fn drop(&mut self) {
        if let Some(table) = super::act::run_over() {
            self.log.info(&table);
        }
        let made = std::mem::take(&mut *MADE.lock().unwrap_or_else(|e| e.into_inner()));
        for dir in made {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_fields_are_unescaped() {
        assert_eq!(unescape("/mnt/a\\040b"), "/mnt/a b");
        assert_eq!(unescape("/x\\"), "/x\\");
    }

    #[test]
    fn node_zero_has_cpus() {
        if Path::new("/sys/devices/system/node/node0").exists() {
            assert!(!node_cpus(0).unwrap().is_empty());
        }
    }
}
