//! Golden tests: deterministic run reports, built by feeding synthetic I/O
//! completions through `ThreadStats` (no engine, no clock), rendered in
//! every format and compared byte for byte with the snapshots in
//! `tests/golden/`. `RFIO_BLESS=1 cargo test --test it output_golden`
//! rewrites the snapshots; review the diff before committing it.
//!
//! The layouts themselves are checked against real fio in
//! `output_replay.rs`; these snapshots pin down everything else (merging,
//! percentiles, units, sampling) so that any change shows up in review.

use std::path::{Path, PathBuf};

use rfio::api::Ddir;
use rfio::api::{
    render_json, render_normal, render_terse, Completion, CpuUsage, DiskCounters, DiskUtil,
    JobReport, Plan, RunReport, NO_SLAT,
};

use crate::common;
use common::plan;

/// 2026-11-29 22:07:12.430 UTC, the date of the fio runs in the notes.
const FINISHED_MS: u64 = 1_795_990_032_430;

/// A small deterministic generator (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

/// How a synthetic job behaves.
struct Synth {
    ios: u64,
    /// Nanoseconds between completions.
    step_ns: u64,
    /// Submission latencies (an async engine) or none.
    slat: bool,
    fsync_every: u64,
    error: Option<(i32, &'static str)>,
}

impl Default for Synth {
    fn default() -> Synth {
        Synth {
            ios: 3000,
            step_ns: 500_000,
            slat: false,
            fsync_every: 0,
            error: None,
        }
    }
}

fn job(plan: &Plan, i: usize, s: &Synth) -> JobReport {
    let spec = &plan.jobs[i];
    let mut ts = common::thread_stats(spec);
    ts.job_started();
    let mut rng = Lcg(0x5eed + i as u64);
    let p = spec.pattern;
    let dirs: Vec<usize> = [(p.read, 0), (p.write, 1), (p.trim, 2)]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, d)| *d)
        .collect();
    let depth = spec.iodepth;
    for k in 0..s.ios {
        let d = dirs[(rng.next() % dirs.len() as u64) as usize];
        let bs = spec.bs[d].0;
        // Mostly 20-80 µs, a tail to a few ms.
        let r = rng.next();
        let clat = 20_000 + r % 60_000 + if r % 97 == 0 { r % 4_000_000 } else { 0 };
        let slat = if s.slat {
            1_000 + rng.next() % 9_000
        } else {
            NO_SLAT
        };
        ts.io_submitted(1 + (k % u64::from(depth)) as u32);
        ts.io_submit_batch(1);
        ts.io_complete_batch(if k % 7 == 0 { 5 } else { 1 });
        ts.complete(&Completion {
            dir: Ddir::DATA[d],
            bytes: bs,
            slat_ns: slat,
            clat_ns: clat,
            at_ns: (k + 1) * s.step_ns,
            ..Completion::default()
        });
        if s.fsync_every > 0 && (k + 1) % s.fsync_every == 0 {
            ts.sync_done(100_000 + rng.next() % 900_000);
        }
    }
    if let Some((errno, msg)) = s.error {
        ts.error = errno;
        ts.error_msg = Some(msg.to_string());
        ts.io_error(errno);
    }
    ts.elapsed_us = s.ios * s.step_ns / 1000 + 250;
    ts.job_finished();
    ts.cpu = CpuUsage {
        usr_ms: 120 + i as u64,
        sys_ms: 340,
        ctx: 2 * s.ios,
        majf: 0,
        minf: 17,
    };
    JobReport::new(spec.report.clone(), 4000 + i as u32, None, &ts)
}

fn report(plan: &Plan, synth: &[Synth], disks: Vec<DiskUtil>) -> RunReport {
    let jobs = (0..plan.jobs.len())
        .map(|i| job(plan, i, &synth[i.min(synth.len() - 1)]))
        .collect();
    let globals = rfio::api::global_options(plan);
    let mut r = RunReport::new(jobs, globals, FINISHED_MS - 2_600, FINISHED_MS, disks)
        .of_release(plan.release);
    // The snapshots' dates are in UTC, wherever they are rendered.
    r.utc_offset = 0;
    r
}

