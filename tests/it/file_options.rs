//! The file options of issue 11, run and compared with real fio: `openfiles`
//! (which files are open, and so the order fio writes them in), `lockfile`,
//! `opendir`, `file_append`, `create_serialize`, `create_only`,
//! `allow_file_create`, `offset_align`, `sync_file_range` (and the
//! `fsync`/`fdatasync` cadence it shares), `write_barrier`, `write_hint`,
//! `atomic`, `ioscheduler`, `unique_filename`; and the errors for values
//! rfio refuses.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::{self, TempDir};

/// rfio's JSON report of `o` (which must have succeeded as `code`).
fn report(o: &Output, code: i32) -> Value {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        common::stdout(o),
        common::stderr(o)
    );
    serde_json::from_slice(&o.stdout).expect("one JSON document")
}

/// fio's JSON report (fio prints its notices before it).
fn fio_report(o: &Output) -> Value {
    let text = common::stdout(o);
    let start = text.find("\n{").map_or(0, |i| i + 1);
    serde_json::from_str(&text[start..]).expect("fio's JSON")
}

/// Run fio and rfio with `args` (and `--output-format=json`), each in a
/// fresh directory of its own; the directories and both reports.
fn both(tag: &str, args: &[&str]) -> (TempDir, TempDir, Value, Value) {
    let (f, r) = (TempDir::new(&format!("{tag}-fio")), TempDir::new(tag));
    let mut argv = args.to_vec();
    argv.push("--output-format=json");
    let fo = common::run_in(common::real_fio(), &f, &argv);
    let ro = common::rfio(&r, &argv);
    let code = fo.status.code().unwrap_or(-1);
    (f, r, fio_report(&fo), report(&ro, code))
}

/// The regular files of `dir` (recursively): name and contents, sorted.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let name = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn sizes(dir: &Path) -> Vec<(String, usize)> {
    contents(dir)
        .into_iter()
        .map(|(n, c)| (n, c.len()))
        .collect()
}

/// `[total_ios, short_ios]` of each direction, the syncs' total and
/// latency samples.
fn counts(j: &Value) -> Vec<Value> {
    let job = &j["jobs"][0];
    vec![
        job["read"]["total_ios"].clone(),
        job["read"]["short_ios"].clone(),
        job["write"]["total_ios"].clone(),
        job["write"]["short_ios"].clone(),
        job["sync"]["total_ios"].clone(),
        job["sync"]["lat_ns"]["N"].clone(),
        job["error"].clone(),
    ]
}

const WRITE4: &[&str] = &[
    "--name=w",
    "--ioengine=psync",
    "--rw=write",
    "--bs=4k",
    "--size=128k",
    "--nrfiles=4",
    "--refill_buffers=1",
    "--fallocate=none",
];

/// With `openfiles` below `nrfiles` fio opens a file when the file service
/// first picks it, refuses a pick of a closed one while the limit is
/// reached, and closes a file when it is done. That decides which file
/// each write goes to, and with `refill_buffers` every write carries
/// different data: the files' bytes show the order.
#[test]
fn openfiles_writes_the_files_in_fios_order() {
    for extra in [
        &["--openfiles=2"][..],
        &[
            "--openfiles=1",
            "--file_service_type=random:2",
            "--rw=randwrite",
        ],
        &[
            "--openfiles=3",
            "--file_service_type=roundrobin:3",
            "--nrfiles=5",
        ],
    ] {
        let args: Vec<&str> = WRITE4.iter().chain(extra).copied().collect();
        let (f, r, fj, rj) = both("openfiles", &args);
        assert_eq!(counts(&rj), counts(&fj), "{extra:?}");
        assert_eq!(contents(&r.0), contents(&f.0), "{extra:?}: file contents");
    }
    // The comparison can fail: with every file open the order differs.
    let f = TempDir::new("openfiles-fio2");
    let r = TempDir::new("openfiles-all");
    let limited: Vec<&str> = WRITE4.iter().chain(&["--openfiles=2"]).copied().collect();
    common::run_in(common::real_fio(), &f, &limited);
    common::rfio(&r, WRITE4);
    assert_ne!(contents(&r.0), contents(&f.0));
}

