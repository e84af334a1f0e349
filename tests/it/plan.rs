//! The plan fio would build: inheritance, numjobs clones, groups,
//! wait_for, file names, command line mixed with job files. Expectations
//! come from fio 3.33 (see /work/shared/reference/jobfile-syntax.md §5–§6).

use std::path::Path;
use std::sync::Arc;

use rfio::api::{build_plan, parse_args, parse_bytes, Frontend, Keywords, Plan};

const KW: Keywords = Keywords {
    pagesize: 4096,
    mb_memory: 1024,
    ncpus: 2,
};

fn front_end(argv: &[&str], files: &[(&str, &str)]) -> Frontend {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    // The expectations are fio 3.33's: the plan is that release's.
    let args = parse_args(&argv)
        .and_then(|a| a.with_release(Some("3.33")))
        .expect("valid command line");
    let files: Vec<_> = files
        .iter()
        .map(|(name, text)| {
            parse_bytes(Arc::from(Path::new(name)), text.as_bytes()).expect("valid job file")
        })
        .collect();
    build_plan(&args, &files, &KW)
}

fn plan(argv: &[&str], files: &[(&str, &str)]) -> Plan {
    let fe = front_end(argv, files);
    assert!(fe.diags.is_empty(), "{}", fe.diags);
    fe.plan
}

#[test]
fn stonewall_and_new_group_start_groups_wait_for_does_not() {
    let p = plan(
        &[],
        &[("g.fio", "[global]\nioengine=null\nsize=1m\n[a]\n[b]\n[c]\nstonewall\n[d]\nnew_group\n[e]\nwait_for=a\n")],
    );
    let groups: Vec<(&str, u32)> = p
        .jobs
        .iter()
        .map(|j| (j.name.as_str(), j.group_id))
        .collect();
    assert_eq!(groups, [("a", 0), ("b", 0), ("c", 1), ("d", 2), ("e", 2)]);
    assert_eq!(p.jobs[4].wait_for, Some(0));
    assert!(p.jobs[2].stonewall);
}

#[test]
fn numjobs_clones_are_numbered_as_fio_numbers_them() {
    let p = plan(
        &["--name=job", "--numjobs=3", "--nrfiles=2", "--size=2m"],
        &[],
    );
    assert_eq!(p.jobs.len(), 3);
    let threads: Vec<u32> = p.jobs.iter().map(|j| j.thread_number).collect();
    assert_eq!(threads, [1, 2, 3]);
    let mut files: Vec<String> = p
        .jobs
        .iter()
        .flat_map(|j| j.files.iter().map(|f| f.path.display().to_string()))
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["job.0.0", "job.0.1", "job.1.0", "job.1.1", "job.2.0", "job.2.1"]
    );
    assert!(p
        .jobs
        .iter()
        .all(|j| j.files.iter().all(|f| f.size == Some(1 << 20))));
    assert!(p.jobs.iter().all(|j| j.group_id == 0));
}

#[test]
fn name_option_renames_the_job_but_files_keep_the_section_name() {
    let p = plan(&[], &[("n.fio", "[sec]\nname=foo\nsize=1m\n")]);
    assert_eq!(p.jobs[0].name, "foo");
    assert_eq!(p.jobs[0].files[0].path, Path::new("sec.0.0"));
}

#[test]
fn filename_format_directory_and_escaped_colons() {
    let p = plan(
        &[],
        &[(
            "f.fio",
            "[fmt]\nsize=1m\nnumjobs=2\nfilename_format=f.$jobname.$jobnum.$filenum\n",
        )],
    );
    let names: Vec<String> = p
        .jobs
        .iter()
        .map(|j| j.files[0].path.display().to_string())
        .collect();
    assert_eq!(names, ["f.fmt.0.0", "f.fmt.1.0"]);
    let p = plan(
        &[],
        &[(
            "d.fio",
            "[j]\nsize=2m\ndirectory=/tmp/d\nfilename=a\\:b:c\n",
        )],
    );
    let names: Vec<String> = p.jobs[0]
        .files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    assert_eq!(names, ["/tmp/d/a:b", "/tmp/d/c"]);
}

