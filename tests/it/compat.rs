//! The two reading modes. Called as `rfio`, rfio refuses what fio 3.33
//! silently misreads, and says what fio reads and how to go on (the exact
//! message is checked). Called as `fio` (a symbolic link of that name) or
//! with `--compat=fio`, it reads those files as fio does: `--parse-only`
//! and `--showcmd` print what fio prints (stdout, stderr, exit status) and
//! a real run reports what fio reports (the jobs, their options, their I/O
//! counts, fio's warnings on stderr), compared here with real fio.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

use crate::common::{real_fio, run_in, stderr, stdout, TempDir, RFIO};

/// What a real run of a case is compared on.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    /// Exit status, stderr and the JSON report (jobs, options, I/O).
    Same,
    /// fio refuses the run while adding the jobs: exit status, stdout and
    /// stderr.
    Refused,
    /// Only the exit status (where rfio's output differs on purpose; the
    /// case says why).
    Status,
}

struct Case {
    name: &'static str,
    /// `job.fio`.
    text: &'static str,
    /// What rfio prints on stderr when called as `rfio` (`job.fio` is in
    /// the working directory).
    strict: &'static str,
    run: Run,
}

/// Included files some cases use: a cycle, a file with a section.
const INCLUDES: &[(&str, &str)] = &[
    ("a.inc", "bs=4k\ninclude b.inc\n"),
    ("b.inc", "iodepth=2\ninclude a.inc\n"),
    ("s.inc", "bs=8k\n[sneaky]\nsize=2m\n"),
];

const HINT: &str = "or run with --compat=fio to read it as fio does";

