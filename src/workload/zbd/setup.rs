//! Setting a zoned job up (fio's `zbd_init_files`,
//! `zbd_recalc_options_with_zone_granularity` and `zbd_setup_files`): the
//! zone table of each file (found in the run's [`ZbdRegistry`] when an
//! earlier job made it, else built from the device's report or emulated),
//! the open-zone limit, the job's region aligned to whole zones, fio's
//! checks of the block sizes and limits.
//!
//! fio logs what it does and refuses in its words; a refusal fails the job
//! (fio counts it in its exit status), setting its error only where fio
//! does.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::job::{JobSettings, ZbdFile, ZbdJob};
use super::probe::{probe, ProbeError};
use super::table::{JobZones, Refused, ZoneTable, MAX_OPEN_ZONES};
use super::types::{Model, ZoneCond};
use crate::debug::{dprint, Cat};
use crate::plan::resolve::zones::{Skip, ZbdOptions};
use crate::plan::spec::JobSpec;
use crate::workload::offsets::FileRegion;

/// The zone tables of one run, by file name: every job using a file
/// shares its table (fio's `zbd_init_zone_info`).
#[derive(Default)]
pub(crate) struct ZbdRegistry {
    tables: Mutex<HashMap<String, Arc<Mutex<ZoneTable>>>>,
    /// Every job whose zones were read, in the order they were: fio checks
    /// them all again each time it sets a zoned job up.
    jobs: Mutex<Vec<Checked>>,
    /// The tests' devices, by file name, taken instead of the file's own.
    #[cfg(test)]
    devices: Mutex<HashMap<String, Box<dyn super::device::ZonedDevice>>>,
}

#[cfg(test)]
impl ZbdRegistry {
    /// File `name` is device `dev` (the next job to use it finds it).
    pub(crate) fn with_device(self, name: &str, dev: Box<dyn super::device::ZonedDevice>) -> Self {
        self.devices
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_string(), dev);
        self
    }

    /// The table of file `name`, once a job made it.
    pub(crate) fn table(&self, name: &str) -> Option<Arc<Mutex<ZoneTable>>> {
        let tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        tables.get(name).cloned()
    }
}

/// One file of the job being set up.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileInfo<'a> {
    pub(crate) path: &'a Path,
    /// The name fio uses for it (its messages show it).
    pub(crate) name: &'a str,
    /// Its size before the job lays it out (fio reads the zones first):
    /// 0 when there is no file yet.
    pub(crate) size: u64,
}

/// A zoned job set up: its zone state, and the lines fio logs on stdout
/// once the files are laid out (the region rounded to whole zones).
#[derive(Debug)]
pub(crate) struct Ready {
    pub(crate) job: ZbdJob,
    pub(crate) notes: Vec<String>,
}

