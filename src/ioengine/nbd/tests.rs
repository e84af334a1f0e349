//! The client against a small NBD server played by a thread, over a
//! socket pair: the handshakes, and I/Os whose replies come back in
//! another order than the requests went.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;

use super::proto::*;
use super::*;

const SIZE: u64 = 1 << 20;

fn put(s: &mut UnixStream, b: &[u8]) {
    s.write_all(b).unwrap();
}

fn get<const N: usize>(s: &mut UnixStream) -> [u8; N] {
    let mut b = [0u8; N];
    s.read_exact(&mut b).unwrap();
    b
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().unwrap())
}

/// The server's side of a fixed newstyle handshake; `go`: whether it
/// knows NBD_OPT_GO. Returns the export name the client asked for.
fn serve_handshake(s: &mut UnixStream, go: bool, flags: u16) -> String {
    put(s, b"NBDMAGIC");
    put(s, b"IHAVEOPT");
    put(s, &3u16.to_be_bytes()); // fixed newstyle, no zeroes
    assert_eq!(be32(&get::<4>(s)), 3);
    loop {
        let h = get::<16>(s);
        assert_eq!(&h[..8], b"IHAVEOPT");
        let (opt, len) = (be32(&h[8..]), be32(&h[12..]) as usize);
        let mut data = vec![0u8; len];
        s.read_exact(&mut data).unwrap();
        let reply = |s: &mut UnixStream, kind: u32, body: &[u8]| {
            put(s, &0x0003_e889_0455_65a9u64.to_be_bytes());
            put(s, &opt.to_be_bytes());
            put(s, &kind.to_be_bytes());
            put(s, &(body.len() as u32).to_be_bytes());
            put(s, body);
        };
        match opt {
            7 if go => {
                let n = be32(&data) as usize;
                let name = String::from_utf8(data[4..4 + n].to_vec()).unwrap();
                let mut info = vec![0u8, 0];
                info.extend_from_slice(&SIZE.to_be_bytes());
                info.extend_from_slice(&flags.to_be_bytes());
                reply(s, 3, &info);
                reply(s, 1, &[]);
                return name;
            }
            7 => reply(s, (1 << 31) + 1, b"no GO here"),
            1 => {
                put(s, &SIZE.to_be_bytes());
                put(s, &flags.to_be_bytes());
                return String::from_utf8(data).unwrap();
            }
            o => panic!("option {o}"),
        }
    }
}

fn pair() -> (OwnedFd, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    (OwnedFd::from(a), b)
}

#[test]
fn handshakes() {
    let flags = 1 | TFLAG_SEND_FLUSH | TFLAG_SEND_TRIM;
    for go in [true, false] {
        let (fd, mut srv) = pair();
        let t = std::thread::spawn(move || serve_handshake(&mut srv, go, flags));
        let e = handshake(&fd, "disk", StopFlag::never()).unwrap();
        assert_eq!(e, Export { size: SIZE, flags });
        assert_eq!(t.join().unwrap(), "disk");
    }
    // An oldstyle server.
    let (fd, mut srv) = pair();
    let t = std::thread::spawn(move || {
        put(&mut srv, b"NBDMAGIC");
        put(&mut srv, &0x0000_4202_8186_1253u64.to_be_bytes());
        put(&mut srv, &4096u64.to_be_bytes());
        put(&mut srv, &3u32.to_be_bytes());
        put(&mut srv, &[0u8; 124]);
    });
    assert_eq!(
        handshake(&fd, "", StopFlag::never()).unwrap(),
        Export {
            size: 4096,
            flags: 3
        }
    );
    t.join().unwrap();
    // Not an NBD server.
    let (fd, mut srv) = pair();
    let t = std::thread::spawn(move || put(&mut srv, b"HTTP/1.1 400 Bad\r\n"));
    let e = handshake(&fd, "", StopFlag::never()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "handshake: server did not send expected NBD magic: Protocol error"
    );
    t.join().unwrap();
}

/// A server that never says hello: the handshake gives up when its
/// bound passes (the engine's is [`HANDSHAKE_LIMIT`]), naming the wait.
#[test]
fn a_silent_server_times_the_handshake_out() {
    let (fd, _srv) = pair();
    let t0 = std::time::Instant::now();
    let stop = StopFlag::never().within(Duration::from_millis(200));
    let e = handshake(&fd, "", stop).unwrap_err();
    assert!(t0.elapsed() >= Duration::from_millis(200));
    assert_eq!(
        e.to_string(),
        "handshake: no answer from the server within 10 s: Connection timed out"
    );
    assert_eq!(e.errno, libc::ETIMEDOUT);
}

/// Serve `n` requests on a disk of [`SIZE`] bytes, holding the replies of
/// each batch of `batch` and sending them in reverse order; then expect
/// the goodbye.
fn serve_io(mut s: UnixStream, n: usize, batch: usize) -> Vec<u8> {
    let mut disk = vec![0u8; SIZE as usize];
    let mut pending: Vec<Vec<u8>> = Vec::new();
    for i in 0..n {
        let r = get::<28>(&mut s);
        assert_eq!(be32(&r), REQUEST_MAGIC);
        let kind = u16::from_be_bytes([r[6], r[7]]);
        let cookie = &r[8..16];
        let off = u64::from_be_bytes(r[16..24].try_into().unwrap()) as usize;
        let len = be32(&r[24..]) as usize;
        let mut reply = Vec::new();
        reply.extend_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
        reply.extend_from_slice(&0u32.to_be_bytes());
        reply.extend_from_slice(cookie);
        match kind {
            CMD_WRITE => s.read_exact(&mut disk[off..off + len]).unwrap(),
            CMD_READ => reply.extend_from_slice(&disk[off..off + len]),
            CMD_TRIM => disk[off..off + len].fill(0),
            CMD_FLUSH => {}
            k => panic!("command {k}"),
        }
        if kind == CMD_TRIM && off == 0 {
            // A failure: ENOSPC.
            reply[4..8].copy_from_slice(&28u32.to_be_bytes());
        }
        pending.push(reply);
        if pending.len() == batch || i + 1 == n {
            for r in pending.drain(..).rev() {
                put(&mut s, &r);
            }
        }
    }
    let r = get::<28>(&mut s);
    assert_eq!(u16::from_be_bytes([r[6], r[7]]), CMD_DISC);
    disk
}

