//! The NBD protocol (the NBD project's `doc/proto.md`), the client side
//! that fio's nbd engine gets from libnbd: the fixed newstyle handshake
//! with `NBD_OPT_GO` (falling back to `NBD_OPT_EXPORT_NAME` where the
//! server does not know it, and reading an oldstyle server), then the
//! transmission phase's requests and simple replies (rfio asks for no
//! structured replies).

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

use super::super::engine::StopFlag;
use super::super::wait;
use super::uri::NbdError;

/// How long a connection and its handshake may take, whatever the job's
/// runtime (there is none yet): a server says its hello as soon as it
/// accepts, and QEMU's NBD server gives a client 10 s to finish the
/// handshake (`qemu-nbd --handshake-limit`, 10 by default). libnbd, and
/// so fio, wait forever.
pub(super) const HANDSHAKE_LIMIT: Duration = Duration::from_secs(10);

const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
const IHAVEOPT: u64 = 0x4948_4156_454F_5054;
const CLISERV_MAGIC: u64 = 0x0000_4202_8186_1253;
const REP_MAGIC: u64 = 0x0003_e889_0455_65a9;
pub(super) const REQUEST_MAGIC: u32 = 0x2560_9513;
pub(super) const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

const FLAG_FIXED_NEWSTYLE: u16 = 1;
const FLAG_NO_ZEROES: u16 = 2;

const OPT_EXPORT_NAME: u32 = 1;
const OPT_GO: u32 = 7;
const REP_ACK: u32 = 1;
const REP_INFO: u32 = 3;
const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
const INFO_EXPORT: u16 = 0;

/// Transmission flags of the export.
pub(super) const TFLAG_READ_ONLY: u16 = 1 << 1;
pub(super) const TFLAG_SEND_FLUSH: u16 = 1 << 2;
pub(super) const TFLAG_SEND_TRIM: u16 = 1 << 5;

/// Request types.
pub(super) const CMD_READ: u16 = 0;
pub(super) const CMD_WRITE: u16 = 1;
pub(super) const CMD_DISC: u16 = 2;
pub(super) const CMD_FLUSH: u16 = 3;
pub(super) const CMD_TRIM: u16 = 4;

/// The most one request moves (libnbd's `MAX_REQUEST_SIZE`).
pub(super) const MAX_REQUEST: usize = 64 << 20;

/// What the handshake learnt of the export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Export {
    pub(super) size: u64,
    pub(super) flags: u16,
}

/// A blocking view of the socket for the handshake, whose reads wait in
/// slices until the stop (bounded by [`HANDSHAKE_LIMIT`]) says give up.
struct Conn<'a>(&'a OwnedFd, StopFlag);

impl Read for Conn<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match wait::ready(self.0.as_raw_fd(), libc::POLLIN, Some(self.1)) {
            Ok(true) => {}
            Ok(false) => return Err(wait::given_up()),
            Err(e) => return Err(std::io::Error::from_raw_os_error(e)),
        }
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let r = unsafe { libc::recv(self.0.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if r < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(r as usize)
        }
    }
}

impl Write for Conn<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let r = unsafe {
            libc::send(
                self.0.as_raw_fd(),
                buf.as_ptr().cast(),
                buf.len(),
                libc::MSG_NOSIGNAL,
            )
        };
        if r < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(r as usize)
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn io_err(e: std::io::Error) -> NbdError {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            NbdError::new("handshake: server unexpectedly closed the connection", 0)
        }
        std::io::ErrorKind::TimedOut => NbdError::new(
            format!(
                "handshake: no answer from the server within {} s",
                HANDSHAKE_LIMIT.as_secs()
            ),
            libc::ETIMEDOUT,
        ),
        _ => NbdError::new("handshake: recv", e.raw_os_error().unwrap_or(libc::EIO)),
    }
}

