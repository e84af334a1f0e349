//! The fio release rfio behaves as: `--compat=fio-3.NN`, else
//! `RFIO_FIO_VERSION`, else the newest, fio 3.42. The chosen release names itself in
//! `--version`, the JSON header and terse field 2, and decides which
//! later options are known.

use std::process::{Command, Output};

use crate::common::{output_within, stderr, stdout, TempDir, RFIO, RUN_LIMIT};

/// rfio (as `fio` when `as_fio`) with `args` in `dir`, `RFIO_FIO_VERSION`
/// set to `env` (unset for `None`).
fn rfio_env(dir: &TempDir, as_fio: bool, env: Option<&str>, args: &[&str]) -> Output {
    let bin = if as_fio {
        let link = dir.0.join("fio");
        if !link.exists() {
            std::os::unix::fs::symlink(RFIO, &link).expect("symlink fio");
        }
        link
    } else {
        RFIO.into()
    };
    let mut cmd = Command::new(bin);
    cmd.current_dir(&dir.0).args(args);
    match env {
        Some(v) => cmd.env("RFIO_FIO_VERSION", v),
        None => cmd.env_remove("RFIO_FIO_VERSION"),
    };
    let (out, timed_out) = output_within(&mut cmd, RUN_LIMIT);
    assert!(!timed_out, "rfio {args:?} hung");
    out
}

