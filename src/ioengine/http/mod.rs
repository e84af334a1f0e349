//! `ioengine=http`: each I/O is an HTTP request for an object (fio's
//! `engines/http.c`, which uses libcurl; rfio has its own client,
//! `client.rs`). Debian's fio 3.33 is built without this engine, so rfio
//! follows fio-3.33's source and HOWTO, with no fio to compare with.
//!
//! As fio: the object of an I/O is named `FILE_OFFSET_LENGTH`, FILE being
//! the job's first file name (`filename=/dav/bucket` gives
//! `/dav/bucket_0_4096`), at `http://HOST` + that name (`http_host`,
//! `localhost` by default). A write is a `PUT` of the buffer (success: 100
//! or 200-204), a read a `GET` into it (200; 404 reads zeroes), a trim a
//! `DELETE` (200, 202, 204 or 404). After a trim, the handle's method
//! stays `DELETE` for every later request of the job, as curl keeps fio's
//! `CURLOPT_CUSTOMREQUEST`. `http_mode=s3` signs each request with AWS
//! Signature Version 4 over fio's canonical request (`sign.rs`), with the
//! SSE-C customer key headers when `http_s3_sse_customer_key` is set;
//! `http_mode=swift` sends the auth token and the body's MD5 as etag.
//! `http_user` and `http_pass` (both) are offered as Digest or Basic
//! credentials when the server asks.
//!
//! A failed transfer fails the I/O with error -1 (fio's `td_verror(td, -1,
//! "transfer")`: `err=-1/file:engines/http.c:715, func=transfer,
//! error=Unknown error -1`), after fio's line naming the HTTP status when
//! the server answered (`DDIR_WRITE failed with HTTP status code 500`);
//! syncs are not supported (`WARNING: Only DDIR_READ/DDIR_WRITE/DDIR_TRIM
//! are supported!`). Where curl fails (fio then says nothing), rfio says
//! what failed and with which peer (`http: connect to 127.0.0.1:1:
//! Connection refused`, `http: 127.0.0.1:8080 sent a reply that is not
//! HTTP: "..."`), the error staying fio's -1.
//!
//! A server that never answers holds the job until its runtime is over or
//! it is stopped (fio's waits on it forever): the I/O then waiting is not
//! counted, and the job ends with what it did, without an error.
//!
//! `https=on` and `https=insecure` need TLS, which rfio does not have: the
//! plan refuses them.

mod client;
mod error;
mod sign;

use std::time::{SystemTime, UNIX_EPOCH};

use self::client::{Client, Request, Sink};
use super::engine::{Caps, CommonOptions, IoEngine, QueueError, StopFlag};
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{EngineError, FileId, FileTarget, Io, IoMem, Queued};
use crate::ddir::Ddir;

/// `https`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Https {
    #[default]
    Off,
    On,
    Insecure,
}

/// `http_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum HttpMode {
    #[default]
    Webdav,
    S3,
    Swift,
}

/// The options of http (fio's `options[]` of `engines/http.c`), with
/// fio's defaults, and the job's first file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HttpOptions {
    pub(crate) https: Https,
    pub(crate) host: String,
    pub(crate) user: Option<String>,
    pub(crate) pass: Option<String>,
    pub(crate) s3_key: String,
    pub(crate) s3_keyid: String,
    pub(crate) swift_auth_token: String,
    pub(crate) s3_region: String,
    pub(crate) s3_sse_customer_key: String,
    pub(crate) s3_sse_customer_algorithm: String,
    pub(crate) s3_storage_class: String,
    pub(crate) mode: HttpMode,
    pub(crate) verbose: i32,
    /// fio's `td->files[0]->file_name`: the objects' name.
    pub(crate) object: String,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            https: Https::Off,
            host: "localhost".into(),
            user: None,
            pass: None,
            s3_key: String::new(),
            s3_keyid: String::new(),
            swift_auth_token: String::new(),
            s3_region: "us-east-1".into(),
            s3_sse_customer_key: String::new(),
            s3_sse_customer_algorithm: "AES256".into(),
            s3_storage_class: "STANDARD".into(),
            mode: HttpMode::Webdav,
            verbose: 0,
            object: String::new(),
        }
    }
}

