//! The HTTP/1.1 client fio's http engine gets from libcurl's easy
//! interface, as that engine sets it up (`fio_http_setup`): one
//! connection kept alive across requests (and opened again when the
//! server closed it), redirects followed, `http_user`/`http_pass` offered
//! as curl's `CURLAUTH_ANY` does (the first request without, then Digest
//! or Basic as the server's `401` asks, kept for the requests after),
//! curl's `Accept: */*` unless a custom header replaces it (an empty
//! value removes it), and with `http_verbose` curl's trace on stderr.
//!
//! A failure is curl's: the transfer fails, and fio's engine gives the
//! I/O error -1 without a word; a body larger than the I/O's buffer is
//! one (fio's write callback refuses it). rfio says what failed, naming
//! the peer (`connect to 127.0.0.1:1: Connection refused`).
//!
//! Every wait on the peer (connect, send, receive) is cut in slices that
//! look at the job's stop and deadline ([`crate::ioengine::StopFlag`]): a
//! server that never answers holds the job no longer than its runtime.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};

use super::super::engine::StopFlag;
use super::super::wait;
use super::error::HttpError;
use super::sign::{base64, md5_hex};

/// The connection, whose reads and writes wait in slices
/// ([`wait::SLICE`] socket timeouts) and give up when the job is stopped
/// or its time is up ([`wait::given_up`]).
struct Peer {
    s: TcpStream,
    stop: Option<StopFlag>,
}

/// Whether `e` is a slice's timeout rather than a failure.
fn timed_out(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

impl Read for Peer {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.s.read(buf) {
                Err(e) if timed_out(&e) && !wait::over(self.stop) => {}
                Err(e) if timed_out(&e) => return Err(wait::given_up()),
                r => return r,
            }
        }
    }
}

impl Write for Peer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        loop {
            match self.s.write(buf) {
                Err(e) if timed_out(&e) && !wait::over(self.stop) => {}
                Err(e) if timed_out(&e) => return Err(wait::given_up()),
                r => return r,
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Where a response body goes.
pub(super) enum Sink<'a> {
    /// Dropped (fio's PUT and DELETE pass no write data).
    Discard,
    /// Into the I/O's buffer, which it may not overrun.
    Buffer(&'a mut [u8]),
}

/// One request.
pub(super) struct Request<'a> {
    pub(super) method: &'a str,
    /// `http://AUTHORITY/PATH`.
    pub(super) url: &'a str,
    /// Extra headers, in order; an empty value removes a header curl
    /// would send (`Accept:`).
    pub(super) headers: &'a [(String, String)],
    /// The upload (fio's `CURLOPT_UPLOAD` with `CURLOPT_INFILESIZE`).
    pub(super) body: Option<&'a [u8]>,
}

/// How the server answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Response {
    pub(super) status: u16,
}

/// The credentials scheme chosen after a `401`.
#[derive(Debug, Clone)]
enum Auth {
    Basic,
    Digest {
        realm: String,
        nonce: String,
        opaque: Option<String>,
        qop: bool,
        nc: u32,
    },
}

pub(super) struct Client {
    /// The open connection and the authority it goes to.
    conn: Option<(String, BufReader<Peer>)>,
    /// `host:port` of the last connection, for messages.
    peer: String,
    /// The job's stop and deadline, for every wait on the peer.
    pub(super) stop: Option<StopFlag>,
    user: Option<(String, String)>,
    auth: Option<Auth>,
    verbose: i32,
}

/// A URL's authority (`host[:port]`, user info left out), host, port and
/// path, as curl splits `http://...`.
fn split_url(url: &str) -> Result<(String, String, u16, String), HttpError> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| HttpError::UnsupportedProtocol {
            url: url.to_string(),
        })?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let mut path = rest[end..].split('#').next().unwrap_or("").to_string();
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    let path = path.replace(' ', "%20");
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => {
            let port = if p.is_empty() {
                80
            } else {
                p.parse::<u16>().map_err(|_| HttpError::BadPort {
                    port: p.to_string(),
                })?
            };
            (h, port)
        }
        _ => (authority, 80),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(HttpError::NoHost {
            url: url.to_string(),
        });
    }
    Ok((authority.to_string(), host.to_string(), port, path))
}

