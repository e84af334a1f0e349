//! Where and how a job thread runs (fio's `thread_main` set-up): CPU
//! affinity, nice, I/O priority, locked memory, the I/O buffer memory, and
//! the commands run before and after the job.
//!
//! Every job runs on its own thread, and Linux keeps the affinity mask, the
//! nice value and the I/O priority per thread, so each is set on the job's
//! thread (and inherited by the commands it runs), in fio's order:
//!
//! 1. affinity (`cpus_allowed`/`cpumask`, `cpus_allowed_policy=split`),
//! 2. `lockmem` (an `mlock`ed mapping held until the I/O is over),
//! 3. `prio`/`prioclass` (`ioprio_set`),
//! 4. the engine and the buffer memory (`mem`, in `job.rs` with
//!    [`crate::ioengine::IoMemory`]),
//! 5. `nice`,
//! 6. `exec_prerun`, then the I/O, then `exec_postrun`.
//!
//! A failure ends the job before its I/O as fio's does: with fio's `err=`
//! and `td_verror` text, or (a failed `lockmem` or `exec_prerun`, where
//! fio leaves `td->error` unset) with no error at all, no I/O and exit
//! status 0.

use std::process::Command;

use super::job::verror;
use super::runner::Log;
use crate::ioengine::{MemKind, MemSpec};
use crate::options::Value;
use crate::plan::spec::JobSpec;

/// fio's `IOPRIO_CLASS_SHIFT` and `IOPRIO_CLASS_BE`.
const IOPRIO_CLASS_SHIFT: u32 = 13;
const IOPRIO_CLASS_BE: u32 = 2;
/// `IOPRIO_WHO_PROCESS` (with id 0: the calling thread).
const IOPRIO_WHO_PROCESS: libc::c_int = 1;

/// How a job's set-up failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Failure {
    /// The job's error: errno and fio's `td_verror` text.
    Error(i32, String),
    /// The job ends without an error (fio's `goto err` with `td->error`
    /// unset): no I/O, err=0.
    Quiet,
}

/// A job's placement, resolved before its thread starts.
#[derive(Debug, Clone)]
pub(super) struct Placement {
    name: String,
    /// The CPUs of `cpus_allowed` or `cpumask` (whichever came last), if set.
    cpus: Option<Vec<usize>>,
    /// `cpus_allowed_policy=split`: the job takes one CPU of the set, by
    /// its thread number.
    split: bool,
    /// fio's `td->thread_number - 1`.
    index: usize,
    lockmem: u64,
    /// `prio`/`prioclass`: the `ioprio_set` value, when either is set.
    ioprio: Option<u32>,
    nice: i32,
    pub mem: MemSpec,
    prerun: Option<String>,
    postrun: Option<String>,
}

impl Placement {
    /// Read the job's options. Errors are what fio refuses when it parses
    /// the job (a CPU the machine does not have) or what rfio refuses
    /// (a `:FILE` after a `mem=` that maps none).
    pub fn of(spec: &JobSpec) -> Result<Placement, String> {
        let int = |name: &str| match spec.opt(name) {
            Some(Value::Int(n)) => Some(*n),
            _ => None,
        };
        let bytes = |name: &str| match spec.opt(name) {
            Some(Value::Bytes(n)) => Some(*n),
            _ => None,
        };
        let text = |name: &str| match spec.opt(name) {
            Some(Value::Text(t)) => Some(t.clone()),
            _ => None,
        };
        let cpus = cpu_set(spec)?;
        let split = matches!(
            (spec.options.get("cpus_allowed_policy"), spec.opt("cpus_allowed_policy")),
            (Some(s), Some(Value::Choice { index, .. })) if s.def.posvals[*index].value == "split"
        );
        let (prio, class) = (int("prio"), int("prioclass"));
        let ioprio = (prio.is_some() || class.is_some()).then(|| {
            let class = match class.unwrap_or(0) as u32 {
                0 => IOPRIO_CLASS_BE,
                c => c,
            };
            class << IOPRIO_CLASS_SHIFT | prio.unwrap_or(0) as u32
        });
        Ok(Placement {
            name: spec.name.clone(),
            cpus,
            split,
            index: spec.thread_number.saturating_sub(1) as usize,
            lockmem: bytes("lockmem").unwrap_or(0),
            ioprio,
            nice: int("nice").unwrap_or(0) as i32,
            mem: mem_spec(spec)?,
            prerun: text("exec_prerun"),
            postrun: text("exec_postrun"),
        })
    }

