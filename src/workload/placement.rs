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
//! status 0. The settings are the plan's ([`PlacementOptions`], checked
//! there).

use std::process::Command;

use super::cpus::{last_errno, set_affinity};
use super::errno::strerror;
use super::host::error;
pub(super) use super::host::Failure;
use super::log::Log;
use crate::plan::resolve::host::HostOptions;
use crate::plan::resolve::placement::PlacementOptions;
use crate::plan::spec::JobSpec;
/// `IOPRIO_WHO_PROCESS` (with id 0: the calling thread).
const IOPRIO_WHO_PROCESS: libc::c_int = 1;

/// A job's placement, ready before its thread starts.
#[derive(Debug, Clone)]
pub(super) struct Placement {
    name: String,
    /// fio's `td->thread_number - 1`.
    index: usize,
    opts: PlacementOptions,
    /// Ids, time thread, NUMA, control group (`super::host`).
    pub(super) host: HostOptions,
}

impl Placement {
    /// The placement of `spec`.
    pub(crate) fn of(spec: &JobSpec) -> Placement {
        Placement {
            name: spec.name.clone(),
            index: spec.thread_number.saturating_sub(1) as usize,
            opts: spec.placement.clone(),
            host: spec.host.clone(),
        }
    }

    /// Steps 1–3 on the calling (job) thread: `gid` and `uid`, affinity
    /// (less `gtod_cpu`), NUMA nodes and memory policy, locked memory, I/O
    /// priority. The locked memory stays locked until the returned value
    /// is dropped.
    pub(crate) fn enter(&self, log: &dyn Log) -> Result<Pinned, Failure> {
        super::host::switch_ids(&self.host)?;
        if let Some(cpus) = &self.opts.cpus {
            let mut mask = cpus.clone();
            // fio leaves the time thread's CPU out (but not CPU 0: its test
            // is of the number).
            if let Some(g) = self.host.gtod_cpu.filter(|&g| g != 0) {
                mask.retain(|&c| c != g);
            }
            if self.opts.split {
                if mask.is_empty() {
                    log.err("fio: no CPUs set\nfio: Try increasing number of available CPUs\n");
                    return Err(error(libc::EINVAL, "backend.c:1710", "cpus_split"));
                }
                mask = vec![mask[self.index % mask.len()]];
            }
            set_affinity(&mask).map_err(|e| error(e, "backend.c:1716", "cpu_set_affinity"))?;
        }
        super::host::numa(&self.host, log)?;
        let pinned = Pinned::lock(self.opts.lockmem, log)?;
        if let Some(value) = self.opts.ioprio {
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
    pub(crate) fn renice(&self) -> Result<(), Failure> {
        if self.opts.nice == 0 {
            return Ok(());
        }
        // nice(3) may return -1 on success: errno tells.
        // SAFETY: errno is this thread's; nice takes a plain integer.
        let r = unsafe {
            *libc::__errno_location() = 0;
            libc::nice(self.opts.nice)
        };
        match last_errno() {
            e if r == -1 && e != 0 => Err(error(e, "backend.c:1817", "nice")),
            _ => Ok(()),
        }
    }

    /// Step 6a: `exec_prerun`. `false` when it failed, and the job must
    /// end without I/O (and without error, as fio).
    pub(crate) fn prerun(&self, log: &dyn Log) -> bool {
        match &self.opts.prerun {
            Some(cmd) => self.exec(cmd, "prerun", log),
            None => true,
        }
    }

    /// Step 6b: `exec_postrun`, whose result does not matter.
    pub(crate) fn postrun(&self, log: &dyn Log) {
        if let Some(cmd) = &self.opts.postrun {
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
            log.err(&format!("malloc locked mem: {}\n", strerror(last_errno())));
            return Err(Failure::Quiet);
        }
        // SAFETY: `addr`, `len` are the mapping just made.
        if unsafe { libc::mlock(addr, len) } < 0 {
            log.err(&format!("mlock: {}\n", strerror(last_errno())));
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