#[test]
fn later_global_sections_affect_later_jobs_only() {
    let p = plan(
        &[],
        &[(
            "g.fio",
            "[global]\nbs=8k\n[a]\nsize=1m\n[global]\nbs=16k\n[b]\nsize=1m\n",
        )],
    );
    assert_eq!(p.jobs[0].bs[0], (8192, 8192));
    assert_eq!(p.jobs[1].bs[0], (16384, 16384));
}

#[test]
fn command_line_globals_reach_the_first_job_file_only() {
    // fio 3.33: `fio --bs=8k g1.fio g2.fio` runs g2's jobs with bs=4096, and
    // g2's first job starts a new group.
    let p = plan(
        &["--bs=8k"],
        &[("g1.fio", "[a]\nsize=1m\n"), ("g2.fio", "[b]\nsize=1m\n")],
    );
    assert_eq!(p.jobs[0].bs[1], (8192, 8192));
    assert_eq!(p.jobs[1].bs[1], (4096, 4096));
    assert_eq!((p.jobs[0].group_id, p.jobs[1].group_id), (0, 1));
}

#[test]
fn command_line_jobs_come_before_job_file_jobs() {
    let p = plan(
        &["--name=cmd", "--size=1m"],
        &[("f.fio", "[file]\nsize=1m\n")],
    );
    let names: Vec<&str> = p.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["cmd", "file"]);
}

#[test]
fn section_selects_jobs() {
    let p = plan(
        &["--section=b"],
        &[("s.fio", "[global]\nsize=1m\n[a]\n[b]\n[c]\n")],
    );
    let names: Vec<&str> = p.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["b"]);
}

#[test]
fn kb_base_applies_before_the_other_options_of_its_section() {
    // fio 3.33: `bs=4k` then `kb_base=1000` in one section → bs=4000.
    let p = plan(&[], &[("k.fio", "[j]\nbs=4k\nkb_base=1000\nsize=1m\n")]);
    assert_eq!(p.jobs[0].bs[0], (4000, 4000));
    // On the command line options apply in order: kb_base after bs is too late.
    let p = plan(&["--name=j", "--bs=4k", "--kb_base=1000", "--size=1m"], &[]);
    assert_eq!(p.jobs[0].bs[0], (4096, 4096));
}

#[test]
fn unknown_waitee_is_an_error() {
    let fe = front_end(&[], &[("w.fio", "[a]\nsize=1m\nwait_for=nosuch\n")]);
    assert_eq!(fe.diags.0.len(), 1);
    assert_eq!(
        fe.diags.0[0].to_string(),
        "w.fio:1:1: job 'a': wait_for='nosuch': no job of that name is defined before this one; \
         fio finds this only when it runs the jobs ('a: waitee job nosuch unknown.', exit 1), not \
         with --parse-only or --showcmd; name a job defined before this one, or run with \
         --compat=fio to read it as fio does"
    );
}

#[test]
fn readonly_refuses_writing_jobs() {
    let fe = front_end(
        &["--readonly", "--name=w", "--rw=randwrite", "--size=1m"],
        &[],
    );
    assert_eq!(fe.diags.0.len(), 1);
    assert_eq!(
        fe.diags.0[0].message,
        "job 'w': rw=randwrite writes, and --readonly forbids every write"
    );
}

#[test]
fn keyword_math_and_parenthesised_arithmetic() {
    // `$pagesize*2` is what fio hands to bc; `(…)` is upstream fio's
    // arithmetic (not built into Debian's 3.33, accepted by rfio).
    let p = plan(
        &[],
        &[(
            "m.fio",
            "[j]\nsize=$pagesize*2\nbs=(2*2048)\nruntime=(1000*1000)\n",
        )],
    );
    assert_eq!(p.jobs[0].size, Some(8192));
    assert_eq!(p.jobs[0].bs[0], (4096, 4096));
    // Times inside an expression are microseconds, as upstream documents.
    assert_eq!(p.jobs[0].runtime_us, 1_000_000);
    let p = plan(&[], &[("u.fio", "[j]\nsize=(4k*2)\nnumjobs=$ncpus\n")]);
    assert_eq!(p.jobs[0].size, Some(8192));
    assert_eq!(p.jobs.len(), 2);
}

