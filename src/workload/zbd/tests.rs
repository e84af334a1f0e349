//! fio's zone rules on a fake host-managed device: a job's generators
//! driven as the I/O loop drives them, each write handed to the device,
//! which refuses what a zoned device refuses (a write off its zone's write
//! pointer or past its capacity, a zone opened past the device's limit).

use super::device::Emulated;
use super::fake::FakeZoned;
use super::setup::ZbdRegistry;
use super::table::{JobZones, ZoneTable, MAX_OPEN_ZONES};
use super::types::{ZoneCond, ZoneType};
use crate::ddir::Ddir;
use crate::plan::resolve::ZoneMode;
use crate::plan::spec::JobSpec;
use crate::plan::testing;
use crate::workload::error::RunError;
use crate::workload::job::Prepared;

const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

/// A zoned job on the fake device `fake` (8 MiB unless `--size` says).
fn job(args: &[&str]) -> JobSpec {
    let mut argv = vec![
        "--name=z",
        "--ioengine=null",
        "--filename=fake",
        "--zonemode=zbd",
        "--size=8m",
        "--bs=64k",
    ];
    argv.extend_from_slice(args);
    testing::job(&argv)
}

/// What a job did to the device.
#[derive(Debug, Default, PartialEq)]
struct Done {
    reads: u64,
    writes: u64,
    trims: u64,
    resets: u64,
    /// The most zones open on the device at once.
    most_open: usize,
}

/// Run `spec` on `dev` for `passes` passes, as the I/O loop runs it (the
/// null engine completes each I/O at once).
fn drive(spec: &JobSpec, dev: &FakeZoned, passes: usize) -> Result<Done, RunError> {
    let reg = ZbdRegistry::default().with_device("fake", Box::new(dev.clone()));
    drive_in(spec, dev, passes, &reg, u64::MAX)
}

/// [`drive`] with the run's zone tables `reg`, for at most `max_ios` I/Os.
fn drive_in(
    spec: &JobSpec,
    dev: &FakeZoned,
    passes: usize,
    reg: &ZbdRegistry,
    max_ios: u64,
) -> Result<Done, RunError> {
    let p = Prepared::new_in(spec, Some(reg), &crate::workload::stop::Stop::new())?;
    let mut gen = p.take_gen();
    let mut done = Done::default();
    let beyond = matches!(spec.zones, Ok(Some(ZoneMode::Zbd(z))) if z.read_beyond_wp);
    for pass in 0..passes {
        if pass > 0 {
            gen.reset();
        }
        let z = gen.zbd.as_mut().expect("a zoned job");
        z.pass_starts();
        done.resets += z.take_resets();
        while done.reads + done.writes + done.trims < max_ios {
            let Some(io) = gen.next_io(None, 0) else {
                break;
            };
            let z = gen.zbd.as_mut().expect("a zoned job");
            match io.dir {
                Ddir::Write => {
                    if let Err(e) = dev.write(io.offset, io.len) {
                        panic!(
                            "write {}+{} refused ({e}): {:?}",
                            io.offset,
                            io.len,
                            dev.zone_at(io.offset)
                        );
                    }
                    done.writes += 1;
                }
                Ddir::Read => {
                    let zone = dev.zone_at(io.offset);
                    if zone.kind == ZoneType::SeqWriteRequired && !beyond {
                        assert!(
                            io.offset + io.len <= zone.wp,
                            "read past the wp: {io:?} {zone:?}"
                        );
                    }
                    done.reads += 1;
                }
                _ => {
                    z.trim(io.file, io.offset).expect("a zone").expect("reset");
                    done.trims += 1;
                }
            }
            z.completed(io.file, io.dir, io.offset, io.len);
            done.resets += z.take_resets();
            done.most_open = done.most_open.max(dev.open_now());
            assert!(z.take_failure().is_none());
        }
    }
    Ok(done)
}

/// The lines and error of a refused job, as `(lines, error)`.
#[allow(clippy::type_complexity)]
fn refusal(e: RunError) -> (Vec<(bool, String)>, Option<(i32, String)>) {
    match e {
        RunError::Zbd { lines, error, .. } => (lines, error),
        other => panic!("not a zone refusal: {other}"),
    }
}