fn read_u16(c: &mut Conn<'_>) -> Result<u16, NbdError> {
    let mut b = [0u8; 2];
    c.read_exact(&mut b).map_err(io_err)?;
    Ok(u16::from_be_bytes(b))
}

fn read_u32(c: &mut Conn<'_>) -> Result<u32, NbdError> {
    let mut b = [0u8; 4];
    c.read_exact(&mut b).map_err(io_err)?;
    Ok(u32::from_be_bytes(b))
}

fn read_u64(c: &mut Conn<'_>) -> Result<u64, NbdError> {
    let mut b = [0u8; 8];
    c.read_exact(&mut b).map_err(io_err)?;
    Ok(u64::from_be_bytes(b))
}

fn send(c: &mut Conn<'_>, bytes: &[u8]) -> Result<(), NbdError> {
    c.write_all(bytes)
        .map_err(|e| NbdError::new("handshake: send", e.raw_os_error().unwrap_or(libc::EIO)))
}

/// An option request: `IHAVEOPT`, the option, its data.
fn option(opt: u32, data: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(16 + data.len());
    m.extend_from_slice(&IHAVEOPT.to_be_bytes());
    m.extend_from_slice(&opt.to_be_bytes());
    m.extend_from_slice(&(data.len() as u32).to_be_bytes());
    m.extend_from_slice(data);
    m
}

/// The name of an option reply error (`NBD_REP_ERR_*`).
fn rep_error(t: u32) -> &'static str {
    match t.wrapping_sub(1 << 31) {
        1 => "NBD_REP_ERR_UNSUP",
        2 => "NBD_REP_ERR_POLICY",
        3 => "NBD_REP_ERR_INVALID",
        4 => "NBD_REP_ERR_PLATFORM",
        5 => "NBD_REP_ERR_TLS_REQD",
        6 => "NBD_REP_ERR_UNKNOWN",
        7 => "NBD_REP_ERR_SHUTDOWN",
        8 => "NBD_REP_ERR_BLOCK_SIZE_REQD",
        9 => "NBD_REP_ERR_TOO_BIG",
        _ => "unknown error",
    }
}