/// An engine with I/O in flight: a done file stays open (closing) until
/// its last I/O completes; the counts are fio's.
#[test]
fn openfiles_with_an_asynchronous_engine() {
    let args = [
        "--name=aio",
        "--ioengine=libaio",
        "--direct=1",
        "--iodepth=8",
        "--rw=randwrite",
        "--bs=4k",
        "--size=192k",
        "--nrfiles=6",
        "--openfiles=3",
        "--file_service_type=sequential",
        "--refill_buffers=1",
        "--fallocate=none",
    ];
    let (f, r, fj, rj) = both("openfiles-aio", &args);
    assert_eq!(counts(&rj), counts(&fj));
    assert_eq!(contents(&r.0), contents(&f.0));
}

/// At most `openfiles` files are open at once: 200 files run under a limit
/// of 40 descriptors, which opening them all would pass.
#[test]
fn openfiles_keeps_the_open_files_under_the_limit() {
    let dir = TempDir::new("openfiles-fds");
    let run = |openfiles: &str| {
        let script = format!(
            "ulimit -n 40 && exec {} --name=many --ioengine=psync --rw=write --bs=4k \
             --filesize=4k --nrfiles=200 {openfiles} --output-format=json",
            common::RFIO
        );
        common::run_in("sh", &dir, &["-c", &script])
    };
    let j = report(&run("--openfiles=4"), 0);
    assert_eq!(j["jobs"][0]["write"]["total_ios"], 200);
    let files = sizes(&dir.0);
    assert_eq!(files.len(), 200);
    assert!(files.iter().all(|(_, len)| *len == 4096));
    // Every file open at once does not fit (EMFILE), and fio's hint says
    // so.
    let o = run("");
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("fio: try reducing/setting openfiles (failed at ")
            && err.contains(" of 200)\n"),
        "{err}"
    );
    assert_eq!(report(&o, 1)["jobs"][0]["error"], libc::EMFILE);
}

/// A verify phase reads back files that were closed when done (fio's
/// verify path opens them again): no file stays open past its reads.
#[test]
fn openfiles_with_verify_reads_every_file_back() {
    for backlog in ["--verify_backlog=0", "--verify_backlog=4"] {
        let args = [
            "--name=ver",
            "--ioengine=psync",
            "--rw=write",
            "--bs=4k",
            "--size=40k",
            "--nrfiles=5",
            "--openfiles=1",
            "--verify=crc32c",
            backlog,
        ];
        let dir = TempDir::new("openfiles-verify");
        let mut argv = args.to_vec();
        argv.push("--output-format=json");
        let o = common::run_limited(
            common::RFIO,
            &dir,
            &argv,
            std::time::Duration::from_secs(20),
        );
        let j = report(&o, 0);
        assert_eq!(j["jobs"][0]["write"]["total_ios"], 10, "{backlog}");
        assert_eq!(j["jobs"][0]["read"]["total_ios"], 10, "{backlog}");
    }
}

/// `sync_file_range=FLAGS:N` every N writes: fio counts each call as a
/// write short I/O with a sync latency, not in the syncs' total; in a mixed
/// job, a read between lets it sync again at the same write count.
#[test]
fn sync_file_range_counts_where_fio_counts_them() {
    let dir = TempDir::new("sfr");
    let o = common::rfio(
        &dir,
        &[
            "--name=sfr",
            "--ioengine=psync",
            "--rw=write",
            "--bs=4k",
            "--size=128k",
            "--sync_file_range=wait_before,write:8",
            "--output-format=json",
        ],
    );
    let j = report(&o, 0);
    // Writes 8, 16, 24 (the loop ends before the one after write 32).
    assert_eq!(counts(&j), [0, 0, 32, 3, 0, 3, 0].map(Value::from));
    assert_eq!(j["jobs"][0]["iodepth_level"]["1"], 109.375);
    for extra in [
        &["--rw=rw", "--sync_file_range=write:4"][..],
        &["--fsync=4", "--fdatasync=4"],
        &["--rw=randrw", "--fdatasync=3"],
        &["--rw=rw", "--fsync=4"],
        &["--sync_file_range=write:4", "--fsync=8", "--rw=randwrite"],
    ] {
        let args: Vec<&str> = ["--name=s", "--ioengine=psync", "--bs=4k", "--size=128k"]
            .iter()
            .chain(extra)
            .copied()
            .collect();
        let (_f, _r, fj, rj) = both("syncs", &args);
        assert_eq!(counts(&rj), counts(&fj), "{extra:?}");
    }
}

