//! The lint rules: each looks at one job of the plan (and the machine,
//! through [`Host`]) and says what misleads in its results.

use std::path::Path;

use super::{Finding, FsInfo, Host};
use crate::diag::Span;
use crate::options::Value;
use crate::plan::JobSpec;

/// Every rule, with what it finds (`--lint`'s documentation).
pub(crate) const RULES: &[(&str, &str)] = &[
    ("buffered-io", "direct=0 on files smaller than twice RAM"),
    (
        "async-without-direct",
        "libaio, posixaio or io_uring without direct=1",
    ),
    ("sync-engine-depth", "iodepth > 1 with a synchronous engine"),
    ("zero-buffers", "writes of zeroes or of unvaried buffers"),
    ("tmpfs-target", "the target is on tmpfs"),
    (
        "root-fs-target",
        "the target is on the file system holding /",
    ),
    (
        "no-room",
        "the file system lacks room for the job's size + 10%",
    ),
    ("raw-device-write", "writes to a block device"),
    (
        "no-ramp-random-write",
        "time_based random writes without ramp_time",
    ),
    (
        "gtod-reduce-percentiles",
        "gtod_reduce=1 with percentiles asked",
    ),
    (
        "rwmix-default",
        "a mixed workload with rwmixread left at 50",
    ),
    (
        "short-runtime-log-avg",
        "runtime shorter than 2x log_avg_msec",
    ),
    (
        "direct-bs-alignment",
        "direct=1 with bs not a multiple of the logical block size",
    ),
    (
        "depth-over-nr-requests",
        "numjobs x iodepth above the device's nr_requests",
    ),
];

/// `statfs` `f_type` of tmpfs.
const TMPFS_MAGIC: i64 = 0x0102_1994;

