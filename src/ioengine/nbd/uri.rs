//! NBD URIs (the NBD project's `doc/uri.md`), read as libnbd's
//! `nbd_connect_uri` reads them, and the connection they name.
//!
//! `nbd://HOST[:PORT]/[EXPORT]` is a TCP connection (port 10809 by
//! default, host `localhost` when the authority is empty);
//! `nbd+unix:///[EXPORT]?socket=PATH` a unix socket. The export name is
//! the path without its first `/`, percent-decoded. Other query
//! parameters are ignored. `nbds…` (TLS) and `nbd+vsock` (virtio sockets)
//! are schemes rfio knows but cannot connect with: the plan refuses them
//! ([`unsupported`]). Every failure reads as libnbd's (`unknown NBD URI
//! scheme: foo`, `connect: 127.0.0.1:1: could not connect to remote host`)
//! with its errno.

use std::net::ToSocketAddrs;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;

use super::super::engine::StopFlag;
use super::super::io::strerror;
use super::super::wait;

/// A failure as libnbd reports it: its words and errno (0: none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NbdError {
    pub(crate) msg: String,
    pub(crate) errno: i32,
}

impl NbdError {
    pub(crate) fn new(msg: impl Into<String>, errno: i32) -> NbdError {
        NbdError {
            msg: msg.into(),
            errno,
        }
    }

    fn inval(msg: impl Into<String>) -> NbdError {
        NbdError::new(msg, libc::EINVAL)
    }
}

impl std::error::Error for NbdError {}

impl std::fmt::Display for NbdError {
    /// libnbd's `nbd_get_error`: the words, then `: strerror(errno)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)?;
        if self.errno != 0 {
            write!(f, ": {}", strerror(self.errno))?;
        }
        Ok(())
    }
}

/// Where an NBD URI points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// `nbd://`: the host and the port as written (a service name or a
    /// number).
    Tcp { host: String, port: String },
    /// `nbd+unix://`: the socket's path.
    Unix { path: String },
}

/// A parsed NBD URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NbdUri {
    pub(crate) endpoint: Endpoint,
    pub(crate) export: String,
}

/// The schemes of NBD URIs that rfio knows but cannot connect with, and
/// why: `None` when the scheme is one rfio uses (or not an NBD scheme at
/// all, which the connection reports as libnbd does).
pub(crate) fn unsupported(uri: &str) -> Option<&'static str> {
    let scheme = uri.split_once(':')?.0;
    match scheme {
        "nbds" | "nbds+unix" | "nbds+vsock" => {
            Some("rfio's NBD client has no TLS (nbds:// URIs); use nbd:// or nbd+unix://")
        }
        "nbd+vsock" => {
            Some("rfio's NBD client has no AF_VSOCK sockets (nbd+vsock:// URIs); use nbd:// or nbd+unix://")
        }
        _ => None,
    }
}

/// Characters RFC 3986 allows in a URI (besides `%`, checked with the two
/// hex digits after it).
fn uri_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&c)
}