#[test]
fn version_names_the_chosen_release() {
    let dir = TempDir::new("releases-version");
    let rfio_version = format!("rfio-{}", env!("CARGO_PKG_VERSION"));
    for (as_fio, env, args, want) in [
        (true, None, &["--version"][..], "fio-3.42\n".to_string()),
        (
            true,
            Some("3.36"),
            &["--version"][..],
            "fio-3.36\n".to_string(),
        ),
        (
            true,
            Some("fio-3.42"),
            &["--version"][..],
            "fio-3.42\n".to_string(),
        ),
        (true, Some(""), &["--version"][..], "fio-3.42\n".to_string()),
        // The flag wins over the variable.
        (
            true,
            Some("3.36"),
            &["--compat=fio-3.41", "--version"][..],
            "fio-3.41\n".to_string(),
        ),
        (
            false,
            Some("3.38"),
            &["--version"][..],
            format!("{rfio_version} (fio-3.38 compatible)\n"),
        ),
    ] {
        let o = rfio_env(&dir, as_fio, env, args);
        assert_eq!(o.status.code(), Some(0), "{env:?} {args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), want, "{env:?} {args:?}");
    }
}

/// With nothing chosen rfio is the newest release, fio 3.42, under either
/// name: its `--version`, its options (3.41's `sprandom`), with fio 3.42's
/// counts; `RFIO_FIO_VERSION=3.33` and `--compat=fio-3.33` (which wins over
/// the variable) make it Debian's 3.33, which does not know the option.
#[test]
fn the_default_is_the_newest_release() {
    let dir = TempDir::new("releases-default");
    let o = rfio_env(&dir, true, None, &["--version"]);
    assert_eq!(
        (o.status.code(), stdout(&o)),
        (Some(0), "fio-3.42\n".into())
    );
    let o = rfio_env(&dir, false, None, &["--version"]);
    let want = format!("rfio-{} (fio-3.42 compatible)\n", env!("CARGO_PKG_VERSION"));
    assert_eq!((o.status.code(), stdout(&o)), (Some(0), want));
    std::fs::write(
        dir.0.join("s.fio"),
        "[j]\nioengine=null\nsize=1m\nbs=4k\nrw=randwrite\nsprandom=1\n",
    )
    .unwrap();
    // Real fio 3.42 writes 203 blocks, 831488 bytes, of this job.
    for as_fio in [true, false] {
        let o = rfio_env(&dir, as_fio, None, &["--output-format=json", "s.fio"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = stdout(&o);
        let v: serde_json::Value =
            serde_json::from_str(&text[text.find("{\n").unwrap_or(0)..]).expect("JSON");
        assert_eq!(v["fio version"], "fio-3.42");
        assert_eq!(v["jobs"][0]["write"]["total_ios"], 203, "as fio: {as_fio}");
        assert_eq!(
            v["jobs"][0]["write"]["io_bytes"], 831_488,
            "as fio: {as_fio}"
        );
        // The default release is no choice to remark on.
        assert_eq!(stderr(&o), "", "as fio: {as_fio}");
    }
    // fio 3.33's words (Debian's fio: exit 1, this on stderr), and rfio's;
    // `--compat=fio-3.33` reads as fio too.
    let fio_33 = "Bad option <sprandom=1>\nfio: job j dropped\n";
    let rfio_33 = "rfio: s.fio:6:1: job 'j': unknown option 'sprandom' \
                   (fio 3.41 added it; rfio behaves as fio-3.33)\n";
    for (as_fio, env, flag, want) in [
        (true, Some("3.33"), None, fio_33),
        (false, Some("3.33"), None, rfio_33),
        (true, Some("3.42"), Some("--compat=fio-3.33"), fio_33),
        (false, Some("3.42"), Some("--compat=fio-3.33"), fio_33),
        (false, None, Some("--compat=fio-3.33"), fio_33),
    ] {
        let args: Vec<&str> = flag.into_iter().chain(["--parse-only", "s.fio"]).collect();
        let o = rfio_env(&dir, as_fio, env, &args);
        assert_eq!(o.status.code(), Some(1), "{env:?} {args:?}");
        assert_eq!(stderr(&o), want, "{env:?} {args:?}");
    }
    let o = rfio_env(
        &dir,
        true,
        Some("3.42"),
        &["--compat=fio-3.33", "--version"],
    );
    assert_eq!(stdout(&o), "fio-3.33\n");
}

#[test]
fn an_unknown_release_is_refused() {
    let dir = TempDir::new("releases-unknown");
    let o = rfio_env(&dir, false, Some("3.99"), &["--version"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: RFIO_FIO_VERSION=3.99: unknown fio release '3.99' (rfio is any of fio-3.33 to fio-3.42)\n"
    );
    assert_eq!(stdout(&o), "");
    let o = rfio_env(&dir, false, None, &["--compat=fio-3.32", "--version"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "--compat=fio-3.32: unknown fio release 'fio-3.32' (rfio is any of fio-3.33 to fio-3.42)"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn outputs_are_headed_by_the_release() {
    let dir = TempDir::new("releases-outputs");
    let job = ["--name=j", "--ioengine=null", "--size=64k", "--bs=4k"];
    let with = |extra: &[&'static str]| -> Vec<&str> { job.iter().chain(extra).copied().collect() };
    let o = rfio_env(&dir, true, Some("3.36"), &with(&["--output-format=json"]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["fio version"], "fio-3.36");
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 16);
    // As fio, nothing of rfio's own wording reaches stderr.
    assert_eq!(stderr(&o), "");
    let o = rfio_env(&dir, true, None, &with(&["--minimal"]));
    let fields: Vec<String> = stdout(&o).trim_end().split(';').map(String::from).collect();
    assert_eq!(fields[..3], ["3", "fio-3.42", "j"]);
    // As rfio, a later release says what of it is in.
    let o = rfio_env(
        &dir,
        false,
        None,
        &with(&["--minimal", "--compat=fio-3.42"]),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).split(';').nth(1), Some("fio-3.42"));
    assert!(
        stderr(&o).starts_with(
            "rfio: as fio-3.42: that release's options, version and seeding are known;"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_option_of_a_later_release_is_named_with_it() {
    let dir = TempDir::new("releases-options");
    std::fs::write(
        dir.0.join("j.fio"),
        "[j]\nioengine=null\nsize=1m\ndp_scheme=s\n",
    )
    .unwrap();
    let o = rfio_env(&dir, false, Some("3.33"), &["--parse-only", "j.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: j.fio:4:1: job 'j': unknown option 'dp_scheme' (fio 3.38 added it; rfio behaves as fio-3.33)\n"
    );
    // From 3.38 the job reads (as fio 3.38's does, --parse-only skipping
    // the option's check) and is refused when read to run, as fio 3.42
    // refuses it (exit 1): the scheme file does not exist.
    let o = rfio_env(&dir, false, Some("3.38"), &["--parse-only", "j.fio"]);
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(0), ""));
    let o = rfio_env(&dir, false, Some("3.38"), &["--output=/dev/null", "j.fio"]);
    assert_eq!(o.status.code(), Some(1));
    let last = stderr(&o).lines().last().unwrap_or_default().to_string();
    assert_eq!(last, "fio: failed parsing dp_scheme=s");
}

/// The blocks (4 KiB) a job of `extra` options reads, in order, per file
/// (`FILE:BLOCK`), from the v3 iolog rfio writes as `release`.
fn blocks_read(dir: &TempDir, release: &str, extra: &[&str]) -> Vec<String> {
    let _ = std::fs::remove_file(dir.0.join("t.log"));
    let mut args = vec![
        "--name=t",
        "--ioengine=null",
        "--size=64k",
        "--bs=4k",
        "--rw=randread",
        "--write_iolog=t.log",
        "--output=/dev/null",
    ];
    args.extend(extra);
    let o = rfio_env(dir, true, Some(release), &args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    reads(&std::fs::read_to_string(dir.0.join("t.log")).expect("iolog"))
}

/// The reads of a v3 iolog, as `FILE:BLOCK` (4 KiB blocks).
fn reads(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let block = f.get(3)?.parse::<u64>().ok()? / 4096;
            (f.get(2) == Some(&"read")).then(|| format!("{}:{block}", f[1]))
        })
        .collect()
}

/// From 3.35 every generator is seeded from `randseed`, offsets included,
/// and a distribution's seed takes the file's offset seed. The offsets
/// are real fio 3.42's (`fio --name=t --ioengine=null --size=64k --bs=4k
/// --rw=randread --write_iolog=t.log ...`, fio built from
/// ../shared/oracles), and 3.33's those of Debian's fio.
#[test]
fn offsets_are_seeded_as_the_release_seeds_them() {
    let dir = TempDir::new("releases-seeds");
    let blocks = |s: &str| -> Vec<String> { s.split_whitespace().map(String::from).collect() };
    let plain = "t.0.0:15 t.0.0:13 t.0.0:10 t.0.0:8 t.0.0:9 t.0.0:0 t.0.0:1 t.0.0:3 \
                 t.0.0:5 t.0.0:14 t.0.0:11 t.0.0:12 t.0.0:2 t.0.0:6 t.0.0:4 t.0.0:7";
    for release in ["3.35", "3.36", "3.42"] {
        assert_eq!(blocks_read(&dir, release, &[]), blocks(plain), "{release}");
    }
    assert_eq!(
        blocks_read(
            &dir,
            "3.42",
            &["--random_distribution=zipf:1.2", "--norandommap"]
        ),
        blocks(
            "t.0.0:7 t.0.0:6 t.0.0:1 t.0.0:15 t.0.0:1 t.0.0:6 t.0.0:13 t.0.0:7 \
             t.0.0:7 t.0.0:1 t.0.0:6 t.0.0:11 t.0.0:2 t.0.0:6 t.0.0:9 t.0.0:1"
        )
    );
    let mut two = blocks_read(&dir, "3.42", &["--randseed=1234", "--numjobs=2"]);
    two.sort_by_key(|b| b.starts_with("t.0.0"));
    assert_eq!(
        two,
        blocks(
            "t.1.0:9 t.1.0:2 t.1.0:4 t.1.0:10 t.1.0:3 t.1.0:14 t.1.0:5 t.1.0:8 \
             t.1.0:11 t.1.0:12 t.1.0:15 t.1.0:6 t.1.0:13 t.1.0:7 t.1.0:0 t.1.0:1 \
             t.0.0:1 t.0.0:6 t.0.0:2 t.0.0:4 t.0.0:5 t.0.0:3 t.0.0:7 t.0.0:0 \
             t.0.0:15 t.0.0:11 t.0.0:14 t.0.0:9 t.0.0:8 t.0.0:10 t.0.0:12 t.0.0:13"
        )
    );
    // 3.33 and 3.34 seed offsets from FIO_RANDSEED: real fio 3.33's order.
    let fio = crate::common::real_fio();
    let o = crate::common::run_in(
        fio,
        &dir.0,
        &[
            "--name=t",
            "--ioengine=null",
            "--size=64k",
            "--bs=4k",
            "--rw=randread",
            "--write_iolog=fio.log",
            "--output=/dev/null",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let by_fio = reads(&std::fs::read_to_string(dir.0.join("fio.log")).unwrap());
    assert_ne!(by_fio, blocks(plain));
    for release in ["3.33", "3.34"] {
        assert_eq!(blocks_read(&dir, release, &[]), by_fio, "{release}");
    }
}

/// fio 3.36 on: each JSON job has `job_start`, after `groupid`, the
/// wall-clock ms when its statistics started (its start, or its ramp's
/// end); 3.33 has none.
#[test]
fn json_jobs_have_their_start_from_3_36() {
    let dir = TempDir::new("releases-job-start");
    let now_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    };
    let job = [
        "--name=j",
        "--ioengine=null",
        "--size=64k",
        "--time_based",
        "--runtime=300ms",
        "--ramp_time=200ms",
        "--output-format=json",
    ];
    let before = now_ms();
    let o = rfio_env(&dir, true, Some("3.36"), &job);
    let after = now_ms();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let keys: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("\"jobname\""))
        .take(3)
        .map(|l| l.trim().split('"').nth(1).unwrap())
        .collect();
    assert_eq!(keys, ["jobname", "groupid", "job_start"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let start = v["jobs"][0]["job_start"].as_u64().unwrap();
    // The statistics start when the 200 ms ramp ends.
    assert!(
        before + 200 <= start && start + 300 <= after,
        "{before} {start} {after}"
    );
    let o = rfio_env(&dir, true, Some("3.35"), &job);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["jobs"][0].get("job_start").is_none());
}

/// fio 3.39 on keeps empty strings in JSON: an option set without a value
/// (`time_based`, `group_reporting`) is in its options block as `""`, as
/// real fio 3.42 prints it; before, it is left out with its key.
#[test]
fn valueless_options_are_in_json_from_3_39() {
    let dir = TempDir::new("releases-empty-strings");
    std::fs::write(
        dir.0.join("v.fio"),
        "[global]\ntime_based\nruntime=100ms\n[j]\nioengine=null\nsize=64k\ngroup_reporting\n",
    )
    .unwrap();
    let blocks = |release: &str| {
        let o = rfio_env(
            &dir,
            true,
            Some(release),
            &["--output-format=json", "v.fio"],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        (
            v["global options"].clone(),
            v["jobs"][0]["job options"].clone(),
        )
    };
    assert_eq!(
        blocks("3.38"),
        (
            serde_json::json!({"runtime": "100ms"}),
            serde_json::json!({"ioengine": "null", "size": "64k"})
        )
    );
    let (global, job) = blocks("3.39");
    assert_eq!(
        global,
        serde_json::json!({"time_based": "", "runtime": "100ms"})
    );
    assert_eq!(
        job,
        serde_json::json!({"ioengine": "null", "size": "64k", "group_reporting": ""})
    );
}

/// Options that became another's alias are read and printed as it:
/// `allrandrepeat` as `randrepeat` from 3.35, `log_unix_epoch` as
/// `log_alternate_epoch` from 3.36 (fio 3.42's `--showcmd`); fio 3.42's
/// JSON repeats the latency target and window with their units.
#[test]
fn aliases_and_latency_units_follow_the_release() {
    let dir = TempDir::new("releases-aliases");
    std::fs::write(
        dir.0.join("a.fio"),
        "[a]\nioengine=null\nsize=1m\nallrandrepeat=1\nlog_unix_epoch=1\n",
    )
    .unwrap();
    let showcmd = |release: &str| {
        let o = rfio_env(&dir, true, Some(release), &["--showcmd", "a.fio"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
    };
    assert_eq!(
        showcmd("3.33"),
        "fio --name=a --ioengine=null --size=1m --allrandrepeat=1 --log_unix_epoch=1 \n"
    );
    assert_eq!(
        showcmd("3.35"),
        "fio --name=a --ioengine=null --size=1m --randrepeat=1 --log_unix_epoch=1 \n"
    );
    assert_eq!(
        showcmd("3.42"),
        "fio --name=a --ioengine=null --size=1m --randrepeat=1 --log_alternate_epoch=1 \n"
    );
    let latency = |release: &str| {
        let args = [
            "--name=l",
            "--ioengine=null",
            "--size=256k",
            // At depth 1 one completion over the target ends the job
            // (fio's lat_target_failed): a target no loaded machine's null
            // I/O reaches.
            "--latency_target=1s",
            "--latency_window=100ms",
            "--output-format=json",
        ];
        let o = rfio_env(&dir, true, Some(release), &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let job = v["jobs"][0].as_object().unwrap().clone();
        [
            "latency_target",
            "latency_target_ns",
            "latency_window",
            "latency_window_us",
        ]
        .map(|k| job.get(k).cloned())
    };
    let n = |x: u64| Some(serde_json::json!(x));
    assert_eq!(latency("3.41"), [n(1_000_000_000), None, n(100_000), None]);
    assert_eq!(
        latency("3.42"),
        [n(1_000_000_000), n(1_000_000_000), n(100_000), n(100_000)]
    );
}

/// fio 3.36 on gives each priority of a direction's `prios` its
/// `priohint` (0: rfio sets no hints), after `prio`.
#[test]
fn priorities_have_their_hint_from_3_36() {
    if !crate::common::require::require_engine("libaio", 1) {
        return;
    }
    let dir = TempDir::new("releases-priohint");
    let args = [
        "--name=p",
        "--ioengine=libaio",
        "--filename=p.dat",
        "--size=256k",
        "--bs=4k",
        "--rw=randread",
        "--cmdprio_bssplit=4k/50/2/0/1",
        "--output-format=json",
    ];
    let prios = |release: &str| {
        let o = rfio_env(&dir, true, Some(release), &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v["jobs"][0]["read"]["prios"].as_array().unwrap().clone()
    };
    let keys = |p: &serde_json::Value| -> Vec<String> {
        p.as_object().unwrap().keys().take(3).cloned().collect()
    };
    let old = prios("3.35");
    assert_eq!(old.len(), 2);
    assert!(old.iter().all(|p| p.get("priohint").is_none()));
    let new = prios("3.36");
    assert_eq!(new.len(), 2);
    for p in &new {
        assert_eq!(keys(p), ["prioclass", "prio", "priohint"]);
        assert_eq!(p["priohint"], 0);
    }
}

/// fio 3.42 reports zone resets only for a job that counts them
/// (`zonemode=zbd` with writes): on its lines and in JSON; 3.33 gives every
/// write line `; 0 zone resets` and has no JSON key.
#[test]
fn zone_resets_are_reported_with_zbd_only_from_3_42() {
    let dir = TempDir::new("releases-zone-resets");
    let plain = ["--name=w", "--ioengine=null", "--rw=write", "--size=1m"];
    let write_line = |release: &str, args: &[&str]| {
        let o = rfio_env(&dir, true, Some(release), args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
            .lines()
            .find(|l| l.trim_start().starts_with("write:"))
            .expect("a write line")
            .to_string()
    };
    assert!(write_line("3.41", &plain).ends_with("; 0 zone resets"));
    assert!(!write_line("3.42", &plain).contains("zone resets"));
    // A zoned file of four 1 MiB zones, laid out beforehand.
    std::fs::write(dir.0.join("z.dat"), vec![0u8; 4 << 20]).unwrap();
    let zbd = [
        "--name=z",
        "--ioengine=psync",
        "--filename=z.dat",
        "--rw=write",
        "--bs=64k",
        "--size=4m",
        "--zonemode=zbd",
        "--zonesize=1m",
    ];
    assert!(write_line("3.42", &zbd).ends_with("; 0 zone resets"));
    let json = |release: &str, args: &[&str]| {
        let mut args = args.to_vec();
        args.push("--output-format=json");
        let o = rfio_env(&dir, true, Some(release), &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v["jobs"][0].get("zone_resets").cloned()
    };
    assert_eq!(json("3.42", &zbd), Some(serde_json::json!(0)));
    assert_eq!(json("3.41", &zbd), None);
    assert_eq!(json("3.42", &plain), None);
}

/// `--cmdhelp` prints the chosen release's table: what `fio-3.42
/// --cmdhelp=log_window_value` prints (checked against a built fio 3.42),
/// and fio 3.33's miss before 3.37.
#[test]
fn cmdhelp_follows_the_release() {
    let dir = TempDir::new("releases-cmdhelp");
    let o = rfio_env(&dir, true, Some("3.42"), &["--cmdhelp=log_window_value"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "    log_window_value: Log max, average or both sample in a window\n\
         \x20              alias: log_max_value\n\
         \x20               type: string (opt=bla)\n\
         \x20            default: avg\n\
         \x20       valid values: avg        Log average value over the window\n\
         \x20                   : max        Log maximum value in the window\n\
         \x20                   : both       Log both average and maximum values over the window\n\
         \x20                   : 0          Alias for 'avg'\n\
         \x20                   : 1          Alias for 'max'\n\n"
    );
    let o = rfio_env(&dir, true, Some("3.36"), &["--cmdhelp=log_window_value"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "\n");
    assert_eq!(stderr(&o), "No such command: log_window_value");
    // the children fio 3.42 lists under thinktime and steadystate
    let o = rfio_env(&dir, true, Some("3.42"), &["--cmdhelp=all"]);
    let all = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(all.contains(
        "\n  thinkcycles           : Spin for a constant amount of cycles between requests\n"
    ));
    assert!(all.contains("\n  steadystate_check_interval: Polling interval"));
    let o = rfio_env(&dir, true, Some("3.33"), &["--cmdhelp=all"]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("thinkcycles"));
}

/// The values of `--debug` lines of `dir`'s run that contain `what`: the
/// text after the category and the thread id.
fn debug_lines(out: &Output, what: &str) -> Vec<String> {
    stdout(out)
        .lines()
        .filter(|l| l.contains(what))
        .map(|l| l.split_whitespace().skip(2).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn debug_random_lists_the_seeds_from_3_35() {
    // fio 3.42 (t/random_seed.py reads these): job 1, randseed=67890.
    let dir = TempDir::new("releases-seeds");
    let job = [
        "--debug=random",
        "--name=s",
        "--ioengine=null",
        "--filesize=32k",
        "--rw=randread",
        "--randseed=67890",
        "--randrepeat=0",
    ];
    let out = rfio_env(&dir, true, Some("3.42"), &job);
    let seeds = debug_lines(&out, "rand_seeds[");
    assert_eq!(seeds.len(), 23, "{}", stdout(&out));
    assert_eq!(seeds[0], "rand_seeds[0]=16880527707437861170");
    assert_eq!(seeds[6], "rand_seeds[6]=15815180521613101368");
    assert_eq!(seeds[22], "rand_seeds[22]=3564980574215801160");
    assert_eq!(
        debug_lines(&out, "FIO_RAND_NR_OFFS"),
        ["FIO_RAND_NR_OFFS=23"]
    );
    // Another randseed, other seeds.
    let mut other = job;
    other[5] = "--randseed=12345";
    let out = rfio_env(&dir, true, Some("3.42"), &other);
    let seeds2 = debug_lines(&out, "rand_seeds[");
    assert_eq!(seeds2.len(), 23);
    assert!(seeds2.iter().zip(&seeds).all(|(a, b)| a != b));
    // 3.36 has the fdp slot, not sprandom's; 3.33 lists nothing.
    let out = rfio_env(&dir, true, Some("3.36"), &job);
    assert_eq!(
        debug_lines(&out, "FIO_RAND_NR_OFFS"),
        ["FIO_RAND_NR_OFFS=22"]
    );
    assert_eq!(debug_lines(&out, "rand_seeds[").len(), 22);
    let out = rfio_env(&dir, true, Some("3.33"), &job);
    assert!(
        debug_lines(&out, "rand_seeds[").is_empty(),
        "{}",
        stdout(&out)
    );
    // Neither set: randseed's default (fio 3.42's seed).
    let out = rfio_env(&dir, true, Some("3.42"), &job[..5]);
    assert_eq!(
        debug_lines(&out, "rand_seeds[0]"),
        ["rand_seeds[0]=5942511153023025289"]
    );
    assert!(debug_lines(&out, "system RNG").is_empty());
    // Without randseed and randrepeat=0 the seeds come from the system.
    let mut sys = job.to_vec();
    sys.remove(5);
    let out = rfio_env(&dir, true, Some("3.42"), &sys);
    assert_eq!(
        debug_lines(&out, "system RNG"),
        ["using system RNG for random seeds"]
    );
}

/// The first offsets of a 1 TiB file in 1-byte blocks (more blocks than
/// tausworthe32 reaches), as `--debug=io` lists them.
fn offsets_of_1t(dir: &TempDir, release: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "--name=t",
        "--ioengine=null",
        "--filesize=1T",
        "--bs=1",
        "--rw=randread",
        "--debug=io",
        "--number_ios=4",
        "--norandommap",
    ];
    args.extend_from_slice(extra);
    let out = rfio_env(dir, true, Some(release), &args);
    debug_lines(&out, "complete:")
        .iter()
        .filter_map(|l| l.split("off=").nth(1)?.split(',').next().map(String::from))
        .collect()
}

#[test]
fn a_file_too_big_for_tausworthe32_switches_to_tausworthe64_from_3_42() {
    // fio 3.33 and 3.42 print these offsets (t/t64-switch.sh counts the
    // repeats of a million of them).
    let dir = TempDir::new("releases-t64");
    let t32 = [
        "0xf70b10100",
        "0xbd83a78c00",
        "0xd7dada7600",
        "0x7852df6300",
    ];
    let t64 = [
        "0x5cfffae34a",
        "0x2741baffbf",
        "0xbd68870589",
        "0x887a36b6e9",
    ];
    // 3.33 said it switched and kept drawing 32-bit offsets.
    assert_eq!(offsets_of_1t(&dir, "3.33", &[]), t32);
    assert_eq!(offsets_of_1t(&dir, "3.42", &[]), t64);
    // A set random_generator is kept (the 3.42 offsets of tausworthe32).
    let set = ["--random_generator=tausworthe"];
    assert_eq!(
        offsets_of_1t(&dir, "3.42", &set),
        [
            "0xfa1e4b2500",
            "0xddadf00b00",
            "0xa82215cd00",
            "0x842cb93e00"
        ]
    );
    assert_eq!(offsets_of_1t(&dir, "3.33", &set), t32);
}

/// fio 3.36's `priohint` goes into bits 3-12 of the job's `ioprio_set`
/// value, with the best-effort class when no class is set (fio 3.42,
/// strace: `--priohint=5` sets IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 40));
/// 3.35 does not know it.
#[test]
fn priohint_is_the_jobs_priority_hint_from_3_36() {
    let dir = TempDir::new("releases-priohint");
    let args = [
        "--name=j",
        "--ioengine=null",
        "--size=64k",
        "--priohint=5",
        "--output-format=json",
    ];
    let o = rfio_env(&dir, true, Some("3.36"), &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["jobs"][0]["job options"]["priohint"], "5");
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 16);
    let o = rfio_env(&dir, true, Some("3.35"), &args);
    assert_eq!(o.status.code(), Some(1));
    // getopt's words, twice (as Debian's fio 3.33 prints them).
    let line = format!(
        "{}: unrecognized option '--priohint=5'\n",
        dir.0.join("fio").display()
    );
    assert_eq!(stderr(&o), line.repeat(2));
}
