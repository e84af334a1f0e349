//! What a baseline records of the machine and of each job's target, read
//! from `/proc` and `/sys` under a root directory (`/` for the machine,
//! a fake tree in the tests). Best effort: what cannot be read is `None`
//! (a tmpfs has no block device, the null engine no file).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HostInfo {
    /// `model name` of `/proc/cpuinfo`.
    pub(crate) cpu_model: Option<String>,
    /// Processors listed in `/proc/cpuinfo`.
    pub(crate) cpus: Option<u32>,
    /// `/proc/sys/kernel/osrelease` (`uname -r`).
    pub(crate) kernel: Option<String>,
    /// `MemTotal` of `/proc/meminfo`, bytes.
    pub(crate) mem_bytes: Option<u64>,
}

/// One file of a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileTarget {
    pub(crate) path: String,
    /// The mount holding it (`/proc/self/mountinfo`): its point, file
    /// system type and mount options.
    pub(crate) mount_point: Option<String>,
    pub(crate) fs_type: Option<String>,
    pub(crate) mount_options: Option<String>,
    /// Bytes free to users there (`statvfs`), when the run started.
    pub(crate) free_bytes: Option<u64>,
    /// The block device under it (the whole disk of a partition), and
    /// its `device/model`, `queue/rotational`, `queue/scheduler` (the
    /// one in brackets).
    pub(crate) device: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) rotational: Option<bool>,
    pub(crate) scheduler: Option<String>,
}

/// Reads `/proc` and `/sys` under `root`.
pub(crate) struct Probe {
    pub(crate) root: PathBuf,
}

impl Probe {
    /// The machine rfio runs on.
    pub(crate) fn system() -> Probe {
        Probe { root: "/".into() }
    }

    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(path.trim_start_matches('/'))).ok()
    }

    pub(crate) fn host(&self) -> HostInfo {
        let cpuinfo = self.read("/proc/cpuinfo").unwrap_or_default();
        let field = |l: &str, name: &str| -> Option<String> {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        };
        let cpu_model = cpuinfo.lines().find_map(|l| field(l, "model name"));
        let cpus = cpuinfo
            .lines()
            .filter(|l| field(l, "processor").is_some())
            .count() as u32;
        let mem_bytes = self
            .read("/proc/meminfo")
            .and_then(|m| crate::lint::mem_total(&m));
        HostInfo {
            cpu_model,
            cpus: (cpus > 0).then_some(cpus),
            kernel: self
                .read("/proc/sys/kernel/osrelease")
                .map(|k| k.trim().to_string()),
            mem_bytes,
        }
    }

    /// The target `path` (a file, which may not exist yet, or a block
    /// device), seen from the current directory.
    pub(crate) fn file(&self, path: &Path) -> FileTarget {
        let abs = absolute(path);
        let mounts = self.read("/proc/self/mountinfo").unwrap_or_default();
        let mount = mount_of(&mounts, &abs);
        let is_block = crate::lint::Host::is_block_device(&crate::lint::System, path);
        let device = if is_block {
            std::fs::canonicalize(path)
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        } else {
            mount.as_ref().and_then(|m| self.device_of(&m.source))
        };
        let disk = device.as_deref().and_then(|d| self.disk_of(d));
        let sys = |what: &str| -> Option<String> {
            let d = disk.as_deref()?;
            self.read(&format!("/sys/block/{d}/{what}"))
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        FileTarget {
            path: path.display().to_string(),
            mount_point: mount.as_ref().map(|m| m.point.clone()),
            fs_type: mount.as_ref().map(|m| m.fs_type.clone()),
            mount_options: mount.as_ref().map(|m| m.options.clone()),
            free_bytes: free_bytes(&abs),
            model: sys("device/model"),
            rotational: sys("queue/rotational").map(|r| r == "1"),
            scheduler: sys("queue/scheduler").map(|s| selected_scheduler(&s)),
            device: disk,
        }
    }

    /// The kernel's name of the device `source` (`/dev/sda1`,
    /// `/dev/mapper/x` → `dm-0`); `None` for a source that is no device
    /// (`tmpfs`, `overlay`).
    fn device_of(&self, source: &str) -> Option<String> {
        let p = Path::new(source);
        if !source.starts_with("/dev/") {
            return None;
        }
        let real = std::fs::canonicalize(self.root.join(source.trim_start_matches('/')))
            .unwrap_or_else(|_| p.to_path_buf());
        real.file_name().map(|n| n.to_string_lossy().into_owned())
    }

    /// The whole disk of device `name` under `/sys/block`: itself, or
    /// the disk that has it as a partition.
    fn disk_of(&self, name: &str) -> Option<String> {
        let block = self.root.join("sys/block");
        if block.join(name).exists() {
            return Some(name.to_string());
        }
        std::fs::read_dir(&block)
            .ok()?
            .flatten()
            .find(|d| d.path().join(name).exists())
            .map(|d| d.file_name().to_string_lossy().into_owned())
    }
}

/// A line of `/proc/self/mountinfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mount {
    point: String,
    options: String,
    fs_type: String,
    source: String,
}