/// `%XX` sequences decoded (an invalid one is kept as written).
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl NbdUri {
    /// Read `uri` as libnbd does.
    pub(crate) fn parse(uri: &str) -> Result<NbdUri, NbdError> {
        let unparsable = || NbdError::inval(format!("unable to parse URI: {uri}"));
        let b = uri.as_bytes();
        for (i, &c) in b.iter().enumerate() {
            let ok = if c == b'%' {
                b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            } else {
                uri_char(c)
            };
            if !ok {
                return Err(unparsable());
            }
        }
        let scheme_end = uri
            .find(':')
            .filter(|&i| {
                i > 0
                    && uri.as_bytes()[0].is_ascii_alphabetic()
                    && uri[..i]
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || b"+-.".contains(&c))
            })
            .ok_or_else(|| {
                NbdError::inval(
                    "NBD URI does not have a scheme: valid NBD URIs should start with a \
                     scheme like nbd://, nbds:// or nbd+unix://",
                )
            })?;
        let scheme = &uri[..scheme_end];
        let rest = &uri[scheme_end + 1..];
        let (rest, _fragment) = rest.split_once('#').unwrap_or((rest, ""));
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = match rest.strip_prefix("//") {
            Some(r) => match r.find('/') {
                Some(i) => (&r[..i], &r[i..]),
                None => (r, ""),
            },
            None => ("", rest),
        };
        // [userinfo@]host[:port]
        let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = if let Some(r) = hostport.strip_prefix('[') {
            let (h, after) = r.split_once(']').ok_or_else(unparsable)?;
            match after {
                "" => (h, None),
                p => (h, Some(p.strip_prefix(':').ok_or_else(unparsable)?)),
            }
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            }
        };
        if port.is_some_and(|p| !p.bytes().all(|c| c.is_ascii_digit())) {
            return Err(unparsable());
        }
        let socket = query
            .split(['&', ';'])
            .filter_map(|kv| kv.split_once('=').or(Some((kv, ""))))
            .find(|(k, _)| decode(k) == "socket")
            .map(|(_, v)| decode(v));
        let export = decode(path.strip_prefix('/').unwrap_or(path));
        let endpoint = match scheme {
            "nbd" | "nbds" => {
                if socket.is_some() {
                    return Err(NbdError::inval(format!(
                        "socket parameter is incompatible with \"{scheme}:\" \
                         (did you mean to use \"{scheme}+unix:///?socket=...\"?)"
                    )));
                }
                // An empty host drops the port too (libxml2 reads no
                // server then).
                let (host, port) = match (host, port) {
                    ("", _) => ("localhost".to_string(), "10809".to_string()),
                    (h, Some(p)) if !p.is_empty() => (h.to_string(), p.to_string()),
                    (h, _) => (h.to_string(), "10809".to_string()),
                };
                Endpoint::Tcp { host, port }
            }
            "nbd+unix" | "nbds+unix" => match socket {
                Some(path) => Endpoint::Unix { path },
                None => {
                    return Err(NbdError::inval(format!(
                        "cannot parse socket parameter from NBD URI \
                         (did you mean to use \"{scheme}:///?socket=...\"?)"
                    )))
                }
            },
            _ => return Err(NbdError::inval(format!("unknown NBD URI scheme: {scheme}"))),
        };
        Ok(NbdUri { endpoint, export })
    }

    /// Connect to the endpoint, as libnbd's `connect_tcp` and
    /// `connect_unix` do; a TCP connection waits in slices until `stop`
    /// says give up (`ETIMEDOUT`).
    pub(crate) fn connect(&self, stop: StopFlag) -> Result<OwnedFd, NbdError> {
        match &self.endpoint {
            Endpoint::Unix { path } => UnixStream::connect(path)
                .map(OwnedFd::from)
                .map_err(|e| NbdError::new("connect", e.raw_os_error().unwrap_or(libc::EIO))),
            Endpoint::Tcp { host, port } => {
                // getaddrinfo's service: a number is cut to 16 bits, as
                // glibc does.
                let num = port.parse::<u64>().map(|p| (p % 65536) as u16);
                let addrs = match num {
                    Ok(p) => (host.as_str(), p).to_socket_addrs(),
                    Err(_) => Err(std::io::Error::other(
                        "Servname not supported for ai_socktype",
                    )),
                };
                let addrs: Vec<_> = addrs
                    .map_err(|e| {
                        let text = e.to_string();
                        let text = text
                            .strip_prefix("failed to lookup address information: ")
                            .unwrap_or(&text)
                            .to_string();
                        NbdError::new(
                            format!("getaddrinfo: hostname \"{host}\" port \"{port}\": {text}"),
                            0,
                        )
                    })?
                    .collect();
                let mut last = libc::ECONNREFUSED;
                for a in addrs {
                    match wait::connect_tcp(a, Some(stop)) {
                        Ok(s) => {
                            let _ = s.set_nodelay(true);
                            return Ok(OwnedFd::from(s));
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                            last = libc::ETIMEDOUT;
                            break;
                        }
                        Err(e) => last = e.raw_os_error().unwrap_or(libc::EIO),
                    }
                }
                Err(NbdError::new(
                    format!("connect: {host}:{port}: could not connect to remote host"),
                    last,
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(uri: &str) -> String {
        NbdUri::parse(uri).unwrap_err().to_string()
    }

    #[test]
    fn uris_as_libnbd_reads_them() {
        let u = NbdUri::parse("nbd+unix:///disk%201?socket=/tmp/s%2Ex&x=y").unwrap();
        assert_eq!(
            u,
            NbdUri {
                endpoint: Endpoint::Unix {
                    path: "/tmp/s.x".into()
                },
                export: "disk 1".into()
            }
        );
        let tcp = |u: &str| NbdUri::parse(u).unwrap().endpoint;
        let at = |h: &str, p: &str| Endpoint::Tcp {
            host: h.into(),
            port: p.into(),
        };
        assert_eq!(tcp("nbd://127.0.0.1:1/"), at("127.0.0.1", "1"));
        assert_eq!(tcp("nbd://"), at("localhost", "10809"));
        assert_eq!(tcp("nbd://:1/"), at("localhost", "10809"));
        assert_eq!(tcp("nbd://[::1]:7/e"), at("::1", "7"));
        assert_eq!(tcp("nbd://user@h/e"), at("h", "10809"));
        assert_eq!(NbdUri::parse("nbd://h/exp").unwrap().export, "exp");
        assert_eq!(NbdUri::parse("nbd://h").unwrap().export, "");
    }

    #[test]
    fn bad_uris_as_libnbd_says() {
        // fio 3.33 (libnbd 1.14) with each URI: its nbd_get_error().
        assert_eq!(
            err("nbd+unix:///"),
            "cannot parse socket parameter from NBD URI (did you mean to use \
             \"nbd+unix:///?socket=...\"?): Invalid argument"
        );
        assert_eq!(
            err("not a uri"),
            "unable to parse URI: not a uri: Invalid argument"
        );
        assert_eq!(
            err("nbd://127.0.0.1:x/"),
            "unable to parse URI: nbd://127.0.0.1:x/: Invalid argument"
        );
        assert_eq!(
            err("abc"),
            "NBD URI does not have a scheme: valid NBD URIs should start with a scheme like \
             nbd://, nbds:// or nbd+unix://: Invalid argument"
        );
        assert_eq!(
            err("NBD://127.0.0.1:1/"),
            "unknown NBD URI scheme: NBD: Invalid argument"
        );
        assert_eq!(
            err("nbd:///?socket=x"),
            "socket parameter is incompatible with \"nbd:\" (did you mean to use \
             \"nbd+unix:///?socket=...\"?): Invalid argument"
        );
        assert!(unsupported("nbds://h/").is_some());
        assert!(unsupported("nbd+vsock:///").is_some());
        assert!(unsupported("nbd://h/").is_none());
    }

    #[test]
    fn connection_failures_as_libnbd_says() {
        let e = NbdUri::parse("nbd+unix:///?socket=/nonexistent/s")
            .unwrap()
            .connect(StopFlag::never())
            .unwrap_err();
        assert_eq!(e.to_string(), "connect: No such file or directory");
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let e = NbdUri::parse(&format!("nbd://127.0.0.1:{port}/"))
            .unwrap()
            .connect(StopFlag::never())
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "connect: 127.0.0.1:{port}: could not connect to remote host: Connection refused"
            )
        );
    }
}
