//! Which engines rfio runs: the plan's refusal of the engines rfio cannot
//! run here, before the run, and `--enghelp`'s list, against what fio 3.33
//! does.

use crate::common;
use common::{rfio, stderr, TempDir};

/// fio parses any engine name (`--parse-only` exits 0) and fails the run
/// (`ioengine=sg` on a file: "only works on block or character devices",
/// exit 1). rfio refuses the run before it starts: no banner, the engine
/// and what it needs named at the `ioengine=` line, exit 1, the options of
/// the engine covered by that one line.
#[test]
fn engines_rfio_lacks_are_refused_before_the_run() {
    let dir = TempDir::new("refused");
    let job = dir.write(
        "j.fio",
        "[global]\nsize=1m\nfilename=f\n[sg]\nioengine=sg\nreadfua=1\n[ok]\nioengine=null\n[bad]\nioengine=nosuch\n",
    );
    let job = job.to_str().unwrap();
    let parsed = rfio(&dir, &["--parse-only", job]);
    assert!(parsed.status.success(), "{}", stderr(&parsed));
    let out = rfio(&dir, &[job]);
    assert_eq!(out.status.code(), Some(1));
    // As fio adds jobs, each job's description line may come first, but
    // nothing starts: no version line, no banner.
    let text = common::stdout(&out);
    assert!(
        !text.contains("fio-3.33") && !text.contains("Starting"),
        "nothing starts: {text}"
    );
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{job}:5:1: job 'sg': ioengine=sg needs SCSI generic devices (/dev/sg*, the SG_IO ioctl); rfio does not run it"
        )),
        "{err}"
    );
    assert!(
        err.contains(
            "job 'bad': ioengine=nosuch: no such I/O engine (fio: engine nosuch not loadable)"
        ),
        "{err}"
    );
    assert!(!err.contains("readfua"), "the engine's options: {err}");
    assert!(!dir.file("f").exists(), "nothing laid out");
}

/// `--enghelp` lists the engines rfio runs (fio lists all 33 of its
/// build); `--enghelp=ENGINE` still shows fio's options of any engine.
#[test]
fn enghelp_lists_what_rfio_runs() {
    let dir = TempDir::new("enghelp");
    let out = rfio(&dir, &["--enghelp"]);
    assert!(out.status.success());
    let list = common::stdout(&out);
    assert!(list.starts_with("Available IO engines:\n\t"), "{list}");
    let names: Vec<&str> = list.lines().skip(1).map(str::trim).collect();
    for e in ["psync", "splice", "io_uring"] {
        assert!(names.contains(&e), "{e}: {list}");
    }
    // dircreate came with fio 3.37: not in 3.33's list (the default).
    for e in ["sg", "rbd", "mtd", "dircreate"] {
        assert!(!names.contains(&e), "{e}: {list}");
    }
    assert_eq!(common::stdout(&rfio(&dir, &["--enghelp="])), list);
    let sg = rfio(&dir, &["--enghelp=sg"]);
    assert!(common::stdout(&sg).contains("readfua"));
}

/// As fio 3.42, `--enghelp` is fio 3.42's list (its build here: `fio
/// --enghelp` of /root/.cache/rfio-oracles/fio-3.42), in its order, but
/// for the engines rfio does not run (mtd, sg, io_uring_cmd) and nbd,
/// which rfio runs and that build lacks (no libnbd).
#[test]
fn enghelp_as_fio_3_42() {
    let dir = TempDir::new("enghelp-3.42");
    let out = rfio(&dir, &["--compat=fio-3.42", "--enghelp"]);
    assert!(out.status.success());
    let fio_342 = "cpuio mmap sync psync vsync pvsync pvsync2 null net netsplice ftruncate \
                   filecreate filestat filedelete dircreate dirstat dirdelete exec posixaio \
                   falloc e4defrag splice mtd sg io_uring io_uring_cmd libaio http dev-dax libpmem";
    let mut want: Vec<&str> = fio_342
        .split(' ')
        .filter(|e| !["mtd", "sg", "io_uring_cmd"].contains(e))
        .collect();
    let at = want.iter().position(|e| *e == "libaio").unwrap();
    want.insert(at, "nbd");
    let got: Vec<String> = common::stdout(&out)
        .lines()
        .skip(1)
        .map(|l| l.trim().to_string())
        .collect();
    assert_eq!(got, want);
}