const CASES: &[Case] = &[
    Case {
        name: "bs_space_k",
        text: "[j]\nioengine=null\nsize=1m\nbs=4 k\n",
        strict: "job.fio:4:1: job 'j': bs=4 k: fio reads this as 4 bytes (the text after the \
                 blank is ignored); write bs=4 if you mean that, bs=4k for 4 KiB, ",
        run: Run::Same,
    },
    Case {
        name: "bs_blanks_around_equals",
        text: "[j]\nioengine=null\nsize=1m\nbs = 4k\n",
        strict: "job.fio:4:1: job 'j': bs = 4k: fio reads this as 4 bytes (it skips the blank, \
                 then misses the unit); write bs=4 if you mean that, bs=4k for 4 KiB, ",
        run: Run::Same,
    },
    Case {
        name: "bs_leading_blank",
        text: "[j]\nioengine=null\nsize=1m\nbs= 8k\n",
        strict: "job.fio:4:1: job 'j': bs= 8k: fio reads this as 8 bytes (it skips the blank, \
                 then misses the unit); write bs=8 if you mean that, bs=8k for 8 KiB, ",
        run: Run::Same,
    },
    Case {
        name: "size_unknown_unit",
        text: "[j]\nioengine=null\nsize=12q\nbs=4\n",
        strict: "job.fio:3:1: job 'j': size=12q: fio reads this as 12 bytes (the unknown unit \
                 'q' is ignored); write size=12 if you mean that, ",
        run: Run::Same,
    },
    Case {
        name: "iodepth_negative",
        text: "[j]\nioengine=null\nsize=1m\niodepth=-4\n",
        strict: "job.fio:4:1: job 'j': iodepth=-4: fio reads this as no value: iodepth keeps \
                 the value in force (it prints 'iodepth: min value out of range: -4 (1 min)' \
                 and carries on); remove the line if you mean that, ",
        run: Run::Same,
    },
    Case {
        name: "bssplit_over_100",
        text: "[j]\nioengine=null\nsize=1m\nrw=randread\nbssplit=4k/60:8k/50\n",
        strict: "job.fio:5:1: job 'j': bssplit=4k/60:8k/50: fio reads this as 8 KiB 50%, 4 KiB \
                 50% (the percentages are not checked: the smallest shares are drawn first, \
                 until 100% is used up); write bssplit=8k/50:4k/50 if you mean that, ",
        run: Run::Same,
    },
    Case {
        name: "unterminated_header",
        text: "[job\nioengine=null\nsize=1m\n",
        strict: "job.fio:1:1: section header '[job' has no closing ']'; fio reads this as job \
                 'jo' (it drops the last character as if it were ']'); write [jo] if you mean \
                 that, [job] for job 'job', ",
        run: Run::Same,
    },
    Case {
        name: "ioengine_spaced",
        text: "[j]\nioengine = null\nsize=1m\n",
        strict: "job.fio:2:1: job 'j': ioengine = null: fio reads this as the engine ' null' \
                 (the blank is part of the name; the job fails when it starts); ioengine=null \
                 for the engine 'null', ",
        // Both fail to load the engine ` null`, in their own words.
        run: Run::Status,
    },
    Case {
        name: "include_missing",
        text: "[j]\nioengine=null\nsize=1m\ninclude nosuch.inc\n",
        strict: "job.fio:4:1: cannot include 'nosuch.inc': No such file or directory; fio \
                 reports this on stderr, skips the include and what follows it in the section, \
                 and fails the job when it runs; fix the path, ",
        // fio runs the job and fails it after one I/O; rfio refuses the run.
        run: Run::Status,
    },
    Case {
        name: "include_section",
        text: "[j]\nioengine=null\nsize=1m\ninclude s.inc\n",
        strict: "s.inc:2:1: section [sneaky] in an included file: included files may hold \
                 options only; fio reports it and drops the whole include (and the rest of the \
                 section); move [sneaky] into the job file, ",
        run: Run::Same,
    },
    Case {
        name: "wait_for_unknown",
        text: "[a]\nioengine=null\nsize=1m\n[b]\nioengine=null\nsize=1m\nwait_for=nosuch\n",
        strict: "job.fio:4:1: job 'b': wait_for='nosuch': no job of that name is defined before \
                 this one; fio finds this only when it runs the jobs ('b: waitee job nosuch \
                 unknown.', exit 1), not with --parse-only or --showcmd; name a job defined \
                 before this one, ",
        run: Run::Refused,
    },
    Case {
        name: "wait_for_self",
        text: "[j]\nioengine=null\nsize=1m\nwait_for=j\n",
        strict: "job.fio:1:1: job 'j': wait_for='j': no job of that name is defined before this \
                 one; fio finds this only when it runs the jobs ('j: a job cannot wait for \
                 itself (wait_for=j).', exit 1), not with --parse-only or --showcmd; name a job \
                 defined before this one, ",
        run: Run::Refused,
    },
    Case {
        name: "size_below_bs",
        text: "[a]\nioengine=null\nsize=1m\n[j]\nioengine=null\nsize=1k\nbs=4k\n",
        strict: "job.fio:4:1: job 'j': size too small, must not be less than minimum block \
                 size: 1024 < 4096; fio finds this only when it runs the jobs (exit 1), not with \
                 --parse-only or --showcmd; give a larger size, ",
        run: Run::Refused,
    },
    Case {
        name: "runtime_unknown_unit",
        // Microseconds: long enough not to cut the size-bound job short
        // (no `0x` in it: fio would read that as hex).
        text: "[j]\nioengine=null\nsize=1m\nruntime=4999999x\n",
        strict: "job.fio:4:1: job 'j': runtime=4999999x: fio reads this as 4999999 microseconds \
                 (the unknown unit 'x' counts as microseconds); write runtime=4999999us if you \
                 mean that, ",
        run: Run::Same,
    },
    Case {
        name: "thinktime_unknown_unit",
        text: "[j]\nioengine=null\nsize=1m\nthinktime=10parsecs\n",
        strict: "job.fio:4:1: job 'j': thinktime=10parsecs: fio reads this as 10 microseconds \
                 (the unknown unit 'parsecs' counts as microseconds); write thinktime=10us if \
                 you mean that, ",
        run: Run::Same,
    },
    Case {
        name: "rw_modifier_not_a_number",
        text: "[j]\nioengine=null\nsize=1m\nrw=randread:foo\n",
        strict: "job.fio:4:1: job 'j': rw=randread:foo: fio reads this as randread:0 (a count \
                 it cannot read is 0: it never picks a new random offset and reads \
                 sequentially); run with --compat=fio to read it as fio does",
        run: Run::Same,
    },
    Case {
        name: "bssplit_percentage_not_a_number",
        text: "[j]\nioengine=null\nsize=1m\nrw=randread\nbssplit=4k/50:8k/x\n",
        strict: "job.fio:5:1: job 'j': bssplit=4k/50:8k/x: fio reads this as 4 KiB 50%, 8 KiB \
                 50% (a percentage it cannot read is 0, which shares what the others leave); \
                 write bssplit=4k/50:8k/50 if you mean that, ",
        run: Run::Same,
    },
    Case {
        name: "rate_iops_write_not_a_number",
        text: "[j]\nioengine=null\nsize=1m\nrate_iops=1k,abc\n",
        strict: "job.fio:4:1: job 'j': rate_iops=1k,abc: fio reads this as read 1024, write \
                 unchanged, trim unchanged ('abc' is ignored); write rate_iops=1024,, if you \
                 mean that, ",
        run: Run::Same,
    },
    Case {
        name: "percentile_over_100",
        text: "[j]\nioengine=null\nsize=1m\npercentile_list=50:101\n",
        strict: "job.fio:4:1: job 'j': percentile_list=50:101: fio reads this as 50 (it prints \
                 'value out of range: 101.000000 (range max: 100.000000)' and carries on); \
                 write percentile_list=50 if you mean that, ",
        run: Run::Same,
    },
    Case {
        name: "four_directions",
        text: "[j]\nioengine=null\nsize=1m\nrw=randrw\nbs=4k:8k:16k:32k\n",
        strict: "job.fio:5:1: job 'j': bs=4k:8k:16k:32k: fio reads this as read 4 KiB, write 8 \
                 KiB, trim 16 KiB (the values after the last direction are ignored); write \
                 bs=4k,8k,16k if you mean that, ",
        run: Run::Same,
    },
    Case {
        name: "stonewall_2",
        text: "[a]\nioengine=null\nsize=1m\n[b]\nioengine=null\nsize=1m\nstonewall=2\n",
        strict: "job.fio:7:1: job 'b': stonewall=2: fio reads this as on (any number but 0 is \
                 on); write stonewall=1 if you mean that, ",
        run: Run::Same,
    },
    Case {
        name: "log_avg_msec_negative",
        text: "[j]\nioengine=null\nsize=1m\nwrite_bw_log=x\nlog_avg_msec=-5\n",
        strict: "job.fio:5:1: job 'j': log_avg_msec=-5: fio reads this as 4294967291 (a \
                 negative number wraps around); write log_avg_msec=4294967291 if you mean that, ",
        run: Run::Same,
    },
    Case {
        name: "bsrange_of_fios_own_tests",
        text: "[j]\nioengine=null\nsize=1m\nrw=randwrite\nbsrange=512/25:1k:25:2k:25:4k/25\n",
        strict: "job.fio:5:1: job 'j': bsrange=512/25:1k:25:2k:25:4k/25: fio reads this as 512 \
                 bytes to 1 KiB ('/25' is ignored); write bsrange=512-1k if you mean that, ",
        run: Run::Same,
    },
];

