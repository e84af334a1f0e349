//! Zones: `zonemode`, `zonesize`, `zonerange`, `zoneskip` and the zoned
//! block device options, with fio 3.33's rules (`fixup_options`):
//! `zonesize` with `zonemode=none` and `zonemode=strided` without
//! `zonesize` are refused, `openfiles` above 1 turns strided mode off
//! silently, `zoneskip=Nz` is N zones of `zonesize` bytes (with
//! `zonemode=zbd`, of the device's zone size), `zonemode=zbd` with
//! `create_serialize=0` is refused.
//!
//! `zonemode=zbd` ([`ZbdOptions`]) takes `zonecapacity`, `read_beyond_wp`,
//! `max_open_zones`, `job_max_open_zones`, `ignore_zone_limits`,
//! `zone_reset_threshold` and `zone_reset_frequency`; what fio checks
//! against the device (the zone size, the open-zone limits) is checked when
//! the job is set up (`crate::workload::zbd`).

use super::read::Opts;
use super::Refusal;
use crate::options::Value;
use crate::release::Change;

/// A job's strided zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ZoneOptions {
    /// `zonesize`: bytes per zone visit.
    pub(crate) size: u64,
    /// `zonerange` (default: `zonesize`): bytes in a zone.
    pub(crate) range: u64,
    /// `zoneskip`: bytes skipped after each zone.
    pub(crate) skip: u64,
}

/// `zoneskip`: bytes, or a number of zones (`Nz`) of the device's zone
/// size (fio's `zone_skip_nz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Skip {
    Bytes(u64),
    Zones(u64),
}

/// A job's zoned block device settings (`zonemode=zbd`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ZbdOptions {
    /// `zonesize`; 0: the device's (mandatory for a device without
    /// zones, fio emulates them).
    pub(crate) zone_size: u64,
    /// `zonecapacity`; 0: the zone size (emulated zones only).
    pub(crate) zone_capacity: u64,
    /// `zoneskip`, for sequential jobs.
    pub(crate) zone_skip: Skip,
    /// `read_beyond_wp`: reads are not kept below the write pointer.
    pub(crate) read_beyond_wp: bool,
    /// `max_open_zones` (0: no limit but the device's).
    pub(crate) max_open_zones: u32,
    /// `job_max_open_zones` (0: none).
    pub(crate) job_max_open_zones: u32,
    /// `ignore_zone_limits`: the device's open-zone limit is not read.
    pub(crate) ignore_zone_limits: bool,
    /// `zone_reset_threshold`: the share of the job's region holding data
    /// above which zones are reset (with a frequency).
    pub(crate) reset_threshold: f64,
    /// `zone_reset_frequency`: one reset every `1 / f` writes once the
    /// threshold is passed; 0: none.
    pub(crate) reset_frequency: f64,
    /// `write_zone_remainder` (3.42): a zone with room for less than a
    /// block is written to its end with a shorter write, not finished, and
    /// counts as full only with no room at all.
    pub(crate) write_zone_remainder: bool,
    /// `recover_zbd_write_error` (3.40): a failed write of a sync engine
    /// looks for the zone's write pointer on the device (fio's
    /// `zbd_recover_write_error`); needs `continue_on_error`.
    pub(crate) recover_write_error: bool,
    /// The release's zoned-write rules ([`crate::release::Change`]).
    pub(crate) rules: ZbdRules,
}

/// What a zoned job does as its fio release does it (fio 3.33: all off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ZbdRules {
    /// A zone left with less room than a block is finished, and the write
    /// goes to the next zone (`Change::ZbdFinishSmallRemainder`); with
    /// verification a block size need not divide the zone size.
    pub(crate) finish_small_remainder: bool,
    /// A mixed job reads once it has written itself
    /// (`Change::ZbdReadsAfterOwnWrite`), not once the file holds data.
    pub(crate) reads_after_own_write: bool,
    /// A mixed job with `rwmixwrite=0` reads from the start
    /// (`Change::ZbdNoWriteShareReads`).
    pub(crate) no_write_share_reads: bool,
}

/// A job's zone mode (`JobSpec::zones`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ZoneMode {
    /// `zonemode=strided`.
    Strided(ZoneOptions),
    /// `zonemode=zbd`.
    Zbd(ZbdOptions),
}