/// Set up the zones of job `spec` (`opts`: its zone settings) over
/// `files`, whose regions `regions` are rounded to whole zones.
pub(crate) fn prepare(
    spec: &JobSpec,
    opts: &ZbdOptions,
    files: &[FileInfo<'_>],
    regions: &mut [FileRegion],
    registry: &ZbdRegistry,
) -> Result<Ready, Refused> {
    let mut counters = JobZones::default();
    let mut zone_size = opts.zone_size;
    let mut tables = Vec::with_capacity(files.len());
    for f in files {
        let t = table_of(f, opts, &mut zone_size, registry)?;
        tables.push(t);
    }
    // zbd_recalc_options_with_zone_granularity: `zoneskip=Nz` in zones of
    // the device.
    let mut zone_skip = match opts.zone_skip {
        Skip::Bytes(b) => b,
        Skip::Zones(_) => 0,
    };
    for t in &tables {
        if let Skip::Zones(n) = opts.zone_skip {
            let zs = lock(t).zone_size;
            if zs > 0 && n > 0 {
                zone_skip = n.saturating_mul(zs);
            }
        }
    }
    let p = spec.pattern;
    // fio's get_start_offset, where zoneskip wraps to: before rounding.
    let starts: Vec<u64> = regions.iter().map(|r| r.file_offset).collect();
    let me = Checked {
        files: tables
            .iter()
            .zip(files)
            .zip(regions.iter())
            .map(|((t, f), r)| CheckedFile {
                table: Arc::clone(t),
                name: f.name.to_string(),
                region: *r,
                block: is_block(f.path),
            })
            .collect(),
        zone_size,
        zone_skip,
        seq_read_only: p.read && !p.write && !p.trim && !p.random,
        direct: spec.direct,
        writes: p.write,
        trims: p.trim,
        bs: spec.bs,
        trim_split: !spec.block.split[2].is_empty(),
        verify: spec.verify.is_some(),
        any_bs: opts.rules.finish_small_remainder,
        notes: Vec::new(),
    };
    let mut jobs = registry.jobs.lock().unwrap_or_else(|e| e.into_inner());
    jobs.push(me);
    let mine = jobs.len() - 1;
    check_all(&mut jobs)?;
    if let Err(mut e) = check_recovery(spec, opts, &tables) {
        // What fio logged rounding the regions, before it refused.
        let mut lines: Vec<(bool, String)> =
            jobs[mine].notes.drain(..).map(|n| (false, n)).collect();
        lines.append(&mut e.lines);
        e.lines = lines;
        return Err(e);
    }
    for (r, f) in regions.iter_mut().zip(&jobs[mine].files) {
        *r = f.region;
    }
    zone_size = jobs[mine].zone_size;
    let notes = std::mem::take(&mut jobs[mine].notes);
    drop(jobs);
    let min_bs: [u64; 3] = std::array::from_fn(|d| spec.bs[d].0);
    // Past fio's checks (`zbd_setup_files`'s per-file loop): the job counts
    // its zone resets from here on, refused or not.
    let zfiles = zone_files(spec, opts, &tables, regions, &starts, &mut counters, min_bs)
        .map_err(Refused::counted)?;
    let set = JobSettings {
        random: p.random,
        mixed: p.read && p.write,
        writes: p.write,
        verify: spec.verify.is_some(),
        min_bs,
        zone_size,
        zone_skip,
        read_beyond_wp: opts.read_beyond_wp,
        job_max_open_zones: opts.job_max_open_zones,
        reset_threshold: opts.reset_threshold,
        reset_frequency: opts.reset_frequency,
        write_zone_remainder: opts.write_zone_remainder,
        recover_write_error: opts.recover_write_error,
        rules: opts.rules,
    };
    Ok(Ready {
        job: ZbdJob::new(zfiles, set, counters),
        notes,
    })
}

/// fio's checks of `recover_zbd_write_error` in a job that writes: it
/// needs `continue_on_error`, and with verification a sync engine. rfio
/// recovers on zones it emulates only (fio asks a device with zones of its
/// own for the write pointer and writes the rest of the data there, which
/// rfio does not do yet).
fn check_recovery(
    spec: &JobSpec,
    opts: &ZbdOptions,
    tables: &[Arc<Mutex<ZoneTable>>],
) -> Result<(), Refused> {
    if !opts.recover_write_error || !spec.pattern.write {
        return Ok(());
    }
    if spec.io.continue_on_error == 0 {
        return Err(Refused::err(
            "recover_zbd_write_error works only when continue_on_error is set\n".into(),
        ));
    }
    let sync = crate::ioengine::flags(&spec.ioengine).is_some_and(|f| f.sync);
    if spec.verify.is_some() && !sync {
        return Err(Refused::err(
            "recover_zbd_write_error for async IO engines does not support verify\n".into(),
        ));
    }
    if let Some(t) = tables.iter().find(|t| lock(t).model != Model::None) {
        return Err(Refused::err(format!(
            "rfio: {}: recover_zbd_write_error on a zoned block device: rfio does not \
             recover write pointers on devices with zones of their own yet (it runs on \
             zones it emulates)\n",
            lock(t).name
        )));
    }
    Ok(())
}

/// The job's files in their zone tables (fio's per-file loop of
/// `zbd_setup_files`): each file's zone range, the open-zone limits checked
/// against the table's, and the zones the job finds open taken as its own
/// (or reset, past the limits).
fn zone_files(
    spec: &JobSpec,
    opts: &ZbdOptions,
    tables: &[Arc<Mutex<ZoneTable>>],
    regions: &[FileRegion],
    starts: &[u64],
    counters: &mut JobZones,
    min_bs: [u64; 3],
) -> Result<Vec<ZbdFile>, Refused> {
    let mut zfiles = Vec::with_capacity(tables.len());
    let mut max_open = opts.max_open_zones;
    for ((t, r), start_offset) in tables.iter().zip(regions).zip(starts.iter().copied()) {
        let mut g = lock(t);
        let min_zone = g.zone_idx(r.file_offset);
        let max_zone = g.zone_idx(r.file_offset + r.io_size);
        if max_open > 0 && g.max_open_zones != max_open {
            return Err(Refused::err("Different 'max_open_zones' values\n".into()));
        }
        if opts.job_max_open_zones > 0 && g.max_open_zones == 0 {
            return Err(Refused::err(
                "'job_max_open_zones' cannot be used without a global open zones limit\n".into(),
            ));
        }
        max_open = g.max_open_zones;
        for zi in min_zone..max_zone {
            let c = g.zone(zi).cond;
            if c != ZoneCond::ImplicitOpen && c != ZoneCond::ExplicitOpen {
                continue;
            }
            let verify_bs = spec.verify.is_some().then_some(min_bs[1]);
            if g.open_zone(counters, zi, opts.job_max_open_zones, verify_bs) {
                continue;
            }
            // More zones open than the limits allow: the others are reset.
            if g.reset_zone(counters, zi).is_err() {
                return Err(Refused::err(format!("Failed to reest zone {zi}\n")));
            }
        }
        drop(g);
        zfiles.push(ZbdFile {
            table: Arc::clone(t),
            min_zone,
            max_zone,
            start_offset,
        });
    }
    Ok(zfiles)
}

fn lock(t: &Mutex<ZoneTable>) -> std::sync::MutexGuard<'_, ZoneTable> {
    t.lock().unwrap_or_else(|e| e.into_inner())
}

