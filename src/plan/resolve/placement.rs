//! Where and how a job thread runs: `cpus_allowed`/`cpumask` (and
//! `cpus_allowed_policy`), `lockmem`, `prio`/`prioclass`, `nice`,
//! `mem`/`iomem` with `hugepage-size` and `iomem_align`, `exec_prerun` and
//! `exec_postrun` (fio's `thread_main` set-up reads them; the CPU list is
//! checked as fio's `str_cpus_allowed_cb` checks it).

use super::read::Opts;
use crate::ioengine::{MemKind, MemSpec};
use crate::options::Value;
use crate::plan::error::Error;

/// fio's `IOPRIO_CLASS_SHIFT`, `IOPRIO_HINT_SHIFT` and `IOPRIO_CLASS_BE`.
const IOPRIO_CLASS_SHIFT: u32 = 13;
const IOPRIO_HINT_SHIFT: u32 = 3;
const IOPRIO_CLASS_BE: u32 = 2;

/// A job's placement (`JobSpec::placement`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct PlacementOptions {
    /// The CPUs of `cpus_allowed` or `cpumask` (whichever came last), if set.
    pub(crate) cpus: Option<Vec<usize>>,
    /// `cpus_allowed_policy=split`: the job takes one CPU of the set, by
    /// its thread number.
    pub(crate) split: bool,
    /// `lockmem`: bytes to hold locked while the job runs.
    pub(crate) lockmem: u64,
    /// `prio`/`prioclass`/`priohint` (3.36): the `ioprio_set` value, when
    /// any is set (fio's `ioprio_value`, in C's `int`: a negative `prio`
    /// or `priohint` read as fio reads it makes a value the kernel refuses).
    pub(crate) ioprio: Option<u32>,
    /// `nice`: an increment.
    pub(crate) nice: i32,
    /// The I/O buffer memory.
    pub(crate) mem: MemSpec,
    pub(crate) prerun: Option<String>,
    pub(crate) postrun: Option<String>,
}

/// Resolve the placement; problems (a CPU the machine does not have, as
/// fio refuses it, or a `:FILE` after a `mem=` that maps none) go to `bad`.
pub(super) fn resolve(o: Opts<'_>, bad: &mut Vec<String>) -> PlacementOptions {
    // priohint is unknown before 3.36: unset.
    let (prio, class, hint) = (o.int("prio"), o.int("prioclass"), o.int("priohint"));
    let ioprio = (prio.is_some() || class.is_some() || hint.is_some()).then(|| {
        let class = match class.unwrap_or(0) as u32 {
            0 => IOPRIO_CLASS_BE,
            c => c,
        };
        let hint = (hint.unwrap_or(0) as u32).wrapping_shl(IOPRIO_HINT_SHIFT);
        class.wrapping_shl(IOPRIO_CLASS_SHIFT) | hint | prio.unwrap_or(0) as u32
    });
    PlacementOptions {
        cpus: cpu_set(o, cpus_configured()).unwrap_or_else(|e| {
            bad.push(e.to_string());
            None
        }),
        split: o.choice("cpus_allowed_policy") == Some("split"),
        lockmem: o.bytes_or_default("lockmem"),
        ioprio,
        nice: o.int_or_default("nice") as i32,
        mem: mem_spec(o).unwrap_or_else(|e| {
            bad.push(e.to_string());
            MemSpec::default()
        }),
        prerun: o.text("exec_prerun").map(str::to_string),
        postrun: o.text("exec_postrun").map(str::to_string),
    }
}

/// fio's `cpus_configured`, read once per process (glibc reads a file in
/// /sys for each call: once per job made 10,000 jobs plan 5× slower).
pub(crate) fn cpus_configured() -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
        usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(1)
    })
}

/// The CPU set of `cpus_allowed` or `cpumask`, whichever the job set last
/// (both fill fio's one `cpumask`), checked against the `max` CPUs
/// configured as fio checks them when parsing.
fn cpu_set(o: Opts<'_>, max: usize) -> Result<Option<Vec<usize>>, Error> {
    let last =
        o.0.settings
            .iter()
            .rev()
            .find(|s| matches!(s.def.name, "cpus_allowed" | "cpumask"));
    let Some(setting) = last else {
        return Ok(None);
    };
    let cpus: Vec<usize> = match &setting.value {
        Value::Cpus(c) => c.clone(),
        // fio reads the low 32 bits of the mask.
        Value::Int(mask) => (0..32).filter(|i| (*mask >> i) & 1 == 1).collect(),
        _ => return Ok(None),
    };
    if let Some(&c) = cpus.iter().find(|&&c| c >= max) {
        return Err(Error::CpuTooLarge {
            cpu: c,
            last: max - 1,
        });
    }
    Ok(Some(cpus))
}

/// `mem=`/`iomem=` with its `:FILE`, `hugepage-size`, `iomem_align`.
fn mem_spec(o: Opts<'_>) -> Result<MemSpec, Error> {
    let mut mem = MemSpec::default();
    if let Some(name) = o.choice("mem") {
        mem.kind = MemKind::from_name(name).ok_or_else(|| Error::MemUnsupported {
            name: name.to_string(),
        })?;
        if let Some(file) = o.choice_modifier("mem") {
            if !mem.kind.takes_file() {
                return Err(Error::MemFile {
                    name: name.to_string(),
                    file: file.to_string(),
                });
            }
            mem.file = Some(file.into());
        }
    }
    if let Some(n) = o.bytes("hugepage-size") {
        mem.hugepage_size = n;
    }
    if let Some(n) = o.bytes("iomem_align") {
        mem.align = usize::try_from(n).map_err(|_| Error::IomemAlign { align: n })?;
    }
    Ok(mem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::testing::frontend;

    fn place(args: &[&str]) -> Result<PlacementOptions, String> {
        let mut a = vec!["--name=j", "--ioengine=null", "--size=16k"];
        a.extend_from_slice(args);
        let fe = frontend(&a);
        match fe.diags.0.first() {
            Some(d) => Err(d.message.clone()),
            None => Ok(fe.plan.jobs[0].placement.clone()),
        }
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
    fn priohint_in_bits_3_to_12_from_3_36() {
        let ioprio = |args: &[&str]| {
            let mut a = vec!["--name=j", "--ioengine=null", "--size=16k"];
            a.extend_from_slice(args);
            crate::plan::testing::job_as("3.42", &a).placement.ioprio
        };
        // Alone, it sets the best-effort class as prio/prioclass do.
        assert_eq!(ioprio(&["--priohint=5"]), Some(2 << 13 | 5 << 3));
        assert_eq!(
            ioprio(&["--prioclass=1", "--prio=4", "--priohint=1023"]),
            Some(1 << 13 | 1023 << 3 | 4)
        );
        assert_eq!(ioprio(&["--priohint=0"]), Some(2 << 13));
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
                "job 'j': CPU {} too large (max={})",
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

    /// `--parse-only` and `--showcmd` accept what only a run refuses, as
    /// fio's dry run skips the option callbacks that check it.
    #[test]
    fn only_a_run_refuses_a_cpu_too_large() {
        let too_many = format!("--cpus_allowed={}", cpus_configured());
        for flag in ["--parse-only", "--showcmd"] {
            let fe = frontend(&[flag, "--name=j", "--size=16k", &too_many]);
            assert!(fe.diags.is_empty(), "{flag}: {}", fe.diags);
        }
    }
}
