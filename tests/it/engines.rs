//! One workload through every ioengine, and the executor's job options,
//! each against what fio 3.33 does with the same job (the expected numbers
//! were taken from real fio runs; see the comment at each test).

use std::time::Instant;

use rfio::api::RunError;

use crate::common;
use common::{assert_job_ok, require_engine, run_captured, try_run_captured, TempDir};

const SYNC_ENGINES: [&str; 6] = ["sync", "psync", "vsync", "pvsync", "pvsync2", "mmap"];
const ASYNC_ENGINES: [&str; 4] = ["libaio", "io_uring", "posixaio", "null"];

/// One workload through every engine: the same I/O and byte counts.
#[test]
fn one_workload_same_counts_on_every_engine() {
    let dir = TempDir::new("all");
    let file = dir.arg("f");
    let mut seen: Vec<(String, [u64; 2], [u64; 2])> = Vec::new();
    for engine in SYNC_ENGINES.iter().chain(ASYNC_ENGINES.iter()) {
        let depth = if ASYNC_ENGINES.contains(engine) { 8 } else { 1 };
        if !require_engine(engine, depth) {
            continue;
        }
        let (r, log) = run_captured(&[
            "--name=same",
            &format!("--ioengine={engine}"),
            &format!("--iodepth={depth}"),
            "--size=4m",
            "--bs=4k",
            "--rw=randrw",
            "--rwmixread=50",
            "--norandommap",
            &file,
        ]);
        let j = &r.jobs[0];
        assert_job_ok(j);
        assert!(
            log.err.lock().unwrap().is_empty(),
            "{engine}: {}",
            log.err.lock().unwrap()
        );
        let ios = [j.dirs[0].ios, j.dirs[1].ios];
        // fio reports submission latency for async engines only.
        let slat = j.dirs[0].slat.samples() + j.dirs[1].slat.samples();
        let expect_slat = if depth > 1 { 1024 } else { 0 };
        assert_eq!(slat, expect_slat, "{engine}: slat samples");
        let bytes = [j.dirs[0].bytes, j.dirs[1].bytes];
        assert_eq!(ios[0] + ios[1], 1024, "{engine}: {ios:?}");
        assert_eq!(bytes[0] + bytes[1], 4 << 20, "{engine}: {bytes:?}");
        if let Some((first, i0, b0)) = seen.first() {
            assert_eq!((&ios, &bytes), (i0, b0), "{engine} differs from {first}");
        }
        seen.push((engine.to_string(), ios, bytes));
    }
    println!(
        "engines compared: {:?}",
        seen.iter().map(|s| &s.0).collect::<Vec<_>>()
    );
    assert!(seen.len() >= 8, "too few engines ran: {seen:?}");
}

/// fio: `--ioengine=libaio --iodepth=8 --size=4m --rw=randread` reads
/// 1024 blocks; so does every async engine here, with slat recorded.
#[test]
fn async_engines_complete_size_bound_jobs() {
    let dir = TempDir::new("async");
    let file = dir.arg("f");
    for engine in ["libaio", "io_uring", "posixaio", "null"] {
        if !require_engine(engine, 8) {
            continue;
        }
        for batch in ["1", "4"] {
            let (r, _) = run_captured(&[
                "--name=a",
                &format!("--ioengine={engine}"),
                "--iodepth=8",
                &format!("--iodepth_batch_submit={batch}"),
                "--iodepth_batch_complete_min=1",
                "--iodepth_batch_complete_max=8",
                "--size=4m",
                "--rw=randread",
                &file,
            ]);
            let j = &r.jobs[0];
            assert_job_ok(j);
            assert_eq!(j.dirs[0].ios, 1024, "{engine} batch {batch}");
            assert_eq!(j.dirs[0].bytes, 4 << 20, "{engine} batch {batch}");
        }
    }
}

/// libaio options: userspace_reap (with iodepth_batch_complete_min=0 the
/// ring is read directly) and iodepth_low.
#[test]
fn libaio_userspace_reap_and_low_water_mark() {
    if !require_engine("libaio", 16) {
        return;
    }
    let dir = TempDir::new("aio");
    let file = dir.arg("f");
    let (r, _) = run_captured(&[
        "--name=u",
        "--ioengine=libaio",
        "--userspace_reap",
        "--iodepth=16",
        "--iodepth_low=4",
        "--iodepth_batch_complete_min=0",
        "--size=2m",
        "--rw=randwrite",
        &file,
    ]);
    assert_job_ok(&r.jobs[0]);
    assert_eq!(r.jobs[0].dirs[1].ios, 512);
}

