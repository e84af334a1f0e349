//! The files a client run reads and writes: job files (sent with `${VAR}`
//! expanded here, as fio's client does), the logs a server sends (IOLOG,
//! written as `NAME.HOST` in the working directory) and the verify state a
//! server may ask for (SENDFILE).
//!
//! fio's client trusts its servers: it writes an IOLOG wherever its name
//! points (`../x`, `/etc/x`) and sends back any file a SENDFILE names.
//! rfio writes a log only under its base name in the working directory,
//! and sends only a verify-state file of the working directory.

use crate::diag::quote;
use std::io::Write;
use std::path::Path;

use crate::jobfile::subst::expand_env;
use crate::remote::Error;
use crate::wire::stats::iolog::{text_lines, Iolog, LOG_TYPE_HIST, STORE_COMPRESSED};

/// A job file's text as it is sent: every line with `${VAR}` expanded
/// from the environment (comments too; an unset variable is empty). The
/// error is fio's message.
pub(crate) fn job_text(path: &Path) -> Result<Vec<u8>, Error> {
    let raw = std::fs::read(path).map_err(|source| Error::JobFile {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(expand_lines(&raw, |v| std::env::var(v).ok()))
}

/// `${VAR}` expanded in each line of `text` (a line that is not UTF-8 is
/// sent as it is).
pub(crate) fn expand_lines(text: &[u8], env: impl Fn(&str) -> Option<String>) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split_inclusive(|&b| b == b'\n') {
        match std::str::from_utf8(line) {
            Ok(s) => out.extend_from_slice(expand_env(s, &env).as_bytes()),
            Err(_) => out.extend_from_slice(line),
        }
    }
    out
}

/// The file an IOLOG named `name` from `host` is written to: the name's
/// last component, a dot, the host (with `/` as `_`: a socket path).
/// `None` for a name without a usable last component.
pub(crate) fn iolog_path(name: &str, host: &str) -> Option<String> {
    let base = name.rsplit('/').next()?;
    if base.is_empty() || base == "." || base == ".." {
        return None;
    }
    Some(format!("{base}.{}", host.replace('/', "_")))
}

/// Write `log` from `host` in the working directory; the file written.
pub(crate) fn write_iolog(log: &Iolog, host: &str) -> Result<String, Error> {
    let path = iolog_path(&log.name, host).ok_or_else(|| Error::BadLogName {
        name: log.name.clone(),
        host: host.to_string(),
    })?;
    let shown = quote(&path, 200);
    let bytes = if log.compressed == STORE_COMPRESSED {
        log.stored.clone()
    } else if log.log_type == LOG_TYPE_HIST {
        hist_lines(log).into_bytes()
    } else {
        text_lines(&log.samples).into_bytes()
    };
    let mut f = std::fs::File::create(&path).map_err(|source| Error::LogOpen {
        shown: shown.clone(),
        source,
    })?;
    f.write_all(&bytes)
        .map_err(|source| Error::LogWrite { shown, source })?;
    Ok(path)
}

/// fio's `client_flush_hist_samples`: `time, ddir, bs, ` then the bucket
/// counts summed `2^coarseness` at a time.
fn hist_lines(log: &Iolog) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let stride = 1usize << log.hist_coarseness.min(10);
    for s in &log.samples {
        let _ = write!(out, "{}, {}, {}, ", s.time, s.dir(), s.bs);
        let n = s.hist.len();
        let sums: Vec<String> = (0..n)
            .step_by(stride)
            .map(|j| {
                s.hist[j..(j + stride).min(n)]
                    .iter()
                    .fold(0u64, |a, b| a.wrapping_add(*b))
                    .to_string()
            })
            .collect();
        out.push_str(&sums.join(", "));
        out.push('\n');
    }
    out
}

/// errno values of SENDFILE replies.
const EACCES: u32 = 13;
const EFBIG: u32 = 27;
/// The largest verify state sent.
const MAX_STATE: u64 = 64 << 20;