/// `None` without zones; fio's refusal (in its words) for settings fio
/// refuses. What rfio cannot run goes to `bad`: a list of reset
/// thresholds or frequencies (fio keeps the first), sizes in zones (`size=2z`)
/// with `zonemode=zbd` and no `zonesize`, which count in a zoned device's
/// own zone size (known only once the device is open; rfio reads such
/// sizes when the plan is made).
pub(super) fn resolve(o: Opts<'_>, bad: &mut Vec<String>) -> Result<Option<ZoneMode>, Refusal> {
    let mode = o.choice_or_default("zonemode");
    let size = bytes(o, "zonesize", 0);
    // fio takes one value (maxlen 1) and warns about the others, which it
    // drops: rfio refuses the list.
    for name in ["zone_reset_threshold", "zone_reset_frequency"] {
        if let Some(Value::Floats(f)) = o.value(name) {
            if f.len() > 1 {
                bad.push(format!(
                    "{name}: the list exceeding max length 1 (fio warns and keeps only {:.6})",
                    f[0]
                ));
            }
        }
    }
    if mode == "zbd" && size == 0 {
        for name in ["size", "io_size", "offset", "offset_increment"] {
            if let Some(Value::Zones(n)) = o.value(name) {
                bad.push(format!(
                    "{name}={n}z: rfio counts zones in zonesize= bytes; set zonesize to the \
                     device's zone size (fio reads it from the zoned device)"
                ));
            }
        }
    }
    match mode {
        "zbd" => {
            // fio's fixup_options reports each of these, then fails.
            let mut errors = Vec::new();
            if !o.flag_or_default("create_serialize") {
                errors.push("--zonemode=zbd and --create_serialize=0 are not compatible.");
            }
            if o.is("write_zone_remainder") && o.set("norandommap") && !o.is("norandommap") {
                errors.push("write_zone_remainder=1 requires norandommap=1");
            }
            if !errors.is_empty() {
                return Err(Refusal(errors.join("\nfio: ")));
            }
            return Ok(Some(ZoneMode::Zbd(zbd(o, size))));
        }
        "none" if size != 0 => {
            return Err(Refusal(
                "--zonemode=none and --zonesize are not compatible.".into(),
            ))
        }
        "strided" if size == 0 => {
            return Err(Refusal(
                "--zonesize must be specified when using --zonemode=strided.".into(),
            ))
        }
        "strided" => {}
        _ => return Ok(None),
    }
    // fio: "Strided zone mode only really works with 1 file."; it looks at
    // `openfiles` as written only (it fills in the default, `nrfiles`,
    // later).
    if o.int_or_zero("openfiles").max(0) > 1 {
        return Ok(None);
    }
    let range = match bytes(o, "zonerange", size) {
        0 => size,
        r => r,
    };
    Ok(Some(ZoneMode::Strided(ZoneOptions {
        size,
        range,
        skip: bytes(o, "zoneskip", size),
    })))
}

/// fio's fix-up for `write_zone_remainder` with `zonemode=zbd`: a job
/// that leaves `norandommap` unset runs without a random map (fio:
/// "override norandommap=1 for write_zone_remainder=1").
pub(super) fn norandommap_fixup(o: Opts<'_>) -> bool {
    o.choice_or_default("zonemode") == "zbd"
        && o.is("write_zone_remainder")
        && o.flag("norandommap").is_none()
}

/// The `zonemode=zbd` settings; `size` is `zonesize`.
fn zbd(o: Opts<'_>, size: u64) -> ZbdOptions {
    let count = |name: &str| o.int_or_default(name).clamp(0, i64::from(u32::MAX)) as u32;
    let fraction = |name: &str| match o.value(name) {
        Some(Value::Floats(f)) => f.first().copied().unwrap_or(0.0),
        _ => 0.0,
    };
    ZbdOptions {
        zone_size: size,
        zone_capacity: bytes(o, "zonecapacity", 0),
        zone_skip: match o.value("zoneskip") {
            Some(Value::Zones(n)) => Skip::Zones(*n),
            _ => Skip::Bytes(bytes(o, "zoneskip", 0)),
        },
        read_beyond_wp: o.is("read_beyond_wp"),
        max_open_zones: count("max_open_zones"),
        job_max_open_zones: count("job_max_open_zones"),
        ignore_zone_limits: o.is("ignore_zone_limits"),
        reset_threshold: fraction("zone_reset_threshold"),
        reset_frequency: fraction("zone_reset_frequency"),
        write_zone_remainder: o.is("write_zone_remainder"),
        recover_write_error: o.is("recover_zbd_write_error"),
        rules: ZbdRules {
            finish_small_remainder: o.1.has(Change::ZbdFinishSmallRemainder),
            reads_after_own_write: o.1.has(Change::ZbdReadsAfterOwnWrite),
            no_write_share_reads: o.1.has(Change::ZbdNoWriteShareReads),
        },
    }
}