/// The handshake on a fresh connection, for export `name`, given up when
/// `stop` says so (the caller bounds it with [`HANDSHAKE_LIMIT`]).
pub(super) fn handshake(fd: &OwnedFd, name: &str, stop: StopFlag) -> Result<Export, NbdError> {
    let c = &mut Conn(fd, stop);
    if read_u64(c)? != NBDMAGIC {
        return Err(NbdError::new(
            "handshake: server did not send expected NBD magic",
            libc::EPROTO,
        ));
    }
    match read_u64(c)? {
        CLISERV_MAGIC => {
            // Oldstyle: size, flags, 124 bytes of zeroes.
            let size = read_u64(c)?;
            let flags = read_u32(c)?;
            let mut zeroes = [0u8; 124];
            c.read_exact(&mut zeroes).map_err(io_err)?;
            return Ok(Export {
                size,
                flags: flags as u16,
            });
        }
        IHAVEOPT => {}
        _ => {
            return Err(NbdError::new(
                "handshake: server is not oldstyle or newstyle",
                libc::EPROTO,
            ))
        }
    }
    let gflags = read_u16(c)?;
    let cflags = u32::from(gflags & (FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES));
    send(c, &cflags.to_be_bytes())?;
    if gflags & FLAG_FIXED_NEWSTYLE != 0 {
        // NBD_OPT_GO: the name and no information requests.
        let mut data = Vec::with_capacity(6 + name.len());
        data.extend_from_slice(&(name.len() as u32).to_be_bytes());
        data.extend_from_slice(name.as_bytes());
        data.extend_from_slice(&0u16.to_be_bytes());
        send(c, &option(OPT_GO, &data))?;
        let mut export = None;
        loop {
            if read_u64(c)? != REP_MAGIC {
                return Err(NbdError::new(
                    "handshake: invalid option reply magic",
                    libc::EPROTO,
                ));
            }
            let _opt = read_u32(c)?;
            let kind = read_u32(c)?;
            let len = read_u32(c)? as usize;
            let mut data = vec![0u8; len.min(1 << 20)];
            c.read_exact(&mut data).map_err(io_err)?;
            if len > data.len() {
                return Err(NbdError::new(
                    "handshake: option reply too long",
                    libc::EPROTO,
                ));
            }
            match kind {
                REP_ACK => {
                    return export.ok_or_else(|| {
                        NbdError::new(
                            "handshake: server did not send NBD_INFO_EXPORT",
                            libc::EPROTO,
                        )
                    })
                }
                REP_INFO
                    if data.len() >= 12
                        && u16::from_be_bytes([data[0], data[1]]) == INFO_EXPORT =>
                {
                    let mut size = [0u8; 8];
                    size.copy_from_slice(&data[2..10]);
                    export = Some(Export {
                        size: u64::from_be_bytes(size),
                        flags: u16::from_be_bytes([data[10], data[11]]),
                    });
                }
                REP_ERR_UNSUP => break,
                k if k & (1 << 31) != 0 => {
                    let text = String::from_utf8_lossy(&data);
                    let errno = if k == (1 << 31) + 6 {
                        libc::ENOENT
                    } else {
                        libc::EINVAL
                    };
                    return Err(NbdError::new(
                        format!(
                            "handshake: server replied with error to opt_go request: {}{}{} \
                             for export \"{name}\"",
                            rep_error(k),
                            if text.is_empty() { "" } else { ": " },
                            text
                        ),
                        errno,
                    ));
                }
                _ => {}
            }
        }
    }
    // NBD_OPT_EXPORT_NAME: no reply but the export's size and flags.
    send(c, &option(OPT_EXPORT_NAME, name.as_bytes()))?;
    let size = read_u64(c)?;
    let flags = read_u16(c)?;
    if gflags & FLAG_NO_ZEROES == 0 {
        let mut zeroes = [0u8; 124];
        c.read_exact(&mut zeroes).map_err(io_err)?;
    }
    Ok(Export { size, flags })
}

/// A request's 28 bytes: magic, flags, type, cookie, offset, length.
pub(super) fn request(kind: u16, cookie: u64, offset: u64, len: u32) -> [u8; 28] {
    let mut r = [0u8; 28];
    r[..4].copy_from_slice(&REQUEST_MAGIC.to_be_bytes());
    r[6..8].copy_from_slice(&kind.to_be_bytes());
    r[8..16].copy_from_slice(&cookie.to_be_bytes());
    r[16..24].copy_from_slice(&offset.to_be_bytes());
    r[24..28].copy_from_slice(&len.to_be_bytes());
    r
}

/// The errno of an NBD error value (the protocol's values are Linux's;
/// libnbd reads any other as `EINVAL`).
pub(super) fn errno_of(e: u32) -> i32 {
    match e as i32 {
        e @ (libc::EPERM
        | libc::EIO
        | libc::ENOMEM
        | libc::EINVAL
        | libc::ENOSPC
        | libc::EOVERFLOW
        | libc::ENOTSUP
        | libc::ESHUTDOWN) => e,
        _ => libc::EINVAL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_big_endian() {
        let r = request(CMD_WRITE, 7, 0x1000, 512);
        assert_eq!(&r[..4], &[0x25, 0x60, 0x95, 0x13]);
        assert_eq!(&r[4..8], &[0, 0, 0, 1]);
        assert_eq!(r[15], 7);
        assert_eq!(&r[16..24], &[0, 0, 0, 0, 0, 0, 0x10, 0]);
        assert_eq!(&r[24..], &[0, 0, 2, 0]);
        assert_eq!(errno_of(28), libc::ENOSPC);
        assert_eq!(errno_of(99), libc::EINVAL);
    }
}
