//! The engine and its client against a small server played by a thread:
//! kept-alive connections, chunked bodies, a body too large for the
//! buffer, the DELETE that stays after a trim.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use super::*;

/// Serve `conns` connections; on each, answer requests until the client
/// closes: `GET /big*` with 8 KiB, other GETs with a chunked `hello`,
/// anything else with 204. Returns the request lines, one list per
/// connection.
fn serve(l: TcpListener, conns: usize) -> Vec<Vec<String>> {
    let threads: Vec<_> = (0..conns)
        .map(|_| {
            let (s, _) = l.accept().unwrap();
            std::thread::spawn(move || serve_one(s))
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

/// The requests of one connection.
fn serve_one(s: std::net::TcpStream) -> Vec<String> {
    {
        let mut r = BufReader::new(s.try_clone().unwrap());
        let mut w = s;
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            let mut len = 0usize;
            loop {
                let mut h = String::new();
                r.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0u8; len];
            r.read_exact(&mut body).unwrap();
            let line = line.trim_end().to_string();
            let reply: Vec<u8> = if line.starts_with("GET /big") {
                let mut v = b"HTTP/1.1 200 OK\r\nContent-Length: 8192\r\n\r\n".to_vec();
                v.extend_from_slice(&[7u8; 8192]);
                v
            } else if line.starts_with("GET ") {
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n"
                    .to_vec()
            } else {
                b"HTTP/1.1 204 No Content\r\n\r\n".to_vec()
            };
            lines.push(line);
            if w.write_all(&reply).is_err() {
                break;
            }
        }
        lines
    }
}

fn io(dir: Ddir, offset: u64, buf: &mut [u8]) -> Io {
    Io {
        token: 0,
        file: FileId(0),
        dir,
        offset,
        len: buf.len(),
        buf: buf.as_mut_ptr(),
    }
}

#[test]
fn requests_as_fios_engine_makes_them() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let server = std::thread::spawn(move || serve(l, 2));
    let o = HttpOptions {
        host: format!("127.0.0.1:{port}"),
        object: "/o".into(),
        ..HttpOptions::default()
    };
    let mut e = new(&CommonOptions::default(), &o, IoMem::NONE).unwrap();
    let mut b = [1u8; 5];
    // SAFETY (each queue): the buffer outlives the call, which completes
    // the I/O.
    assert_eq!(
        unsafe { e.queue(&io(Ddir::Write, 0, &mut b)) },
        Queued::Completed(Ok(5))
    );
    let mut r = [0u8; 6];
    assert_eq!(
        unsafe { e.queue(&io(Ddir::Read, 5, &mut r)) },
        Queued::Completed(Ok(6))
    );
    assert_eq!(&r, b"hello\0");
    // 8 KiB for a 4 KiB buffer: the transfer fails (and the connection
    // with it).
    let big = HttpOptions {
        object: "/big".into(),
        ..o.clone()
    };
    let mut e2 = new(&CommonOptions::default(), &big, IoMem::NONE).unwrap();
    let mut small = [0u8; 4096];
    assert_eq!(
        unsafe { e2.queue(&io(Ddir::Read, 0, &mut small)) },
        Queued::Completed(Err(-1))
    );
    let q = e2.queue_error(-1).unwrap();
    // fio's says nothing; rfio says what failed.
    let log = q.log.unwrap();
    assert!(
        log.starts_with("http: 127.0.0.1:")
            && log.ends_with(": Content-Length 8192 exceeds the I/O's 4096 bytes\n"),
        "{log}"
    );
    assert_eq!(q.error.to_string(), "transfer: Unknown error -1");
    drop(e2);
    // A trim, and every request after it is a DELETE.
    assert_eq!(
        unsafe { e.queue(&io(Ddir::Trim, 0, &mut b)) },
        Queued::Completed(Ok(5))
    );
    assert_eq!(
        unsafe { e.queue(&io(Ddir::Write, 0, &mut b)) },
        Queued::Completed(Ok(5))
    );
    let mut none = [0u8; 0];
    assert_eq!(
        unsafe { e.queue(&io(Ddir::Sync, 0, &mut none)) },
        Queued::Completed(Err(-1))
    );
    assert_eq!(
        e.queue_error(-1).unwrap().log.as_deref(),
        Some("WARNING: Only DDIR_READ/DDIR_WRITE/DDIR_TRIM are supported!\n")
    );
    drop(e);
    let conns = server.join().unwrap();
    assert_eq!(
        conns[0],
        [
            "PUT /o_0_5 HTTP/1.1",
            "GET /o_5_6 HTTP/1.1",
            "DELETE /o_0_5 HTTP/1.1",
            "DELETE /o_0_5 HTTP/1.1"
        ],
        "one kept connection"
    );
    assert_eq!(conns[1], ["GET /big_0_4096 HTTP/1.1"]);
}
