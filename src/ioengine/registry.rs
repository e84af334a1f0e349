//! The engines rfio runs (fio's `ioengines.c` list) and what a job starts
//! one with.
//!
//! Each engine's file declares, next to its code, what it is: its flags
//! (`FLAGS`: fio's `.flags`, typed, with rfio's own), its capabilities
//! (`CAPS`, or a `caps` function when they depend on the job), its own
//! options (a struct, as fio's engine `.options` table, `OPTIONS`, their
//! fio names, and `options`, which resolves them from the values the plan
//! hands it) and `new`, which starts an instance. The list here holds one
//! line per engine; an engine with options of its own has one variant in
//! [`EngineOptions`].

use std::path::Path;

use super::cmdprio::CmdPrio;
use super::cpuio::CpuioOptions;
use super::devdax::DevdaxOptions;
use super::e4defrag::E4defragOptions;
use super::engine::{Caps, CommonOptions, IoEngine, StopFlag};
use super::error::SetupError;
use super::exec::ExecOptions;
use super::fileop::{self, FileStatOptions};
use super::flags::{not_run, EngineFlags};
use super::http::HttpOptions;
use super::input::{OptionValues, Refusal};
use super::io::{EngineError, IoMem};
use super::io_uring::UringOptions;
use super::libaio::LibaioOptions;
use super::libpmem::PmemOptions;
use super::mmap::MmapOptions;
use super::nbd::NbdOptions;
use super::net::NetOptions;
use super::pvsync2::Pvsync2Options;
use super::{
    cpuio, devdax, e4defrag, exec, falloc, ftruncate, http, io_uring, libaio, libpmem, mmap, nbd,
    net, null, posixaio, psync, pvsync, pvsync2, splice, sync, vsync,
};

/// One engine rfio can run.
pub struct EngineDef {
    /// fio's name (`ioengine=`).
    pub(crate) name: &'static str,
    /// What the engine is (fio's `.flags`, and rfio's own), declared in
    /// its file as `FLAGS`.
    pub(crate) flags: EngineFlags,
    /// The engine's own options by fio's name (those of its `.options`
    /// table that rfio runs with): the plan resolves them into the
    /// engine's variant of [`EngineOptions`]. Only the tests read it: they
    /// hold each engine's declaration to the option table.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) options: &'static [&'static str],
    /// Its own options, resolved from the values the plan hands it (the
    /// engine's `options`): its variant of [`EngineOptions`], or why the
    /// job's values cannot run.
    pub(crate) resolve: fn(&dyn OptionValues) -> Result<EngineOptions, Refusal>,
    /// What it can do with a job's options, known without starting it.
    pub(crate) caps: fn(&EngineSpec) -> Caps,
    /// Start an instance for one job thread, on the job's buffer pool;
    /// the job's stop (`None`: none) cuts what the start waits for (nbd's
    /// handshake).
    pub new: fn(&EngineSpec, IoMem, Option<StopFlag>) -> Started,
    /// What the engine does or finds out when the job's files (their
    /// paths, in order) are set up, before any job starts (fio's engine
    /// `.setup`: nbd asks its server how big the export is, dirstat makes
    /// the directories it stats): the size of the job's first file, which
    /// is then fixed (fio's `real_file_size`), or `None` to size the files
    /// as usual; an error is what fio prints when the setup fails (whole
    /// lines), and the job is reaped unstarted. The run's stop cuts what
    /// it waits for.
    pub(crate) setup: fn(&EngineSpec, &[&Path], StopFlag) -> SetUp,
    /// Why the engine cannot run on the file at this path, as the words
    /// after `job 'NAME': ` (dev-dax: a device DAX character device only),
    /// or `None`: the plan refuses such a job.
    pub(crate) refuse_file: fn(&Path) -> Option<String>,
}

/// What an engine's setup gives: the size of the job's first file, if it
/// fixes one, or why it failed, in fio's lines (see [`EngineDef::setup`]).
pub(crate) type SetUp = Result<Option<u64>, SetupError>;

/// The setup of an engine that finds nothing out (fio's engines without
/// `.setup`).
fn no_setup(_: &EngineSpec, _: &[&Path], _: StopFlag) -> SetUp {
    Ok(None)
}

/// An engine that runs on any file.
fn any_file(_: &Path) -> Option<String> {
    None
}

/// A started engine instance, or why it could not start.
pub(crate) type Started = Result<Box<dyn IoEngine>, EngineError>;