/// io_uring's options each change how I/O is submitted, never what is done.
#[test]
fn io_uring_options_keep_the_counts() {
    if !require_engine("io_uring", 8) {
        return;
    }
    let dir = TempDir::new("uring");
    let file = dir.arg("f");
    for opts in [
        &["--nonvectored=0"][..],
        &["--nonvectored=1"],
        &["--fixedbufs"],
        &["--registerfiles"],
        &["--fixedbufs", "--registerfiles", "--nonvectored=0"],
    ] {
        let mut a = vec![
            "--name=u",
            "--ioengine=io_uring",
            "--iodepth=8",
            "--size=1m",
            "--rw=randrw",
            &file,
        ];
        a.extend_from_slice(opts);
        let (r, _) = run_captured(&a);
        let j = &r.jobs[0];
        assert_job_ok(j);
        assert_eq!(j.dirs[0].ios + j.dirs[1].ios, 256, "{opts:?}");
    }
}

/// sqthread_poll hands submission to a kernel thread; hipri asks for
/// polled completions, which this device may not offer: then every I/O
/// fails with EOPNOTSUPP, as with fio ("Operation not supported").
#[test]
fn io_uring_sqpoll_and_hipri() {
    if !require_engine("io_uring", 8) {
        return;
    }
    let dir = TempDir::new("sqpoll");
    let file = dir.arg("f");
    let (r, log) = try_run_captured(&[
        "--name=s",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--sqthread_poll",
        "--size=1m",
        "--rw=randread",
        &file,
    ]);
    match r {
        Ok(r) if r.jobs[0].error == 0 => assert_eq!(r.jobs[0].dirs[0].ios, 256),
        other => println!(
            "sqthread_poll not available here: {:?} {}",
            other.map(|r| r.jobs[0].error_msg.clone()),
            log.err.lock().unwrap()
        ),
    }
    let (r, log) = run_captured(&[
        "--name=h",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--hipri",
        "--direct=1",
        "--size=1m",
        "--rw=randread",
        &file,
    ]);
    let j = &r.jobs[0];
    if j.error != 0 {
        assert_eq!(j.error, libc::EOPNOTSUPP, "{:?}", j.error_msg);
        let err = log.err.lock().unwrap();
        assert!(
            err.contains(": Operation not supported: read offset="),
            "{err}"
        );
    } else {
        assert_eq!(j.dirs[0].ios, 256);
    }
}

/// fio prints a note once per job when a sync engine is given iodepth > 1,
/// on stdout, and runs at depth 1.
#[test]
fn sync_engine_with_depth_notes_once_per_job() {
    let dir = TempDir::new("note");
    let file = dir.arg("f");
    let (r, log) = run_captured(&[
        "--name=n",
        "--ioengine=psync",
        "--iodepth=8",
        "--numjobs=2",
        "--size=256k",
        "--rw=read",
        &file,
    ]);
    let err = log.err.lock().unwrap();
    assert_eq!(
        err.matches(
            "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n"
        )
        .count(),
        2,
        "{err}"
    );
    assert!(r.jobs.iter().all(|j| j.dirs[0].ios == 64));
    // The null engine is asynchronous at depth > 1: no note.
    let (_, log) = run_captured(&["--name=n", "--ioengine=null", "--iodepth=8", "--size=256k"]);
    assert!(log.err.lock().unwrap().is_empty());
}

/// fio: filecreate with nrfiles=4, filesize=8k, bs=4k does 8 I/Os and
/// leaves four empty files (mode 0600) without laying them out.
#[test]
fn filecreate_creates_empty_files() {
    let dir = TempDir::new("fc");
    let d = dir.dir_arg();
    let (r, _) = run_captured(&[
        "--name=fc",
        "--ioengine=filecreate",
        "--nrfiles=4",
        "--filesize=8k",
        "--bs=4k",
        &d,
    ]);
    let j = &r.jobs[0];
    assert_job_ok(j);
    assert_eq!(j.dirs[0].ios, 8);
    assert_eq!(j.dirs[0].bytes, 32 << 10);
    assert!(j.layout.is_none());
    for n in 0..4 {
        let m = std::fs::metadata(dir.file(&format!("fc.0.{n}"))).unwrap();
        assert_eq!(m.len(), 0);
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(m.permissions().mode() & 0o777, 0o600);
    }
}