/// Why a SENDFILE is refused: each text is what the client prints,
/// [`SendError::errno`] what it answers with.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SendError {
    /// Not a file the client sends (`why`).
    #[error("fio: refusing to send \"{}\": {why}", quote(path, 200))]
    Refused { path: String, why: &'static str },
    #[error("fio: refusing to send {}: too large", quote(path, 200))]
    TooLarge { path: String },
    /// The file could not be looked at or read (`errno`: the answer's).
    #[error("fio: send {}: {}", quote(path, 200), crate::diag::io_reason(source))]
    Io {
        path: String,
        errno: u32,
        #[source]
        source: std::io::Error,
    },
}

impl SendError {
    /// The errno the client answers with.
    pub(crate) fn errno(&self) -> u32 {
        match self {
            SendError::Refused { .. } => EACCES,
            SendError::TooLarge { .. } => EFBIG,
            SendError::Io { errno, .. } => *errno,
        }
    }
}

/// What a SENDFILE for `path` is answered with: the file's bytes, or why
/// not. Only `NAME-verify.state` in the working directory (no directory
/// part, not hidden, a regular file, not a link) is sent.
pub(crate) fn sendfile(path: &str) -> Result<Vec<u8>, SendError> {
    let refuse = |why: &'static str| SendError::Refused {
        path: path.to_string(),
        why,
    };
    // `errno` when the error has none.
    let io = |errno: u32| {
        move |source: std::io::Error| SendError::Io {
            path: path.to_string(),
            errno: source.raw_os_error().map_or(errno, |e| e as u32),
            source,
        }
    };
    if path.contains('/') || path.starts_with('.') || !path.ends_with("-verify.state") {
        return Err(refuse(
            "only a verify state file of the working directory is sent",
        ));
    }
    let meta = std::fs::symlink_metadata(path).map_err(io(2))?;
    if !meta.is_file() {
        return Err(refuse("not a regular file"));
    }
    if meta.len() > MAX_STATE {
        return Err(SendError::TooLarge {
            path: path.to_string(),
        });
    }
    std::fs::read(path).map_err(io(5))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_expand_in_every_line_but_include_stays() {
        let env = |v: &str| (v == "SZ").then(|| "4m".to_string());
        let text = b"[j]\nsize=${SZ}\n; a comment ${SZ} ${NOPE}\ninclude ${SZ}.fio\n\xff${SZ}\n";
        assert_eq!(
            expand_lines(text, env),
            b"[j]\nsize=4m\n; a comment 4m \ninclude 4m.fio\n\xff${SZ}\n".to_vec()
        );
    }

    #[test]
    fn log_names_stay_in_the_working_directory() {
        assert_eq!(
            iolog_path("bwl_bw.1.log", "127.0.0.1").as_deref(),
            Some("bwl_bw.1.log.127.0.0.1")
        );
        assert_eq!(iolog_path("../../x", "h").as_deref(), Some("x.h"));
        assert_eq!(
            iolog_path("/etc/passwd", "/tmp/s.sock").as_deref(),
            Some("passwd._tmp_s.sock")
        );
        assert_eq!(iolog_path("a/..", "h"), None);
        assert_eq!(iolog_path("x/", "h"), None);
        assert_eq!(iolog_path("", "h"), None);
    }

    #[test]
    fn only_verify_state_files_are_sent() {
        let errno = |p: &str| sendfile(p).unwrap_err().errno();
        assert_eq!(errno("/etc/passwd"), EACCES);
        assert_eq!(errno("../x-verify.state"), EACCES);
        assert_eq!(errno(".x-verify.state"), EACCES);
        assert_eq!(errno("passwd"), EACCES);
        assert_eq!(
            sendfile("passwd").unwrap_err().to_string(),
            "fio: refusing to send \"passwd\": only a verify state file of the working directory is sent"
        );
        // Missing: its errno (ENOENT).
        let missing = sendfile("no-such-job-0-verify.state").unwrap_err();
        assert_eq!(missing.errno(), 2);
        assert!(
            matches!(&missing, SendError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
            "{missing:?}"
        );
        assert!(
            missing
                .to_string()
                .starts_with("fio: send no-such-job-0-verify.state: "),
            "{missing}"
        );
    }
}
