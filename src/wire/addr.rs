//! fio's address syntax for `--server=ARG` and `--client=ARG`
//! (`fio_server_parse_string`): the port follows a comma, since IPv6
//! literals hold colons.
//!
//! | form | meaning |
//! |---|---|
//! | `sock:PATH` | a Unix stream socket |
//! | `ip:HOST[,PORT]`, `ip4:HOST[,PORT]`, `HOST[,PORT]` | IPv4 (a literal or a name) |
//! | `ip6:HOST[,PORT]` | IPv6 |
//! | `,PORT` or `:PORT` | the any-address, with that port |

use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

/// fio's port.
pub(crate) const DEFAULT_PORT: u16 = 8765;

/// Why an address cannot be used; each text is fio's message.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AddrError {
    #[error("fio: no socket path given")]
    NoSocketPath,
    /// The port after the comma, as written.
    #[error("fio: bad server port {0}")]
    BadPort(String),
    #[error("a Unix socket has no TCP address")]
    NotTcp,
    /// A literal of the other family (`ip6:127.0.0.1`).
    #[error("fio: {host} is not an IPv{} address", if *.ipv6 { 6 } else { 4 })]
    WrongFamily { host: String, ipv6: bool },
    /// The name lookup failed.
    #[error("fio: failed to resolve <{host}> ({source})")]
    Resolve {
        host: String,
        source: std::io::Error,
    },
    /// The name has no address of the family asked for.
    #[error("fio: failed to resolve <{host}>")]
    NoAddress { host: String },
}

/// A parsed address, not yet resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Addr {
    Unix(PathBuf),
    Tcp {
        /// The host as written (empty: the any-address).
        host: String,
        ipv6: bool,
        port: u16,
    },
}

impl Addr {
    /// Parse `s` as fio does; the error is fio's message.
    pub(crate) fn parse(s: &str) -> Result<Addr, AddrError> {
        if let Some(path) = s.strip_prefix("sock:") {
            if path.is_empty() {
                return Err(AddrError::NoSocketPath);
            }
            return Ok(Addr::Unix(PathBuf::from(path)));
        }
        let (ipv6, rest) = if let Some(r) = s.strip_prefix("ip6:") {
            (true, r)
        } else if let Some(r) = s.strip_prefix("ip4:").or_else(|| s.strip_prefix("ip:")) {
            (false, r)
        } else {
            (false, s)
        };
        let (host, port) = match rest.rsplit_once(',') {
            Some((h, p)) => (h, Some(p)),
            None => match rest.strip_prefix(':') {
                Some(p) if !ipv6 => ("", Some(p)),
                _ => (rest, None),
            },
        };
        let port = match port {
            None => DEFAULT_PORT,
            Some(p) => match p.trim().parse::<u32>() {
                Ok(n) if (1..=65535).contains(&n) => n as u16,
                _ => return Err(AddrError::BadPort(p.to_string())),
            },
        };
        Ok(Addr::Tcp {
            host: host.to_string(),
            ipv6,
            port,
        })
    }

    /// The TCP addresses it names, in the family it asks for (a name is
    /// looked up; the any-address when no host is given, or `fallback`).
    pub(crate) fn resolve(&self, fallback: IpAddr) -> Result<Vec<SocketAddr>, AddrError> {
        let Addr::Tcp { host, ipv6, port } = self else {
            return Err(AddrError::NotTcp);
        };
        if host.is_empty() {
            return Ok(vec![SocketAddr::new(fallback, *port)]);
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            if ip.is_ipv6() != *ipv6 {
                return Err(AddrError::WrongFamily {
                    host: host.clone(),
                    ipv6: *ipv6,
                });
            }
            return Ok(vec![SocketAddr::new(ip, *port)]);
        }
        let found: Vec<SocketAddr> = (host.as_str(), *port)
            .to_socket_addrs()
            .map_err(|source| AddrError::Resolve {
                host: host.clone(),
                source,
            })?
            .filter(|a| a.is_ipv6() == *ipv6)
            .collect();
        if found.is_empty() {
            return Err(AddrError::NoAddress { host: host.clone() });
        }
        Ok(found)
    }