/// The findings of one job.
pub(crate) fn check(job: &JobSpec, host: &dyn Host) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut add = |rule: &'static str, span: Span, message: String, fix: &str| {
        out.push(Finding {
            rule,
            job: job.name.clone(),
            span,
            message,
            fix: fix.to_string(),
        })
    };
    let caps = crate::plan::engine::caps(job);
    let is_sync = caps.as_ref().is_some_and(|c| c.is_sync);
    let file_job = caps
        .as_ref()
        .is_some_and(|c| c.needs_files && !c.fake_io && !c.no_io && !c.file_op);
    let size = job_size(job);
    let blockdev = job.files.iter().any(|f| host.is_block_device(&f.path));
    let fs: Vec<(&Path, FsInfo)> = match file_job {
        true => job
            .files
            .iter()
            .filter_map(|f| host.fs(&f.path).map(|i| (f.path.as_path(), i)))
            .collect(),
        false => Vec::new(),
    };

    // 1. buffered-io
    if file_job && !job.direct {
        // Without a size, the job works on the existing files whole.
        let data = size.or_else(|| existing_len(job).filter(|&n| n > 0));
        if let (Some(size), Some(mem)) = (data, host.mem_total()) {
            if size < mem.saturating_mul(2) {
                add(
                    "buffered-io",
                    at(job, &["direct", "buffered"]),
                    format!(
                        "direct=0 on {} of data, less than twice RAM ({}): the page cache \
                         serves the I/O and the results measure memory, not the device",
                        human(size),
                        human(mem)
                    ),
                    "set direct=1, or a size of at least twice RAM",
                );
            }
        }
    }
    // 2. async-without-direct
    let engine = job.ioengine.as_str();
    if !job.direct && matches!(engine, "libaio" | "posixaio" | "io_uring") {
        let why = match engine {
            "io_uring" => {
                "io_uring on buffered files is served from the page cache or by kernel \
                 worker threads: iodepth does not queue I/O at the device"
            }
            _ => {
                "asynchronous I/O on buffered files runs synchronously in the kernel: \
                 the submit blocks and iodepth queues nothing"
            }
        };
        add(
            "async-without-direct",
            at(job, &["ioengine"]),
            format!("ioengine={engine} without direct=1: {why}"),
            "set direct=1",
        );
    }
    // 3. sync-engine-depth
    if is_sync && job.iodepth > 1 {
        add(
            "sync-engine-depth",
            at(job, &["iodepth"]),
            format!(
                "iodepth={} with the synchronous engine {engine}: each I/O completes before \
                 the next is issued, so the depth is 1 whatever it says",
                job.iodepth
            ),
            "use an asynchronous engine (libaio, io_uring) with direct=1, or iodepth=1",
        );
    }
    // 4. zero-buffers
    if job.pattern.write && !caps.as_ref().is_some_and(|c| c.fake_io || c.no_io) {
        let b = &job.buffers;
        if b.zero {
            add(
                "zero-buffers",
                at(job, &["zero_buffers"]),
                "zero_buffers=1 writes zeroes: a compressing or deduplicating device \
                 stores nothing and reports speeds no real data gets"
                    .into(),
                "remove zero_buffers (or set refill_buffers=1)",
            );
        } else if !b.scramble && !b.refill && b.compress_perc == 0 && b.dedupe_perc == 0 {
            add(
                "zero-buffers",
                at(job, &["scramble_buffers", "buffer_pattern"]),
                "writes reuse the same buffer contents (scramble_buffers=0, no \
                 refill_buffers): a deduplicating device stores one copy"
                    .into(),
                "set refill_buffers=1, or keep scramble_buffers=1",
            );
        }
    }
    // 5. tmpfs-target / root-fs-target (a block device's node lives on
    // devtmpfs, its I/O goes to the device)
    if let Some((path, _)) = fs
        .iter()
        .find(|(p, i)| i.fs_type == TMPFS_MAGIC && !host.is_block_device(p))
    {
        add(
            "tmpfs-target",
            at(job, &["filename", "directory"]),
            format!(
                "{} is on tmpfs: the I/O goes to RAM, no device is measured",
                path.display()
            ),
            "point filename/directory at the file system of the device to test",
        );
    } else if let Some((path, _)) = fs
        .iter()
        .find(|(p, i)| i.is_root && !host.is_block_device(p))
    {
        add(
            "root-fs-target",
            at(job, &["filename", "directory"]),
            format!(
                "{} is on the file system that holds /: the system's own I/O shares the \
                 device and disturbs the results (and filling it harms the system)",
                path.display()
            ),
            "point filename/directory at a dedicated file system or device",
        );
    }
    // 6. no-room
    if let (Some(size), Some((path, info))) = (size, fs.first()) {
        if !blockdev {
            let existing = existing_len(job).unwrap_or(0);
            let need = size.saturating_add(size / 10);
            if info.avail.saturating_add(existing) < need {
                add(
                    "no-room",
                    at(job, &["size", "filesize"]),
                    format!(
                        "the job needs {} (+10% headroom) on the file system of {}, which \
                         has {} free: the layout or the writes fail with ENOSPC part way",
                        human(size),
                        path.display(),
                        human(info.avail)
                    ),
                    "free space, lower size, or use another file system",
                );
            }
        }
    }
    // 7. raw-device-write
    if job.pattern.writes() {
        if let Some(f) = job.files.iter().find(|f| host.is_block_device(&f.path)) {
            add(
                "raw-device-write",
                at(job, &["filename", "rw"]),
                format!(
                    "rw={} writes to the block device {}: whatever is on it (a file \
                     system, a partition table) is destroyed",
                    job.pattern.name(),
                    f.path.display()
                ),
                "make sure the device holds nothing you need, then add `# rfio: allow \
                 raw-device-write`",
            );
        }
    }
    // 8. no-ramp-random-write
    if job.time_based
        && !job.time_based_dropped
        && job.pattern.random
        && job.pattern.write
        && job.ramp_time_us == 0
    {
        add(
            "no-ramp-random-write",
            at(job, &["time_based"]),
            "time_based random writes without ramp_time: the first seconds run at the \
             device's fresh (cache, empty-FTL) speed and inflate the average"
                .into(),
            "set ramp_time (e.g. ramp_time=30s), or precondition the device",
        );
    }
    // 9. gtod-reduce-percentiles
    if truthy(job, "gtod_reduce") {
        let asked = ["clat_percentiles", "lat_percentiles", "percentile_list"]
            .into_iter()
            .find(|n| job.options.get(n).is_some() && (truthy(job, n) || *n == "percentile_list"));
        if let Some(name) = asked {
            add(
                "gtod-reduce-percentiles",
                at(job, &["gtod_reduce"]),
                format!(
                    "gtod_reduce=1 turns latency measurement off, but {name} asks for \
                     latency percentiles: they come out empty or from a partial measurement"
                ),
                "remove gtod_reduce, or the percentile options",
            );
        }
    }
    // 10. rwmix-default
    if job.pattern.read
        && job.pattern.write
        && job.options.get("rwmixread").is_none()
        && job.options.get("rwmixwrite").is_none()
    {
        add(
            "rwmix-default",
            at(job, &["rw", "readwrite"]),
            format!(
                "rw={} with rwmixread left at its default of 50: a 50/50 mix is rarely \
                 the workload meant, and the default hides the choice",
                job.pattern.name()
            ),
            "set rwmixread (e.g. rwmixread=70) to the mix you mean",
        );
    }
    // 11. short-runtime-log-avg
    let log_avg_ms = job.options.value("log_avg_msec").and_then(num).unwrap_or(0);
    if log_avg_ms > 0 && job.runtime_us > 0 && job.runtime_us < 2 * log_avg_ms * 1000 {
        add(
            "short-runtime-log-avg",
            at(job, &["runtime"]),
            format!(
                "runtime ({} ms) is shorter than twice log_avg_msec ({log_avg_ms} ms): the \
                 logs hold one or no averaged sample",
                job.runtime_us / 1000
            ),
            "raise runtime, or lower log_avg_msec",
        );
    }
    // 12. direct-bs-alignment
    if job.direct && file_job {
        let lbs = fs.iter().find_map(|(_, i)| i.logical_block).unwrap_or(512);
        let dirs = [job.pattern.read, job.pattern.write, job.pattern.trim];
        let odd = job
            .bs
            .iter()
            .zip(dirs)
            .filter(|(_, on)| *on)
            .flat_map(|((lo, hi), _)| [*lo, *hi])
            .find(|b| lbs > 0 && b % lbs != 0);
        if let Some(bs) = odd {
            add(
                "direct-bs-alignment",
                at(job, &["bs", "blocksize", "bsrange", "bssplit"]),
                format!(
                    "direct=1 with a block size of {bs} bytes, not a multiple of the \
                     device's logical block size ({lbs}): the I/O fails with EINVAL"
                ),
                "use a bs that is a multiple of the logical block size",
            );
        }
    }
    // 13. depth-over-nr-requests
    let numjobs = job
        .options
        .value("numjobs")
        .and_then(num)
        .unwrap_or(1)
        .max(1);
    let depth = if is_sync { 1 } else { u64::from(job.iodepth) };
    if let Some(nr) = fs.iter().find_map(|(_, i)| i.nr_requests) {
        if numjobs * depth > nr {
            add(
                "depth-over-nr-requests",
                at(job, &["iodepth", "numjobs"]),
                format!(
                    "numjobs x iodepth = {} is above the device's nr_requests ({nr}): the \
                     excess waits in the block layer and adds latency the device never sees",
                    numjobs * depth
                ),
                "lower numjobs or iodepth, or raise the queue's nr_requests",
            );
        }
    }
    out
}

