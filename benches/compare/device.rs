//! The fast-device cases: a loop device over a file in tmpfs (`/dev/shm`),
//! which completes a 4 KiB read in a few microseconds, so that the tools'
//! own cost per I/O shows rather than a disk's. The bench sets it up and
//! tears it down; that needs root (`losetup`), and without it these cases
//! alone are skipped, with the reason in the report.
//!
//! The cases run each engine (io_uring, libaio) at iodepth 1, 32 and 128,
//! 4 KiB random reads and 128 KiB sequential writes, for a fixed time; the
//! read cases also run fio's own peak tool, `t/io_uring` (with `-a1`, its
//! libaio mode, for libaio), with fio's default batching.

use crate::cases::{Case, Metric};
use crate::fio_output::Dir;
use std::fs;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What stands for the loop device's path in the cases' arguments (and in
/// the commands RESULTS.md shows, after `DEV=$(losetup ...)`).
pub(crate) const DEV: &str = "$DEV";
/// The size of the image, and of every job's region on the device.
const SIZE_MIB: u64 = 1024;

/// The fast-device cases, each running `runtime` seconds.
pub(crate) fn cases(runtime: u64) -> Vec<Case> {
    let mut cases = Vec::new();
    for engine in ["io_uring", "libaio"] {
        for (rw, bs, dir) in [
            ("randread", 4096u64, Dir::Read),
            ("write", 128 << 10, Dir::Write),
        ] {
            for depth in [1, 32, 128] {
                let kib = bs >> 10;
                let what = match dir {
                    Dir::Read => format!("{kib} KiB random reads"),
                    Dir::Write => format!("{kib} KiB sequential writes"),
                };
                let short = match dir {
                    Dir::Read => "randread",
                    Dir::Write => "seqwrite",
                };
                let args = vec![
                    "--name=loop".to_string(),
                    format!("--ioengine={engine}"),
                    "--direct=1".into(),
                    format!("--iodepth={depth}"),
                    format!("--rw={rw}"),
                    format!("--bs={kib}k"),
                    format!("--filename={DEV}"),
                    format!("--size={SIZE_MIB}m"),
                    format!("--runtime={runtime}"),
                    "--time_based".into(),
                ];
                // fio's defaults: one I/O per submission, reap from one;
                // no polling (a loop device has none), no registered
                // buffers or files.
                let third = (dir == Dir::Read).then(|| {
                    let mut t: Vec<String> = vec![
                        format!("-d{depth}"),
                        "-s1".into(),
                        "-c1".into(),
                        format!("-b{bs}"),
                        "-p0".into(),
                        "-B0".into(),
                        "-F0".into(),
                        "-O1".into(),
                        "-R1".into(),
                    ];
                    if engine == "libaio" {
                        t.push("-a1".into());
                    }
                    t.push(format!("-r{runtime}"));
                    t.push(DEV.into());
                    t
                });
                cases.push(Case {
                    name: format!("loop-{engine}-{short}-{kib}k-qd{depth}"),
                    measures: format!(
                        "{engine}, `direct=1`, {what}, iodepth {depth}, \
                         loop device over tmpfs, {runtime} s: IOPS"
                    ),
                    metric: Metric::Iops(dir),
                    args,
                    bs,
                    bytes: None,
                    target: None,
                    device: true,
                    third,
                    runtime: Some(runtime),
                });
            }
        }
    }
    cases
}

/// The loop device: detached and its image removed when dropped.
pub(crate) struct LoopDevice {
    pub path: PathBuf,
    image: PathBuf,
    /// The commands that made it, for RESULTS.md.
    pub setup: Vec<String>,
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.path).status();
        let _ = fs::remove_file(&self.image);
    }
}

/// Sets up the loop device, or says why it cannot.
pub(crate) fn set_up() -> Result<LoopDevice, String> {
    // SAFETY: geteuid takes no arguments and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err("not root: setting up a loop device needs root".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Err("no /dev/loop-control: this system has no loop devices".into());
    }
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        return Err("no /dev/shm (tmpfs) to hold the image".into());
    }
    let image = shm.join(format!("rfio-bench-{}.img", std::process::id()));
    allocate(&image, SIZE_MIB << 20)
        .map_err(|e| format!("allocating {} ({SIZE_MIB} MiB): {e}", image.display()))?;
    let out = Command::new("losetup")
        .args(["-f", "--show"])
        .arg(&image)
        .output();
    let path = match out {
        Ok(o) if o.status.success() => {
            PathBuf::from(String::from_utf8_lossy(&o.stdout).trim().to_string())
        }
        Ok(o) => {
            let _ = fs::remove_file(&image);
            return Err(format!(
                "losetup -f --show {}: {}",
                image.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        Err(e) => {
            let _ = fs::remove_file(&image);
            return Err(format!("running losetup: {e}"));
        }
    };
    Ok(LoopDevice {
        setup: vec![
            format!("fallocate -l {SIZE_MIB}MiB {}", image.display()),
            format!(
                "DEV=$(losetup -f --show {})  # {}",
                image.display(),
                path.display()
            ),
        ],
        path,
        image,
    })
}

/// Creates `path` with `len` bytes allocated (not a sparse file: reads of
/// a hole in tmpfs would be cheaper than reads of data).
fn allocate(path: &Path, len: u64) -> io::Result<()> {
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    // SAFETY: fallocate takes no pointers; the descriptor is open.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len as libc::off_t) };
    if r != 0 {
        let e = io::Error::last_os_error();
        drop(file);
        let _ = fs::remove_file(path);
        return Err(e);
    }
    Ok(())
}

/// `args` with [`DEV`] replaced by the device's path.
pub(crate) fn on(args: &[String], dev: Option<&Path>) -> Vec<String> {
    match dev {
        None => args.to_vec(),
        Some(d) => args
            .iter()
            .map(|a| a.replace(DEV, &d.display().to_string()))
            .collect(),
    }
}

/// Checks run by `cargo test --benches`.
pub(crate) fn self_check() {
    let all = cases(5);
    assert_eq!(all.len(), 12);
    assert_eq!(all.iter().filter(|c| c.third.is_some()).count(), 6);
    let first = &all[0];
    assert_eq!(first.name, "loop-io_uring-randread-4k-qd1");
    let args = on(&first.args, Some(Path::new("/dev/loop7")));
    assert!(args.contains(&"--filename=/dev/loop7".to_string()));
    let third = on(first.third.as_ref().unwrap(), Some(Path::new("/dev/loop7")));
    assert_eq!(third.last().map(String::as_str), Some("/dev/loop7"));
    assert!(all[9].third.is_none() && all[9].name == "loop-libaio-seqwrite-128k-qd1");
    assert!(all[6].third.as_ref().unwrap().contains(&"-a1".to_string()));
}
