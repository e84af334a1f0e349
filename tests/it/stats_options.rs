//! Statistics, placement, identity and profile options: `error_dump`,
//! `block_error_percentiles`, `percentage_sequential`/`rwmixcycle`,
//! `gtod_cpu`, `numa_cpu_nodes`, `numa_mem_policy`, `cgroup`,
//! `cgroup_weight`, `cgroup_nodelete`, `uid`, `gid`, `--profile=`. Run
//! through the rfio binary in temporary directories, and beside real fio
//! 3.33 where its output is deterministic; the commands a job runs
//! (`exec_prerun`) inherit its thread's settings and show them.

use crate::common::{self, real_fio, stderr, stdout, TempDir};

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Output;

fn run(bin: &str, dir: &Path, args: &[&str]) -> Output {
    common::run_in(bin, dir, args)
}

fn rfio(dir: &Path, args: &[&str]) -> Output {
    run(common::RFIO, dir, args)
}

fn read(dir: &TempDir, name: &str) -> String {
    std::fs::read_to_string(dir.file(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The lines of `text` from the one starting with `from` up to the first
/// empty line.
fn section(text: &str, from: &str) -> String {
    text.lines()
        .skip_while(|l| !l.starts_with(from))
        .take_while(|l| !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Writes to /dev/full fail with ENOSPC; `continue_on_error` lets them
/// through, and `error_dump` prints each, as fio does.
#[test]
fn error_dump_prints_the_errors_let_through() {
    let dir = TempDir::new("st-errdump");
    let base = [
        "--name=j",
        "--filename=/dev/full",
        "--rw=write",
        "--size=16k",
        "--continue_on_error=write",
        "--ignore_error=,ENOSPC",
        "--minimal",
    ];
    let line = |o: u32| {
        format!("fio: io_u error on file /dev/full: No space left on device: write offset={o}, buflen=4096\n")
    };
    let want: String = [0, 4096, 8192, 12288].map(line).concat();
    let mut args = base.to_vec();
    args.push("--error_dump=1");
    let (r, f) = (rfio(&dir.0, &args), run(real_fio(), &dir.0, &args));
    assert_eq!(r.status.code(), Some(0));
    assert_eq!(stderr(&r), want);
    assert_eq!(stderr(&f), want);
    let r = rfio(&dir.0, &base);
    assert_eq!(stderr(&r), "");
}

/// fio 3.33 lists these two but fails parsing them, whatever the value,
/// and drops the job (exit 1), in a job file as on the command line.
#[test]
fn deprecated_mix_options_are_refused() {
    let dir = TempDir::new("st-deprecated");
    dir.write("d.fio", "[j]\nioengine=null\nsize=16k\nrwmixcycle=3\n");
    for args in [
        vec!["d.fio"],
        vec![
            "--name=j",
            "--ioengine=null",
            "--size=16k",
            "--percentage_sequential=50",
        ],
    ] {
        let (r, f) = (rfio(&dir.0, &args), run(real_fio(), &dir.0, &args));
        // fio 3.33 exits 1, or now and then dies of a signal here (seen in
        // CI); rfio exits 1.
        assert_eq!(r.status.code(), Some(1));
        assert_ne!(f.status.code(), Some(0));
        let name = if args.len() == 1 {
            "rwmixcycle"
        } else {
            "percentage_sequential"
        };
        // fio's notice, on stdout.
        let notice = format!("Option {name} is deprecated\n");
        assert_eq!(stdout(&r), notice);
        assert_eq!(stdout(&f), notice);
    }
    let r = rfio(&dir.0, &["d.fio"]);
    assert_eq!(
        stderr(&r),
        format!(
            "rfio: {}:4:1: job 'j': bad value for option 'rwmixcycle' ('rwmixcycle=3'): \
             fio 3.33 refuses this option (\"Option rwmixcycle is deprecated\")\n",
            Path::new("d.fio").display()
        )
    );
}

/// A job that never trims prints fio's empty block section, and no JSON
/// `block` object: the same bytes as fio.
#[test]
fn block_percentiles_of_a_job_without_trims_match_fio() {
    let dir = TempDir::new("st-blocks");
    let args = [
        "--name=j",
        "--ioengine=null",
        "--size=64k",
        "--block_error_percentiles=1",
    ];
    let (r, f) = (rfio(&dir.0, &args), run(real_fio(), &dir.0, &args));
    assert!(r.status.success(), "{}", stderr(&r));
    let want = "  block lifetime percentiles :\n   |        states               : \
                unwritten=0, trimmed=0, written=0, trim failure=0, write failure=0\n";
    assert_eq!(section(&stdout(&r), "  block lifetime"), want);
    assert_eq!(section(&stdout(&f), "  block lifetime"), want);
    let mut json = args.to_vec();
    json.push("--output-format=json");
    let r = rfio(&dir.0, &json);
    assert!(!stdout(&r).contains("\"block\""));
    assert!(stdout(&r).contains("\"block_error_percentiles\" : \"1\""));
}

/// With trims, the percentiles fio means to print (fio 3.33 aborts on an
/// assertion instead): trim counts per 4 KiB block of the 64 KiB file,
/// over three passes of fio's random offsets.
#[test]
fn block_percentiles_of_trims() {
    let dir = TempDir::new("st-blocks-trim");
    let mut args = vec![
        "--name=j",
        "--ioengine=null",
        "--size=64k",
        "--rw=randtrim",
        "--norandommap",
        "--loops=3",
        "--block_error_percentiles=1",
    ];
    let r = rfio(&dir.0, &args);
    assert!(r.status.success(), "{}", stderr(&r));
    assert_eq!(
        section(&stdout(&r), "  block lifetime"),
        "  block lifetime percentiles :\n   \
         | 1.00th=1, 5.00th=1, 10.00th=1, 20.00th=1, 30.00th=2, 40.00th=3, 50.00th=3,\n   \
         | 60.00th=3, 70.00th=4, 80.00th=4, 90.00th=5, 95.00th=6, 99.00th=6,\n   \
         | 99.50th=6, 99.90th=6, 99.95th=6, 99.99th=6\n        \
         states               : unwritten=0, trimmed=16, written=0, trim failure=0, write failure=0\n"
    );
    let f = run(real_fio(), &dir.0, &args);
    assert!(
        stderr(&f).contains("Assertion"),
        "fio 3.33 aborts: {}",
        stderr(&f)
    );
    args.extend(["--output-format=json", "--percentile_list=50:100"]);
    let r = rfio(&dir.0, &args);
    let v: serde_json::Value = serde_json::from_str(&stdout(&r)).unwrap();
    assert_eq!(
        v["jobs"][0]["block"],
        serde_json::json!({
            "percentiles": {"50.000000": 3, "100.000000": 6},
            "states": {"unwritten": 0, "trimmed": 16, "written": 0, "trim failure": 0, "write failure": 0}
        })
    );
}

#[test]
fn block_percentiles_refusals() {
    let dir = TempDir::new("st-blocks-bad");
    dir.write(
        "b.fio",
        "[j]\nioengine=null\nsize=64k\nnrfiles=2\nblock_error_percentiles=1\n",
    );
    let r = rfio(&dir.0, &["b.fio"]);
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(
        stderr(&r),
        format!(
            "rfio: {}:1:1: job 'j': block_error_percentiles: block error histogram only \
             available with a single file per job, but 2 files provided\n",
            Path::new("b.fio").display()
        )
    );
    assert_eq!(run(real_fio(), &dir.0, &["b.fio"]).status.code(), Some(1));
    // More than 8192 trim blocks: fio's set-up error, before the job starts.
    let args = [
        "--name=j",
        "--ioengine=null",
        "--size=64m",
        "--rw=trim",
        "--block_error_percentiles=1",
        "--minimal",
    ];
    let (r, f) = (rfio(&dir.0, &args), run(real_fio(), &dir.0, &args));
    assert_eq!((r.status.code(), f.status.code()), (Some(1), Some(1)));
    let want = "fio: cannot calculate block histogram with 16384 trim blocks, maximum 8192\n\
                fio: pid=0, err=22/file:filesetup.c:1287, func=block_error_hist, error=Invalid argument\n";
    assert_eq!(stderr(&r), want);
    assert_eq!(stderr(&f), want);
}

/// fio resets `uid`/`gid` for every job it makes: the job's own section
/// sets them, its `numjobs` clones run as the invoking user. rfio switches
/// the job's thread only; the files the job creates show who it ran as.
#[test]
fn uid_and_gid_switch_the_jobs_thread() {
    if !common::require_root("switching users") {
        return;
    }
    let dir = TempDir::new("st-uid");
    let work = dir.file("w");
    std::fs::create_dir(&work).unwrap();
    std::fs::set_permissions(&work, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let d = format!("--directory={}", work.display());
    let args = [
        "--uid=1",
        "--name=j",
        "--uid=65534",
        "--gid=65534",
        "--numjobs=2",
        "--ioengine=filecreate",
        "--nrfiles=1",
        "--filesize=4k",
        &d,
        "--name=k",
        "--ioengine=filecreate",
        "--nrfiles=1",
        "--filesize=4k",
        &d,
        "--minimal",
    ];
    let owners = |bin: &str| {
        for f in std::fs::read_dir(&work).unwrap() {
            std::fs::remove_file(f.unwrap().path()).unwrap();
        }
        let o = run(bin, &dir.0, &args);
        assert!(o.status.success(), "{bin}: {}", stderr(&o));
        ["j.0.0", "j.1.0", "k.0.0"].map(|n| {
            let m = std::fs::metadata(work.join(n)).unwrap();
            (m.uid(), m.gid())
        })
    };
    let want = [(65534, 65534), (0, 0), (0, 0)];
    assert_eq!(owners(common::RFIO), want);
    assert_eq!(owners(real_fio()), want);
    // Without the privilege: fio's setuid error, before any I/O.
    if std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok()
    {
        let args = [
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            common::RFIO,
            "--name=j",
            "--ioengine=null",
            "--size=16k",
            "--uid=0",
            "--minimal",
        ];
        let o = run("setpriv", &dir.0, &args);
        assert_eq!(o.status.code(), Some(1));
        let err = stderr(&o);
        assert!(
            err.ends_with(
                ", err=1/file:backend.c:1679, func=setuid, error=Operation not permitted\n"
            ),
            "{err}"
        );
    }
}

/// The commands a job runs inherit its NUMA placement: the memory policy
/// (`numa_maps` shows the task's) and the CPUs of its nodes.
#[test]
fn numa_policy_and_nodes_reach_the_job() {
    let dir = TempDir::new("st-numa");
    let cpus0 = std::fs::read_to_string("/sys/devices/system/node/node0/cpulist")
        .expect("node 0")
        .trim()
        .to_string();
    for (policy, shown) in [
        ("bind:0", "bind:0"),
        ("interleave", "interleave:0"),
        ("local", "local"),
        ("prefer:0", "prefer:0"),
        ("default", "default"),
    ] {
        let p = format!("--numa_mem_policy={policy}");
        let o = rfio(
            &dir.0,
            &[
                "--name=j",
                "--ioengine=null",
                "--size=16k",
                &p,
                "--numa_cpu_nodes=0",
                "--exec_prerun=sh -c \"head -1 /proc/self/numa_maps | cut -d' ' -f2; \
                 grep Cpus_allowed_list /proc/self/status\"",
                "--minimal",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            read(&dir, "j.prerun.txt"),
            format!("{shown}\nCpus_allowed_list:\t{cpus0}\n"),
            "{policy}"
        );
    }
}

#[test]
fn numa_refusals() {
    let dir = TempDir::new("st-numa-bad");
    let nodes = std::fs::read_to_string("/sys/devices/system/node/possible").unwrap_or_default();
    if nodes.trim() == "0" {
        dir.write("n.fio", "[j]\nioengine=null\nsize=16k\nnuma_cpu_nodes=1\n");
        let r = rfio(&dir.0, &["n.fio"]);
        assert_eq!(r.status.code(), Some(1));
        assert_eq!(
            stderr(&r),
            format!(
                "rfio: {}:1:1: job 'j': numa_cpu_nodes=1: node argument 1 is out of range \
                 (fio: numa_parse_nodestring failed)\n",
                Path::new("n.fio").display()
            )
        );
        assert_eq!(run(real_fio(), &dir.0, &["n.fio"]).status.code(), Some(1));
    }
    let r = rfio(
        &dir.0,
        &["--name=j", "--numa_mem_policy=prefer:x", "--size=4k"],
    );
    assert_eq!(
        stderr(&r),
        "rfio: command line argument 1: job 'j': numa_mem_policy=prefer:x: one node only for 'prefer'\n"
    );
    // No node at all: libnuma's affinity fails, the job with it (as fio).
    let args = [
        "--name=j",
        "--ioengine=null",
        "--size=16k",
        "--numa_cpu_nodes=!0",
        "--minimal",
    ];
    let (r, f) = (rfio(&dir.0, &args), run(real_fio(), &dir.0, &args));
    assert_eq!((r.status.code(), f.status.code()), (Some(1), Some(1)));
    let first = "numa_sched_setaffinity_v2_int() failed: Invalid argument\n";
    assert!(stderr(&r).starts_with(first), "{}", stderr(&r));
    assert!(stderr(&f).starts_with(first));
    let err = |o: &Output| {
        stdout(o)
            .lines()
            .last()
            .unwrap_or("")
            .split(';')
            .nth(4)
            .map(String::from)
    };
    assert_eq!(err(&r), Some("22".into()));
    assert_eq!(err(&r), err(&f));
}

/// The cgroup fio picks on this machine (a v1 hierarchy with blkio, or
/// cgroup v2), if any.
fn cgroup_mount() -> Option<(String, bool)> {
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split(' ').collect();
        match (f[2], f[3].contains("blkio")) {
            ("cgroup", true) => Some((f[1].to_string(), false)),
            ("cgroup2", _) => Some((f[1].to_string(), true)),
            _ => None,
        }
    })
}

/// The job's thread joins the group (made if missing, removed after the
/// run unless `cgroup_nodelete`) and leaves it when the job ends.
#[test]
fn cgroup_holds_the_job_and_goes_after_the_run() {
    if !common::require_root("making a cgroup") {
        return;
    }
    let found = cgroup_mount().ok_or_else(|| {
        "no cgroup mount fio would use in /proc/mounts (cgroup2, or cgroup with blkio)".to_string()
    });
    let Some((mount, v2)) = common::need("cgroup", found) else {
        return;
    };
    let dir = TempDir::new("st-cgroup");
    let name = format!("rfio-test-{}", std::process::id());
    let group = Path::new(&mount).join(&name);
    let cg = format!("--cgroup={name}");
    let o = rfio(
        &dir.0,
        &[
            "--name=j",
            "--ioengine=null",
            "--size=16k",
            &cg,
            "--exec_prerun=cat /proc/self/cgroup",
            "--minimal",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let shown = read(&dir, "j.prerun.txt");
    assert!(
        shown.lines().any(|l| l.ends_with(&format!(":/{name}"))),
        "{shown}"
    );
    assert!(!group.exists(), "{} left behind", group.display());
    let o = rfio(
        &dir.0,
        &[
            "--name=j",
            "--ioengine=null",
            "--size=16k",
            &cg,
            "--cgroup_nodelete=1",
            "--minimal",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(group.exists());
    let tasks = if v2 { "cgroup.procs" } else { "tasks" };
    assert_eq!(std::fs::read_to_string(group.join(tasks)).unwrap(), "");
    std::fs::remove_dir(&group).unwrap();
    // A weight: fio's answer on this machine (v2 refuses it; v1 needs the
    // blkio.weight of a proportional scheduler).
    let args = [
        "--name=j",
        "--ioengine=null",
        "--size=16k",
        &cg,
        "--cgroup_weight=500",
        "--minimal",
    ];
    let (r, f) = (rfio(&dir.0, &args), run(real_fio(), &dir.0, &args));
    assert_eq!(r.status.code(), f.status.code());
    let err = |o: &Output| {
        stdout(o)
            .lines()
            .last()
            .unwrap_or("")
            .split(';')
            .nth(4)
            .map(String::from)
    };
    assert_eq!(err(&r), err(&f));
    assert!(!group.exists());
}

/// `gtod_cpu`: a thread pinned to that CPU keeps the time, which jobs read
/// in whole microseconds; a job with `cpus_allowed` leaves the CPU out
/// (here nothing is left: fio's affinity error).
#[test]
fn gtod_cpu_keeps_time_on_its_own_thread() {
    let dir = TempDir::new("st-gtod");
    dir.write("f", &"x".repeat(64 << 10));
    let o = rfio(
        &dir.0,
        &[
            "--name=j",
            "--filename=f",
            "--size=64k",
            "--gtod_cpu=0",
            "--exec_prerun=cat /proc/$PPID/task/*/comm",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(read(&dir, "j.prerun.txt").contains("rfio-gtod\n"));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let clat = &v["jobs"][0]["read"]["clat_ns"];
    for k in ["min", "max"] {
        assert_eq!(clat[k].as_u64().unwrap() % 1000, 0, "{clat}");
    }
    if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
        let args = [
            "--name=j",
            "--ioengine=null",
            "--size=16k",
            "--gtod_cpu=1",
            "--cpus_allowed=1",
            "--minimal",
        ];
        let (r, f) = (rfio(&dir.0, &args), run(real_fio(), &dir.0, &args));
        // fio 3.33 exits 1, or now and then dies of a signal here (seen in
        // CI); rfio exits 1.
        assert_eq!(r.status.code(), Some(1));
        assert_ne!(f.status.code(), Some(0));
        assert!(stderr(&r).contains("err=22/file:backend.c:1716, func=cpu_set_affinity"));
    }
}

/// act: a small run (a 1 s `test-duration` of `1us`, fio's µs-as-seconds)
/// prints ACT's table of one slice before the report, and no version line
/// (fio adds a profile's jobs after printing it).
#[test]
fn act_profile_runs_and_prints_its_table() {
    let dir = TempDir::new("st-act");
    dir.write("dev", &"\0".repeat(4 << 20));
    let args = [
        "--profile=act",
        "--device-names=dev",
        "--test-duration=1us",
        "--threads-per-queue=1",
        "--read-req-num-512-blocks=8",
    ];
    let (r, f) = (rfio(&dir.0, &args), run(real_fio(), &dir.0, &args));
    assert!(r.status.success(), "{}", stderr(&r));
    let head = |o: &Output| -> Vec<String> {
        stdout(o)
            .lines()
            .take(9)
            .map(|l| match l.find('\t') {
                Some(i) if l.starts_with("    1") => l[..i].to_string(),
                _ => l.to_string(),
            })
            .collect()
    };
    assert_eq!(head(&r), head(&f));
    assert_eq!(head(&r)[0], "act-read-dev: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=sync, iodepth=1");
    assert_eq!(head(&r)[3], "        trans                   device");
    assert!(stdout(&r).contains("\n\nact: test complete, device(s): "));
    assert!(!stdout(&r).contains("fio-3.33"));
}

#[test]
fn profile_refusals() {
    let dir = TempDir::new("st-profile-bad");
    let r = rfio(&dir.0, &["--profile=act"]);
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(
        stderr(&r),
        "rfio: command line argument 1: --profile=act: act: you need to set IO target(s) \
         with the device-names option.\n"
    );
    let r = rfio(&dir.0, &["--profile=nope", "--parse-only"]);
    assert_eq!(r.status.code(), Some(1));
    assert!(stderr(&r).contains("profile 'nope' not found"));
    for a in [
        ["--profile=act", "--parse-only"],
        ["--profile=nope", "--showcmd"],
    ] {
        assert_eq!(run(real_fio(), &dir.0, &a).status.code(), Some(1));
    }
    let r = rfio(&dir.0, &["--profile=tiobench", "--parse-only"]);
    assert_eq!((r.status.code(), stdout(&r)), (Some(0), String::new()));
}

/// After `--profile=NAME`, `--cmdhelp` shows that profile's options only,
/// with fio's texts (and "valid: only for profile ..." in their help).
#[test]
fn profile_cmdhelp_matches_fio() {
    let dir = TempDir::new("st-profile-help");
    for args in [
        vec!["--profile=act", "--cmdhelp"],
        vec!["--profile=tiobench", "--cmdhelp=all"],
        vec!["--profile=act", "--cmdhelp=test-duration"],
        vec!["--profile=tiobench", "--cmdhelp=size"],
        vec!["--profile=act", "--cmdhelp=lod"],
    ] {
        let (r, f) = (rfio(&dir.0, &args), run(real_fio(), &dir.0, &args));
        assert_eq!(stdout(&r), stdout(&f), "{args:?}");
        assert_eq!(stderr(&r), stderr(&f), "{args:?}");
        assert_eq!(r.status.code(), f.status.code(), "{args:?}");
    }
}
