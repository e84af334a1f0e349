//! `ioscheduler=`: switch the device under each of the job's files to the
//! named I/O scheduler before the job runs (fio's `switch_ioscheduler` and
//! `set_ioscheduler`, `backend.c`).
//!
//! As fio: only regular files and block devices whose device is known
//! (with `disk_util`, fio's default; fio finds a file's device through its
//! disk statistics) and only for engines that do I/O to files. The
//! device's `queue/scheduler` is written with the name and read back:
//! a device without the file ("os or kernel doesn't support IO scheduler
//! switching") or with only `none` ("io scheduler is not tunable") is
//! passed with fio's line; a device that did not take the name fails the
//! job (`iosched_switch`, `EINVAL`). Nothing is written for a device the
//! job has no file on.

use std::io::{Read, Seek, Write};
use std::path::Path;

use super::errno::verror;
use super::job::Prepared;
use super::log::Log;

impl Prepared<'_> {
    /// Switch the scheduler of the device under every file; the job's
    /// error (errno and fio's text) when a switch failed.
    pub(super) fn switch_ioscheduler(&self, log: &dyn Log) -> Result<(), (i32, String)> {
        let Some(name) = self.spec.file.ioscheduler.as_deref() else {
            return Ok(());
        };
        if !self.caps.needs_files || !self.spec.io.disk_util {
            return Ok(());
        }
        for f in &self.files {
            use std::os::unix::fs::FileTypeExt;
            let target = match std::fs::metadata(&f.path) {
                Ok(m) => m.file_type().is_file() || m.file_type().is_block_device(),
                // Not there yet (create_serialize=0): a file to be.
                Err(_) => true,
            };
            if !target {
                continue;
            }
            let Some(dir) = crate::stats::disk::device_dir(&f.path) else {
                continue;
            };
            set_scheduler(&dir.join("queue/scheduler"), name, log)?;
        }
        Ok(())
    }
}

/// Write `name` to the scheduler file `path` and check that it took.
fn set_scheduler(path: &Path, name: &str, log: &dyn Log) -> Result<(), (i32, String)> {
    let fail = |e: std::io::Error, func: &str| {
        let errno = e.raw_os_error().unwrap_or(libc::EIO);
        (errno, verror("backend.c:1405", func, errno))
    };
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            log.err("fio: os or kernel doesn't support IO scheduler switching\n");
            return Ok(());
        }
        Err(e) => return Err(fail(e, "fopen iosched")),
    };
    // fio's buffered fwrite: an error of the write itself (an unknown
    // name) shows only in what is read back.
    let _ = file.write_all(name.as_bytes());
    let mut now = String::new();
    if let Err(e) = file
        .rewind()
        .and_then(|()| file.read_to_string(&mut now).map(|_| ()))
    {
        return Err(fail(e, "fread"));
    }
    let first = now.split('\n').next().unwrap_or("");
    if first == "none" {
        log.err("fio: io scheduler is not tunable\n");
        return Ok(());
    }
    if !first.contains(&format!("[{name}]")) {
        log.err(&format!("fio: unable to set io scheduler to {name}\n"));
        return Err((
            libc::EINVAL,
            verror("backend.c:1450", "iosched_switch", libc::EINVAL),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Lines(std::sync::Mutex<String>);

    impl Log for Lines {
        fn info(&self, _: &str) {}
        fn err(&self, text: &str) {
            self.0.lock().unwrap().push_str(text);
        }
        fn layout(&self, _: &str) {}
    }

    fn file(tag: &str, text: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("rfio-iosched-{tag}-{}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    /// A plain file stands in for sysfs: the name overwrites its start,
    /// and what is there is read back.
    #[test]
    fn the_name_must_read_back_in_brackets() {
        let log = Lines(Default::default());
        let p = file("ok", "none [bfq] kyber\n");
        assert_eq!(set_scheduler(&p, "bfq", &log), Ok(()));
        let p2 = file("bad", "none [mq-deadline] kyber\n");
        let e = set_scheduler(&p2, "kyber", &log).unwrap_err();
        assert_eq!(e.0, libc::EINVAL);
        assert_eq!(
            e.1,
            "file:backend.c:1450, func=iosched_switch, error=Invalid argument"
        );
        assert!(log
            .0
            .lock()
            .unwrap()
            .contains("unable to set io scheduler to kyber\n"));
        let p3 = file("none", "");
        assert_eq!(set_scheduler(&p3, "none", &log), Ok(()));
        assert!(log
            .0
            .lock()
            .unwrap()
            .contains("io scheduler is not tunable\n"));
        let missing = std::env::temp_dir().join("rfio-iosched-missing/scheduler");
        assert_eq!(set_scheduler(&missing, "bfq", &log), Ok(()));
        assert!(log
            .0
            .lock()
            .unwrap()
            .contains("doesn't support IO scheduler switching"));
        for p in [p, p2, p3] {
            std::fs::remove_file(p).unwrap();
        }
    }
}