/// fio: filestat lays the files out and stats them; filedelete lays them
/// out and deletes them. Both count 8 I/Os for 4 files of 8k at bs=4k.
#[test]
fn filestat_and_filedelete() {
    let dir = TempDir::new("fs");
    let d = dir.dir_arg();
    for engine in ["filestat", "filedelete"] {
        let (r, _) = run_captured(&[
            "--name=fs",
            &format!("--ioengine={engine}"),
            "--nrfiles=4",
            "--filesize=8k",
            "--bs=4k",
            &d,
        ]);
        let j = &r.jobs[0];
        assert_job_ok(j);
        assert_eq!(j.dirs[0].ios, 8, "{engine}");
        let exists = dir.file("fs.0.0").exists();
        assert_eq!(exists, engine == "filestat", "{engine}");
    }
}

/// ftruncate sets the size to each write's offset; falloc allocates.
#[test]
fn ftruncate_and_falloc() {
    let dir = TempDir::new("ft");
    let f = dir.arg("t");
    let (r, _) = run_captured(&[
        "--name=t",
        "--ioengine=ftruncate",
        "--size=64k",
        "--bs=4k",
        "--rw=write",
        &f,
    ]);
    assert_job_ok(&r.jobs[0]);
    assert_eq!(r.jobs[0].dirs[1].ios, 16);
    // The last write was at 60k.
    assert_eq!(std::fs::metadata(dir.file("t")).unwrap().len(), 60 << 10);
    // A read is not something ftruncate can do.
    let (r, _) = run_captured(&[
        "--name=t",
        "--ioengine=ftruncate",
        "--size=64k",
        "--rw=read",
        &f,
    ]);
    assert_eq!(r.jobs[0].error, libc::EINVAL);

    let g = dir.arg("g");
    let (r, _) = run_captured(&[
        "--name=g",
        "--ioengine=falloc",
        "--size=64k",
        "--bs=4k",
        "--rw=randtrim",
        &g,
    ]);
    assert_job_ok(&r.jobs[0]);
    assert_eq!(r.jobs[0].dirs[2].ios, 16);
}

/// Trims punch holes in files: the file keeps its size, loses its blocks.
#[test]
fn trim_punches_holes() {
    let dir = TempDir::new("trim");
    let f = dir.arg("t");
    for engine in ["psync", "libaio", "io_uring"] {
        let depth = if engine == "psync" { 1 } else { 4 };
        if !require_engine(engine, depth) {
            continue;
        }
        let (r, _) = run_captured(&[
            "--name=t",
            &format!("--ioengine={engine}"),
            &format!("--iodepth={depth}"),
            "--size=256k",
            "--bs=64k",
            "--rw=trim",
            &f,
        ]);
        assert_job_ok(&r.jobs[0]);
        assert_eq!(r.jobs[0].dirs[2].ios, 4, "{engine}");
        let m = std::fs::metadata(dir.file("t")).unwrap();
        assert_eq!(m.len(), 256 << 10);
        use std::os::unix::fs::MetadataExt;
        assert!(m.blocks() < 512, "{engine}: {} blocks left", m.blocks());
    }
}

/// fio: loops=3 over 1m at bs=4k reads 768 blocks; number_ios=10 with
/// loops=3 does 30.
#[test]
fn loops_repeat_the_job() {
    let (r, _) = run_captured(&["--name=l", "--ioengine=null", "--size=1m", "--loops=3"]);
    assert_eq!(r.jobs[0].dirs[0].ios, 768);
    let (r, _) = run_captured(&[
        "--name=l",
        "--ioengine=null",
        "--size=1m",
        "--loops=3",
        "--number_ios=10",
    ]);
    assert_eq!(r.jobs[0].dirs[0].ios, 30);
    let dir = TempDir::new("loops");
    let f = dir.arg("f");
    let (r, _) = run_captured(&["--name=l", "--ioengine=psync", "--size=1m", "--loops=3", &f]);
    assert_eq!(r.jobs[0].dirs[0].ios, 768);
}

/// ramp_time: the I/O of the ramp is not reported; runtime counts after it.
#[test]
fn ramp_time_discards_its_io() {
    let t0 = Instant::now();
    let (r, _) = run_captured(&[
        "--name=r",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--runtime=200ms",
        "--ramp_time=200ms",
    ]);
    let wall = t0.elapsed().as_millis();
    assert!(wall >= 390, "ran {wall} ms");
    let d = &r.jobs[0].dirs[0];
    // The reported runtime leaves out the ramp, which took its 200 ms of
    // the wall-clock time however loaded the machine (half of it here, for
    // the clocks' rounding: 204 ms of 403 ms seen).
    assert!(d.runtime_ms >= 195, "{}", d.runtime_ms);
    assert!(
        u128::from(d.runtime_ms) + 100 <= wall,
        "runtime {} ms of {wall} ms: the ramp is counted",
        d.runtime_ms
    );
}

