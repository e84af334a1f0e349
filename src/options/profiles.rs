//! Options of fio's built-in profiles (`--profile=tiobench`, `--profile=act`).
//!
//! fio 3.33 registers them at start-up, so every job file may set them
//! (`threads=1` in the Debian examples `steadystate.fio` and `waitfor.fio`)
//! and `--showcmd` prints them, although they only matter to a profile run.
//! `--cmdhelp` lists them only after `--profile=NAME`. rfio accepts them
//! anywhere; the act profile reads its own ([`ActSettings`]), tiobench's do
//! nothing (as in fio 3.33).

use super::def::{FioType, OptionDef, Split, Support, TimeUnit, ValueKind};

const fn profile(
    name: &'static str,
    fio_type: FioType,
    kind: ValueKind,
    default: Option<&'static str>,
    category: &'static str,
    help: &'static str,
) -> OptionDef {
    OptionDef {
        name,
        aliases: &[],
        fio_type,
        kind,
        time_unit: TimeUnit::Seconds,
        split: Split::One,
        default,
        min: None,
        max: None,
        posvals: &[],
        prio: 0,
        parent: None,
        category,
        help,
        engines: &[],
        support: Support::Ignored,
    }
}

const TIOBENCH: &str = "Tiobench profile options";
const ACT: &str = "Act profile options";

/// The profile option `def` belongs to (`tiobench`, `act`), if any.
pub(crate) fn profile_of(def: &OptionDef) -> Option<&'static str> {
    if !PROFILE_OPTIONS.iter().any(|p| std::ptr::eq(p, def)) {
        return None;
    }
    match def.category {
        TIOBENCH => Some("tiobench"),
        ACT => Some("act"),
        _ => None,
    }
}

/// In fio's order (each profile's option table). tiobench's `size` is
/// here for `--profile=tiobench --cmdhelp`; a job's `size=` is the core
/// option (looked up first).
pub(crate) static PROFILE_OPTIONS: &[OptionDef] = &[
    profile(
        "size",
        FioType::StrVal,
        ValueKind::Size,
        None,
        TIOBENCH,
        "Size in MiB",
    ),
    profile(
        "block",
        FioType::Int,
        ValueKind::Int,
        Some("4096"),
        TIOBENCH,
        "Block size in bytes",
    ),
    profile(
        "numruns",
        FioType::Int,
        ValueKind::Int,
        None,
        TIOBENCH,
        "Number of runs",
    ),
    profile(
        "dir",
        FioType::StrStore,
        ValueKind::Text,
        None,
        TIOBENCH,
        "Test directory",
    ),
    profile(
        "threads",
        FioType::Int,
        ValueKind::Int,
        None,
        TIOBENCH,
        "Number of Threads",
    ),
    profile(
        "device-names",
        FioType::StrStore,
        ValueKind::Text,
        None,
        ACT,
        "Devices to use",
    ),
    profile(
        "load",
        FioType::Int,
        ValueKind::Int,
        Some("1"),
        ACT,
        "ACT load multipler (default 1x)",
    ),
    profile(
        "test-duration",
        FioType::StrValTime,
        ValueKind::Time,
        Some("24h"),
        ACT,
        "How long the entire test takes to run",
    ),
    profile(
        "threads-per-queue",
        FioType::Int,
        ValueKind::Int,
        Some("8"),
        ACT,
        "Number of read IO threads per device",
    ),
    profile(
        "read-req-num-512-blocks",
        FioType::Int,
        ValueKind::Int,
        Some("3"),
        ACT,
        "Number of 512B blocks to read at the time",
    ),
    profile(
        "large-block-op-kbytes",
        FioType::Int,
        ValueKind::Int,
        Some("131072"),
        ACT,
        "Size of large block ops in KiB (writes)",
    ),
    profile(
        "prep",
        FioType::StrSet,
        ValueKind::Flag,
        None,
        ACT,
        "Set to run ACT prep phase",
    ),
];

/// fio's built-in profiles (`--profile=NAME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    Tiobench,
    Act,
}

impl Profile {
    /// The profile called `name`.
    pub(crate) fn find(name: &str) -> Option<Profile> {
        match name {
            "tiobench" => Some(Profile::Tiobench),
            "act" => Some(Profile::Act),
            _ => None,
        }
    }

    /// Whether `def` is one of this profile's options.
    pub(crate) fn owns(self, def: &OptionDef) -> bool {
        def.category
            == match self {
                Profile::Tiobench => TIOBENCH,
                Profile::Act => ACT,
            }
            && PROFILE_OPTIONS.iter().any(|p| std::ptr::eq(p, def))
    }
}

