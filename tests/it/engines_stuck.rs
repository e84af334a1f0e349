//! Engines against peers that accept and never answer (net, http, nbd): a job
//! ends at its runtime and on SIGTERM with the results so far, where fio
//! 3.33 waits on the peer forever (its net engine ignores both; SIGTERM
//! prints `fio: terminating on signal 15` and fio goes on waiting). And
//! what the http and net engines say when a peer fails them.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::common;
use common::{stderr, stdout, TempDir};

/// A loopback listener that accepts every connection and holds it without
/// a byte (or, with `reply`, answers each with `reply` once it has read a
/// request's first bytes; or, with `greet`, sends `greet` at once and
/// nothing more); it stops when dropped.
struct Silent {
    port: u16,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Silent {
    fn start(reply: Option<&'static [u8]>) -> Silent {
        Silent::spawn(reply, None)
    }

    fn greeting(greet: &'static [u8]) -> Silent {
        Silent::spawn(None, Some(greet))
    }

    fn spawn(reply: Option<&'static [u8]>, greet: Option<&'static [u8]>) -> Silent {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        let port = l.local_addr().unwrap().port();
        let done = Arc::new(AtomicBool::new(false));
        let stop = done.clone();
        let thread = std::thread::spawn(move || {
            let mut held: Vec<TcpStream> = Vec::new();
            let end = Instant::now() + Duration::from_secs(60);
            while !stop.load(Ordering::Relaxed) && Instant::now() < end {
                match l.accept() {
                    Ok((mut s, _)) => {
                        if let Some(g) = greet {
                            s.set_nonblocking(false).unwrap();
                            let _ = s.write_all(g);
                        }
                        if let Some(r) = reply {
                            s.set_nonblocking(false).unwrap();
                            let mut b = [0u8; 512];
                            let _ = s.read(&mut b);
                            let _ = s.write_all(r);
                        }
                        held.push(s);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Silent {
            port,
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// rfio with `args`, which must end within 10 s; its output and how long
/// it took.
fn timed(dir: &TempDir, args: &[&str]) -> (std::process::Output, Duration) {
    let t0 = Instant::now();
    let out = common::run_limited(common::RFIO, dir, args, Duration::from_secs(10));
    (out, t0.elapsed())
}

fn net_reader(port: u16) -> Vec<String> {
    [
        "--name=r",
        "--ioengine=net",
        "--hostname=127.0.0.1",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--runtime=2",
        "--time_based",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--port={port}")])
    .collect()
}

fn http_reader(port: u16) -> Vec<String> {
    [
        "--name=h",
        "--ioengine=http",
        "--filename=/o",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--runtime=2",
        "--time_based",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--http_host=127.0.0.1:{port}")])
    .collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Ends at its runtime, status 0, no error: the read waiting on the
/// silent peer is not counted (no I/O: the report has no job lines).
fn ends_at_the_runtime(args: &[String]) {
    let dir = TempDir::new("stuck");
    let (out, took) = timed(&dir, &strs(args));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(took >= Duration::from_secs(2), "{took:?}");
    assert!(!stderr(&out).contains("err="), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Run status group 0"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("err="), "{}", stdout(&out));
}

#[test]
fn a_net_reader_of_a_silent_peer_ends_at_its_runtime() {
    let peer = Silent::start(None);
    ends_at_the_runtime(&net_reader(peer.port));
}

#[test]
fn an_http_job_on_a_silent_server_ends_at_its_runtime() {
    let peer = Silent::start(None);
    ends_at_the_runtime(&http_reader(peer.port));
}

/// A listening net job whose peer connects and never sends: its runtime
/// starts with the connection (as fio) and ends 2 s later.
#[test]
fn a_net_listener_with_a_silent_peer_ends_at_its_runtime() {
    let dir = TempDir::new("stuck-listen");
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut cmd = std::process::Command::new(common::RFIO);
    cmd.current_dir(&dir.0).args([
        "--name=r",
        "--ioengine=net",
        "--listen",
        &format!("--port={port}"),
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--runtime=2",
        "--time_based",
    ]);
    let mut run = common::Running::start(&mut cmd);
    run.wait_for_stdout("the wait", Duration::from_secs(10), |s| {
        s.contains("fio: waiting for connection")
    });
    let peer = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let out = run.finish(Duration::from_secs(10), "the runtime");
    drop(peer);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("err="), "{}", stderr(&out));
}

/// SIGTERM while the job waits on a silent peer: it ends at once with
/// fio's message and the report, status 128.
fn ends_on_sigterm(args: &[String]) {
    let dir = TempDir::new("stuck-term");
    let mut a = strs(args);
    // Long enough that only the signal can end it within the test's limit.
    a.retain(|s| *s != "--runtime=2");
    a.push("--runtime=60");
    let mut cmd = std::process::Command::new(common::RFIO);
    cmd.current_dir(&dir.0).args(&a);
    let mut run = common::Running::start(&mut cmd);
    run.wait_for_stdout("the start", Duration::from_secs(10), |s| {
        s.contains("Starting 1 process")
    });
    // Let the job reach its wait on the peer.
    std::thread::sleep(Duration::from_millis(300));
    run.signal(libc::SIGTERM);
    let t0 = Instant::now();
    let out = run.finish(Duration::from_secs(5), "SIGTERM");
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(128), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("fio: terminating on signal 15"),
        "rfio's on stderr: {}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("Run status group 0"),
        "{}",
        stdout(&out)
    );
    // The read the signal cut is no error of the job's.
    assert!(!stdout(&out).contains("err="), "{}", stdout(&out));
    assert!(!stderr(&out).contains("err="), "{}", stderr(&out));
}

#[test]
fn a_net_reader_of_a_silent_peer_ends_on_sigterm() {
    let peer = Silent::start(None);
    ends_on_sigterm(&net_reader(peer.port));
}

#[test]
fn an_http_job_on_a_silent_server_ends_on_sigterm() {
    let peer = Silent::start(None);
    ends_on_sigterm(&http_reader(peer.port));
}

/// fio's error line of a failed transfer, which rfio keeps.
const VERROR: &str = "err=-1/file:engines/http.c:715, func=transfer, error=Unknown error -1";

/// One read from `host`: rfio's stderr, which must hold fio's error.
fn http_fails(host: &str) -> String {
    let dir = TempDir::new("http-why");
    let (out, _) = timed(
        &dir,
        &[
            "--name=h",
            "--ioengine=http",
            &format!("--http_host={host}"),
            "--filename=/o",
            "--rw=read",
            "--bs=4k",
            "--size=4k",
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(VERROR), "{err}");
    err
}

#[test]
fn http_failures_name_the_peer_and_what_happened() {
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let err = http_fails(&format!("127.0.0.1:{closed}"));
    assert!(
        err.contains(&format!(
            "http: connect to 127.0.0.1:{closed}: Connection refused\n"
        )),
        "{err}"
    );
    let garbage = Silent::start(Some(b"SSH-2.0-OpenSSH\x1b[31m\r\n"));
    let err = http_fails(&format!("127.0.0.1:{}", garbage.port));
    assert!(
        err.contains(&format!(
            "http: 127.0.0.1:{} sent a reply that is not HTTP: \"SSH-2.0-OpenSSH\\x1b[31m\"\n",
            garbage.port
        )),
        "{err}"
    );
    let huge = Silent::start(Some(
        b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999\r\n\r\n",
    ));
    let err = http_fails(&format!("127.0.0.1:{}", huge.port));
    assert!(
        err.contains(&format!(
            "http: 127.0.0.1:{}: Content-Length 99999999999999 exceeds the I/O's 4096 bytes\n",
            huge.port
        )),
        "{err}"
    );
    let err = http_fails("nosuch.invalid");
    assert!(
        err.contains("http: cannot resolve host 'nosuch.invalid': "),
        "{err}"
    );
}

/// A host the net engine cannot resolve: fio's line (`err=22`,
/// `getaddrinfo: ...`), naming the host.
#[test]
fn net_names_the_host_it_cannot_resolve() {
    let dir = TempDir::new("net-resolve");
    let (out, _) = timed(
        &dir,
        &[
            "--name=w",
            "--ioengine=net",
            "--hostname=nosuch.invalid",
            "--port=9",
            "--rw=write",
            "--size=8k",
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("err=22/file:engines/net.c:1045, func=getaddrinfo: "),
        "{err}"
    );
    assert!(
        err.contains(", error=Invalid argument (net: cannot resolve host 'nosuch.invalid')\n"),
        "{err}"
    );
}

/// An oldstyle NBD server's whole handshake (its magic, the export's
/// 1 MiB size, no flags, 124 zero bytes), after which it answers nothing.
const NBD_OLDSTYLE: &[u8] = &{
    let mut h = [0u8; 152];
    let head: [u8; 16] = *b"NBDMAGIC\x00\x00\x42\x02\x81\x86\x12\x53";
    let mut i = 0;
    while i < 16 {
        h[i] = head[i];
        i += 1;
    }
    h[16 + 5] = 0x10;
    h
};

fn nbd_reader(port: u16) -> Vec<String> {
    [
        "--name=n",
        "--ioengine=nbd",
        "--rw=read",
        "--bs=4k",
        "--runtime=2",
        "--time_based",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--uri=nbd://127.0.0.1:{port}/")])
    .collect()
}

/// A server that shakes hands and then never answers a request: the job
/// (started, `fio: connected to NBD server`) ends at its runtime, its
/// reads in flight dropped, no error (fio 3.33 waits forever).
#[test]
fn an_nbd_job_on_a_server_silent_after_the_handshake_ends_at_its_runtime() {
    let peer = Silent::greeting(NBD_OLDSTYLE);
    let dir = TempDir::new("stuck-nbd");
    let (out, took) = timed(&dir, &strs(&nbd_reader(peer.port)));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(took >= Duration::from_secs(2), "{took:?}");
    assert!(
        stdout(&out).contains("fio: connected to NBD server"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("Run status group 0"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("err="), "{}", stdout(&out));
    assert!(!stderr(&out).contains("err="), "{}", stderr(&out));
}

/// SIGTERM while the engine's setup waits for a silent server's hello:
/// the run ends at once, the job unstarted and no error of its own, with
/// fio's message; status 128 as any signalled run.
#[test]
fn an_nbd_handshake_with_a_silent_server_ends_on_sigterm() {
    let peer = Silent::start(None);
    let dir = TempDir::new("stuck-nbd-term");
    let mut cmd = std::process::Command::new(common::RFIO);
    cmd.current_dir(&dir.0).args(strs(&nbd_reader(peer.port)));
    let run = common::Running::start(&mut cmd);
    // The setup waits before anything is printed: let it reach the wait.
    std::thread::sleep(Duration::from_millis(500));
    run.signal(libc::SIGTERM);
    let t0 = Instant::now();
    let out = run.finish(Duration::from_secs(5), "SIGTERM");
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(128), "{}", stderr(&out));
    // rfio's message on stderr, and nothing else there: the cut
    // handshake is no error.
    assert_eq!(stderr(&out), "\nfio: terminating on signal 15\n");
}