/// An engine's own options, by engine (fio's per-engine `.options`).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum EngineOptions {
    /// The engine has no options of its own, or takes its defaults.
    #[default]
    None,
    IoUring(UringOptions),
    Libaio(LibaioOptions),
    Pvsync2(Pvsync2Options),
    FileStat(FileStatOptions),
    Cpuio(CpuioOptions),
    Exec(ExecOptions),
    Net(NetOptions),
    Mmap(MmapOptions),
    Nbd(NbdOptions),
    Http(HttpOptions),
    E4defrag(E4defragOptions),
    Libpmem(PmemOptions),
    Devdax(DevdaxOptions),
}

/// Everything a job's engine is configured with, resolved once per job by
/// the plan (`JobSpec::engine`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EngineSpec {
    pub common: CommonOptions,
    pub(crate) options: EngineOptions,
}

impl EngineSpec {
    /// The job's command priorities (`cmdprio_*`), when its engine takes
    /// them and they are usable.
    pub(crate) fn cmdprio(&self) -> Option<&CmdPrio> {
        let setting = match &self.options {
            EngineOptions::IoUring(o) => &o.cmdprio,
            EngineOptions::Libaio(o) => &o.cmdprio,
            _ => return None,
        };
        setting.as_ref().ok()?.as_deref()
    }

    /// cpuio's `exit_on_io_done`: the job ends once no job that does I/O
    /// runs or waits to run.
    pub(crate) fn exits_when_io_is_done(&self) -> bool {
        matches!(&self.options, EngineOptions::Cpuio(o) if o.exit_on_io_done)
    }

    /// The priorities the job's I/Os can carry: the job's own (`prio`,
    /// `prioclass`; 0 when neither is set) and, for reads and writes, the
    /// priority of each statistics slot an engine reports through
    /// [`IoEngine::prio_slot`] (empty: the direction has no command
    /// priorities, every I/O is the job's).
    pub fn prio_slots(&self) -> (u16, [Vec<u16>; 2]) {
        let slots = match self.cmdprio() {
            Some(c) => [c.slots(0).to_vec(), c.slots(1).to_vec()],
            None => Default::default(),
        };
        (self.common.ioprio, slots)
    }
}

/// The definition of an engine of module `$module` (its `CAPS` and `new`),
/// with the options of variant `$variant` of [`EngineOptions`] when it has
/// any (a spec without them starts it with their defaults).
macro_rules! engine {
    ($name:literal, $module:ident) => {
        EngineDef {
            name: $name,
            flags: $module::FLAGS,
            options: &[],
            resolve: |_| Ok(EngineOptions::None),
            caps: |_| $module::CAPS,
            new: |spec, mem, _| $module::new(&spec.common, mem),
            setup: no_setup,
            refuse_file: any_file,
        }
    };
    ($name:literal, $module:ident, $variant:ident) => {
        EngineDef {
            name: $name,
            flags: $module::FLAGS,
            options: $module::OPTIONS,
            resolve: |o| $module::options(o).map(EngineOptions::$variant),
            caps: |_| $module::CAPS,
            new: |spec, mem, _| match &spec.options {
                EngineOptions::$variant(o) => $module::new(&spec.common, o, mem),
                _ => $module::new(&spec.common, &Default::default(), mem),
            },
            setup: no_setup,
            refuse_file: any_file,
        }
    };
    // ... and its `setup` (fio's engine `.setup`).
    ($name:literal, $module:ident, $variant:ident, setup) => {
        EngineDef {
            name: $name,
            flags: $module::FLAGS,
            options: $module::OPTIONS,
            resolve: |o| $module::options(o).map(EngineOptions::$variant),
            caps: |_| $module::CAPS,
            new: |spec, mem, _| match &spec.options {
                EngineOptions::$variant(o) => $module::new(&spec.common, o, mem),
                _ => $module::new(&spec.common, &Default::default(), mem),
            },
            setup: |spec, _, _| match &spec.options {
                EngineOptions::$variant(o) => $module::setup(o),
                _ => $module::setup(&Default::default()),
            },
            refuse_file: any_file,
        }
    };
}

/// The definition of the file-operation engine `fileop::$def` (one
/// [`FileOpDef`](fileop::FileOpDef): its call, name, flags, options and
/// setup).
macro_rules! file_op {
    ($def:ident) => {
        EngineDef {
            name: fileop::$def.name,
            flags: fileop::$def.flags,
            options: fileop::$def.options(),
            resolve: |o| {
                let own = fileop::$def.resolve(o)?;
                Ok(own.map_or(EngineOptions::None, EngineOptions::FileStat))
            },
            caps: |_| fileop::$def.caps(),
            new: |spec, _, _| {
                fileop::$def.start(match &spec.options {
                    EngineOptions::FileStat(o) => *o,
                    _ => FileStatOptions::default(),
                })
            },
            setup: |_, files, _| fileop::$def.setup(files),
            refuse_file: any_file,
        }
    };
}

