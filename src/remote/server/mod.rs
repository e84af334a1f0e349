//! `--server`: rfio as a member of a fio fleet. fio's clients (and rfio's)
//! connect, send job files, and get back what fio's server sends: the
//! jobs' text, ETA, statistics and group totals in fio's binary layouts
//! (`crate::wire`).
//!
//! As fio, the listener starts one process per connection (here: rfio
//! again, with `--server-session` and the connection on standard input),
//! so one client's jobs cannot disturb another's, and a client that
//! crashes its session leaves the listener serving.
//!
//! Safer than fio without changing the wire: called as `rfio` the server
//! listens on loopback unless given an address; `--server-allow` refuses
//! clients outside its networks before reading a byte; `RFIO_SERVER_TOKEN`
//! makes every job file carry the token; `--server-jail=DIR` confines the
//! jobs to DIR (no commands, no files outside it). Called as `fio` it
//! listens where fio's does, and says on stderr that it is unauthenticated.

mod conn;
mod policy;
mod results;
mod session;

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::Error;
use crate::release::Release;
use crate::wire::addr::{self, Addr};
use crate::wire::body;
use crate::wire::frame::{self, Op};
use policy::Cidr;
pub(crate) use session::Rules;

/// How the server was asked to run.
pub(crate) struct Config {
    /// `--server=ADDR` (empty: the default address).
    pub(crate) addr: String,
    pub(crate) daemonize: Option<PathBuf>,
    pub(crate) allow: Option<String>,
    pub(crate) jail: Option<PathBuf>,
    /// Called as `fio` (or `--compat=fio`).
    pub(crate) as_fio: bool,
    /// The release whose wire version the sessions speak.
    pub(crate) release: Release,
}

/// The rules a session follows, from the environment and `jail`.
fn rules(as_fio: bool, release: Release, jail: Option<&Path>) -> Result<Rules, Error> {
    let jail = match jail {
        None => None,
        Some(j) => Some(j.canonicalize().map_err(|source| Error::Jail {
            path: j.to_path_buf(),
            source,
        })?),
    };
    let token = std::env::var(policy::TOKEN_ENV)
        .ok()
        .filter(|t| !t.is_empty());
    Ok(Rules {
        as_fio,
        version: release.wire_version(),
        token,
        jail,
        file_prefix: None,
    })
}

/// `--server-session`: serve the connection on standard input.
pub(crate) fn session(
    as_fio: bool,
    release: Release,
    jail: Option<&Path>,
    err: &mut dyn Write,
) -> i32 {
    let mut rules = match rules(as_fio, release, jail) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return 1;
        }
    };
    // The job files' `${VAR}` are expanded from this process's environment:
    // the token must not be among them (a client could have it echoed back
    // in an error). The process has one thread here.
    std::env::remove_var(policy::TOKEN_ENV);
    // SAFETY: dup returns a new descriptor (or -1, checked) that nothing
    // else owns; the File takes it over.
    let fd = unsafe { libc::dup(0) };
    if fd < 0 {
        let _ = writeln!(
            err,
            "rfio: --server-session: no connection on standard input"
        );
        return 1;
    }
    // SAFETY: `fd` is a fresh, open descriptor owned by nobody else.
    let sock = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    // The connection's local address, if it is TCP (fio's garbage prefix
    // on a Unix socket is left out).
    rules.file_prefix = sock
        .try_clone()
        .ok()
        .map(|f| std::net::TcpStream::from(OwnedFd::from(f)))
        .and_then(|t| t.local_addr().ok())
        .map(|a| a.ip().to_string());
    session::serve(sock, &rules)
}

/// A bound listener of either kind.
enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

