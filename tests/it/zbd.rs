//! Zoned block devices (`zonemode=zbd`) as fio 3.33 runs them where no
//! zoned device exists: zones emulated on regular files, the null engine's
//! diskless files and (as root) a loop device. Each case runs real fio and
//! rfio on the same job and compares what fio prints: I/O counts, the
//! `N zone resets` of the write line, the notes on regions rounded to
//! zones, the refusals and exit statuses. The loop device also tries the
//! ioctl layer: a device without zones has model `none` and refuses zone
//! operations.
//!
//! The comparisons need real fio 3.33 and fail, never skip, without it.

use crate::common;

use std::process::Output;

use common::{real_fio, run_in, stderr, stdout, TempDir, RFIO};
use rfio::api::{BlkZoned, Model, Zone, ZonedDevice};

/// What is compared of a normal-format run in `dir` (written `@DIR`):
/// the exit status, each job's read/write line from its `(` on (bytes
/// and, for writes, the zone resets; the rates are timings), its `issued
/// rwts` line, the lines about the file (some refusals fio prints on
/// stdout, rfio on stderr: from both), the `fio: pid=` lines, and the rest
/// of stderr.
fn summary(o: &Output, dir: &TempDir) -> (Option<i32>, Vec<String>, Vec<String>) {
    let at = dir.0.display().to_string();
    let mut lines = Vec::new();
    for l in stdout(o).lines() {
        let t = l.trim_start();
        if t.starts_with("read:") || t.starts_with("write:") || t.starts_with("trim:") {
            let name = t.split(':').next().unwrap_or("");
            let bytes = t
                .split_once(")(")
                .and_then(|(_, r)| r.split('/').next())
                .unwrap_or("");
            let resets = t
                .rsplit_once(';')
                .map_or(String::new(), |r| format!(";{}", r.1));
            lines.push(format!("{name} ({bytes}){resets}"));
        } else if t.starts_with("issued rwts") || t.starts_with(&at) {
            lines.push(t.replace(&at, "@DIR"));
        }
    }
    // fio's `fio: pid=N, err=...` line (on stdout in fio, stderr in rfio),
    // last, without its pid.
    let (out, err) = (stdout(o), stderr(o));
    let failed = out
        .lines()
        .chain(err.lines())
        .filter(|l| l.starts_with("fio: pid="));
    lines.extend(failed.map(|l| l.split_once(", ").map_or(l, |p| p.1).to_string()));
    // The lines about the file, from either stream (fio prints some on
    // stdout that rfio prints on stderr), then the rest of stderr.
    let (about_file, err): (Vec<String>, Vec<String>) = err
        .lines()
        .filter(|l| !l.starts_with("fio: pid="))
        .map(|l| l.replace(&at, "@DIR"))
        .partition(|l| l.starts_with("@DIR"));
    lines.extend(about_file);
    (o.status.code(), lines, err)
}

/// Run `args` with fio and rfio, each in its own copy of `setup`'s
/// directory; both summaries.
fn both(
    tag: &str,
    setup: impl Fn(&TempDir),
    args: &[&str],
) -> [(Option<i32>, Vec<String>, Vec<String>); 2] {
    let fio = real_fio();
    [fio, RFIO].map(|bin| {
        let dir = TempDir::new(tag);
        setup(&dir);
        let args: Vec<String> = args
            .iter()
            .map(|a| a.replace("@DIR", &dir.0.display().to_string()))
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        summary(&run_in(bin, &dir, &args), &dir)
    })
}

/// A file of `size` bytes named `f` in the directory.
fn file_of(size: u64) -> impl Fn(&TempDir) {
    move |d: &TempDir| {
        let f = std::fs::File::create(d.file("f")).unwrap();
        f.set_len(size).unwrap();
    }
}

fn same_as_fio(tag: &str, size: u64, args: &[&str]) -> Vec<String> {
    let [f, r] = both(tag, file_of(size), args);
    assert_eq!(r, f, "{args:?}");
    r.1
}

const FILE_JOB: [&str; 6] = [
    "--name=z",
    "--ioengine=psync",
    "--filename=@DIR/f",
    "--zonemode=zbd",
    "--size=4m",
    "--bs=64k",
];

fn file_job(extra: &[&str]) -> Vec<&'static str> {
    let mut v = FILE_JOB.to_vec();
    v.extend(
        extra
            .iter()
            .map(|s| &*Box::leak(s.to_string().into_boxed_str())),
    );
    v
}

