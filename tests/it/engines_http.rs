//! ioengine=http (WebDAV, S3, Swift) against a small HTTP object store
//! run with python3, compared with what fio 3.33's source does: the
//! requests, their checks, credentials and failures.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use crate::common;
use common::json::{json_of, summary};
use common::{rfio, stderr, TempDir};

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
