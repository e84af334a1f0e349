//! Which I/O gets which priority (`cmdprio_percentage`, `cmdprio_class`,
//! `cmdprio`, `cmdprio_bssplit`), and how the statistics, groups, logs and
//! the libaio and io_uring engines carry it, against fio 3.33 (the report
//! rendering itself is tested against fio's golden runs in `cmdprio.rs`).

use std::path::Path;

use rfio::api::Ddir;
use rfio::api::{
    global_options, lookup_engine, AlignedBuf, ClatPrio, Completion, FileTarget, Io, IoMem,
    JobInfo, JobReport, OpenFlags, Plan, Queued, RunReport, Summary, ThreadStats, NO_SLAT,
};

use crate::cmdprio::{json, normal};
use crate::common;
use common::{plan, TempDir};

/// A job's statistics fed one I/O at a time, as the I/O loop does.
struct Feed {
    info: JobInfo,
    ts: ThreadStats,
    t: u64,
}

impl Feed {
    fn new(spec: &rfio::api::JobSpec) -> Feed {
        let mut ts = common::thread_stats(spec);
        ts.job_started();
        Feed {
            info: spec.report.clone(),
            ts,
            t: 0,
        }
    }

    /// `n` reads (`dir` 0) or writes of 4 KiB with completion latency
    /// `clat`, at priority slot `slot`.
    fn io(&mut self, dir: usize, n: u64, slat: u64, clat: u64, slot: u16) -> &mut Feed {
        for _ in 0..n {
            self.t += 1_000_000;
            self.ts.complete(&Completion {
                dir: Ddir::DATA[dir],
                bytes: 4096,
                slat_ns: slat,
                clat_ns: clat,
                at_ns: self.t,
                offset: self.t,
                prio_slot: slot,
                ..Completion::default()
            });
        }
        self
    }

    fn report(&mut self) -> JobReport {
        self.ts.elapsed_us = self.t / 1000 + 1;
        self.ts.job_finished();
        JobReport::new(self.info.clone(), 1, None, &self.ts)
    }
}

fn prio_n(prios: &[ClatPrio]) -> Vec<(u16, u16, u64)> {
    prios
        .iter()
        .map(|p| (p.class(), p.level(), p.lat.samples()))
        .collect()
}

#[test]
fn slots_follow_the_job_and_its_command_priorities() {
    let p = plan(&[
        "--name=j",
        "--ioengine=libaio",
        "--size=1m",
        "--rw=randrw",
        "--prioclass=2",
        "--prio=7",
        "--cmdprio_percentage=20,0",
        "--cmdprio_class=3",
        "--cmdprio=1",
    ]);
    let mut f = Feed::new(&p.jobs[0]);
    assert_eq!(f.ts.ioprio, 0x4007);
    assert_eq!(prio_n(&f.ts.prios[0]), [(2, 7, 0), (3, 1, 0)]);
    assert!(f.ts.prios[1].is_empty(), "no command priorities for writes");
    f.io(0, 3, 1000, 50_000, 0)
        .io(0, 2, 1000, 90_000, 1)
        .io(1, 4, 1000, 70_000, 0);
    let j = f.report();
    assert_eq!(j.ioprio, 0x4007);
    assert_eq!(prio_n(&j.prios[0]), [(2, 7, 3), (3, 1, 2)]);
    let s = Summary::new(&RunReport::new(vec![j], global_options(&p), 0, 1, Vec::new()).jobs);
    let e = &s.entries[0];
    assert_eq!(prio_n(&e.prios[0]), [(2, 7, 3), (3, 1, 2)]);
    // Writes have no table: all of them under the job's priority (one
    // priority, not reported).
    assert_eq!(prio_n(&e.prios[1]), [(2, 7, 4)]);
    let out =
        normal(&RunReport::new(vec![], global_options(&p), 0, 1, Vec::new()).of_release(p.release));
    assert!(!out.contains("prio"));
}

