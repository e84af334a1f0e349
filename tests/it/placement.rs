//! Job placement and I/O memory (`cpus_allowed`, `cpumask`,
//! `cpus_allowed_policy`, `nice`, `prio`, `prioclass`, `lockmem`, `mem`,
//! `iomem_align`, `hugepage-size`, `exec_prerun`, `exec_postrun`), run
//! through the rfio binary in a temporary working directory: the commands
//! a job runs inherit its thread's settings, so their output files show
//! them. Expected texts and errors are fio 3.33's, as observed.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::{stderr, stdout, TempDir};

const RFIO: &str = env!("CARGO_BIN_EXE_rfio");

/// Run rfio with `args` (`--minimal` added) in `dir`.
fn rfio(dir: &Path, args: &[&str]) -> Output {
    rfio_as(dir, args, &[])
}

/// The same, through `wrapper` (e.g. setpriv) when not empty.
fn rfio_as(dir: &Path, args: &[&str], wrapper: &[&str]) -> Output {
    let mut cmd = match wrapper.split_first() {
        Some((w, rest)) => {
            let mut c = Command::new(w);
            c.args(rest).arg(RFIO);
            c
        }
        None => Command::new(RFIO),
    };
    // The expected texts are fio 3.33's: rfio as that release.
    cmd.current_dir(dir)
        .args(args)
        .arg("--minimal")
        .env("RFIO_FIO_VERSION", "3.33");
    let (out, timed_out) = common::output_within(&mut cmd, common::RUN_LIMIT);
    assert!(!timed_out, "rfio {args:?} hung: killed");
    out
}

/// Field `n` (1-based, as awk's `$n`) of terse line `line`.
fn terse(o: &Output, line: usize, n: usize) -> String {
    let out = stdout(o);
    let l = out
        .lines()
        .filter(|l| l.starts_with("3;"))
        .nth(line)
        .unwrap_or_else(|| panic!("no terse line {line} in {out:?}"));
    l.split(';').nth(n - 1).unwrap().to_string()
}