/// A section of the jobs a profile adds: its global options (`name`
/// `None`), or a job with its options (`name=` among them, as fio parses
/// them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProfileSection {
    pub(crate) name: Option<String>,
    pub(crate) options: Vec<String>,
}

/// fio's `add_job_opts`: the options before the first `name=` are the
/// global ones; each `name=` starts a job of that name.
fn sections(opts: &[String]) -> Vec<ProfileSection> {
    let mut out = vec![ProfileSection {
        name: None,
        options: Vec::new(),
    }];
    for o in opts {
        if let Some(name) = o.strip_prefix("name=") {
            out.push(ProfileSection {
                name: Some(name.to_string()),
                options: Vec::new(),
            });
        }
        if let Some(s) = out.last_mut() {
            s.options.push(o.clone());
        }
    }
    out
}

/// fio 3.33's tiobench: four jobs over four files, each in its own group.
/// Its own options (`size`, `block`, `numruns`, `dir`, `threads`) change
/// nothing: fio 3.33 stores them where its job list never looks (the
/// list reads other variables, which keep their initial values), and rfio
/// expands it the same.
pub(crate) fn tiobench() -> Vec<ProfileSection> {
    let opts: Vec<String> = [
        "buffered=0",
        "size=4*1024*$mb_memory",
        "bs=4096",
        "loops=1",
        "directory=./",
        "numjobs=1",
        "timeout=600",
        "group_reporting",
        "thread",
        "overwrite=1",
        "filename=.fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4",
        "ioengine=sync",
        "name=seqwrite",
        "rw=write",
        "end_fsync=1",
        "name=randwrite",
        "stonewall",
        "rw=randwrite",
        "end_fsync=1",
        "name=seqread",
        "stonewall",
        "rw=read",
        "name=randread",
        "stonewall",
        "rw=randread",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    sections(&opts)
}

/// The act profile's settings (fio's `act_options`), with fio's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActSettings {
    pub(crate) device_names: Option<String>,
    pub(crate) load: u32,
    /// `test-duration`, in µs (fio keeps a time option in µs).
    pub(crate) test_duration_us: u64,
    pub(crate) threads_per_queue: u32,
    pub(crate) read_blocks: u32,
    /// `large-block-op-kbytes`, which fio uses as bytes.
    pub(crate) write_size: u32,
    pub(crate) prep: bool,
}

impl Default for ActSettings {
    fn default() -> ActSettings {
        ActSettings {
            device_names: None,
            load: 1,
            test_duration_us: 24 * 3600 * 1_000_000,
            threads_per_queue: 8,
            read_blocks: 3,
            write_size: 131072,
            prep: false,
        }
    }
}

impl ActSettings {
    /// Take setting `name` (an act option) with `value`.
    pub(crate) fn set(&mut self, name: &str, value: &super::Value) {
        use super::Value;
        let int = match value {
            Value::Int(n) => *n as u32,
            _ => 0,
        };
        match (name, value) {
            ("device-names", Value::Text(t)) => self.device_names = Some(t.clone()),
            ("load", _) => self.load = int,
            ("test-duration", Value::Micros(us)) => self.test_duration_us = *us,
            ("threads-per-queue", _) => self.threads_per_queue = int,
            ("read-req-num-512-blocks", _) => self.read_blocks = int,
            ("large-block-op-kbytes", _) => self.write_size = int,
            ("prep", Value::Bool(b)) => self.prep = *b,
            _ => {}
        }
    }

    /// fio 3.33's act slices: one per hour of `test-duration` taken as µs.
    pub(crate) fn slices(&self) -> u64 {
        self.test_duration_us.div_ceil(3600)
    }
}

/// Why fio's act profile refuses its settings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ActError {
    /// No `device-names` (fio's own line).
    #[error("act: you need to set IO target(s) with the device-names option.")]
    NoDevices,
    /// Settings whose rates divide by zero (fio crashes on them).
    #[error(
        "act: threads-per-queue={threads_per_queue}, read-req-num-512-blocks={read_blocks} and \
         large-block-op-kbytes={write_size} leave a rate dividing by zero (fio crashes)"
    )]
    ZeroRate {
        threads_per_queue: u32,
        read_blocks: u32,
        write_size: u32,
    },
}