#[test]
fn writes_and_zone_resets_match_fio_on_a_file() {
    // Sequential writes fill the zones; the next loops find them full and
    // reset them first (4 resets per loop after the first).
    let s = same_as_fio(
        "zbd-loops",
        4 << 20,
        &file_job(&["--zonesize=1m", "--rw=write", "--loops=3"]),
    );
    assert_eq!(s[0], "write (12.0MiB); 8 zone resets");
    // Random writes at the write pointers of the zones drawn.
    let s = same_as_fio(
        "zbd-rand",
        4 << 20,
        &file_job(&["--zonesize=1m", "--rw=randwrite", "--io_size=40m"]),
    );
    assert_eq!(s[0], "write (40.0MiB); 36 zone resets");
    // A zone too small for a second write: reset before each write.
    let s = same_as_fio(
        "zbd-small",
        4 << 20,
        &file_job(&["--zonesize=96k", "--rw=write"]),
    );
    assert!(
        s[0].ends_with("rounded down io_size from 4194304 to 4128768"),
        "{s:?}"
    );
    assert_eq!(s[1], "write (4096KiB); 63 zone resets");
}

#[test]
fn limits_capacity_and_periodic_resets_match_fio() {
    for (extra, resets) in [
        (&["--max_open_zones=2"][..], "37 zone resets"),
        (
            &["--max_open_zones=2", "--job_max_open_zones=1"][..],
            "37 zone resets",
        ),
        (&["--zonecapacity=768k"][..], ""),
        (
            &["--zone_reset_threshold=0.5", "--zone_reset_frequency=0.1"][..],
            "46 zone resets",
        ),
    ] {
        let mut args = vec![
            "--name=z",
            "--ioengine=null",
            "--size=4m",
            "--bs=64k",
            "--zonemode=zbd",
            "--zonesize=1m",
            "--rw=randwrite",
            "--io_size=40m",
        ];
        args.extend_from_slice(extra);
        let s = same_as_fio("zbd-null", 0, &args);
        assert!(s[0].ends_with(resets), "{extra:?}: {s:?}");
    }
}

#[test]
fn reads_and_mixes_match_fio() {
    // On empty zones nothing is read; past the write pointers all is.
    let s = same_as_fio(
        "zbd-read",
        4 << 20,
        &file_job(&["--zonesize=1m", "--rw=read"]),
    );
    assert!(s.is_empty(), "{s:?}");
    let s = same_as_fio(
        "zbd-beyond",
        4 << 20,
        &file_job(&["--zonesize=1m", "--rw=read", "--read_beyond_wp=1"]),
    );
    assert_eq!(s[0], "read (4096KiB)");
    // A sequential mix writes first, then reads that write, then finds
    // nothing more to read.
    let s = same_as_fio("zbd-rw", 4 << 20, &file_job(&["--zonesize=1m", "--rw=rw"]));
    assert_eq!(
        s[2],
        "issued rwts: total=1,1,0,0 short=0,0,0,0 dropped=0,0,0,0"
    );
    same_as_fio(
        "zbd-randrw",
        4 << 20,
        &file_job(&["--zonesize=1m", "--rw=randrw"]),
    );
}

#[test]
fn a_region_inside_a_zone_is_rounded_as_fio_rounds_it() {
    let s = same_as_fio(
        "zbd-round",
        4 << 20,
        &file_job(&["--zonesize=1m", "--rw=write", "--offset=100k"]),
    );
    assert!(
        s[0].ends_with(": rounded up offset from 102400 to 1048576"),
        "{s:?}"
    );
    assert!(s[1].ends_with(": rounded down io_size from 3248128 to 3145728"));
    assert_eq!(s[2], "write (3072KiB); 0 zone resets");
    // Too small for a zone once rounded: the job fails (exit 1).
    let [f, r] = both(
        "zbd-tiny",
        file_of(4 << 20),
        &file_job(&["--zonesize=1m", "--rw=write", "--offset=100k", "--size=1m"]),
    );
    assert_eq!(r, f);
    assert_eq!(r.0, Some(1));
    assert!(
        r.1[1].ends_with(": io_size must be at least one zone"),
        "{r:?}"
    );
    // With a JSON report rfio keeps its stdout for the report: the notes
    // go with the normal output only.
    let dir = TempDir::new("zbd-round-json");
    file_of(4 << 20)(&dir);
    let mut args = file_job(&["--zonesize=1m", "--rw=write", "--offset=100k"]);
    let f = format!("--filename={}", dir.file("f").display());
    args[2] = &f;
    args.push("--output-format=json");
    let o = run_in(RFIO, &dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with('{'), "{}", stdout(&o));
    assert!(!stdout(&o).contains("rounded"), "{}", stdout(&o));
}