fn read(dir: &TempDir, name: &str) -> String {
    std::fs::read_to_string(dir.file(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The `Cpus_allowed_list` line of this process (what a job without
/// `cpus_allowed` inherits).
fn own_cpus() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("Cpus_allowed_list:"))
        .unwrap();
    format!("{line}\n")
}

fn online_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn commands_inherit_affinity_nice_and_ioprio() {
    let dir = TempDir::new("place-inherit");
    let o = rfio(
        &dir.0,
        &[
            "--name=a",
            "--ioengine=null",
            "--size=64k",
            "--cpus_allowed=0",
            "--nice=3",
            "--prio=5",
            "--prioclass=2",
            "--exec_prerun=grep Cpus_allowed_list /proc/self/status",
            "--exec_postrun=nice",
            // A later group's thread starts from rfio's own settings.
            "--name=b",
            "--stonewall",
            "--ioengine=null",
            "--size=64k",
            "--exec_prerun=grep Cpus_allowed_list /proc/self/status",
            "--exec_postrun=nice",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read(&dir, "a.prerun.txt"), "Cpus_allowed_list:\t0\n");
    assert_eq!(read(&dir, "a.postrun.txt"), "3\n");
    assert_eq!(read(&dir, "b.prerun.txt"), own_cpus());
    assert_eq!(read(&dir, "b.postrun.txt"), "0\n");
    // fio's notices, on stderr: stdout holds the terse lines only.
    let err = stderr(&o);
    assert!(
        err.contains("a : Saving output of prerun in a.prerun.txt\n"),
        "{err}"
    );
    assert!(
        err.contains("b : Saving output of postrun in b.postrun.txt\n"),
        "{err}"
    );
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));
    assert_eq!(terse(&o, 0, 6), "64", "read KiB");

    if Command::new("ionice").arg("-V").output().is_ok() {
        let o = rfio(
            &dir.0,
            &[
                "--name=p",
                "--ioengine=null",
                "--size=16k",
                "--prio=5",
                "--prioclass=2",
                "--exec_prerun=ionice",
                "--name=i",
                "--ioengine=null",
                "--size=16k",
                "--prioclass=3",
                "--exec_prerun=ionice",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(read(&dir, "p.prerun.txt"), "best-effort: prio 5\n");
        assert_eq!(read(&dir, "i.prerun.txt"), "idle\n");
    }
}

#[test]
fn split_gives_each_job_one_cpu_by_thread_number() {
    let cpus = own_cpus();
    let missing = (online_cpus() < 2 || !cpus.starts_with("Cpus_allowed_list:\t0-")).then(|| {
        format!(
            "needs CPUs 0 and 1: {} online, {}",
            online_cpus(),
            cpus.trim()
        )
    });
    if !common::require("cpus", missing) {
        return;
    }
    let dir = TempDir::new("place-split");
    let mut args = vec![];
    for name in ["s0", "s1", "s2"] {
        args.extend([
            format!("--name={name}"),
            "--ioengine=null".into(),
            "--size=16k".into(),
            "--cpus_allowed=0-1".into(),
            "--cpus_allowed_policy=split".into(),
            "--exec_prerun=grep Cpus_allowed_list /proc/self/status".into(),
        ]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = rfio(&dir.0, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    // Thread numbers 1, 2, 3 over two CPUs: 0, 1, then 0 again (fio wraps).
    assert_eq!(read(&dir, "s0.prerun.txt"), "Cpus_allowed_list:\t0\n");
    assert_eq!(read(&dir, "s1.prerun.txt"), "Cpus_allowed_list:\t1\n");
    assert_eq!(read(&dir, "s2.prerun.txt"), "Cpus_allowed_list:\t0\n");
}

#[test]
fn a_failing_prerun_ends_the_job_quietly() {
    let dir = TempDir::new("place-prerun");
    let o = rfio(
        &dir.0,
        &[
            "--name=f",
            "--ioengine=null",
            "--size=64k",
            "--exec_prerun=echo out; false",
            "--exec_postrun=echo never",
        ],
    );
    // fio 3.33: no I/O, err=0, no postrun, exit 0.
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(terse(&o, 0, 5), "0", "err");
    assert_eq!(terse(&o, 0, 6), "0", "read KiB");
    assert!(!dir.file("f.postrun.txt").exists());
    // `;` ends the redirection's reach, as in fio's `CMD > FILE 2>&1`.
    assert!(stdout(&o).starts_with("out\n"), "{}", stdout(&o));
    assert_eq!(read(&dir, "f.prerun.txt"), "");
}

#[test]
fn setup_errors_as_fio() {
    let dir = TempDir::new("place-errors");
    let job = |extra: &[&str]| {
        let mut a = vec!["--name=e", "--ioengine=null", "--size=64k"];
        a.extend_from_slice(extra);
        rfio(&dir.0, &a)
    };
    let o = job(&["--cpumask=0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o)
        .contains(", err=22/file:backend.c:1716, func=cpu_set_affinity, error=Invalid argument\n"));
    assert_eq!(terse(&o, 0, 5), "22");

    let o = job(&["--cpumask=0", "--cpus_allowed_policy=split"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("fio: no CPUs set\nfio: Try increasing number of available CPUs\n"));
    assert!(stderr(&o)
        .contains(", err=22/file:backend.c:1710, func=cpus_split, error=Invalid argument\n"));

    let o = job(&["--cpus_allowed=1000"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("CPU 1000 too large (max="),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());

    let o = job(&["--mem=shm:x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("only mmap, mmaphuge and mmapshared map a file"));

    let o = job(&["--mem=mmap:no/such/dir/buf", "--rw=write"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(
        ", err=2/file:memory.c:146, func=open mmap file, error=No such file or directory\n"
    ));

    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    if meminfo.contains("HugePages_Total:       0\n") {
        let o = job(&["--mem=mmaphuge", "--rw=write"]);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o)
            .contains(", err=12/file:memory.c:170, func=mmap, error=Cannot allocate memory\n"));
        assert_eq!(terse(&o, 0, 5), "12");
        assert_eq!(terse(&o, 0, 47), "0", "write KiB");
        let o = job(&["--mem=shmhuge", "--rw=write"]);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o)
            .contains("fio: no huge pages available, do you need to allocate some? See HOWTO.\n"));
        assert!(stderr(&o)
            .contains(", err=12/file:memory.c:78, func=shmget, error=Cannot allocate memory\n"));
    }
}

/// As an unprivileged user (the tests run as root here): raising the
/// priority, the realtime I/O class and locking more than RLIMIT_MEMLOCK
/// fail as in fio.
#[test]
fn unprivileged_failures_as_fio() {
    let setpriv = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
    ];
    if !common::require_root("running rfio as nobody") {
        return;
    }
    let missing = Command::new("setpriv")
        .arg("--version")
        .output()
        .err()
        .map(|e| format!("setpriv --version: {e}"));
    if !common::require("setpriv", missing) {
        return;
    }
    let dir = TempDir::new("place-unpriv");
    std::fs::set_permissions(&dir.0, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let job = |extra: &[&str]| {
        let mut a = vec!["--name=u", "--ioengine=null", "--size=64k"];
        a.extend_from_slice(extra);
        rfio_as(&dir.0, &a, &setpriv)
    };
    let probe = job(&[]);
    let missing = (!probe.status.success())
        .then(|| format!("user nobody cannot run rfio here: {}", stderr(&probe)));
    if !common::require("nobody", missing) {
        return;
    }
    let o = job(&["--nice=-5"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o)
        .contains(", err=1/file:backend.c:1817, func=nice, error=Operation not permitted\n"));
    assert_eq!(terse(&o, 0, 5), "1");

    let o = job(&["--prioclass=1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o)
        .contains(", err=1/file:backend.c:1788, func=ioprio_set, error=Operation not permitted\n"));

    // fio: perror("mlock"), the job does nothing, err=0, exit 0.
    let o = job(&["--lockmem=1g", "--exec_prerun=true"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("mlock: Cannot allocate memory\n"),
        "{}",
        stderr(&o)
    );
    assert_eq!(terse(&o, 0, 5), "0");
    assert_eq!(terse(&o, 0, 6), "0", "read KiB");
    assert!(
        !dir.file("u.prerun.txt").exists(),
        "no prerun after the failure"
    );
}

#[test]
fn every_memory_type_writes_the_same_data() {
    let dir = TempDir::new("place-mem");
    let kinds: &[(&str, &[&str])] = &[
        ("malloc", &["--mem=malloc"]),
        ("shm", &["--iomem=shm"]),
        ("mmap", &["--mem=mmap"]),
        ("mmapfile", &["--mem=mmap:new.buf"]),
        ("mmapkept", &["--mem=mmap:kept.buf"]),
        ("mmapshared", &["--mem=mmapshared:shared.buf"]),
        ("anonshared", &["--mem=mmapshared"]),
        ("aligned", &["--mem=malloc", "--iomem_align=512"]),
        ("hugesize", &["--mem=mmap", "--hugepage-size=4m"]),
    ];
    let mut first: Option<Vec<u8>> = None;
    for (kind, opts) in kinds {
        // The same job (name, seeds) in a directory of its own.
        let sub = dir.file(kind);
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("kept.buf"), b"x").unwrap();
        let mut args = vec![
            "--name=w",
            "--filename=w.dat",
            "--ioengine=psync",
            "--rw=randwrite",
            "--bs=4k",
            "--size=256k",
            "--buffer_compress_percentage=50",
            "--refill_buffers",
        ];
        args.extend_from_slice(opts);
        let o = rfio(&sub, &args);
        assert!(o.status.success(), "{kind}: {}", stderr(&o));
        assert_eq!(terse(&o, 0, 5), "0", "{kind}: err");
        assert_eq!(terse(&o, 0, 47), "256", "{kind}: write KiB");
        let data = std::fs::read(sub.join("w.dat")).unwrap();
        assert_eq!(data.len(), 256 << 10);
        match &first {
            None => first = Some(data),
            Some(f) => assert!(&data == f, "{kind}: other data than mem=malloc"),
        }
        // A buffer file the job created is gone; one that existed stays,
        // sized to the buffers (fio's ftruncate).
        assert!(!sub.join("new.buf").exists(), "{kind}");
        assert!(!sub.join("shared.buf").exists(), "{kind}");
        let kept = std::fs::metadata(sub.join("kept.buf")).unwrap().len();
        assert_eq!(kept, if *kind == "mmapkept" { 4096 } else { 1 }, "{kind}");
    }
}

#[test]
fn queued_io_from_aligned_shared_memory() {
    if !common::require_engine("libaio", 4) {
        return;
    }
    let dir = TempDir::new("place-aio");
    let o = rfio(
        &dir.0,
        &[
            "--name=q",
            "--ioengine=libaio",
            "--rw=randwrite",
            "--bs=4k",
            "--size=256k",
            "--iodepth=4",
            "--iomem_align=256",
            "--mem=shm",
            "--lockmem=1m",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(terse(&o, 0, 47), "256");
}