fn is_block(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}

/// The zone table of file `f`: the run's, if a job made it already, else
/// a new one (fio's `zbd_create_zone_info`). `zone_size` is the job's
/// zone size, the device's once read from it.
fn table_of(
    f: &FileInfo<'_>,
    opts: &ZbdOptions,
    zone_size: &mut u64,
    registry: &ZbdRegistry,
) -> Result<Arc<Mutex<ZoneTable>>, Refused> {
    let mut tables = registry.tables.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = tables.get(f.name) {
        return Ok(Arc::clone(t));
    }
    let name = f.name;
    #[cfg(test)]
    let given = registry
        .devices
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(name);
    #[cfg(not(test))]
    let given = None;
    let probed = match given {
        Some(dev) => Ok(dev),
        None => probe(f.path),
    };
    let dev = probed.map_err(|e| match e {
        ProbeError::Pipe => Refused::err("zonemode=zbd does not support pipes\n".into())
            .with_error(libc::EINVAL, "zbd.c:985", "zbd_create_zone_info() failed"),
        ProbeError::NoModel => Refused::err(format!(
            "{name}: get zoned model failed ({}).\n",
            libc::EINVAL
        ))
        .with_error(libc::EINVAL, "zbd.c:164", "get zoned model failed"),
    })?;
    let mut t = match dev.model() {
        Model::None => ZoneTable::emulated(name, f.size, *zone_size, opts.zone_capacity, dev)?,
        Model::HostAware | Model::HostManaged => {
            let t = ZoneTable::reported(name, f.size, *zone_size, dev)?;
            if *zone_size == 0 {
                *zone_size = t.zone_size;
            }
            t
        }
    };
    set_max_open_zones(&mut t, opts)?;
    let t = Arc::new(Mutex::new(t));
    tables.insert(name.to_string(), Arc::clone(&t));
    Ok(t)
}