#[test]
fn environment_variables_expand_in_job_files() {
    std::env::set_var("RFIO_TEST_SIZE", "3m");
    let p = plan(
        &[],
        &[(
            "e.fio",
            "[j]\nsize=${RFIO_TEST_SIZE}\nfilename=f${RFIO_TEST_UNSET}x\n",
        )],
    );
    assert_eq!(p.jobs[0].size, Some(3 << 20));
    assert_eq!(p.jobs[0].files[0].path, Path::new("fx"));
}

#[test]
fn absurd_job_counts_are_refused_not_allocated() {
    let fe = front_end(&[], &[("n.fio", "[j]\nsize=1m\nnumjobs=1m\n")]);
    assert_eq!(fe.diags.0.len(), 1);
    assert!(
        fe.diags.0[0].message.contains("makes more than 65536 jobs"),
        "{}",
        fe.diags
    );
}

#[test]
fn rw_modifiers_are_sizes() {
    let p = plan(
        &[],
        &[(
            "m.fio",
            "[a]\nsize=1m\nrw=read:8k\n[b]\nsize=1m\nrw=randread:8\n[c]\nsize=1m\nrw=read:-8k\n",
        )],
    );
    let mods: Vec<Option<i64>> = p.jobs.iter().map(|j| j.pattern.modifier).collect();
    assert_eq!(mods, [Some(8192), Some(8), Some(-8192)]);
}

#[test]
fn startdelay_takes_a_time_or_a_range() {
    let p = plan(
        &[],
        &[(
            "s.fio",
            "[a]\nsize=1m\nstartdelay=2\n[b]\nsize=1m\nstartdelay=3-1\n",
        )],
    );
    assert_eq!(p.jobs[0].startdelay_us, (2_000_000, 2_000_000));
    assert_eq!(p.jobs[1].startdelay_us, (1_000_000, 3_000_000));
}

/// `filesize=lo-hi`: the plan holds each file's size, drawn as fio 3.33
/// draws it (sizes from fio's files on the same jobs).
#[test]
fn filesize_ranges_are_drawn_per_file_in_the_plan() {
    let sizes = |argv: &[&str]| -> Vec<Vec<Option<u64>>> {
        plan(argv, &[])
            .jobs
            .iter()
            .map(|j| j.files.iter().map(|f| f.size).collect())
            .collect()
    };
    let k = |n: u64| Some(n << 10);
    assert_eq!(
        sizes(&["--name=r", "--nrfiles=4", "--filesize=16k-64k"]),
        [vec![k(20), k(28), k(28), k(56)]]
    );
    // Each numjobs clone draws from its own seed; randseed moves them. The
    // plan holds the clones as fio creates them: r.0, r.2, r.1.
    assert_eq!(
        sizes(&[
            "--name=r",
            "--nrfiles=3",
            "--filesize=16k-64k",
            "--numjobs=3",
            "--randseed=7"
        ]),
        [
            vec![k(60), k(16), k(40)],
            vec![k(24), k(52), k(36)],
            vec![k(32), k(60), k(20)],
        ]
    );
    // Rounded down to the smallest block size of any direction.
    assert_eq!(
        sizes(&["--name=r", "--nrfiles=5", "--bs=512", "--filesize=1k-3k"])[0][..3],
        [Some(1024), Some(1536), Some(1536)]
    );
    // A single size, or lo = hi: every file gets it.
    assert_eq!(
        sizes(&["--name=r", "--nrfiles=2", "--filesize=8k-8k"]),
        [vec![k(8), k(8)]]
    );
}

#[test]
fn a_reversed_filesize_range_is_refused() {
    let fe = front_end(&["--name=r", "--filesize=64k-16k"], &[]);
    assert!(
        fe.diags
            .to_string()
            .contains("'64k-16k': the range 64k-16k is reversed"),
        "{}",
        fe.diags
    );
}
