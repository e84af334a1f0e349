//! How a job issues, syncs and lays out its I/O, and which errors it
//! survives: the queue depth and batching, `fsync`/`fdatasync`, the file
//! handling options, `continue_on_error`/`ignore_error`, `exitall`, and
//! `clocksource`, with fio's defaults and fix-ups (`init.c`
//! `fixup_options`).

use super::read::Opts;
use crate::plan::error::Error;

/// `fallocate=` for laying out files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fallocate {
    None,
    /// fio's default: `fallocate(fd, 0, …)`, silently skipped where the
    /// filesystem cannot.
    Native,
    Posix,
    Keep,
    Truncate,
}

/// `exit_what=`: which jobs `exitall` stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitWhat {
    Group,
    Stonewall,
    All,
}

/// `clocksource=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClockSource {
    /// fio's default: the CPU clock where it is reliable, else the system
    /// clock.
    Auto,
    /// `clock_gettime` / `gettimeofday`.
    System,
    /// `cpu`: the TSC when it is usable (else the system clock, as fio
    /// falls back).
    Cpu,
}

/// `continue_on_error` bits, fio's `enum error_type_bit`.
pub(crate) const ERR_READ: u32 = 1 << 0;
pub(crate) const ERR_WRITE: u32 = 1 << 1;
pub(crate) const ERR_VERIFY: u32 = 1 << 2;

/// fio's default non-fatal errors for `continue_on_error` (`__NON_FATAL_ERR`).
const NON_FATAL: &[i32] = &[libc::EIO, libc::EILSEQ];

/// The I/O options of a job (`JobSpec::io`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IoOptions {
    /// `iodepth`, at least 1.
    pub(crate) iodepth: u32,
    /// `iodepth_batch_submit`: commit once this many are queued.
    pub(crate) batch_submit: u32,
    pub(crate) batch_complete_min: u32,
    pub(crate) batch_complete_max: u32,
    pub(crate) iodepth_low: u32,
    /// `fsync=N`, `fdatasync=N`: a sync after every N writes (0: never).
    pub(crate) fsync_blocks: u64,
    pub(crate) fdatasync_blocks: u64,
    /// `fsync=N` and its kin follow writes only: a sync is due right
    /// after a write ([`Change::SyncAfterWritesOnly`], fio 3.38; set by
    /// the job's resolver).
    ///
    /// [`Change::SyncAfterWritesOnly`]: crate::release::Change::SyncAfterWritesOnly
    pub(crate) sync_after_writes_only: bool,
    pub(crate) end_fsync: bool,
    /// `end_syncfs` (fio 3.42): at the end of a writing job, syncfs(2) of
    /// each file system holding its files, instead of `end_fsync`'s and
    /// `fsync_on_close`'s fsync of each file.
    pub(crate) end_syncfs: bool,
    pub(crate) fsync_on_close: bool,
    pub(crate) invalidate: bool,
    /// `fadvise_hint`: the `posix_fadvise` advice given when a file is
    /// opened (`None`: none).
    pub(crate) fadvise: Option<i32>,
    /// `unlink`, `unlink_each_loop`: never under `--readonly`.
    pub(crate) unlink: bool,
    pub(crate) unlink_each_loop: bool,
    pub(crate) overwrite: bool,
    /// `create_on_open`: never under `--readonly` (a missing file then
    /// goes to the layout, which refuses it).
    pub(crate) create_on_open: bool,
    pub(crate) create_fsync: bool,
    pub(crate) pre_read: bool,
    pub(crate) fallocate: Fallocate,
    /// `fill_device`: write until the device is full.
    pub(crate) fill_device: bool,
    pub(crate) allow_mounted_write: bool,
    /// `sync=sync` (`O_SYNC`) and `sync=dsync` (`O_DSYNC`).
    pub(crate) o_sync: bool,
    pub(crate) o_dsync: bool,
    pub(crate) continue_on_error: u32,
    /// Per error type (read, write, verify): errnos that do not stop the job
    /// when `continue_on_error` covers the type.
    pub(crate) ignore_error: [Vec<i32>; 3],
    pub(crate) exitall: bool,
    pub(crate) exitall_on_error: bool,
    pub(crate) exit_what: ExitWhat,
    /// `disk_util` (on by default): watch the devices under the files.
    pub(crate) disk_util: bool,
    pub(crate) clock: ClockSource,
    /// The job verifies (`verify` or `verify_pattern`) with a
    /// `verify_backlog`: a writing pass also takes its verify reads (fio's
    /// `do_io`).
    pub(crate) backlog_verifies: bool,
}