#[test]
fn sequential_writes_follow_the_write_pointers() {
    // Zone 0 conventional, 7 sequential zones.
    let dev = FakeZoned::new(8, MIB, MIB, 0).conventional(0);
    let d = drive(&job(&["--rw=write"]), &dev, 1).unwrap();
    assert_eq!((d.writes, d.resets), (128, 0));
    let s = dev.state();
    assert!(s.zones[1..].iter().all(|z| z.cond == ZoneCond::Full));
    assert_eq!(s.written, 8 * MIB);
}

#[test]
fn random_writes_land_on_write_pointers_and_full_zones_are_reset() {
    let dev = FakeZoned::new(8, MIB, MIB, 0);
    let d = drive(&job(&["--rw=randwrite"]), &dev, 3).unwrap();
    assert_eq!(d.writes, 3 * 128);
    // Each pass fills 8 MiB of zones: those of the next passes are reset
    // first, one reset on the device per reset fio counts.
    let device_resets: u32 = dev.state().resets.iter().sum();
    assert!(d.resets > 0);
    assert_eq!(d.resets, u64::from(device_resets));
}

#[test]
fn open_zones_stay_within_the_limits() {
    // The device's own limit (host-managed, sysfs): fio takes it.
    let dev = FakeZoned::new(8, MIB, MIB, 2);
    let d = drive(&job(&["--rw=randwrite"]), &dev, 2).unwrap();
    assert_eq!(d.writes, 256);
    assert_eq!(d.most_open, 2);
    // A job's own limit below it.
    let dev = FakeZoned::new(8, MIB, MIB, 0);
    let d = drive(&job(&["--rw=randwrite", "--max_open_zones=3"]), &dev, 1).unwrap();
    assert_eq!((d.writes, d.most_open), (128, 3));
    let dev = FakeZoned::new(8, MIB, MIB, 0);
    let args = [
        "--rw=randwrite",
        "--max_open_zones=3",
        "--job_max_open_zones=1",
    ];
    let d = drive(&job(&args), &dev, 1).unwrap();
    assert_eq!((d.writes, d.most_open), (128, 1));
}

#[test]
fn limits_fio_refuses() {
    let dev = FakeZoned::new(8, MIB, MIB, 3);
    let e = drive(&job(&["--rw=write", "--max_open_zones=5"]), &dev, 1).unwrap_err();
    assert_eq!(
        refusal(e),
        (
            vec![(
                true,
                "Specified --max_open_zones (5) is larger than max (3)\n".to_string()
            )],
            Some((
                libc::EINVAL,
                "file:zbd.c:872, func=Specified --max_open_zones is too large, error=Invalid argument"
                    .to_string()
            ))
        )
    );
    // ignore_zone_limits: the device's limit is not read.
    let dev = FakeZoned::new(8, MIB, MIB, 3);
    let args = ["--rw=write", "--max_open_zones=5", "--ignore_zone_limits=1"];
    assert_eq!(drive(&job(&args), &dev, 1).unwrap().writes, 128);
    let dev = FakeZoned::new(8, MIB, MIB, 0);
    let e = drive(&job(&["--rw=write", "--job_max_open_zones=2"]), &dev, 1).unwrap_err();
    let (lines, error) = refusal(e);
    assert_eq!(
        lines,
        [(
            true,
            "'job_max_open_zones' cannot be used without a global open zones limit\n".to_string()
        )]
    );
    assert_eq!(error, None, "fio fails the job without an error code");
}

#[test]
fn a_reset_threshold_and_frequency_reset_zones_early() {
    let plain = drive(
        &job(&["--rw=randwrite"]),
        &FakeZoned::new(8, MIB, MIB, 0),
        3,
    )
    .unwrap();
    let args = [
        "--rw=randwrite",
        "--zone_reset_threshold=0.25",
        "--zone_reset_frequency=0.5",
    ];
    let dev = FakeZoned::new(8, MIB, MIB, 0);
    let early = drive(&job(&args), &dev, 3).unwrap();
    assert_eq!(early.writes, plain.writes);
    assert!(early.resets > plain.resets, "{early:?} vs {plain:?}");
    // Without a frequency the threshold does nothing.
    let args = ["--rw=randwrite", "--zone_reset_threshold=0.25"];
    let none = drive(&job(&args), &FakeZoned::new(8, MIB, MIB, 0), 3).unwrap();
    assert_eq!(none, plain);
}

