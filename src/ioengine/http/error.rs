//! Why a transfer of the http engine's client failed (curl's
//! `curl_easy_perform` error, as the engine's line `http: ...` shows it).
//! `peer` is the connection's `host:port`, escaped for a message.

use std::io;

use crate::diag::quote;

/// How much of a peer's text a message quotes.
const QUOTE_MAX: usize = 80;

#[derive(Debug, thiserror::Error)]
pub(crate) enum HttpError {
    /// The URL is not `http://` (curl's `CURLE_UNSUPPORTED_PROTOCOL`).
    #[error("Protocol not supported or disabled: {url}")]
    UnsupportedProtocol { url: String },
    /// The URL's port is no number (`CURLE_URL_MALFORMAT`).
    #[error("Port number was not a decimal number: {port}")]
    BadPort { port: String },
    #[error("No host part in the URL: {url}")]
    NoHost { url: String },
    /// The host name does not resolve (`CURLE_COULDNT_RESOLVE_HOST`).
    #[error(
        "cannot resolve host '{}': {}",
        quote(host, QUOTE_MAX),
        lookup_text(source)
    )]
    Resolve {
        host: String,
        #[source]
        source: io::Error,
    },
    /// No address of the host takes the connection (the last address's
    /// error; `None`: it has no address).
    #[error("connect to {peer}: {}", last.as_ref().map_or("no address".to_string(), os_text))]
    Connect {
        peer: String,
        #[source]
        last: Option<io::Error>,
    },
    #[error("no connection")]
    NoConnection,
    /// Sending or receiving failed (a timeout, a reset).
    #[error("{peer}: {}", os_text(source))]
    Io {
        peer: String,
        #[source]
        source: io::Error,
    },
    #[error("{peer} sent a reply that is not HTTP: {}", quoted(line))]
    NotHttp { peer: String, line: String },
    #[error("{peer} closed the connection in the reply's headers")]
    ClosedInHeaders { peer: String },
    #[error("{peer} closed the connection without a reply")]
    ClosedWithoutReply { peer: String },
    /// The body is longer than the I/O's buffer (`room` bytes).
    #[error("{peer}: the reply's body exceeds the I/O's {room} bytes")]
    BodyTooLong { peer: String, room: usize },
    #[error("{peer}: invalid chunk size {}", quoted(line))]
    BadChunkSize { peer: String, line: String },
    #[error("{peer}: invalid Content-Length {}", quoted(text))]
    BadContentLength { peer: String, text: String },
    #[error("{peer}: Content-Length {len} exceeds the I/O's {room} bytes")]
    ContentLengthTooLong { peer: String, len: u64, room: usize },
    #[error("Maximum (50) redirects followed")]
    TooManyRedirects,
}

/// A failed lookup's words, without Rust's prefix.
fn lookup_text(e: &io::Error) -> String {
    let e = e.to_string();
    e.strip_prefix("failed to lookup address information: ")
        .unwrap_or(&e)
        .to_string()
}

/// Text from outside (a host name, a peer's line), quoted for a message.
fn quoted(text: &str) -> String {
    format!("\"{}\"", quote(text, QUOTE_MAX))
}

/// What an I/O error says, without Rust's `(os error N)`.
fn os_text(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => super::super::io::strerror(n),
        None => e.to_string(),
    }
}