/// The job's bytes over all its files, when known.
fn job_size(job: &JobSpec) -> Option<u64> {
    job.size.or_else(|| {
        let sizes: Option<Vec<u64>> = job.files.iter().map(|f| f.size).collect();
        sizes.map(|s| s.iter().sum()).filter(|&s| s > 0)
    })
}

/// The bytes of the job's files that exist (regular files only).
fn existing_len(job: &JobSpec) -> Option<u64> {
    let lens = job
        .files
        .iter()
        .filter_map(|f| std::fs::metadata(&f.path).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len());
    lens.reduce(|a, b| a.saturating_add(b))
}

/// The span of the first of `names` set for the job, else the job's.
fn at(job: &JobSpec, names: &[&str]) -> Span {
    names
        .iter()
        .find_map(|n| job.options.get(n).map(|s| s.span.clone()))
        .unwrap_or_else(|| job.span.clone())
}

fn truthy(job: &JobSpec, name: &str) -> bool {
    job.options
        .value(name)
        .and_then(num)
        .is_some_and(|v| v != 0)
}

fn num(v: &Value) -> Option<u64> {
    match v {
        Value::Bool(b) => Some(u64::from(*b)),
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::Bytes(b) | Value::Micros(b) => Some(*b),
        _ => None,
    }
}