    /// The port, or fio's default for a socket.
    pub(crate) fn port(&self) -> u16 {
        match self {
            Addr::Unix(_) => DEFAULT_PORT,
            Addr::Tcp { port, .. } => *port,
        }
    }

    /// The host as fio's client shows it (`hostname` in JSON): the host
    /// as written, the socket's path.
    pub(crate) fn host(&self) -> String {
        match self {
            Addr::Unix(p) => p.display().to_string(),
            Addr::Tcp { host, .. } => host.clone(),
        }
    }
}

/// fio's form of a bound address in `fio: server listening on ...`.
pub(crate) fn listening(a: &SocketAddr) -> String {
    format!("{},{}", a.ip(), a.port())
}

/// The IPv4 any-address (what fio's `--server` binds with no address).
pub(crate) const ANY_V4: IpAddr = IpAddr::V4(Ipv4Addr::UNSPECIFIED);
/// The loopback address (what rfio's `--server` binds with no address).
pub(crate) const LOOPBACK_V4: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(host: &str, ipv6: bool, port: u16) -> Addr {
        Addr::Tcp {
            host: host.into(),
            ipv6,
            port,
        }
    }

    #[test]
    fn fios_forms() {
        assert_eq!(
            Addr::parse("ip:127.0.0.1,8794").ok(),
            Some(tcp("127.0.0.1", false, 8794))
        );
        assert_eq!(Addr::parse(",8795").ok(), Some(tcp("", false, 8795)));
        assert_eq!(Addr::parse(":8795").ok(), Some(tcp("", false, 8795)));
        assert_eq!(
            Addr::parse("ip6:::1,8796").ok(),
            Some(tcp("::1", true, 8796))
        );
        assert_eq!(
            Addr::parse("localhost,8797").ok(),
            Some(tcp("localhost", false, 8797))
        );
        assert_eq!(Addr::parse("h1").ok(), Some(tcp("h1", false, 8765)));
        assert_eq!(
            Addr::parse("ip4:10.0.0.1").ok(),
            Some(tcp("10.0.0.1", false, 8765))
        );
        assert_eq!(
            Addr::parse("sock:/tmp/fio.sock").ok(),
            Some(Addr::Unix("/tmp/fio.sock".into()))
        );
        assert_eq!(
            Addr::parse("h,0").unwrap_err().to_string(),
            "fio: bad server port 0"
        );
        assert!(matches!(
            Addr::parse("h,70000"),
            Err(AddrError::BadPort(p)) if p == "70000"
        ));
        assert_eq!(
            Addr::parse("h,x").unwrap_err().to_string(),
            "fio: bad server port x"
        );
        assert_eq!(
            Addr::parse("sock:").unwrap_err().to_string(),
            "fio: no socket path given"
        );
    }

    #[test]
    fn resolution_keeps_the_family() {
        let a = Addr::parse("ip:127.0.0.1,9000").unwrap();
        assert_eq!(
            a.resolve(ANY_V4).unwrap(),
            vec!["127.0.0.1:9000".parse().unwrap()]
        );
        assert_eq!(
            Addr::parse("ip6:127.0.0.1")
                .unwrap()
                .resolve(ANY_V4)
                .unwrap_err()
                .to_string(),
            "fio: 127.0.0.1 is not an IPv6 address"
        );
        let any = Addr::parse(",9001").unwrap();
        assert_eq!(listening(&any.resolve(ANY_V4).unwrap()[0]), "0.0.0.0,9001");
        assert_eq!(
            Addr::parse("localhost,9002")
                .unwrap()
                .resolve(ANY_V4)
                .unwrap()[0],
            "127.0.0.1:9002".parse().unwrap()
        );
    }
}