/// fio: numjobs=3, offset_increment=1m, size=64k, rw=write on one file
/// writes at 0, 2m and 1m (clones are numbered 2, 1): the file ends at
/// 2m+64k.
#[test]
fn offset_increment_spreads_clones() {
    let dir = TempDir::new("inc");
    let f = dir.arg("f");
    let (r, _) = run_captured(&[
        "--name=x",
        "--ioengine=psync",
        "--size=64k",
        "--bs=64k",
        "--rw=write",
        "--offset_increment=1m",
        "--numjobs=3",
        "--fallocate=none",
        &f,
    ]);
    assert!(r.jobs.iter().all(|j| j.error == 0 && j.dirs[1].ios == 1));
    assert_eq!(
        std::fs::metadata(dir.file("f")).unwrap().len(),
        (2 << 20) + (64 << 10)
    );
}

/// Layout as fio: a read job gets the whole file written; a write job with
/// fallocate=none gets an empty file; create_on_open lays out nothing.
#[test]
fn layout_modes() {
    let dir = TempDir::new("lay");
    let (r, _) = run_captured(&[
        "--name=w",
        "--ioengine=psync",
        "--size=1m",
        "--rw=write",
        "--number_ios=1",
        "--fallocate=none",
        &dir.arg("w"),
    ]);
    assert_eq!(r.jobs[0].layout.map(|l| l.files), Some(1));
    assert_eq!(std::fs::metadata(dir.file("w")).unwrap().len(), 4096);
    let (r, _) = run_captured(&[
        "--name=t",
        "--ioengine=psync",
        "--size=1m",
        "--rw=write",
        "--number_ios=1",
        "--fallocate=truncate",
        &dir.arg("t"),
    ]);
    assert_job_ok(&r.jobs[0]);
    assert_eq!(std::fs::metadata(dir.file("t")).unwrap().len(), 1 << 20);
    let (r, _) = run_captured(&[
        "--name=c",
        "--ioengine=psync",
        "--size=1m",
        "--rw=write",
        "--number_ios=1",
        "--create_on_open=1",
        &dir.arg("c"),
    ]);
    assert!(r.jobs[0].layout.is_none());
    assert_eq!(std::fs::metadata(dir.file("c")).unwrap().len(), 4096);
    // With offset, the file is laid out up to offset + size.
    let (r, _) = run_captured(&[
        "--name=o",
        "--ioengine=psync",
        "--size=64k",
        "--offset=1m",
        "--rw=read",
        &dir.arg("o"),
    ]);
    assert_job_ok(&r.jobs[0]);
    assert_eq!(
        r.jobs[0].layout.map(|l| l.bytes),
        Some((1 << 20) + (64 << 10))
    );
}

/// unlink=1 removes the job's files when it ends; fsync/fdatasync/end_fsync
/// and sync=dsync change nothing in the counts.
#[test]
fn unlink_and_syncs() {
    let dir = TempDir::new("unl");
    let (r, _) = run_captured(&[
        "--name=u",
        "--ioengine=psync",
        "--size=256k",
        "--rw=write",
        "--unlink=1",
        "--fsync=4",
        "--end_fsync=1",
        &dir.arg("u"),
    ]);
    assert_job_ok(&r.jobs[0]);
    assert_eq!(r.jobs[0].dirs[1].ios, 64);
    assert!(!dir.file("u").exists());
    for engine in ["libaio", "io_uring", "posixaio", "mmap"] {
        let depth = if engine == "mmap" { 1 } else { 4 };
        if !require_engine(engine, depth) {
            continue;
        }
        let (r, _) = run_captured(&[
            "--name=s",
            &format!("--ioengine={engine}"),
            &format!("--iodepth={depth}"),
            "--size=256k",
            "--rw=randwrite",
            "--fdatasync=8",
            "--fsync_on_close=1",
            "--sync=dsync",
            &dir.arg("s"),
        ]);
        assert_job_ok(&r.jobs[0]);
        assert_eq!(r.jobs[0].dirs[1].ios, 64, "{engine}");
    }
}