/// Bind where `cfg` says; returns the listener and fio's name for where.
fn bind(cfg: &Config) -> Result<(Listener, String), Error> {
    let a = if cfg.addr.is_empty() {
        Addr::Tcp {
            host: String::new(),
            ipv6: false,
            port: addr::DEFAULT_PORT,
        }
    } else {
        Addr::parse(&cfg.addr)?
    };
    match a {
        Addr::Unix(path) => {
            // A stale socket of an earlier server goes; any other file stays.
            if let Ok(m) = std::fs::symlink_metadata(&path) {
                use std::os::unix::fs::FileTypeExt;
                if m.file_type().is_socket() {
                    let _ = std::fs::remove_file(&path);
                }
            }
            let l = UnixListener::bind(&path).map_err(|source| Error::Bind {
                at: path.display().to_string(),
                source,
            })?;
            // Only this user may connect (fio leaves it 0777).
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
            let name = path.display().to_string();
            Ok((Listener::Unix(l), name))
        }
        tcp => {
            let any = if cfg.as_fio {
                addr::ANY_V4
            } else {
                addr::LOOPBACK_V4
            };
            let addrs = tcp.resolve(any)?;
            let mut last = Error::NoAddressToBind;
            for sa in addrs {
                match TcpListener::bind(sa) {
                    Ok(l) => {
                        let bound = l.local_addr().unwrap_or(sa);
                        return Ok((Listener::Tcp(l), addr::listening(&bound)));
                    }
                    Err(source) => {
                        last = Error::Bind {
                            at: addr::listening(&sa),
                            source,
                        }
                    }
                }
            }
            Err(last)
        }
    }
}

/// `--daemonize=PIDFILE`: fork, write the child's pid, detach. Returns in
/// the child; the parent exits. Refuses a pid file naming a live process.
fn daemonize(pidfile: &Path) -> Result<(), Error> {
    if let Ok(old) = std::fs::read_to_string(pidfile) {
        if let Ok(pid) = old.trim().parse::<libc::pid_t>() {
            // SAFETY: kill with signal 0 only checks that the process exists.
            if pid > 0 && unsafe { libc::kill(pid, 0) } == 0 {
                return Err(Error::PidFileInUse {
                    path: pidfile.to_path_buf(),
                    pid,
                });
            }
        }
    }
    // SAFETY: the process has one thread here (the listener has not
    // started any), so the child may go on running Rust code.
    match unsafe { libc::fork() } {
        -1 => Err(Error::Fork(std::io::Error::last_os_error())),
        0 => {
            // SAFETY: plain system calls on the child's own descriptors.
            unsafe {
                libc::setsid();
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
                if null >= 0 {
                    libc::dup2(null, 0);
                    libc::dup2(null, 1);
                    libc::dup2(null, 2);
                    if null > 2 {
                        libc::close(null);
                    }
                }
            }
            Ok(())
        }
        child => {
            if let Err(e) = std::fs::write(pidfile, format!("{child}\n")) {
                eprintln!("fio: pid file {}: {e}", pidfile.display());
            }
            std::process::exit(0)
        }
    }
}

/// Turn-aways in progress, each a thread: beyond [`MAX_TURN_AWAYS`] a
/// refused client is simply closed.
static TURN_AWAYS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
const MAX_TURN_AWAYS: usize = 32;