fn io(token: u32, dir: Ddir, offset: u64, buf: &mut [u8]) -> Io {
    Io {
        token,
        file: FileId(0),
        dir,
        offset,
        len: buf.len(),
        buf: buf.as_mut_ptr(),
    }
}

/// Queue the I/Os, then reap all of them; the results by token.
fn run(e: &mut Nbd, ios: &[Io]) -> Vec<Result<usize, i32>> {
    let mut out = vec![Ok(usize::MAX); ios.len()];
    for i in ios {
        // SAFETY: each buffer outlives the batch; tokens are distinct.
        assert_eq!(unsafe { e.queue(i) }, Queued::Queued);
    }
    let mut left = ios.len();
    while left > 0 {
        let n = e.getevents(1, left, None).unwrap();
        for k in 0..n {
            let c = e.event(k);
            out[c.token as usize] = c.result;
        }
        left -= n;
    }
    out
}

#[test]
fn replies_in_any_order_reach_their_ios() {
    let (fd, srv) = pair();
    let flags = 1 | TFLAG_SEND_FLUSH | TFLAG_SEND_TRIM;
    let server = std::thread::spawn(move || serve_io(srv, 10, 4));
    let mut e = Nbd::on(fd, Export { size: SIZE, flags }, 4);
    let mut w: Vec<Vec<u8>> = (0..4u8).map(|i| vec![i + 1; 4096]).collect();
    let ios: Vec<Io> = w
        .iter_mut()
        .enumerate()
        .map(|(t, b)| io(t as u32, Ddir::Write, t as u64 * 8192, b))
        .collect();
    assert_eq!(run(&mut e, &ios), vec![Ok(4096); 4]);
    let mut r: Vec<Vec<u8>> = (0..4).map(|_| vec![0u8; 4096]).collect();
    let ios: Vec<Io> = r
        .iter_mut()
        .enumerate()
        .map(|(t, b)| io(t as u32, Ddir::Read, (3 - t as u64) * 8192, b))
        .collect();
    assert_eq!(run(&mut e, &ios), vec![Ok(4096); 4]);
    for (t, b) in r.iter().enumerate() {
        assert!(b.iter().all(|&x| x == 4 - t as u8), "read {t}");
    }
    let mut none = [0u8; 0];
    let mut t1 = [0u8; 4096];
    let ios = [
        io(0, Ddir::Sync, 0, &mut none),
        io(1, Ddir::Trim, 0, &mut t1),
    ];
    assert_eq!(run(&mut e, &ios), vec![Ok(0), Err(libc::ENOSPC)]);
    // What libnbd refuses never reaches the server.
    let mut big = vec![0u8; 8192];
    let past = io(0, Ddir::Read, SIZE - 4096, &mut big);
    // SAFETY: the buffer outlives the call, which completes it.
    assert_eq!(
        unsafe { e.queue(&past) },
        Queued::Completed(Err(libc::EINVAL))
    );
    let q = e.queue_error(libc::EINVAL).unwrap();
    assert_eq!(
        crate::ioengine::io::EngineError::to_string(&q.error),
        "td_io_queue: Invalid argument"
    );
    drop(e);
    let disk = server.join().unwrap();
    assert!(disk[8192..12288].iter().all(|&x| x == 2));
}

#[test]
fn read_only_exports_refuse_writes_and_trims() {
    let (fd, _srv) = pair();
    let e = Nbd::on(
        fd,
        Export {
            size: SIZE,
            flags: 1 | TFLAG_READ_ONLY,
        },
        1,
    );
    let mut b = [0u8; 512];
    assert_eq!(e.refusal(&io(0, Ddir::Write, 0, &mut b)), Some(libc::EPERM));
    // libnbd checks for trim support first.
    assert_eq!(e.refusal(&io(0, Ddir::Trim, 0, &mut b)), Some(libc::EINVAL));
    assert_eq!(e.refusal(&io(0, Ddir::Sync, 0, &mut b)), Some(libc::EINVAL));
    assert_eq!(
        e.refusal(&io(0, Ddir::DataSync, 0, &mut b)),
        Some(libc::EINVAL)
    );
    assert_eq!(e.refusal(&io(0, Ddir::Read, 0, &mut b)), None);
}

#[test]
fn setup_says_what_fio_says() {
    let spec = |uri: Option<&str>| NbdOptions {
        uri: uri.map(Into::into),
    };
    assert_eq!(
        setup(&spec(None), StopFlag::never())
            .unwrap_err()
            .to_string(),
        "fio: nbd: uri parameter was not specified\n"
    );
    assert_eq!(
        setup(&spec(Some("foo://x")), StopFlag::never())
            .unwrap_err()
            .to_string(),
        "fio: nbd_connect_uri: nbd_connect_uri: unknown NBD URI scheme: foo: Invalid argument\n"
    );
}
