//! The engines of issue 11 §3, second batch (nbd, http, e4defrag, libpmem,
//! dev-dax), each run here against what it needs (an `nbdkit` server, a
//! small HTTP server, an ext4 filesystem in a loop device) and compared
//! with real fio 3.33 where fio has the engine: the same job through both
//! gives the same I/O counts, errors and messages.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
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

/// The JSON document a binary printed (fio's notices around it left out),
/// its stderr and exit status.
fn json_of(bin: &str, dir: &TempDir, args: &[&str]) -> (serde_json::Value, String, i32) {
    json_env(bin, dir, args, &[])
}

/// [`json_of`] with `env` added to the environment.
fn json_env(
    bin: &str,
    dir: &TempDir,
    args: &[&str],
    env: &[(&str, &str)],
) -> (serde_json::Value, String, i32) {
    let mut a = vec!["--output-format=json"];
    a.extend_from_slice(args);
    let mut cmd = Command::new(bin);
    cmd.current_dir(&dir.0).args(&a).envs(env.iter().copied());
    let (out, timed_out) = common::output_within(&mut cmd, common::RUN_LIMIT);
    assert!(!timed_out, "{bin} {a:?} hung");
    let text = stdout(&out);
    let start = text.find("{\n").unwrap_or(0);
    let end = text.rfind('}').map_or(text.len(), |e| e + 1);
    let doc = serde_json::from_str(&text[start..end])
        .unwrap_or_else(|e| panic!("{bin} {args:?}: {e}: {text}\n{}", stderr(&out)));
    (doc, stderr(&out), out.status.code().unwrap_or(-1))
}

