//! I/O engines: how one I/O reaches the file.
//!
//! The contract is fio's (`queue`, `commit`, `getevents`, `event`), in
//! [`engine`]; each engine lives in its own small file and declares what it
//! can do in [`Caps`]. The workload asks capabilities, never engine names.
//! A new engine touches its own file plus one line in [`ENGINES`].

mod buf;
/// `cmdprio_*`: which I/Os of a job get which priority (what the rest
/// of rfio needs of it goes through [`EngineConfig`]).
pub(crate) mod cmdprio;
mod engine;
mod files;
mod mem;

mod falloc;
mod filecreate;
mod filedelete;
mod filestat;
mod ftruncate;
mod io_uring;
mod libaio;
mod mmap;
mod null;
mod posixaio;
mod psync;
mod pvsync;
mod pvsync2;
mod sync;
mod vsync;

pub use buf::{AlignedBuf, ALIGN};
pub use engine::{
    Caps, Completion, EngineConfig, EngineError, FileId, FileTarget, Io, IoDir, IoEngine, IoMem,
    IoResult, OpenFlags, Queued, StatType,
};
pub use mem::{page_size, IoMemory, MemError, MemKind, MemSpec};

/// One engine rfio can run.
pub struct EngineDef {
    /// fio's name (`ioengine=`).
    pub name: &'static str,
    /// What it can do with a configuration, known without starting it.
    pub caps: fn(&EngineConfig) -> Caps,
    /// Start an instance for one job thread.
    pub new: fn(&EngineConfig) -> Result<Box<dyn IoEngine>, EngineError>,
}

macro_rules! engine {
    ($name:literal, $module:ident) => {
        EngineDef {
            name: $name,
            caps: |_| $module::CAPS,
            new: $module::new,
        }
    };
}

/// Every engine rfio runs, in fio's registration order.
pub static ENGINES: &[EngineDef] = &[
    engine!("mmap", mmap),
    engine!("sync", sync),
    engine!("psync", psync),
    engine!("vsync", vsync),
    engine!("pvsync", pvsync),
    engine!("pvsync2", pvsync2),
    EngineDef {
        name: "null",
        caps: null::caps,
        new: null::new,
    },
    engine!("ftruncate", ftruncate),
    engine!("filecreate", filecreate),
    engine!("filestat", filestat),
    engine!("filedelete", filedelete),
    engine!("posixaio", posixaio),
    engine!("falloc", falloc),
    engine!("io_uring", io_uring),
    engine!("libaio", libaio),
];

/// The engine called `name` (exact, as fio's `find_ioengine`).
pub fn lookup(name: &str) -> Option<&'static EngineDef> {
    ENGINES.iter().find(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_match_instances() {
        for def in ENGINES {
            if matches!(def.name, "io_uring" | "libaio") {
                continue; // may be unavailable in a sandbox
            }
            let e = (def.new)(&EngineConfig::default()).unwrap();
            assert_eq!(e.name(), def.name);
        }
        assert!(lookup("nosuch").is_none());
    }

    #[test]
    fn every_registered_engine_is_one_fio_knows() {
        for def in ENGINES {
            assert!(
                crate::options::engines::is_available(def.name),
                "{}",
                def.name
            );
        }
    }

    #[test]
    fn capabilities() {
        let caps = |name: &str, iodepth: u32| {
            let cfg = EngineConfig {
                iodepth,
                ..EngineConfig::default()
            };
            (lookup(name).unwrap().caps)(&cfg)
        };
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
            if matches!(def.name, "io_uring" | "libaio") {
                continue;
            }
            for depth in [1, 8] {
                let cfg = EngineConfig {
                    iodepth: depth,
                    ..EngineConfig::default()
                };
                let e = (def.new)(&cfg).unwrap();
                assert_eq!(e.caps(), (def.caps)(&cfg), "{} at {depth}", def.name);
            }
        }
    }
}