/// A directory with the case's job file and the included files.
fn setup(case: &Case) -> TempDir {
    let dir = TempDir::new(&format!("compat-{}", case.name));
    for (name, text) in INCLUDES {
        dir.write(name, text);
    }
    dir.write("job.fio", case.text);
    dir
}

/// The strict message: the case's text, ending in the way to read it as
/// fio does.
fn strict_message(case: &Case) -> String {
    let mut msg = format!("rfio: {}", case.strict);
    if !msg.ends_with("as fio does") {
        msg.push_str(HINT);
    }
    msg.push('\n');
    msg
}

#[test]
fn strict_mode_names_fios_reading() {
    let mut failures = Vec::new();
    for case in CASES {
        let dir = setup(case);
        for args in [&["--parse-only", "job.fio"][..], &["job.fio"][..]] {
            let o = run_in(RFIO, &dir, args);
            let want = strict_message(case);
            if o.status.code() != Some(1) || stderr(&o) != want || !stdout(&o).is_empty() {
                failures.push(format!(
                    "{} {args:?}: exit {:?}\n  stderr: {:?}\n  wanted: {want:?}\n  stdout: {:?}",
                    case.name,
                    o.status.code(),
                    stderr(&o),
                    stdout(&o)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What a JSON report says about its jobs: the parts that do not depend
/// on timing.
fn jobs_of(o: &Output) -> Value {
    let text = stdout(o);
    let (Some(start), Some(end)) = (text.find('{'), text.rfind('}')) else {
        return json!(null);
    };
    let Ok(doc) = serde_json::from_str::<Value>(&text[start..=end]) else {
        return json!(text);
    };
    let dirs = |job: &Value| -> Value {
        ["read", "write", "trim"]
            .iter()
            .map(|d| json!([job[d]["total_ios"], job[d]["io_bytes"]]))
            .collect()
    };
    let jobs: Vec<Value> = doc["jobs"]
        .as_array()
        .map(|jobs| {
            jobs.iter()
                .map(|j| {
                    json!({
                        "jobname": j["jobname"],
                        "groupid": j["groupid"],
                        "error": j["error"],
                        "job options": j["job options"],
                        "io": dirs(j),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    json!({ "global options": doc["global options"], "jobs": jobs })
}

/// Compare `bin` (rfio, read as fio reads) with real fio on `case`.
fn compare(case: &Case, bin: &str, extra: &[&str], failures: &mut Vec<String>) {
    let fio = real_fio();
    let mut check = |what: &str, args: &[&str], run: Run| {
        let fio_dir = setup(case);
        let rfio_dir = setup(case);
        let mut rfio_args = extra.to_vec();
        rfio_args.extend_from_slice(args);
        let f = run_in(fio, &fio_dir, args);
        let r = run_in(bin, &rfio_dir, &rfio_args);
        let mut differs = Vec::new();
        if f.status.code() != r.status.code() {
            differs.push(format!(
                "exit fio {:?} rfio {:?}",
                f.status.code(),
                r.status.code()
            ));
        }
        if run != Run::Status && stderr(&f) != stderr(&r) {
            differs.push(format!("stderr fio {:?} rfio {:?}", stderr(&f), stderr(&r)));
        }
        let json_run = args.contains(&"--output-format=json");
        if json_run && run == Run::Same && jobs_of(&f) != jobs_of(&r) {
            differs.push(format!("report fio {} rfio {}", jobs_of(&f), jobs_of(&r)));
        }
        if !json_run && run != Run::Status && stdout(&f) != stdout(&r) {
            differs.push(format!("stdout fio {:?} rfio {:?}", stdout(&f), stdout(&r)));
        }
        if !differs.is_empty() {
            failures.push(format!(
                "{} {what} ({bin} {extra:?}): {}",
                case.name,
                differs.join("; ")
            ));
        }
    };
    check("--parse-only", &["--parse-only", "job.fio"], Run::Same);
    check("--showcmd", &["--showcmd", "job.fio"], Run::Same);
    check("run", &["--output-format=json", "job.fio"], case.run);
}

/// Compare `bin` with fio on the cases `pick` picks (never the missing
/// include, whose differences `include_missing_as_fio` checks), a thread
/// per case.
fn compare_all(bin: &str, extra: &[&str], pick: impl Fn(&Case) -> bool) -> Vec<String> {
    std::thread::scope(|s| {
        let runs: Vec<_> = CASES
            .iter()
            .filter(|c| c.name != "include_missing" && pick(c))
            .map(|case| {
                s.spawn(move || {
                    let mut failures = Vec::new();
                    compare(case, bin, extra, &mut failures);
                    failures
                })
            })
            .collect();
        runs.into_iter()
            .flat_map(|r| r.join().expect("comparison thread"))
            .collect()
    })
}

#[test]
fn compat_flag_reads_as_fio() {
    let failures = compare_all(RFIO, &["--compat=fio"], |_| true);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// rfio installed as `fio` (the README's drop-in symlink) reads as fio.
#[test]
fn called_as_fio_reads_as_fio() {
    let bin = TempDir::new("compat-bin");
    let fio = bin.file("fio");
    symlink(RFIO, &fio).unwrap();
    let fio = fio.to_str().unwrap();
    // The program name only chooses the mode: a case of each kind.
    let kinds = [
        "bs_space_k",
        "iodepth_negative",
        "unterminated_header",
        "include_section",
        "wait_for_unknown",
        "bsrange_of_fios_own_tests",
    ];
    let mut failures = compare_all(fio, &[], |c| kinds.contains(&c.name));
    // `--compat=fio` as well is harmless; `--compat=strict` reads strictly.
    let case = &CASES[0];
    compare(case, fio, &["--compat=fio"], &mut failures);
    let dir = setup(case);
    let o = run_in(fio, &dir, &["--compat=strict", "--parse-only", "job.fio"]);
    assert_eq!(stderr(&o), strict_message(case));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A missing include: fio prints its two lines and, for a dry run, the
/// job's open error (on stdout, as its `log_info`); a real run fails (fio
/// runs the job and fails it; rfio refuses the run), exit 1 in both.
#[test]
fn include_missing_as_fio() {
    let case = CASES.iter().find(|c| c.name == "include_missing").unwrap();
    let dir = setup(case);
    let o = run_in(RFIO, &dir, &["--compat=fio", "--parse-only", "job.fio"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stderr(&o),
        "fio: unable to open 'nosuch.inc' job file\n\
         Error 1 while parsing include file nosuch.inc\n"
    );
    assert_eq!(
        stdout(&o),
        "fio: file:init.c:1956, func=job file open, error=No such file or directory\n"
    );
    let f = run_in(real_fio(), &dir, &["--parse-only", "job.fio"]);
    assert_eq!(f.status.code(), Some(0));
    assert_eq!((stdout(&f), stderr(&f)), (stdout(&o), stderr(&o)));
    let o = run_in(RFIO, &dir, &["--compat=fio", "job.fio"]);
    let f = run_in(real_fio(), &dir, &["job.fio"]);
    assert_eq!((o.status.code(), f.status.code()), (Some(1), Some(1)));
    assert!(stderr(&o).ends_with(
        "fio: pid=0, err=2/file:init.c:1956, func=job file open, error=No such file or directory\n"
    ));
}

/// An include cycle: fio nests until it runs out of file descriptors (its
/// output depends on `ulimit -n`), then keeps the job with each level's
/// options and fails it when it runs; rfio reads each file of the cycle
/// once.
#[test]
fn include_cycle_as_fio() {
    let dir = TempDir::new("compat-cycle");
    for (name, text) in INCLUDES {
        dir.write(name, text);
    }
    dir.write("job.fio", "[j]\nioengine=null\nsize=1m\ninclude a.inc\n");
    let o = run_in(RFIO, &dir, &["--parse-only", "job.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "rfio: b.inc:2:1: include cycle: 'a.inc' is already being read (it includes itself, \
         directly or through other files); fio follows it until it runs out of file \
         descriptors, then fails the job; remove the include, or run with --compat=fio to read \
         it as fio does\n"
    );
    let o = run_in(RFIO, &dir, &["--compat=fio", "--showcmd", "job.fio"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "fio --name=j --ioengine=null --size=1m --bs=4k --iodepth=2 \n"
    );
    assert_eq!(
        stderr(&o),
        "fio: unable to open 'a.inc' job file\n\
         Error 1 while parsing include file a.inc\n\
         Error 1 while parsing include file b.inc\n\
         Error 1 while parsing include file a.inc\n\
         fio: file:init.c:1956, func=job file open, error=Too many open files\n"
    );
    let o = run_in(RFIO, &dir, &["--compat=fio", "job.fio"]);
    assert_eq!(o.status.code(), Some(1));
}

fn run_both(dir: impl AsRef<Path>, args: &[&str]) -> (Output, Output) {
    let dir = dir.as_ref();
    let f = run_in(real_fio(), dir, args);
    let mut rargs = vec!["--compat=fio"];
    rargs.extend_from_slice(args);
    let r = run_in(RFIO, dir, &rargs);
    (f, r)
}

/// A job is named after its section: a `name=` in `[global]` renames no
/// job (fio keeps it in the global options); one in the job's section
/// does. In both modes, in the JSON report and the terse lines.
#[test]
fn global_name_renames_no_job() {
    let dir = TempDir::new("compat-name");
    dir.write(
        "job.fio",
        "[global]\nname=g\nioengine=null\n[s1]\nsize=1m\nrw=read\n[s2]\nsize=1m\nname=other\n\
         [s3]\nsize=1m\nwait_for=other\n",
    );
    for mode in ["--compat=fio", "--compat=strict"] {
        let f = run_in(real_fio(), &dir, &["--output-format=json", "job.fio"]);
        let r = run_in(RFIO, &dir, &[mode, "--output-format=json", "job.fio"]);
        assert_eq!(jobs_of(&r), jobs_of(&f), "{mode}");
        assert_eq!(jobs_of(&r)["jobs"][0]["jobname"], "s1");
        let f = run_in(real_fio(), &dir, &["--minimal", "job.fio"]);
        let r = run_in(RFIO, &dir, &[mode, "--minimal", "job.fio"]);
        let names = |o: &Output| -> Vec<String> {
            stdout(o)
                .lines()
                .map(|l| l.split(';').nth(2).unwrap_or("").to_string())
                .collect()
        };
        assert_eq!(names(&r), names(&f), "{mode}");
        assert_eq!(names(&r), ["s1", "other", "s3"]);
    }
}

/// Options an `include` brings into a job section are that job's options.
#[test]
fn included_options_are_the_jobs() {
    let dir = TempDir::new("compat-inc-opts");
    dir.write("bs.inc", "bs=8k\n");
    dir.write(
        "job.fio",
        "[global]\nioengine=null\n[j]\nsize=1m\ninclude bs.inc\n",
    );
    let (f, r) = run_both(&dir, &["--output-format=json", "job.fio"]);
    assert_eq!(jobs_of(&r), jobs_of(&f));
    assert_eq!(jobs_of(&r)["jobs"][0]["job options"]["bs"], "8k");
    assert_eq!(jobs_of(&r)["global options"], json!({"ioengine": "null"}));
}

/// Every `filename=` in force adds its files: `[global]`'s and the job's.
#[test]
fn filenames_add_up() {
    let dir = TempDir::new("compat-filenames");
    dir.write(
        "job.fio",
        "[global]\nfilename=g.dat\nioengine=psync\nsize=64k\nrw=write\n[j]\nfilename=j.dat\n",
    );
    let (f, r) = run_both(&dir, &["--output-format=json", "job.fio"]);
    assert_eq!(jobs_of(&r), jobs_of(&f));
    for name in ["g.dat", "j.dat"] {
        let len = std::fs::metadata(dir.file(name)).map(|m| m.len());
        assert_eq!(len.ok(), Some(32768), "{name}");
    }
    // With the global file missing and size=100%, fio (and rfio) fail.
    let dir = TempDir::new("compat-filenames-missing");
    dir.write("j.dat", &"x".repeat(16384));
    dir.write(
        "job.fio",
        "[global]\nfilename=nosuchdir/g.dat\nioengine=psync\nsize=100%\nrw=read\n[j]\n\
         filename=j.dat\n",
    );
    let (f, r) = run_both(&dir, &["--output-format=json", "job.fio"]);
    assert_eq!(f.status.code(), Some(1));
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
}

/// `size=100%%` (a template's escaped `%`) is 100%, in both modes.
#[test]
fn escaped_percent_is_a_percentage() {
    let dir = TempDir::new("compat-percent");
    dir.write("f.dat", &"x".repeat(65536));
    dir.write(
        "job.fio",
        "[j]\nfilename=f.dat\nsize=100%%\nrw=read\nioengine=psync\n",
    );
    for mode in ["--compat=fio", "--compat=strict"] {
        let f = run_in(real_fio(), &dir, &["--output-format=json", "job.fio"]);
        let r = run_in(RFIO, &dir, &[mode, "--output-format=json", "job.fio"]);
        assert_eq!(r.status.code(), Some(0), "{mode}: {}", stderr(&r));
        assert_eq!(jobs_of(&r), jobs_of(&f), "{mode}");
        assert_eq!(jobs_of(&r)["jobs"][0]["io"][0], json!([16, 65536]));
    }
}

/// fio's upstream test t/strided.py writes `--filesize=65536)`: fio reads
/// 65536 and ignores the `)`.
#[test]
fn stray_parenthesis_after_a_number() {
    let dir = TempDir::new("compat-paren");
    let args = [
        "--name=x",
        "--ioengine=null",
        "--size=64k",
        "--filesize=64k)",
        "--showcmd",
    ];
    let (f, r) = run_both(&dir, &args);
    assert_eq!(stdout(&r), stdout(&f));
    assert_eq!(r.status.code(), Some(0));
    let o = run_in(RFIO, &dir, &args);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(
        "filesize=64k): fio reads this as 64 KiB (')' is ignored); write filesize=64k if you mean \
         that"
    ));
}

/// A `directory=` that does not exist is refused before any job starts (no
/// banner), as fio drops the job when it reads the option.
#[test]
fn missing_directory_is_refused_before_the_banner() {
    let dir = TempDir::new("compat-dir");
    dir.write("job.fio", "[j]\ndirectory=nosuch\nsize=64k\n");
    for mode in ["--compat=fio", "--compat=strict"] {
        let o = run_in(RFIO, &dir, &[mode, "job.fio"]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(stdout(&o), "", "{mode}");
        assert_eq!(
            stderr(&o),
            "rfio: job.fio:1:1: job 'j': nosuch is not a directory (fio: failed parsing \
             directory=nosuch)\n"
        );
        let o = run_in(RFIO, &dir, &[mode, "--parse-only", "job.fio"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{mode}: as fio, only a run checks it"
        );
    }
}

/// `filesize=` is the whole file's size: with `offset=` the job works from
/// the offset to the end of the file (fio's `io_size = filesize -
/// file_offset`), as fio's own t/strided.py expects.
#[test]
fn filesize_runs_from_the_offset_to_the_end() {
    let dir = TempDir::new("compat-filesize-offset");
    let args = [
        "--name=x",
        "--filename=f.dat",
        "--size=64k",
        "--filesize=64k",
        "--offset=32k",
        "--rw=write",
        "--output-format=json",
    ];
    let f = run_in(real_fio(), &dir, &args);
    let fio_len = std::fs::metadata(dir.file("f.dat")).unwrap().len();
    std::fs::remove_file(dir.file("f.dat")).unwrap();
    let r = run_in(RFIO, &dir, &args);
    assert_eq!(jobs_of(&r), jobs_of(&f));
    assert_eq!(jobs_of(&r)["jobs"][0]["io"][1], json!([8, 32768]));
    assert_eq!(std::fs::metadata(dir.file("f.dat")).unwrap().len(), fio_len);
    assert_eq!(fio_len, 65536);
}

/// The lines fio prints with its report (the note that a synchronous
/// engine caps the depth, a failed job's `fio: pid=` line) go there when
/// reading as fio: fio's own test runner fails a test on any stderr. rfio
/// keeps them on stderr otherwise, its report whole.
#[test]
fn fio_report_lines_go_with_the_report() {
    let dir = TempDir::new("compat-notes");
    let args = [
        "--name=x",
        "--ioengine=psync",
        "--iodepth=4",
        "--size=64k",
        "--filename=n.dat",
        "--output-format=json",
    ];
    let note = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth \
                will be capped at 1\n";
    let f = run_in(real_fio(), &dir, &args);
    let (_, r) = run_both(&dir, &args);
    assert_eq!((stderr(&f), stderr(&r)), (String::new(), String::new()));
    assert!(stdout(&f).starts_with(&format!("{note}{{")));
    assert!(
        stdout(&r).starts_with(&format!("{note}{{")),
        "{}",
        stdout(&r)
    );
    let o = run_in(RFIO, &dir, &args);
    assert_eq!(stderr(&o), note);
    assert!(stdout(&o).starts_with('{'));
}

/// Called as `fio`, `--parse-only` with an `ioengine=external:PATH` whose
/// path is no regular file fails as fio 3.33 and 3.42 fail it (their
/// option callback): the same two lines on stderr, exit 1.
#[test]
fn parse_only_refuses_a_missing_external_engine_as_fio() {
    use std::os::unix::process::CommandExt;
    let dir = TempDir::new("compat-ext");
    let args = [
        "--parse-only",
        "--name=j",
        "--ioengine=external:/nonexistent",
    ];
    let fio = run_in(real_fio(), &dir.0, &args);
    let want = "fio: invalid external ioengine path \"/nonexistent\"\n\
                fio: failed parsing ioengine=external:/nonexistent\n";
    assert_eq!((fio.status.code(), stderr(&fio).as_str()), (Some(1), want));
    for release in ["3.33", "3.42"] {
        let mut cmd = std::process::Command::new(RFIO);
        cmd.arg0("fio")
            .current_dir(&dir.0)
            .args(args)
            .env("RFIO_FIO_VERSION", release);
        let (out, timed_out) = crate::common::output_within(&mut cmd, crate::common::RUN_LIMIT);
        assert!(!timed_out);
        assert_eq!(
            (out.status.code(), stderr(&out).as_str()),
            (Some(1), want),
            "as fio-{release}"
        );
    }
}