/// Every engine rfio runs, in fio's registration order.
pub(crate) static ENGINES: &[EngineDef] = &[
    engine!("cpuio", cpuio, Cpuio),
    engine!("mmap", mmap, Mmap),
    engine!("sync", sync),
    engine!("psync", psync),
    engine!("vsync", vsync),
    engine!("pvsync", pvsync),
    engine!("pvsync2", pvsync2, Pvsync2),
    EngineDef {
        name: "null",
        flags: null::FLAGS,
        options: &[],
        resolve: |_| Ok(EngineOptions::None),
        caps: |spec| null::caps(&spec.common),
        new: |spec, mem, _| null::new(&spec.common, mem),
        setup: no_setup,
        refuse_file: any_file,
    },
    engine!("net", net, Net),
    EngineDef {
        name: "netsplice",
        flags: net::SPLICE_FLAGS,
        options: net::OPTIONS,
        resolve: |o| net::options(o).map(EngineOptions::Net),
        caps: |_| net::CAPS,
        new: |spec, mem, _| match &spec.options {
            EngineOptions::Net(o) => net::new_splice(&spec.common, o, mem),
            _ => net::new_splice(&spec.common, &Default::default(), mem),
        },
        setup: no_setup,
        refuse_file: any_file,
    },
    engine!("ftruncate", ftruncate),
    file_op!(FILECREATE),
    file_op!(FILESTAT),
    file_op!(FILEDELETE),
    file_op!(DIRCREATE),
    file_op!(DIRSTAT),
    file_op!(DIRDELETE),
    engine!("exec", exec, Exec),
    engine!("posixaio", posixaio),
    engine!("falloc", falloc),
    engine!("e4defrag", e4defrag, E4defrag),
    engine!("splice", splice),
    engine!("io_uring", io_uring, IoUring),
    EngineDef {
        name: "nbd",
        flags: nbd::FLAGS,
        options: nbd::OPTIONS,
        resolve: |o| nbd::options(o).map(EngineOptions::Nbd),
        caps: |_| nbd::CAPS,
        new: |spec, mem, stop| match &spec.options {
            EngineOptions::Nbd(o) => nbd::new(&spec.common, o, mem, stop),
            _ => nbd::new(&spec.common, &Default::default(), mem, stop),
        },
        setup: |spec, _, stop| match &spec.options {
            EngineOptions::Nbd(o) => nbd::setup(o, stop),
            _ => nbd::setup(&Default::default(), stop),
        },
        refuse_file: any_file,
    },
    engine!("libaio", libaio, Libaio),
    // Not in Debian's fio build (it needs libcurl); where fio has it, here.
    engine!("http", http, Http),
    EngineDef {
        refuse_file: devdax::refuse_file,
        ..engine!("dev-dax", devdax, Devdax, setup)
    },
    engine!("libpmem", libpmem, Libpmem),
];

/// The flags of the engine called `name`: one rfio runs, or one of fio's
/// that rfio refuses to run but whose flags fio acts on before it would
/// run it ([`not_run`]); `None` for a name fio does not know either.
pub fn flags(name: &str) -> Option<EngineFlags> {
    match lookup(name) {
        Some(def) => Some(def.flags),
        None => not_run(name).map(|e| e.flags),
    }
}

/// The names of the engines rfio runs, in fio's order (`--enghelp`).
pub fn names() -> impl Iterator<Item = &'static str> {
    ENGINES.iter().map(|e| e.name)
}