#[test]
fn reads_stay_below_the_write_pointers() {
    // Only zone 1 holds data: 256 KiB.
    let fake = || FakeZoned::new(8, MIB, MIB, 0).with_zone(1, ZoneCond::Closed, 256 * KIB);
    // Sequentially: its four blocks, then nothing is left to read.
    let d = drive(&job(&["--rw=read"]), &fake(), 1).unwrap();
    assert_eq!((d.reads, d.writes), (4, 0));
    // At random: every draw is moved into it (the random map still counts
    // the offsets drawn).
    let d = drive(&job(&["--rw=randread"]), &fake(), 1).unwrap();
    assert_eq!(d.reads, 128);
    // An empty device has nothing to read; read_beyond_wp reads it all.
    let empty = FakeZoned::new(8, MIB, MIB, 0);
    assert_eq!(drive(&job(&["--rw=read"]), &empty, 1).unwrap().reads, 0);
    let d = drive(&job(&["--rw=read", "--read_beyond_wp=1"]), &empty, 1).unwrap();
    assert_eq!(d.reads, 128);
}

#[test]
fn a_mixed_job_writes_until_there_is_data() {
    let dev = FakeZoned::new(8, MIB, MIB, 0);
    let spec = job(&["--rw=randrw"]);
    let reg = ZbdRegistry::default().with_device("fake", Box::new(dev.clone()));
    let p = Prepared::new_in(&spec, Some(&reg), &crate::workload::stop::Stop::new()).unwrap();
    let mut gen = p.take_gen();
    gen.zbd.as_mut().unwrap().pass_starts();
    let first = gen.next_io(None, 0).unwrap();
    assert_eq!(
        first.dir,
        Ddir::Write,
        "fio's first I/O of a mixed job on empty zones"
    );
}

#[test]
fn writes_stop_at_the_zone_capacity() {
    let dev = FakeZoned::new(8, MIB, 768 * KIB, 0);
    let d = drive(&job(&["--rw=write"]), &dev, 1).unwrap();
    assert_eq!(d.writes, 8 * 12);
    assert!(dev.state().zones.iter().all(|z| z.cond == ZoneCond::Full));
    let d = drive(
        &job(&["--rw=randwrite"]),
        &FakeZoned::new(8, MIB, 768 * KIB, 0),
        2,
    )
    .unwrap();
    assert_eq!(d.writes, 256);
}

#[test]
fn offline_zones_are_never_written() {
    let dev = FakeZoned::new(8, MIB, MIB, 0).with_zone(2, ZoneCond::Offline, 0);
    let d = drive(&job(&["--rw=write"]), &dev, 1).unwrap();
    assert_eq!(d.writes, 7 * 16);
    assert_eq!(dev.state().zones[2].wp, 2 * MIB);
}

#[test]
fn trims_reset_zones() {
    let full = |n| {
        (0..n).fold(FakeZoned::new(n, MIB, MIB, 0), |d, i| {
            d.with_zone(i, ZoneCond::Full, MIB)
        })
    };
    let dev = full(8);
    let d = drive(&job(&["--rw=trim", "--bs=1m"]), &dev, 1).unwrap();
    assert_eq!((d.trims, d.resets), (8, 8));
    assert_eq!(dev.state().resets, vec![1; 8]);
    assert!(dev.state().zones.iter().all(|z| z.cond == ZoneCond::Empty));
    // A trim must start its zone.
    let dev = full(8);
    let reg = ZbdRegistry::default().with_device("fake", Box::new(dev.clone()));
    let spec = job(&["--rw=trim", "--bs=1m"]);
    let p = Prepared::new_in(&spec, Some(&reg), &crate::workload::stop::Stop::new()).unwrap();
    let mut gen = p.take_gen();
    let z = gen.zbd.as_mut().unwrap();
    let e = z.trim(0, 4096).unwrap().unwrap_err();
    assert_eq!(
        e.lines,
        [(true, "Trim offset not at zone start (4096)\n".to_string())]
    );
    // Trims are whole zones.
    let e = drive(&job(&["--rw=trim"]), &full(8), 1).unwrap_err();
    assert_eq!(
        refusal(e).0,
        [(
            false,
            "fake: trim block size 65536 is not the zone size 1048576\n".to_string()
        )]
    );
}

