//! Why a job's logs could not be written: one error for the layer, kept
//! (the first of a job's) and reported when the job finishes.

use std::io;

#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// A log's file could not be written or flushed (`path` as shown).
    #[error("cannot write the log {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
    /// The same, for a log whose file the configuration does not name.
    #[error("cannot write the {kind} log: {source}")]
    WriteKind {
        kind: &'static str,
        #[source]
        source: io::Error,
    },
    /// The compression thread could not be pinned to `log_compression_cpus`
    /// (`errno`, as `sched_setaffinity` set it).
    #[error("gz: failed to set CPU affinity")]
    Affinity { errno: i32 },
    /// The compression thread panicked.
    #[error("fio: log compression thread failed")]
    CompressionThread,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_failure_keeps_its_path_and_errno() {
        let e = Error::Write {
            path: "bw_bw.1.log".into(),
            source: io::Error::from_raw_os_error(libc::ENOSPC),
        };
        assert_eq!(
            e.to_string(),
            format!(
                "cannot write the log bw_bw.1.log: {}",
                io::Error::from_raw_os_error(libc::ENOSPC)
            )
        );
        match &e {
            Error::Write { path, source } => {
                assert_eq!(path, "bw_bw.1.log");
                assert_eq!(source.raw_os_error(), Some(libc::ENOSPC));
            }
            other => panic!("not a write error: {other:?}"),
        }
        let source = std::error::Error::source(&e).map(|s| s.to_string());
        assert_eq!(
            source,
            Some(io::Error::from_raw_os_error(libc::ENOSPC).to_string())
        );
        assert_eq!(
            Error::Affinity {
                errno: libc::EINVAL
            }
            .to_string(),
            "gz: failed to set CPU affinity"
        );
    }
}