/// An I/O error stops the job with fio's err= and messages; with
/// continue_on_error and the errno ignored, the job goes on.
#[test]
fn errors_stop_or_continue() {
    let dir = TempDir::new("err");
    let f = dir.arg("e");
    let (r, log) = run_captured(&[
        "--name=e",
        "--ioengine=ftruncate",
        "--size=64k",
        "--rw=read",
        &f,
        "--name=other",
        "--ioengine=null",
        "--size=64k",
    ]);
    let j = &r.jobs[0];
    assert_eq!(j.error, libc::EINVAL);
    assert_eq!(
        j.error_msg.as_deref(),
        Some("file:io_u.c:1876, func=io_u error, error=Invalid argument")
    );
    let err = log.err.lock().unwrap();
    assert!(
        err.contains(&format!(
            "fio: io_u error on file {}: Invalid argument: read offset=0, buflen=4096\n",
            dir.file("e").display()
        )),
        "{err}"
    );
    assert!(err.contains(", err=22/file:io_u.c:1876"), "{err}");
    // The other job is not affected.
    assert_job_ok(&r.jobs[1]);
    assert_eq!(r.jobs[1].dirs[0].ios, 16);

    let (r, log) = run_captured(&[
        "--name=e",
        "--ioengine=ftruncate",
        "--size=64k",
        "--rw=read",
        "--continue_on_error=read",
        "--ignore_error=EINVAL",
        &f,
    ]);
    // fio clears a let-through error: the job has not failed, and its
    // report shows the first error (first_error, with the error text).
    assert_eq!(r.jobs[0].error, 0);
    assert_eq!(r.jobs[0].first_error, libc::EINVAL);
    assert_eq!(
        r.jobs[0].error_msg.as_deref(),
        Some("file:io_u.c:1876, func=io_u error, error=Invalid argument")
    );
    let err = log.err.lock().unwrap();
    assert!(!err.contains("io_u error on file"), "{err}");
}

/// Not enough room: refused before anything is written.
#[test]
fn free_space_is_checked_before_layout() {
    let dir = TempDir::new("space");
    let f = dir.arg("huge");
    let (r, _) = try_run_captured(&[
        "--name=h",
        "--ioengine=psync",
        "--size=100p",
        "--rw=read",
        &f,
    ]);
    match r {
        Err(RunError::NoSpace { needed, .. }) => assert_eq!(needed, 100 << 50),
        other => panic!("{other:?}"),
    }
    assert!(!dir.file("huge").exists());
}

/// exitall: the first job to finish stops the others of its group.
#[test]
fn exitall_stops_the_group() {
    let t0 = Instant::now();
    let (r, _) = run_captured(&[
        "--exitall",
        "--name=short",
        "--ioengine=null",
        "--size=1m",
        "--name=long",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--runtime=20s",
    ]);
    // The long job stopped when the short one ended, far before its 20 s.
    let long = r.jobs[1].dirs[0].runtime_ms;
    assert!(
        long < 10_000,
        "exitall did not stop the long job: {long} ms"
    );
    assert!(
        t0.elapsed().as_secs() < 20,
        "exitall did not stop the long job"
    );
    assert_eq!(r.jobs[0].dirs[0].ios, 256);
}

/// wait_for: a job starts once the job it waits for has finished.
#[test]
fn wait_for_orders_jobs_in_a_group() {
    let t0 = Instant::now();
    let (r, _) = run_captured(&[
        "--name=first",
        "--ioengine=null",
        "--size=64k",
        "--time_based",
        "--runtime=300ms",
        "--name=second",
        "--ioengine=null",
        "--size=64k",
        "--wait_for=first",
    ]);
    assert!(t0.elapsed().as_millis() >= 300);
    assert_eq!(r.jobs[1].group_id(), 0, "same group");
    assert_eq!(r.jobs[1].dirs[0].ios, 16);
}

/// startdelay delays the job's start.
#[test]
fn startdelay_waits() {
    let t0 = Instant::now();
    let (r, _) = run_captured(&[
        "--name=d",
        "--ioengine=null",
        "--size=64k",
        "--startdelay=300ms",
    ]);
    assert!(t0.elapsed().as_millis() >= 300);
    assert_eq!(r.jobs[0].dirs[0].ios, 16);
}

/// Engines that fio has and rfio cannot run are named at start.
#[test]
fn unknown_engine_is_refused() {
    let (r, _) = try_run_captured(&["--name=x", "--ioengine=nosuch", "--size=64k"]);
    assert!(matches!(r, Err(RunError::UnknownEngine { .. })));
}

#[test]
fn pvsync2_hipri_runs() {
    let dir = TempDir::new("hipri");
    let f = dir.arg("h");
    let (r, _) = run_captured(&[
        "--name=h",
        "--ioengine=pvsync2",
        "--hipri",
        "--size=64k",
        "--rw=randread",
        &f,
    ]);
    // Buffered I/O ignores RWF_HIPRI; what matters is that it is accepted.
    assert_job_ok(&r.jobs[0]);
    assert_eq!(r.jobs[0].dirs[0].ios, 16);
}