#[test]
fn open_zones_past_the_limit_are_reset_when_the_job_is_set_up() {
    let dev = (0..4).fold(FakeZoned::new(8, MIB, MIB, 0), |d, i| {
        d.with_zone(i, ZoneCond::ImplicitOpen, 64 * KIB)
    });
    let reg = ZbdRegistry::default().with_device("fake", Box::new(dev.clone()));
    let spec = job(&["--rw=write", "--max_open_zones=2"]);
    let p = Prepared::new_in(&spec, Some(&reg), &crate::workload::stop::Stop::new()).unwrap();
    assert_eq!(dev.state().resets, [0, 0, 1, 1, 0, 0, 0, 0]);
    let t = reg.table("fake").unwrap();
    assert_eq!(t.lock().unwrap().open_list(), [0, 1]);
    let mut gen = p.take_gen();
    assert_eq!(gen.zbd.as_mut().unwrap().take_resets(), 2);
}

#[test]
fn the_zone_size_must_be_the_devices() {
    let dev = FakeZoned::new(8, MIB, MIB, 0);
    let e = drive(&job(&["--rw=write", "--zonesize=2m"]), &dev, 1).unwrap_err();
    assert_eq!(
        refusal(e),
        (
            vec![(
                true,
                "fio: fake job parameter zonesize 2097152 does not match disk zone size 1048576.\n"
                    .to_string()
            )],
            Some((
                libc::EINVAL,
                "file:zbd.c:985, func=zbd_create_zone_info() failed, error=Invalid argument"
                    .to_string()
            ))
        )
    );
}

#[test]
fn jobs_share_a_files_zones() {
    let dev = FakeZoned::new(8, MIB, MIB, 0);
    let reg = ZbdRegistry::default().with_device("fake", Box::new(dev.clone()));
    let w = drive_in(&job(&["--rw=write"]), &dev, 1, &reg, 48).unwrap();
    assert_eq!(w.writes, 48);
    // The reader sees the writer's write pointers.
    let r = drive_in(&job(&["--rw=read"]), &dev, 1, &reg, u64::MAX).unwrap();
    assert_eq!(r.reads, 48);
}

#[test]
fn a_conventional_write_stops_at_the_next_sequential_zone() {
    let dev = FakeZoned::new(8, MIB, MIB, 0).conventional(0);
    let reg = ZbdRegistry::default().with_device("fake", Box::new(dev.clone()));
    let spec = job(&["--rw=write", "--bs=192k"]);
    let p = Prepared::new_in(&spec, Some(&reg), &crate::workload::stop::Stop::new()).unwrap();
    let mut gen = p.take_gen();
    let mut ios = Vec::new();
    while let Some(io) = gen.next_io(None, 0) {
        if io.offset >= MIB {
            break;
        }
        ios.push((io.offset, io.len));
    }
    // 5 blocks, then one that would run into zone 1: fio moves it back
    // into zone 0 (to zone start + next zone start - offset: 64 KiB), and
    // the sequence goes on from there.
    let kib: Vec<u64> = ios
        .iter()
        .map(|(o, l)| {
            assert_eq!(*l, 192 * KIB);
            o / KIB
        })
        .collect();
    assert_eq!(kib, [0, 192, 384, 576, 768, 64, 256, 448, 640, 832]);
}