/// A size in fio's binary units (`4.0 GiB`).
fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    match u {
        0 => format!("{bytes} B"),
        _ => format!("{v:.1} {}", UNITS[u]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::testing::plan;

    /// A machine with 16 GiB, the targets on an ext4 that is not `/`.
    struct Fake {
        fs: FsInfo,
        block: bool,
    }

    impl Default for Fake {
        fn default() -> Fake {
            Fake {
                fs: FsInfo {
                    fs_type: 0xef53,
                    is_root: false,
                    avail: 1 << 40,
                    logical_block: Some(4096),
                    nr_requests: Some(64),
                },
                block: false,
            }
        }
    }

    impl Host for Fake {
        fn mem_total(&self) -> Option<u64> {
            Some(16 << 30)
        }
        fn fs(&self, _: &Path) -> Option<FsInfo> {
            Some(self.fs)
        }
        fn is_block_device(&self, _: &Path) -> bool {
            self.block
        }
    }

    /// The rules found for the job of `args` (after a `--name=j`).
    fn rules_on(host: &Fake, args: &[&str]) -> Vec<&'static str> {
        let mut argv = vec!["--name=j", "--filename=/x/f"];
        argv.extend_from_slice(args);
        let p = plan(&argv);
        check(&p.jobs[0], host).iter().map(|f| f.rule).collect()
    }

    const CLEAN: &[&str] = &[
        "--ioengine=libaio",
        "--direct=1",
        "--iodepth=8",
        "--rw=randread",
        "--size=64g",
        "--bs=4k",
    ];

    #[test]
    fn a_well_set_job_has_no_finding() {
        assert_eq!(rules_on(&Fake::default(), CLEAN), Vec::<&str>::new());
    }

    fn with(extra: &[&str]) -> Vec<&'static str> {
        with_host(&Fake::default(), extra)
    }

    fn with_host(host: &Fake, extra: &[&str]) -> Vec<&'static str> {
        let mut args = CLEAN.to_vec();
        args.extend_from_slice(extra);
        rules_on(host, &args)
    }

    #[test]
    fn buffered_small_files_measure_the_page_cache() {
        assert_eq!(
            with(&["--ioengine=psync", "--iodepth=1", "--direct=0", "--size=1g"]),
            ["buffered-io"]
        );
        // Twice RAM or more: the device is reached.
        assert_eq!(
            with(&[
                "--ioengine=psync",
                "--iodepth=1",
                "--direct=0",
                "--size=32g"
            ]),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn async_engines_need_direct() {
        assert_eq!(with(&["--direct=0"]), ["async-without-direct"]);
        assert_eq!(
            with(&["--ioengine=io_uring", "--direct=0"]),
            ["async-without-direct"]
        );
    }

    #[test]
    fn sync_engines_ignore_the_depth() {
        assert_eq!(with(&["--ioengine=psync"]), ["sync-engine-depth"]);
        assert_eq!(
            with(&["--ioengine=psync", "--iodepth=1"]),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn zeroes_and_unvaried_buffers() {
        assert_eq!(
            with(&["--rw=randrw", "--rwmixread=70", "--zero_buffers=1"]),
            ["zero-buffers"]
        );
        assert_eq!(
            with(&["--rw=write", "--scramble_buffers=0"]),
            ["zero-buffers"]
        );
        assert_eq!(
            with(&["--rw=write", "--scramble_buffers=0", "--refill_buffers=1"]),
            Vec::<&str>::new()
        );
        // Reads write no buffer.
        assert_eq!(with(&["--zero_buffers=1"]), Vec::<&str>::new());
    }

    #[test]
    fn tmpfs_and_root_targets() {
        let mut host = Fake::default();
        host.fs.fs_type = TMPFS_MAGIC;
        assert_eq!(with_host(&host, &[]), ["tmpfs-target"]);
        let mut host = Fake::default();
        host.fs.is_root = true;
        assert_eq!(with_host(&host, &[]), ["root-fs-target"]);
    }

    #[test]
    fn no_room_counts_ten_percent_headroom() {
        let mut host = Fake::default();
        host.fs.avail = 70 << 30;
        assert_eq!(with_host(&host, &[]), ["no-room"]);
        host.fs.avail = 71 << 30;
        assert_eq!(with_host(&host, &[]), Vec::<&str>::new());
    }

    #[test]
    fn writes_to_a_block_device() {
        let host = Fake {
            block: true,
            ..Fake::default()
        };
        assert_eq!(with_host(&host, &["--rw=randwrite"]), ["raw-device-write"]);
        assert_eq!(with_host(&host, &[]), Vec::<&str>::new());
        // The device node is on devtmpfs (tmpfs's magic): the I/O is not.
        let mut host = host;
        host.fs.fs_type = TMPFS_MAGIC;
        assert_eq!(with_host(&host, &[]), Vec::<&str>::new());
    }

    #[test]
    fn timed_random_writes_want_a_ramp() {
        let timed = ["--rw=randwrite", "--time_based", "--runtime=10"];
        assert_eq!(with(&timed), ["no-ramp-random-write"]);
        assert_eq!(
            with(&[&timed[..], &["--ramp_time=2"]].concat()),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn gtod_reduce_and_percentiles() {
        assert_eq!(
            with(&["--gtod_reduce=1", "--clat_percentiles=1"]),
            ["gtod-reduce-percentiles"]
        );
        assert_eq!(with(&["--gtod_reduce=1"]), Vec::<&str>::new());
    }

    #[test]
    fn mixes_left_at_fifty_fifty() {
        assert_eq!(with(&["--rw=randrw"]), ["rwmix-default"]);
        assert_eq!(
            with(&["--rw=randrw", "--rwmixwrite=30"]),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn runtime_against_log_avg() {
        let args = [
            "--time_based",
            "--runtime=1",
            "--write_bw_log=x",
            "--log_avg_msec=1000",
        ];
        assert_eq!(with(&args), ["short-runtime-log-avg"]);
        assert_eq!(
            with(&[&args[..3], &["--log_avg_msec=500"]].concat()),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn direct_block_sizes_follow_the_logical_block() {
        assert_eq!(with(&["--bs=512"]), ["direct-bs-alignment"]);
        let mut host = Fake::default();
        host.fs.logical_block = None;
        assert_eq!(with_host(&host, &["--bs=512"]), Vec::<&str>::new());
    }

    #[test]
    fn depth_against_nr_requests() {
        assert_eq!(
            with(&["--iodepth=32", "--numjobs=4"]),
            ["depth-over-nr-requests"]
        );
        assert_eq!(with(&["--iodepth=16", "--numjobs=4"]), Vec::<&str>::new());
    }
}
