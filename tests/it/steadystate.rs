//! Steady state (`ss`, `ss_dur`, `ss_ramp`) and `--debug`, run through the
//! binary as a user runs them: a job stops once its criterion is met, the
//! JSON `steadystate` object and the normal `steadystate  :` line report
//! it, bad settings are refused with their file:line, and `--debug=parse`
//! prints fio's lines.

use crate::common;

use std::process::Output;

use common::{rfio, stderr, stdout, TempDir};

fn json(o: &Output) -> serde_json::Value {
    let text = stdout(o);
    // The document: from its first line to its closing brace (other
    // formats may come before and after it).
    let start = text.find("{\n").unwrap_or(0);
    let end = text[start..]
        .find("\n}\n")
        .map_or(text.len(), |e| start + e + 3);
    serde_json::from_str(&text[start..end]).unwrap_or_else(|e| panic!("{e}: {text}{}", stderr(o)))
}

/// A null job at a steady 2000 IOPS, time-based for `runtime`, with
/// `extra` options.
fn steady_job(dir: &TempDir, runtime: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "--name=s",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        runtime,
        "--rate_iops=2000",
    ];
    args.extend_from_slice(extra);
    rfio(dir, &args)
}

/// With a one-second window a deviation criterion is met at the first
/// measurement (one value deviates nothing from itself): the job stops
/// then, long before its runtime, as fio's does.
#[test]
fn a_job_stops_once_its_criterion_is_met() {
    let dir = TempDir::new("ss-attained");
    let o = steady_job(
        &dir,
        "--runtime=20",
        &["--ss=iops:10", "--ss_dur=1", "--output-format=json,normal"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j = &json(&o)["jobs"][0];
    let runtime = j["read"]["runtime"].as_u64().unwrap();
    assert!((500..=2500).contains(&runtime), "stopped at {runtime} ms");
    let ss = &j["steadystate"];
    assert_eq!(ss["ss"], "iops:10.000000");
    assert_eq!(ss["duration"], 1);
    assert_eq!(ss["attained"], 1);
    assert_eq!(ss["criterion"], "0.000000");
    assert_eq!(ss["max_deviation"].as_f64(), Some(0.0));
    assert_eq!(ss["slope"].as_f64(), Some(0.0));
    let data = &ss["data"];
    let (iops, bw) = (
        data["iops"].as_array().unwrap(),
        data["bw"].as_array().unwrap(),
    );
    assert_eq!((iops.len(), bw.len()), (1, 1));
    assert_eq!(data["iops_mean"], iops[0]);
    assert_eq!(data["bw_mean"], bw[0]);
    // 2000 IOPS of 4 KiB (the first measurement may catch a few I/Os more).
    let i = iops[0].as_u64().unwrap();
    assert!((1500..=2600).contains(&i), "{i} IOPS");
    assert_eq!(bw[0].as_u64().unwrap() / 4096, i);
    // The keys in fio's order.
    let keys: Vec<&str> = ss.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "ss",
            "duration",
            "attained",
            "criterion",
            "max_deviation",
            "slope",
            "data"
        ]
    );
    let text = stdout(&o);
    let line = text
        .lines()
        .find(|l| l.starts_with("  steadystate  : "))
        .unwrap_or_else(|| panic!("no steadystate line:\n{text}"));
    assert!(
        line.starts_with("  steadystate  : attained=yes, bw=")
            && line.ends_with(", iops mean dev=0.000")
            && line.contains("KiB/s (")
            && line.contains("kB/s), iops="),
        "{line}"
    );
}