/// The attributes of a `WWW-Authenticate` challenge (`name="value"`,
/// `name=token`), lower-case names.
fn attributes(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut s = text.trim();
    while !s.is_empty() {
        let Some((name, rest)) = s.split_once('=') else {
            break;
        };
        let name = name
            .trim()
            .trim_start_matches(',')
            .trim()
            .to_ascii_lowercase();
        let rest = rest.trim_start();
        let (value, rest) = if let Some(r) = rest.strip_prefix('"') {
            let end = r.find('"').unwrap_or(r.len());
            (&r[..end], r.get(end + 1..).unwrap_or(""))
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            (rest[..end].trim(), &rest[end..])
        };
        out.push((name, value.to_string()));
        s = rest.trim_start().trim_start_matches(',').trim_start();
    }
    out
}

/// A response's status and headers.
struct Head {
    status: u16,
    headers: Vec<(String, String)>,
    /// HTTP/1.0, or `Connection: close`.
    close: bool,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl Client {
    pub(super) fn new(user: Option<(String, String)>, verbose: i32) -> Client {
        Client {
            conn: None,
            peer: String::new(),
            stop: None,
            user,
            auth: None,
            verbose,
        }
    }

    /// curl's trace of what happens (`* ...`), with `http_verbose`.
    fn info(&self, text: &str) {
        match self.verbose {
            0 => {}
            1 => stderr(&format!("* {text}\n")),
            _ => stderr(&format!("== Info: {text}\n")),
        }
    }

    /// curl's trace of the headers sent or received.
    fn trace_headers(&self, out: bool, block: &str) {
        trace_headers(self.verbose, out, block);
    }

    fn connect(&mut self, authority: &str, host: &str, port: u16) -> Result<(), HttpError> {
        if self.conn.as_ref().is_some_and(|(a, _)| a == authority) {
            return Ok(());
        }
        self.conn = None;
        self.peer = format!("{host}:{port}");
        let addrs = (host, port)
            .to_socket_addrs()
            .map_err(|source| HttpError::Resolve {
                host: host.to_string(),
                source,
            })?;
        let mut last = None;
        for a in addrs {
            self.info(&format!("  Trying {a}..."));
            match wait::connect_tcp(a, self.stop) {
                Ok(s) => {
                    let _ = s.set_nodelay(true);
                    let _ = s.set_read_timeout(Some(wait::SLICE));
                    let _ = s.set_write_timeout(Some(wait::SLICE));
                    self.info(&format!("Connected to {host} ({}) port {port}", a.ip()));
                    let peer = Peer { s, stop: self.stop };
                    self.conn = Some((authority.to_string(), BufReader::new(peer)));
                    return Ok(());
                }
                Err(e) => last = Some(e),
            }
        }
        Err(HttpError::Connect {
            peer: self.peer(),
            last,
        })
    }

    /// `host:port` of the connection, for messages.
    fn peer(&self) -> String {
        visible_peer(&self.peer)
    }

    /// The `Authorization` header for `method` on `path`, when a scheme
    /// was picked.
    fn authorization(&mut self, method: &str, path: &str) -> Option<String> {
        let (user, pass) = self.user.as_ref()?;
        match self.auth.as_mut()? {
            Auth::Basic => Some(format!(
                "Basic {}",
                base64(format!("{user}:{pass}").as_bytes())
            )),
            Auth::Digest {
                realm,
                nonce,
                opaque,
                qop,
                nc,
            } => {
                *nc += 1;
                let ha1 = md5_hex(format!("{user}:{realm}:{pass}").as_bytes());
                let ha2 = md5_hex(format!("{method}:{path}").as_bytes());
                let cnonce = md5_hex(format!("{nonce}{nc}").as_bytes())[..16].to_string();
                let (response, extra) = if *qop {
                    (
                        md5_hex(format!("{ha1}:{nonce}:{nc:08x}:{cnonce}:auth:{ha2}").as_bytes()),
                        format!(", cnonce=\"{cnonce}\", nc={nc:08x}, qop=auth"),
                    )
                } else {
                    (
                        md5_hex(format!("{ha1}:{nonce}:{ha2}").as_bytes()),
                        String::new(),
                    )
                };
                let opaque = opaque
                    .as_ref()
                    .map_or(String::new(), |o| format!(", opaque=\"{o}\""));
                Some(format!(
                    "Digest username=\"{user}\", realm=\"{realm}\", nonce=\"{nonce}\", \
                     uri=\"{path}\"{extra}, response=\"{response}\"{opaque}, algorithm=MD5"
                ))
            }
        }
    }

    /// Pick the scheme a `401`'s challenges offer (Digest over Basic, as
    /// curl's `CURLAUTH_ANY`); false when none is usable.
    fn pick_auth(&mut self, head: &Head) -> bool {
        let mut basic = false;
        for (_, v) in head
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("www-authenticate"))
        {
            let (scheme, rest) = v.trim().split_once(' ').unwrap_or((v.trim(), ""));
            if scheme.eq_ignore_ascii_case("digest") {
                let a = attributes(rest);
                let get = |k: &str| a.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
                let algo_ok = get("algorithm").is_none_or(|x| x.eq_ignore_ascii_case("md5"));
                if let (Some(realm), Some(nonce), true) = (get("realm"), get("nonce"), algo_ok) {
                    self.auth = Some(Auth::Digest {
                        realm,
                        nonce,
                        opaque: get("opaque"),
                        qop: get("qop").is_some_and(|q| q.split(',').any(|q| q.trim() == "auth")),
                        nc: 0,
                    });
                    return true;
                }
            } else if scheme.eq_ignore_ascii_case("basic") {
                basic = true;
            }
        }
        if basic {
            self.auth = Some(Auth::Basic);
        }
        basic
    }