/// fio 3.33's act: per device (`device-names`, comma-separated), reader
/// jobs and a writer at ACT's rates, or with `prep` the zeroing and
/// salting jobs. Its `runtime` is `test-duration` in µs followed by `s`
/// (fio's option keeps µs, its job list prints them as seconds): a
/// `test-duration` of `3us` runs 3 seconds.
pub(crate) fn act(a: &ActSettings) -> Result<Vec<ProfileSection>, ActError> {
    let Some(devices) = &a.device_names else {
        return Err(ActError::NoDevices);
    };
    let read_bs = a.read_blocks.wrapping_mul(512);
    if !a.prep && (a.threads_per_queue == 0 || read_bs == 0 || a.write_size / read_bs == 0) {
        return Err(ActError::ZeroRate {
            threads_per_queue: a.threads_per_queue,
            read_blocks: a.read_blocks,
            write_size: a.write_size,
        });
    }
    let mut o: Vec<String> = [
        "direct=1",
        "ioengine=sync",
        "random_generator=lfsr",
        "group_reporting=1",
        "thread",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for dev in devices.split(',') {
        if a.prep {
            o.extend([
                format!("name=act-prep-zeroes-{dev}"),
                format!("filename={dev}"),
                "bs=1048576".into(),
                "zero_buffers".into(),
                "rw=write".into(),
                format!("name=act-prep-salt-{dev}"),
                "stonewall".into(),
                format!("filename={dev}"),
                "bs=4096".into(),
                "ioengine=libaio".into(),
                "iodepth=64".into(),
                "rw=randwrite".into(),
            ]);
            continue;
        }
        let rload = a.load.wrapping_mul(2000) / a.threads_per_queue;
        let rsize = a.write_size / read_bs;
        // fio: (load * 1000 + rsize - 1) / rsize, in unsigned int.
        let wload = a.load.wrapping_mul(1000).wrapping_add(rsize - 1) / rsize;
        o.extend([
            format!("runtime={}s", a.test_duration_us),
            "time_based=1".into(),
            format!("name=act-read-{dev}"),
            format!("filename={dev}"),
            "rw=randread".into(),
            format!("numjobs={}", a.threads_per_queue),
            format!("rate_iops={rload}"),
            format!("bs={read_bs}"),
            format!("name=act-write-{dev}"),
            format!("filename={dev}"),
            "rw=randwrite".into(),
            format!("rate_iops={wload}"),
            format!("bs={}", a.write_size),
        ]);
    }
    Ok(sections(&o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiobench_is_fios_list() {
        let s = tiobench();
        assert_eq!(s.len(), 5);
        assert_eq!(s[0].name, None);
        assert_eq!(s[0].options[1], "size=4*1024*$mb_memory");
        let names: Vec<_> = s[1..].iter().map(|s| s.name.clone().unwrap()).collect();
        assert_eq!(names, ["seqwrite", "randwrite", "seqread", "randread"]);
        assert_eq!(
            s[2].options,
            ["name=randwrite", "stonewall", "rw=randwrite", "end_fsync=1"]
        );
    }

    #[test]
    fn act_jobs_and_rates() {
        let none = act(&ActSettings::default()).unwrap_err();
        assert_eq!(none, ActError::NoDevices);
        assert_eq!(
            none.to_string(),
            "act: you need to set IO target(s) with the device-names option."
        );
        let zero = ActSettings {
            device_names: Some("/d".into()),
            threads_per_queue: 0,
            ..ActSettings::default()
        };
        assert_eq!(
            act(&zero).unwrap_err().to_string(),
            "act: threads-per-queue=0, read-req-num-512-blocks=3 and large-block-op-kbytes=131072 \
             leave a rate dividing by zero (fio crashes)"
        );
        let a = ActSettings {
            device_names: Some("/d1,/d2".into()),
            test_duration_us: 3,
            ..ActSettings::default()
        };
        let s = act(&a).unwrap();
        assert_eq!(s[0].options[4..], ["thread", "runtime=3s", "time_based=1"]);
        assert_eq!(
            s[1].options,
            [
                "name=act-read-/d1",
                "filename=/d1",
                "rw=randread",
                "numjobs=8",
                "rate_iops=250",
                "bs=1536"
            ]
        );
        // The second device's runtime lands in the first device's writer.
        assert_eq!(
            s[2].options,
            [
                "name=act-write-/d1",
                "filename=/d1",
                "rw=randwrite",
                "rate_iops=12",
                "bs=131072",
                "runtime=3s",
                "time_based=1"
            ]
        );
        assert_eq!(s.len(), 5);
        assert_eq!(a.slices(), 1);
        assert_eq!(ActSettings::default().slices(), 24_000_000);
        let p = act(&ActSettings {
            device_names: Some("/d".into()),
            prep: true,
            ..ActSettings::default()
        })
        .unwrap();
        assert_eq!(p[2].options[..2], ["name=act-prep-salt-/d", "stonewall"]);
    }
}