/// fio's `zbd_set_max_open_zones`: the job's limit, or a host-managed
/// device's own (unless `ignore_zone_limits`); a job's limit above the
/// device's is refused.
fn set_max_open_zones(t: &mut ZoneTable, opts: &ZbdOptions) -> Result<(), Refused> {
    let asked = opts.max_open_zones;
    t.max_open_zones =
        if t.model != Model::HostManaged || opts.ignore_zone_limits {
            asked
        } else {
            let dev =
                t.dev.max_open_zones().map_err(|e| {
                    Refused::err(format!("{}: get max open zones failed ({e}).\n", t.name))
                        .with_error(e, "zbd.c:389", "get max open zones failed")
                })?;
            if dev == 0 {
                asked
            } else if asked == 0 {
                dev
            } else if asked <= dev {
                asked
            } else {
                return Err(Refused::err(format!(
                    "Specified --max_open_zones ({asked}) is larger than max ({dev})\n"
                ))
                .with_error(
                    libc::EINVAL,
                    "zbd.c:872",
                    "Specified --max_open_zones is too large",
                ));
            }
        };
    if t.max_open_zones as usize > MAX_OPEN_ZONES {
        return Err(Refused::err(format!(
            "'max_open_zones' value is larger than {MAX_OPEN_ZONES}\n"
        ))
        .with_error(
            libc::EINVAL,
            "zbd.c:882",
            "'max_open_zones' value is too large",
        ));
    }
    dprint!(
        Cat::Zbd,
        "{}: using max open zones limit: {}\n",
        t.name,
        t.max_open_zones
    );
    Ok(())
}

/// fio's `zbd_zone_align_file_sizes`: a region that holds sequential
/// zones starts and ends on zone boundaries (a sequential read job's is
/// left as it is), after fio's checks of the zone size and `zoneskip`.
fn align(
    t: &ZoneTable,
    name: &str,
    r: &mut FileRegion,
    seq_read_only: bool,
    zone_size: &mut u64,
    zone_skip: u64,
    notes: &mut Vec<String>,
) -> Result<(), Refused> {
    if r.file_offset >= r.real_file_size || !holds_seq_zones(t, r) {
        return Ok(());
    }
    if *zone_size == 0 {
        *zone_size = t.zone_size;
    } else if *zone_size != t.zone_size {
        return Err(Refused::err(format!(
            "{name}: zonesize {} does not match the device zone size {}.\n",
            zone_size, t.zone_size
        )));
    }
    if zone_skip % *zone_size != 0 {
        return Err(Refused::err(format!(
            "{name}: zoneskip {zone_skip} is not a multiple of the device zone size {zone_size}.\n"
        )));
    }
    let too_small = || Refused {
        lines: vec![(
            false,
            format!("{name}: io_size must be at least one zone\n"),
        )],
        error: None,
        counted: false,
    };
    let zi = t.zone_idx(r.file_offset);
    if r.file_offset != t.zone(zi).start && !seq_read_only {
        let new_offset = t.zone_end(zi);
        if new_offset >= r.file_offset + r.io_size {
            return Err(too_small());
        }
        notes.push(format!(
            "{name}: rounded up offset from {} to {new_offset}\n",
            r.file_offset
        ));
        r.io_size -= new_offset - r.file_offset;
        r.file_offset = new_offset;
    }
    let new_end = t.zone(t.zone_idx(r.file_offset + r.io_size)).start;
    if !seq_read_only && r.file_offset + r.io_size != new_end {
        if new_end <= r.file_offset {
            return Err(too_small());
        }
        notes.push(format!(
            "{name}: rounded down io_size from {} to {}\n",
            r.io_size,
            new_end - r.file_offset
        ));
        r.io_size = new_end - r.file_offset;
    }
    Ok(())
}