#[test]
fn emulated_zones_and_fios_refusals() {
    let t = ZoneTable::emulated("f", 3 * MIB + 1, MIB, 0, Box::new(Emulated)).unwrap();
    assert_eq!(t.nr_zones(), 4);
    assert_eq!(
        (t.zone_idx(0), t.zone_idx(MIB), t.zone_idx(9 * MIB)),
        (0, 1, 4)
    );
    assert_eq!(t.zone(4).start, 4 * MIB, "the sentinel");
    assert!(!t.zone(4).has_wp && t.zone(3).has_wp);
    let refused = |size, zs, cap| {
        ZoneTable::emulated("f", size, zs, cap, Box::new(Emulated))
            .unwrap_err()
            .lines
    };
    assert_eq!(
        refused(MIB, 0, 0),
        [(true, "f: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd\n\n".to_string())]
    );
    assert_eq!(
        refused(MIB, 256, 0),
        [(
            true,
            "f: zone size must be at least 512 bytes for --zonemode=zbd\n\n".to_string()
        )]
    );
    assert_eq!(
        refused(MIB, 4096, 8192),
        [(
            true,
            "f: job parameter zonecapacity 8192 is larger than zone size 4096\n".to_string()
        )]
    );
    let e = ZoneTable::emulated("f", 0, MIB, 0, Box::new(Emulated)).unwrap_err();
    assert_eq!(
        e.lines[0].1,
        "f: file/device size 0 is smaller than zone size 1048576\n"
    );
    assert_eq!(e.error.unwrap().0, libc::EINVAL);
}

#[test]
fn open_zones_close_as_fios_list_does() {
    let mut t = ZoneTable::emulated("f", 8 * MIB, MIB, 0, Box::new(Emulated)).unwrap();
    t.max_open_zones = 3;
    let mut job = JobZones::default();
    for z in [5, 2, 7] {
        assert!(t.open_zone(&mut job, z, 0, None));
    }
    assert!(!t.open_zone(&mut job, 1, 0, None), "the limit");
    assert!(!t.open_zone(&mut job, 1, 0, None));
    t.close_zone(&mut job, 5);
    assert_eq!((t.open_list(), job.open), (&[2, 7][..], 2));
    // The slots past the list move down with it (fio's memmove).
    assert_eq!(t.open_slot(2), 0);
    assert!(!t.open_zone(&mut job, 1, 2, None), "the job's limit");
    assert!(t.open_zone(&mut job, 1, 3, None));
    assert_eq!(MAX_OPEN_ZONES, 4096);
}

#[test]
fn the_periodic_reset_counts_writes() {
    let mut t = ZoneTable::emulated("f", 8 * MIB, MIB, 0, Box::new(Emulated)).unwrap();
    t.reset_write_cnt(0.3);
    assert_eq!(t.write_cnt, 3);
    assert!(!t.count_write(0.3) && !t.count_write(0.3));
    assert!(t.count_write(0.3), "every third write");
    assert_eq!(t.write_cnt, 3);
    t.reset_write_cnt(0.0);
    assert_eq!(t.write_cnt, u32::MAX);
}

/// [`job`] as fio `release` runs it.
fn job_as(release: &str, args: &[&str]) -> JobSpec {
    let mut argv = vec![
        "--name=z",
        "--ioengine=null",
        "--filename=fake",
        "--zonemode=zbd",
        "--size=8m",
        "--bs=64k",
    ];
    argv.extend_from_slice(args);
    testing::job_as(release, &argv)
}

