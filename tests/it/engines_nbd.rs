//! ioengine=nbd against a real NBD server (`nbdkit`), compared with real
//! fio 3.33: the same job through both gives the same I/O counts, errors
//! and messages.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::json::{json_of, summary};
use common::{rfio, stderr, stdout, TempDir};

/// What to do without nbdkit: the nbd tests need a server.
const NEED_NBDKIT: &str = "nbdkit is needed to test ioengine=nbd: apt-get install -y nbdkit";

/// An `nbdkit` serving a memory disk on a unix socket in `dir`, stopped
/// when dropped.
struct Nbdkit {
    child: Child,
    sock: PathBuf,
}

impl Nbdkit {
    /// `nbdkit -f -U DIR/NAME EXTRA... memory SIZE`.
    fn start(dir: &TempDir, name: &str, extra: &[&str], size: &str) -> Nbdkit {
        let sock = dir.file(name);
        let child = Command::new("nbdkit")
            .arg("-f")
            .arg("-U")
            .arg(&sock)
            .args(extra)
            .args(["memory", size])
            .stdin(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{NEED_NBDKIT} ({e})"));
        let t0 = Instant::now();
        while !sock.exists() {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "nbdkit did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        Nbdkit { child, sock }
    }

    fn uri(&self) -> String {
        format!("--uri=nbd+unix:///?socket={}", self.sock.display())
    }
}

impl Drop for Nbdkit {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// fio 3.33 and rfio on the same nbdkit memory disk (1 MiB), job by job:
/// the same error, I/O counts and bytes, whatever the pattern, depth and
/// block sizes; writes with crc32c verify read back what they wrote; the
/// job's size is the export's when it sets none, and a larger one stops at
/// the export's end; flushes (`fsync=N`) are counted as fio counts them.
#[test]
fn nbd_moves_what_fio_moves() {
    let fio = common::real_fio();
    let dir = TempDir::new("nbd");
    let srv = Nbdkit::start(&dir, "nbd.sock", &[], "1M");
    let uri = srv.uri();
    let cases: &[&[&str]] = &[
        &["--rw=randrw", "--bs=4k", "--size=1m"],
        &[
            "--rw=randwrite",
            "--bs=4k-128k",
            "--iodepth=8",
            "--verify=crc32c",
        ],
        &["--rw=randrw", "--bs=16k", "--iodepth=4", "--fsync=3"],
        &["--rw=write", "--bs=64k"],
        &["--rw=randwrite", "--bs=64k", "--size=2m"],
        &["--rw=write", "--bs=64k", "--offset=512k"],
        &["--rw=trimwrite", "--bs=64k", "--iodepth=2"],
        &["--rw=read", "--bs=1k", "--size=100k", "--iodepth=16"],
    ];
    for case in cases {
        let mut args = vec!["--name=n", "--ioengine=nbd", uri.as_str()];
        args.extend_from_slice(case);
        let (f, _, fio_rc) = json_of(fio, &dir, &args);
        let (r, err, rc) = json_of(common::RFIO, &dir, &args);
        assert_eq!(
            (rc, summary(&r, 0)),
            (fio_rc, summary(&f, 0)),
            "{case:?}: {err}"
        );
        assert_eq!(r["jobs"][0]["error"], 0, "{case:?}: {err}");
    }
    // The figures fio gave: 132 reads and 124 writes of 4 KiB.
    let (r, _, _) = json_of(
        common::RFIO,
        &dir,
        &["--name=n", "--ioengine=nbd", &uri, "--rw=randrw", "--bs=4k"],
    );
    assert_eq!(
        summary(&r, 0).1[..2],
        [(132, 132 * 4096), (124, 124 * 4096)]
    );
    // The sync latency of fsync=3 (fio: 16 writes, 5 flushes).
    let (r, _, _) = json_of(
        common::RFIO,
        &dir,
        &[
            "--name=n",
            "--ioengine=nbd",
            &uri,
            "--rw=write",
            "--bs=64k",
            "--fsync=3",
        ],
    );
    assert_eq!(r["jobs"][0]["sync"]["total_ios"], 5);
    // The corpus file, whose `uri` is nbd.sock in the working directory.
    let job = concat!(env!("CARGO_MANIFEST_DIR"), "/jobfiles/engines/nbd.fio");
    let (f, _, fio_rc) = json_of(fio, &dir, &[job]);
    let (r, err, rc) = json_of(common::RFIO, &dir, &[job]);
    for i in 0..2 {
        assert_eq!(
            (rc, summary(&r, i)),
            (fio_rc, summary(&f, i)),
            "job {i}: {err}"
        );
    }
    assert_eq!(
        summary(&r, 0),
        (0, [(132, 132 * 4096), (124, 124 * 4096), (0, 0)])
    );
}

/// What fio 3.33 prints and does when nbd cannot start: no server at the
/// socket, no `uri`, a URI libnbd cannot read, nobody on the TCP port: the
/// job is reaped unstarted (its report all zeroes, error 0), the run exits
/// 1, and stderr has fio's line (`fio: nbd_connect_uri: nbd_connect_uri:
/// connect: No such file or directory`).
#[test]
fn nbd_setup_failures_as_fio() {
    let fio = common::real_fio();
    let dir = TempDir::new("nbd-down");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let tcp = format!("--uri=nbd://127.0.0.1:{port}/");
    let none = format!(
        "--uri=nbd+unix:///?socket={}",
        dir.file("nobody.sock").display()
    );
    let cases: [(&[&str], &str); 5] = [
        (
            &[none.as_str()],
            "fio: nbd_connect_uri: nbd_connect_uri: connect: No such file or directory\n",
        ),
        (&[], "fio: nbd: uri parameter was not specified\n"),
        (
            &["--uri=foo://x"],
            "fio: nbd_connect_uri: nbd_connect_uri: unknown NBD URI scheme: foo: Invalid argument\n",
        ),
        (
            &["--uri=nbd+unix:///"],
            "fio: nbd_connect_uri: nbd_connect_uri: cannot parse socket parameter from NBD URI \
             (did you mean to use \"nbd+unix:///?socket=...\"?): Invalid argument\n",
        ),
        (
            &[tcp.as_str()],
            &format!(
                "fio: nbd_connect_uri: nbd_connect_uri: connect: 127.0.0.1:{port}: \
                 could not connect to remote host: Connection refused\n"
            ),
        ),
    ];
    for (extra, line) in cases {
        let mut args = vec!["--name=n", "--ioengine=nbd", "--rw=write", "--bs=64k"];
        args.extend_from_slice(extra);
        let (f, fio_err, fio_rc) = json_of(fio, &dir, &args);
        let (r, err, rc) = json_of(common::RFIO, &dir, &args);
        assert!(fio_err.contains(line), "fio {extra:?}: {fio_err}");
        assert!(err.contains(line), "rfio {extra:?}: {err}");
        assert_eq!((rc, summary(&r, 0)), (fio_rc, summary(&f, 0)), "{extra:?}");
        assert_eq!(rc, 1);
    }
    // TLS and vsock URIs are refused before the run, naming why.
    let out = rfio(
        &dir,
        &["--name=n", "--ioengine=nbd", "--uri=nbds://h/", "--size=1m"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "job 'n': ioengine=nbd: uri=nbds://h/: rfio's NBD client has no TLS (nbds:// URIs)"
        ),
        "{}",
        stderr(&out)
    );
}

/// A read-only export (`nbdkit -r`): fio's libnbd refuses the first write
/// before sending it (EPERM) and the first trim (the server offers none:
/// EINVAL); fio reports `td_io_queue`'s error
/// (`err=1/file:ioengines.c:399, func=td_io_queue, error=Operation not
/// permitted`), the write counted as issued, and so does rfio. Reads work.
#[test]
fn nbd_read_only_export_as_fio() {
    let fio = common::real_fio();
    let dir = TempDir::new("nbd-ro");
    let srv = Nbdkit::start(&dir, "ro.sock", &["-r"], "256K");
    let uri = srv.uri();
    for (rw, verror) in [
        (
            "write",
            "err=1/file:ioengines.c:399, func=td_io_queue, error=Operation not permitted",
        ),
        (
            "randtrim",
            "err=22/file:ioengines.c:399, func=td_io_queue, error=Invalid argument",
        ),
        ("read", ""),
    ] {
        let args = [
            "--name=n",
            "--ioengine=nbd",
            uri.as_str(),
            &format!("--rw={rw}"),
            "--bs=64k",
        ];
        let (f, _, fio_rc) = json_of(fio, &dir, &args);
        let (r, err, rc) = json_of(common::RFIO, &dir, &args);
        assert_eq!(
            (rc, summary(&r, 0)),
            (fio_rc, summary(&f, 0)),
            "{rw}: {err}"
        );
        let out = rfio(&dir, &args);
        let text = stdout(&out) + &stderr(&out);
        assert!(text.contains(verror), "{rw}: {text}");
        assert!(!text.contains("io_u error"), "{rw}: {text}");
    }
}