#[test]
fn refusals_match_fio() {
    for (size, extra, text) in [
        (
            4 << 20,
            &["--rw=write"][..],
            "Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd",
        ),
        (4 << 20, &["--rw=write", "--zonesize=256"][..], "zone size must be at least 512 bytes"),
        (
            4 << 20,
            &["--rw=write", "--zonesize=1m", "--zonecapacity=2m"][..],
            "job parameter zonecapacity 2097152 is larger than zone size 1048576",
        ),
        (0, &["--rw=write", "--zonesize=1m"][..], "file/device size 0 is smaller than zone size 1048576"),
        (
            4 << 20,
            // Fails at the first write: "fio: pid=N, err=22/file:zbd.c:1937,
            // func=I/O buflen exceeds zone size, error=Invalid argument".
            &["--rw=write", "--bs=128k", "--zonesize=64k"][..],
            "err=22/file:zbd.c:1937, func=I/O buflen exceeds zone size, error=Invalid argument",
        ),
        (
            4 << 20,
            &["--rw=write", "--zonesize=1m", "--zoneskip=100k"][..],
            "zoneskip 102400 is not a multiple of the device zone size 1048576.",
        ),
        (
            4 << 20,
            &["--rw=write", "--zonesize=1m", "--verify=crc32c", "--bs=48k"][..],
            "@DIR/f: block size 49152 is not a divisor of the zone size 1048576",
        ),
    ] {
        let [f, r] = both("zbd-refused", file_of(size), &file_job(extra));
        assert_eq!(r, f, "{extra:?}");
        assert_eq!(r.0, Some(1), "{extra:?}");
        let all = r.1.iter().chain(&r.2);
        assert!(all.clone().any(|l| l.contains(text)), "{extra:?}: {r:?}");
    }
}

/// A job that fails its zone set-up without an error code still counts in
/// the exit status, and the other jobs run (fio's `exit_value++`).
#[test]
fn a_refused_job_fails_the_run_and_the_others_run() {
    let dir = TempDir::new("zbd-others");
    file_of(1 << 20)(&dir);
    let f = format!("--filename={}", dir.file("f").display());
    let args = [
        "--name=zbd",
        "--ioengine=psync",
        &f,
        "--size=1m",
        "--zonemode=zbd",
        "--rw=write",
        "--output-format=json",
        "--name=plain",
        "--ioengine=null",
        "--size=1m",
    ];
    let o = run_in(RFIO, &dir, &args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["jobs"][0]["error"], 0);
    assert_eq!(v["jobs"][1]["read"]["total_ios"], 256);
}

/// Root can make a loop device: a block device without zones, where fio
/// emulates zones as on a file. The device's zone operations fail (no
/// zones), its model is `none`.
#[test]
fn a_loop_device_emulates_zones_as_fio_does() {
    let dir = TempDir::new("zbd-loop");
    let Some(loop_dev) = common::need("loop", common::LoopDevice::new(&dir, 8 << 20)) else {
        return;
    };
    let dev = loop_dev.0.clone();
    let filename = format!("--filename={dev}");
    let base = [
        "--name=z",
        "--ioengine=psync",
        &filename,
        "--zonemode=zbd",
        "--bs=64k",
    ];
    let run = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let fio = summary(&run_in(real_fio(), &dir, &args), &dir);
        let rfio = summary(&run_in(RFIO, &dir, &args), &dir);
        assert_eq!(rfio, fio, "{extra:?}");
        rfio
    };
    let s = run(&["--rw=randwrite", "--zonesize=1m", "--io_size=20m"]);
    assert_eq!(s.1[0], "write (20.0MiB); 16 zone resets");
    let s = run(&["--rw=write"]);
    assert_eq!(s.0, Some(1));
    assert_eq!(
        s.2[0],
        format!("{dev}: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd")
    );
    // The ioctl layer on a device without zones.
    let meta = std::fs::metadata(&dev).unwrap();
    let mut z = BlkZoned::new(std::path::Path::new(&dev), &meta);
    assert_eq!(z.model(), Model::None);
    assert_eq!(z.max_open_zones(), Ok(0));
    let mut buf = [Zone::empty(0, 0, 0); 4];
    assert!(z.report_zones(0, &mut buf).is_err(), "no zones to report");
    assert!(z.reset_zones(0, 1 << 20).is_err());
    assert!(z.open_zones(0, 1 << 20).is_err());
    assert!(z.close_zones(0, 1 << 20).is_err());
    assert!(z.finish_zones(0, 1 << 20).is_err());
}