/// Refuse a connection before reading from it: one TEXT saying why, then
/// STOP with an error and QUIT (a fio client prints the text and exits 1). What the client sent
/// meanwhile is read and dropped before the close, so that the close does
/// not reset the connection (which would lose the text): for 5 s in all
/// and 4 MiB at most, in a thread of its own.
fn turn_away(stream: std::net::TcpStream, peer: SocketAddr, version: frame::Version) {
    use std::sync::atomic::Ordering;
    if TURN_AWAYS.fetch_add(1, Ordering::SeqCst) >= MAX_TURN_AWAYS {
        TURN_AWAYS.fetch_sub(1, Ordering::SeqCst);
        return;
    }
    let spawned = std::thread::Builder::new().spawn(move || {
        let mut stream = stream;
        let t = body::Text {
            level: body::LEVEL_ERR,
            sec: 0,
            usec: 0,
            text: format!(
                "rfio: client {} is not allowed by --server-allow\n",
                peer.ip()
            ),
        };
        let _ = stream.set_write_timeout(Some(std::time::Duration::from_secs(5)));
        let stop = body::Stop {
            error: policy::REFUSED,
            signal: 0,
        };
        let _ = stream.write_all(&frame::encode(version, Op::Text, 0, &t.encode()));
        let _ = stream.write_all(&frame::encode(version, Op::Stop, 0, &stop.encode()));
        let _ = stream.write_all(&frame::encode(version, Op::Quit, 0, &[]));
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let (mut buf, mut left) = ([0u8; 4096], 4usize << 20);
        while left > 0 {
            let now = std::time::Instant::now();
            if now >= deadline || stream.set_read_timeout(Some(deadline - now)).is_err() {
                break;
            }
            match std::io::Read::read(&mut stream, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
        TURN_AWAYS.fetch_sub(1, Ordering::SeqCst);
    });
    if spawned.is_err() {
        TURN_AWAYS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Start the process that serves one connection.
fn spawn_session(fd: OwnedFd, cfg: &Config) -> std::io::Result<()> {
    let exe = std::env::current_exe()?;
    let mut cmd = Command::new(exe);
    cmd.arg("--server-session");
    cmd.env(crate::release::ENV, cfg.release.number());
    cmd.arg(if cfg.as_fio {
        "--compat=fio"
    } else {
        "--compat=strict"
    });
    if let Some(j) = &cfg.jail {
        cmd.arg(format!("--server-jail={}", j.display()));
    }
    let mut child = cmd.stdin(Stdio::from(fd)).spawn()?;
    // Reaped when it ends (if no thread can be had, the child stays a
    // zombie until the listener exits; nothing else is lost).
    let _ = std::thread::Builder::new().spawn(move || child.wait());
    Ok(())
}

/// `--server`: listen and serve until killed.
pub(crate) fn listen(cfg: &Config, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let allow: Vec<Cidr> = match cfg.allow.as_deref().map(policy::parse_allow) {
        None => Vec::new(),
        Some(Ok(a)) => a,
        Some(Err(e)) => {
            let _ = writeln!(err, "{e}");
            return 1;
        }
    };
    if let Err(e) = rules(cfg.as_fio, cfg.release, cfg.jail.as_deref()) {
        let _ = writeln!(err, "{e}");
        return 1;
    }
    let (listener, name) = match bind(cfg) {
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return 1;
        }
    };
    if cfg.as_fio && allow.is_empty() && std::env::var(policy::TOKEN_ENV).is_err() {
        let _ = writeln!(
            err,
            "rfio: warning: this server is unauthenticated: anyone who can connect runs any job \
             as this user (see --server-allow, RFIO_SERVER_TOKEN, --server-jail)"
        );
    }
    let _ = writeln!(out, "fio: server listening on {name}");
    let _ = out.flush();
    if let Some(pidfile) = &cfg.daemonize {
        if let Err(e) = daemonize(pidfile) {
            let _ = writeln!(err, "{e}");
            return 1;
        }
    }
    loop {
        let accepted = match &listener {
            Listener::Tcp(l) => l.accept().map(|(s, peer)| {
                if !allow.is_empty() && !allow.iter().any(|c| c.contains(peer.ip())) {
                    eprintln!("rfio: refused client {} (--server-allow)", peer.ip());
                    turn_away(s, peer, cfg.release.wire_version());
                    return None;
                }
                Some(OwnedFd::from(s))
            }),
            Listener::Unix(l) => l.accept().map(|(s, _)| Some(OwnedFd::from(s))),
        };
        match accepted {
            Ok(Some(fd)) => {
                if let Err(e) = spawn_session(fd, cfg) {
                    eprintln!("rfio: could not start a session: {e}");
                }
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("fio: accept: {e}");
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
    }
}