fn vda() -> Vec<DiskUtil> {
    vec![DiskUtil {
        name: "vda".into(),
        stats: DiskCounters {
            ios: [3787, 2022],
            merges: [1, 7],
            sectors: [30296, 16176],
            ticks: [308, 839],
            io_ticks: 99,
            time_in_queue: 1148,
        },
        msec: 2600,
        slaves: Vec::new(),
    }]
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compare `text` with snapshot `name`, or rewrite it with RFIO_BLESS=1.
fn check(name: &str, text: &str) {
    let path = golden_dir().join(name);
    if std::env::var_os("RFIO_BLESS").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with RFIO_BLESS=1)", path.display()));
    if want != text {
        let (w, t): (Vec<&str>, Vec<&str>) = (want.lines().collect(), text.lines().collect());
        let line = w
            .iter()
            .zip(&t)
            .position(|(a, b)| a != b)
            .unwrap_or(w.len().min(t.len()));
        panic!(
            "{name} differs from the snapshot at line {}:\n snapshot: {:?}\n rendered: {:?}\n(RFIO_BLESS=1 rewrites snapshots)",
            line + 1,
            w.get(line),
            t.get(line)
        );
    }
}

/// Every format of one case.
fn all_formats(case: &str, report: &RunReport) {
    check(&format!("{case}.normal"), &render_normal(report));
    for v in 2..=5u8 {
        check(&format!("{case}.terse{v}"), &render_terse(report, v));
    }
    check(&format!("{case}.json"), &render_json(report, false));
    check(&format!("{case}.json+"), &render_json(report, true));
}

#[test]
fn three_jobs_two_groups() {
    let p = plan(&[
        "--name=a",
        "--ioengine=null",
        "--rw=randrw",
        "--bs=4k",
        "--size=64m",
        "--iodepth=4",
        "--name=b",
        "--ioengine=null",
        "--rw=write",
        "--bs=64k",
        "--size=32m",
        "--fsync=8",
        "--description=golden job",
        "--name=c",
        "--ioengine=null",
        "--rw=randread",
        "--bs=1m",
        "--size=1g",
        "--stonewall",
    ]);
    let r = report(
        &p,
        &[
            Synth {
                slat: true,
                ..Synth::default()
            },
            Synth {
                ios: 900,
                step_ns: 1_000_000,
                fsync_every: 8,
                ..Synth::default()
            },
            Synth {
                ios: 200,
                step_ns: 2_000_000,
                ..Synth::default()
            },
        ],
        vda(),
    );
    all_formats("three_jobs", &r);
}

#[test]
fn group_reporting_with_percentile_options() {
    let p = plan(&[
        "--group_reporting",
        "--name=g",
        "--ioengine=null",
        "--numjobs=3",
        "--rw=read",
        "--size=16m",
        "--lat_percentiles=1",
        "--slat_percentiles=1",
        "--percentile_list=10:50:90:99.5:99.999",
        "--kb_base=1000",
        "--significant_figures=6",
    ]);
    let r = report(
        &p,
        &[Synth {
            slat: true,
            ..Synth::default()
        }],
        vda(),
    );
    all_formats("group_reporting", &r);
}

#[test]
fn unified_rw_reporting_both_and_mixed() {
    let p = plan(&[
        "--name=both",
        "--ioengine=null",
        "--rw=randrw",
        "--size=8m",
        "--unified_rw_reporting=both",
        "--unit_base=1",
        "--name=mixed",
        "--ioengine=null",
        "--rw=rw",
        "--size=8m",
        "--unified_rw_reporting=mixed",
        "--stonewall",
    ]);
    let r = report(&p, &[Synth::default()], Vec::new());
    all_formats("unified", &r);
}

#[test]
fn gtod_reduce_and_errors() {
    let p = plan(&[
        "--name=g",
        "--ioengine=null",
        "--size=1m",
        "--gtod_reduce=1",
        "--name=e",
        "--ioengine=null",
        "--size=1m",
        "--continue_on_error=all",
        "--name=f",
        "--ioengine=null",
        "--size=1m",
    ]);
    let r = report(
        &p,
        &[
            Synth::default(),
            Synth {
                ios: 100,
                error: Some((5, "file x.0.0: io: Input/output error")),
                ..Synth::default()
            },
            Synth {
                ios: 0,
                error: Some((2, "file f.0.0: open: No such file or directory")),
                ..Synth::default()
            },
        ],
        Vec::new(),
    );
    all_formats("gtod_errors", &r);
}