#[test]
fn lat_percentiles_count_the_total_latency() {
    let p = plan(&[
        "--name=j",
        "--ioengine=libaio",
        "--size=1m",
        "--rw=randread",
        "--cmdprio_percentage=50",
        "--lat_percentiles=1",
    ]);
    let mut f = Feed::new(&p.jobs[0]);
    f.io(0, 2, 5_000, 100_000, 0).io(0, 2, 5_000, 40_000, 1);
    let j = f.report();
    let s = |i: usize| j.prios[0][i].lat.summary().unwrap();
    assert_eq!((s(0).min, s(0).max), (105_000, 105_000));
    assert_eq!((s(1).min, s(1).max), (45_000, 45_000));
    let r = RunReport::new(vec![j], global_options(&p), 0, 1, Vec::new()).of_release(p.release);
    let out = normal(&r);
    assert!(
        out.contains(
            "    lat prio 0/0 (nsec): min=105000, max=105000, avg=105000.00, stdev= 0.00\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("    lat prio 1/0 (nsec): min=45000, max=45000, avg=45000.00, stdev= 0.00\n")
    );
    assert!(out.contains("    lat prio 1/0 (50.00% of IOs) percentiles (nsec):\n"));
    let doc = json(&r);
    assert_eq!(doc["jobs"][0]["read"]["prios"][1]["lat_ns"]["min"], 45_000);
    // clat_percentiles=0 and lat_percentiles=0: the per-priority lines
    // stay, the tables go, and JSON has no percentiles for them.
    let p = plan(&[
        "--name=j",
        "--ioengine=libaio",
        "--size=1m",
        "--rw=randread",
        "--cmdprio_percentage=50",
        "--clat_percentiles=0",
    ]);
    let mut f = Feed::new(&p.jobs[0]);
    f.io(0, 2, 5_000, 100_000, 0).io(0, 2, 5_000, 40_000, 1);
    let r = RunReport::new(vec![f.report()], global_options(&p), 0, 1, Vec::new())
        .of_release(p.release);
    let out = normal(&r);
    assert!(
        out.contains("    clat prio 1/0 (nsec): min=40000, max=40000"),
        "{out}"
    );
    assert!(!out.contains("of IOs"));
    let doc = json(&r);
    assert!(doc["jobs"][0]["read"]["prios"][0]["clat_ns"]
        .get("percentile")
        .is_none());
}

/// group_reporting sums the members' statistics by priority (fio's
/// `sum_clat_prio_stats`).
#[test]
fn groups_sum_by_priority() {
    let p = plan(&[
        "--name=g",
        "--ioengine=libaio",
        "--size=1m",
        "--rw=randread",
        "--cmdprio_percentage=40",
        "--numjobs=2",
        "--group_reporting",
    ]);
    let mut a = Feed::new(&p.jobs[0]);
    a.io(0, 5, 1000, 30_000, 0).io(0, 3, 1000, 20_000, 1);
    let mut b = Feed::new(&p.jobs[1]);
    b.io(0, 2, 1000, 60_000, 1).io(0, 1, 1000, 10_000, 0);
    let r = RunReport::new(
        vec![a.report(), b.report()],
        global_options(&p),
        0,
        1,
        Vec::new(),
    )
    .of_release(p.release);
    let s = Summary::new(&r.jobs);
    assert_eq!(s.entries.len(), 1);
    assert_eq!(prio_n(&s.entries[0].prios[0]), [(0, 0, 6), (1, 0, 5)]);
    let out = normal(&r);
    assert!(
        out.contains("    clat prio 0/0 (54.55% of IOs) percentiles (nsec):\n"),
        "{out}"
    );
    assert!(out.contains("    clat prio 1/0 (45.45% of IOs) percentiles (nsec):\n"));
}

/// Jobs of different priorities (`prio`, no command priorities) reported
/// together: fio keeps per-priority statistics for the group, each job's
/// I/Os under its own priority. The same priority, or no group: none.
#[test]
fn groups_of_different_job_priorities() {
    let argv = |prio2: &str, group: bool| {
        let mut a = vec![
            "--ioengine=psync",
            "--size=256k",
            "--rw=randread",
            "--name=a",
            "--prio=3",
            "--name=b",
        ];
        a.push(prio2);
        if group {
            a.insert(0, "--group_reporting");
        }
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let run = |p: &Plan| {
        let mut a = Feed::new(&p.jobs[0]);
        a.io(0, 4, NO_SLAT, 30_000, 0);
        let mut b = Feed::new(&p.jobs[1]);
        b.io(0, 4, NO_SLAT, 50_000, 0);
        RunReport::new(
            vec![a.report(), b.report()],
            global_options(p),
            0,
            1,
            Vec::new(),
        )
        .of_release(p.release)
    };
    let p = plan(&argv("--prio=5", true));
    assert!(p.jobs.iter().all(|j| j.group_reporting));
    let r = run(&p);
    let s = Summary::new(&r.jobs);
    assert_eq!(prio_n(&s.entries[0].prios[0]), [(2, 3, 4), (2, 5, 4)]);
    let out = normal(&r);
    assert!(
        out.contains("    clat prio 2/3 (nsec): min=30000, max=30000, avg=30000.00, stdev= 0.00\n"),
        "{out}"
    );
    assert!(out.contains("    clat prio 2/5 (50.00% of IOs) percentiles (nsec):\n"));
    let doc = json(&r);
    let prios = doc["jobs"][0]["read"]["prios"].as_array().unwrap();
    assert_eq!(prios.len(), 2);
    assert_eq!(prios[1]["prioclass"], 2);
    assert_eq!(prios[1]["prio"], 5);
    for (a, group) in [("--prio=3", true), ("--prio=5", false)] {
        let p = plan(&argv(a, group));
        assert!(!normal(&run(&p)).contains("prio"), "{a} {group}");
    }
}

/// unified_rw_reporting: `mixed` sums reads and writes by priority; `both`
/// adds a mixed block with its own per-priority statistics.
#[test]
fn unified_reporting_sums_directions() {
    for mode in ["mixed", "both"] {
        let p = plan(&[
            "--name=u",
            "--ioengine=libaio",
            "--size=1m",
            "--rw=randrw",
            "--prio=7",
            "--prioclass=2",
            "--cmdprio_percentage=40",
            &format!("--unified_rw_reporting={mode}"),
        ]);
        let mut f = Feed::new(&p.jobs[0]);
        f.io(0, 3, 1000, 30_000, 0)
            .io(0, 1, 1000, 20_000, 1)
            .io(1, 2, 1000, 40_000, 1)
            .io(1, 1, 1000, 40_000, 0);
        let r = RunReport::new(vec![f.report()], global_options(&p), 0, 1, Vec::new());
        let s = Summary::new(&r.jobs);
        let e = &s.entries[0];
        let mixed = if mode == "mixed" {
            e.prios[0].clone()
        } else {
            e.mixed_prios()
        };
        assert_eq!(prio_n(&mixed), [(2, 7, 4), (1, 0, 3)], "{mode}");
        let doc = json(&r);
        let prios = doc["jobs"][0]["mixed"]["prios"].as_array().unwrap();
        assert_eq!(prios[0]["clat_ns"]["N"], 4);
        assert_eq!(prios[1]["clat_ns"]["N"], 3);
        let out = normal(&r);
        assert!(
            out.contains("    clat prio 1/0 (42.86% of IOs) percentiles (nsec):\n"),
            "{out}"
        );
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The last column of the per-I/O logs: the I/O's priority value with
/// `log_prio=1` (`0x%04x`), else 1 for the real-time class (fio 3.33:
/// `0, 215561, 0, 4096, 0x2000`; `0, 247639, 0, 4096, 1`).
#[test]
fn logs_show_each_ios_priority() {
    let dir = TempDir::new("cmdprio-logs");
    for (log_prio, rt, other) in [("1", "0x2000", "0x4003"), ("0", "1", "0")] {
        let prefix = dir.file(&format!("p{log_prio}")).display().to_string();
        let p = plan(&[
            "--name=j",
            "--ioengine=libaio",
            "--size=1m",
            "--rw=randread",
            "--prio=3",
            "--cmdprio_percentage=50",
            &format!("--write_lat_log={prefix}"),
            &format!("--write_bw_log={prefix}"),
            &format!("--log_prio={log_prio}"),
            "--log_offset=1",
        ]);
        let mut f = Feed::new(&p.jobs[0]);
        f.io(0, 1, 1000, 30_000, 1).io(0, 1, 1000, 30_000, 0);
        f.report();
        for kind in ["lat", "clat", "slat", "bw"] {
            let text = read(Path::new(&format!("{prefix}_{kind}.1.log")));
            let last: Vec<&str> = text
                .lines()
                .map(|l| l.rsplit(", ").next().unwrap())
                .collect();
            assert_eq!(last, [rt, other], "{kind}: {text}");
            assert_eq!(
                text.lines().next().unwrap().split(", ").nth(4),
                Some("1000000"),
                "{kind} offset"
            );
        }
    }
}

/// The engines pick the same I/Os as fio: the slots of 64 reads of a
/// libaio (and io_uring) job at iodepth 1 are fio's (its `log_prio=1`
/// latency log for `--rw=randread --iodepth=1 --cmdprio_percentage=30
/// --cmdprio_class=1 --direct=1 --size=1M`: 0x2000 as 1).
#[test]
fn engines_pick_the_ios_fio_picks() {
    const FIO: &str = "1011000000000100001000111000100011011010000010000001010000001100";
    let dir = TempDir::new("cmdprio-engine");
    let path = dir.file("f");
    std::fs::write(&path, vec![0u8; 1 << 20]).unwrap();
    for engine in ["libaio", "io_uring"] {
        if !common::require_engine(engine, 1) {
            continue;
        }
        let p = plan(&[
            "--name=p",
            &format!("--ioengine={engine}"),
            "--size=1m",
            "--rw=randread",
            "--cmdprio_percentage=30",
            "--cmdprio_class=1",
        ]);
        let mut buf = AlignedBuf::new(4096);
        let mem = IoMem {
            base: buf.as_mut_ptr(),
            unit: 4096,
            units: 1,
        };
        let spec = &p.jobs[0].engine;
        assert_eq!(spec.common.iodepth, 1);
        let def = lookup_engine(engine).unwrap();
        let mut e = (def.new)(spec, mem, None).unwrap_or_else(|err| panic!("{engine}: {err}"));
        let target = FileTarget {
            path: path.clone(),
            flags: OpenFlags::default(),
            region_end: 1 << 20,
        };
        let file = e.open(&target).unwrap();
        e.post_init().unwrap();
        let mut got = String::new();
        for k in 0..64u64 {
            let io = Io {
                token: 0,
                file,
                dir: Ddir::Read,
                offset: k * 4096,
                len: 4096,
                buf: mem.base,
            };
            // SAFETY: `buf` (4096 bytes) outlives the I/O, which completes
            // before the next is queued; token 0 is the only one.
            match unsafe { e.queue(&io) } {
                Queued::Queued => {
                    e.commit().unwrap();
                    assert_eq!(e.getevents(1, 1, None).unwrap(), 1);
                    assert_eq!(e.event(0).result, Ok(4096));
                }
                other => panic!("{engine}: {other:?}"),
            }
            got.push(if e.prio_slot(0) == 1 { '1' } else { '0' });
        }
        e.close_all();
        assert_eq!(got, FIO, "{engine}");
    }
}

fn run(argv: &[&str]) -> RunReport {
    let p = plan(argv);
    rfio::api::run(&p).expect("run starts")
}

/// jobfiles/cmdprio/percentage.fio end to end: fio 3.33 puts 262 of the
/// 512 reads at 0/0 and 250 at 1/0, every run.
#[test]
fn end_to_end_counts_per_priority_as_fio() {
    let dir = TempDir::new("cmdprio-e2e");
    let file = dir.arg("p.dat");
    for engine in ["libaio", "io_uring"] {
        if !common::require_engine(engine, 4) {
            continue;
        }
        let r = run(&[
            "--name=p",
            &format!("--ioengine={engine}"),
            &file,
            "--size=2m",
            "--rw=randread",
            "--iodepth=4",
            "--cmdprio_percentage=50",
            "--cmdprio_class=1",
        ]);
        let j = &r.jobs[0];
        assert_eq!(j.error, 0, "{engine}: {:?}", j.error_msg);
        assert_eq!(prio_n(&j.prios[0]), [(0, 0, 262), (1, 0, 250)], "{engine}");
    }
}
