//! The options the executor reads, resolved from a job with fio's defaults
//! and fix-ups (`init.c` `fixup_options`). Read once per job, before any
//! thread starts; the I/O loop only sees plain fields.

use super::clock::Source;
use crate::options::Value;
use crate::plan::spec::JobSpec;

/// `fallocate=` for laying out files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallocate {
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
pub enum ExitWhat {
    Group,
    Stonewall,
    All,
}

/// `continue_on_error` bits, fio's `enum error_type_bit`.
pub const ERR_READ: u32 = 1 << 0;
pub const ERR_WRITE: u32 = 1 << 1;
pub const ERR_VERIFY: u32 = 1 << 2;

/// fio's default non-fatal errors for `continue_on_error` (`__NON_FATAL_ERR`).
const NON_FATAL: &[i32] = &[libc::EIO, libc::EILSEQ];

/// Everything the executor reads beyond the typed fields of [`JobSpec`].
#[derive(Debug, Clone)]
pub struct Settings {
    pub iodepth: u32,
    /// `iodepth_batch_submit`: commit once this many are queued.
    pub batch_submit: u32,
    pub batch_complete_min: u32,
    pub batch_complete_max: u32,
    pub iodepth_low: u32,
    /// `fsync=N`, `fdatasync=N`: a sync after every N writes (0: never).
    pub fsync_blocks: u64,
    pub fdatasync_blocks: u64,
    pub end_fsync: bool,
    pub fsync_on_close: bool,
    pub invalidate: bool,
    /// `fadvise_hint`: the `posix_fadvise` advice given when a file is
    /// opened (`None`: none).
    pub fadvise: Option<i32>,
    pub unlink: bool,
    pub unlink_each_loop: bool,
    pub overwrite: bool,
    pub create_on_open: bool,
    pub create_fsync: bool,
    pub pre_read: bool,
    pub fallocate: Fallocate,
    pub allow_mounted_write: bool,
    /// `sync=sync` (`O_SYNC`) and `sync=dsync` (`O_DSYNC`).
    pub o_sync: bool,
    pub o_dsync: bool,
    pub continue_on_error: u32,
    /// Per error type (read, write, verify): errnos that do not stop the job
    /// when `continue_on_error` covers the type.
    pub ignore_error: [Vec<i32>; 3],
    pub exitall: bool,
    pub exitall_on_error: bool,
    pub exit_what: ExitWhat,
    /// `clocksource`.
    pub clock: Source,
}

impl Settings {
    /// Resolve `spec`'s options.
    pub fn of(spec: &JobSpec) -> Result<Settings, String> {
        let o = Opts(spec);
        let iodepth = spec.iodepth.max(1);
        // fio's fixup_options: batch 0 or above the depth means the depth;
        // the low-water mark defaults to the depth; max >= min.
        let mut batch_submit = o.int("iodepth_batch").unwrap_or(1) as u32;
        if batch_submit == 0 || batch_submit > iodepth {
            batch_submit = iodepth;
        }
        let batch_complete_min = spec.engine.common.batch_complete_min;
        let mut batch_complete_max = o.int("iodepth_batch_complete_max").unwrap_or(0) as u32;
        if batch_complete_min > batch_complete_max {
            batch_complete_max = batch_complete_min;
        }
        let mut iodepth_low = o.int("iodepth_low").unwrap_or(0) as u32;
        if iodepth_low == 0 || iodepth_low > iodepth {
            iodepth_low = iodepth;
        }
        let fallocate = match o.choice("fallocate").as_deref() {
            None | Some("native") => Fallocate::Native,
            Some("none") | Some("0") => Fallocate::None,
            Some("posix") | Some("1") => Fallocate::Posix,
            Some("keep") => Fallocate::Keep,
            Some("truncate") => Fallocate::Truncate,
            Some(other) => return Err(format!("fallocate={other}: unknown mode")),
        };
        let sync = o.choice("sync");
        let continue_on_error = match o.choice("continue_on_error").as_deref() {
            None | Some("none") | Some("0") => 0,
            Some("read") => ERR_READ,
            Some("write") => ERR_WRITE,
            Some("io") => ERR_READ | ERR_WRITE,
            Some("verify") => ERR_VERIFY,
            Some("all") | Some("1") => ERR_READ | ERR_WRITE | ERR_VERIFY,
            Some(other) => return Err(format!("continue_on_error={other}: unknown value")),
        };
        let ignore_error = match o.text("ignore_error") {
            Some(t) => parse_ignore_error(&t)?,
            None => [NON_FATAL.to_vec(), NON_FATAL.to_vec(), NON_FATAL.to_vec()],
        };
        let exit_what = match o.choice("exit_what").as_deref() {
            Some("stonewall") => ExitWhat::Stonewall,
            Some("all") => ExitWhat::All,
            _ => ExitWhat::Group,
        };
        let fadvise = match o.choice("fadvise_hint").as_deref() {
            Some("0") => None,
            Some("random") => Some(libc::POSIX_FADV_RANDOM),
            Some("sequential") => Some(libc::POSIX_FADV_SEQUENTIAL),
            _ if spec.pattern.random => Some(libc::POSIX_FADV_RANDOM),
            _ => Some(libc::POSIX_FADV_SEQUENTIAL),
        };
        let clock = match o.choice("clocksource").as_deref() {
            Some("cpu") => Source::Cpu,
            Some(_) => Source::System,
            None => Source::Auto,
        };
        Ok(Settings {
            iodepth,
            batch_submit,
            batch_complete_min,
            batch_complete_max,
            iodepth_low,
            fsync_blocks: o.int("fsync").unwrap_or(0).max(0) as u64,
            fdatasync_blocks: o.int("fdatasync").unwrap_or(0).max(0) as u64,
            end_fsync: o.flag("end_fsync").unwrap_or(false),
            fsync_on_close: o.flag("fsync_on_close").unwrap_or(false),
            invalidate: o.flag("invalidate").unwrap_or(true),
            fadvise,
            // --readonly: refused when the plan is built; never here either.
            unlink: !spec.readonly && o.flag("unlink").unwrap_or(false),
            unlink_each_loop: !spec.readonly && o.flag("unlink_each_loop").unwrap_or(false),
            overwrite: o.flag("overwrite").unwrap_or(false),
            // Under --readonly a missing file is never created: it goes to
            // the layout, which refuses it.
            create_on_open: !spec.readonly && o.flag("create_on_open").unwrap_or(false),
            create_fsync: o.flag("create_fsync").unwrap_or(true),
            pre_read: o.flag("pre_read").unwrap_or(false),
            fallocate,
            allow_mounted_write: o.flag("allow_mounted_write").unwrap_or(false),
            o_sync: matches!(sync.as_deref(), Some("sync") | Some("1")),
            o_dsync: sync.as_deref() == Some("dsync"),
            continue_on_error,
            ignore_error,
            exitall: o.flag("exitall").unwrap_or(false),
            exitall_on_error: o.flag("exitall_on_error").unwrap_or(false),
            exit_what,
            clock,
        })
    }