/// Zones of 96 KiB hold one 64 KiB write and 32 KiB of room: fio 3.33
/// finds the zone full at the next write, resets it and writes it again
/// (every write in zone 0, 12 of them for the 768 KiB); from 3.34 the
/// zone is finished on the device and the write goes to the next one, one
/// write a zone, the job done at the last.
#[test]
fn a_zone_with_room_for_less_than_a_block_is_finished_from_3_34() {
    let dev = FakeZoned::new(8, 96 * KIB, 96 * KIB, 0);
    let reg = ZbdRegistry::default().with_device("fake", Box::new(dev.clone()));
    let spec = job_as("3.33", &["--rw=write", "--size=768k"]);
    // 3.33 never runs out of offsets (each write lands at 0): the loop's
    // byte count ends it, after 12.
    let d = drive_in(&spec, &dev, 1, &reg, 12).unwrap();
    assert_eq!((d.writes, d.resets), (12, 11));
    let s = dev.state();
    assert!(s.zones.iter().all(|z| z.cond != ZoneCond::Full));
    assert_eq!(s.zones[0].wp, 64 * KIB);
    assert_eq!(s.resets[0], 11);
    drop(s);
    for release in ["3.34", "3.42"] {
        let dev = FakeZoned::new(8, 96 * KIB, 96 * KIB, 0);
        let spec = job_as(release, &["--rw=write", "--size=768k"]);
        let d = drive(&spec, &dev, 1).unwrap();
        assert_eq!((d.writes, d.resets), (8, 0), "{release}");
        let s = dev.state();
        assert!(
            s.zones.iter().all(|z| z.cond == ZoneCond::Full),
            "{release}: every zone finished"
        );
        assert_eq!(s.written, 8 * 64 * KIB, "{release}");
    }
}

/// With verification, fio 3.33 refuses a block size that does not divide
/// the zone size; 3.34 on run it.
#[test]
fn verify_takes_any_block_size_from_3_34() {
    let args = ["--rw=write", "--size=768k", "--verify=crc32c"];
    let dev = FakeZoned::new(8, 96 * KIB, 96 * KIB, 0);
    let reg = ZbdRegistry::default().with_device("fake", Box::new(dev.clone()));
    let e = Prepared::new_in(&job_as("3.33", &args), Some(&reg), &Default::default())
        .err()
        .expect("3.33 refuses");
    let (lines, _) = refusal(e);
    assert_eq!(
        lines,
        [(
            false,
            "fake: block size 65536 is not a divisor of the zone size 98304\n".to_string()
        )]
    );
    let d = drive(&job_as("3.34", &args), &dev, 1).unwrap();
    assert_eq!(d.writes, 8);
}

/// The directions of a mixed job's first 16 I/Os (`r`, `w`) on zones of
/// which zone 0 holds another job's data.
fn mixed_dirs(release: &str, mix: &str) -> String {
    let dev = FakeZoned::new(8, MIB, MIB, 0).with_zone(0, ZoneCond::Closed, MIB);
    let spec = job_as(release, &["--rw=randrw", mix]);
    let reg = ZbdRegistry::default().with_device("fake", Box::new(dev.clone()));
    let p = Prepared::new_in(&spec, Some(&reg), &Default::default()).unwrap();
    let mut gen = p.take_gen();
    gen.zbd.as_mut().unwrap().pass_starts();
    let mut dirs = String::new();
    for _ in 0..16 {
        let io = gen.next_io(None, 0).expect("an I/O");
        dirs.push(if io.dir == Ddir::Read { 'r' } else { 'w' });
        let z = gen.zbd.as_mut().unwrap();
        z.completed(io.file, io.dir, io.offset, io.len);
    }
    dirs
}

/// A mixed job on zones holding another job's data: fio 3.33 reads from
/// its first I/O; from 3.34 a read before the job's own first write is a
/// write; from 3.37 a job without a write share (`rwmixwrite=0`) reads
/// anyway (3.34 to 3.36 write once first).
#[test]
fn a_mixed_job_reads_after_its_own_write_from_3_34() {
    let reads = "r".repeat(16);
    assert_eq!(mixed_dirs("3.33", "--rwmixread=100"), reads);
    let first_written = format!("w{}", "r".repeat(15));
    assert_eq!(mixed_dirs("3.34", "--rwmixread=100"), first_written);
    assert_eq!(mixed_dirs("3.36", "--rwmixread=100"), first_written);
    assert_eq!(mixed_dirs("3.37", "--rwmixread=100"), reads);
    assert_eq!(mixed_dirs("3.42", "--rwmixread=100"), reads);
    // With a write share, the first read is the job's first write, then
    // the mix goes on.
    let (old, new) = (
        mixed_dirs("3.33", "--rwmixread=90"),
        mixed_dirs("3.42", "--rwmixread=90"),
    );
    assert!(old.starts_with('r'), "{old}");
    assert!(new.starts_with('w') && new.contains('r'), "{new}");
}