/// The fio names of [`HttpOptions`]' options.
pub(crate) const OPTIONS: &[&str] = &[
    "https",
    "http_host",
    "http_user",
    "http_pass",
    "http_s3_key",
    "http_s3_keyid",
    "http_swift_auth_token",
    "http_s3_region",
    "http_s3_sse_customer_key",
    "http_s3_sse_customer_algorithm",
    "http_s3_storage_class",
    "http_mode",
    "http_verbose",
];

/// What `ioengine=http` is (fio's `engines/http.c`).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(fio::DISKLESSIO | fio::SYNCIO);

/// What http can do (fio's `FIO_DISKLESSIO | FIO_SYNCIO`).
pub(crate) const CAPS: Caps = Caps {
    is_sync: true,
    needs_files: false,
    can_trim: true,
    has_commit: false,
    fake_io: false,
    file_op: false,
    no_extend: false,
    no_io: false,
};

/// fio's error of a failed transfer: `td_verror(td, -1, "transfer")`.
const TRANSFER_ERROR: i32 = -1;

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<HttpOptions, Refusal> {
    let https = match o.choice("https") {
        Some("on") => Https::On,
        Some("insecure") => Https::Insecure,
        _ => Https::Off,
    };
    // `https` other than `off` needs TLS, which rfio does not have.
    if https != Https::Off {
        let value = o.written("https").unwrap_or_else(|| "on".to_string());
        return Err(Refusal {
            option: Some("https"),
            message: format!(
                "ioengine=http: https={value} needs TLS, which rfio does not have \
                 (no TLS library it can build); use https=off and an http:// server"
            ),
        });
    }
    let text = |name: &'static str| o.text(name).unwrap_or_default();
    Ok(HttpOptions {
        https,
        host: text("http_host"),
        user: o.text("http_user"),
        pass: o.text("http_pass"),
        s3_key: text("http_s3_key"),
        s3_keyid: text("http_s3_keyid"),
        swift_auth_token: text("http_swift_auth_token"),
        s3_region: text("http_s3_region"),
        s3_sse_customer_key: text("http_s3_sse_customer_key"),
        s3_sse_customer_algorithm: text("http_s3_sse_customer_algorithm"),
        s3_storage_class: text("http_s3_storage_class"),
        mode: match o.choice("http_mode") {
            Some("s3") => HttpMode::S3,
            Some("swift") => HttpMode::Swift,
            _ => HttpMode::Webdav,
        },
        verbose: o.int("http_verbose").clamp(0, i64::from(i32::MAX)) as i32,
        object: o
            .job()
            .first_file
            .as_ref()
            .map_or(String::new(), |f| f.display().to_string()),
    })
}

pub(crate) fn new(
    _common: &CommonOptions,
    opts: &HttpOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    let user = match (&opts.user, &opts.pass) {
        (Some(u), Some(p)) => Some((u.clone(), p.clone())),
        _ => None,
    };
    Ok(Box::new(Http {
        client: Client::new(user, opts.verbose),
        o: opts.clone(),
        delete: false,
        log: None,
        files: 0,
        done: false,
    }))
}

struct Http {
    client: Client,
    o: HttpOptions,
    /// A trim set curl's custom method: every later request is a DELETE.
    delete: bool,
    /// fio's line about the last failed I/O, for `queue_error`.
    log: Option<String>,
    files: u32,
    /// A wait on the server was cut by a stop or the runtime's end.
    done: bool,
}

