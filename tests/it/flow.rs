//! Flows (`flow_id`, `flow`, `flow_sleep`), `io_submit_mode=offload` and
//! `rate_ignore_thinktime`, run through the binary as a user runs them.
//! The jobs are small (at most a second each); the ratios they check have
//! the tolerance of fio's own tests (t0011, t0012), since they run on a
//! loaded machine.

use crate::common;

use std::process::Output;

use common::{rfio, stderr, TempDir};

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// Job `i`'s `total_ios` in direction `dir`.
fn ios(j: &serde_json::Value, i: usize, dir: &str) -> u64 {
    j["jobs"][i][dir]["total_ios"].as_u64().unwrap()
}

fn run_json(dir: &TempDir, args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--output-format=json");
    let o = rfio(dir, &a);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

/// Job `i`'s `job_runtime` in ms.
fn runtime_ms(j: &serde_json::Value, i: usize) -> u64 {
    j["jobs"][i]["job_runtime"].as_u64().unwrap()
}

/// t0011 in small, made one-sided so that load cannot fail it: a pacer of
/// weight 1 at 500 IOPS for 1 s, and a job of weight 4 with no limit that
/// stops after 1,600 I/Os. Held to four times the pacer's count (plus
/// four, since the flow's counter starts at 1), it needs the pacer at 399
/// I/Os, 0.8 s into the run; had it not been held, it would be done in a
/// few milliseconds. A starved pacer can only make it later, and once the
/// pacer leaves the flow it runs free, so it always does all its I/O.
#[test]
fn a_flow_holds_a_job_to_its_weight() {
    let dir = TempDir::new("flow-weight");
    let j = run_json(
        &dir,
        &[
            "--ioengine=null",
            "--size=100g",
            "--flow_id=1",
            "--name=pacer",
            "--flow=1",
            "--rate_iops=500",
            "--runtime=1",
            "--time_based",
            "--name=held",
            "--flow=4",
            "--number_ios=1600",
        ],
    );
    let pacer = ios(&j, 0, "read");
    assert!(pacer <= 505, "the pacer beat its rate: {pacer}");
    assert_eq!(ios(&j, 1, "read"), 1600);
    let held = runtime_ms(&j, 1);
    assert!(held >= 700, "held for {held} ms only");
}

/// t0012 in small, one-sided as above: weights 1:2:3 with `flow_sleep`. The
/// pacer (weight 1, 500 IOPS, 1 s) sets the pace; jobs of weight 2 and 3
/// each stop after 900 I/Os. While both are in the flow the one of weight 3
/// stays within half the flow's counter and the one of weight 2 within a
/// third, so the heavier one is done first, once the pacer has 300 (0.6 s
/// in); then the flow is the pacer's and the lighter one's, which is held
/// to twice the pacer's count and done once the pacer has 450 (0.9 s). A
/// held job sleeps `flow_sleep` rather than spinning, so it uses little
/// CPU time.
#[test]
fn three_weights_with_flow_sleep() {
    let dir = TempDir::new("flow-sleep");
    let j = run_json(
        &dir,
        &[
            "--ioengine=null",
            "--size=100g",
            "--flow_sleep=1000",
            "--name=pacer",
            "--flow=1",
            "--rate_iops=500",
            "--runtime=1",
            "--time_based",
            "--name=two",
            "--flow=2",
            "--number_ios=900",
            "--name=three",
            "--flow=3",
            "--number_ios=900",
        ],
    );
    assert!(ios(&j, 0, "read") <= 505, "{}", ios(&j, 0, "read"));
    assert_eq!((ios(&j, 1, "read"), ios(&j, 2, "read")), (900, 900));
    let (two, three) = (runtime_ms(&j, 1), runtime_ms(&j, 2));
    assert!(three >= 500, "weight 3 held for {three} ms only");
    assert!(two >= 800, "weight 2 held for {two} ms only");
    // Both started within a few ms of each other; the lighter one cannot
    // finish while the heavier one is still in the flow.
    assert!(
        two + 50 >= three,
        "weight 2 done in {two} ms, weight 3 in {three}"
    );
    for i in [1, 2] {
        let cpu =
            j["jobs"][i]["usr_cpu"].as_f64().unwrap() + j["jobs"][i]["sys_cpu"].as_f64().unwrap();
        assert!(cpu < 50.0, "job {i} spun: {cpu}% CPU");
    }
}

/// Every job joins its flow when the run starts, as in fio: a job of the
/// second group weighs on the first group's job, which issues two I/Os
/// (0/1 and 1/2 of the flow's counter are within its half) and is then
/// held back for its whole runtime; the second job, alone in the flow once
/// the first left it, runs through its size. fio 3.33 reports the same.
#[test]
fn a_later_jobs_weight_counts_from_the_start() {
    let dir = TempDir::new("flow-later");
    let j = run_json(
        &dir,
        &[
            "--ioengine=null",
            "--size=1m",
            "--runtime=500ms",
            "--flow_id=2",
            "--name=a",
            "--flow=1",
            "--name=b",
            "--stonewall",
            "--flow=1",
        ],
    );
    assert_eq!((ios(&j, 0, "read"), ios(&j, 1, "read")), (2, 256));
    let runtime = j["jobs"][0]["job_runtime"].as_u64().unwrap();
    assert!((500..2000).contains(&runtime), "{runtime}");
}

/// Jobs in different flows, or without a weight, do not hold each other
/// back: a job of weight 1 alone in its flow runs through its size.
#[test]
fn flows_are_per_id() {
    let dir = TempDir::new("flow-ids");
    let j = run_json(
        &dir,
        &[
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--flow_id=1",
            "--flow=1",
            "--name=b",
            "--flow_id=2",
            "--flow=1000",
            "--name=c",
        ],
    );
    for i in 0..3 {
        assert_eq!(ios(&j, i, "read"), 256);
    }
}

/// The same job inline and offloaded: the same I/O, counted the same; the
/// workers run at depth 1; a synchronous engine records no slat, and the
/// time an I/O waits for its worker is in its latency.
#[test]
fn offload_moves_the_same_io() {
    let dir = TempDir::new("offload-same");
    let file = dir.arg("f");
    for (engine, depth) in [("psync", "1"), ("psync", "4"), ("null", "1")] {
        let job = |mode: &str| {
            run_json(
                &dir,
                &[
                    "--name=t",
                    &file,
                    "--rw=randrw",
                    "--size=1m",
                    &format!("--ioengine={engine}"),
                    &format!("--iodepth={depth}"),
                    &format!("--io_submit_mode={mode}"),
                ],
            )
        };
        let (inline, off) = (job("inline"), job("offload"));
        for d in ["read", "write"] {
            assert_eq!(ios(&inline, 0, d), ios(&off, 0, d), "{engine} {d}");
            let r = &off["jobs"][0][d];
            assert_eq!(r["slat_ns"]["N"], 0, "{engine} {d}");
            assert_eq!(r["clat_ns"]["N"], r["lat_ns"]["N"]);
            let (lat, clat) = (r["lat_ns"]["mean"].as_f64(), r["clat_ns"]["mean"].as_f64());
            assert!(lat >= clat, "{engine} {d}: lat {lat:?} clat {clat:?}");
        }
        assert_eq!(ios(&off, 0, "read") + ios(&off, 0, "write"), 256);
        let j = &off["jobs"][0];
        assert_eq!(j["iodepth_level"]["1"], 100.0, "{engine} {depth}");
    }
}

/// Offloaded, the job thread keeps to its rate while the workers do the
/// I/O (fio quiesces before a rate wait only inline).
#[test]
fn offload_keeps_the_rate() {
    let dir = TempDir::new("offload-rate");
    let j = run_json(
        &dir,
        &[
            "--name=t",
            "--ioengine=null",
            "--size=100g",
            "--runtime=500ms",
            "--time_based",
            "--iodepth=2",
            "--rate_iops=1000",
            "--io_submit_mode=offload",
        ],
    );
    let n = ios(&j, 0, "read");
    assert!((300..=505).contains(&n), "{n}");
}

/// io_uring cannot be offloaded: fio refuses the job while it adds it,
/// before any job runs (nothing is laid out), and exits 1.
#[test]
fn io_uring_cannot_be_offloaded() {
    let dir = TempDir::new("offload-uring");
    let file = dir.arg("f");
    let o = rfio(
        &dir,
        &[
            "--name=ok",
            "--ioengine=null",
            "--size=64k",
            "--name=t",
            &file,
            "--size=64k",
            "--io_submit_mode=offload",
            "--ioengine=io_uring",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "io_uring: can't be used with offloaded submit. Use a sync engine\n\
         fio: failed to load engine\n"
    );
    assert!(common::stdout(&o).starts_with("ok: (g=0): rw=read"));
    assert!(!dir.file("f").exists());
}

/// t0013 in small: offloaded jobs with `serialize_overlap` over one block
/// each wait for one another (fio compares offsets only), and all finish.
#[test]
fn offloaded_jobs_serialize_their_overlaps() {
    let dir = TempDir::new("offload-overlap");
    let o = rfio(
        &dir,
        &[
            "--name=t",
            "--ioengine=null",
            "--thread",
            "--size=4k",
            "--bs=4k",
            "--io_submit_mode=offload",
            "--serialize_overlap=1",
            "--numjobs=4",
            "--loops=500",
            "--output-format=json",
        ],
    );
    assert!(o.status.success());
    assert_eq!(stderr(&o), "");
    let j = json(&o);
    for i in 0..4 {
        assert_eq!(ios(&j, i, "read"), 500);
    }
}

/// `rate_ignore_thinktime`: after each think time the rate counts the
/// blocks it would have moved meanwhile, and does not catch up.
#[test]
fn rate_ignore_thinktime_does_not_catch_up() {
    let dir = TempDir::new("rate-ignore-think");
    let job = |ignore: &str| {
        let j = run_json(
            &dir,
            &[
                "--name=t",
                "--ioengine=null",
                "--size=100g",
                "--runtime=1",
                "--time_based",
                "--rate_iops=200",
                "--thinktime=15ms",
                "--thinktime_blocks=10",
                &format!("--rate_ignore_thinktime={ignore}"),
            ],
        );
        ios(&j, 0, "read")
    };
    // fio's arithmetic on an exact clock: 200 and 169 I/Os (fio 3.33
    // here: 200 and 168).
    let (caught_up, ignored) = (job("0"), job("1"));
    assert!((185..=201).contains(&caught_up), "{caught_up}");
    assert!((150..=175).contains(&ignored), "{ignored}");
}

/// `rate=1` (a byte a second) with `runtime=2`: the wait for the second
/// read ends with the runtime, which fio 3.33 ends at 2.0 s with one 4 KiB
/// read; rfio slept the whole wait (4096 s).
#[test]
fn a_rate_wait_ends_with_the_runtime() {
    let dir = TempDir::new("rate-runtime");
    let started = std::time::Instant::now();
    let o = common::run_limited(
        common::RFIO,
        &dir,
        &[
            "--name=t",
            "--ioengine=null",
            "--bs=4k",
            "--size=1m",
            "--rate=1",
            "--runtime=2",
            "--time_based",
            "--output-format=json",
        ],
        std::time::Duration::from_secs(30),
    );
    let took = started.elapsed();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(took.as_secs_f64() < 6.0, "took {took:?}");
    let j = json(&o);
    assert_eq!(ios(&j, 0, "read"), 1);
    assert_eq!(j["jobs"][0]["read"]["io_bytes"], 4096);
    let ms = runtime_ms(&j, 0);
    assert!((2000..2500).contains(&ms), "{ms}");
}