    /// Whether error `errno` of an I/O of error type `bit` lets the job go
    /// on (fio's `td_non_fatal_error`).
    pub fn non_fatal(&self, bit: u32, errno: i32) -> bool {
        if self.continue_on_error & bit == 0 {
            return false;
        }
        let idx = bit.trailing_zeros() as usize;
        self.ignore_error[idx].contains(&errno)
    }
}

/// `ignore_error=READ_LIST,WRITE_LIST,VERIFY_LIST`, each `:`-separated
/// errno numbers or names; an empty list keeps fio's default.
fn parse_ignore_error(text: &str) -> Result<[Vec<i32>; 3], String> {
    let mut out = [NON_FATAL.to_vec(), NON_FATAL.to_vec(), NON_FATAL.to_vec()];
    for (i, list) in text.split(',').enumerate().take(3) {
        if list.trim().is_empty() {
            continue;
        }
        let mut v = Vec::new();
        for item in list.split(':').map(str::trim).filter(|s| !s.is_empty()) {
            let n = match item.parse::<i32>() {
                Ok(n) => n,
                Err(_) => errno_by_name(item)
                    .ok_or_else(|| format!("ignore_error: unknown error {item}"))?,
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

/// Typed reads of a job's options.
struct Opts<'a>(&'a JobSpec);

impl Opts<'_> {
    fn int(&self, name: &str) -> Option<i64> {
        match self.0.opt(name)? {
            Value::Int(n) => Some(*n),
            Value::Bytes(n) => i64::try_from(*n).ok(),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    fn flag(&self, name: &str) -> Option<bool> {
        match self.0.opt(name)? {
            Value::Bool(b) => Some(*b),
            Value::Int(n) => Some(*n != 0),
            _ => None,
        }
    }

    fn text(&self, name: &str) -> Option<String> {
        match self.0.opt(name)? {
            Value::Text(t) => Some(t.clone()),
            _ => None,
        }
    }

    /// The `posvals` value chosen for a choice option.
    fn choice(&self, name: &str) -> Option<String> {
        let s = self.0.options.get(name)?;
        match &s.value {
            Value::Choice { index, .. } => s.def.posvals.get(*index).map(|p| p.value.to_string()),
            Value::Text(t) => Some(t.clone()),
            Value::Bool(b) => Some(if *b { "1" } else { "0" }.to_string()),
            Value::Int(n) => Some(n.to_string()),
            _ => None,
        }
    }
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
        assert!(parse_ignore_error("EWHAT").is_err());
    }
}