/// A job's error and its read, write and trim counts (I/Os and bytes).
fn summary(doc: &serde_json::Value, job: usize) -> (i64, [(u64, u64); 3]) {
    let j = &doc["jobs"][job];
    let dir = |d: &str| {
        (
            j[d]["total_ios"].as_u64().unwrap_or(u64::MAX),
            j[d]["io_bytes"].as_u64().unwrap_or(u64::MAX),
        )
    };
    (
        j["error"].as_i64().unwrap_or(i64::MIN),
        [dir("read"), dir("write"), dir("trim")],
    )
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

/// A small object store for the http engine (python3's http.server):
/// PUT stores, GET returns (404 when absent), DELETE removes; paths under
/// `/fail` answer 500. Each request is one line of `requests.log`:
/// `METHOD PATH STATUS`. With `--s3 KEYID SECRET` it checks each request's
/// AWS Signature Version 4 (its own reading of AWS's rules, with Python's
/// hashlib and hmac) and the body's SHA-256, answering 403 when either is
/// wrong; with `--swift TOKEN` the token and the etag of each PUT; with
/// `--basic USER PASS` it asks for Basic credentials (401) when a request
/// has none. It prints its port when it listens.
const OBJECT_STORE: &str = r#"
import hashlib, hmac, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = sys.argv[1:]
mode = args[0] if args else ""
store = {}
log = open("requests.log", "a", buffering=1)

def sign(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body=b"", extra=()):
        log.write(f"{self.command} {self.path} {status}\n")
        self.send_response(status)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def allowed(self, body):
        h = self.headers
        if mode == "--basic":
            import base64
            want = "Basic " + base64.b64encode(f"{args[1]}:{args[2]}".encode()).decode()
            if h.get("Authorization") != want:
                self.reply(401, b"who?", [("WWW-Authenticate", 'Basic realm="store"')])
                return False
        if mode == "--swift":
            if h.get("x-auth-token") != args[1]:
                self.reply(401)
                return False
            if self.command == "PUT" and h.get("etag") != hashlib.md5(body).hexdigest():
                self.reply(422)
                return False
        if mode == "--s3":
            auth = h.get("Authorization", "")
            if not auth.startswith("AWS4-HMAC-SHA256 "):
                self.reply(403)
                return False
            f = dict(p.split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
            keyid, date, region, service, term = f["Credential"].split("/")
            signed = f["SignedHeaders"].split(";")
            payload = h["x-amz-content-sha256"]
            if payload != hashlib.sha256(body).hexdigest():
                self.reply(403)
                return False
            path = urllib.parse.quote(urllib.parse.unquote(self.path), safe="/~")
            canon = "".join(f"{n}:{h[n].strip()}\n" for n in signed)
            creq = "\n".join([self.command, path, "", canon, ";".join(signed), payload])
            scope = f"{date}/{region}/{service}/{term}"
            sts = "\n".join(["AWS4-HMAC-SHA256", h["x-amz-date"], scope,
                             hashlib.sha256(creq.encode()).hexdigest()])
            k = sign(("AWS4" + args[2]).encode(), date)
            for part in (region, service, term):
                k = sign(k, part)
            want = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
            if keyid != args[1] or f["Signature"] != want or h["x-amz-date"][:8] != date:
                self.reply(403)
                return False
        return True

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def do_PUT(self):
        body = self.body()
        if not self.allowed(body):
            return
        if self.path.startswith("/fail"):
            return self.reply(500, b"no")
        store[self.path] = body
        self.reply(201)

    def do_GET(self):
        if not self.allowed(b""):
            return
        if self.path in store:
            self.reply(200, store[self.path])
        else:
            self.reply(404, b"not here")

    def do_DELETE(self):
        self.body()
        if not self.allowed(b""):
            return
        self.reply(204 if store.pop(self.path, None) is not None else 404)

srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
"#;

/// The object store, run with python3 in `dir`, stopped when dropped.
struct Store {
    child: Child,
    port: u16,
    log: PathBuf,
    /// Lines of the log already taken.
    seen: std::cell::Cell<usize>,
}

impl Store {
    fn start(dir: &TempDir, args: &[&str]) -> Store {
        use std::io::BufRead;
        let script = dir.write("store.py", OBJECT_STORE);
        let _ = std::fs::remove_file(dir.file("requests.log"));
        let mut child = Command::new("python3")
            .arg(&script)
            .args(args)
            .current_dir(&dir.0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the test's HTTP server");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the server's port");
        Store {
            child,
            port,
            log: dir.file("requests.log"),
            seen: std::cell::Cell::new(0),
        }
    }

    fn host(&self) -> String {
        format!("--http_host=127.0.0.1:{}", self.port)
    }

    /// The requests since the last call (`METHOD PATH STATUS`).
    fn take(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let seen = self.seen.replace(lines.len());
        lines[seen.min(lines.len())..].to_vec()
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// rfio's JSON report of an http job, its stderr and exit status.
fn http_run(dir: &TempDir, store: &Store, args: &[&str]) -> (serde_json::Value, String, i32) {
    let host = store.host();
    let mut a = vec!["--name=h", "--ioengine=http", host.as_str()];
    a.extend_from_slice(args);
    json_of(common::RFIO, dir, &a)
}

/// fio's examples/http-webdav.fio, small (no fio to compare with: Debian's
/// fio 3.33 lacks the engine, so the expectations are fio-3.33's source):
/// random writes of 4 KiB objects named `FILE_OFFSET_LENGTH` with sha256
/// verify (16 PUTs, then 16 GETs reading them back), then trims (16
/// DELETEs); a read of objects that are gone reads zeroes (404) without
/// error.
#[test]
fn http_webdav_puts_gets_and_deletes_objects() {
    let dir = TempDir::new("http");
    let store = Store::start(&dir, &[]);
    let common = ["--filename=/dav/bucket", "--bs=4k", "--size=64k"];
    let mut a = common.to_vec();
    a.extend(["--rw=randwrite", "--verify=sha256"]);
    let (doc, err, rc) = http_run(&dir, &store, &a);
    assert_eq!((rc, summary(&doc, 0).0), (0, 0), "{err}");
    assert_eq!(summary(&doc, 0).1[..2], [(16, 65536), (16, 65536)]);
    let reqs = store.take();
    assert_eq!(reqs.len(), 32, "{reqs:?}");
    assert!(reqs[..16]
        .iter()
        .all(|r| r.starts_with("PUT /dav/bucket_") && r.ends_with("_4096 201")));
    assert!(reqs[16..]
        .iter()
        .all(|r| r.starts_with("GET ") && r.ends_with(" 200")));
    assert!(
        reqs.contains(&"PUT /dav/bucket_61440_4096 201".to_string()),
        "{reqs:?}"
    );
    let mut a = common.to_vec();
    a.push("--rw=trim");
    let (doc, err, rc) = http_run(&dir, &store, &a);
    assert_eq!(
        (rc, summary(&doc, 0)),
        (0, (0, [(0, 0), (0, 0), (16, 65536)])),
        "{err}"
    );
    let reqs = store.take();
    assert_eq!(reqs.len(), 16);
    assert!(reqs
        .iter()
        .all(|r| r.starts_with("DELETE /dav/bucket_") && r.ends_with(" 204")));
    let mut a = common.to_vec();
    a.extend(["--rw=read", "--size=16k"]);
    let (doc, err, rc) = http_run(&dir, &store, &a);
    assert_eq!(
        (rc, summary(&doc, 0)),
        (0, (0, [(4, 16384), (0, 0), (0, 0)])),
        "{err}"
    );
    assert!(store
        .take()
        .iter()
        .all(|r| r.starts_with("GET ") && r.ends_with(" 404")));
    // http_verbose=1: curl's trace of each request on stderr.
    let (_, err, _) = http_run(
        &dir,
        &store,
        &[
            "--filename=/v",
            "--rw=write",
            "--size=4k",
            "--http_verbose=1",
        ],
    );
    assert!(err.contains("> PUT /v_0_4096 HTTP/1.1\r\n"), "{err}");
    assert!(err.contains("< HTTP/1.1 201 Created\r\n"), "{err}");
    assert!(
        err.contains("* Connected to 127.0.0.1 (127.0.0.1) port"),
        "{err}"
    );
}

/// `http_mode=s3`: every request carries fio's AWS Signature Version 4
/// (`host;x-amz-content-sha256;x-amz-date;x-amz-storage-class`, and the
/// three SSE-C headers with a customer key), which the server checks with
/// its own reading of AWS's rules: a wrong signature would be a 403 and
/// the job's error. `http_mode=swift`: the token and each PUT's MD5 etag.
#[test]
fn http_s3_and_swift_requests_pass_the_servers_checks() {
    let dir = TempDir::new("http-s3");
    let store = Store::start(&dir, &["--s3", "AKIDEXAMPLE", "s3cr3t/+key"]);
    for extra in [
        &[][..],
        &["--http_s3_sse_customer_key=0123456789abcdef0123456789abcdef"],
    ] {
        let mut a = vec![
            "--filename=/bucket/obj ect",
            "--http_mode=s3",
            "--http_s3_keyid=AKIDEXAMPLE",
            "--http_s3_key=s3cr3t/+key",
            "--http_s3_region=eu-central-1",
            "--rw=write",
            "--bs=4k",
            "--size=16k",
            "--verify=crc32c",
        ];
        a.extend_from_slice(extra);
        let (doc, err, rc) = http_run(&dir, &store, &a);
        assert_eq!((rc, summary(&doc, 0).0), (0, 0), "{extra:?}: {err}");
        let reqs = store.take();
        assert_eq!(reqs.len(), 8, "{reqs:?}");
        assert!(
            reqs.iter()
                .all(|r| r.ends_with(" 201") || r.ends_with(" 200")),
            "{reqs:?}"
        );
        assert!(
            reqs[0].starts_with("PUT /bucket/obj%20ect_0_4096"),
            "{reqs:?}"
        );
    }
    // A wrong key: the server refuses the first PUT, fio's line and error.
    let (doc, err, rc) = http_run(
        &dir,
        &store,
        &[
            "--filename=/b/o",
            "--http_mode=s3",
            "--http_s3_keyid=AKIDEXAMPLE",
            "--http_s3_key=wrong",
            "--rw=write",
            "--bs=4k",
            "--size=16k",
        ],
    );
    assert_eq!((rc, summary(&doc, 0).0), (1, -1), "{err}");
    assert!(
        err.contains("DDIR_WRITE failed with HTTP status code 403\n"),
        "{err}"
    );
    drop(store);
    let store = Store::start(&dir, &["--swift", "tok"]);
    let (doc, err, rc) = http_run(
        &dir,
        &store,
        &[
            "--filename=/v1/c/o",
            "--http_mode=swift",
            "--http_swift_auth_token=tok",
            "--rw=randwrite",
            "--bs=8k",
            "--size=32k",
            "--verify=md5",
        ],
    );
    assert_eq!((rc, summary(&doc, 0).0), (0, 0), "{err}");
    assert_eq!(store.take().len(), 8);
}

/// `http_user` and `http_pass`: offered when the server asks (a 401 with
/// `WWW-Authenticate: Basic`), then sent with each request.
#[test]
fn http_credentials_when_the_server_asks() {
    let dir = TempDir::new("http-auth");
    let store = Store::start(&dir, &["--basic", "ann", "pw"]);
    let (doc, err, rc) = http_run(
        &dir,
        &store,
        &[
            "--filename=/o",
            "--http_user=ann",
            "--http_pass=pw",
            "--rw=write",
            "--bs=4k",
            "--size=16k",
        ],
    );
    assert_eq!(
        (rc, summary(&doc, 0)),
        (0, (0, [(0, 0), (4, 16384), (0, 0)])),
        "{err}"
    );
    let reqs = store.take();
    assert_eq!(reqs[0], "PUT /o_0_4096 401");
    assert_eq!(
        reqs[1..].iter().filter(|r| r.ends_with(" 201")).count(),
        4,
        "{reqs:?}"
    );
    // Without credentials the 401 is the job's error.
    let (doc, err, _) = http_run(&dir, &store, &["--filename=/o", "--rw=write", "--size=4k"]);
    assert_eq!(summary(&doc, 0).0, -1);
    assert!(
        err.contains("DDIR_WRITE failed with HTTP status code 401"),
        "{err}"
    );
}

/// The failures of fio-3.33's http engine: a status it does not accept
/// (`DDIR_WRITE failed with HTTP status code 500`), no server (no line),
/// a sync (`WARNING: Only DDIR_READ/DDIR_WRITE/DDIR_TRIM are
/// supported!`): each is `td_verror(td, -1, "transfer")`, the job's error
/// -1 (`err=-1/file:engines/http.c:715, func=transfer, error=Unknown error
/// -1`), exit status 1. `https=on` needs TLS, which rfio refuses before
/// the run.
#[test]
fn http_failures_as_fios_source() {
    let dir = TempDir::new("http-fail");
    let store = Store::start(&dir, &[]);
    let verror = "err=-1/file:engines/http.c:715, func=transfer, error=Unknown error -1";
    let (doc, err, rc) = http_run(
        &dir,
        &store,
        &["--filename=/fail/o", "--rw=write", "--size=8k"],
    );
    assert_eq!(
        (rc, summary(&doc, 0)),
        (1, (-1, [(0, 0), (1, 0), (0, 0)])),
        "{err}"
    );
    assert!(
        err.contains("DDIR_WRITE failed with HTTP status code 500\n"),
        "{err}"
    );
    assert!(err.contains(verror), "{err}");
    let (doc, err, _) = http_run(
        &dir,
        &store,
        &["--filename=/o", "--rw=write", "--size=8k", "--fsync=1"],
    );
    assert_eq!(summary(&doc, 0).0, -1);
    assert!(
        err.contains("WARNING: Only DDIR_READ/DDIR_WRITE/DDIR_TRIM are supported!\n"),
        "{err}"
    );
    drop(store);
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let (doc, err, rc) = json_of(
        common::RFIO,
        &dir,
        &[
            "--name=h",
            "--ioengine=http",
            &format!("--http_host=127.0.0.1:{closed}"),
            "--filename=/o",
            "--rw=read",
            "--size=8k",
        ],
    );
    assert_eq!((rc, summary(&doc, 0).0), (1, -1), "{err}");
    assert!(err.contains(verror), "{err}");
    assert!(!err.contains("failed with HTTP status"), "{err}");
    let out = rfio(
        &dir,
        &[
            "--name=h",
            "--ioengine=http",
            "--https=insecure",
            "--size=8k",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("job 'h': ioengine=http: https=insecure needs TLS, which rfio does not have"),
        "{}",
        stderr(&out)
    );
}

/// An ext4 filesystem in a file, loop-mounted on a directory (root only),
/// unmounted when dropped; `None`, with the reason, where mkfs.ext4 or the
/// loop mount is not available.
struct Ext4 {
    dir: TempDir,
    mnt: PathBuf,
}

impl Ext4 {
    fn mount() -> Result<Ext4, String> {
        let dir = TempDir::new("ext4");
        let img = dir.file("fs.img");
        let mnt = dir.file("mnt");
        std::fs::create_dir(&mnt).unwrap();
        std::fs::File::create(&img)
            .and_then(|f| f.set_len(32 << 20))
            .map_err(|e| e.to_string())?;
        let run = |cmd: &mut Command| -> Result<(), String> {
            match cmd.output() {
                Ok(o) if o.status.success() => Ok(()),
                Ok(o) => Err(format!("{cmd:?}: {}", String::from_utf8_lossy(&o.stderr))),
                Err(e) => Err(format!("{cmd:?}: {e}")),
            }
        };
        run(Command::new("mkfs.ext4").args(["-F", "-q"]).arg(&img))?;
        run(Command::new("mount")
            .args(["-o", "loop"])
            .arg(&img)
            .arg(&mnt))?;
        Ok(Ext4 { dir, mnt })
    }

    fn arg(&self) -> String {
        format!("--directory={}", self.mnt.display())
    }

    /// Remove the files of the filesystem (`lost+found` stays).
    fn clean(&self) {
        for e in std::fs::read_dir(&self.mnt).unwrap().flatten() {
            if e.path().is_file() {
                std::fs::remove_file(e.path()).unwrap();
            }
        }
    }
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mnt).status();
    }
}

/// fio 3.33 and rfio, e4defrag on a fresh loop-mounted ext4: donors
/// allocated once (`inplace=0`, from offset to `filesize`) or for each
/// write (`inplace=1`, truncated after); direct or buffered; verify after
/// the moves (the data is the file's, untouched by the move); and the
/// failures: no donorname (`'donorname' options required`, error 1 with
/// no text), no filesize (fallocate's EINVAL at `e4defrag.c:113`), a donor
/// that cannot be created (`Can't open donor file ...`, ENOENT at
/// `e4defrag.c:93`), a read (EINVAL, `td_io_queue`). Same errors, counts,
/// lines and donor sizes from both.
#[test]
fn e4defrag_moves_blocks_as_fio() {
    let fio = common::real_fio();
    let fs = match Ext4::mount() {
        Ok(fs) => fs,
        Err(why) => {
            println!("skipping e4defrag: no ext4 loop mount here: {why}");
            return;
        }
    };
    let d = fs.arg();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--donorname=a.def",
                "--filesize=1m",
                "--bs=32k",
                "--rw=write",
                "--direct=1",
            ],
            "",
        ),
        (
            &[
                "--donorname=b.def",
                "--inplace=1",
                "--size=256k",
                "--bs=4k",
                "--rw=randwrite",
            ],
            "",
        ),
        (
            &[
                "--donorname=c.def",
                "--filesize=512k",
                "--offset=128k",
                "--bs=16k",
                "--rw=randwrite",
                "--verify=crc32c",
            ],
            "",
        ),
        (
            &["--size=256k", "--rw=write"],
            "'donorname' options required\nfio: io engine e4defrag init failed.\n",
        ),
        (
            &["--donorname=d.def", "--size=256k", "--rw=write"],
            "fio: io engine e4defrag init failed.\n",
        ),
        (
            &["--donorname=nodir/e.def", "--filesize=256k", "--rw=write"],
            "Can't open donor file ",
        ),
        (
            &[
                "--donorname=f.def",
                "--inplace=1",
                "--size=256k",
                "--rw=read",
            ],
            "",
        ),
    ];
    for (i, (case, line)) in cases.iter().enumerate() {
        let file = format!("--filename=f{i}");
        let mut args = vec!["--name=d", "--ioengine=e4defrag", d.as_str(), file.as_str()];
        args.extend_from_slice(case);
        let (f, fio_err, fio_rc) = json_of(fio, &fs.dir, &args);
        let donor = |c: &[&str]| {
            c.iter()
                .find_map(|a| a.strip_prefix("--donorname="))
                .and_then(|n| std::fs::metadata(fs.mnt.join(n)).ok())
                .map(|m| m.len())
        };
        let fio_donor = donor(case);
        fs.clean();
        let (r, err, rc) = json_of(common::RFIO, &fs.dir, &args);
        assert_eq!(
            (rc, summary(&r, 0)),
            (fio_rc, summary(&f, 0)),
            "{case:?}: {err}"
        );
        assert_eq!(donor(case), fio_donor, "{case:?}: the donor's size");
        assert!(fio_err.contains(line), "fio {case:?}: {fio_err}");
        assert!(err.contains(line), "rfio {case:?}: {err}");
        fs.clean();
    }
}

/// fio 3.33 and rfio, libpmem on a regular file: not persistent memory,
/// the job fails when it opens its file (`err=95/file:engines/libpmem.c:114,
/// func=file_name does not point to persistent memory, error=Operation not
/// supported`: MAP_SYNC's refusal), the file sized to the job's region;
/// with PMDK's `PMEM_IS_PMEM_FORCE=1` the same jobs run through the
/// mapping: the same counts, verify passing, a trim failing with EINVAL
/// (`td_io_queue`), blocks below a page with `fsync=N` refused when the
/// engine starts; no disk statistics (fio's `FIO_NODISKUTIL`).
#[test]
fn libpmem_maps_as_fio() {
    let fio = common::real_fio();
    let dir = TempDir::new("libpmem");
    let file = dir.arg("pm");
    let cases: &[&[&str]] = &[
        &["--rw=randrw", "--bs=4k", "--size=1m"],
        &[
            "--rw=write",
            "--bs=4k",
            "--size=256k",
            "--verify=crc32c",
            "--fsync=8",
        ],
        &["--rw=randwrite", "--bs=512", "--size=64k", "--fsync=4"],
        &["--rw=trim", "--bs=4k", "--size=64k"],
        &["--rw=read", "--bs=8k", "--size=128k", "--sync=1"],
    ];
    for env in [&[][..], &[("PMEM_IS_PMEM_FORCE", "1")]] {
        for case in cases {
            let mut args = vec!["--name=p", "--ioengine=libpmem", file.as_str()];
            args.extend_from_slice(case);
            let _ = std::fs::remove_file(dir.file("pm"));
            let (f, fio_err, fio_rc) = json_env(fio, &dir, &args, env);
            let fio_len = std::fs::metadata(dir.file("pm")).map(|m| m.len()).ok();
            let _ = std::fs::remove_file(dir.file("pm"));
            let (r, err, rc) = json_env(common::RFIO, &dir, &args, env);
            let len = std::fs::metadata(dir.file("pm")).map(|m| m.len()).ok();
            assert_eq!(
                (rc, summary(&r, 0), len),
                (fio_rc, summary(&f, 0), fio_len),
                "{env:?} {case:?}: {err}"
            );
            assert_eq!(r.get("disk_util"), f.get("disk_util"), "{case:?}");
            if fio_err.contains("minimum block size") {
                assert!(
                    err.contains(
                        "libpmem: mmap options dictate a minimum block size of 4096 bytes\n"
                    ),
                    "{err}"
                );
            }
        }
    }
    let (r, err, _) = json_of(
        common::RFIO,
        &dir,
        &["--name=p", "--ioengine=libpmem", &file, "--size=64k"],
    );
    assert_eq!(r["jobs"][0]["error"], 95);
    assert!(
        err.contains(
            "err=95/file:engines/libpmem.c:114, func=file_name does not point to persistent memory, error=Operation not supported"
        ),
        "{err}"
    );
}

/// dev-dax maps a device DAX character device (/dev/daxX.Y), which this
/// machine has not: rfio refuses any other target before the run, naming
/// what it needs (fio reaps such a job without a word, exit 1).
#[test]
fn dev_dax_needs_a_dax_device() {
    let dir = TempDir::new("devdax");
    for (target, why) in [
        (
            dir.file("f").display().to_string(),
            "is not a character device",
        ),
        (
            "/dev/null".to_string(),
            "/dev/null is not a device DAX device",
        ),
    ] {
        let file = format!("--filename={target}");
        let args = ["--name=x", "--ioengine=dev-dax", file.as_str(), "--size=1m"];
        let out = rfio(&dir, &args);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(stdout(&out), "", "refused before the run");
        assert!(
            stderr(&out).contains(
                "job 'x': ioengine=dev-dax needs a device DAX character device (/dev/daxX.Y); "
            ) && stderr(&out).contains(why),
            "{}",
            stderr(&out)
        );
        let mut parse = args.to_vec();
        parse.push("--parse-only");
        assert!(
            rfio(&dir, &parse).status.success(),
            "parsed as fio parses it"
        );
    }
}