/// The mount of `mountinfo` that holds `path` (the longest mount point
/// above it; the last one mounted there).
fn mount_of(mountinfo: &str, path: &Path) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for line in mountinfo.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(dash) = fields.iter().position(|&f| f == "-") else {
            continue;
        };
        let (Some(point), Some(options), Some(fs_type), Some(source)) = (
            fields.get(4),
            fields.get(5),
            fields.get(dash + 1),
            fields.get(dash + 2),
        ) else {
            continue;
        };
        let point = unescape(point);
        if !path.starts_with(&point) {
            continue;
        }
        if best.as_ref().is_some_and(|b| b.point.len() > point.len()) {
            continue;
        }
        best = Some(Mount {
            point,
            options: options.to_string(),
            fs_type: fs_type.to_string(),
            source: unescape(source),
        });
    }
    best
}

/// mountinfo's octal escapes (`\040` for a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        if let (b'\\', Some(d)) = (b[i], octal) {
            let v = d.iter().fold(0u32, |acc, c| acc * 8 + u32::from(c - b'0'));
            out.push(v as u8);
            i += 4;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The scheduler in brackets of `queue/scheduler` (`[mq-deadline] none`),
/// or the text itself.
fn selected_scheduler(s: &str) -> String {
    match (s.find('['), s.find(']')) {
        (Some(a), Some(b)) if a < b => s[a + 1..b].to_string(),
        _ => s.to_string(),
    }
}

/// `path` from the root, its existing part resolved (the file may not
/// exist yet).
fn absolute(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    if let Ok(p) = std::fs::canonicalize(&abs) {
        return p;
    }
    match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or(abs.clone()),
        _ => abs,
    }
}

/// `statvfs(2)` of the directory holding `path`: bytes free to users.
fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let dir = if path.is_dir() { path } else { path.parent()? };
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero `statvfs` is a valid value to be overwritten.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a writable statvfs.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)]
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro
30 22 0:26 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=100k
31 22 8:17 / /mnt/my\\040disk rw,noatime - xfs /dev/sdb1 rw,attr2
";

    fn fake_root() -> PathBuf {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let root = std::env::temp_dir().join(format!("rfio-probe-{}-{nanos}", std::process::id()));
        let w = |p: &str, text: &str| {
            let f = root.join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, text).unwrap();
        };
        w(
            "proc/cpuinfo",
            "processor\t: 0\nmodel name\t: Fake CPU @ 3GHz\n\nprocessor\t: 1\nmodel name\t: Fake CPU @ 3GHz\n",
        );
        w("proc/meminfo", "MemTotal:        2048 kB\nMemFree: 1 kB\n");
        w("proc/sys/kernel/osrelease", "6.1.0-test\n");
        w("proc/self/mountinfo", MOUNTINFO);
        w("sys/block/sda/device/model", "FakeDisk 1TB   \n");
        w("sys/block/sda/queue/rotational", "1\n");
        w(
            "sys/block/sda/queue/scheduler",
            "none [mq-deadline] kyber\n",
        );
        w("sys/block/sda/sda1/partition", "1\n");
        root
    }

    #[test]
    fn host_from_proc() {
        let root = fake_root();
        let h = Probe { root: root.clone() }.host();
        assert_eq!(h.cpu_model.as_deref(), Some("Fake CPU @ 3GHz"));
        assert_eq!(h.cpus, Some(2));
        assert_eq!(h.kernel.as_deref(), Some("6.1.0-test"));
        assert_eq!(h.mem_bytes, Some(2048 * 1024));
        let empty = Probe {
            root: root.join("nothing"),
        }
        .host();
        assert_eq!(empty.cpus, None);
        assert_eq!(empty.cpu_model, None);
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn mounts_and_devices() {
        let m = mount_of(MOUNTINFO, Path::new("/tmp/x/data")).unwrap();
        assert_eq!((m.point.as_str(), m.fs_type.as_str()), ("/tmp", "tmpfs"));
        assert_eq!(m.options, "rw,nosuid,nodev");
        let m = mount_of(MOUNTINFO, Path::new("/home/u/f")).unwrap();
        assert_eq!((m.point.as_str(), m.source.as_str()), ("/", "/dev/sda1"));
        let m = mount_of(MOUNTINFO, Path::new("/mnt/my disk/f")).unwrap();
        assert_eq!(m.fs_type, "xfs");
        assert_eq!(
            selected_scheduler("none [mq-deadline] kyber"),
            "mq-deadline"
        );
        let root = fake_root();
        let p = Probe { root: root.clone() };
        assert_eq!(p.device_of("/dev/sda1").as_deref(), Some("sda1"));
        assert_eq!(p.device_of("tmpfs"), None);
        assert_eq!(p.disk_of("sda1").as_deref(), Some("sda"));
        assert_eq!(p.disk_of("sda").as_deref(), Some("sda"));
        assert_eq!(p.disk_of("sdz"), None);
        let t = p.file(Path::new("/nonexistent-rfio-dir/f"));
        assert_eq!(t.mount_point.as_deref(), Some("/"));
        assert_eq!(t.fs_type.as_deref(), Some("ext4"));
        assert_eq!(t.mount_options.as_deref(), Some("rw,relatime"));
        assert_eq!(t.device.as_deref(), Some("sda"));
        assert_eq!(t.model.as_deref(), Some("FakeDisk 1TB"));
        assert_eq!(t.rotational, Some(true));
        assert_eq!(t.scheduler.as_deref(), Some("mq-deadline"));
        assert_eq!(t.free_bytes, None);
        let _ = std::fs::remove_dir_all(root);
    }
}
