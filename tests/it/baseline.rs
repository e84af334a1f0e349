//! `--baseline-save=FILE` / `--baseline-compare=FILE` (rfio's own): a
//! baseline records the host, the job text, the resolved jobs, the targets
//! and the results; a compare refuses other work by meaning (exit 2,
//! nothing run, naming the first option that differs), else judges every
//! metric `better`, `worse` or `within` its band; a worse metric of
//! `--baseline-metrics` (default `iops,bw,p99`) exits 3.

use crate::common;

use std::os::unix::process::CommandExt;
use std::process::{Command, Output};

use serde_json::Value;
use sha2::{Digest, Sha256};

use common::{stderr, stdout, TempDir, RFIO};

/// The null engine, 1 MiB read, `rate_iops=${RATE}` from the environment
/// (the text is the same whatever the rate).
const PACED: &str = "[n]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nrate_iops=${RATE}\n";

fn rfio_env(dir: &TempDir, rate: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(RFIO);
    cmd.current_dir(&dir.0).env("RATE", rate).args(args);
    let (out, timed_out) = common::output_within(&mut cmd, common::RUN_LIMIT);
    assert!(!timed_out, "{args:?} hung");
    out
}

fn load(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).expect("the baseline file");
    serde_json::from_str(&text).expect("the baseline parses")
}

fn store(path: &std::path::Path, v: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// The verdict lines of a comparison (`  n read: IOPS 2048 → 1024
/// (−50.0%, worse, beyond ±10.0%)`): `(job dir metric, verdict)`.
fn verdicts(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let l = l.strip_prefix("  ")?;
            let (job_dir, rest) = l.split_once(": ")?;
            let (metric, _) = rest.split_once(' ')?;
            let metric = match metric {
                "clat" => format!("clat {}", rest.split(' ').nth(1)?),
                m => m.to_string(),
            };
            let judged = rest.rsplit_once(" (")?.1;
            let verdict = ["within", "worse", "better", "not measured now", "unchanged"]
                .into_iter()
                .find(|v| judged.contains(v))?;
            let verdict = if verdict == "unchanged" {
                "within"
            } else {
                verdict
            };
            Some((format!("{job_dir} {metric}"), verdict.to_string()))
        })
        .collect()
}

/// The summary line of a comparison (the first line starting `baseline `).
fn summary(text: &str) -> &str {
    text.lines()
        .find(|l| l.starts_with("baseline "))
        .unwrap_or_else(|| panic!("no summary: {text}"))
}

const METRICS: usize = 3 + 17;