impl Http {
    /// One I/O as fio's `fio_http_queue` does it; the errno of a failure
    /// (with fio's line, if it has one, kept in `log`).
    fn transfer(&mut self, io: &Io, buf: &mut [u8]) -> Result<(), i32> {
        let object = format!("{}_{}_{}", self.o.object, io.offset, io.len);
        let url = format!("http://{}{object}", self.o.host);
        let date = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let headers = match self.o.mode {
            HttpMode::S3 => sign::s3_headers(&self.o, io.dir, &object, buf, &sign::iso_date(date)),
            HttpMode::Swift => sign::swift_headers(&self.o, io.dir, buf),
            HttpMode::Webdav => Vec::new(),
        };
        let custom = |m: &'static str| if self.delete { "DELETE" } else { m };
        let (name, ok): (&str, fn(u16) -> bool) = match io.dir {
            Ddir::Write => ("DDIR_WRITE", |s| s == 100 || (200..=204).contains(&s)),
            Ddir::Read => ("DDIR_READ", |s| s == 200 || s == 404),
            Ddir::Trim => ("DDIR_TRIM", |s| matches!(s, 200 | 202 | 204 | 404)),
            _ => {
                self.log =
                    Some("WARNING: Only DDIR_READ/DDIR_WRITE/DDIR_TRIM are supported!\n".into());
                return Err(TRANSFER_ERROR);
            }
        };
        let result = match io.dir {
            Ddir::Write => {
                let req = Request {
                    method: custom("PUT"),
                    url: &url,
                    headers: &headers,
                    body: Some(buf),
                };
                self.client.perform(&req, Sink::Discard)
            }
            Ddir::Read => {
                let req = Request {
                    method: custom("GET"),
                    url: &url,
                    headers: &headers,
                    body: None,
                };
                self.client.perform(&req, Sink::Buffer(buf))
            }
            _ => {
                self.delete = true;
                let req = Request {
                    method: "DELETE",
                    url: &url,
                    headers: &headers,
                    body: None,
                };
                self.client.perform(&req, Sink::Discard)
            }
        };
        match result {
            Ok(r) if ok(r.status) => {
                if io.dir == Ddir::Read && r.status == 404 {
                    // The object does not exist: fio reads zeroes.
                    buf.fill(0);
                }
                Ok(())
            }
            Ok(r) => {
                self.log = Some(format!(
                    "{name} failed with HTTP status code {}\n",
                    r.status
                ));
                Err(TRANSFER_ERROR)
            }
            Err(msg) => {
                self.log = Some(format!("http: {msg}\n"));
                Err(TRANSFER_ERROR)
            }
        }
    }
}

impl IoEngine for Http {
    fn name(&self) -> &'static str {
        "http"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    /// fio's `fio_http_open` does nothing.
    fn open(&mut self, _target: &FileTarget) -> Result<FileId, EngineError> {
        self.files += 1;
        Ok(FileId(self.files - 1))
    }

    unsafe fn queue(&mut self, io: &Io) -> Queued {
        let buf: &mut [u8] = if io.len == 0 || io.buf.is_null() {
            &mut []
        } else {
            // SAFETY: the caller guarantees `io.buf` for `io.len` bytes,
            // untouched by anyone else, until the I/O completes, which is
            // before `queue` returns.
            unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) }
        };
        let r = self.transfer(io, buf);
        if r.is_err() && self.client.stop.is_some_and(|s| s.over()) {
            // The job was stopped, or its time is up, while the server
            // kept it waiting: the job ends without this I/O.
            self.done = true;
            self.log = None;
            return Queued::Busy;
        }
        Queued::Completed(r.map(|()| io.len))
    }

    fn watch_stop(&mut self, stop: StopFlag) {
        self.client.stop = Some(stop);
    }

    fn done(&self) -> bool {
        self.done
    }

    fn queue_error(&mut self, errno: i32) -> Option<QueueError> {
        Some(QueueError {
            error: EngineError::fio_msg(
                errno,
                "engines/http.c:715",
                "transfer",
                format!("Unknown error {errno}"),
            ),
            log: self.log.take(),
        })
    }

    fn close_all(&mut self) {
        self.files = 0;
    }
}

#[cfg(test)]
mod tests;
