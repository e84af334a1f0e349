//! Disk utilization of the devices under the jobs' files (fio's
//! `diskutil.c`): each file's device is found through `/sys/dev/block`, a
//! partition is replaced by its disk, and a device-mapper or md device
//! brings its slaves along. Counters are read from `/sys/block/<dev>/stat`
//! when the run starts and when it ends.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Counters of `/sys/block/<dev>/stat` (fio's `disk_util_stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DiskCounters {
    pub ios: [u64; 2],
    pub merges: [u64; 2],
    pub sectors: [u64; 2],
    pub ticks: [u64; 2],
    pub io_ticks: u64,
    pub time_in_queue: u64,
}

impl DiskCounters {
    fn read(dir: &Path) -> Option<DiskCounters> {
        let text = std::fs::read_to_string(dir.join("stat")).ok()?;
        let f: Vec<u64> = text
            .split_whitespace()
            .map(|t| t.parse().unwrap_or(0))
            .collect();
        if f.len() < 11 {
            return None;
        }
        Some(DiskCounters {
            ios: [f[0], f[4]],
            merges: [f[1], f[5]],
            sectors: [f[2], f[6]],
            ticks: [f[3], f[7]],
            io_ticks: f[9],
            time_in_queue: f[10],
        })
    }

    fn since(&self, start: &DiskCounters) -> DiskCounters {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        DiskCounters {
            ios: [d(self.ios[0], start.ios[0]), d(self.ios[1], start.ios[1])],
            merges: [
                d(self.merges[0], start.merges[0]),
                d(self.merges[1], start.merges[1]),
            ],
            sectors: [
                d(self.sectors[0], start.sectors[0]),
                d(self.sectors[1], start.sectors[1]),
            ],
            ticks: [
                d(self.ticks[0], start.ticks[0]),
                d(self.ticks[1], start.ticks[1]),
            ],
            io_ticks: d(self.io_ticks, start.io_ticks),
            time_in_queue: d(self.time_in_queue, start.time_in_queue),
        }
    }
}

/// One device's activity over the run, as reported.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DiskUtil {
    /// The sysfs name (`vda`, `dm-0`, `nvme0n1`).
    pub name: String,
    pub stats: DiskCounters,
    /// Milliseconds the counters span.
    pub msec: u64,
    /// The slaves of a dm/md device (each also reported on its own).
    pub slaves: Vec<DiskUtil>,
}

impl DiskUtil {
    /// `100 * io_ticks / msec`, at most 100 (0 without elapsed time).
    pub(crate) fn util(&self) -> f64 {
        if self.msec == 0 {
            return 0.0;
        }
        (100.0 * self.stats.io_ticks as f64 / self.msec as f64).min(100.0)
    }

    /// fio's `disk_util_agg` of the slaves: sums (to be divided by the
    /// slave count) and the highest slave utilization.
    pub(crate) fn aggregate(&self) -> Option<DiskAgg> {
        if self.slaves.is_empty() {
            return None;
        }
        let mut a = DiskAgg {
            slaves: self.slaves.len() as u64,
            ..DiskAgg::default()
        };
        for s in &self.slaves {
            for d in 0..2 {
                a.ios[d] += s.stats.ios[d];
                a.merges[d] += s.stats.merges[d];
                a.sectors[d] += s.stats.sectors[d];
                a.ticks[d] += s.stats.ticks[d];
            }
            a.time_in_queue += s.stats.time_in_queue;
            a.max_util = a.max_util.max(s.util());
        }
        Some(a)
    }
}

/// Slave totals of a dm/md device.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct DiskAgg {
    pub(crate) slaves: u64,
    pub(crate) ios: [u64; 2],
    pub(crate) merges: [u64; 2],
    pub(crate) sectors: [u64; 2],
    pub(crate) ticks: [u64; 2],
    pub(crate) time_in_queue: u64,
    pub(crate) max_util: f64,
}

/// A device being watched: where its counters are and their first reading.
#[derive(Debug, Clone)]
struct Watched {
    name: String,
    dir: PathBuf,
    start: DiskCounters,
    /// When the first reading was taken (fio's `du->time`, set as the
    /// disk is added).
    since: Instant,
    slaves: Vec<usize>,
}

/// The devices under a run's files, with their counters at the start.
#[derive(Debug, Clone, Default)]
pub(crate) struct DiskWatch {
    disks: Vec<Watched>,
}

