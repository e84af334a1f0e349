//! Dedupe modes (`dedupe_mode=repeat|working_set`, `dedupe_global`,
//! `dedupe_working_set_percentage`): the files rfio writes are byte for
//! byte the files fio 3.33 writes, fio's refusals, and the global working
//! set built from every job's buffer generator.
//!
//! The comparisons need real fio 3.33 and fail, never skip, without it.

use crate::common;

use std::path::Path;

use common::{real_fio, run_in as run, TempDir, RFIO};
use rfio::api::{BufferFiller, DedupePeers};

fn corpus(job: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(job)
        .to_str()
        .unwrap()
        .to_string()
}

/// Run `job` with both binaries in fresh directories: every data file fio
/// leaves must be there from rfio too, with the same bytes.
fn same_files_as_fio(job: &str) {
    let fio = real_fio();
    let job = corpus(job);
    let (a, b) = (TempDir::new("dedupe-fio"), TempDir::new("dedupe-rfio"));
    let fo = run(fio, &a.0, &["--minimal", &job]);
    let ro = run(RFIO, &b.0, &["--minimal", &job]);
    assert!(fo.status.success() && ro.status.success(), "{job}");
    let mut files = 0;
    for entry in std::fs::read_dir(&a.0).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let (x, y) = (
            std::fs::read(a.file(&name)).unwrap(),
            std::fs::read(b.file(&name)),
        );
        assert!(
            y.as_ref().is_ok_and(|y| *y == x),
            "{job}: {name} differs from fio's"
        );
        files += 1;
    }
    assert!(files > 0, "{job}: no files");
}

#[test]
fn working_set_and_repeat_write_fios_bytes() {
    same_files_as_fio("jobfiles/dedupe/working-set.fio");
    same_files_as_fio("jobfiles/dedupe/repeat-compress.fio");
}

/// End to end, the global sets need the runner to hand every job the
/// others' generators (`BufferFiller::share_working_set`).
#[test]
fn global_working_sets_write_fios_bytes() {
    same_files_as_fio("jobfiles/dedupe/dedupe-global.fio");
    same_files_as_fio("jobfiles/dedupe/global-numjobs.fio");
}

/// What a psync job writes with `refill_buffers` (iodepth 1): one buffer
/// filled when the job starts, then a refill before each write.
fn psync_writes(filler: &mut BufferFiller, bs: usize, size: usize) -> Vec<u8> {
    let mut buf = vec![0u8; bs];
    filler.fill(&mut buf);
    let mut out = Vec::with_capacity(size);
    while out.len() < size {
        filler.fill(&mut buf);
        out.extend_from_slice(&buf);
    }
    out
}

/// The global working sets, built from the plan as the runner builds them,
/// produce fio's files for a two-job `dedupe_global` job, and the two
/// files share blocks (the point of `dedupe_global`).
#[test]
fn global_working_set_matches_fio() {
    let common = [
        "--ioengine=psync",
        "--bs=4k",
        "--size=1m",
        "--rw=write",
        "--refill_buffers=1",
        "--dedupe_percentage=50",
        "--dedupe_mode=working_set",
        "--dedupe_working_set_percentage=50",
        "--dedupe_global=1",
    ];
    let mut argv: Vec<&str> = common.to_vec();
    argv.push("--name=a");
    argv.push("--name=b");
    let plan = common::plan(&argv);
    assert_eq!(plan.jobs.len(), 2);
    let peers = DedupePeers::of(&plan.jobs);
    let files: Vec<Vec<u8>> = plan
        .jobs
        .iter()
        .map(|spec| {
            let mut filler = BufferFiller::new(spec, &spec.seeds).unwrap();
            filler.share_working_set(&peers);
            psync_writes(&mut filler, 4096, 1 << 20)
        })
        .collect();
    let a: std::collections::HashSet<&[u8]> = files[0].chunks(4096).collect();
    assert!(
        files[1].chunks(4096).any(|blk| a.contains(blk)),
        "the files share blocks"
    );
    let fio = real_fio();
    let dir = TempDir::new("dedupe-global-lib");
    let out = run(fio, &dir.0, &argv);
    assert!(out.status.success());
    assert!(
        std::fs::read(dir.file("a.0.0")).unwrap() == files[0],
        "a.0.0"
    );
    assert!(
        std::fs::read(dir.file("b.0.0")).unwrap() == files[1],
        "b.0.0"
    );
}

#[test]
fn refusals_in_fios_words() {
    for (extra, msg) in [
        (
            &["--filesize=1m", "--ioengine=null"][..],
            "pregenerated dedupe working set requires size to be set",
        ),
        (
            &["--size=1m", "--nrfiles=2"][..],
            "dedupe working set mode supported with single file per job, but 2 files provided",
        ),
        (
            &["--size=1m", "--dedupe_working_set_percentage=60"][..],
            "impossible to reach expected dedupe percentage 50 since 60 percentage of size is \
             reserved to dedupe working set (those are unique pages)",
        ),
    ] {
        let dir = TempDir::new("dedupe-err");
        let mut args = vec![
            "--name=d",
            "--rw=write",
            "--dedupe_percentage=50",
            "--dedupe_mode=working_set",
        ];
        args.extend_from_slice(extra);
        let out = run(RFIO, &dir.0, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(err.contains(msg), "{extra:?}: {err}");
        assert!(
            std::fs::read_dir(&dir.0).unwrap().next().is_none(),
            "no file: {extra:?}"
        );
    }
}
