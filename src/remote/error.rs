//! Why a server or a client cannot go on: one error for the layer. Each
//! text is the message fio prints in its place (`fio: ...`), or rfio's own
//! for what fio does not have (`rfio: --server-jail=...`).

use std::io;
use std::path::PathBuf;

use crate::cli::args::ArgErrors;
use crate::diag::{io_reason, quote};
use crate::wire::addr::AddrError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// `--server-jail=DIR` names no directory that can be resolved.
    #[error("rfio: --server-jail={}: {source}", path.display())]
    Jail { path: PathBuf, source: io::Error },
    /// One network of `--server-allow`, as written.
    #[error("--server-allow: bad network '{0}' (ADDR or ADDR/BITS)")]
    BadNetwork(String),
    /// An address of `--server` or `--client`.
    #[error(transparent)]
    Addr(#[from] AddrError),
    /// The listener could not bind `at` (fio's form of the address).
    #[error("fio: bind: {source} ({at})")]
    Bind { at: String, source: io::Error },
    /// The address names no TCP address to bind.
    #[error("fio: no address to bind")]
    NoAddressToBind,
    /// `--daemonize=PIDFILE` names the pid file of a running process.
    #[error("fio: pid file {} names a running process ({pid})", path.display())]
    PidFileInUse { path: PathBuf, pid: i32 },
    #[error("fio: fork: {0}")]
    Fork(io::Error),
    /// The command line a client sent, refused as rfio refuses its own.
    #[error("{0}")]
    Args(ArgErrors),
    /// `--client=HOST` (or a host of the list file `from_file`) cannot be
    /// used.
    #[error("{source}\nfio: failed adding client {host}{}", from_file.as_ref().map(|f| format!(" from file {f}")).unwrap_or_default())]
    AddClient {
        host: String,
        from_file: Option<String>,
        source: AddrError,
    },
    /// `--client=FILE` names a file that cannot be read.
    #[error("fio: could not open client list file {path} for read ({source})")]
    ClientList { path: String, source: io::Error },
    #[error("fio: --remote-config needs a --client before it")]
    RemoteConfigFirst,
    #[error("fio: can't be both client and server")]
    ClientAndServer,
    /// A job file a client sends cannot be read.
    #[error("fio: job file <{}> open: {}", path.display(), io_reason(source))]
    JobFile { path: PathBuf, source: io::Error },
    /// A server's IOLOG names no file rfio writes.
    #[error("fio: bad log name \"{}\" from {host}: not written", quote(name, 200))]
    BadLogName { name: String, host: String },
    /// The IOLOG's file (`shown`: its name, quoted) cannot be created.
    #[error("fio: fopen log {shown} : {}", io_reason(source))]
    LogOpen { shown: String, source: io::Error },
    #[error("fio: write log {shown} : {}", io_reason(source))]
    LogWrite { shown: String, source: io::Error },
    /// A server's Unix socket refuses the connection.
    #[error("fio: connect; {}", io_reason(.0))]
    ConnectUnix(io::Error),
    /// No address of a server took the connection (`source`: the last
    /// one's reason; `None`: there was none to try).
    #[error("fio: connect: {}\nfio: failed to connect to {host}:{port}", source.as_ref().map_or_else(|| "no address".to_string(), io_reason))]
    Connect {
        host: String,
        port: u16,
        source: Option<io::Error>,
    },
}