#[test]
fn save_then_compare_the_same_job() {
    let dir = TempDir::new("baseline-same");
    let job = dir.write("x.fio", PACED);
    let out = rfio_env(
        &dir,
        "1000000",
        &["--repeat=3", "--baseline-save=b.json", "x.fio"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let b = load(&dir.file("b.json"));
    assert_eq!(b["format"], "rfio-baseline/2");
    assert_eq!(b["rfio_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        b["command_line"],
        serde_json::json!(["--repeat=3", "--baseline-save=b.json", "x.fio"])
    );
    let bytes = std::fs::read(&job).unwrap();
    let sha: String = Sha256::digest(&bytes)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect();
    assert_eq!(b["job_files"][0]["name"], "x.fio");
    assert_eq!(b["job_files"][0]["sha256"], sha.as_str());
    assert_eq!(b["job_files"][0]["text"], PACED);
    // The resolved job: its options by meaning; the pacing apart; the
    // table's defaults (bs=4k) left out.
    let j = &b["jobs"][0];
    assert_eq!(j["name"], "n");
    assert_eq!(j["options"]["ioengine"]["text"], "null");
    assert_eq!(j["options"]["size"]["text"], "1m");
    assert_eq!(j["options"]["bs"]["is_default"], true, "{j}");
    assert_eq!(j["pacing"]["rate_iops"]["text"], "1000000");
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_eq!(b["host"]["kernel"], kernel.trim());
    assert!(b["host"]["cpus"].as_u64().unwrap() >= 1);
    assert!(b["host"]["mem_bytes"].as_u64().unwrap() > 1 << 20);
    assert_eq!(b["targets"][0]["job"], "n");
    assert_eq!(b["targets"][0]["engine"], "null");
    assert_eq!(b["targets"][0]["files"], serde_json::json!([]));
    let r = &b["results"];
    assert_eq!(r["runs"], 3);
    let read = &r["jobs"][0]["dirs"][0];
    assert_eq!(read["ddir"], "read");
    assert!(read["iops"]["median"].as_f64().unwrap() > 0.0);
    assert_eq!(read["clat_percentiles"].as_array().unwrap().len(), 17);

    // The same again, a band wide enough for any machine: all within.
    let out = rfio_env(
        &dir,
        "1000000",
        &[
            "--repeat=3",
            "--baseline-compare=b.json",
            "--baseline-threshold=100000",
            "x.fio",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let v = verdicts(&text);
    assert_eq!(v.len(), METRICS, "{text}");
    assert_eq!(v[0].0, "n read IOPS");
    assert_eq!(v[1].0, "n read BW");
    assert_eq!(v[2].0, "n read clat mean");
    assert_eq!(v[3].0, "n read clat p1");
    assert_eq!(v[19].0, "n read clat p99.99");
    assert!(v.iter().all(|(_, x)| x == "within"), "{text}");
    assert_eq!(
        summary(&text),
        "baseline b.json: PASS: 3 gated metrics: 0 better, 3 within their bands; \
         gated: iops,bw,p99, 3 saved runs against 3 now, threshold 100000%; \
         17 more reported, not gated"
    );
    // After fio's report and the repeat block, summary first.
    let at = text.find("\nbaseline b.json: ").unwrap();
    assert!(text.find("Run status group 0").unwrap() < at);
    assert!(text.find("\nRepeat: 3 runs").unwrap() < at);
    assert!(at < text.find("  n read: IOPS ").unwrap());
}

/// A job on a file in the test's directory: the baseline records the
/// file's file system (as /proc/self/mountinfo has it) and free space, and
/// the same work compares (a band wide enough for any machine: within).
#[test]
fn a_file_job_records_its_target_and_compares() {
    let dir = TempDir::new("baseline-file");
    dir.write(
        "x.fio",
        "[f]\nfilename=data\nioengine=psync\nrw=randread\nbs=4k\nsize=2m\n",
    );
    let out = common::rfio(&dir, &["--baseline-save=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let b = load(&dir.file("b.json"));
    let file = &b["targets"][0]["files"][0];
    assert_eq!(file["path"], "data");
    assert_eq!(b["targets"][0]["engine"], "psync");
    assert!(file["free_bytes"].as_u64().unwrap() > 0, "{file}");
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let fs = file["fs_type"].as_str().expect("a file system");
    let mount = file["mount_point"].as_str().expect("a mount point");
    assert!(
        mountinfo
            .lines()
            .any(|l| l.split(' ').nth(4) == Some(mount) && l.contains(&format!(" - {fs} "))),
        "{file}"
    );
    assert!(dir.file("data").starts_with(mount));
    assert_eq!(b["results"]["jobs"][0]["dirs"][0]["ddir"], "read");

    let out = common::rfio(
        &dir,
        &[
            "--baseline-compare=b.json",
            "--baseline-threshold=100000",
            "x.fio",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = verdicts(&stdout(&out));
    assert_eq!(v.len(), METRICS, "{}", stdout(&out));
    assert!(v.iter().all(|(_, x)| x == "within"));
}

/// Saved at 1,000,000 IOPS, compared at 1,000 IOPS (256 I/Os: 1/4 s):
/// the same work paced a thousand times slower (a warning, compared
/// anyway): IOPS and bandwidth worse, exit 3. With JSON output the JSON
/// stays whole and carries the verdicts (`"baseline"`); their text goes to
/// stderr.
#[test]
fn a_slower_run_is_a_regression() {
    let dir = TempDir::new("baseline-slow");
    dir.write("x.fio", PACED);
    let out = rfio_env(&dir, "1000000", &["--baseline-save=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = rfio_env(
        &dir,
        "1000",
        &["--baseline-compare=b.json", "--output-format=json", "x.fio"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("stdout is the JSON alone");
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 256);
    let b = &doc["baseline"];
    assert_eq!(b["file"], "b.json");
    assert_eq!(b["result"], "fail");
    assert_eq!(b["gated"], serde_json::json!(["iops", "bw", "p99"]));
    assert_eq!(
        b["warnings"],
        serde_json::json!(["pacing differs: job n: rate_iops 1000000 → 1000; compared anyway"])
    );
    assert_eq!(b["summary"]["gated"], 3);
    assert_eq!(b["summary"]["not_gated"], METRICS - 3);
    let m = b["metrics"].as_array().unwrap();
    assert_eq!(m.len(), METRICS);
    assert_eq!(
        (&m[0]["metric"], &m[0]["verdict"], &m[0]["gated"]),
        (&"iops".into(), &"worse".into(), &true.into())
    );
    assert_eq!(m[0]["now"], 1000.0);
    assert!(m[0]["change_pct"].as_f64().unwrap() < -50.0, "{}", m[0]);
    assert_eq!(m[0]["band_pct"], 10.0);
    assert_eq!(m[0]["band_from"], "threshold");
    assert_eq!(
        (&m[1]["metric"], &m[1]["verdict"]),
        (&"bw".into(), &"worse".into())
    );
    assert_eq!(
        (&m[2]["metric"], &m[2]["gated"]),
        (&"mean".into(), &false.into())
    );
    let text = stderr(&out);
    assert!(
        summary(&text).starts_with("baseline b.json: FAIL: "),
        "{text}"
    );
    let v = verdicts(&text);
    assert_eq!(v.len(), METRICS, "{text}");
    assert_eq!(v[0], ("n read IOPS".into(), "worse".into()), "{text}");
    let iops = text
        .lines()
        .find(|l| l.starts_with("  n read: IOPS "))
        .unwrap();
    // `  n read: IOPS 256k → 1000 (−99.6%, worse, beyond ±10.0%)`, as
    // fio's normal output writes IOPS.
    assert!(iops.contains(" → 1000 (\u{2212}"), "{iops}");
    assert!(iops.ends_with("%, worse, beyond ±10.0%)"), "{iops}");
}

/// A baseline edited to be far better (latency far worse) than any run:
/// IOPS and bandwidth `worse`, the mean latency `better`, exit 3.
#[test]
fn an_edited_baseline_gives_both_verdicts() {
    let dir = TempDir::new("baseline-edit");
    let data = dir.arg("data");
    let args = ["--name=f", data.as_str(), "--size=2m", "--rw=write"];
    let save: Vec<&str> = ["--baseline-save=b.json"]
        .iter()
        .chain(&args)
        .copied()
        .collect();
    let out = common::rfio(&dir, &save);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut b = load(&dir.file("b.json"));
    assert_eq!(b["job_options"], serde_json::json!(args));
    let f = &b["targets"][0]["files"][0];
    assert_eq!(f["path"], dir.file("data").display().to_string());
    assert!(f["fs_type"].is_string(), "{f}");
    assert!(f["mount_point"].is_string(), "{f}");
    assert!(f["free_bytes"].as_u64().unwrap() > 0, "{f}");
    let w = &mut b["results"]["jobs"][0]["dirs"][0];
    assert_eq!(w["ddir"], "write");
    for k in ["median", "min", "max"] {
        w["iops"][k] = 1e15.into();
        w["bw_bytes"][k] = 1e18.into();
        w["clat_mean_ns"][k] = 1e12.into();
    }
    store(&dir.file("b.json"), &b);
    let cmp: Vec<&str> = ["--baseline-compare=b.json"]
        .iter()
        .chain(&args)
        .copied()
        .collect();
    let out = common::rfio(&dir, &cmp);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v = verdicts(&stdout(&out));
    assert_eq!(v.len(), METRICS);
    assert_eq!(v[0], ("f write IOPS".into(), "worse".into()));
    assert_eq!(v[1], ("f write BW".into(), "worse".into()));
    assert_eq!(v[2], ("f write clat mean".into(), "better".into()));

    // Gated on the mean latency alone: IOPS and bandwidth are reported
    // worse, never gating; the mean is better: exit 0.
    let mean: Vec<&str> = ["--baseline-metrics=mean"]
        .iter()
        .chain(&cmp)
        .copied()
        .collect();
    let out = common::rfio(&dir, &mean);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        summary(&text).starts_with("baseline b.json: PASS: 1 gated metrics: 1 better, 0 within"),
        "{text}"
    );
    assert!(
        text.contains("worse, beyond ±10.0%; not gated)\n"),
        "{text}"
    );
}

/// Other work is refused by meaning, naming the first option that
/// differs in words (exit 2, nothing run); the same work written otherwise
/// (options reordered, a comment, `4096` for `4k`, an option moved to
/// `[global]` or to the command line) compares.
#[test]
fn other_work_is_refused_and_nothing_runs() {
    let dir = TempDir::new("baseline-refuse");
    let data = dir.file("data");
    let text = format!(
        "[f]\nfilename={}\nbs=4k\nrw=randread\nsize=1m\n",
        data.display()
    );
    dir.write("x.fio", &text);
    let out = common::rfio(&dir, &["--baseline-save=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let wide = "--baseline-threshold=100000";

    // The same work, written otherwise: compared (a band no machine can
    // leave).
    let same = [
        format!(
            "# a comment\n[f]\nsize=1m\n\nrw=randread\n; another\nbs=4096\nfilename={}\n",
            data.display()
        ),
        format!(
            "[global]\nrw=randread\n[f]\nfilename={}\nsize=1m\n",
            data.display()
        ),
    ];
    for t in same {
        dir.write("x.fio", &t);
        let out = common::rfio(&dir, &["--baseline-compare=b.json", wide, "x.fio"]);
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        assert!(summary(&stdout(&out)).contains(": PASS: "), "{t}");
    }
    std::fs::remove_file(&data).unwrap();

    // An option's value.
    dir.write("x.fio", &text.replace("bs=4k", "bs=8k"));
    let out = common::rfio(&dir, &["--baseline-compare=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "rfio: baseline b.json: cannot compare: job f: bs 4k → 8k\n"
    );
    assert_eq!(stdout(&out), "");
    assert!(!data.exists(), "nothing ran");

    // Two options, one of them new: the first named, the other listed.
    dir.write(
        "x.fio",
        &text
            .replace("bs=4k", "bs=8k")
            .replace("rw=randread", "rw=randread\niodepth=4"),
    );
    let out = common::rfio(&dir, &["--baseline-compare=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "rfio: baseline b.json: cannot compare: job f: bs 4k → 8k; also iodepth\n"
    );

    // A command-line job option, which the job text does not override.
    dir.write("x.fio", &text);
    let out = common::rfio(&dir, &["--baseline-compare=b.json", "--direct=1", "x.fio"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "rfio: baseline b.json: cannot compare: job f: direct (default) → 1\n"
    );

    // The target's file system.
    let mut b = load(&dir.file("b.json"));
    let real = b["targets"][0]["files"][0]["fs_type"]
        .as_str()
        .expect("a file system")
        .to_string();
    b["targets"][0]["files"][0]["fs_type"] = "fakefs".into();
    store(&dir.file("b.json"), &b);
    let out = common::rfio(&dir, &["--baseline-compare=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "rfio: baseline b.json: cannot compare: target differs: job f: {}: filesystem \
             fakefs → {real}\n",
            data.display()
        )
    );
    assert!(!data.exists(), "nothing ran");
}

/// A baseline of rfio-baseline/1 (which compared the job text) is
/// refused with the command that saves it again.
#[test]
fn an_earlier_format_is_refused_with_how_to_save_it_again() {
    let dir = TempDir::new("baseline-old");
    dir.write("x.fio", "[n]\nioengine=null\nsize=64k\n");
    let out = common::rfio(&dir, &["--repeat=2", "--baseline-save=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut b = load(&dir.file("b.json"));
    b["format"] = "rfio-baseline/1".into();
    b.as_object_mut().unwrap().remove("jobs");
    store(&dir.file("b.json"), &b);
    let out = common::rfio(&dir, &["--baseline-compare=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "rfio: baseline b.json: saved by an earlier rfio (format rfio-baseline/1), which \
         compared the job files' text; save it again with this rfio: \
         rfio --repeat=2 --baseline-save=b.json x.fio\n"
    );
    assert_eq!(stdout(&out), "");
}

/// Issue 23: the same job file, run three times in a row against its own
/// baseline, passes every time, on a loaded 2-core machine: a rate-limited
/// null-engine job (4 MiB/s, 1/2 s a run) is as fast as its rate whatever
/// the load, and the gate is on IOPS and bandwidth with a 25% band (the
/// latency of the null engine is scheduling noise). Halving `rate=` in the
/// job file is the same work paced slower (a warning): IOPS and bandwidth
/// −50%, exit 3.
#[test]
fn the_same_job_passes_against_its_own_baseline_and_half_the_rate_fails() {
    let dir = TempDir::new("baseline-e2e");
    let job = "[global]\nioengine=null\nbs=4k\n[paced]\nrw=read\nsize=2m\nrate=4m\n";
    dir.write("x.fio", job);
    let gate = ["--baseline-metrics=iops,bw", "--baseline-threshold=25"];
    let save = ["--repeat=3", "--baseline-save=b.json", "x.fio"];
    let out = common::rfio(&dir, &save);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cmp: Vec<&str> = gate
        .iter()
        .copied()
        .chain(["--baseline-compare=b.json", "x.fio"])
        .collect();
    for i in 1..=3 {
        let out = common::rfio(&dir, &cmp);
        let text = stdout(&out);
        assert_eq!(
            out.status.code(),
            Some(0),
            "run {i}: {text}{}",
            stderr(&out)
        );
        assert!(
            summary(&text).starts_with("baseline b.json: PASS: 2 gated metrics: "),
            "run {i}: {text}"
        );
        assert!(summary(&text).contains("3 saved runs against 1 now, threshold 25%"));
    }
    dir.write("x.fio", &job.replace("rate=4m", "rate=2m"));
    let out = common::rfio(&dir, &cmp);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(3), "{text}{}", stderr(&out));
    assert!(
        summary(&text).starts_with(
            "baseline b.json: FAIL: 2 of 2 gated metrics worse (paced read IOPS \u{2212}"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n  warning: pacing differs: job paced: rate 4m → 2m; compared anyway\n"),
        "{text}"
    );
    let bw = text
        .lines()
        .find(|l| l.starts_with("  paced read: BW "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(bw.ends_with("%, worse, beyond ±25.0%)"), "{bw}");
}

#[test]
fn missing_or_malformed_baselines_are_named() {
    let dir = TempDir::new("baseline-bad");
    dir.write("x.fio", "[n]\nioengine=null\nsize=64k\n");
    let cases = [
        (
            None,
            "rfio: baseline none.json: No such file or directory (os error 2)\n",
        ),
        (
            Some("{\"format\":"),
            "rfio: baseline bad.json: not JSON: EOF while parsing a value at line 1 column 10\n",
        ),
        (
            Some("{\"a\":1}"),
            "rfio: baseline bad.json: not an rfio baseline (no \"format\": \"rfio-baseline/2\")\n",
        ),
    ];
    for (text, want) in cases {
        let name = match text {
            Some(t) => {
                dir.write("bad.json", t);
                "bad.json"
            }
            None => "none.json",
        };
        let flag = format!("--baseline-compare={name}");
        let out = common::rfio(&dir, &[flag.as_str(), "x.fio"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert_eq!(stderr(&out), want);
        assert_eq!(stdout(&out), "");
    }
    dir.write("bad.json", "{\"format\":\"rfio-baseline/2\",\"host\":3}");
    let out = common::rfio(&dir, &["--baseline-compare=bad.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("rfio: baseline bad.json: malformed: "),
        "{}",
        stderr(&out)
    );
    let out = common::rfio(&dir, &["--baseline-threshold=x", "x.fio"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "rfio: --baseline-threshold=x: a percentage, at least 0 (e.g. 10 or 2.5)\n"
    );
    let out = common::rfio(&dir, &["--baseline-metrics=iops,p99,lat", "x.fio"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "rfio: --baseline-metrics=iops,p99,lat: 'lat' is not a metric (iops, bw, mean, or a \
         percentile: p99, p99.9)\n"
    );
    assert_eq!(stdout(&out), "");
}

/// Called as `fio`, fio 3.33's refusal of an unknown option.
#[test]
fn fio_mode_refuses_baselines_as_fio_does() {
    let dir = TempDir::new("baseline-fio");
    dir.write("x.fio", "[x]\nioengine=null\nsize=64k\n");
    let real = common::run_in(
        common::real_fio(),
        &dir,
        &["--baseline-save=b.json", "x.fio"],
    );
    let line = "fio: unrecognized option '--baseline-save=b.json'\n";
    assert_eq!(stderr(&real), format!("{line}{line}"));
    assert_eq!(real.status.code(), Some(1));
    // As the fio 3.33 it is compared with.
    let mut cmd = Command::new(RFIO);
    cmd.arg0("fio")
        .current_dir(&dir.0)
        .env("RFIO_FIO_VERSION", "3.33")
        .args(["--baseline-save=b.json", "x.fio"]);
    let (out, _) = common::output_within(&mut cmd, common::RUN_LIMIT);
    assert_eq!(stderr(&out), stderr(&real));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), stdout(&real));
    assert!(!dir.file("b.json").exists());
}

/// A baseline edited by hand or made by something else: every figure and
/// count is checked when it is read, and the first out of range refused
/// naming its field (exit 2, nothing run); a baseline over 16 MiB is not
/// read at all; what an error quotes from the file is escaped and capped.
#[test]
fn baselines_out_of_range_are_refused_naming_the_field() {
    let dir = TempDir::new("baseline-range");
    dir.write("x.fio", "[n]\nioengine=null\nsize=64k\n");
    let out = common::rfio(&dir, &["--baseline-save=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let good = load(&dir.file("b.json"));
    let iops = "/results/jobs/0/dirs/0/iops";
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "/results/jobs/0/dirs/0/iops/median",
            serde_json::json!(-1e308),
            "results.jobs[0].dirs[0].iops.median: -1e+308 is not a valid IOPS figure \
             (a finite number, at least 0)",
        ),
        (
            "/results/jobs/0/dirs/0/bw_bytes/cv_pct",
            serde_json::json!(-2.5),
            "results.jobs[0].dirs[0].bw_bytes.cv_pct: -2.5 is not a valid coefficient of \
             variation (a finite number, at least 0)",
        ),
        (
            "/results/jobs/0/dirs/0/clat_percentiles/3/0",
            serde_json::json!(250.0),
            "results.jobs[0].dirs[0].clat_percentiles[3][0]: 250.0 is not a valid percentile \
             (above 0, at most 100)",
        ),
        (
            "/results/median_run",
            serde_json::json!(7),
            "results.median_run: 7 is not one of the runs (1 to 1)",
        ),
        (
            "/results/runs",
            serde_json::json!(0),
            "results.runs: 0 is not a valid number of runs (1 to requested, 1)",
        ),
        (
            "/results/jobs/0/dirs/0/ddir",
            serde_json::json!("\u{1b}[2Jsideways"),
            "results.jobs[0].dirs[0].ddir: '\\x1b[2Jsideways' is not a direction \
             (read, write, trim or mixed)",
        ),
        (
            "/job_files/0/sha256",
            serde_json::json!("zz"),
            "job_files[0].sha256: 'zz' is not a SHA-256 (64 hexadecimal digits)",
        ),
    ];
    for (field, value, want) in cases {
        let mut b = good.clone();
        *b.pointer_mut(field).unwrap_or_else(|| panic!("{field}")) = value;
        store(&dir.file("b.json"), &b);
        let out = common::rfio(&dir, &["--baseline-compare=b.json", "x.fio"]);
        assert_eq!(out.status.code(), Some(2), "{field}: {}", stderr(&out));
        assert_eq!(stderr(&out), format!("rfio: baseline b.json: {want}\n"));
        assert_eq!(stdout(&out), "");
    }
    // A median outside its own min and max.
    let mut b = good.clone();
    b.pointer_mut(iops).unwrap()["max"] = serde_json::json!(0.5);
    b.pointer_mut(iops).unwrap()["median"] = serde_json::json!(1.0);
    store(&dir.file("b.json"), &b);
    let out = common::rfio(&dir, &["--baseline-compare=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(
            "rfio: baseline b.json: results.jobs[0].dirs[0].iops: median 1.0 is not between min "
        ),
        "{}",
        stderr(&out)
    );

    // A recorded option text of 1 MiB with terminal sequences: the
    // difference quotes 200 characters of it, escaped. (The job files'
    // text is a record, never compared.)
    let mut b = good.clone();
    let line = format!("\u{1b}]0;pwned\u{7}{}", "x".repeat(1 << 20));
    b["job_files"][0]["text"] = Value::String(format!("{line}\n"));
    b["job_files"][0]["sha256"] = Value::String("0".repeat(64));
    store(&dir.file("b.json"), &b);
    // (A band no load can leave: this compares the work, not the speed.)
    let wide = "--baseline-threshold=100000";
    let out = common::rfio(&dir, &["--baseline-compare=b.json", wide, "x.fio"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    b["jobs"][0]["options"]["size"]["text"] = Value::String(line);
    b["jobs"][0]["options"]["size"]["value"] = Value::String("Bytes(1)".into());
    store(&dir.file("b.json"), &b);
    let out = common::rfio(&dir, &["--baseline-compare=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.len() < 1000, "{} bytes echoed", err.len());
    assert!(
        err.starts_with("rfio: baseline b.json: cannot compare: job n: size \\x1b]0;pwned\\x07xxx"),
        "{err}"
    );
    assert!(err.contains(" more characters) → 64k\n"), "{err}");
    assert!(!err.contains(['\u{1b}', '\u{7}']), "{err:?}");

    // Over 16 MiB: refused before it is read.
    let mut b = good.clone();
    b["padding"] = Value::String(" ".repeat(16 << 20));
    store(&dir.file("b.json"), &b);
    let out = common::rfio(&dir, &["--baseline-compare=b.json", "x.fio"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "rfio: baseline b.json: larger than a baseline can be (16 MiB at most)\n"
    );
}