    /// Send the request on the open connection and read the response's
    /// head; `Err(true)` when a kept-alive connection turned out closed
    /// before any answer (send again on a new one).
    fn exchange(&mut self, head: &str, body: Option<&[u8]>) -> Result<Head, Result<HttpError, ()>> {
        let verbose = self.verbose;
        let peer = &self.peer;
        let Some((_, conn)) = self.conn.as_mut() else {
            return Err(Ok(HttpError::NoConnection));
        };
        let s = conn.get_mut();
        let sent = s
            .write_all(head.as_bytes())
            .and_then(|()| body.map_or(Ok(()), |b| s.write_all(b)));
        let io = |source| {
            Ok(HttpError::Io {
                peer: visible_peer(peer),
                source,
            })
        };
        match sent {
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => return Err(io(e)),
            Err(_) => return Err(Err(())),
            Ok(()) => {}
        }
        loop {
            let mut line = String::new();
            match conn.read_line(&mut line) {
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => return Err(io(e)),
                Ok(0) | Err(_) => return Err(Err(())),
                Ok(_) => {}
            }
            let mut block = line.clone();
            let mut parts = line.trim_end().splitn(3, ' ');
            let version = parts.next().unwrap_or("");
            let status: u16 = match parts.next().map(str::parse) {
                Some(Ok(s)) if version.starts_with("HTTP/") => s,
                _ => {
                    return Err(Ok(HttpError::NotHttp {
                        peer: visible_peer(peer),
                        line: line.trim_end().to_string(),
                    }))
                }
            };
            let mut headers = Vec::new();
            loop {
                let mut h = String::new();
                let n = conn.read_line(&mut h).map_err(io)?;
                if n == 0 {
                    return Err(Ok(HttpError::ClosedInHeaders {
                        peer: visible_peer(peer),
                    }));
                }
                block.push_str(&h);
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                if let Some((n, v)) = h.split_once(':') {
                    headers.push((n.trim().to_string(), v.trim().to_string()));
                }
            }
            trace_headers(verbose, false, &block);
            if (100..200).contains(&status) {
                continue;
            }
            let head = Head {
                status,
                close: version == "HTTP/1.0",
                headers,
            };
            let close = head.close
                || head
                    .header("connection")
                    .is_some_and(|c| c.eq_ignore_ascii_case("close"));
            return Ok(Head { close, ..head });
        }
    }