/// `write_hint` sets the inode's write lifetime hint as each file opens
/// (buffered I/O: `F_SET_RW_HINT`), which outlives the run while the inode
/// is cached.
#[test]
fn write_hint_reaches_the_file() {
    let dir = TempDir::new("write-hint");
    let hint_of = |path: &Path| {
        let f = std::fs::File::open(path).unwrap();
        let mut hint = 0u64;
        // SAFETY: F_GET_RW_HINT (1035) writes one u64 through the pointer.
        let r = unsafe {
            libc::fcntl(
                std::os::fd::AsRawFd::as_raw_fd(&f),
                1035,
                &mut hint as *mut u64,
            )
        };
        assert_eq!(r, 0);
        hint
    };
    let file = dir.file("hinted");
    let filename = dir.arg("hinted");
    let o = common::rfio(
        &dir,
        &[
            "--name=h",
            "--ioengine=psync",
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            &filename,
            "--write_hint=extreme",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert_eq!(hint_of(&file), 5, "RWH_WRITE_LIFE_EXTREME");
}

/// `file_append`: a file's region starts at its end; a read lays the file
/// out again to the region's end; a second loop does nothing.
#[test]
fn file_append_grows_the_file() {
    let dir = TempDir::new("append");
    let file = dir.file("log");
    let filename = dir.arg("log");
    let run = |rw: &str, size: &str, loops: &str| {
        let o = common::rfio(
            &dir,
            &[
                "--name=a",
                "--ioengine=psync",
                "--bs=4k",
                &filename,
                "--file_append=1",
                rw,
                size,
                loops,
                "--output-format=json",
            ],
        );
        report(&o, 0)
    };
    let len = || std::fs::metadata(&file).unwrap().len();
    run("--rw=write", "--size=64k", "--loops=1");
    assert_eq!(len(), 64 << 10);
    let j = run("--rw=write", "--size=32k", "--loops=2");
    assert_eq!(len(), 96 << 10);
    assert_eq!(j["jobs"][0]["write"]["total_ios"], 8, "one loop only");
    let j = run("--rw=read", "--size=32k", "--loops=1");
    assert_eq!(len(), 128 << 10);
    assert_eq!(j["jobs"][0]["read"]["io_bytes"], 32 << 10);
}

/// `allow_file_create=0`: a missing file is not created; fio's line, no
/// error in the job's report, exit status 1. A short file is unlinked
/// first, as fio's layout does, and then is missing too.
#[test]
fn allow_file_create_refuses_to_create() {
    let dir = TempDir::new("nocreate");
    let filename = dir.arg("data");
    let run = |rw: &str| {
        common::rfio(
            &dir,
            &[
                "--name=n",
                "--ioengine=psync",
                rw,
                "--bs=4k",
                "--size=64k",
                &filename,
                "--allow_file_create=0",
                "--output-format=json",
            ],
        )
    };
    for rw in ["--rw=read", "--rw=write"] {
        let o = run(rw);
        let j = report(&o, 1);
        assert_eq!(j["jobs"][0]["error"], 0);
        assert_eq!(
            common::stderr(&o),
            "fio: file creation disallowed by allow_file_create=0\n"
        );
        assert!(!dir.file("data").exists());
    }
    std::fs::write(dir.file("data"), [1u8; 100]).unwrap();
    report(&run("--rw=read"), 1);
    assert!(!dir.file("data").exists(), "fio unlinks the short file");
    std::fs::write(dir.file("data"), vec![1u8; 64 << 10]).unwrap();
    let j = report(&run("--rw=read"), 0);
    assert_eq!(j["jobs"][0]["read"]["io_bytes"], 64 << 10);
}

/// `create_only`: the files are laid out, no I/O runs.
#[test]
fn create_only_lays_out_and_stops() {
    let dir = TempDir::new("create-only");
    let o = common::rfio(
        &dir,
        &[
            "--name=c",
            "--ioengine=psync",
            "--rw=randread",
            "--bs=4k",
            "--size=128k",
            "--nrfiles=2",
            "--create_only=1",
            "--output-format=json",
        ],
    );
    let j = report(&o, 0);
    assert_eq!(counts(&j), [0, 0, 0, 0, 0, 0, 0].map(Value::from));
    assert_eq!(
        sizes(&dir.0),
        [("c.0.0".to_string(), 65536), ("c.0.1".to_string(), 65536)]
    );
}

/// `create_serialize` (on by default): every job's files are set up, in
/// job order, before the first job runs, so a later group's job sizes its
/// file from what the earlier jobs' layouts left: with `fallocate=none` the
/// writer's file is still empty and the reader fails as fio's does
/// (err=22). With `create_serialize=0` the reader is set up when it starts
/// and reads what the writer wrote.
#[test]
fn create_serialize_sets_files_up_before_the_first_job() {
    let job = |serialize: &str| {
        format!(
            "[prep]\nfilename=data\nrw=write\nbs=64k\nsize=256k\nfallocate=none\n\
             [check]\nstonewall\nfilename=data\nrw=read\nbs=64k\ncreate_serialize={serialize}\n"
        )
    };
    for (serialize, error, read) in [("1", 22, 0), ("0", 0, 256 << 10)] {
        let dir = TempDir::new("serialize");
        let path = dir.write("job.fio", &job(serialize));
        let path = path.display().to_string();
        let o = common::rfio(&dir, &[&path, "--output-format=json"]);
        let j = report(&o, i32::from(error != 0));
        assert_eq!(j["jobs"][1]["error"], error, "create_serialize={serialize}");
        assert_eq!(j["jobs"][1]["read"]["io_bytes"], read);
    }
}

/// `offset_align` rounds a percentage offset up: 25% of a 100 KiB file is
/// 25600, 28672 aligned to the block size, 36864 to 12 KiB; a 64 KiB write
/// from there grows the file only in the second case.
#[test]
fn offset_align_places_a_percentage_offset() {
    for (align, len) in [("", 102400), ("--offset_align=12k", 36864 + 65536)] {
        let dir = TempDir::new("offset-align");
        std::fs::write(dir.file("data"), vec![0u8; 102400]).unwrap();
        let filename = dir.arg("data");
        let mut argv = vec![
            "--name=o",
            "--ioengine=psync",
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            "--offset=25%",
            &filename,
            "--output-format=json",
        ];
        if !align.is_empty() {
            argv.push(align);
        }
        report(&common::rfio(&dir, &argv), 0);
        assert_eq!(std::fs::metadata(dir.file("data")).unwrap().len(), len);
    }
}

/// `opendir`: every regular file below the directory, recursively (links
/// and FIFOs passed over), each read whole but its partial last block;
/// fio's line says how many files it added.
#[test]
fn opendir_adds_every_file_below() {
    let dir = TempDir::new("opendir");
    let tree = dir.file("tree");
    std::fs::create_dir_all(tree.join("sub/deeper")).unwrap();
    std::fs::write(tree.join("a"), vec![1u8; 8192]).unwrap();
    std::fs::write(tree.join("sub/b"), vec![2u8; 16384 + 100]).unwrap();
    std::fs::write(tree.join("sub/deeper/c"), vec![3u8; 4096]).unwrap();
    std::os::unix::fs::symlink("a", tree.join("link")).unwrap();
    // SAFETY: mkfifo only reads the NUL-terminated path.
    let fifo = std::ffi::CString::new(tree.join("fifo").display().to_string()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let opendir = format!("--opendir={}", tree.display());
    let o = common::rfio(
        &dir,
        &[
            "--name=scan",
            "--ioengine=psync",
            "--rw=read",
            "--bs=4k",
            &opendir,
            "--output-format=json",
        ],
    );
    let j = report(&o, 0);
    assert_eq!(common::stderr(&o), "fio: opendir added 3 files\n");
    assert_eq!(j["jobs"][0]["read"]["total_ios"], 2 + 4 + 1);
    assert_eq!(j["jobs"][0]["read"]["io_bytes"], (2 + 4 + 1) * 4096);
    let (_f, _r, fj, rj) = both(
        "opendir-cmp",
        &[
            "--name=scan",
            "--ioengine=psync",
            "--rw=read",
            "--bs=4k",
            &opendir,
        ],
    );
    assert_eq!(counts(&rj), counts(&fj));
}

/// `ioscheduler`: a name the device does not have is refused by the
/// kernel (nothing changes); fio says so and fails the job, as rfio does.
/// Without `disk_util` fio does not know the device and switches nothing.
#[test]
fn ioscheduler_fails_the_job_as_fio() {
    for extra in [&[][..], &["--disk_util=0"]] {
        let mut args = vec![
            "--name=sched",
            "--ioengine=psync",
            "--rw=read",
            "--bs=4k",
            "--size=64k",
            "--ioscheduler=no-such-sched",
        ];
        args.extend(extra);
        let (_f, _r, fj, rj) = both("iosched", &args);
        assert_eq!(counts(&rj), counts(&fj), "{extra:?}");
    }
}

/// `lockfile`, `write_barrier`, `unique_filename`, `atomic`: the jobs run
/// with fio's counts (the locks and the barrier change no count; rfio has
/// no client/server mode for unique names to differ in).
#[test]
fn options_that_change_no_count() {
    for extra in [
        &["--lockfile=exclusive", "--numjobs=2", "--filename=shared"][..],
        &["--lockfile=readwrite", "--numjobs=2", "--filename=shared"],
        &["--write_barrier=4", "--unique_filename=0"],
        &["--atomic=1"],
    ] {
        let args: Vec<&str> = [
            "--name=x",
            "--ioengine=psync",
            "--rw=randrw",
            "--bs=4k",
            "--size=64k",
            "--group_reporting",
        ]
        .iter()
        .chain(extra)
        .copied()
        .collect();
        let (_f, _r, fj, rj) = both("nocount", &args);
        assert_eq!(counts(&rj), counts(&fj), "{extra:?}");
    }
}

/// Values rfio refuses: an error naming the job file, line and option,
/// exit status 1, nothing run.
#[test]
fn bad_values_are_refused_with_their_place() {
    let dir = TempDir::new("file-options-bad");
    // The option's own line for a value the option refuses, the job's for
    // what the job cannot run.
    for (line, what) in [
        ("openfiles=-1", "6:1: job 'bad': openfiles=-1: "),
        (
            "sync_file_range=write:abc",
            "5:1: job 'bad': sync_file_range: 'abc' after ':'",
        ),
        (
            "ioengine=mmap\nfile_append=1",
            "5:1: job 'bad': file_append=1: fio can't append/extent with IO engine mmap",
        ),
        (
            "offset=50%\noffset_align=0",
            "5:1: job 'bad': offset_align=0 with a percentage offset",
        ),
        (
            "opendir=no-such-dir",
            "5:1: job 'bad': opendir=no-such-dir: opendir(no-such-dir): No such file or directory",
        ),
    ] {
        let text = format!("[global]\nrw=write\nsize=64k\n\n[bad]\n{line}\n");
        let path = dir.write("bad.fio", &text);
        let o = common::rfio(&dir, &[&path.display().to_string()]);
        let err = common::stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{line}: {err}");
        assert!(
            err.contains(&format!("{}:{what}", path.display())),
            "{line}: {err}"
        );
        assert_eq!(common::stdout(&o), "", "{line}");
    }
}

/// fio reads `size=0` as no size: the job runs over its files' own sizes
/// (an existing file's, or filesize=), as when size= is not given. Each
/// job in a directory holding a 128 KiB file `ex`, against fio 3.33:
/// 32 reads of it, 16 with filesize=64k, and 4 writes over two new
/// files of filesize=8k.
#[test]
fn size_zero_is_no_size_as_fio() {
    let base = ["--name=j", "--bs=4k", "--output-format=json"];
    for (extra, reads, writes) in [
        (&["--filename=ex", "--rw=read", "--size=0"][..], 32, 0),
        (
            &["--filename=ex", "--rw=read", "--size=0", "--filesize=64k"][..],
            16,
            0,
        ),
        (
            &["--nrfiles=2", "--rw=write", "--size=0", "--filesize=8k"][..],
            0,
            4,
        ),
    ] {
        let mut argv = base.to_vec();
        argv.extend_from_slice(extra);
        let (f, r) = (TempDir::new("size0-fio"), TempDir::new("size0"));
        for d in [&f, &r] {
            std::fs::write(d.file("ex"), vec![7u8; 128 << 10]).unwrap();
        }
        let fio = fio_report(&common::run_in(common::real_fio(), &f, &argv));
        let rfio = report(&common::rfio(&r, &argv), 0);
        assert_eq!(counts(&rfio), counts(&fio), "{extra:?}");
        let job = &rfio["jobs"][0];
        assert_eq!(
            (&job["read"]["total_ios"], &job["write"]["total_ios"]),
            (&Value::from(reads), &Value::from(writes)),
            "{extra:?}"
        );
        assert_eq!(sizes(&r.0), sizes(&f.0), "{extra:?}");
    }
}