impl DiskWatch {
    /// Find the devices under `files` (a file that does not exist yet is
    /// taken from its directory) and read their counters.
    pub(crate) fn start<'a>(files: impl IntoIterator<Item = &'a Path>) -> DiskWatch {
        let mut w = DiskWatch::default();
        for f in files {
            if let Some(dir) = device_dir(f) {
                w.add(dir);
            }
        }
        let now = Instant::now();
        for d in &mut w.disks {
            d.since = now;
        }
        w
    }

    /// Watch the device of `file` too, found as fio 3.33 finds it when
    /// the file's job is about to start (`init_disk_util`): from the file
    /// itself, or, when it does not exist yet, from the directory that
    /// holds it. `Err` is the error of that directory's `stat` (fio
    /// prints `disk util stat: ` and its text, and watches nothing for
    /// the file); `Ok` whether a device was found.
    pub(crate) fn add_file(&mut self, file: &Path) -> std::io::Result<bool> {
        Ok(match job_file_disk(file)? {
            Some(dir) => self.add(dir).is_some(),
            None => false,
        })
    }

    fn add(&mut self, dir: PathBuf) -> Option<usize> {
        if let Some(i) = self.disks.iter().position(|d| d.dir == dir) {
            return Some(i);
        }
        let start = DiskCounters::read(&dir)?;
        let name = dir.file_name()?.to_string_lossy().into_owned();
        let idx = self.disks.len();
        self.disks.push(Watched {
            name,
            dir: dir.clone(),
            start,
            since: Instant::now(),
            slaves: Vec::new(),
        });
        let mut slaves = Vec::new();
        if let Ok(rd) = std::fs::read_dir(dir.join("slaves")) {
            let mut names: Vec<_> = rd.flatten().map(|e| e.file_name()).collect();
            names.sort();
            for n in names {
                let sdir = Path::new("/sys/block").join(&n);
                let sdir = std::fs::canonicalize(&sdir).unwrap_or(sdir);
                if let Some(s) = self.add(sdir) {
                    slaves.push(s);
                }
            }
        }
        self.disks[idx].slaves = slaves;
        Some(idx)
    }

    /// Read the counters again: every device's activity since the start,
    /// in fio's order (each device, then its slaves).
    pub(crate) fn finish(&self) -> Vec<DiskUtil> {
        let util = |d: &Watched| DiskUtil {
            name: d.name.clone(),
            stats: DiskCounters::read(&d.dir)
                .unwrap_or(d.start)
                .since(&d.start),
            msec: d.since.elapsed().as_millis() as u64,
            slaves: Vec::new(),
        };
        let flat: Vec<DiskUtil> = self.disks.iter().map(util).collect();
        self.disks
            .iter()
            .zip(&flat)
            .map(|(d, u)| DiskUtil {
                slaves: d.slaves.iter().map(|&s| flat[s].clone()).collect(),
                ..u.clone()
            })
            .collect()
    }
}

/// The sysfs directory of the whole device under a job's file, by fio
/// 3.33's rule (`get_device_numbers`): the file's own `lstat` (a block
/// device is itself; a character device or FIFO has none), or, when the
/// file does not exist, the `stat` of `dirname(file)` only, whose error is
/// returned (a file whose folder the job will create has no device).
pub(crate) fn job_file_disk(path: &Path) -> std::io::Result<Option<PathBuf>> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let dev = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_block_device() => m.rdev(),
        Ok(m) if m.file_type().is_char_device() || m.file_type().is_fifo() => return Ok(None),
        Ok(m) => m.dev(),
        Err(_) => {
            let dir = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                // dirname("name") is ".", dirname("/") is "/".
                _ if path.has_root() => Path::new("/"),
                _ => Path::new("."),
            };
            std::fs::metadata(dir)?.dev()
        }
    };
    Ok(sysfs_disk(dev))
}

/// The sysfs directory of the whole device `dev` (a partition's disk).
fn sysfs_disk(dev: u64) -> Option<PathBuf> {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let link = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let dir = std::fs::canonicalize(link).ok()?;
    // A partition has a `partition` file; its disk is the parent.
    if dir.join("partition").exists() {
        return dir.parent().map(Path::to_path_buf);
    }
    Some(dir)
}

/// The sysfs directory of the whole device holding `path`.
pub(crate) fn device_dir(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    // The file, or the nearest directory above it that exists yet (a job
    // may create `sub/data.bin` and `sub/` with it).
    let meta = path
        .ancestors()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .find_map(|p| std::fs::metadata(p).ok())?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    sysfs_disk(dev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn util_is_capped() {
        let mut d = DiskUtil {
            name: "vda".into(),
            msec: 100,
            ..DiskUtil::default()
        };
        d.stats.io_ticks = 250;
        assert_eq!(d.util(), 100.0);
        d.msec = 0;
        assert_eq!(d.util(), 0.0);
    }

    /// fio's rule: a missing file is taken from its own folder only; a
    /// folder not there yet (the job will create it) is an error, and no
    /// folder above is tried.
    #[test]
    fn a_file_in_a_folder_not_made_yet_has_no_disk() {
        let tmp = std::env::temp_dir();
        let missing = tmp.join(format!("rfio-disk-{}/sub/0", std::process::id()));
        let e = job_file_disk(&missing).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
        let mut w = DiskWatch::default();
        assert_eq!(w.add_file(&missing).unwrap_err().kind(), e.kind());
        assert!(w.finish().is_empty());
        // A missing file in a folder that exists: the folder's device,
        // as the old lookup found it.
        let here = tmp.join(format!("rfio-disk-{}.0", std::process::id()));
        assert_eq!(job_file_disk(&here).unwrap(), device_dir(&tmp));
        assert_eq!(
            job_file_disk(Path::new("name")).unwrap(),
            device_dir(Path::new("."))
        );
    }

    #[test]
    fn watching_a_temp_file_does_not_fail() {
        let w = DiskWatch::start([std::env::temp_dir().as_path()]);
        let u = w.finish();
        assert_eq!(u.len(), w.disks.len());
    }
}