impl IoOptions {
    /// Whether error `errno` of an I/O of error type `bit` lets the job go
    /// on (fio's `td_non_fatal_error`).
    pub(crate) fn non_fatal(&self, bit: u32, errno: i32) -> bool {
        if self.continue_on_error & bit == 0 {
            return false;
        }
        let idx = bit.trailing_zeros() as usize;
        self.ignore_error[idx].contains(&errno)
    }
}

/// Resolve the I/O options; problems go to `bad`.
pub(super) fn resolve(
    o: Opts<'_>,
    random: bool,
    readonly: bool,
    bad: &mut Vec<String>,
) -> IoOptions {
    let iodepth = o.int_or_default("iodepth").max(1) as u32;
    // fio's fixup_options: batch 0 or above the depth means the depth;
    // the low-water mark defaults to the depth; max >= min.
    let mut batch_submit = o.int_or_default("iodepth_batch") as u32;
    if batch_submit == 0 || batch_submit > iodepth {
        batch_submit = iodepth;
    }
    let batch_complete_min = o.int_or_default("iodepth_batch_complete_min") as u32;
    let mut batch_complete_max = o.int_or_zero("iodepth_batch_complete_max") as u32;
    if batch_complete_min > batch_complete_max {
        batch_complete_max = batch_complete_min;
    }
    let mut iodepth_low = o.int_or_zero("iodepth_low") as u32;
    if iodepth_low == 0 || iodepth_low > iodepth {
        iodepth_low = iodepth;
    }
    let fallocate = match o.choice("fallocate") {
        None | Some("native") => Fallocate::Native,
        Some("none") | Some("0") => Fallocate::None,
        Some("posix") | Some("1") => Fallocate::Posix,
        Some("keep") => Fallocate::Keep,
        Some("truncate") => Fallocate::Truncate,
        Some(other) => {
            bad.push(format!("fallocate={other}: unknown mode"));
            Fallocate::Native
        }
    };
    let sync = o.choice("sync");
    let continue_on_error = match o.choice("continue_on_error") {
        None | Some("none") | Some("0") => 0,
        Some("read") => ERR_READ,
        Some("write") => ERR_WRITE,
        Some("io") => ERR_READ | ERR_WRITE,
        Some("verify") => ERR_VERIFY,
        Some("all") | Some("1") => ERR_READ | ERR_WRITE | ERR_VERIFY,
        Some(other) => {
            bad.push(format!("continue_on_error={other}: unknown value"));
            0
        }
    };
    let default_errors = || [NON_FATAL.to_vec(), NON_FATAL.to_vec(), NON_FATAL.to_vec()];
    let ignore_error = match o.text("ignore_error") {
        Some(t) => parse_ignore_error(t).unwrap_or_else(|e| {
            bad.push(e.to_string());
            default_errors()
        }),
        None => default_errors(),
    };
    let exit_what = match o.choice("exit_what") {
        Some("stonewall") => ExitWhat::Stonewall,
        Some("all") => ExitWhat::All,
        _ => ExitWhat::Group,
    };
    let fadvise = match o.choice("fadvise_hint") {
        Some("0") => None,
        Some("random") => Some(libc::POSIX_FADV_RANDOM),
        Some("sequential") => Some(libc::POSIX_FADV_SEQUENTIAL),
        _ if random => Some(libc::POSIX_FADV_RANDOM),
        _ => Some(libc::POSIX_FADV_SEQUENTIAL),
    };
    let clock = match o.choice("clocksource") {
        Some("cpu") => ClockSource::Cpu,
        Some(_) => ClockSource::System,
        None => ClockSource::Auto,
    };
    let verifies = !matches!(o.choice("verify"), None | Some("0"))
        || o.text("verify_pattern").is_some_and(|t| !t.is_empty());
    IoOptions {
        iodepth,
        batch_submit,
        batch_complete_min,
        batch_complete_max,
        iodepth_low,
        fsync_blocks: o.int_or_default("fsync").max(0) as u64,
        fdatasync_blocks: o.int_or_default("fdatasync").max(0) as u64,
        sync_after_writes_only: false,
        end_fsync: o.flag_or_default("end_fsync"),
        end_syncfs: o.flag_or_default("end_syncfs"),
        fsync_on_close: o.flag_or_default("fsync_on_close"),
        invalidate: o.flag_or_default("invalidate"),
        fadvise,
        // --readonly: refused when the plan is built; never here either.
        unlink: !readonly && o.flag_or_default("unlink"),
        unlink_each_loop: !readonly && o.flag_or_default("unlink_each_loop"),
        overwrite: o.flag_or_default("overwrite"),
        create_on_open: !readonly && o.flag_or_default("create_on_open"),
        create_fsync: o.flag_or_default("create_fsync"),
        pre_read: o.flag_or_default("pre_read"),
        fallocate,
        fill_device: o.flag_or_default("fill_device"),
        allow_mounted_write: o.flag_or_default("allow_mounted_write"),
        o_sync: matches!(sync, Some("sync") | Some("1")),
        o_dsync: sync == Some("dsync"),
        continue_on_error,
        ignore_error,
        exitall: o.is("exitall"),
        exitall_on_error: o.is("exitall_on_error"),
        exit_what,
        disk_util: o.flag_or_default("disk_util")
            && !o
                .text("ioengine")
                .and_then(crate::ioengine::lookup)
                .is_some_and(|d| d.flags.no_disk_util),
        clock,
        backlog_verifies: verifies && o.int("verify_backlog").is_some_and(|n| n > 0),
    }
}

