//! Why an engine's setup failed (fio's engine `.setup`, before the job
//! starts): each text is what fio prints, whole lines. A failure with an
//! errno keeps it in its source (`NbdError::errno`, `io::Error`).

use std::io;
use std::path::PathBuf;

use super::nbd::uri::NbdError;

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// nbd: no `uri=` (fio's `nbd_setup`).
    #[error("fio: nbd: uri parameter was not specified\n")]
    NbdNoUri,
    /// nbd: the server could not be reached or refused the handshake
    /// (libnbd's words and errno).
    #[error("fio: nbd_connect_uri: nbd_connect_uri: {source}\n")]
    NbdConnect {
        #[source]
        source: NbdError,
    },
    /// dev-dax: the device's size in sysfs (`path`) could not be read.
    #[error("{}: failed to read {}: {source}\n", device.display(), path.display())]
    DevdaxSizeUnread {
        device: PathBuf,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// dev-dax: the size in sysfs is no number (`text`, trimmed).
    #[error("{}: bad size in sysfs: {text}\n", device.display())]
    DevdaxBadSize { device: PathBuf, text: String },
    /// dirstat, dirdelete: a job's file could not be made a directory
    /// (fio's `setup_dirs` line, with the errno's number).
    #[error("create directory {} failed with {errno}\n", path.display())]
    MakeDir { path: PathBuf, errno: i32 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setup_failure_keeps_its_errno_and_fios_words() {
        let e = SetupError::NbdConnect {
            source: NbdError::new("connect: /tmp/sock", libc::ECONNREFUSED),
        };
        assert!(matches!(&e, SetupError::NbdConnect { source }
            if source.errno == libc::ECONNREFUSED && source.msg == "connect: /tmp/sock"));
        assert_eq!(
            e.to_string(),
            format!(
                "fio: nbd_connect_uri: nbd_connect_uri: connect: /tmp/sock: {}\n",
                super::super::io::strerror(libc::ECONNREFUSED)
            )
        );
        let unread = SetupError::DevdaxSizeUnread {
            device: "/dev/dax0.0".into(),
            path: "/sys/dev/char/1:2/size".into(),
            source: io::Error::from_raw_os_error(libc::ENOENT),
        };
        match &unread {
            SetupError::DevdaxSizeUnread { device, source, .. } => {
                assert_eq!(device, &PathBuf::from("/dev/dax0.0"));
                assert_eq!(source.raw_os_error(), Some(libc::ENOENT));
            }
            other => panic!("not an unread size: {other:?}"),
        }
        let nbd = super::super::nbd::setup(&Default::default(), super::super::StopFlag::never());
        assert!(matches!(nbd, Err(SetupError::NbdNoUri)));
    }
}