    /// Read the body of a response to `method` into `sink`.
    fn body(&mut self, method: &str, head: &Head, sink: &mut Sink<'_>) -> Result<(), HttpError> {
        let peer = visible_peer(&self.peer);
        let Some((_, conn)) = self.conn.as_mut() else {
            return Err(HttpError::NoConnection);
        };
        let fail = |source| HttpError::Io {
            peer: peer.clone(),
            source,
        };
        if method == "HEAD" || head.status == 204 || head.status == 304 {
            return Ok(());
        }
        let room = match sink {
            Sink::Buffer(b) => Some(b.len()),
            Sink::Discard => None,
        };
        let mut pos = 0usize;
        let mut put = |data: &[u8]| -> Result<(), HttpError> {
            if let Sink::Buffer(b) = sink {
                if pos + data.len() > b.len() {
                    return Err(HttpError::BodyTooLong {
                        peer: peer.clone(),
                        room: b.len(),
                    });
                }
                b[pos..pos + data.len()].copy_from_slice(data);
            }
            pos += data.len();
            Ok(())
        };
        let mut chunk = [0u8; 16384];
        let chunked = head
            .header("transfer-encoding")
            .is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
        if chunked {
            loop {
                let mut line = String::new();
                conn.read_line(&mut line).map_err(fail)?;
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|_| HttpError::BadChunkSize {
                    peer: peer.clone(),
                    line: line.trim_end().to_string(),
                })?;
                if size == 0 {
                    // Trailers, up to the empty line.
                    loop {
                        let mut t = String::new();
                        if conn.read_line(&mut t).map_err(fail)? == 0 || t.trim().is_empty() {
                            return Ok(());
                        }
                    }
                }
                let mut left = size;
                while left > 0 {
                    let n = left.min(chunk.len());
                    conn.read_exact(&mut chunk[..n]).map_err(fail)?;
                    put(&chunk[..n])?;
                    left -= n;
                }
                let mut crlf = [0u8; 2];
                conn.read_exact(&mut crlf).map_err(fail)?;
            }
        } else if let Some(len) = head.header("content-length") {
            let mut left: u64 = len
                .trim()
                .parse()
                .map_err(|_| HttpError::BadContentLength {
                    peer: peer.clone(),
                    text: len.trim().to_string(),
                })?;
            if let Some(room) = room.filter(|&r| left > r as u64) {
                return Err(HttpError::ContentLengthTooLong {
                    peer: peer.clone(),
                    len: left,
                    room,
                });
            }
            while left > 0 {
                let n = (left as usize).min(chunk.len());
                conn.read_exact(&mut chunk[..n]).map_err(fail)?;
                put(&chunk[..n])?;
                left -= n as u64;
            }
            Ok(())
        } else {
            // Up to the end of the connection.
            loop {
                let n = conn.read(&mut chunk).map_err(fail)?;
                if n == 0 {
                    self.conn = None;
                    return Ok(());
                }
                put(&chunk[..n])?;
            }
        }
    }

    /// curl's `curl_easy_perform` of one request: the response's status,
    /// or why the transfer failed.
    pub(super) fn perform(
        &mut self,
        req: &Request<'_>,
        mut sink: Sink<'_>,
    ) -> Result<Response, HttpError> {
        let mut url = req.url.to_string();
        let mut method = req.method.to_string();
        let mut body = req.body;
        let mut tried_auth = false;
        for _ in 0..50 {
            let (authority, host, port, path) = split_url(&url)?;
            let mut attempt = 0;
            let head = loop {
                self.connect(&authority, &host, port)?;
                let mut h = format!("{method} {path} HTTP/1.1\r\nHost: {authority}\r\n");
                if let Some(a) = self.authorization(&method, &path) {
                    h.push_str(&format!("Authorization: {a}\r\n"));
                }
                if !req
                    .headers
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case("accept"))
                {
                    h.push_str("Accept: */*\r\n");
                }
                for (n, v) in req.headers.iter().filter(|(_, v)| !v.is_empty()) {
                    h.push_str(&format!("{n}: {v}\r\n"));
                }
                if let Some(b) = body {
                    h.push_str(&format!("Content-Length: {}\r\n", b.len()));
                }
                h.push_str("\r\n");
                self.trace_headers(true, &h);
                match self.exchange(&h, body) {
                    Ok(head) => break head,
                    Err(Err(())) if attempt == 0 => {
                        // The kept connection was gone: a new one.
                        self.conn = None;
                        attempt += 1;
                    }
                    Err(Err(())) => {
                        self.conn = None;
                        return Err(HttpError::ClosedWithoutReply { peer: self.peer() });
                    }
                    Err(Ok(e)) => {
                        self.conn = None;
                        return Err(e);
                    }
                }
            };
            let status = head.status;
            let retry_auth = status == 401 && !tried_auth && self.user.is_some();
            let location = head.header("location").map(str::to_string);
            let redirect = matches!(status, 301 | 302 | 303 | 307 | 308) && location.is_some();
            // What the client does not keep goes nowhere.
            let kept = if retry_auth || redirect {
                self.body(&method, &head, &mut Sink::Discard)
            } else {
                self.body(&method, &head, &mut sink)
            };
            if let Err(e) = kept {
                self.conn = None;
                return Err(e);
            }
            if head.close {
                self.conn = None;
            }
            if retry_auth {
                tried_auth = true;
                if self.pick_auth(&head) {
                    continue;
                }
                return Ok(Response { status });
            }
            if let (true, Some(loc)) = (redirect, location) {
                self.info(&format!("Issue another request to this URL: '{loc}'"));
                url = if loc.starts_with("http://") || loc.contains("://") {
                    loc
                } else if loc.starts_with('/') {
                    format!("http://{authority}{loc}")
                } else {
                    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
                    format!("http://{authority}{dir}/{loc}")
                };
                if status == 303 && method != "GET" && method != "HEAD" {
                    method = "GET".into();
                    body = None;
                }
                continue;
            }
            return Ok(Response { status });
        }
        Err(HttpError::TooManyRedirects)
    }
}