    /// Steps 1–3 on the calling (job) thread: affinity, locked memory,
    /// I/O priority. The locked memory stays locked until the returned
    /// value is dropped.
    pub fn enter(&self, log: &dyn Log) -> Result<Pinned, Failure> {
        if let Some(cpus) = &self.cpus {
            let mut mask = cpus.clone();
            if self.split {
                if mask.is_empty() {
                    log.err("fio: no CPUs set\nfio: Try increasing number of available CPUs\n");
                    return Err(error(libc::EINVAL, "backend.c:1710", "cpus_split"));
                }
                mask = vec![mask[self.index % mask.len()]];
            }
            set_affinity(&mask).map_err(|e| error(e, "backend.c:1716", "cpu_set_affinity"))?;
        }
        let pinned = Pinned::lock(self.lockmem, log)?;
        if let Some(value) = self.ioprio {
            // SAFETY: ioprio_set takes plain integers.
            let r = unsafe { libc::syscall(libc::SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, value) };
            if r == -1 {
                return Err(error(last_errno(), "backend.c:1788", "ioprio_set"));
            }
        }
        Ok(pinned)
    }

    /// Step 5: `nice` (an increment, as fio's `nice(o->nice)`), for the
    /// calling thread.
    pub fn renice(&self) -> Result<(), Failure> {
        if self.nice == 0 {
            return Ok(());
        }
        // nice(3) may return -1 on success: errno tells.
        // SAFETY: errno is this thread's; nice takes a plain integer.
        let r = unsafe {
            *libc::__errno_location() = 0;
            libc::nice(self.nice)
        };
        match last_errno() {
            e if r == -1 && e != 0 => Err(error(e, "backend.c:1817", "nice")),
            _ => Ok(()),
        }
    }

    /// Step 6a: `exec_prerun`. `false` when it failed, and the job must
    /// end without I/O (and without error, as fio).
    pub fn prerun(&self, log: &dyn Log) -> bool {
        match &self.prerun {
            Some(cmd) => self.exec(cmd, "prerun", log),
            None => true,
        }
    }

    /// Step 6b: `exec_postrun`, whose result does not matter.
    pub fn postrun(&self, log: &dyn Log) {
        if let Some(cmd) = &self.postrun {
            self.exec(cmd, "postrun", log);
        }
    }

    /// fio's `exec_string`: `CMD > NAME.MODE.txt 2>&1` through `sh -c`, in
    /// the working directory, on the job thread (whose affinity, nice and
    /// I/O priority the command inherits). The notice fio prints on stdout
    /// goes to stderr, so that stdout holds only the report.
    fn exec(&self, cmd: &str, mode: &str, log: &dyn Log) -> bool {
        let out = format!("{}.{mode}.txt", self.name);
        log.err(&format!(
            "{} : Saving output of {mode} in {out}\n",
            self.name
        ));
        let line = format!("{cmd} > {out} 2>&1");
        match Command::new("/bin/sh").arg("-c").arg(&line).status() {
            Ok(status) if status.success() => true,
            Ok(status) => {
                if mode == "prerun" {
                    log.err(&format!(
                        "fio: job {}: exec_prerun {status}: the job does no I/O\n",
                        self.name
                    ));
                }
                false
            }
            Err(_) => {
                log.err(&format!("fio: exec of cmd <{line}> failed\n"));
                false
            }
        }
    }
}

/// The memory `lockmem` holds locked (fio's `fio_pin_memory`), unlocked
/// and unmapped on drop.
pub(super) struct Pinned(Option<(*mut libc::c_void, usize)>);

impl Pinned {
    fn lock(bytes: u64, log: &dyn Log) -> Result<Pinned, Failure> {
        if bytes == 0 {
            return Ok(Pinned(None));
        }
        let mut len = bytes;
        // fio never locks more than the machine's memory less 128 MiB.
        let phys = phys_mem();
        const RESERVE: u64 = 128 << 20;
        if phys > 0 && len + RESERVE > phys {
            len = phys.saturating_sub(RESERVE);
            log.err(&format!(
                "fio: limiting mlocked memory to {}MiB\n",
                len >> 20
            ));
        }
        let len = len as usize;
        // SAFETY: a new anonymous mapping at an address the kernel picks.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            log.err(&format!(
                "malloc locked mem: {}\n",
                super::job::strerror(last_errno())
            ));
            return Err(Failure::Quiet);
        }
        // SAFETY: `addr`, `len` are the mapping just made.
        if unsafe { libc::mlock(addr, len) } < 0 {
            log.err(&format!("mlock: {}\n", super::job::strerror(last_errno())));
            // SAFETY: as above; unmapped once.
            unsafe { libc::munmap(addr, len) };
            return Err(Failure::Quiet);
        }
        Ok(Pinned(Some((addr, len))))
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let Some((addr, len)) = self.0.take() {
            // SAFETY: the mapping made and locked in `lock`, released once.
            unsafe {
                libc::munlock(addr, len);
                libc::munmap(addr, len);
            }
        }
    }
}

fn error(errno: i32, src: &str, func: &str) -> Failure {
    Failure::Error(errno, verror(src, func, errno))
}

fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// fio's `os_phys_mem`.
fn phys_mem() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages.max(0) as u64).saturating_mul(size.max(0) as u64)
}

/// fio's `cpus_configured`.
fn cpus_configured() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
    usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(1)
}