/// fio's `zbd_is_seq_job`: the region holds a zone with a write pointer.
fn holds_seq_zones(t: &ZoneTable, r: &FileRegion) -> bool {
    if r.io_size == 0 {
        return false;
    }
    let (b, e) = (
        t.zone_idx(r.file_offset),
        t.zone_idx(r.file_offset + r.io_size - 1),
    );
    (b..=e).any(|i| t.zone(i).has_wp)
}

/// fio's `zbd_verify_bs` for job `j`: trims are whole zones of one size;
/// with verification every block size divides the zone size (up to fio
/// 3.33).
fn check_bs(j: &Checked) -> Result<(), Refused> {
    let info = |line: String| Refused {
        lines: vec![(false, line)],
        error: None,
        counted: false,
    };
    let (tmin, tmax) = j.bs[2];
    if j.trims && (tmin != tmax || j.trim_split) {
        return Err(info(
            "bsrange and bssplit are not allowed for trim with zonemode=zbd\n".into(),
        ));
    }
    for f in &j.files {
        let zs = lock(&f.table).zone_size;
        if j.trims && tmin != zs {
            return Err(info(format!(
                "{}: trim block size {tmin} is not the zone size {zs}\n",
                f.name
            )));
        }
        if j.verify && !j.any_bs {
            for (bs, _) in j.bs {
                if bs == 0 || zs % bs != 0 {
                    return Err(info(format!(
                        "{}: block size {bs} is not a divisor of the zone size {zs}\n",
                        f.name
                    )));
                }
            }
        }
    }
    Ok(())
}

/// One file of a job checked (see [`Checked`]).
struct CheckedFile {
    table: Arc<Mutex<ZoneTable>>,
    name: String,
    /// The job's region of the file, rounded to zones once checked.
    region: FileRegion,
    /// A block device.
    block: bool,
}

/// What fio checks of a zoned job whenever it sets one up
/// (`zbd_using_direct_io`, `zbd_verify_sizes` and `zbd_verify_bs` loop
/// over every job): a job that failed them once fails every zoned job set
/// up after it.
struct Checked {
    files: Vec<CheckedFile>,
    /// The job's zone size (the device's once checked).
    zone_size: u64,
    zone_skip: u64,
    seq_read_only: bool,
    direct: bool,
    writes: bool,
    trims: bool,
    bs: [(u64, u64); 3],
    trim_split: bool,
    verify: bool,
    /// With verification, any block size (fio 3.34 on: zones with less
    /// room than a block are finished); else one that divides the zone.
    any_bs: bool,
    /// The lines fio logs rounding the job's regions.
    notes: Vec<String>,
}

/// fio's checks of `jobs` (the last one is being set up), in fio's order;
/// a failure carries the notes of the rounding done before it.
fn check_all(jobs: &mut [Checked]) -> Result<(), Refused> {
    let mine = jobs.len() - 1;
    let hm_block = |f: &CheckedFile| f.block && lock(&f.table).model == Model::HostManaged;
    if jobs
        .iter()
        .any(|j| !j.direct && j.writes && j.files.iter().any(hm_block))
    {
        return Err(Refused::err(
            "Using direct I/O is mandatory for writing to ZBD drives\n\n".into(),
        ));
    }
    let mut notes = Vec::new();
    for j in jobs.iter_mut() {
        let Checked {
            files,
            zone_size,
            zone_skip,
            seq_read_only,
            ..
        } = j;
        for f in files.iter_mut() {
            let t = lock(&f.table);
            let r = align(
                &t,
                &f.name,
                &mut f.region,
                *seq_read_only,
                zone_size,
                *zone_skip,
                &mut notes,
            );
            if let Err(mut e) = r {
                // What fio logged before it refused.
                let mut lines: Vec<(bool, String)> = notes.drain(..).map(|n| (false, n)).collect();
                lines.append(&mut e.lines);
                e.lines = lines;
                return Err(e);
            }
        }
    }
    jobs[mine].notes = notes;
    jobs.iter().try_for_each(check_bs)
}