/// `ignore_error=READ_LIST,WRITE_LIST,VERIFY_LIST`, each `:`-separated
/// errno numbers or names; an empty list keeps fio's default.
fn parse_ignore_error(text: &str) -> Result<[Vec<i32>; 3], Error> {
    let mut out = [NON_FATAL.to_vec(), NON_FATAL.to_vec(), NON_FATAL.to_vec()];
    for (i, list) in text.split(',').enumerate().take(3) {
        if list.trim().is_empty() {
            continue;
        }
        let mut v = Vec::new();
        for item in list.split(':').map(str::trim).filter(|s| !s.is_empty()) {
            let n = match item.parse::<i32>() {
                Ok(n) => n,
                Err(_) => errno_by_name(item).ok_or_else(|| Error::UnknownErrno {
                    name: item.to_string(),
                })?,
            };
            v.push(n);
        }
        out[i] = v;
    }
    Ok(out)
}

/// The errno names fio's `str_ignore_error_cb` knows (the E* constants).
fn errno_by_name(name: &str) -> Option<i32> {
    let n = name.to_ascii_uppercase();
    Some(match n.as_str() {
        "EPERM" => libc::EPERM,
        "ENOENT" => libc::ENOENT,
        "EINTR" => libc::EINTR,
        "EIO" => libc::EIO,
        "ENXIO" => libc::ENXIO,
        "EBADF" => libc::EBADF,
        "EAGAIN" => libc::EAGAIN,
        "ENOMEM" => libc::ENOMEM,
        "EACCES" => libc::EACCES,
        "EFAULT" => libc::EFAULT,
        "EBUSY" => libc::EBUSY,
        "EEXIST" => libc::EEXIST,
        "ENODEV" => libc::ENODEV,
        "EINVAL" => libc::EINVAL,
        "EFBIG" => libc::EFBIG,
        "ENOSPC" => libc::ENOSPC,
        "ESPIPE" => libc::ESPIPE,
        "EROFS" => libc::EROFS,
        "EPIPE" => libc::EPIPE,
        "EDQUOT" => libc::EDQUOT,
        "EILSEQ" => libc::EILSEQ,
        "ENODATA" => libc::ENODATA,
        "ETIMEDOUT" => libc::ETIMEDOUT,
        "ENOTSUP" | "EOPNOTSUPP" => libc::EOPNOTSUPP,
        "EREMOTEIO" => libc::EREMOTEIO,
        "ENOTTY" => libc::ENOTTY,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_error_lists() {
        let l = parse_ignore_error("EIO:5,ENOSPC").unwrap();
        assert_eq!(l[0], vec![libc::EIO, 5]);
        assert_eq!(l[1], vec![libc::ENOSPC]);
        assert_eq!(l[2], NON_FATAL.to_vec());
        let e = parse_ignore_error("EIO:EWHAT").unwrap_err();
        assert!(
            matches!(&e, Error::UnknownErrno { name } if name == "EWHAT"),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "ignore_error: unknown error EWHAT");
    }

    #[test]
    fn depth_and_batches_as_fio_fixes_them_up() {
        let job = crate::plan::testing::job(&[
            "--name=a",
            "--size=1m",
            "--iodepth=8",
            "--iodepth_batch=0",
            "--iodepth_batch_complete_min=4",
            "--iodepth_low=16",
        ]);
        let io = &job.io;
        assert_eq!((io.iodepth, io.batch_submit, io.iodepth_low), (8, 8, 8));
        assert_eq!((io.batch_complete_min, io.batch_complete_max), (4, 4));
        let ro = crate::plan::testing::job(&["--readonly", "--name=a", "--size=1m"]);
        assert!(!ro.io.unlink && !ro.io.create_on_open);
    }
}