/// Not met (a zero limit is never beaten): the job runs its runtime, and
/// a window that never filled lists its measurement and zeros, with the
/// criterion never computed.
#[test]
fn a_criterion_not_met_runs_the_runtime_and_keeps_the_window() {
    let dir = TempDir::new("ss-not-attained");
    let o = steady_job(
        &dir,
        "--runtime=1500ms",
        &["--ss=bw_slope:0", "--ss_dur=2", "--output-format=json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j = &json(&o)["jobs"][0];
    let runtime = j["read"]["runtime"].as_u64().unwrap();
    assert!((1450..=2500).contains(&runtime), "ran {runtime} ms");
    let ss = &j["steadystate"];
    assert_eq!(ss["ss"], "bw_slope:0.000000");
    assert_eq!(
        (ss["duration"].as_u64(), ss["attained"].as_u64()),
        (Some(2), Some(0))
    );
    assert_eq!(ss["criterion"], "0.000000");
    let iops: Vec<u64> = ss["data"]["iops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(iops.len(), 2);
    assert!(iops[0] > 1000 && iops[1] == 0, "{iops:?}");
    assert_eq!(ss["data"]["iops_mean"].as_u64(), Some(iops[0] / 2));
}

/// `ss_ramp` delays measuring by itself plus a second: nothing is
/// measured in a shorter run, and the section is still there (fio's).
#[test]
fn nothing_is_measured_during_the_steady_state_ramp() {
    let dir = TempDir::new("ss-ramp");
    let o = steady_job(
        &dir,
        "--runtime=1200ms",
        &[
            "--ss=iops:50%",
            "--ss_dur=1",
            "--ss_ramp=1",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ss = &json(&o)["jobs"][0]["steadystate"];
    assert_eq!(ss["attained"], 0);
    assert_eq!(ss["criterion"], "0.000000%");
    assert_eq!(ss["data"]["iops"], serde_json::json!([0]));
    assert_eq!(ss["data"]["bw_mean"], 0);
}

/// With group_reporting the group is measured together: its sum goes into
/// its last member's window, the group's entry reports it, and meeting the
/// criterion stops every member. Without, each job has its own.
#[test]
fn group_reporting_measures_and_stops_the_group_together() {
    let dir = TempDir::new("ss-group");
    let o = steady_job(
        &dir,
        "--runtime=20",
        &[
            "--numjobs=2",
            "--group_reporting",
            "--ss=iops:10",
            "--ss_dur=1",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let jobs = json(&o)["jobs"].as_array().unwrap().clone();
    assert_eq!(jobs.len(), 1);
    let j = &jobs[0];
    assert!(j["read"]["runtime"].as_u64().unwrap() <= 2500);
    let ss = &j["steadystate"];
    assert_eq!(ss["attained"], 1);
    // Both jobs' I/O: about 4000 IOPS.
    let iops = ss["data"]["iops"][0].as_u64().unwrap();
    assert!((3000..=5200).contains(&iops), "{iops} IOPS for the group");

    let o = steady_job(
        &dir,
        "--runtime=20",
        &[
            "--numjobs=2",
            "--ss=iops:10",
            "--ss_dur=1",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let jobs = json(&o)["jobs"].as_array().unwrap().clone();
    assert_eq!(jobs.len(), 2);
    for j in &jobs {
        let ss = &j["steadystate"];
        assert_eq!(ss["attained"], 1);
        let iops = ss["data"]["iops"][0].as_u64().unwrap();
        assert!((1500..=2600).contains(&iops), "{iops} IOPS for one job");
    }
}

/// No `ss_dur`: no section; terse output never has one.
#[test]
fn without_a_duration_there_is_no_section() {
    let dir = TempDir::new("ss-none");
    let o = rfio(
        &dir,
        &[
            "--name=s",
            "--ioengine=null",
            "--size=1m",
            "--ss=iops:5",
            "--output-format=json,terse",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(json(&o)["jobs"][0]["steadystate"].is_null());
    // Terse is fio's with or without steady state: 121 fields.
    for ss_dur in ["--ss_dur=0", "--ss_dur=1"] {
        let o = rfio(
            &dir,
            &[
                "--name=s",
                "--ioengine=null",
                "--size=1m",
                ss_dur,
                "--minimal",
            ],
        );
        let terse = stdout(&o);
        assert!(terse.starts_with("3;fio-3.33;s;"), "{terse}");
        assert_eq!(terse.trim_end().split(';').count(), 121, "{terse}");
    }
}

/// A job over before the first measurement: the section with its empty
/// window, as fio reports it.
#[test]
fn a_job_over_before_any_measurement_reports_an_empty_window() {
    let dir = TempDir::new("ss-quick");
    let o = rfio(
        &dir,
        &["--name=s", "--ioengine=null", "--size=1m", "--ss_dur=2"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "\n  steadystate  : attained=no, bw=0KiB/s (0kB/s), iops=0, iops slope=0.000%\n"
        ),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bad_thresholds_are_refused_with_their_line() {
    let dir = TempDir::new("ss-bad");
    for (value, why) in [
        (
            "iops",
            "steadystate threshold must be specified in addition to criterion",
        ),
        ("iops:abc", "'abc' is not an IOPS threshold"),
        ("bw:12x", "'12x' is not a bandwidth threshold"),
        ("bw:abc%", "'abc%' is not a threshold percentage"),
        ("slope:1", "valid values: iops, iops_slope, bw, bw_slope"),
    ] {
        let job = dir.write(
            "bad.fio",
            &format!("[s]\nioengine=null\nsize=1m\nss_dur=2\nss={value}\n"),
        );
        for parse_only in [true, false] {
            let mut args = vec![job.to_str().unwrap()];
            if parse_only {
                args.push("--parse-only");
            }
            let o = rfio(&dir, &args);
            assert_eq!(o.status.code(), Some(1), "ss={value}");
            let err = stderr(&o);
            assert!(
                err.contains("bad.fio:5:1: job 's': bad value for option 'steadystate'")
                    && err.contains(why),
                "ss={value}: {err}"
            );
        }
    }
    let job = dir.write(
        "bad.fio",
        "[s]\nioengine=null\nsize=1m\nss_dur=2\nss_ramp=soon\n",
    );
    let o = rfio(&dir, &[job.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("bad.fio:5:1: job 's': bad value for option 'steadystate_ramp_time'"),
        "{}",
        stderr(&o)
    );
}

/// fio refuses, as it adds the jobs, a reporting group whose jobs differ
/// in steady state (one without counts): the jobs added print their
/// lines, then fio's (truncated) message, exit 1, nothing runs.
#[test]
fn a_group_must_agree_on_steady_state() {
    let dir = TempDir::new("ss-group-differs");
    let common = ["--ioengine=null", "--size=1m"];
    let mut args = vec!["--name=a", "--ss_dur=2"];
    args.extend(common);
    args.push("--name=b");
    args.extend(common);
    let o = rfio(&dir, &args);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "fio: file:steadystate.c:338, func=job rejected: steadystate options must be \
         consistent within reporting groups, error=Invalid argume\n"
    );
    let out = stdout(&o);
    assert!(
        out.starts_with("a: (g=0)") && out.contains("\nb: (g=0)"),
        "{out}"
    );
    assert!(!out.contains("Run status"), "{out}");
    // In groups of their own they run.
    args.push("--stonewall");
    let o = rfio(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    // --parse-only stops before the jobs are added.
    args.push("--parse-only");
    assert!(rfio(&dir, &args).status.success());
}

/// `--debug=parse` prints fio's lines for the thresholds (what upstream's
/// t/steadystate_tests.py looks for) on stdout, in fio's layout.
#[test]
fn debug_parse_prints_the_thresholds_as_fio() {
    let dir = TempDir::new("ss-debug");
    for (ss, want) in [
        ("iops:10", "set steady state IOPS threshold to 10.000000"),
        ("iops:10%", "set steady state threshold to 10.000000%"),
        ("iops:.1%", "set steady state threshold to 0.100000%"),
        ("bw:10%", "set steady state threshold to 10.000000%"),
        ("bw:12", "set steady state BW threshold to 12"),
        ("bw:1k", "set steady state BW threshold to 1024"),
    ] {
        let o = rfio(
            &dir,
            &[
                "--parse-only",
                "--debug=parse",
                "--ss_dur=10s",
                &format!("--ss={ss}"),
                "--ss_ramp=5",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let mut lines = out.lines();
        assert_eq!(lines.next(), Some("fio: set debug option parse"));
        let line = lines.next().unwrap_or_default();
        // "parse", padded to 8; the thread id, padded to 5; the message.
        let (cat, rest) = line.split_at(9);
        assert_eq!(cat, "parse    ", "{line}");
        let tid: String = rest.chars().take_while(char::is_ascii_digit).collect();
        assert!(!tid.is_empty(), "{line}");
        let msg = &rest[tid.len().max(5) + 1..];
        assert_eq!(msg, want, "{line}");
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    }
}

#[test]
fn debug_help_and_unknown_categories_behave_as_fio() {
    let dir = TempDir::new("ss-debug-help");
    let o = rfio(&dir, &["--debug=help"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "fio: dumping debug options:process,file,io,mem,blktrace,verify,random,parse,\
         diskutil,job,mutex,profile,time,net,rate,compress,steadystate,helperthread,zbd,all\n"
    );
    let o = rfio(
        &dir,
        &["--debug=bogus,steadystate", "--parse-only", "--name=x"],
    );
    assert!(o.status.success());
    assert_eq!(stderr(&o), "fio: debug mask bogus not found\n");
    assert_eq!(stdout(&o), "fio: set debug option steadystate\n");
}

/// `--debug=steadystate` shows each measurement and criterion (fio's
/// lines); off, a run prints none.
#[test]
fn debug_steadystate_shows_the_measurements() {
    let dir = TempDir::new("ss-debug-run");
    let o = steady_job(
        &dir,
        "--runtime=20",
        &[
            "--ss=iops:10",
            "--ss_dur=1",
            "--debug=steadystate",
            "--output-format=terse",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let check = out
        .lines()
        .find(|l| {
            l.starts_with("steadystate ")
                && l.contains("steadystate_check() thread: 0, groupid: 0, rate_msec: ")
        })
        .unwrap_or_else(|| panic!("{out}"));
    assert!(check.contains(", head: 0, tail: 0"), "{check}");
    assert!(
        out.lines().any(|l| l.starts_with("steadystate ")
            && l.ends_with("max diff: 0.000000, objective: 0.000000, limit: 10.000000")),
        "{out}"
    );
}

/// `--debug=io,file,verify` in a run: a line per I/O queued and completed,
/// per file opened and closed, and the verify loop's, each in fio's
/// layout (category padded to 8, thread id to 5).
#[test]
fn debug_categories_trace_the_loop() {
    let dir = TempDir::new("debug-loop");
    let file = dir.arg("f");
    let o = rfio(
        &dir,
        &[
            "--debug=io,file,verify",
            "--name=x",
            "--ioengine=psync",
            &format!("--filename={file}"),
            "--size=8k",
            "--bs=4k",
            "--rw=write",
            "--verify=crc32c",
            "--minimal",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // Message of each debug line in category `cat`.
    let msgs = |cat: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.len() > 9 && l[..9].trim_end() == cat && l.as_bytes()[8] == b' ')
            .map(|l| {
                let rest = &l[9..];
                let tid = rest.chars().take_while(char::is_ascii_digit).count();
                assert!(tid > 0, "{l}");
                rest[tid.max(5) + 1..].to_string()
            })
            .collect()
    };
    let io = msgs("io");
    let want: Vec<String> = [(1, 0), (1, 0x1000), (0, 0), (0, 0x1000)]
        .iter()
        .flat_map(|&(ddir, off)| {
            ["queue", "complete"].map(|what| {
                format!("{what}: io_u 0: off=0x{off:x},len=0x1000,ddir={ddir},file={file}")
            })
        })
        .collect();
    assert_eq!(io, want, "{out}");
    assert_eq!(
        msgs("file"),
        [format!("fd open {file}"), format!("fd close {file}")]
    );
    assert_eq!(
        msgs("verify"),
        [
            "starting loop".to_string(),
            format!("verify io_u 0: off=0x0,len=0x1000,file={file}: ok"),
            format!("verify io_u 0: off=0x1000,len=0x1000,file={file}: ok"),
            "exiting loop".to_string(),
        ]
    );
    // The report still comes, after them.
    assert!(out
        .lines()
        .last()
        .unwrap_or_default()
        .starts_with("3;fio-3.33;x;"));
}

/// A job inside its `ramp_time` is not measured (fio skips `TD_RAMP`):
/// the criterion, met at the first measurement, is met only after the
/// ramp, on I/O counted from its end.
#[test]
fn a_job_is_not_measured_during_its_ramp_time() {
    let dir = TempDir::new("ss-ramp-time");
    let o = rfio(
        &dir,
        &[
            "--name=s",
            "--ioengine=null",
            "--size=1g",
            "--time_based",
            "--runtime=20",
            "--ramp_time=1200ms",
            "--rate_iops=1000",
            "--ss=iops:10",
            "--ss_dur=1",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j = &json(&o)["jobs"][0];
    assert_eq!(j["steadystate"]["attained"], 1);
    // Measured at the first look after the ramp (about 2 s in).
    let runtime = j["read"]["runtime"].as_u64().unwrap();
    assert!(
        (300..=2000).contains(&runtime),
        "ran {runtime} ms after the ramp"
    );
    let iops = j["steadystate"]["data"]["iops"][0].as_u64().unwrap();
    assert!((600..=1400).contains(&iops), "{iops} IOPS");
}

/// fio 3.35 refuses an `ss_dur` that is not a multiple of `ss_interval`
/// over it, and an interval under a second; 3.33 knows no `ss_interval`
/// and runs `ss_dur=1` (whose one-second window is met at once).
#[test]
fn the_check_interval_and_its_refusals_follow_the_release() {
    let dir = TempDir::new("ss-interval");
    let job = ["--name=s", "--ioengine=null", "--size=1m"];
    let run = |extra: &[&str]| {
        let mut a = job.to_vec();
        a.extend_from_slice(extra);
        rfio(&dir, &a)
    };
    let o = run(&["--compat=fio-3.35", "--ss_dur=1s"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o)
            .contains("ss_duration 1000000us must be multiple of ss_check_interval 1000000us"),
        "{}",
        stderr(&o)
    );
    let o = run(&["--compat=fio-3.42", "--ss_dur=3s", "--ss_interval=2s"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o)
        .contains("ss_duration 3000000us must be multiple of ss_check_interval 2000000us"));
    let o = run(&["--compat=fio-3.42", "--ss_dur=2s", "--ss_interval=500ms"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("ss_check_interval must be at least 1s"));
    let o = run(&["--compat=fio-3.33", "--ss_dur=2s", "--ss_interval=1s"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("ss_interval"), "{}", stderr(&o));
    let o = run(&["--compat=fio-3.33", "--ss_dur=1s"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Under fio 3.42 a run measured every 2 s keeps `ss_dur / ss_interval`
/// slots, and a latency criterion lists each slot's mean completion
/// latency (`lat_ns`) and their mean, as fio 3.42's JSON and normal
/// line do.
#[test]
fn a_latency_criterion_lists_its_latencies_under_3_42() {
    let dir = TempDir::new("ss-lat");
    let o = steady_job(
        &dir,
        "--runtime=6",
        &[
            "--compat=fio-3.42",
            "--ss=lat:1000%",
            "--ss_dur=4",
            "--ss_interval=2",
            "--output-format=json,normal",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j = &json(&o)["jobs"][0];
    let ss = &j["steadystate"];
    assert_eq!(ss["ss"], "lat:1000.000000%");
    assert_eq!(ss["duration"], 4);
    assert_eq!(ss["attained"], 1, "{ss}");
    let data = &ss["data"];
    let keys: Vec<&str> = data
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        keys,
        ["bw_mean", "iops_mean", "lat_mean", "lat_ns", "iops", "bw"]
    );
    let lats: Vec<u64> = data["lat_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(lats.len(), 2, "{data}");
    assert!(lats.iter().all(|&l| l > 0), "{lats:?}");
    assert_eq!(data["lat_mean"].as_u64(), Some((lats[0] + lats[1]) / 2));
    let line = stdout(&o)
        .lines()
        .find(|l| l.starts_with("  steadystate  :"))
        .unwrap()
        .to_string();
    assert!(
        line.contains(", lat=") && line.contains("nsec, lat mean dev="),
        "{line}"
    );
    // 3.33 has no latency criterion.
    let o = steady_job(
        &dir,
        "--runtime=1",
        &["--compat=fio-3.33", "--ss=lat:10%", "--ss_dur=2"],
    );
    assert_eq!(o.status.code(), Some(1));
}

/// fio 3.35 scales each measurement by the time since the last over the
/// interval: the first look, under an interval after the job's start,
/// counts short (3.33 counted it per second in full).
#[test]
fn the_first_look_counts_short_from_3_35() {
    let dir = TempDir::new("ss-first");
    let first = |release: &str| {
        let o = steady_job(
            &dir,
            "--runtime=3",
            &[
                release,
                "--ss=iops:0",
                "--ss_dur=3",
                "--startdelay=500ms",
                "--output-format=json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let ss = json(&o)["jobs"][0]["steadystate"].clone();
        ss["data"]["iops"][0].as_u64().unwrap()
    };
    let (old, new) = (first("--compat=fio-3.33"), first("--compat=fio-3.42"));
    // 2000 IOPS: 3.33's first slot is a rate (about 2000); 3.42's is
    // the I/Os of the part-interval times its share of the interval: the
    // job starts half a second into the checks' first second (fio 3.42
    // here: 314, after the helper's own start-up; rfio about 500).
    assert!((1900..=2100).contains(&old), "3.33: {old}");
    assert!(new < old * 3 / 4, "3.42: {new} vs 3.33: {old}");
}