/// The engine called `name` (exact, as fio's `find_ioengine`).
pub fn lookup(name: &str) -> Option<&'static EngineDef> {
    ENGINES.iter().find(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(iodepth: u32) -> EngineSpec {
        EngineSpec {
            common: CommonOptions {
                iodepth,
                ..CommonOptions::default()
            },
            options: EngineOptions::None,
        }
    }

    #[test]
    fn registry_names_match_instances() {
        for def in ENGINES {
            if matches!(
                def.name,
                "io_uring"
                    | "libaio"
                    | "cpuio"
                    | "exec"
                    | "net"
                    | "netsplice"
                    | "nbd"
                    | "http"
                    | "e4defrag"
            ) {
                continue; // may be unavailable in a sandbox; need their options
            }
            let e = (def.new)(&spec(1), IoMem::NONE, None).unwrap();
            assert_eq!(e.name(), def.name);
        }
        assert!(lookup("nosuch").is_none());
    }

    #[test]
    fn capabilities() {
        let caps = |name: &str, iodepth: u32| (lookup(name).unwrap().caps)(&spec(iodepth));
        assert!(!caps("null", 1).needs_files);
        assert!(caps("null", 1).is_sync, "null at iodepth 1");
        assert!(!caps("null", 8).is_sync, "null queues at iodepth 8");
        assert!(caps("psync", 8).needs_files && caps("psync", 8).is_sync);
        assert!(!caps("libaio", 1).is_sync);
        assert!(!caps("filecreate", 1).needs_files);
        assert!(caps("filestat", 1).file_op);
        assert!(!caps("ftruncate", 1).can_trim);
        assert!(caps("mmap", 1).no_extend);
    }

    #[test]
    fn instances_report_their_declared_caps() {
        for def in ENGINES {
            if matches!(
                def.name,
                "io_uring"
                    | "libaio"
                    | "cpuio"
                    | "exec"
                    | "net"
                    | "netsplice"
                    | "nbd"
                    | "http"
                    | "e4defrag"
            ) {
                continue;
            }
            for depth in [1, 8] {
                let e = (def.new)(&spec(depth), IoMem::NONE, None).unwrap();
                assert_eq!(
                    e.caps(),
                    (def.caps)(&spec(depth)),
                    "{} at {depth}",
                    def.name
                );
            }
        }
    }

    /// An engine's fio flags agree with what its instances can do, where
    /// both say the same thing.
    #[test]
    fn flags_agree_with_caps() {
        for def in ENGINES {
            let (f, c) = (def.flags, (def.caps)(&spec(8)));
            if def.name != "null" {
                assert_eq!(f.sync, c.is_sync, "{} FIO_SYNCIO", def.name);
            }
            assert_eq!(f.no_extend, c.no_extend, "{} FIO_NOEXTEND", def.name);
            assert_eq!(f.no_io, c.no_io, "{} FIO_NOIO", def.name);
            assert_eq!(f.no_stats, c.file_op, "{} FIO_NOSTATS", def.name);
        }
        assert_eq!(flags("io_uring_cmd").map(|f| f.no_offload), Some(true));
        assert!(flags("nosuch").is_none());
        let names = |pick: fn(&EngineFlags) -> bool| -> Vec<&str> {
            ENGINES
                .iter()
                .filter(|d| pick(&d.flags))
                .map(|d| d.name)
                .collect()
        };
        assert_eq!(names(|f| f.no_disk_util), ["dev-dax", "libpmem"]);
        assert_eq!(names(|f| f.bit_based), ["net"]);
        assert_eq!(names(|f| f.no_offload), ["io_uring"]);
        assert_eq!(names(|f| f.pipe_io), ["net", "netsplice", "splice"]);
        assert_eq!(
            names(|f| f.changes_files),
            [
                "ftruncate",
                "filecreate",
                "filedelete",
                "dircreate",
                "dirstat",
                "dirdelete",
                "falloc"
            ]
        );
        assert_eq!(names(|f| f.dirs), ["dircreate", "dirstat", "dirdelete"]);
        assert_eq!(names(|f| f.runs_a_program()), ["exec"]);
        assert_eq!(
            names(|f| f.queues_file_io()),
            ["posixaio", "io_uring", "libaio"]
        );
        assert_eq!(
            names(|f| f.buffered_io_goes_to_kernel_workers()),
            ["io_uring"]
        );
        let generic: Vec<&str> = ENGINES
            .iter()
            .filter(|d| d.flags.open_error_place("open") == Some("filesetup.c:805"))
            .map(|d| d.name)
            .collect();
        assert_eq!(
            generic,
            [
                "mmap",
                "sync",
                "psync",
                "vsync",
                "pvsync",
                "pvsync2",
                "ftruncate",
                "posixaio",
                "io_uring",
                "libaio"
            ]
        );
        let place = |name: &str, call: &str| lookup(name).unwrap().flags.open_error_place(call);
        assert_eq!(place("falloc", "open"), Some("engines/falloc.c:45"));
        assert_eq!(
            place("filecreate", "open"),
            Some("engines/fileoperations.c:91")
        );
        assert_eq!(
            place("filedelete", "delete"),
            Some("engines/fileoperations.c:205")
        );
        assert_eq!(place("filedelete", "open"), None);
        assert_eq!(place("null", "open"), None);
    }

    #[test]
    fn only_engines_with_options_declare_option_names() {
        for def in ENGINES {
            let has = matches!(
                def.name,
                "io_uring"
                    | "mmap"
                    | "libaio"
                    | "pvsync2"
                    | "filestat"
                    | "dirstat"
                    | "cpuio"
                    | "exec"
                    | "net"
                    | "netsplice"
                    | "nbd"
                    | "http"
                    | "e4defrag"
            );
            assert_eq!(!def.options.is_empty(), has, "{}", def.name);
        }
    }
}