/// Pin the calling thread to `cpus` (`sched_setaffinity(0, ...)`).
fn set_affinity(cpus: &[usize]) -> Result<(), i32> {
    // SAFETY: an all-zero cpu_set_t is an empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c >= libc::CPU_SETSIZE as usize {
            return Err(libc::EINVAL);
        }
        // SAFETY: `c` is below CPU_SETSIZE, the size of `set`.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size given; 0 is this thread.
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r == -1 {
        return Err(last_errno());
    }
    Ok(())
}

/// The CPU set of `cpus_allowed` or `cpumask`, whichever the job set last
/// (both fill fio's one `cpumask`), checked against the CPUs configured as
/// fio checks them when parsing.
fn cpu_set(spec: &JobSpec) -> Result<Option<Vec<usize>>, String> {
    let last = spec
        .options
        .settings
        .iter()
        .rev()
        .find(|s| matches!(s.def.name, "cpus_allowed" | "cpumask"));
    let Some(setting) = last else {
        return Ok(None);
    };
    let max = cpus_configured();
    let cpus: Vec<usize> = match &setting.value {
        Value::Cpus(c) => c.clone(),
        // fio reads the low 32 bits of the mask.
        Value::Int(mask) => (0..32).filter(|i| (*mask >> i) & 1 == 1).collect(),
        _ => return Ok(None),
    };
    if let Some(&c) = cpus.iter().find(|&&c| c >= max) {
        return Err(format!("CPU {c} too large (max={})", max - 1));
    }
    Ok(Some(cpus))
}

/// `mem=`/`iomem=` with its `:FILE`, `hugepage-size`, `iomem_align`.
fn mem_spec(spec: &JobSpec) -> Result<MemSpec, String> {
    let mut mem = MemSpec::default();
    if let (Some(s), Some(Value::Choice { index, modifier })) =
        (spec.options.get("mem"), spec.opt("mem"))
    {
        let name = s.def.posvals[*index].value;
        mem.kind = MemKind::from_name(name).ok_or_else(|| format!("mem={name}: not supported"))?;
        if let Some(file) = modifier {
            if !mem.kind.takes_file() {
                return Err(format!(
                    "mem={name}:{file}: only mmap, mmaphuge and mmapshared map a file \
                     (fio ignores the ':{file}')"
                ));
            }
            mem.file = Some(file.into());
        }
    }
    if let Some(Value::Bytes(n)) = spec.opt("hugepage-size") {
        mem.hugepage_size = *n;
    }
    if let Some(Value::Bytes(n)) = spec.opt("iomem_align") {
        mem.align = usize::try_from(*n).map_err(|_| format!("iomem_align={n}: too large"))?;
    }
    Ok(mem)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::plan::testing::plan;

    fn place(args: &[&str]) -> Result<Placement, String> {
        let mut a = vec!["--name=j", "--ioengine=null", "--size=16k"];
        a.extend_from_slice(args);
        Placement::of(&plan(&a).jobs[0])
    }

    #[test]
    fn ioprio_value_as_fio() {
        assert_eq!(place(&[]).unwrap().ioprio, None);
        assert_eq!(place(&["--prio=5"]).unwrap().ioprio, Some(2 << 13 | 5));
        assert_eq!(place(&["--prioclass=0"]).unwrap().ioprio, Some(2 << 13));
        assert_eq!(
            place(&["--prioclass=1", "--prio=3"]).unwrap().ioprio,
            Some(1 << 13 | 3)
        );
        assert_eq!(place(&["--prioclass=3"]).unwrap().ioprio, Some(3 << 13));
    }

    #[test]
    fn cpus_last_of_cpumask_and_cpus_allowed() {
        assert_eq!(place(&["--cpumask=1"]).unwrap().cpus, Some(vec![0]));
        assert_eq!(
            place(&["--cpumask=1", "--cpus_allowed=0"]).unwrap().cpus,
            Some(vec![0])
        );
        assert_eq!(place(&["--cpumask=0"]).unwrap().cpus, Some(vec![]));
        let too_many = format!("--cpus_allowed={}", cpus_configured());
        assert_eq!(
            place(&[&too_many]).unwrap_err(),
            format!(
                "CPU {} too large (max={})",
                cpus_configured(),
                cpus_configured() - 1
            )
        );
        assert!(
            place(&["--cpus_allowed=0", "--cpus_allowed_policy=split"])
                .unwrap()
                .split
        );
    }

    #[test]
    fn mem_kinds_and_files() {
        let m = place(&["--mem=mmap:buf", "--iomem_align=512", "--hugepage-size=4m"])
            .unwrap()
            .mem;
        assert_eq!(m.kind, MemKind::Mmap);
        assert_eq!(m.file.as_deref(), Some(std::path::Path::new("buf")));
        assert_eq!((m.align, m.hugepage_size), (512, 4 << 20));
        assert_eq!(place(&["--iomem=shm"]).unwrap().mem.kind, MemKind::Shm);
        assert!(place(&["--mem=shm:x"]).unwrap_err().contains("map a file"));
    }
}