/// A peer's `host:port` as a message shows it (the host is the user's,
/// escaped all the same).
fn visible_peer(peer: &str) -> String {
    crate::diag::visible(peer).into_owned()
}

/// curl's trace of the headers sent or received, with `http_verbose`
/// `verbose`: `> `/`< ` lines at 1, fio's debug callback's at 2.
fn trace_headers(verbose: i32, out: bool, block: &str) {
    match verbose {
        0 => {}
        1 => {
            let mark = if out { "> " } else { "< " };
            let mut s = String::new();
            for line in block.split_inclusive('\n') {
                s.push_str(mark);
                s.push_str(line);
            }
            stderr(&s);
        }
        _ => {
            let what = if out {
                "=> Send header"
            } else {
                "<= Recv header"
            };
            stderr(&format!("{what}: {block}"));
        }
    }
}

/// Write `text` to the process's stderr (curl's own trace goes there).
fn stderr(text: &str) {
    let mut b = text.as_bytes();
    while !b.is_empty() {
        // SAFETY: `b` is valid for its length.
        let n = unsafe { libc::write(2, b.as_ptr().cast(), b.len()) };
        if n <= 0 {
            return;
        }
        b = &b[n as usize..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_as_curl_splits_them() {
        assert_eq!(
            split_url("http://localhost:8080/dav/o_0_4").unwrap(),
            (
                "localhost:8080".into(),
                "localhost".into(),
                8080,
                "/dav/o_0_4".into()
            )
        );
        assert_eq!(
            split_url("http://h/a b").unwrap(),
            ("h".into(), "h".into(), 80, "/a%20b".into())
        );
        // fio without a leading slash: the object becomes the host's.
        assert_eq!(
            split_url("http://localhostn.0.0_0_4096").unwrap().1,
            "localhostn.0.0_0_4096"
        );
        assert_eq!(split_url("http://[::1]:81/x").unwrap().2, 81);
        assert!(matches!(
            split_url("http://h:x/"),
            Err(HttpError::BadPort { port }) if port == "x"
        ));
        let e = split_url("https://h/").unwrap_err();
        assert!(matches!(&e, HttpError::UnsupportedProtocol { url } if url == "https://h/"));
        assert_eq!(
            e.to_string(),
            "Protocol not supported or disabled: https://h/"
        );
        assert_eq!(
            split_url("http:///x").unwrap_err().to_string(),
            "No host part in the URL: http:///x"
        );
        // A refused connection keeps its errno.
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = free.local_addr().unwrap().port();
        drop(free);
        let mut c = Client::new(None, 0);
        match c.connect("127.0.0.1", "127.0.0.1", port) {
            Err(HttpError::Connect { peer, last }) => {
                assert_eq!(peer, format!("127.0.0.1:{port}"));
                assert_eq!(
                    last.and_then(|e| e.raw_os_error()),
                    Some(libc::ECONNREFUSED)
                );
            }
            other => panic!("connected to a closed port: {other:?}"),
        }
    }

    #[test]
    fn challenges_are_read() {
        let a = attributes(r#"realm="r a", nonce="n,1", qop="auth,auth-int", algorithm=MD5"#);
        assert_eq!(
            a,
            [
                ("realm".to_string(), "r a".to_string()),
                ("nonce".into(), "n,1".into()),
                ("qop".into(), "auth,auth-int".into()),
                ("algorithm".into(), "MD5".into())
            ]
        );
    }

    /// RFC 2617's example: Mufasa, "Circle Of Life", realm
    /// testrealm@host.com, GET /dir/index.html.
    #[test]
    fn digest_as_rfc_2617() {
        let mut c = Client::new(Some(("Mufasa".into(), "Circle Of Life".into())), 0);
        c.auth = Some(Auth::Digest {
            realm: "testrealm@host.com".into(),
            nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093".into(),
            opaque: Some("5ccc069c403ebaf9f0171e9517f40e41".into()),
            qop: false,
            nc: 0,
        });
        let h = c.authorization("GET", "/dir/index.html").unwrap();
        // Without qop: MD5(HA1:nonce:HA2).
        let ha1 = md5_hex(b"Mufasa:testrealm@host.com:Circle Of Life");
        let ha2 = md5_hex(b"GET:/dir/index.html");
        let want = md5_hex(format!("{ha1}:dcd98b7102dd2f0e8b11d0f600bfb0c093:{ha2}").as_bytes());
        assert!(h.contains(&format!("response=\"{want}\"")), "{h}");
        assert!(h.starts_with("Digest username=\"Mufasa\""), "{h}");
        c.auth = Some(Auth::Basic);
        assert_eq!(
            c.authorization("GET", "/").unwrap(),
            "Basic TXVmYXNhOkNpcmNsZSBPZiBMaWZl"
        );
    }
}
