//! Micro benchmarks of rfio's own hot pieces, through the library: the job
//! parser, the latency histogram, and the null-engine submit loop. They
//! have no fio counterpart; their table goes into RESULTS.md below the
//! side-by-side one.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rfio::api::{parse_args, Args, Keywords, LatHist};

/// One measured micro case.
pub(crate) struct Micro {
    pub(crate) name: &'static str,
    pub(crate) measures: &'static str,
    pub(crate) median: String,
    pub(crate) rate: String,
}

/// The median of `reps` runs of `f`.
fn median(reps: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..reps.max(1)).map(|_| f()).collect();
    times.sort();
    times[times.len() / 2]
}

fn jobs_text(n: usize) -> String {
    let mut text = String::from("[global]\nioengine=null\nsize=1m\nbs=4k\n\n");
    for i in 0..n {
        text.push_str(&format!(
            "[job{i}]\nrw=randread\niodepth={}\nnumjobs=1\n\n",
            1 + i % 32
        ));
    }
    text
}

fn parser(reps: usize) -> Micro {
    const JOBS: usize = 10_000;
    let text = jobs_text(JOBS);
    let keywords = Keywords::from_system();
    let args = Args::default();
    let t = median(reps, || {
        let start = Instant::now();
        let file = rfio::api::parse_bytes(Arc::from(Path::new("bench.fio")), text.as_bytes())
            .expect("the generated job file parses");
        let fe = rfio::api::build_plan(&args, std::slice::from_ref(&file), &keywords);
        assert_eq!(fe.plan.jobs.len(), JOBS);
        black_box(fe);
        start.elapsed()
    });
    Micro {
        name: "parse-plan-10k",
        measures: "job file (10,000 jobs) → syntax tree → options → plan, in process",
        median: format!("{:.1} ms", t.as_secs_f64() * 1e3),
        rate: format!(
            "{:.0}k jobs/s, {:.0} MB/s",
            JOBS as f64 / t.as_secs_f64() / 1e3,
            text.len() as f64 / t.as_secs_f64() / 1e6
        ),
    }
}

/// Latencies spread like real ones: mostly µs, a tail of ms.
fn samples(n: usize) -> Vec<u64> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            1_000 + x % 200_000 + if x % 100 == 0 { x % 50_000_000 } else { 0 }
        })
        .collect()
}

fn histogram(reps: usize) -> Vec<Micro> {
    const N: usize = 1_000_000;
    let values = samples(N);
    let record = median(reps, || {
        let mut h = LatHist::new();
        let start = Instant::now();
        for &v in &values {
            h.record(black_box(v));
        }
        let t = start.elapsed();
        black_box(h);
        t
    });
    let mut a = LatHist::new();
    let mut b = LatHist::new();
    for (i, &v) in values.iter().enumerate() {
        if i % 2 == 0 {
            a.record(v)
        } else {
            b.record(v)
        }
    }
    let merge = median(reps, || {
        let mut m = a.clone();
        let start = Instant::now();
        m.merge(black_box(&b));
        let t = start.elapsed();
        black_box(m);
        t
    });
    let list = [
        1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
        99.95, 99.99,
    ];
    let pct = median(reps, || {
        let start = Instant::now();
        black_box(a.percentiles(black_box(&list), 1_000, 60_000_000));
        start.elapsed()
    });
    vec![
        Micro {
            name: "hist-record",
            measures: "latency histogram: record 1M values",
            median: format!("{:.2} ms", record.as_secs_f64() * 1e3),
            rate: format!("{:.1} ns/value", record.as_nanos() as f64 / N as f64),
        },
        Micro {
            name: "hist-merge",
            measures: "merge two histograms of 500k values",
            median: format!("{:.1} µs", merge.as_secs_f64() * 1e6),
            rate: String::new(),
        },
        Micro {
            name: "hist-percentiles",
            measures: "fio's 17 default percentiles from a histogram",
            median: format!("{:.1} µs", pct.as_secs_f64() * 1e6),
            rate: String::new(),
        },
    ]
}

fn null_loop(reps: usize, iodepth: u32) -> Micro {
    let argv: Vec<String> = [
        "--name=x",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        &format!("--iodepth={iodepth}"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let args = parse_args(&argv).expect("valid command line");
    let fe = rfio::api::build_plan(&args, &[], &Keywords::from_system());
    assert!(fe.diags.is_empty(), "{}", fe.diags);
    let mut ios = 0;
    let t = median(reps, || {
        let start = Instant::now();
        let report = rfio::api::run(&fe.plan).expect("the null job runs");
        let t = start.elapsed();
        ios = report.jobs[0].dirs[0].ios;
        t
    });
    Micro {
        name: if iodepth == 1 {
            "null-loop-qd1"
        } else {
            "null-loop-qd32"
        },
        measures: if iodepth == 1 {
            "null engine, 4k randread, iodepth 1, 1 GiB: whole job in process"
        } else {
            "null engine, 4k randread, iodepth 32, 1 GiB: whole job in process"
        },
        median: format!("{:.1} ms", t.as_secs_f64() * 1e3),
        rate: format!("{:.1} ns/IO", t.as_nanos() as f64 / ios.max(1) as f64),
    }
}

/// Run every micro case.
pub(crate) fn run(reps: usize) -> Vec<Micro> {
    let mut all = vec![parser(reps)];
    all.extend(histogram(reps));
    all.push(null_loop(reps, 1));
    all.push(null_loop(reps, 32));
    all
}

/// The markdown section for RESULTS.md.
pub(crate) fn markdown(all: &[Micro], reps: usize) -> String {
    let mut out = format!(
        "## Micro benchmarks\n\nrfio's own hot pieces through the library (no fio counterpart), \
         median of {reps} runs.\n\n| case | measures | median | rate |\n|---|---|---:|---:|\n"
    );
    for m in all {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            m.name, m.measures, m.median, m.rate
        ));
    }
    out
}