/// A size option in bytes; `Nz` (`zoneskip`) is N zones of `zone` bytes.
fn bytes(o: Opts<'_>, name: &str, zone: u64) -> u64 {
    match o.value(name) {
        Some(Value::Bytes(b)) => *b,
        Some(Value::Int(n)) => (*n).max(0) as u64,
        Some(Value::Zones(n)) => n.saturating_mul(zone),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::testing::job;

    fn resolved(args: &[&str]) -> Result<Option<ZoneMode>, Refusal> {
        let mut argv = vec!["--name=z", "--ioengine=null", "--size=1m"];
        argv.extend_from_slice(args);
        job(&argv).zones
    }

    #[test]
    fn one_reset_threshold_and_frequency() {
        for opt in [
            "--zone_reset_threshold=.4:.6",
            "--zone_reset_frequency=.4:.6",
        ] {
            let fe = crate::plan::testing::frontend(&["--name=z", "--zonemode=zbd", opt]);
            assert!(
                fe.diags
                    .to_string()
                    .contains(": the list exceeding max length 1 (fio warns"),
                "{}",
                fe.diags
            );
        }
    }

    #[test]
    fn sizes_in_zones_count_zonesize_bytes() {
        let j = job(&[
            "--name=z",
            "--ioengine=null",
            "--zonemode=zbd",
            "--zonesize=1m",
            "--size=3z",
            "--io_size=2z",
            "--offset=1z",
        ]);
        assert_eq!(
            (j.size, j.io_size, j.offset),
            (Some(3 << 20), Some(2 << 20), 1 << 20)
        );
        // Strided zones too.
        let j = job(&[
            "--name=z",
            "--zonemode=strided",
            "--zonesize=64k",
            "--size=2z",
        ]);
        assert_eq!(j.size, Some(128 << 10));
        // Without a zone size fio ignores them (the size comes from the file).
        assert_eq!(job(&["--name=z", "--filename=f", "--size=2z"]).size, None);
        // A zoned device's own zone size is not known here: refused.
        let fe = crate::plan::testing::frontend(&["--name=z", "--zonemode=zbd", "--size=2z"]);
        assert!(
            fe.diags
                .to_string()
                .contains("size=2z: rfio counts zones in zonesize= bytes"),
            "{}",
            fe.diags
        );
    }

    fn zbd_of(args: &[&str]) -> ZbdOptions {
        match resolved(args) {
            Ok(Some(ZoneMode::Zbd(z))) => z,
            other => panic!("not zbd: {other:?}"),
        }
    }

    #[test]
    fn zbd_defaults_are_fios() {
        let z = zbd_of(&["--zonemode=zbd"]);
        assert_eq!(z.zone_size, 0);
        assert_eq!(z.zone_capacity, 0);
        assert_eq!(z.zone_skip, Skip::Bytes(0));
        assert!(!z.read_beyond_wp && !z.ignore_zone_limits);
        assert_eq!((z.max_open_zones, z.job_max_open_zones), (0, 0));
        assert_eq!((z.reset_threshold, z.reset_frequency), (0.0, 0.0));
    }

    #[test]
    fn zbd_options_are_typed() {
        let z = zbd_of(&[
            "--zonemode=zbd",
            "--zonesize=1m",
            "--zonecapacity=768k",
            "--zoneskip=2z",
            "--read_beyond_wp=1",
            "--max_open_zones=4",
            "--job_max_open_zones=2",
            "--ignore_zone_limits=1",
            "--zone_reset_threshold=0.5",
            "--zone_reset_frequency=0.25",
        ]);
        assert_eq!((z.zone_size, z.zone_capacity), (1 << 20, 768 << 10));
        assert_eq!(z.zone_skip, Skip::Zones(2));
        assert!(z.read_beyond_wp && z.ignore_zone_limits);
        assert_eq!((z.max_open_zones, z.job_max_open_zones), (4, 2));
        assert_eq!((z.reset_threshold, z.reset_frequency), (0.5, 0.25));
        let z = zbd_of(&["--zonemode=zbd", "--zoneskip=3m"]);
        assert_eq!(z.zone_skip, Skip::Bytes(3 << 20));
    }

    #[test]
    fn fios_refusals() {
        let refused = |args: &[&str]| resolved(args).expect_err("refused").0;
        assert_eq!(
            refused(&["--zonemode=zbd", "--create_serialize=0"]),
            "--zonemode=zbd and --create_serialize=0 are not compatible."
        );
        assert_eq!(
            refused(&["--zonesize=1m"]),
            "--zonemode=none and --zonesize are not compatible."
        );
        assert_eq!(
            refused(&["--zonemode=strided"]),
            "--zonesize must be specified when using --zonemode=strided."
        );
        assert_eq!(resolved(&["--zonemode=none"]), Ok(None));
    }

    #[test]
    fn strided_zones_as_before() {
        assert_eq!(
            resolved(&["--zonemode=strided", "--zonesize=64k", "--zoneskip=2z"]),
            Ok(Some(ZoneMode::Strided(ZoneOptions {
                size: 64 << 10,
                range: 64 << 10,
                skip: 128 << 10
            })))
        );
        // fio drops strided zones for more than one open file.
        assert_eq!(
            resolved(&["--zonemode=strided", "--zonesize=64k", "--openfiles=2"]),
            Ok(None)
        );
    }
}
