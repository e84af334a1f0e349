//! fio's client/server wire protocol (fio 3.33 speaks version 97): frames
//! and the message bodies, as bytes ↔ rfio's own types. Nothing here
//! opens a socket, reads the clock or prints; the server and the client
//! (`remote::server`, `remote::client`) move these messages over their
//! connections.
//!
//! - [`frame`]: the 24-byte header, CRC-16, fragments of at most 1,024
//!   bytes, and the reassembly of a message with its limits.
//! - [`body`]: the small bodies (PROBE, START, STOP, TEXT, JOB_OPT, JOB,
//!   JOBLINE, LOAD_FILE, SENDFILE), each a struct with `encode`/`decode`.
//! - [`addr`]: fio's address syntax (`ip:`, `ip6:`, `sock:`, `,PORT`).
//!
//! The contract is fio's, written down in `shared/reference/client-server.md`
//! and checked against frames recorded from real fio servers
//! (`tests/fixtures/wire`). Every length, count and offset read from a
//! peer is checked against the bytes received: a hostile peer gets an
//! error, never a panic or a large allocation.

pub(crate) mod addr;
pub(crate) mod body;
pub(crate) mod frame;
pub(crate) mod stats;

/// A body that does not fit its message, or a field outside its range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BodyError {
    #[error("{what}: {len} bytes, at least {need} expected")]
    Short {
        what: &'static str,
        len: usize,
        need: usize,
    },
    #[error("{what}: {why}")]
    Bad { what: &'static str, why: String },
}

/// Little-endian reads at fixed offsets of a body already checked to be
/// long enough (`need`); every read is bounds-checked all the same.
#[derive(Clone, Copy)]
pub(crate) struct Le<'a> {
    pub(crate) b: &'a [u8],
}

impl<'a> Le<'a> {
    /// `b`, if it holds at least `need` bytes.
    pub(crate) fn new(what: &'static str, b: &'a [u8], need: usize) -> Result<Le<'a>, BodyError> {
        if b.len() < need {
            return Err(BodyError::Short {
                what,
                len: b.len(),
                need,
            });
        }
        Ok(Le { b })
    }

    fn array<const N: usize>(&self, at: usize) -> [u8; N] {
        let mut a = [0u8; N];
        if let Some(s) = self.b.get(at..at + N) {
            a.copy_from_slice(s);
        }
        a
    }

    pub(crate) fn u8(&self, at: usize) -> u8 {
        self.b.get(at).copied().unwrap_or(0)
    }

    pub(crate) fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes(self.array(at))
    }

    pub(crate) fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.array(at))
    }

    pub(crate) fn u64(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.array(at))
    }

    /// fio's `fio_fp64_t`: a 16-byte slot whose first 8 bytes are the
    /// binary64 bit pattern.
    pub(crate) fn fp64(&self, at: usize) -> f64 {
        f64::from_bits(self.u64(at))
    }

    /// A NUL-padded char array of `len` bytes, up to its first NUL (bytes
    /// that are not UTF-8 are replaced).
    pub(crate) fn cstr(&self, at: usize, len: usize) -> String {
        let s = self.b.get(at..(at + len).min(self.b.len())).unwrap_or(&[]);
        let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
        String::from_utf8_lossy(&s[..end]).into_owned()
    }
}

/// Little-endian writes into a zeroed body of fixed size.
pub(crate) struct Put {
    pub(crate) b: Vec<u8>,
}

impl Put {
    /// A body of `len` zero bytes.
    pub(crate) fn zeroed(len: usize) -> Put {
        Put { b: vec![0; len] }
    }

    fn put(&mut self, at: usize, bytes: &[u8]) {
        if let Some(d) = self.b.get_mut(at..at + bytes.len()) {
            d.copy_from_slice(bytes);
        }
    }

    pub(crate) fn u8(&mut self, at: usize, v: u8) {
        self.put(at, &[v]);
    }

    pub(crate) fn u16(&mut self, at: usize, v: u16) {
        self.put(at, &v.to_le_bytes());
    }

    pub(crate) fn u32(&mut self, at: usize, v: u32) {
        self.put(at, &v.to_le_bytes());
    }

    pub(crate) fn u64(&mut self, at: usize, v: u64) {
        self.put(at, &v.to_le_bytes());
    }

    /// A float in fio's 16-byte slot. fio's own encoder loops forever on
    /// an infinity and garbles NaN and subnormals, so a value that is not
    /// finite and normal (or zero) is sent as 0.
    pub(crate) fn fp64(&mut self, at: usize, v: f64) {
        let v = if v.is_normal() { v } else { 0.0 };
        self.u64(at, v.to_bits());
    }

    /// `s` into a NUL-padded array of `len` bytes, cut to `len - 1` bytes
    /// (at a character boundary) as fio's `snprintf`.
    pub(crate) fn cstr(&mut self, at: usize, len: usize, s: &str) {
        let mut end = s.len().min(len.saturating_sub(1));
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.put(at, &s.as_bytes()[..end]);
    }
}
